"""Event schema versions: an event written with an older schema still replays.

``CardsDealt`` schema 1 stored the deck as one string under "deck"; schema 2
(written today) stores a list under "cards". The committed log
``data/wizard_v1_deals.jsonl`` is a real game whose deals are all schema 1.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from parlour.replay import ReplayError, load_log, summarize, write_log
from parlour.service.app import GameService
from parlour.service.fold import CARDS_DEALT, fold
from parlour.service.notify import make_notifier
from parlour.service.store import EventStore
from parlour.service.upcast import (
    UnknownSchemaVersion,
    current_version,
    upcast,
    upcast_payload,
)
from tests.replay.games import load_into_store, open_store, play_game

OLD_LOG = Path(__file__).parent / "data" / "wizard_v1_deals.jsonl"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EventStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'parlour.sqlite3'}")
    yield opened
    opened.close()


def test_the_committed_log_really_holds_old_deals() -> None:
    deals = [event for event in load_log(OLD_LOG) if event.type == CARDS_DEALT]
    assert deals and all(event.schema_version == 1 for event in deals)
    assert all(set(event.payload) == {"deck"} for event in deals)


def test_cards_dealt_v1_upcasts_to_a_list_of_cards() -> None:
    assert upcast_payload(CARDS_DEALT, 1, {"deck": "QS 2C W1"}) == {"cards": ["QS", "2C", "W1"]}
    assert upcast_payload(CARDS_DEALT, 2, {"cards": ["QS"]}) == {"cards": ["QS"]}


def test_an_old_log_replays_with_every_digest_checked() -> None:
    events = load_log(OLD_LOG)
    summary = summarize(events)
    assert summary["finished"]
    assert summary["checked"] == sum(bool(event.digest) for event in events) > 0
    assert summary["scores"] == events[-1].payload["scores"]


def test_the_service_fold_reads_an_old_log_like_replay_does(store: EventStore) -> None:
    events = load_log(OLD_LOG)
    load_into_store(store, events, "old-table")
    stored = store.read("old-table")
    assert [event.schema_version for event in stored] == [e.schema_version for e in events]
    folded = fold(stored)
    assert folded.state is not None
    assert folded.state.digest() == summarize(events)["digests"][-1][1]


def test_export_keeps_old_events_as_they_were_stored(store: EventStore) -> None:
    events = load_log(OLD_LOG)
    load_into_store(store, events, "old-table")
    out = io.StringIO()
    write_log(store.read("old-table"), out)
    assert out.getvalue() == OLD_LOG.read_text(encoding="utf-8")


async def test_the_service_writes_deals_at_the_current_schema_version(store: EventStore) -> None:
    app = GameService(store, make_notifier(store))
    try:
        played = await play_game(app, "kaiser", 4, random.Random(3))
    finally:
        app.close()
    deals = [event for event in store.read(played.table_id) if event.type == CARDS_DEALT]
    assert current_version(CARDS_DEALT) == 2
    assert deals and all(event.schema_version == 2 for event in deals)
    assert all(isinstance(event.payload["cards"], list) for event in deals)


def test_a_schema_version_newer_than_this_code_is_refused_by_name() -> None:
    events = load_log(OLD_LOG)
    first_deal = next(n for n, event in enumerate(events) if event.type == CARDS_DEALT)
    events[first_deal] = replace(events[first_deal], schema_version=3)
    with pytest.raises(ReplayError) as refused:
        summarize(events)
    assert refused.value.seq == events[first_deal].seq
    assert refused.value.type == CARDS_DEALT
    assert "schema version 3 is newer" in str(refused.value)
    with pytest.raises(UnknownSchemaVersion):
        upcast(events[first_deal])
