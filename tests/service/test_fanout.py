"""The fan-out path (issue 34): a move costs one view per seat, not one per watcher.

Every watcher of a table on a replica shares the cached fold's recent events
(``Folded.recent``) instead of reading the store, and every watcher of one
seat (every spectator) shares the view built for it at that version
(``app/views.shared_view``) and its bytes (``grpc/servicers.ViewMessages``).
What must never change: each seat's stream shows that seat's hand and no other.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from parlour.engine.actions import ActionKind
from parlour.engine.playout import shuffled
from parlour.engine.registry import all_games, new_game
from parlour.service.app.views import SeatView
from parlour.service.domain.fold import RECENT_KEPT, ChatEntry, Folded
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.grpc import convert, servicers
from parlour.service.grpc.servicers import VIEW_FIELD, ViewMessages
from parlour.service.store.protocol import SeatRow, StoredEvent, TableRow, utcnow
from parlour.v1 import common_pb2, play_pb2
from parlour.words.catalogue import speaking
from tests.contract.test_round_trip import EVERY_KIND
from tests.service.harness import Truth, assert_no_hidden_cards, running_service, seated_table


def stored(seq: int) -> StoredEvent:
    return StoredEvent("t", seq, "ChatSaid", 1, {}, "", None, utcnow())


def test_the_recent_events_stay_contiguous_up_to_the_version() -> None:
    folded = Folded()
    folded.keep(stored(seq) for seq in range(1, 6))
    folded.version = 5
    assert [e.seq for e in folded.since(2) or ()] == [3, 4, 5]
    assert folded.since(5) == ()
    assert folded.since(0) is not None and len(folded.since(0) or ()) == 5
    folded.keep(stored(seq) for seq in range(3, 8))  # read again from an earlier version
    folded.version = 7
    assert [e.seq for e in folded.recent] == [1, 2, 3, 4, 5, 6, 7]
    folded.keep([stored(10)])  # a gap: what came before is dropped
    folded.version = 10
    assert [e.seq for e in folded.recent] == [10]
    assert folded.since(8) is None  # seq 9 is not kept: the caller reads the store
    assert folded.since(9) == tuple(folded.recent)
    folded.version = 11  # the fold moved on without its events kept
    assert folded.since(10) is None


def test_the_recent_events_are_bounded() -> None:
    folded = Folded()
    folded.keep(stored(seq) for seq in range(1, RECENT_KEPT * 3))
    folded.version = RECENT_KEPT * 3 - 1
    assert len(folded.recent) == RECENT_KEPT
    assert folded.since(1) is None
    assert folded.since(folded.version - 3) is not None


def test_derived_values_are_dropped_when_the_version_moves() -> None:
    folded = Folded(version=3)
    folded.derived_now()["view"] = "at 3"
    assert folded.derived_now() == {"view": "at 3"}
    folded.version = 4
    assert folded.derived_now() == {}


async def collect(stream: AsyncIterator[play_pb2.WatchResponse], into: list[Any]) -> None:
    async for update in stream:
        into.append(update)


async def test_watchers_share_one_read_and_each_seat_sees_only_its_own(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 3, {"rounds": 1})
        reads = 0
        read = service.store.read

        async def counted(*args: Any, **kwargs: Any) -> list[StoredEvent]:
            nonlocal reads
            reads += 1
            return await read(*args, **kwargs)

        seats: list[list[play_pb2.WatchResponse]] = [[] for _ in table.seats]
        spectators: list[list[play_pb2.WatchResponse]] = [[] for _ in range(4)]
        tasks = [
            asyncio.create_task(collect(seat.watch(), seats[seat.seat])) for seat in table.seats
        ] + [
            asyncio.create_task(collect(service.client.watch(table.table_id), seen))
            for seen in spectators
        ]
        rng = random.Random(34)
        truth = Truth(service.log, table.table_id)
        latest = (await table.seats[0].view()).version
        moves = 0

        async def everyone_at(version: int) -> None:
            while not all(s and s[-1].version >= version for s in seats + spectators):
                await asyncio.sleep(0.005)

        await asyncio.wait_for(everyone_at(latest), 10)
        service.store.read = counted  # type: ignore[method-assign]
        while True:
            shown = seats[0][-1].view
            if shown.is_over:
                break
            seat = rng.choice(list(shown.to_act))
            mine = seats[seat][-1]
            choice = rng.choice(mine.view.legal_actions)
            done = await table.seats[seat].act(choice.id, expected_version=mine.version)
            moves += 1
            await asyncio.wait_for(everyone_at(done.version), 10)
        service.store.read = read  # type: ignore[method-assign]
        await asyncio.wait_for(asyncio.gather(*tasks), 10)

        assert moves >= 5  # (the winner alone plays out a whole hand)
        # Before the fan-out was shared, every watcher read the store on every move
        # (7 reads a move here); a replica's own commits now need none.
        assert reads < moves / 4, f"{reads} store reads for {moves} moves"
        for number, updates in enumerate(seats):
            for update in updates:
                assert update.view.seat == number
                if update.view.phase != "lobby":
                    assert_no_hidden_cards(truth, update.version, update.view)
        first = [update.SerializeToString() for update in spectators[0]]
        for other in spectators[1:]:
            assert [update.SerializeToString() for update in other] == first
        for update in spectators[0]:
            assert not update.view.hand and not update.view.HasField("seat")
        # every version after the first message reached every stream, with its events
        for updates in seats + spectators:
            versions = [event.version for update in updates[1:] for event in update.events]
            assert versions == list(range(updates[0].version + 1, updates[-1].version + 1))


async def test_a_spectator_gets_a_message_a_frame_with_every_event(sqlite_url: str) -> None:
    """A spectator's stream brings at most one message a frame, each with every
    event since its last: a whole game played within one frame reaches the
    spectator as one message, and nothing is lost. (The frame is held by the
    test, not timed.)"""
    frame_over = asyncio.Event()
    waited: list[float] = []

    async def hold(seconds: float) -> None:
        waited.append(seconds)
        await frame_over.wait()

    async with running_service(sqlite_url) as service:
        service.server.app.play.frame_wait = hold
        table = await seated_table(service.client, "crazy8s", 2, {"rounds": 1})
        seat_updates: list[play_pb2.WatchResponse] = []
        watched: list[play_pb2.WatchResponse] = []
        tasks = [
            asyncio.create_task(collect(table.seats[0].watch(), seat_updates)),
            asyncio.create_task(collect(service.client.watch(table.table_id), watched)),
        ]
        while not (seat_updates and watched):
            await asyncio.sleep(0.005)
        rng = random.Random(7)
        view = (await table.seats[0].view()).view
        moves = 0
        while not view.is_over:
            seat = table.seats[view.to_act[0]]
            current = await seat.view()
            choice = rng.choice(current.view.legal_actions)
            view = (await seat.act(choice.id, expected_version=current.version)).view
            moves += 1
        await asyncio.wait_for(tasks[0], 10)  # the seat's stream ends with the game
        assert len(watched) == 1 and len(waited) == 1  # the spectator waits out its frame
        frame_over.set()
        await asyncio.wait_for(tasks[1], 10)

        assert moves > 1 and len(seat_updates) > 2
        assert len(watched) == 2  # the first view, then the whole game in one message
        assert watched[-1].version == seat_updates[-1].version and watched[-1].view.is_over
        versions = [event.version for update in watched[1:] for event in update.events]
        assert versions == list(range(watched[0].version + 1, watched[-1].version + 1))


async def test_a_move_wakes_one_wait_for_a_crowd_of_spectators(sqlite_url: str) -> None:
    """The spectators of a table wait on one frame clock: a move wakes one wait on the
    replica however many watch (not one per spectator while the Act is answered),
    and every spectator still gets every event, the crowd sharing one message."""
    async with running_service(sqlite_url) as service:
        notifier = service.server.app.play.notifier
        table = await seated_table(service.client, "crazy8s", 2, {"rounds": 1})
        crowd: list[list[play_pb2.WatchResponse]] = [[] for _ in range(6)]
        tasks = [
            asyncio.create_task(collect(service.client.watch(table.table_id), got)) for got in crowd
        ]
        while not all(crowd) or notifier.waiting(table.table_id) != 1:
            await asyncio.sleep(0.005)
        rng = random.Random(3)
        view = (await table.seats[0].view()).view
        for _ in range(6):
            seat = table.seats[view.to_act[0]]
            current = await seat.view()
            choice = rng.choice(current.view.legal_actions)
            view = (await seat.act(choice.id, expected_version=current.version)).view
            assert notifier.waiting(table.table_id) <= 1  # the clock, or no one yet
        version = (await table.seats[0].view()).version
        while not all(got[-1].version == version for got in crowd):
            await asyncio.sleep(0.005)
        for got in crowd:
            events = [event.version for update in got[1:] for event in update.events]
            assert events == list(range(got[0].version + 1, version + 1))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_move_reads_alike_to_every_seat_but_the_one_that_made_it(
    sqlite_url: str,
) -> None:
    """Watch serializes an event once per reader (``convert.event_reader``): the seat
    that gave a Hearts card, or everyone else. So every viewer of one reader must
    read it alike, and a Hearts card given must reach its giver alone."""
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        seats: list[list[play_pb2.WatchResponse]] = [[] for _ in table.seats]
        tasks = [
            asyncio.create_task(collect(seat.watch(), seats[seat.seat])) for seat in table.seats
        ]
        rng = random.Random(11)
        version = 0
        for _ in range(16):  # the passing (a card at a time) and the first trick
            current = await table.seats[0].view()
            seat = table.seats[rng.choice(list(current.view.to_act))]
            mine = await seat.view()
            choice = rng.choice(mine.view.legal_actions)
            version = (await seat.act(choice.id, expected_version=mine.version)).version
        while not all(got and got[-1].version >= version for got in seats):
            await asyncio.sleep(0.005)
        for task in tasks:
            task.cancel()
        events = await service.store.read(table.table_id, 0)

    viewers = (None, 0, 1, 2, 3)
    gives = 0
    for event in events:
        built = {viewer: convert.public_event(event, viewer) for viewer in viewers}
        for viewer in viewers:
            for other in viewers:
                if convert.event_reader(event, viewer) == convert.event_reader(event, other):
                    assert built[viewer] == built[other], (event.seq, viewer, other)
        if built[0].action.kind == common_pb2.ACTION_KIND_GIVE:
            gives += 1
            giver = built[None].seat
            assert built[giver].action.card  # the giver sees the card it gave
            assert not any(built[v].action.card for v in viewers if v != giver)
    assert gives >= 4
    # a card played reads alike to every viewer, its player's included: one reading
    played = [e for e in events if e.type == "ActionTaken" and e.payload["action"][:4] == "play"]
    assert played
    for event in played:
        assert {convert.event_reader(event, viewer) for viewer in viewers} == {None}
    by_seq = {event.seq: event for event in events}
    for number, updates in enumerate(seats):
        for update in updates[1:]:
            for got in update.events:
                assert got == convert.public_event(by_seq[got.version], number)


def test_every_answer_with_a_view_carries_it_in_the_same_field() -> None:
    """ViewMessages serializes a seat's view once, as field VIEW_FIELD, and every
    answer that carries it lays its own fields beside those bytes."""
    for answer in (
        play_pb2.GetViewResponse,
        play_pb2.ActResponse,
        play_pb2.WatchResponse,
        play_pb2.ReturnToSeatResponse,
    ):
        field = answer.DESCRIPTOR.fields_by_name["view"]
        assert field.number == VIEW_FIELD and field.message_type.name == "View", answer
    view = play_pb2.View(game="hearts", seat=2, hand=["QS", "2C"], phase="play")
    laid = play_pb2.ActResponse(version=7, duplicate=True).SerializeToString()
    laid += convert.length_delimited(VIEW_FIELD, view.SerializeToString())
    assert play_pb2.ActResponse.FromString(laid) == play_pb2.ActResponse(
        version=7, duplicate=True, view=view
    )


def test_only_a_card_given_reads_apart_to_the_seat_that_gave_it() -> None:
    """Every kind of move reads alike to every viewer, in both languages, except a
    card given (Hearts' pass), which only its giver reads with the card."""
    for action in EVERY_KIND:
        event = StoredEvent(
            "t", 5, "ActionTaken", 1, {"seat": 1, "action": str(action)}, "", None, utcnow()
        )
        for language in ("en", "pl"):
            with speaking(language):
                read = {viewer: convert.public_event(event, viewer) for viewer in (None, 0, 1)}
            apart = action.kind is ActionKind.GIVE
            assert (convert.event_reader(event, 1) == 1) is apart, action
            assert (read[1] != read[0]) is apart, (action, language)
            assert read[0] == read[None]


def without_clocks(view: play_pb2.View) -> play_pb2.View:
    """``view`` without the milliseconds left on its clocks (counted as it is built)."""
    for player in view.players:
        player.ClearField("time_left_ms")
    return view


def test_each_seats_shared_view_reads_as_its_whole_view() -> None:
    """ViewMessages lays a seat's own fields beside the part every seat shares (built
    once from the spectator's view): what a seat and a spectator read is the View
    built whole for them, with the players' names, the clocks, away seats and the
    chat, at every step of a play-out of every game; and a table that ended without
    its game is built whole."""
    now = utcnow()
    chat = (ChatEntry(3, 1, "Ola", "dobra gra", now),)
    for info in all_games():
        seats = info.max_seats
        rng = random.Random(seats)
        rows = tuple(
            SeatRow(s, SeatKind.BOT if s == 1 else SeatKind.PERSON, player_name=f"p{s}")
            for s in range(seats)
        )
        table = TableRow("t", info.id, seats, {}, TableStatus.PLAYING, "", 1, "", seat_rows=rows)
        state = new_game(info.id, seats)
        sent = ViewMessages()
        version, checked = 0, 0
        while not state.is_over and version < 60:
            if (cards := state.chance()) is not None:
                state.deal(shuffled(cards, rng))
                continue
            version += 1
            public = state.view(None)
            facts: dict[str, Any] = {
                "away": frozenset({2}),
                "deadlines": {seat: now + timedelta(seconds=30) for seat in state.to_act()},
                "chat": chat,
                "chat_on": True,
                "public": public,
            }
            for seat in (*range(seats), None):
                view = public if seat is None else state.view(seat)
                seen = SeatView(version, table, view, **facts)
                got = play_pb2.GetViewResponse.FromString(sent.view(seen, seat)).view
                whole = convert.any_view(view, table, seat, seen)
                assert without_clocks(got) == without_clocks(whole), (info.id, version, seat)
                checked += 1
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        assert checked > seats * 20
        ended = SeatView(version + 1, table, state.view(0), ended="abandoned", public=public)
        got = play_pb2.GetViewResponse.FromString(sent.view(ended, 0)).view
        assert got.phase == "over" and not got.legal_actions and list(got.hand)
        assert got == without_clocks(convert.any_view(ended.view, table, 0, ended))


async def test_a_table_nobody_watches_builds_its_views_whole(sqlite_url: str) -> None:
    """With no stream on a table, each version has one reader (the Act's answer, a
    GetView): its view is built whole, with no spectator's view built beside it."""
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        built = {"whole": 0, "public": 0}
        whole, public = convert.any_view, convert.public_view

        def counted_whole(*args: Any, **kwargs: Any) -> play_pb2.View:
            built["whole"] += 1
            return whole(*args, **kwargs)

        def counted_public(*args: Any, **kwargs: Any) -> play_pb2.View:
            built["public"] += 1
            return public(*args, **kwargs)

        convert.any_view, convert.public_view = counted_whole, counted_public  # type: ignore[assignment]
        try:
            rng = random.Random(5)
            for _ in range(4):
                current = await table.seats[0].view()
                seat = table.seats[rng.choice(list(current.view.to_act))]
                mine = await seat.view()
                await seat.act(
                    rng.choice(mine.view.legal_actions).id, expected_version=mine.version
                )
        finally:
            convert.any_view, convert.public_view = whole, public  # type: ignore[assignment]
    assert built["public"] == 0 and built["whole"] >= 4, built


async def test_a_move_builds_one_view_per_seat_for_its_act_and_its_streams(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Act's answer and the acting seat's stream carry one serialized view: a
    move with every seat watching builds a view per seat, not one more for the Act."""
    # what is shared, not how long: a loaded machine may take longer than MAX_AGE
    # between a move's answer and its streams' messages, and then rightly builds again
    monkeypatch.setattr(ViewMessages, "MAX_AGE", 3600.0)
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 3, {"rounds": 1})
        seats: list[list[play_pb2.WatchResponse]] = [[] for _ in table.seats]
        tasks = [
            asyncio.create_task(collect(seat.watch(), seats[seat.seat])) for seat in table.seats
        ]
        latest = (await table.seats[0].view()).version
        while not all(got and got[-1].version >= latest for got in seats):
            await asyncio.sleep(0.005)
        built = {"whole": 0, "public": 0, "own": 0}
        builders = {
            "whole": (convert, "any_view"),
            "public": (convert, "public_view"),
            "own": (servicers, "seat_part_to_proto"),
        }
        originals = {kind: getattr(*where) for kind, where in builders.items()}

        def counting(kind: str) -> Any:
            def counted(*args: Any, **kwargs: Any) -> play_pb2.View:
                built[kind] += 1
                return originals[kind](*args, **kwargs)

            return counted

        for kind, (module, name) in builders.items():
            setattr(module, name, counting(kind))
        try:
            rng = random.Random(8)
            moves = 0
            for _ in range(8):
                shown = seats[0][-1]
                if shown.view.is_over:
                    break
                seat = rng.choice(list(shown.view.to_act))
                mine = seats[seat][-1]
                choice = rng.choice(mine.view.legal_actions)
                done = await table.seats[seat].act(choice.id, expected_version=mine.version)
                assert done.view.seat == seat and list(done.view.hand) == list(
                    (await table.seats[seat].view()).view.hand
                )
                moves += 1
                while not all(got[-1].version >= done.version for got in seats):
                    await asyncio.sleep(0.005)
        finally:
            for kind, (module, name) in builders.items():
                setattr(module, name, originals[kind])
        for task in tasks:
            task.cancel()
    # each move: each seat's own part of its view for its stream, the Act's answer
    # sharing its seat's, and the GetView the test makes for the acting seat sharing it
    # too; the part they all share once; nothing built whole
    assert moves >= 3
    assert built["whole"] == 0, built
    assert moves <= built["own"] <= len(table.seats) * moves, (built, moves)
    assert built["public"] <= moves, (built, moves)
