"""Page tokens and credentials a client forges: refused as bad input, never
passed on to the store, over gRPC and through the gateway, on both backends.

A ListTables page token is signed by the server (``app/paging.Pager``): an
unsigned, altered or foreign token is INVALID_ARGUMENT (HTTP 400), including
the ones that once reached Postgres (a NUL or a lone surrogate in the cursor's
key: INTERNAL, HTTP 500). A credential sent twice is refused too, since which
of the two would count is no guess the server makes.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

import grpc
import httpx
import pytest

from parlour.service.app import paging
from parlour.service.domain.errors import BadRequest
from parlour.v1 import lobby_pb2, lobby_pb2_grpc, play_pb2, play_pb2_grpc
from tests.service.front import gateway_in_front
from tests.service.harness import Service, running_service

REFUSED = "page_token is not a token this server gave"


def unsigned(document: dict[str, object]) -> str:
    """A token in the old, unsigned form: base64 of the JSON alone."""
    raw = json.dumps(document).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def forged_tokens(real: str) -> dict[str, str]:
    """Tokens a client could make up, by what each is."""
    old = {"v": 1, "s": "tables|open|", "c": "2026-01-01T00:00:00+00:00"}
    body, _, tag = real.partition(".")
    flipped = body[:-1] + ("A" if body[-1] != "A" else "B")
    other = paging.Pager(b"another replica's secret").encode(
        paging.Cursor(datetime(2026, 1, 1, tzinfo=UTC), "0123456789abcdef"), "tables|open|"
    )
    return {
        "nul in the key": unsigned({**old, "k": "\u0000"}),
        "lone surrogate in the key": unsigned({**old, "k": "\ud800"}),
        "new version unsigned": unsigned({**old, "v": 2, "k": "x"}),
        "made-up tag": body + ".AAAAAAAAAAAAAAAAAAAAAA",
        "altered body": f"{flipped}.{tag}",
        "no tag": body,
        "another secret": other,
        "garbage": "!!!not-base64!!!",
        "dots": "...",
        "padding": "====.====",
    }


@dataclass
class Front:
    service: Service
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub
    web: str


@asynccontextmanager
async def front(url: str) -> AsyncIterator[Front]:
    async with (
        running_service(url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
        gateway_in_front(service.address) as web,
    ):
        yield Front(
            service,
            lobby_pb2_grpc.LobbyServiceStub(channel),
            play_pb2_grpc.PlayServiceStub(channel),
            web,
        )


async def a_real_token(f: Front) -> str:
    for _ in range(3):
        await f.lobby.HostTable(lobby_pb2.HostTableRequest(game="kaiser", seats=4))
    page = await f.lobby.ListTables(lobby_pb2.ListTablesRequest(page_size=1))
    assert page.next_page_token
    return page.next_page_token


async def test_forged_page_tokens_are_invalid_argument_over_grpc(store_url: str) -> None:
    async with front(store_url) as f:
        real = await a_real_token(f)
        second = await f.lobby.ListTables(lobby_pb2.ListTablesRequest(page_size=1, page_token=real))
        assert len(second.tables) == 1  # the real token still pages
        for what, token in forged_tokens(real).items():
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await f.lobby.ListTables(lobby_pb2.ListTablesRequest(page_token=token), timeout=10)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, what
            assert REFUSED in (caught.value.details() or ""), what


async def test_forged_page_tokens_are_400_at_the_gateway(store_url: str) -> None:
    async with front(store_url) as f:
        real = await a_real_token(f)
        async with httpx.AsyncClient(base_url=f.web, timeout=10) as http:
            for what, token in forged_tokens(real).items():
                response = await http.post(
                    "/api/LobbyService/ListTables", json={"pageToken": token}
                )
                assert response.status_code == 400, (what, response.text[:200])
                assert response.json()["code"] == "INVALID_ARGUMENT", what
            good = await http.post("/api/LobbyService/ListTables", json={"pageToken": real})
            assert good.status_code == 200


def test_a_signed_token_is_still_checked_inside() -> None:
    # a leaked secret must still not carry a NUL or a surrogate to the store
    pager = paging.Pager(b"s" * 32)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    for key in ("\u0000", "\ud800", "", "a" * 65, "tab\tbed", "o'neil"):
        token = pager.encode(paging.Cursor(when, key), "scope")
        with pytest.raises(BadRequest, match=REFUSED):
            pager.decode(token, "scope")
    naive = pager.encode(paging.Cursor(datetime(2026, 1, 1), "abc"), "scope")
    with pytest.raises(BadRequest, match=REFUSED):
        pager.decode(naive, "scope")
    good = pager.encode(paging.Cursor(when, "0123456789abcdef"), "scope")
    assert pager.decode(good, "scope") == paging.Cursor(when, "0123456789abcdef")
    with pytest.raises(BadRequest, match="another game or status"):
        pager.decode(good, "other scope")


async def test_replicas_with_one_secret_accept_each_others_tokens(sqlite_url: str) -> None:
    from parlour.service.bootstrap import Settings, page_secret

    shared = Settings(worker_token="w" * 20)
    assert page_secret(shared) == page_secret(Settings(worker_token="w" * 20))
    assert page_secret(shared) != page_secret(Settings(worker_token="x" * 20))
    assert page_secret(Settings(page_secret=b"p" * 32)) == b"p" * 32
    assert page_secret(Settings()) is None  # random per replica, documented


async def test_a_credential_sent_twice_is_refused_over_grpc(store_url: str) -> None:
    async with front(store_url) as f:
        hosted = await f.lobby.HostTable(
            lobby_pb2.HostTableRequest(
                game="kaiser", seats=4, host_takes_seat=True, host_player_name="Ada"
            )
        )
        table_id, token = hosted.table.table_id, hosted.seat_token
        request = play_pb2.GetViewRequest(table_id=table_id, seat=hosted.seat)
        view = await f.play.GetView(request, metadata=(("x-parlour-seat-token", token),))
        assert view.view.seat == hosted.seat
        for twice in (
            (("x-parlour-seat-token", token), ("x-parlour-seat-token", "someone-else")),
            (("x-parlour-seat-token", "someone-else"), ("x-parlour-seat-token", token)),
            (("x-parlour-host-token", "a"), ("x-parlour-host-token", "a")),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await f.play.GetView(request, metadata=twice, timeout=10)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "sent more than once" in (caught.value.details() or "")


async def test_a_credential_sent_twice_is_400_at_the_gateway(store_url: str) -> None:
    async with front(store_url) as f:
        hosted = await f.lobby.HostTable(
            lobby_pb2.HostTableRequest(
                game="kaiser", seats=4, host_takes_seat=True, host_player_name="Ada"
            )
        )
        body = {"tableId": hosted.table.table_id, "seat": hosted.seat}
        token = hosted.seat_token
        async with httpx.AsyncClient(base_url=f.web, timeout=10) as http:
            once = await http.post(
                "/api/PlayService/GetView", json=body, headers={"X-Parlour-Seat-Token": token}
            )
            assert once.status_code == 200
            twice = await http.post(
                "/api/PlayService/GetView",
                json=body,
                headers=[("X-Parlour-Seat-Token", token), ("X-Parlour-Seat-Token", "other")],
            )
            assert twice.status_code == 400 and "more than once" in twice.json()["message"]
            both = await http.post(
                "/api/PlayService/GetView",
                json=body,
                params={"seat_token": "other"},
                headers={"X-Parlour-Seat-Token": token},
            )
            assert both.status_code == 400 and "more than once" in both.json()["message"]
