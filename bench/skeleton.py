"""The skeleton floor of bench/service.py: the least a service answering its clients does.

A grpc.aio server on the service's event loop with the same contract and the
same transport limits, answering the benchmark's clients with answers captured
from the real service in the same run (a Hearts table hosted, joined and
started; a view mid-hand; an Act's answer), and making one real single-row
insert commit into the scratch database per Act through psycopg's async pool.
No rules, no tokens, no events, no log line, no metrics: what the real service
spends per act beyond this server is its own work, and no version of the
service on this stack (CPython, grpcio, psycopg) can spend less than this one.

Used by bench/service.py (``--skeleton-server``); not a test.
"""

from __future__ import annotations

import asyncio
import pickle
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from psycopg_pool import AsyncConnectionPool

from parlour.client import ParlourClient
from parlour.v1 import lobby_pb2, lobby_pb2_grpc, play_pb2, play_pb2_grpc

#: moves played before the view is captured (mid-hand: cards in hand, a trick on the table)
MOVES_BEFORE_CAPTURE = 9
INSERT = "INSERT INTO bench_floor (v) VALUES (%s)"
SEATS = 4
#: one Act in this many leaves its seat to act (the service's clients make about 0.8
#: GetViews per Act: bench/service.py prints the figure for both)
AGAIN = 5


@dataclass
class Canned:
    """The real service's answers, serialized."""

    host: bytes
    join: bytes
    start: bytes
    view: bytes
    act: bytes
    watch: bytes  # a seat's Watch message after a move (its view and the move's events)
    spectator_watch: bytes  # the same for a spectator


async def capture(address: str) -> Canned:
    """Host, fill and start a 4-seat Hearts table on the real service, play into the hand,
    and keep a GetView of the one seat to act and that seat's Act answer (which names one
    other seat to act, so that the clients go on alternating GetView and Act)."""
    client = ParlourClient(address)
    try:
        hosted = await client.host_table(
            "hearts", SEATS, host_player_name="p0", host_takes_seat=True
        )
        table_id = hosted.table.table_id
        seats = {hosted.seat: client.seat(table_id, hosted.seat, hosted.seat_token)}
        joined = None
        for n in range(1, SEATS):
            joined = await client.join_table(table_id, f"p{n}")
            seats[joined.seat] = client.seat(table_id, joined.seat, joined.seat_token)
        assert joined is not None
        await client.start_table(table_id, hosted.host_token)
        start = lobby_pb2.StartTableResponse(table=(await client.get_table(table_id)))
        moves = 0
        while True:
            view = await seats[0].view()
            to_act = list(view.view.to_act)
            seat = seats[to_act[0]]
            view = await seat.view()
            acted = await seat.act(view.view.legal_actions[0].id, expected_version=view.version)
            moves += 1
            alone = list(view.view.to_act) == [seat.seat]  # (not the passing, all at once)
            handed_on = len(acted.view.to_act) == 1 and seat.seat not in acted.view.to_act
            if moves >= MOVES_BEFORE_CAPTURE and alone and handed_on:
                watched = await _first(seats[0].watch(from_version=view.version))
                spectated = await _first(client.watch(table_id, from_version=view.version))
                return Canned(
                    hosted.SerializeToString(),
                    joined.SerializeToString(),
                    start.SerializeToString(),
                    view.SerializeToString(),
                    acted.SerializeToString(),
                    watched.SerializeToString(),
                    spectated.SerializeToString(),
                )
    finally:
        await client.close()


async def _first(stream: AsyncIterator[play_pb2.WatchResponse]) -> play_pb2.WatchResponse:
    """The first message of a Watch stream (which is then closed)."""
    try:
        async for update in stream:
            return update
        raise RuntimeError("the Watch stream ended before its first message")
    finally:
        await stream.aclose()  # type: ignore[attr-defined]


class _Lobby(lobby_pb2_grpc.LobbyServiceServicer):
    """The host sits at seat 0; a joiner named "pN" (as the benchmark names them) at seat N.
    Every hosted table has an id of its own (the watched shape follows each one)."""

    def __init__(self, canned: Canned) -> None:
        self.host = lobby_pb2.HostTableResponse.FromString(canned.host)
        self.host.seat = 0
        self.joins = [lobby_pb2.JoinTableResponse.FromString(canned.join) for _ in range(SEATS)]
        for seat, join in enumerate(self.joins):
            join.seat = seat
        self.start = lobby_pb2.StartTableResponse.FromString(canned.start)
        self.hosted = 0

    async def HostTable(self, request: Any, context: Any) -> lobby_pb2.HostTableResponse:
        self.hosted += 1
        hosted = lobby_pb2.HostTableResponse()
        hosted.CopyFrom(self.host)
        hosted.table.table_id = f"skeleton{self.hosted:08d}"
        return hosted

    async def JoinTable(self, request: Any, context: Any) -> lobby_pb2.JoinTableResponse:
        return self.joins[int(request.player_name[1:]) % SEATS]

    async def StartTable(self, request: Any, context: Any) -> lobby_pb2.StartTableResponse:
        return self.start


class _Feed:
    """A watched table of the skeleton: its version, the seat to act, and the future its
    watchers wait on (replaced at each Act: one wake-up for them all)."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.to_act = 0
        self.changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def moved(self, seat: int) -> int:
        self.version += 1
        self.to_act = (seat + 1) % SEATS
        changed, self.changed = self.changed, asyncio.get_running_loop().create_future()
        changed.set_result(None)
        return self.version


class _Play(play_pb2_grpc.PlayServiceServicer):
    """A seat's view names it to act; its Act's answer names the next seat, except
    every ``AGAIN``-th, which leaves the seat to act with its view (as a Hearts pass or
    a Crazy 8s draw does), so that the clients make as many GetViews per Act as they
    do against the service. Each answer is made once per seat: a call costs no more
    than handing it over."""

    def __init__(self, canned: Canned, pool: AsyncConnectionPool[Any]) -> None:
        self.views: list[play_pb2.GetViewResponse] = []
        self.acts: list[play_pb2.ActResponse] = []
        self.again: list[play_pb2.ActResponse] = []
        for seat in range(SEATS):
            view = play_pb2.GetViewResponse.FromString(canned.view)
            view.view.seat = seat
            view.view.to_act[:] = [seat]
            self.views.append(view)
            act = play_pb2.ActResponse.FromString(canned.act)
            act.view.seat = seat
            act.view.to_act[:] = [(seat + 1) % SEATS]
            self.acts.append(act)
            again = play_pb2.ActResponse(version=act.version)
            again.view.CopyFrom(view.view)
            self.again.append(again)
        self.pool = pool
        self.acted = 0
        # the watched shape: a Watch message per (watcher, seat to act), spectators last
        self.watched: list[list[play_pb2.WatchResponse]] = []
        for watcher in range(SEATS + 1):
            canned_bytes = canned.watch if watcher < SEATS else canned.spectator_watch
            row = []
            for to_act in range(SEATS):
                message = play_pb2.WatchResponse.FromString(canned_bytes)
                if watcher < SEATS:
                    message.view.seat = watcher
                message.view.to_act[:] = [to_act]
                del message.view.legal_actions[:]
                if watcher == to_act:  # the seat to act is offered the captured choices
                    message.view.legal_actions.extend(self.views[0].view.legal_actions)
                row.append(message)
            self.watched.append(row)
        self.feeds: dict[str, _Feed] = {}
        self.base_version = self.watched[0][0].version

    async def GetView(self, request: Any, context: Any) -> play_pb2.GetViewResponse:
        return self.views[request.seat % SEATS]

    async def Act(self, request: Any, context: Any) -> play_pb2.ActResponse:
        async with self.pool.connection() as conn:
            await conn.execute(INSERT, ("x",), prepare=True)
        feed = self.feeds.get(request.table_id)
        if feed is not None:  # a watched table: the move reaches its watchers
            seat = request.seat % SEATS
            answer = play_pb2.ActResponse()
            answer.CopyFrom(self.acts[seat])
            answer.version = feed.moved(seat)
            answer.view.to_act[:] = [feed.to_act]
            return answer
        self.acted += 1
        answers = self.again if self.acted % AGAIN == 0 else self.acts
        return answers[request.seat % SEATS]

    async def Watch(self, request: Any, context: Any) -> AsyncIterator[play_pb2.WatchResponse]:
        feed = self.feeds.get(request.table_id)
        if feed is None:
            feed = self.feeds[request.table_id] = _Feed(self.base_version)
        messages = self.watched[request.seat % SEATS if request.HasField("seat") else SEATS]
        sent = request.from_version
        while True:
            if feed.version > sent:
                message = play_pb2.WatchResponse()
                message.CopyFrom(messages[feed.to_act])
                message.version = sent = feed.version
                yield message
            else:
                await feed.changed


@asynccontextmanager
async def commit_pool(conninfo: str) -> AsyncIterator[AsyncConnectionPool[Any]]:
    """The pool the floor's commits go through: 8 autocommit connections, all open."""
    async with AsyncConnectionPool(
        conninfo, min_size=8, max_size=8, kwargs={"autocommit": True}, open=False
    ) as pool:
        await pool.open(wait=True)
        yield pool


async def serve(canned_path: str, conninfo: str, options: list[tuple[str, Any]]) -> None:
    with open(canned_path, "rb") as file:
        canned: Canned = pickle.load(file)
    async with commit_pool(conninfo) as pool:
        server = grpc.aio.server(options=options)
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(_Lobby(canned), server)
        play_pb2_grpc.add_PlayServiceServicer_to_server(_Play(canned, pool), server)
        await serve_until_interrupted(server, "skeleton server")


async def serve_until_interrupted(server: grpc.aio.Server, name: str) -> None:
    """Start ``server`` on a free loopback port, print "<name> on <address>" (what the
    benchmark waits for), and serve until SIGINT."""
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"{name} on 127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    await stop.wait()
    await server.stop(0)
