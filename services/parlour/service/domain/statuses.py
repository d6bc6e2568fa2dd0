"""The service's domain vocabulary: table statuses, seat kinds and event types.

String enums, so that they are stored, compared and sent as the plain words
they stand for ("open", "bot", "ActionTaken") while the code names them.
Nothing here knows of gRPC or of a database.
"""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    """Where a table is in its life."""

    OPEN = "open"  # seats filling
    PLAYING = "playing"
    FINISHED = "finished"
    EXPIRED = "expired"  # open, nobody started it in time (TableExpired)
    ABANDONED = "abandoned"  # playing, no person acted in time (GameAbandoned)


class SeatKind(StrEnum):
    """Who sits in a seat."""

    PERSON = "person"
    BOT = "bot"


class EventType(StrEnum):
    """The events of a table's log, in the order a table meets them (see ``fold.py``)."""

    TABLE_HOSTED = "TableHosted"
    SEAT_TAKEN = "SeatTaken"
    SEAT_LEFT = "SeatLeft"
    GAME_STARTED = "GameStarted"
    CARDS_DEALT = "CardsDealt"
    ACTION_TAKEN = "ActionTaken"
    GAME_FINISHED = "GameFinished"
    # turn clocks and expiry (issue 12)
    SEAT_AWAY = "SeatAway"  # a person's clock ran out: a bot plays the seat
    SEAT_RETURNED = "SeatReturned"  # the person took the seat back with its token
    TABLE_EXPIRED = "TableExpired"  # an open table nobody started in time
    GAME_ABANDONED = "GameAbandoned"  # no person acted in time: ends, scores as they stand
    # moderation (issue 30)
    SEAT_REMOVED = "SeatRemoved"  # the host removed a person from a seat before the start
    # table chat (issue 32)
    CHAT_SAID = "ChatSaid"  # a seat said a line at the table (public)
    CHAT_SWITCHED = "ChatSwitched"  # the host switched the table's chat on or off
