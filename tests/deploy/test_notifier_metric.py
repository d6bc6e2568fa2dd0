"""The notifier's state is in the metrics: during a NATS outage (a nats-server of
the test's own, killed and started again) and a lost LISTEN connection (its backend
terminated), ``parlour_notifier_connected`` drops to 0 with a warning in the log,
then comes back with ``parlour_notifier_reconnects_total`` one higher; wake-ups the
client cannot hold while the server is away count as publish failures."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator

import psycopg
import pytest
from prometheus_client import REGISTRY

from parlour.service.notify import NatsNotifier, PostgresNotifier
from parlour.service.store.urls import libpq_url
from tests.service.natsd import NatsServer, own_nats_server

#: how long the test waits for a state it expects (a bound on a hang, not a timing)
PATIENCE = 30.0


@pytest.fixture
def nats_server() -> Iterator[NatsServer]:
    yield from own_nats_server()


def sample(name: str, kind: str) -> float:
    value = REGISTRY.get_sample_value(name, {"kind": kind})
    return 0.0 if value is None else value


async def until(check: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while not check():
        assert loop.time() < deadline, f"never saw {what}"
        await asyncio.sleep(0.05)


async def test_the_nats_notifier_s_state_moves_through_an_outage(
    nats_server: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    # a small reconnect buffer, so an outage's wake-ups overflow it
    notifier = NatsNotifier(nats_server.url, reconnect_seconds=0.1, pending_bytes=512)
    await notifier.start()
    try:
        assert sample("parlour_notifier_connected", "nats") == 1
        reconnects = sample("parlour_notifier_reconnects_total", "nats")
        failures = sample("parlour_notifier_publish_failures_total", "nats")

        caplog.set_level(logging.WARNING, logger="parlour.service.notify")
        nats_server.stop()
        await until(lambda: sample("parlour_notifier_connected", "nats") == 0, "connected 0")
        assert any(
            r.levelno == logging.WARNING and "lost the NATS connection" in r.getMessage()
            for r in caplog.records
        )
        for seq in range(1, 201):  # each append's wake-up, while the server is away
            waiting = notifier.committed("t-outage", seq)
            assert waiting is not None
            await waiting
        assert sample("parlour_notifier_publish_failures_total", "nats") > failures

        nats_server.start()  # the same port again
        await until(lambda: sample("parlour_notifier_connected", "nats") == 1, "connected 1")
        assert sample("parlour_notifier_reconnects_total", "nats") == reconnects + 1
    finally:
        await notifier.stop()
    # a stopped notifier is no longer reported
    assert sample("parlour_notifier_connected", "nats") == 0


@pytest.mark.postgres
async def test_the_listen_notifier_s_state_moves_when_its_connection_is_lost(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = PostgresNotifier(postgres_url, retry_delay=0.5)
    await notifier.start()
    try:
        assert notifier._connection is not None
        backend = notifier._connection.info.backend_pid
        before = sample("parlour_notifier_connected", "postgres")
        reconnects = sample("parlour_notifier_reconnects_total", "postgres")
        assert before >= 1
        caplog.set_level(logging.WARNING, logger="parlour.service.notify")
        with psycopg.connect(libpq_url(postgres_url), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
        await until(lambda: sample("parlour_notifier_connected", "postgres") == before - 1, "0")
        await until(lambda: notifier.reconnects == 1, "the LISTEN connection back")
        assert any(
            r.levelno == logging.WARNING and "lost the LISTEN connection" in r.getMessage()
            for r in caplog.records
        )
        assert sample("parlour_notifier_reconnects_total", "postgres") == reconnects + 1
        assert sample("parlour_notifier_connected", "postgres") == before
    finally:
        await notifier.stop()
