"""Connection hygiene: what a server does with clients that connect and say little.

The gateway closes a connection whose request head does not come in time and
one past its cap, and answers 408 to a body that does not arrive; the metrics
endpoint serves without a thread per connection and closes a silent one; a
replica whose database is down answers UNAVAILABLE, well before the call's
deadline (the assertion is on the status, not the time).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import httpx
import pytest
from prometheus_client import Counter

from parlour.cli import metrics_http
from parlour.gateway import app as gateway_app
from parlour.gateway.http import HttpLimits
from parlour.service.bootstrap import Settings, assemble
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store
from parlour.v1 import lobby_pb2, lobby_pb2_grpc
from tests.service.front import gateway_in_front
from tests.service.harness import running_service

pytestmark = pytest.mark.timeout(120)


def connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    return sock


async def closed_by_server(sock: socket.socket) -> bool:
    """True once the server closes ``sock`` (its read ends), False if it answers."""

    def read() -> bytes:
        try:
            return sock.recv(65536)
        except ConnectionResetError:
            return b""

    data = await asyncio.to_thread(read)
    return data == b""


async def read_to_close(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes ``sock``."""

    def read() -> bytes:
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)

    return await asyncio.to_thread(read)


async def test_the_gateway_closes_a_half_sent_head_and_a_silent_connection(
    sqlite_url: str,
) -> None:
    async with (
        running_service(sqlite_url) as service,
        gateway_in_front(service.address, HttpLimits(header_seconds=0.5)) as web,
    ):
        half = connect(web)
        half.sendall(b"GET / HTTP/1.1\r\nHost: parlour\r\nX-Slow: ")
        silent = connect(web)
        assert await closed_by_server(half)
        assert await closed_by_server(silent)
        # a whole request is answered, and the next head on the connection gets the same time
        whole = connect(web)
        whole.sendall(b"GET /api HTTP/1.1\r\nHost: parlour\r\n\r\n")
        answered = await read_to_close(whole)
        assert answered.startswith(b"HTTP/1.1 200"), answered[:100]
        for sock in (half, silent, whole):
            sock.close()


async def test_the_gateway_answers_408_to_a_body_that_does_not_come(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_app, "BODY_SECONDS", 0.5)
    async with running_service(sqlite_url) as service, gateway_in_front(service.address) as web:
        slow = connect(web)
        slow.sendall(
            b"POST /api/LobbyService/ListTables HTTP/1.1\r\nHost: parlour\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        answer = await read_to_close(slow)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
        assert b"DEADLINE_EXCEEDED" in answer
        slow.close()


async def test_the_gateway_closes_connections_past_its_cap(sqlite_url: str) -> None:
    async with (
        running_service(sqlite_url) as service,
        gateway_in_front(service.address, HttpLimits(max_connections=3)) as web,
    ):
        kept = [connect(web) for _ in range(3)]
        await asyncio.sleep(0.2)  # the server takes them in
        extra = connect(web)
        assert await closed_by_server(extra)
        for sock in kept:
            sock.close()
        extra.close()
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=web, timeout=10) as http:
            assert (await http.get("/api")).status_code == 200  # places free again


@contextmanager
def sockets(count: int, port: int) -> Iterator[list[socket.socket]]:
    opened = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(count)]
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


async def test_metrics_serve_without_a_thread_per_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics_http, "READ_SECONDS", 0.5)
    Counter("parlour_connection_test_total", "a metric the endpoint must show").inc()
    server = await metrics_http.start_metrics("127.0.0.1:0")
    assert server is not None
    try:
        before = set(threading.enumerate())
        with sockets(40, server.port) as idle:
            await asyncio.sleep(0.2)
            # no thread started for the 40 connections (another test's thread ending
            # meanwhile is no concern of this one)
            assert not set(threading.enumerate()) - before
            async with httpx.AsyncClient(timeout=10) as http:
                page = await http.get(f"http://127.0.0.1:{server.port}/metrics")
                assert page.status_code == 200
                assert "parlour_connection_test_total 1.0" in page.text
                assert (await http.get(f"http://127.0.0.1:{server.port}/x")).status_code == 404
            for sock in idle:
                assert await closed_by_server(sock)
    finally:
        await server.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.postgres
async def test_a_call_is_unavailable_when_the_database_is_down() -> None:
    # a Postgres URL whose port refuses every connection: the database is down
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/parlour"
    store = open_store(url)
    notifier = make_notifier(store, "local")
    await notifier.start()
    server = (await assemble(Settings(address="127.0.0.1:0"), store, notifier)).server
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            for call, request in (
                (lobby.GetTable, lobby_pb2.GetTableRequest(table_id="0123456789abcdef")),
                (lobby.HostTable, lobby_pb2.HostTableRequest(game="hearts", seats=4)),
                (lobby.ListTables, lobby_pb2.ListTablesRequest()),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call(request, timeout=5)
                # UNAVAILABLE before the deadline, not DEADLINE_EXCEEDED at it
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE, caught.value
                assert "database is unavailable" in (caught.value.details() or "")
    finally:
        await server.stop(0)
        await notifier.stop()
        await store.close()
