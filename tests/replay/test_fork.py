"""Fork: a new table that carries on from any event of a recorded game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from parlour.replay.check import summarize
from parlour.replay.fork import ForkError, SeatKind, fork_game
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.errors import WrongToken
from parlour.service.domain.fold import fold
from parlour.service.domain.statuses import EventType
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import EventStore, StoredEvent
from tests.replay.games import load_into_store

Logs = dict[str, list[StoredEvent]]


def digest_at(events: list[StoredEvent], seq: int) -> str:
    return str(dict(summarize(events[:seq])["digests"])[seq])


def mid_hand_action(events: list[StoredEvent], after: int) -> StoredEvent:
    """An action at or after ``after`` that is not followed by a deal."""
    return next(
        event
        for event in events[after:]
        if event.type == EventType.ACTION_TAKEN and events[event.seq].type == EventType.ACTION_TAKEN
    )


async def test_a_fork_starts_exactly_where_the_original_was(
    sqlite_store: EventStore, service_logs: Logs
) -> None:
    events = service_logs["hearts"]
    await load_into_store(sqlite_store, events, "original")
    at = mid_hand_action(events, 100).seq
    forked = await fork_game(sqlite_store, "original", at, [SeatKind.parse("bot:hard")] * 4)
    log = await sqlite_store.read(forked.table_id)
    assert log[0].type == EventType.TABLE_HOSTED
    assert log[0].payload["forked_from"] == {"table_id": "original", "seq": at}
    assert log[0].payload["seat_kinds"] == ["bot"] * 4
    assert not any(event.type == EventType.SEAT_TAKEN for event in log)  # bots take no seat
    assert not forked.dealt_afresh and forked.seat_tokens == {}
    assert summarize(log)["digests"][-1][1] == digest_at(events, at)
    table = await sqlite_store.get_table(forked.table_id)
    assert table.status == "playing" and table.version == len(log)
    assert {(row.kind, row.bot_level) for row in table.seat_rows} == {("bot", "hard")}


async def test_a_person_in_a_fork_plays_on_with_the_seat_token(
    sqlite_store: EventStore, service_logs: Logs
) -> None:
    events = service_logs["kaiser"]
    await load_into_store(sqlite_store, events, "original")
    at = mid_hand_action(events, 40).seq
    following = events[at]  # the original's next move (seq at + 1)
    seat = int(following.payload["seat"])
    kinds = [SeatKind("person" if other == seat else "bot") for other in range(4)]
    forked = await fork_game(sqlite_store, "original", at, kinds)
    assert list(forked.seat_tokens) == [seat]
    app = Parlour(sqlite_store, make_notifier(sqlite_store))
    with pytest.raises(WrongToken):
        await app.act(forked.table_id, seat, Credentials(seat_token="nope"), "pass")
    snap = await app.act(
        forked.table_id,
        seat,
        Credentials(seat_token=forked.seat_tokens[seat]),
        following.payload["action"],
        expected_version=forked.version,
    )
    assert snap.version == forked.version + 1
    # the same move from the same position: the same game as the original
    assert (await sqlite_store.read(forked.table_id))[-1].digest == following.digest


async def test_a_fork_where_a_deal_is_due_deals_afresh(
    sqlite_store: EventStore, service_logs: Logs
) -> None:
    events = service_logs["wizard"]
    await load_into_store(sqlite_store, events, "original")
    end_of_hand = next(
        e
        for e in events
        if e.type == EventType.ACTION_TAKEN and events[e.seq].type == EventType.CARDS_DEALT
    )
    forked = await fork_game(sqlite_store, "original", end_of_hand.seq)
    log = await sqlite_store.read(forked.table_id)
    assert forked.dealt_afresh and log[-1].type == EventType.CARDS_DEALT
    summary = summarize(log)  # the fresh deal carries its own digest
    assert summary["checked"] == sum(bool(event.digest) for event in log)
    state = fold(log).state
    assert state is not None and state.chance() is None and state.to_act()


@pytest.mark.parametrize(("at", "refusal"), [(3, "had not started"), (9999, "has no event")])
async def test_a_fork_needs_a_started_game_and_an_event_that_exists(
    sqlite_store: EventStore, service_logs: Logs, at: int, refusal: str
) -> None:
    await load_into_store(sqlite_store, service_logs["crazy8s"], "original")
    with pytest.raises(ForkError, match=refusal):
        await fork_game(sqlite_store, "original", at)


async def test_a_finished_game_cannot_be_forked_at_its_end(
    sqlite_store: EventStore, service_logs: Logs
) -> None:
    events = service_logs["crazy8s"]
    await load_into_store(sqlite_store, events, "original")
    with pytest.raises(ForkError, match="is over"):
        await fork_game(sqlite_store, "original", events[-2].seq)


async def test_the_fork_command_prints_the_table_and_the_seat_tokens(
    sqlite_store: EventStore, service_logs: Logs, tmp_path: Path
) -> None:
    events = service_logs["hearts"]
    await load_into_store(sqlite_store, events, "original")
    at = mid_hand_action(events, 30).seq
    command = [sys.executable, "-m", "parlour.cli", "fork", "original", "--at", str(at)]
    command += ["--seat-kind", "person,bot,bot:easy,bot", "--database-url", sqlite_store.url]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    table_id = lines[0].split()[1].rstrip(":")
    assert f"a fork of table original after event {at}" in lines[0]
    assert lines[-4].startswith("seat 0: person, seat token ")
    assert lines[-3:] == ["seat 1: bot", "seat 2: bot (easy)", "seat 3: bot"]
    assert (await sqlite_store.get_table(table_id)).seat_rows[0].kind == "person"
