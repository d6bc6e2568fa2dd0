"""Typed domain events: what the service writes is what ``events.decode`` reads back.

A whole Crazy 8s game (a player leaves and another sits down first, and a
table chats, so every event type is met) is played through the application layer on both stores;
every stored event decodes to its class, at the schema version written today,
and turns back into exactly the payload that was stored. An old CardsDealt
(v1: the deck as one string) decodes through its upcaster; an unknown type is
refused.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain import events
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import StoredEvent
from tests.replay.games import open_store, play_moves, seat_table


async def test_every_event_the_service_writes_decodes_to_its_typed_event(store_url: str) -> None:
    store = open_store(store_url)
    app = Parlour(store, make_notifier(store))
    try:
        # someone sits down and leaves again before the game, so SeatLeft is in a log too
        left = await app.host_table("crazy8s", 2, {})
        joined = await app.join(left.table.table_id, "Bo")
        await app.leave(left.table.table_id, joined.seat, Credentials(seat_token=joined.seat_token))
        # ...and someone the host removes (SeatRemoved)
        removed = await app.join(left.table.table_id, "Cy")
        host = Credentials(host_token=left.host_token)
        await app.remove_from_seat(left.table.table_id, removed.seat, host)
        played = await seat_table(app, "crazy8s", 2)
        await play_moves(app, played, random.Random(3), 10_000)
        assert played.mirror.state is not None and played.mirror.state.is_over
        # ...and a table whose seat chats and whose host switches its chat off (issue 32)
        chatty = await seat_table(app, "crazy8s", 2)
        said = Credentials(seat_token=chatty.seat_tokens[0])
        await app.say(chatty.table_id, 0, said, "good game")
        await app.set_chat(chatty.table_id, False, Credentials(host_token=chatty.host_token))
        stored = await store.read(left.table.table_id) + await store.read(chatty.table_id)
        stored += await store.read(played.table_id)
    finally:
        await store.close()
    seen = set()
    for event in stored:
        typed = events.decode(event)
        seen.add(type(typed))
        assert event.type == typed.TYPE
        assert typed.schema_version() == event.schema_version
        again = typed.new(event.digest)
        assert (again.type, again.payload) == (event.type, event.payload)
        assert again.digest == event.digest
    lifecycle = {events.SeatAway, events.SeatReturned, events.TableExpired, events.GameAbandoned}
    assert seen == set(events.EVENT_CLASSES.values()) - lifecycle  # those: test_clocks.py
    finished = events.decode(stored[-1])
    assert isinstance(finished, events.GameFinished) and len(finished.scores) == 2


def _stored(kind: str, version: int, payload: dict[str, object]) -> StoredEvent:
    return StoredEvent("t1", 5, kind, version, payload, "", None, datetime.now(UTC))


def test_an_old_schema_version_is_read_as_the_current_one() -> None:
    dealt = events.decode(_stored("CardsDealt", 1, {"deck": "QS 2C 9H"}))
    assert dealt == events.CardsDealt(("QS", "2C", "9H"))
    assert dealt.new().payload == {"cards": ["QS", "2C", "9H"]}
    assert dealt.new().schema_version == 4
    # a field an early log did not write takes its default
    hosted = events.decode(_stored("TableHosted", 1, {"game": "hearts", "seats": 4}))
    assert hosted == events.TableHosted("hearts", 4)


def test_an_unknown_event_type_is_refused() -> None:
    with pytest.raises(events.UnknownEventType, match="TablePainted"):
        events.decode(_stored("TablePainted", 1, {}))


@pytest.mark.parametrize(
    ("typed", "payload"),
    [
        (events.SeatAway(2, "easy"), {"seat": 2, "bot_level": "easy"}),
        (events.SeatReturned(2), {"seat": 2}),
        (events.TableExpired(), {}),
        (events.GameAbandoned((3, -1, 0)), {"scores": [3, -1, 0], "winners": []}),
        (
            events.CardsDealt(("QS", "2C"), 0, "ab", "cd"),
            {"cards": ["QS", "2C"], "deal": 0, "salt": "ab", "commitment": "cd"},
        ),
        (events.SeatTaken(1, "Bo", "00ff"), {"seat": 1, "player_name": "Bo", "entropy": "00ff"}),
    ],
)
def test_the_lifecycle_and_deal_events_keep_their_documented_payloads(
    typed: events.DomainEvent, payload: dict[str, object]
) -> None:
    assert typed.payload() == payload
    back = events.decode(_stored(typed.TYPE.value, typed.schema_version(), payload))
    assert back == typed
