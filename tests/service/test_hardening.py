"""Requests an attacker would send, each a reproduction of a failure once found
against ``parlour serve``, now answered with the right status and no write.

Every test runs on SQLite and on Postgres (the NUL character and the long
request id broke Postgres only). The calls go through bare gRPC stubs so that
nothing on the client side tidies the input first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import sqlalchemy as sa

from parlour.client import tokens
from parlour.service.grpc.limits import LIMITS, MAX_REQUEST_BYTES
from parlour.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)
from tests.service.harness import Service, Table, running_service, seated_table
from tests.service.writes import fingerprint

WORKER_TOKEN = "worker-secret"
#: A status message never quotes more of an input than this (plus its own words).
SHORT = 300


@dataclass
class Stubs:
    catalogue: catalogue_pb2_grpc.CatalogueServiceStub
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub
    replay: replay_pb2_grpc.ReplayServiceStub
    bots: bots_pb2_grpc.BotServiceStub


@dataclass
class World:
    service: Service
    stubs: Stubs
    table: Table  # a Hearts game under way
    engine: sa.Engine

    def snapshot(self) -> tuple[Any, ...]:
        return fingerprint(self.engine)

    async def refused(
        self, call: Any, request: Any, code: grpc.StatusCode, metadata: Any = ()
    ) -> str:
        """Send ``request``; expect ``code``, a short message and no write. The message."""
        before = self.snapshot()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(request, metadata=metadata, timeout=10)
        error = caught.value
        assert error.code() == code, f"{request!r:.200}: {error.code()} {error.details()!r:.300}"
        message = error.details() or ""
        assert len(message) < SHORT, message[:SHORT]
        assert self.snapshot() == before, "a refused request wrote to the database"
        return message


@asynccontextmanager
async def world(url: str) -> AsyncIterator[World]:
    async with running_service(url, worker_token=WORKER_TOKEN) as service:
        channel = grpc.aio.insecure_channel(service.address)
        stubs = Stubs(
            catalogue_pb2_grpc.CatalogueServiceStub(channel),
            lobby_pb2_grpc.LobbyServiceStub(channel),
            play_pb2_grpc.PlayServiceStub(channel),
            replay_pb2_grpc.ReplayServiceStub(channel),
            bots_pb2_grpc.BotServiceStub(channel),
        )
        table = await seated_table(service.client, "hearts", 4)
        engine = sa.create_engine(url, poolclass=sa.NullPool)
        try:
            yield World(service, stubs, table, engine)
        finally:
            engine.dispose()
            await channel.close()


def seat_metadata(world: World, seat: int = 0) -> Any:
    return tokens(seat_token=world.table.seats[seat].token)


def every_string_field(world: World, bad: str) -> list[tuple[str, Any, Any, Any]]:
    """(what, call, request, metadata) with ``bad`` in each string field the issue listed."""
    s, table_id = world.stubs, world.table.table_id
    worker = tokens(worker_token=WORKER_TOKEN)
    own = seat_metadata(world)
    hearts = world.table.seats
    to_act = hearts[0]
    action = common_pb2.Action(text="pass")
    return [
        ("GetGame game", s.catalogue.GetGame, catalogue_pb2.GetGameRequest(game=bad), ()),
        ("GetTable table_id", s.lobby.GetTable, lobby_pb2.GetTableRequest(table_id=bad), ()),
        ("GetView table_id", s.play.GetView, play_pb2.GetViewRequest(table_id=bad), ()),
        (
            "Act table_id",
            s.play.Act,
            play_pb2.ActRequest(table_id=bad, seat=0, action=action),
            own,
        ),
        (
            "GetReplay table_id",
            s.replay.GetReplay,
            replay_pb2.GetReplayRequest(table_id=bad),
            (),
        ),
        (
            "JoinTable table_id",
            s.lobby.JoinTable,
            lobby_pb2.JoinTableRequest(table_id=bad, player_name="Eve"),
            (),
        ),
        ("ListTables game", s.lobby.ListTables, lobby_pb2.ListTablesRequest(game=bad), ()),
        (
            "HostTable name",
            s.lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, name=bad),
            (),
        ),
        (
            "HostTable host_player_name",
            s.lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, host_player_name=bad),
            (),
        ),
        (
            "HostTable bot_level",
            s.lobby.HostTable,
            lobby_pb2.HostTableRequest(
                game="hearts",
                seat_setup=[lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_BOT, bot_level=bad)] * 4,
            ),
            (),
        ),
        (
            "HostTable game",
            s.lobby.HostTable,
            lobby_pb2.HostTableRequest(game=bad, seats=4),
            (),
        ),
        (
            "HostTable option value",
            s.lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, options={"target": bad}),
            (),
        ),
        (
            "JoinTable player_name",
            s.lobby.JoinTable,
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name=bad),
            (),
        ),
        (
            "Act request_id",
            s.play.Act,
            play_pb2.ActRequest(table_id=table_id, seat=to_act.seat, request_id=bad, action=action),
            tokens(seat_token=to_act.token),
        ),
        (
            "Act action text",
            s.play.Act,
            play_pb2.ActRequest(
                table_id=table_id, seat=to_act.seat, action=common_pb2.Action(text=bad)
            ),
            tokens(seat_token=to_act.token),
        ),
        (
            "ReleaseTurn table_id",
            s.bots.ReleaseTurn,
            bots_pb2.ReleaseTurnRequest(worker_id="w", table_id=bad, seat=0),
            worker,
        ),
        (
            "ReleaseTurn worker_id",
            s.bots.ReleaseTurn,
            bots_pb2.ReleaseTurnRequest(worker_id=bad, table_id=table_id, seat=0),
            worker,
        ),
        (
            "ClaimTurn worker_id",
            s.bots.ClaimTurn,
            bots_pb2.ClaimTurnRequest(worker_id=bad),
            worker,
        ),
    ]


async def test_a_nul_character_in_any_string_is_invalid_argument(store_url: str) -> None:
    async with world(store_url) as w:
        for what, call, request, metadata in every_string_field(w, "ab\x00cd"):
            message = await w.refused(call, request, grpc.StatusCode.INVALID_ARGUMENT, metadata)
            assert "control character U+0000" in message, what


async def test_other_control_characters_are_refused_too(sqlite_url: str) -> None:
    async with world(sqlite_url) as w:
        for bad in ("tab\there", "line\nbreak", "del\x7f", "c1\x85"):
            request = lobby_pb2.JoinTableRequest(table_id=w.table.table_id, player_name=bad)
            message = await w.refused(
                w.stubs.lobby.JoinTable, request, grpc.StatusCode.INVALID_ARGUMENT
            )
            assert "JoinTableRequest.player_name" in message


async def test_a_long_request_id_is_invalid_argument_and_a_long_valid_one_works(
    store_url: str,
) -> None:
    async with world(store_url) as w:
        seat = w.table.seats[0]
        view = await seat.view()
        mover = w.table.seats[view.view.to_act[0]]
        limit = LIMITS["parlour.v1.ActRequest.request_id"]
        for length in (limit + 1, 2_700, 30_000):
            request = play_pb2.ActRequest(
                table_id=w.table.table_id,
                seat=mover.seat,
                request_id="r" * length,
                expected_version=view.version,
                legal_action_id=1,
            )
            message = await w.refused(
                w.stubs.play.Act,
                request,
                grpc.StatusCode.INVALID_ARGUMENT,
                tokens(seat_token=mover.token),
            )
            assert f"ActRequest.request_id is {length} characters long" in message
            assert f"the limit is {limit}" in message
        # at the limit (in 4-byte characters: the most bytes) it is stored and deduplicated
        request_id = "\U0001f0a1" * limit
        done = await mover.act(1, expected_version=view.version, request_id=request_id)
        again = await mover.act(1, expected_version=view.version, request_id=request_id)
        assert again.duplicate and again.version == done.version


async def test_huge_inputs_get_their_own_status_with_a_short_message(store_url: str) -> None:
    async with world(store_url) as w:
        # within the transport's limit: refused by the field limit, quoted short
        near = "x" * (MAX_REQUEST_BYTES // 5)  # (HostTable repeats it in four seats)
        for what, call, request, metadata in every_string_field(w, near):
            message = await w.refused(call, request, grpc.StatusCode.INVALID_ARGUMENT, metadata)
            assert "characters long; the limit is" in message, what
        # past the transport's limit: RESOURCE_EXHAUSTED, before any servicer runs
        huge = "x" * 1_000_000
        for what, call, request, metadata in every_string_field(w, huge)[:6]:
            message = await w.refused(call, request, grpc.StatusCode.RESOURCE_EXHAUSTED, metadata)
            assert "larger than max" in message, what
        # at the limit but unknown: NOT_FOUND, quoting only a prefix
        long_id = "t" * LIMITS["parlour.v1.GetTableRequest.table_id"]
        message = await w.refused(
            w.stubs.lobby.GetTable,
            lobby_pb2.GetTableRequest(table_id=long_id),
            grpc.StatusCode.NOT_FOUND,
        )
        assert long_id not in message and "64 characters" in message
        # an option value at its limit but not allowed: INVALID_ARGUMENT naming the option
        value = "v" * LIMITS["parlour.v1.HostTableRequest.OptionsEntry.value"]
        message = await w.refused(
            w.stubs.lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, options={"target": value}),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert "target" in message


async def test_too_many_entries_are_refused_naming_the_field(sqlite_url: str) -> None:
    async with world(sqlite_url) as w:
        options = {f"option{number}": "1" for number in range(33)}
        message = await w.refused(
            w.stubs.lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, options=options),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert message == "HostTableRequest.options has 33 entries; the limit is 32"
        message = await w.refused(
            w.stubs.bots.ClaimTurn,
            bots_pb2.ClaimTurnRequest(worker_id="w", games=["hearts"] * 17),
            grpc.StatusCode.INVALID_ARGUMENT,
            tokens(worker_token=WORKER_TOKEN),
        )
        assert "ClaimTurnRequest.games has 17 entries" in message


async def test_bytes_that_are_not_the_request_message_are_invalid_argument(
    store_url: str,
) -> None:
    async with world(store_url) as w:
        channel = grpc.aio.insecure_channel(w.service.address)
        try:
            for path in ("/parlour.v1.LobbyService/HostTable", "/parlour.v1.PlayService/Act"):
                raw = channel.unary_unary(path)
                for junk in (b"\xff\xff\xff", b"\x0a\x03\xff\xfe\xfd", b"\x0a\x80"):
                    message = await w.refused(raw, junk, grpc.StatusCode.INVALID_ARGUMENT)
                    assert "not a valid" in message
            stream = channel.unary_stream("/parlour.v1.PlayService/Watch")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                async for _ in stream(b"\x0a\x05\xff\xfe\xfd\xfc\xfb", timeout=5):
                    pass
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        finally:
            await channel.close()


async def test_overlong_or_control_character_tokens_are_refused(sqlite_url: str) -> None:
    async with world(sqlite_url) as w:
        request = play_pb2.GetViewRequest(table_id=w.table.table_id, seat=0)
        message = await w.refused(
            w.stubs.play.GetView,
            request,
            grpc.StatusCode.INVALID_ARGUMENT,
            (("x-parlour-seat-token", "t" * 5000),),
        )
        assert "metadata x-parlour-seat-token" in message


async def test_hostile_hosting_leaves_the_lobby_listing(store_url: str) -> None:
    async with world(store_url) as w:
        lobby = w.stubs.lobby
        for _ in range(2):  # the reported attack: two 3 MB names
            await w.refused(
                lobby.HostTable,
                lobby_pb2.HostTableRequest(game="hearts", seats=4, name="n" * 3_000_000),
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            )
        name_limit = LIMITS["parlour.v1.HostTableRequest.name"]
        message = await w.refused(
            lobby.HostTable,
            lobby_pb2.HostTableRequest(game="hearts", seats=4, name="n" * (name_limit + 1)),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert message == (
            f"HostTableRequest.name is {name_limit + 1} characters long; the limit is {name_limit}"
        )
        # the most an attacker can host: many tables with the longest names allowed
        for number in range(45):
            await lobby.HostTable(
                lobby_pb2.HostTableRequest(
                    game="wizard", seats=6, name=f"{number:03d}" + "\U0001f0a1" * (name_limit - 3)
                )
            )
        # and tables stored before the limit existed
        with w.engine.begin() as conn:
            conn.execute(sa.text("UPDATE tables SET name = :n"), {"n": "L" * 3_000_000})
        seen: list[str] = []
        token = ""
        for _ in range(10):
            page = await lobby.ListTables(
                lobby_pb2.ListTablesRequest(page_size=100, page_token=token), timeout=10
            )
            assert page.ByteSize() < 200_000
            assert all(len(table.name) <= name_limit for table in page.tables)
            seen += [table.table_id for table in page.tables]
            token = page.next_page_token
            if not token:
                break
        assert len(seen) == len(set(seen)) == 45  # every open table once (the game is playing)
        default = await lobby.ListTables(lobby_pb2.ListTablesRequest(), timeout=10)
        assert len(default.tables) == 20 and default.next_page_token


async def test_not_your_turn_by_legal_action_id_is_failed_precondition(store_url: str) -> None:
    async with world(store_url) as w:
        view = await w.table.seats[0].view()
        if 0 in view.view.to_act:
            # Hearts passing: every seat is to act; one pass takes seat 0 out of it
            for _ in range(3):
                view = await w.table.seats[0].view()
                await w.table.seats[0].act(1, expected_version=view.version)
            view = await w.table.seats[0].view()
        assert 0 not in view.view.to_act
        request = play_pb2.ActRequest(
            table_id=w.table.table_id,
            seat=0,
            expected_version=view.version,
            legal_action_id=1,
            request_id="not-my-turn",
        )
        message = await w.refused(
            w.stubs.play.Act, request, grpc.StatusCode.FAILED_PRECONDITION, seat_metadata(w)
        )
        assert "not seat 0's turn" in message


async def test_list_tables_pages_are_stable_and_tokens_checked(sqlite_url: str) -> None:
    async with world(sqlite_url) as w:
        lobby = w.stubs.lobby
        for _ in range(7):
            await lobby.HostTable(lobby_pb2.HostTableRequest(game="kaiser", seats=4))
        first = await lobby.ListTables(lobby_pb2.ListTablesRequest(game="kaiser", page_size=3))
        # a table hosted between pages does not shift the pages after it
        await lobby.HostTable(lobby_pb2.HostTableRequest(game="kaiser", seats=4))
        ids = [table.table_id for table in first.tables]
        token = first.next_page_token
        while token:
            page = await lobby.ListTables(
                lobby_pb2.ListTablesRequest(game="kaiser", page_size=3, page_token=token)
            )
            ids += [table.table_id for table in page.tables]
            token = page.next_page_token
        assert len(ids) == len(set(ids)) == 7
        for request, words in (
            (lobby_pb2.ListTablesRequest(page_size=101), "page_size must be 0 to 100"),
            (lobby_pb2.ListTablesRequest(page_size=-1), "page_size must be 0 to 100"),
            (lobby_pb2.ListTablesRequest(page_token="bm9wZQ"), "not a token this server gave"),
            (
                lobby_pb2.ListTablesRequest(game="wizard", page_token=first.next_page_token),
                "another game or status",
            ),
        ):
            message = await w.refused(lobby.ListTables, request, grpc.StatusCode.INVALID_ARGUMENT)
            assert words in message
