"""The limits of a public server (``service/grpc/rates.py``): each caller's rates on
HostTable, JoinTable, Act, GetView and Watch, its open Watch streams and a
table's spectators. A call past one is RESOURCE_EXHAUSTED with ``retry-after``
in the trailing metadata and writes nothing (HTTP 429 with Retry-After at the
gateway); an AI worker's calls are exempt; a trusted proxy names the caller.

The rates are set low in each test so a few calls reach them; the per-second
ones are given far more calls than a loaded machine could spread over a second.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa

from parlour.client import tokens
from parlour.service.grpc import rates
from parlour.service.grpc.rates import RETRY_AFTER_KEY, Rates
from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.service.front import gateway_in_front
from tests.service.harness import Service, running_service
from tests.service.writes import fingerprint

WORKER_TOKEN = "worker-token-for-rates"
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Rig:
    service: Service
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub
    engine: sa.Engine

    async def host(self, metadata: Any = (), **fields: Any) -> lobby_pb2.HostTableResponse:
        request = lobby_pb2.HostTableRequest(game="crazy8s", seats=2, **fields)
        answer: lobby_pb2.HostTableResponse = await self.lobby.HostTable(
            request, metadata=metadata, timeout=10
        )
        return answer

    async def exhausted(self, call: Any, request: Any, metadata: Any = ()) -> float:
        """Expect RESOURCE_EXHAUSTED and no write; the retry-after it names."""
        before = fingerprint(self.engine)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(request, metadata=metadata, timeout=10)
        return retry_after(caught.value, before == fingerprint(self.engine))


def retry_after(error: grpc.aio.AioRpcError, unchanged: bool = True) -> float:
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.details()
    assert unchanged, "a refused request wrote to the database"
    waits = [value for key, value in error.trailing_metadata() or () if key == RETRY_AFTER_KEY]
    assert len(waits) == 1, error.trailing_metadata()
    wait = float(waits[0])
    assert wait > 0
    return wait


@asynccontextmanager
async def rig(url: str, limits: Rates, **options: Any) -> AsyncIterator[Rig]:
    async with (
        running_service(url, worker_token=WORKER_TOKEN, rates=limits, **options) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        engine = sa.create_engine(url, poolclass=sa.NullPool)
        try:
            yield Rig(
                service,
                lobby_pb2_grpc.LobbyServiceStub(channel),
                play_pb2_grpc.PlayServiceStub(channel),
                engine,
            )
        finally:
            engine.dispose()


async def test_hosting_past_the_rate_is_refused_with_the_wait(store_url: str) -> None:
    async with rig(store_url, Rates(host_per_minute=3)) as r:
        for _ in range(3):
            await r.host()
        wait = await r.exhausted(r.lobby.HostTable, lobby_pb2.HostTableRequest(game="crazy8s"))
        assert wait <= 60
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await r.host()
        assert "at most 3 a minute per address" in (caught.value.details() or "")


async def test_joining_past_the_rate_is_refused(store_url: str) -> None:
    async with rig(store_url, Rates(join_per_minute=2)) as r:
        tables = [(await r.host()).table.table_id for _ in range(3)]
        for table_id in tables[:2]:
            await r.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Bo"), timeout=10
            )
        await r.exhausted(
            r.lobby.JoinTable, lobby_pb2.JoinTableRequest(table_id=tables[2], player_name="Bo")
        )


async def table_with_bot(r: Rig) -> tuple[str, lobby_pb2.HostTableResponse]:
    setup = [
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON),
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_BOT, bot_level="random"),
    ]
    hosted = await r.host(host_player_name="Ada", host_takes_seat=True, seat_setup=setup)
    await r.lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=hosted.table.table_id),
        metadata=tokens(host_token=hosted.host_token),
    )
    return hosted.table.table_id, hosted


async def test_views_and_acts_past_the_rate_are_refused_but_not_a_workers(
    store_url: str,
) -> None:
    async with rig(store_url, Rates(view_per_second=1, act_per_second=1)) as r:
        table_id, hosted = await table_with_bot(r)
        own = tokens(seat_token=hosted.seat_token)
        mine = play_pb2.GetViewRequest(table_id=table_id, seat=hosted.seat)
        refused = []
        for _ in range(30):
            try:
                await r.play.GetView(mine, metadata=own, timeout=10)
            except grpc.aio.AioRpcError as error:
                refused.append(retry_after(error))
        assert refused and all(wait <= 1 for wait in refused)
        # the AI worker reads the bot's seat (and the person's view) at any pace
        bot = play_pb2.GetViewRequest(table_id=table_id, seat=1 - hosted.seat)
        worker = tokens(worker_token=WORKER_TOKEN)
        for _ in range(30):
            await r.play.GetView(bot, metadata=worker, timeout=10)
        # a wrong worker token is no exemption
        wrong = tokens(worker_token="not-the-worker-token")
        codes = set()
        for _ in range(30):
            try:
                await r.play.GetView(bot, metadata=wrong, timeout=10)
            except grpc.aio.AioRpcError as error:
                codes.add(error.code())
        assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes
        acts = play_pb2.ActRequest(
            table_id=table_id, seat=hosted.seat, action=common_pb2.Action(text="draw")
        )
        act_codes = set()
        for _ in range(30):
            try:
                await r.play.Act(acts, metadata=own, timeout=10)
            except grpc.aio.AioRpcError as error:
                act_codes.add(error.code())
        assert grpc.StatusCode.RESOURCE_EXHAUSTED in act_codes


async def test_the_python_client_waits_out_a_short_rate(sqlite_url: str) -> None:
    async with rig(sqlite_url, Rates(view_per_second=1)) as r:
        table_id, hosted = await table_with_bot(r)
        seat = r.service.client.seat(table_id, hosted.seat, hosted.seat_token)
        for _ in range(4):  # past the rate: each waits its retry-after and is answered
            assert (await seat.view()).view.seat == hosted.seat


async def first_message(call: Any) -> Any:
    return await asyncio.wait_for(call.read(), timeout=10)


async def test_watch_streams_past_the_cap_are_refused_until_one_closes(store_url: str) -> None:
    async with rig(store_url, Rates(watch_streams=2)) as r:
        table_id = (await r.host()).table.table_id
        request = play_pb2.WatchRequest(table_id=table_id)
        open_calls = [r.play.Watch(request, timeout=30) for _ in range(2)]
        for call in open_calls:
            assert (await first_message(call)).version >= 1
        third = r.play.Watch(request, timeout=30)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await first_message(third)
        retry_after(caught.value)
        assert "at most 2 per address" in (caught.value.details() or "")
        open_calls[0].cancel()
        for _ in range(100):  # the server hears of the cancel a moment later
            again = r.play.Watch(request, timeout=30)
            try:
                await first_message(again)
                break
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("no Watch place came free after one was closed")
        again.cancel()
        open_calls[1].cancel()


async def test_spectators_past_a_tables_cap_are_refused(store_url: str) -> None:
    async with rig(store_url, Rates(spectators_per_table=2), trusted_proxies=("127.0.0.1",)) as r:
        table_id, hosted = await table_with_bot(r)
        other = (await r.host()).table.table_id
        spectate = play_pb2.WatchRequest(table_id=table_id)

        def from_(address: str) -> Any:  # several people, through a trusted gateway
            return ((rates.CLIENT_ADDRESS_KEY, address),)

        calls = [r.play.Watch(spectate, metadata=from_(f"198.51.100.{n}")) for n in (1, 2)]
        for call in calls:
            await first_message(call)
        third = r.play.Watch(spectate, metadata=from_("198.51.100.3"))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await first_message(third)
        retry_after(caught.value)
        assert "spectators already" in (caught.value.details() or "")
        # the players' own streams and other tables are not held back
        seated = r.play.Watch(
            play_pb2.WatchRequest(table_id=table_id, seat=hosted.seat),
            metadata=tokens(seat_token=hosted.seat_token),
        )
        elsewhere = r.play.Watch(play_pb2.WatchRequest(table_id=other))
        for call in (seated, elsewhere):
            await first_message(call)
        for call in (*calls, seated, elsewhere):
            call.cancel()


async def test_a_trusted_proxy_names_the_caller_and_no_one_else_can(sqlite_url: str) -> None:
    def named(address: str) -> Any:
        return ((rates.CLIENT_ADDRESS_KEY, address),)

    async with rig(sqlite_url, Rates(host_per_minute=2), trusted_proxies=("127.0.0.0/8",)) as r:
        for _ in range(2):
            await r.host(metadata=named("203.0.113.5"))
        await r.exhausted(
            r.lobby.HostTable, lobby_pb2.HostTableRequest(game="crazy8s"), named("203.0.113.5")
        )
        await r.host(metadata=named("203.0.113.6"))  # another person behind the gateway
        await r.host(metadata=named("2001:db8::1"))
        # the same IPv6 /64 is one caller
        await r.host(metadata=named("2001:db8::2"))
        await r.exhausted(
            r.lobby.HostTable, lobby_pb2.HostTableRequest(game="crazy8s"), named("2001:db8::3")
        )
    async with rig(sqlite_url, Rates(host_per_minute=2)) as r:  # trusting no one
        for number in range(2):
            await r.host(metadata=named(f"203.0.113.{number}"))
        await r.exhausted(
            r.lobby.HostTable, lobby_pb2.HostTableRequest(game="crazy8s"), named("203.0.113.9")
        )


async def test_the_gateway_answers_429_with_retry_after(store_url: str) -> None:
    limits = Rates(host_per_minute=2, watch_streams=1)
    async with (
        running_service(store_url, rates=limits, trusted_proxies=("127.0.0.1",)) as service,
        gateway_in_front(service.address) as web,
        httpx.AsyncClient(base_url=web, timeout=10) as http,
    ):
        body = {"game": "crazy8s", "seats": 2}
        for _ in range(2):
            assert (await http.post("/api/LobbyService/HostTable", json=body)).status_code == 200
        refused = await http.post("/api/LobbyService/HostTable", json=body)
        assert refused.status_code == 429
        assert refused.json()["code"] == "RESOURCE_EXHAUSTED"
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        table_id = (await http.post("/api/LobbyService/ListTables", json={})).json()["tables"][0][
            "tableId"
        ]
        query = {"q": f'{{"tableId": "{table_id}"}}'}
        async with http.stream("GET", "/api/PlayService/Watch", params=query) as first:
            assert first.status_code == 200
            # the line iterator is kept (not left with break): closing it closes the stream
            lines = first.aiter_lines()
            while not (await anext(lines)).startswith("data:"):
                pass
            second = await http.get("/api/PlayService/Watch", params=query)
            assert second.status_code == 429 and "Retry-After" in second.headers
            await lines.aclose()


def test_rates_come_from_flags_then_the_environment_then_the_defaults() -> None:
    assert rates.rates_from({}, {}) == Rates()
    chosen = rates.rates_from(
        {"act_per_second": 7}, {"PARLOUR_ACT_PER_SECOND": "9", "PARLOUR_WATCH_STREAMS": "3"}
    )
    assert chosen == replace(Rates(), act_per_second=7, watch_streams=3)
    for bad in ("-1", "many"):
        with pytest.raises(ValueError, match="--host-per-minute"):
            rates.rates_from({}, {"PARLOUR_HOST_PER_MINUTE": bad})


def test_every_limit_is_in_the_readme_and_the_contract_with_its_default() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    proto = (ROOT / "proto/parlour/v1/common.proto").read_text(encoding="utf-8")
    for knob in rates.KNOBS:
        row = next((line for line in readme.splitlines() if f"`{knob.flag}`" in line), "")
        assert f"`{knob.env}`" in row and f"| {knob.default} |" in row, knob
        assert f"{knob.flag} " in proto and f"default {knob.default}" in proto, knob
    assert RETRY_AFTER_KEY in proto and "RESOURCE_EXHAUSTED" in proto


class _Called:
    """The part of a gRPC servicer context caller_account reads: the call's metadata."""

    def __init__(self, *metadata: tuple[str, str]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata


async def test_a_caller_is_its_address_and_its_session() -> None:
    assert rates.peer_address("ipv4:192.0.2.7:5000") == "192.0.2.7"
    assert rates.peer_address("ipv6:[2001:db8::1]:5000") == "2001:db8::1"
    assert rates.peer_address("unix:/tmp/x") is None
    assert (
        rates.address_key("2001:db8::1")
        == rates.address_key("2001:db8::ffff")
        != (rates.address_key("2001:db8:0:1::1"))
    )
    assert rates.address_key("::ffff:192.0.2.7") == "192.0.2.7"
    anonymous = _Called(("x-parlour-seat-token", "t"))
    assert await rates.caller_account(anonymous) is None  # type: ignore[arg-type]
    ada = await rates.caller_account(_Called(("authorization", "Bearer s1")))  # type: ignore[arg-type]
    again = await rates.caller_account(_Called(("authorization", "Bearer s1")))  # type: ignore[arg-type]
    other = await rates.caller_account(_Called(("authorization", "Bearer s2")))  # type: ignore[arg-type]
    assert ada is not None and ada == again != other
    assert "s1" not in ada  # a hash of the token, never the token


async def test_a_refusal_pauses_at_most_its_wait_and_names_what_is_left() -> None:
    """A caller that retries at once is slowed: each refusal is answered after
    ``refusal_delay_ms`` (or the wait, if shorter), and ``retry-after`` holds what is
    left of the wait. The pauses are recorded, not timed."""
    interceptor = rates.RatesInterceptor(Rates(host_per_minute=1, view_per_second=1))
    spreads = [interceptor.spread() for _ in range(200)]
    assert min(spreads) >= 0.5 and max(spreads) <= 1.0 and len(set(spreads)) > 100
    interceptor.spread = lambda: 1.0  # the whole pause, so that the test knows it
    paused: list[float] = []

    async def record(seconds: float) -> None:
        paused.append(seconds)

    interceptor.pause = record

    async def answer(request: bytes, context: Any) -> bytes:
        return b""

    handlers = grpc.method_handlers_generic_handler(
        "parlour.v1.LobbyService",
        {"HostTable": grpc.unary_unary_rpc_method_handler(answer)},
    )
    viewing = grpc.method_handlers_generic_handler(
        "parlour.v1.PlayService", {"GetView": grpc.unary_unary_rpc_method_handler(answer)}
    )
    server = grpc.aio.server(interceptors=[interceptor])
    server.add_generic_rpc_handlers((handlers, viewing))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            host = channel.unary_unary("/parlour.v1.LobbyService/HostTable")
            view = channel.unary_unary("/parlour.v1.PlayService/GetView")
            await host(b"", timeout=10)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await host(b"", timeout=10)
            assert paused == [1.0]  # the default pause: a minute's wait is longer
            left = retry_after(refused.value)
            assert 50 < left < 59.5  # the minute's wait less the pause already spent
            await view(b"", timeout=10)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await view(b"", timeout=10)
            assert 0 < paused[1] < 1.0  # a second's wait: the pause is the wait itself
            assert retry_after(refused.value) == pytest.approx(0.001)
        interceptor.rates = replace(interceptor.rates, refusal_delay_ms=0)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.aio.AioRpcError):
                await channel.unary_unary("/parlour.v1.LobbyService/HostTable")(b"", timeout=10)
            assert len(paused) == 2  # 0 turns the pause off
    finally:
        await server.stop(0)


async def test_a_callers_refusals_pause_longer_while_its_others_pause() -> None:
    """A flood is answered no faster than one refusal at a time: each refusal pausing
    for the same caller adds a pause to the next (at most MAX_REFUSAL_PAUSE_SECONDS),
    another caller's refusal is not slowed, and once they are answered the pause is
    back to one. The pauses are recorded and held, not timed."""
    interceptor = rates.RatesInterceptor(Rates(host_per_minute=1), trusted_proxies=("127.0.0.1",))
    interceptor.spread = lambda: 1.0
    paused: list[float] = []
    release = asyncio.Event()

    async def hold(seconds: float) -> None:
        paused.append(seconds)
        await release.wait()

    interceptor.pause = hold

    async def answer(request: bytes, context: Any) -> bytes:
        return b""

    handlers = grpc.method_handlers_generic_handler(
        "parlour.v1.LobbyService", {"HostTable": grpc.unary_unary_rpc_method_handler(answer)}
    )
    server = grpc.aio.server(interceptors=[interceptor])
    server.add_generic_rpc_handlers((handlers,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()

    def origin(address: str) -> tuple[tuple[str, str], ...]:
        return ((rates.CLIENT_ADDRESS_KEY, address),)

    async def refused(host: Any, address: str) -> grpc.StatusCode:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await host(b"", timeout=30, metadata=origin(address))
        return error.value.code()

    async def pausing(count: int) -> None:
        while len(paused) < count:
            await asyncio.sleep(0.01)

    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            host = channel.unary_unary("/parlour.v1.LobbyService/HostTable")
            await host(b"", timeout=10, metadata=origin("192.0.2.1"))
            await host(b"", timeout=10, metadata=origin("192.0.2.2"))
            flood = []
            for n in range(14):
                flood.append(asyncio.create_task(refused(host, "192.0.2.1")))
                await pausing(n + 1)  # one at a time, so the order is known
            assert paused == [1.0 * (n + 1) for n in range(10)] + [10.0] * 4
            other = asyncio.create_task(refused(host, "192.0.2.2"))
            await pausing(15)
            assert paused[14] == 1.0  # another caller is not held to the flood
            release.set()
            codes = await asyncio.gather(*flood, other)
            assert set(codes) == {grpc.StatusCode.RESOURCE_EXHAUSTED}
            assert interceptor.refusing == {}  # nothing left counted
            assert await refused(host, "192.0.2.1") == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert paused[15] == 1.0  # the flood answered, one pause again
    finally:
        await server.stop(0)


async def test_password_hashing_calls_and_new_guests_have_their_own_rates(store_url: str) -> None:
    """SignIn and ClaimName (each an argon2id hash) share one rate; AuthenticateDevice
    (each new device a new account) has its own; past either, nothing is written."""
    limits = Rates(sign_in_per_minute=2, devices_per_minute=2, refusal_delay_ms=0)
    async with rig(store_url, limits) as r, grpc.aio.insecure_channel(r.service.address) as channel:
        accounts = accounts_pb2_grpc.AccountServiceStub(channel)
        guest = await accounts.AuthenticateDevice(
            accounts_pb2.AuthenticateDeviceRequest(device_secret="d" * 43), timeout=10
        )
        bearer = (("authorization", f"Bearer {guest.session_token}"),)
        await accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name="Ada", password="a long enough secret"),
            metadata=bearer,
            timeout=10,
        )
        with pytest.raises(grpc.aio.AioRpcError) as wrong:
            await accounts.SignIn(
                accounts_pb2.SignInRequest(name="Ada", password="not the password"), timeout=10
            )
        assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # the third hash in the minute, however right the password
        wait = await r.exhausted(
            accounts.SignIn,
            accounts_pb2.SignInRequest(name="Ada", password="a long enough secret"),
        )
        assert 1 < wait <= 60
        await accounts.AuthenticateDevice(
            accounts_pb2.AuthenticateDeviceRequest(device_secret="e" * 43), timeout=10
        )
        await r.exhausted(
            accounts.AuthenticateDevice,
            accounts_pb2.AuthenticateDeviceRequest(device_secret="f" * 43),
        )


async def test_a_window_counts_its_limit_and_forgets_what_has_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The moving window refuses the hit past its limit until the oldest passes; it keeps
    no more entries than its limit can count, starts no thread and, once a sweep's
    time comes, drops the keys whose windows are over."""
    clock = {"wall": 1_000.0, "mono": 50.0}
    monkeypatch.setattr(rates.time, "time", lambda: clock["wall"])
    monkeypatch.setattr(rates.time, "monotonic", lambda: clock["mono"])
    threads: list[Any] = []
    monkeypatch.setattr(asyncio, "to_thread", lambda *a, **k: threads.append(a))
    storage = rates.WindowStorage()
    limiter = rates.MovingWindowRateLimiter(storage)
    item = rates.RateLimitItemPerMinute(3, 1, namespace="test")
    hits = [await limiter.hit(item, "address 1") for _ in range(5)]
    assert hits == [True, True, True, False, False]
    key = item.key_for("address 1")
    assert len(storage.events[key]) == 3
    stats = await limiter.get_window_stats(item, "address 1")
    assert stats.remaining == 0 and stats.reset_time == pytest.approx(1_060.0)
    clock["wall"] += 61  # the window has passed: the key may hit again
    assert await limiter.hit(item, "address 1")
    assert len(storage.events[key]) == 3  # trimmed to what the limit counts
    await limiter.hit(item, "address 2")
    clock["wall"] += 61
    clock["mono"] += rates.WindowStorage.SWEEP_SECONDS
    assert await limiter.hit(item, "address 3")  # the sweep's time: the others go
    assert set(storage.events) == {item.key_for("address 3")}
    assert threads == []
