"""Metrics and logs: what an operator scrapes and reads after a few moves.

The service's Prometheus endpoint is started the way `parlour serve
--metrics-address` starts it and read over HTTP; the RPC log lines are the ones
the server interceptor writes, in the plain and in the JSON format.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Iterator

import grpc
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from parlour.cli import logs
from parlour.cli import options as ops
from parlour.client import ParlourError
from parlour.service.app.metrics import watch_store
from tests.service.harness import running_service, seated_table

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
def metrics_url() -> Iterator[str]:
    server = ops.start_metrics("127.0.0.1:0")
    assert server is not None
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/metrics"
    finally:
        server.shutdown()
        server.server_close()


def scrape(url: str) -> Samples:
    text = httpx.get(url, timeout=5).text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def test_after_a_few_moves_the_act_counter_and_latency_histogram_moved(
    sqlite_url: str, metrics_url: str
) -> None:
    async with running_service(sqlite_url) as service:
        watch_store(service.store)
        table = await seated_table(service.client, "wizard", 3, {"rounds": "5"})
        # scraped off the event loop, as Prometheus does: the store counts its tables there
        before = await asyncio.to_thread(scrape, metrics_url)
        rng = random.Random(7)
        moves = 0
        for _ in range(6):
            current = await table.seats[0].view()
            seat = table.seats[current.view.to_act[0]]
            mine = await seat.view()
            await seat.act(rng.choice(mine.view.legal_actions).id, expected_version=mine.version)
            moves += 1
        now = await table.seats[0].view()
        idle = next(s for s in table.seats if s.seat not in now.view.to_act)
        with pytest.raises(ParlourError):  # out of turn: refused
            await idle.act(1, expected_version=now.version)
        after = await asyncio.to_thread(scrape, metrics_url)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ok = {"game": "wizard", "code": "OK"}
    assert moved("parlour_act_seconds_count", **ok) == moves
    assert moved("parlour_act_seconds_sum", **ok) > 0
    assert moved("parlour_act_seconds_bucket", le="+Inf", **ok) == moves
    assert moved("parlour_act_seconds_bucket", le="2.5", **ok) == moves
    refusals = {
        dict(labels)["code"]: after[name, labels] - before.get((name, labels), 0.0)
        for name, labels in after
        if name == "parlour_act_seconds_count"
        and dict(labels)["code"] != "OK"
        and dict(labels)["game"] == "wizard"
        and after[name, labels] != before.get((name, labels), 0.0)
    }
    # one refusal, under whatever code "not your turn" is answered with
    assert sorted(refusals.values()) == [1.0], refusals
    assert moved("parlour_rpc_requests_total", method="PlayService/Act", code="OK") == moves
    assert value(after, "parlour_tables", status="playing") >= 1
    assert value(after, "parlour_db_pool_connections", state="budget") >= 1
    assert ("parlour_db_pool_connections", frozenset({("state", "in_use")})) in after


async def test_every_rpc_is_logged_with_its_table_seat_request_id_and_status(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="parlour.rpc")
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 2)
        current = await table.seats[0].view()
        seat = table.seats[current.view.to_act[0]]
        mine = await seat.view()
        await seat.act(
            mine.view.legal_actions[0].id,
            expected_version=mine.version,
            request_id="req-observed-1",
        )
    acts = [r for r in caplog.records if getattr(r, "rpc", "") == "PlayService/Act"]
    assert len(acts) == 1
    act = acts[0]
    assert (act.table_id, act.seat, act.request_id, act.code) == (  # type: ignore[attr-defined]
        table.table_id,
        seat.seat,
        "req-observed-1",
        "OK",
    )
    hosted = next(r for r in caplog.records if getattr(r, "rpc", "") == "LobbyService/HostTable")
    assert hosted.code == "OK"  # type: ignore[attr-defined]

    line = json.loads(logs.JsonFormatter().format(act))
    assert line["table_id"] == table.table_id and line["seat"] == seat.seat
    assert line["request_id"] == "req-observed-1" and line["code"] == "OK"
    assert line["duration_ms"] >= 0 and line["logger"] == "parlour.rpc"
    text = logs.TextFormatter().format(act)
    assert f"table_id={table.table_id}" in text and "code=OK" in text


async def test_parlour_health_says_whether_a_service_answers(sqlite_url: str) -> None:
    import asyncio

    from parlour.cli import main

    async with running_service(sqlite_url) as service:
        assert await asyncio.to_thread(main, ["health", "--server", service.address]) == 0
        closed = service.address
    assert await asyncio.to_thread(main, ["health", "--server", closed, "--timeout", "1"]) == 1


def test_a_hosted_table_is_logged_with_its_new_table_id(caplog: pytest.LogCaptureFixture) -> None:
    from parlour.service.grpc.observe import ObservingInterceptor
    from parlour.v1 import lobby_pb2

    caplog.set_level(logging.INFO, logger="parlour.rpc")
    answer = lobby_pb2.HostTableResponse(table=lobby_pb2.Table(table_id="t-new", game="hearts"))
    ObservingInterceptor()._done(
        "LobbyService/HostTable",
        False,
        lobby_pb2.HostTableRequest(),
        answer,
        grpc.StatusCode.OK,
        0.01,
    )
    (record,) = caplog.records
    assert record.table_id == "t-new"  # type: ignore[attr-defined]
    assert json.loads(logs.JsonFormatter().format(record))["time"].endswith("+00:00")


async def test_open_watch_streams_are_counted_while_open(sqlite_url: str, metrics_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 2)
        before = value(scrape(metrics_url), "parlour_watch_streams")
        updates = table.seats[0].watch()
        await anext(updates)
        assert value(scrape(metrics_url), "parlour_watch_streams") == before + 1
        await updates.aclose()
        for _ in range(50):  # the server sees the cancellation a moment later
            if value(scrape(metrics_url), "parlour_watch_streams") == before:
                break
            await asyncio.sleep(0.05)
        assert value(scrape(metrics_url), "parlour_watch_streams") == before


async def test_a_request_refused_by_the_limits_is_logged_and_counted(
    sqlite_url: str, metrics_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Hostile input is what an operator most wants to see: a request the limits refuse
    # before any servicer runs, and bytes that are not the request at all, each get
    # their log line and their count under the code the caller was answered with.
    from parlour.v1 import play_pb2

    caplog.set_level(logging.INFO, logger="parlour.rpc")
    async with running_service(sqlite_url) as service:
        before = await asyncio.to_thread(scrape, metrics_url)
        async with grpc.aio.insecure_channel(service.address) as channel:
            act = channel.unary_unary(
                "/parlour.v1.PlayService/Act",
                request_serializer=play_pb2.ActRequest.SerializeToString,
                response_deserializer=play_pb2.ActResponse.FromString,
            )
            raw: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                "/parlour.v1.PlayService/Act"
            )
            with pytest.raises(grpc.aio.AioRpcError) as too_long:
                await act(play_pb2.ActRequest(table_id="t", request_id="r" * 101))
            with pytest.raises(grpc.aio.AioRpcError) as garbage:
                await raw(b"\xff\xff\xff")
        after = await asyncio.to_thread(scrape, metrics_url)

    assert too_long.value.code() == garbage.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in (too_long.value.details() or "")
    counted = value(
        after, "parlour_rpc_requests_total", method="PlayService/Act", code="INVALID_ARGUMENT"
    )
    counted -= value(
        before, "parlour_rpc_requests_total", method="PlayService/Act", code="INVALID_ARGUMENT"
    )
    assert counted == 2
    logged = [
        r
        for r in caplog.records
        if getattr(r, "rpc", "") == "PlayService/Act"
        and getattr(r, "code", "") == "INVALID_ARGUMENT"
    ]
    assert len(logged) == 2
    assert getattr(logged[0], "table_id", None) == "t"


_LOGGING_CHILD = """
import argparse, logging, sys, time
from parlour.cli import logs
from parlour.cli import options as ops
logs.BufferedStderrHandler.FLUSH_SECONDS = float(sys.argv[4])
ops.setup_logging(argparse.Namespace(log_json=True, log_level="INFO"))
log = logging.getLogger("parlour.rpc")
for number in range(int(sys.argv[1])):
    log.info("line %d", number)
if sys.argv[2] == "warn":
    log.warning("at once")
time.sleep(float(sys.argv[3]))
"""


def _log_lines(*args: str, wait: float) -> list[dict[str, object]]:
    import subprocess
    import sys

    child = subprocess.Popen(
        [sys.executable, "-c", _LOGGING_CHILD, *args], stderr=subprocess.PIPE, text=True
    )
    try:
        _, err = child.communicate(timeout=wait)
    except subprocess.TimeoutExpired:
        child.kill()  # no exit, so no flush at exit: only what was flushed while it ran
        _, err = child.communicate()
    return [json.loads(line) for line in err.splitlines()]


def test_buffered_log_lines_are_flushed_while_the_process_runs_and_at_exit() -> None:
    # a process that logs and then stays busy: its lines reach stderr by the timer
    while_running = _log_lines("500", "", "60", "0.2", wait=3.0)
    assert [line["message"] for line in while_running] == [f"line {n}" for n in range(500)]
    # a process that exits at once: logging.shutdown flushes the rest
    at_exit = _log_lines("3", "", "0", "3600", wait=30.0)
    assert [line["message"] for line in at_exit] == ["line 0", "line 1", "line 2"]


def test_a_warning_is_written_at_once_with_the_lines_before_it() -> None:
    # the timer would flush only after an hour: the warning itself flushes
    lines = _log_lines("2", "warn", "60", "3600", wait=3.0)
    assert [line["message"] for line in lines] == ["line 0", "line 1", "at once"]
