"""The bare game: the skeleton (bench/skeleton.py) that also plays the game, for
bench/service.py's watched shape.

The same grpc.aio server on the service's event loop, with the same transport
limits, and the same one single-row insert commit per Act through psycopg;
beside that, only what a watched move of the game itself needs (what
``bench/move_floor.py`` counts, here inside a server):

* the rules: the Act's choice looked up among the seat's legal actions and
  applied by the engine, and the deal when a hand begins;
* the views: once per version, the spectator's and each seat's made from it
  (``GameState.seat_view``), the part every seat shares serialized once and
  each seat's own part beside it, as the service builds them;
* the move's event, converted by the service's own function;
* every Watch stream of the table woken once per version, each sending its
  seat's bytes.

Left out: the table's facts in a View (names, clocks, chat), tokens, checks
of the caller (a move is trusted to be legal and current: a wrong one fails
the call), the event log and its store, rate limits, the log line, metrics.
What the service spends per move beyond this server is its duties beyond the
game's. Used by bench/service.py (``--game-skeleton-server``); not a test.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import grpc
from psycopg_pool import AsyncConnectionPool
from skeleton import INSERT, commit_pool, serve_until_interrupted  # bench/, beside this

from parlour.contract.view import public_view_to_proto, seat_part_to_proto
from parlour.engine.base import GameState
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game
from parlour.service.domain.events import ActionTaken
from parlour.service.grpc.convert import length_delimited, public_event
from parlour.service.store.values import StoredEvent
from parlour.v1 import lobby_pb2, play_pb2

#: the field numbers of the View in every answer that has one, and of a Watch
#: message's events (as the service lays them: servicers.VIEW_FIELD and the like)
VIEW_FIELD = play_pb2.ActResponse.DESCRIPTOR.fields_by_name["view"].number
EVENTS_FIELD = play_pb2.WatchResponse.DESCRIPTOR.fields_by_name["events"].number


class _Table:
    """One table's game, its version, the bytes of its last version per reader, and the
    future its watchers wait on (replaced at each version: one wake-up for them all)."""

    def __init__(self, game: str, seats: int, table_id: str, rng: random.Random) -> None:
        self.game, self.seats, self.table_id, self.rng = game, seats, table_id, rng
        self.state: GameState | None = None
        self.version = 0
        self.event = b""
        self.seat_views: list[bytes] = []
        self.changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def start(self) -> None:
        self.state = new_game(self.game, self.seats, None)
        self._deal()
        self._moved(b"")

    def act(self, seat: int, legal_action_id: int) -> bytes:
        """Apply the seat's choice; the seat's View after it, serialized."""
        state = self.state
        assert state is not None, "the table has not started"
        action = state.legal_actions(seat)[legal_action_id - 1]
        state.apply(seat, action)
        self._deal()
        event = StoredEvent(
            self.table_id,
            self.version + 1,
            ActionTaken.TYPE.value,
            1,
            ActionTaken(seat, str(action)).payload(),
            "",
            None,
            datetime.now(UTC),
        )
        self._moved(public_event(event, None).SerializeToString())
        return self.seat_views[seat]

    def _deal(self) -> None:
        state = self.state
        assert state is not None
        while not state.is_over and (cards := state.chance()) is not None:
            state.deal(shuffled(cards, self.rng))

    def _moved(self, event: bytes) -> None:
        """A new version: its views built once, its watchers woken once."""
        state = self.state
        assert state is not None
        public = state.view(None)
        shared = public_view_to_proto(public).SerializeToString()
        self.seat_views = [
            length_delimited(
                VIEW_FIELD,
                shared + seat_part_to_proto(state.seat_view(seat, public)).SerializeToString(),
            )
            for seat in range(self.seats)
        ]
        self.seat_views.append(length_delimited(VIEW_FIELD, shared))  # the spectators'
        self.event = length_delimited(EVENTS_FIELD, event) if event else b""
        self.version += 1
        changed, self.changed = self.changed, asyncio.get_running_loop().create_future()
        changed.set_result(None)


class _Server:
    """The lobby and the table, answering the benchmark's clients."""

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self.pool = pool
        self.tables: dict[str, _Table] = {}
        self.numbers = itertools.count(1)
        self.rng = random.Random(7)

    async def host(self, request: Any, context: Any) -> lobby_pb2.HostTableResponse:
        table_id = f"game{next(self.numbers):08d}"
        self.tables[table_id] = _Table(request.game, request.seats, table_id, self.rng)
        return lobby_pb2.HostTableResponse(
            table=lobby_pb2.Table(table_id=table_id, game=request.game, seat_count=request.seats),
            seat=0,
            seat_token="t0",
            host_token="h",
        )

    async def join(self, request: Any, context: Any) -> lobby_pb2.JoinTableResponse:
        seat = int(request.player_name[1:])  # the benchmark names its joiners "pN"
        return lobby_pb2.JoinTableResponse(seat=seat, seat_token=f"t{seat}")

    async def start(self, request: Any, context: Any) -> lobby_pb2.StartTableResponse:
        table = self.tables[request.table_id]
        table.start()
        return lobby_pb2.StartTableResponse(
            table=lobby_pb2.Table(table_id=table.table_id, game=table.game, seat_count=table.seats)
        )

    async def act(self, request: Any, context: Any) -> bytes:
        async with self.pool.connection() as conn:
            await conn.execute(INSERT, ("x",), prepare=True)
        table = self.tables[request.table_id]
        view = table.act(request.seat, request.legal_action_id)
        return play_pb2.ActResponse(version=table.version).SerializeToString() + view

    async def watch(self, request: Any, context: Any) -> AsyncIterator[bytes]:
        table = self.tables[request.table_id]
        reader = request.seat if request.HasField("seat") else table.seats
        sent = request.from_version
        while True:
            if table.version > sent:
                sent = table.version
                header = play_pb2.WatchResponse(version=sent).SerializeToString()
                yield header + table.seat_views[reader] + table.event
            else:
                await table.changed


def _as_is(answer: bytes) -> bytes:
    return answer


async def serve(conninfo: str, options: list[tuple[str, Any]]) -> None:
    async with commit_pool(conninfo) as pool:
        server = grpc.aio.server(options=options)
        answers = _Server(pool)
        lobby = {
            "HostTable": (answers.host, lobby_pb2.HostTableRequest),
            "JoinTable": (answers.join, lobby_pb2.JoinTableRequest),
            "StartTable": (answers.start, lobby_pb2.StartTableRequest),
        }
        server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "parlour.v1.LobbyService",
                    {
                        name: grpc.unary_unary_rpc_method_handler(
                            behaviour,
                            request_deserializer=request.FromString,
                            response_serializer=lambda message: message.SerializeToString(),
                        )
                        for name, (behaviour, request) in lobby.items()
                    },
                ),
                grpc.method_handlers_generic_handler(
                    "parlour.v1.PlayService",
                    {
                        "Act": grpc.unary_unary_rpc_method_handler(
                            answers.act,
                            request_deserializer=play_pb2.ActRequest.FromString,
                            response_serializer=_as_is,
                        ),
                        "Watch": grpc.unary_stream_rpc_method_handler(
                            answers.watch,
                            request_deserializer=play_pb2.WatchRequest.FromString,
                            response_serializer=_as_is,
                        ),
                    },
                ),
            )
        )
        await serve_until_interrupted(server, "game skeleton server")
