"""No password, token or device secret in any log line or metric (issue 30).

``parlour serve`` and ``parlour gateway`` run as processes with JSON logs at
DEBUG and their metrics endpoints; a session's worth of traffic goes through
both (guests, a claimed name, sign-ins with a right and a wrong password,
sessions listed and revoked, tables hosted and joined with sessions and seat
tokens, moves, a dead session, sign-out). Every secret used is then searched
for in every log line and in both metrics pages; on SQLite the database file
is searched too (secrets are stored only as digests and argon2id hashes).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest

from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.announced import BROWSER_CLIENT_ON, METRICS_AT, SERVING_ON, announced

PARLOUR = [sys.executable, "-m", "parlour.cli"]


def wait_for(check: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not start")


class Stack:
    """A service and a gateway, each logging JSON at DEBUG to its own file."""

    def __init__(self, where: Path, url: str) -> None:
        self.where = where
        self.metrics: dict[str, int] = {}
        self.children: list[subprocess.Popen[bytes]] = []
        serve = self._start(
            "serve", "--address", "127.0.0.1:0", "--database-url", url, "--session-seconds", "600"
        )
        self.address = announced(where / "serve.log", SERVING_ON, serve)
        self.metrics["serve"] = int(announced(where / "serve.log", METRICS_AT, serve))
        gateway = self._start("gateway", "--server", self.address, "--port", "0")
        self.base = announced(where / "gateway.log", BROWSER_CLIENT_ON, gateway)
        self.metrics["gateway"] = int(announced(where / "gateway.log", METRICS_AT, gateway))
        wait_for(lambda: httpx.get(f"{self.base}/").status_code == 200, "gateway")

    def _start(self, name: str, *arguments: str) -> subprocess.Popen[bytes]:
        log = (self.where / f"{name}.log").open("wb")
        command = [*PARLOUR, name, *arguments, "--log-json", "--log-level", "DEBUG"]
        command += ["--metrics-address", "127.0.0.1:0"]
        child = subprocess.Popen(
            command, env=dict(os.environ), stdout=log, stderr=subprocess.STDOUT
        )
        self.children.append(child)
        return child

    def metrics_text(self) -> str:
        return "".join(
            httpx.get(f"http://127.0.0.1:{port}/metrics").text for port in self.metrics.values()
        )

    def stop(self) -> str:
        for child in self.children:
            child.terminate()
        for child in self.children:
            child.wait(timeout=20)
        return "".join(
            (self.where / f"{name}.log").read_text(errors="replace") for name in self.metrics
        )


@pytest.fixture
def stack(tmp_path: Path, store_url: str) -> Iterator[Stack]:
    running = Stack(tmp_path, store_url)
    try:
        yield running
    finally:
        for child in running.children:
            if child.poll() is None:
                child.kill()


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def session_of_traffic(stack: Stack) -> set[str]:
    """A session's worth of calls through gRPC and the gateway; every secret it used."""
    used: set[str] = set()
    device, laptop, password = secrets.token_urlsafe(32), secrets.token_hex(32), "hunter2-pass"
    wrong = "wrong-password-7"
    used |= {device, laptop, password, wrong}
    async with grpc.aio.insecure_channel(stack.address) as channel:
        accounts = accounts_pb2_grpc.AccountServiceStub(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        play = play_pb2_grpc.PlayServiceStub(channel)
        first = await accounts.AuthenticateDevice(
            accounts_pb2.AuthenticateDeviceRequest(device_secret=device)
        )
        used.add(first.session_token)
        await accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name="Secretive", password=password),
            metadata=bearer(first.session_token),
        )
        with pytest.raises(grpc.aio.AioRpcError):
            await accounts.SignIn(accounts_pb2.SignInRequest(name="Secretive", password=wrong))
        with pytest.raises(grpc.aio.AioRpcError):  # a password too short is refused too
            await accounts.ClaimName(
                accounts_pb2.ClaimNameRequest(name="Other", password="shortpw"),
                metadata=bearer(first.session_token),
            )
        used.add("shortpw")
        signed = await accounts.SignIn(
            accounts_pb2.SignInRequest(name="Secretive", password=password, device_secret=laptop)
        )
        used.add(signed.session_token)
        hosted = await lobby.HostTable(
            lobby_pb2.HostTableRequest(
                game="crazy8s",
                seats=2,
                host_takes_seat=True,
                seat_setup=[
                    lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON),
                    lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON, invite_only=True),
                ],
            ),
            metadata=bearer(signed.session_token),
        )
        used |= {hosted.host_token, hosted.seat_token, hosted.seat_codes[0].code}
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(
                table_id=hosted.table.table_id,
                player_name="Bo",
                seat_code=hosted.seat_codes[0].code,
            )
        )
        used.add(joined.seat_token)
        table_id = hosted.table.table_id
        await lobby.StartTable(
            lobby_pb2.StartTableRequest(table_id=table_id),
            metadata=(("x-parlour-host-token", hosted.host_token),),
        )
        tokens = {0: hosted.seat_token, 1: joined.seat_token}
        for _ in range(6):
            view = await play.GetView(
                play_pb2.GetViewRequest(table_id=table_id, seat=0),
                metadata=bearer(first.session_token),  # the session, not the seat token
            )
            seat = view.view.to_act[0]
            mine = await play.GetView(
                play_pb2.GetViewRequest(table_id=table_id, seat=seat),
                metadata=(("x-parlour-seat-token", tokens[seat]),),
            )
            await play.Act(
                play_pb2.ActRequest(
                    table_id=table_id,
                    seat=seat,
                    legal_action_id=mine.view.legal_actions[0].id,
                    expected_version=mine.version,
                ),
                metadata=(("x-parlour-seat-token", tokens[seat]),),
            )
        listed = await accounts.ListSessions(
            accounts_pb2.ListSessionsRequest(), metadata=bearer(signed.session_token)
        )
        await accounts.RevokeSession(
            accounts_pb2.RevokeSessionRequest(session_id=listed.sessions[-1].session_id),
            metadata=bearer(signed.session_token),
        )
        dead = "x" * 43
        used.add(dead)
        with pytest.raises(grpc.aio.AioRpcError):
            await accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(dead))
        await accounts.SignOut(accounts_pb2.SignOutRequest(), metadata=bearer(signed.session_token))
    async with httpx.AsyncClient(
        base_url=stack.base, timeout=30, headers={"X-Parlour-CSRF": "1"}
    ) as http:
        await http.post("/api/AccountService/AuthenticateDevice", json={})
        used |= {http.cookies["parlour_session"], http.cookies["parlour_device"]}
        await http.post(
            "/api/AccountService/SignIn", json={"name": "Secretive", "password": password}
        )
        used.add(http.cookies["parlour_session"])
        await http.post("/api/AccountService/SignIn", json={"name": "Secretive", "password": wrong})
        await http.post(
            "/api/PlayService/GetView",
            json={"tableId": table_id, "seat": 1},
            headers={"X-Parlour-Seat-Token": joined.seat_token},
        )
        async with http.stream(
            "GET",
            "/api/PlayService/Watch",
            params={
                "q": json.dumps({"tableId": table_id, "seat": 1}),
                "seat_token": joined.seat_token,
            },
        ) as stream:
            async for line in stream.aiter_lines():
                if line.startswith("data:"):
                    break
        await http.post("/api/AccountService/SignOut", json={})
    return used


async def test_no_secret_reaches_a_log_line_a_metric_or_the_database(
    stack: Stack, store_url: str
) -> None:
    used = await session_of_traffic(stack)
    metrics = stack.metrics_text()
    logs = stack.stop()
    lines = [line for line in logs.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(records) > 30  # the traffic was logged, as JSON
    assert any(record.get("rpc") == "AccountService/SignIn" for record in records)
    assert any(record.get("route") == "/api/AccountService/SignIn" for record in records)
    assert "parlour_rpc_requests_total" in metrics
    for secret in used:
        assert secret not in logs, "a secret is in the logs"
        assert secret not in metrics, "a secret is in the metrics"
    if store_url.startswith("sqlite"):
        stored = Path(store_url.removeprefix("sqlite:///")).read_bytes()
        wal = Path(store_url.removeprefix("sqlite:///") + "-wal")
        stored += wal.read_bytes() if wal.exists() else b""
        for secret in used:
            assert secret.encode() not in stored, "a secret is stored as it is"
