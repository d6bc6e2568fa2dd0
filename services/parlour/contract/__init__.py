"""The contract's edge: engine values to and from the v1 messages, both directions.

One conversion for everyone who speaks the contract: the service turns the
engine's values (cards, actions, a seat's view, tricks, options, results) into
messages, and a bot's worker reads the messages back as the same values, so a
strategy sees what it would see in self-play. ``tests/contract`` checks the
round trip. What only the service knows (table rows, statuses, clocks) stays
in ``parlour.service.grpc.convert``.
"""
