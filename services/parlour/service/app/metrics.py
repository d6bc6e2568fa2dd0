"""The game service's Prometheus metrics.

Counters and histograms are module-level (the process's default registry);
the figures that live in the store (tables by status, database pool use) are
read at scrape time through :func:`table_counts` and :func:`pool_figures`, from
the store's own ``count_tables()`` and ``stats()``.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Iterator
from typing import Any

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("parlour.service.app.metrics")

RPCS = Counter(
    "parlour_rpc_requests",
    "RPCs answered, by method (Service/Method) and status code",
    ["method", "code"],
)
ACT_SECONDS = Histogram(
    "parlour_act_seconds",
    "PlayService.Act latency in this replica, by game and status code "
    "(its _count is the acts and refusals by code)",
    ["game", "code"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
WATCH_STREAMS = Gauge("parlour_watch_streams", "PlayService.Watch streams open now")
APPEND_CONFLICTS = Counter(
    "parlour_append_conflicts",
    "appends that lost an optimistic-concurrency race (retried or answered ABORTED)",
)
BOT_CLAIMS = Counter(
    "parlour_bot_claims",
    "BotService.ClaimTurn answers: claimed (a lease granted) or empty",
    ["result"],
)
LEASE_EXPIRIES = Counter(
    "parlour_bot_lease_expiries",
    "bot turns claimed again after another worker's lease on them ran out",
)


#: how long a scrape waits for the store's own event loop to count the tables
COUNT_WAIT_SECONDS = 2.0


def table_counts(store: Any, loop: asyncio.AbstractEventLoop) -> dict[str, int]:
    """Tables by status, counted by the store on its own event loop (a scrape runs on
    the metrics server's thread, never on that loop)."""
    future = asyncio.run_coroutine_threadsafe(store.count_tables(), loop)
    try:
        return dict(future.result(COUNT_WAIT_SECONDS))
    except BaseException:
        future.cancel()
        raise


def pool_figures(store: Any) -> dict[str, int]:
    """state -> connections of the store's pool: budget, open, in_use, waiting."""
    figures = dict(store.stats())
    figures["budget"] = figures.pop("connections")
    return figures


class StoreCollector(Collector):
    """Scrape-time figures of every live store of this process."""

    def __init__(self) -> None:
        self.stores: weakref.WeakKeyDictionary[Any, asyncio.AbstractEventLoop] = (
            weakref.WeakKeyDictionary()
        )

    def collect(self) -> Iterator[GaugeMetricFamily]:
        tables = GaugeMetricFamily("parlour_tables", "tables by status", labels=["status"])
        pools = GaugeMetricFamily(
            "parlour_db_pool_connections",
            "database connections of this replica's pool, by state (budget: the most it opens)",
            labels=["state"],
        )
        counts: dict[str, int] = {}
        figures: dict[str, int] = {}
        for store, loop in list(self.stores.items()):
            for state, value in pool_figures(store).items():
                figures[state] = figures.get(state, 0) + value
            if loop.is_closed() or loop is _running_loop():
                continue  # the loop cannot answer: no table counts this scrape
            try:
                for status, count in table_counts(store, loop).items():
                    counts[status] = counts.get(status, 0) + count
            except Exception:  # a scrape must not fail because the database is away
                log.warning("metrics: could not count the tables", exc_info=True)
        for status, count in sorted(counts.items()):
            tables.add_metric([status], count)
        for state, value in sorted(figures.items()):
            pools.add_metric([state], value)
        yield tables
        yield pools


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


STORES = StoreCollector()
REGISTRY.register(STORES)


def watch_store(store: Any) -> None:
    """Report ``store``'s tables and pools at every scrape while it lives (call it on the
    event loop the store serves)."""
    STORES.stores[store] = asyncio.get_running_loop()
