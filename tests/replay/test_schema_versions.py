"""Event schema versions: an event written with an older schema still replays.

``CardsDealt`` schema 1 stored the deck as one string under "deck"; schema 2
stores a list under "cards". The committed log ``data/wizard_v1_deals.jsonl``
is a real game whose deals are all schema 1. ``CardsDealt`` 3 and
``ActionTaken`` 2 (written today) keep the payloads and chain their digests
(``fold.chained_digest``); a log with the older whole-state digests, or one
that switches from those to chained ones mid-game, still verifies.
"""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from parlour.engine.registry import get_game
from parlour.replay.check import ReplayError, load_log, replay, summarize, write_log
from parlour.service.app.parlour import Parlour
from parlour.service.domain.events import CardsDealt
from parlour.service.domain.fold import CHAINED_FROM, Folded, chained_digest, fold
from parlour.service.domain.statuses import EventType
from parlour.service.domain.upcast import (
    UnknownSchemaVersion,
    current_version,
    upcast,
    upcast_payload,
)
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import EventStore, StoredEvent
from tests.replay.games import load_into_store, open_store, play_game

Log = list[StoredEvent]
OLD_LOG = Path(__file__).parent / "data" / "wizard_v1_deals.jsonl"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[EventStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'parlour.sqlite3'}")
    yield opened
    await opened.close()


def test_the_committed_log_really_holds_old_deals() -> None:
    deals = [event for event in load_log(OLD_LOG) if event.type == EventType.CARDS_DEALT]
    assert deals and all(event.schema_version == 1 for event in deals)
    assert all(set(event.payload) == {"deck"} for event in deals)


def test_cards_dealt_v1_upcasts_to_a_list_of_cards() -> None:
    assert upcast_payload(EventType.CARDS_DEALT, 1, {"deck": "QS 2C W1"}) == {
        "cards": ["QS", "2C", "W1"]
    }
    assert upcast_payload(EventType.CARDS_DEALT, 2, {"cards": ["QS"]}) == {"cards": ["QS"]}


def test_an_old_log_replays_with_every_digest_checked() -> None:
    events = load_log(OLD_LOG)
    summary = summarize(events)
    assert summary["finished"]
    assert summary["checked"] == sum(bool(event.digest) for event in events) > 0
    assert summary["scores"] == events[-1].payload["scores"]


async def test_the_service_fold_reads_an_old_log_like_replay_does(store: EventStore) -> None:
    events = load_log(OLD_LOG)
    await load_into_store(store, events, "old-table")
    stored = await store.read("old-table")
    assert [event.schema_version for event in stored] == [e.schema_version for e in events]
    folded = fold(stored)
    assert folded.state is not None
    assert folded.state.digest() == summarize(events)["digests"][-1][1]


async def test_export_keeps_old_events_as_they_were_stored(store: EventStore) -> None:
    events = load_log(OLD_LOG)
    await load_into_store(store, events, "old-table")
    out = io.StringIO()
    write_log(await store.read("old-table"), out)
    assert out.getvalue() == OLD_LOG.read_text(encoding="utf-8")


async def test_the_service_writes_deals_at_the_current_schema_version(store: EventStore) -> None:
    app = Parlour(store, make_notifier(store))
    played = await play_game(app, "kaiser", 4, random.Random(3))
    events = await store.read(played.table_id)
    deals = [event for event in events if event.type == EventType.CARDS_DEALT]
    assert (current_version(EventType.CARDS_DEALT), current_version(EventType.ACTION_TAKEN)) == (
        4,
        2,
    )
    assert deals and all(event.schema_version == 4 for event in deals)
    assert all(isinstance(event.payload["cards"], list) for event in deals)
    assert [event.payload["deal"] for event in deals] == list(range(len(deals)))
    assert all(len(event.payload["commitment"]) == 64 for event in deals)
    actions = [event for event in events if event.type == EventType.ACTION_TAKEN]
    assert actions and all(event.schema_version == 2 for event in actions)


def test_a_schema_version_newer_than_this_code_is_refused_by_name() -> None:
    events = load_log(OLD_LOG)
    first_deal = next(n for n, event in enumerate(events) if event.type == EventType.CARDS_DEALT)
    events[first_deal] = replace(events[first_deal], schema_version=5)
    with pytest.raises(ReplayError) as refused:
        summarize(events)
    assert refused.value.seq == events[first_deal].seq
    assert refused.value.type == EventType.CARDS_DEALT
    assert "schema version 5 is newer" in str(refused.value)
    with pytest.raises(UnknownSchemaVersion):
        upcast(events[first_deal])


def whole_state_digest_log(game: str, seats: int, seed: int, switch_at: int | None) -> Log:
    """A random full game logged as before chained digests (``CardsDealt`` 2 and
    ``ActionTaken`` 1, each digest a hash of the whole state); from the
    ``switch_at``-th game event on (if given) with chained digests (``CardsDealt`` 3,
    ``ActionTaken`` 2: deals not yet committed)."""
    rng = random.Random(seed)
    resolved = get_game(game).resolve(seats, {})
    folded = Folded(state=get_game(game).new(seats, resolved))
    state = folded.state
    assert state is not None
    setup = {"game": game, "seats": seats, "options": resolved, "name": "old"}
    events = [_event(1, "TableHosted", 1, setup, ""), _event(2, EventType.GAME_STARTED, 1, {}, "")]
    while not state.is_over:
        if (cards := state.chance()) is not None:
            deck = list(cards)
            rng.shuffle(deck)
            state.deal(deck)
            kind, payload = EventType.CARDS_DEALT, {"cards": [str(card) for card in deck]}
        else:
            seat = state.to_act()[0]
            action = rng.choice(state.legal_actions(seat))
            state.apply(seat, action)
            kind, payload = EventType.ACTION_TAKEN, {"seat": seat, "action": str(action)}
        if switch_at is not None and len(events) >= switch_at:
            version, digest = CHAINED_FROM[kind], folded.digest_next(kind, payload)
        else:
            version, digest = CHAINED_FROM[kind] - 1, state.digest()
            folded.digest = digest
        events.append(_event(len(events) + 1, kind, version, payload, digest))
    final = {"scores": list(state.scores()), "winners": list(state.winners())}
    events.append(_event(len(events) + 1, "GameFinished", 1, final, ""))
    return events


def _event(seq: int, kind: str, version: int, payload: dict[str, Any], digest: str) -> StoredEvent:
    return StoredEvent("old", seq, kind, version, payload, digest, None, datetime.now(UTC))


@pytest.mark.parametrize("switch_at", [None, 40])
def test_whole_state_digests_still_verify_alone_or_followed_by_chained_ones(
    switch_at: int | None,
) -> None:
    events = whole_state_digest_log("hearts", 4, 5, switch_at)
    versions = {(event.type, event.schema_version) for event in events}
    assert {(EventType.CARDS_DEALT, 2), (EventType.ACTION_TAKEN, 1)} <= versions
    assert ((EventType.ACTION_TAKEN, 2) in versions) == (switch_at is not None)
    summary = summarize(events)
    assert summary["finished"]
    assert summary["checked"] == sum(bool(event.digest) for event in events) > 100
    # an old-style digest is checked too: one wrong hex digit is named at its event
    index = next(n for n, event in enumerate(events) if event.type == EventType.ACTION_TAKEN)
    wrong = "0" if events[index].digest[0] != "0" else "1"
    events[index] = replace(events[index], digest=wrong + events[index].digest[1:])
    with pytest.raises(ReplayError) as refused:
        summarize(events)
    assert refused.value.seq == events[index].seq


def test_a_chained_digest_depends_on_the_digest_before_it() -> None:
    events = whole_state_digest_log("wizard", 3, 2, 0)
    deals = [n for n, event in enumerate(events) if event.type == EventType.CARDS_DEALT]
    assert all(events[n].schema_version == 3 for n in deals)
    second = deals[1]
    event = events[second]
    previous = next(e.digest for e in reversed(events[:second]) if e.digest)
    for step in replay(events):  # the live state right after the second deal
        if step.event.seq == event.seq:
            assert step.state is not None
            dealt = step.typed
            assert isinstance(dealt, CardsDealt)
            assert chained_digest(previous, dealt, step.state) == event.digest
            assert chained_digest("0" * 16, dealt, step.state) != event.digest
            break
    # a changed digest is named at its own event
    first = deals[0]
    events[first] = replace(events[first], digest="0" * 16)
    with pytest.raises(ReplayError) as refused:
        summarize(events)
    assert refused.value.seq == events[first].seq
