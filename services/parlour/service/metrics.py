"""The game service's Prometheus metrics.

Counters and histograms are module-level (the process's default registry);
the figures that live in the store (tables by status, database pool use) are
read at scrape time through :func:`table_counts` and :func:`pool_figures`, the
only two places that know the store's insides.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("parlour.service.metrics")

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


def table_counts(store: Any) -> dict[str, int]:
    """Tables by status, straight from the store's table projection."""
    from parlour.service.store_schema import tables

    query = sa.select(tables.c.status, sa.func.count()).group_by(tables.c.status)
    with store._reader.connect() as conn:
        return {str(status): int(count) for status, count in conn.execute(query)}


def pool_figures(store: Any) -> dict[tuple[str, str], int]:
    """(pool, state) -> connections, for every connection pool the store keeps."""
    figures: dict[tuple[str, str], int] = {}
    pool = store._engine.pool
    if hasattr(pool, "checkedout"):
        figures["sqlalchemy", "in_use"] = int(pool.checkedout())
        figures["sqlalchemy", "idle"] = int(pool.checkedin())
    for name in ("_hot", "_hot_async"):
        hot = getattr(store, name, None)
        if hot is not None:
            figures[name.strip("_"), "idle"] = len(hot._idle)
    return figures


class StoreCollector(Collector):
    """Scrape-time figures of every live store of this process."""

    def __init__(self) -> None:
        self.stores: weakref.WeakSet[Any] = weakref.WeakSet()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        tables = GaugeMetricFamily("parlour_tables", "tables by status", labels=["status"])
        pools = GaugeMetricFamily(
            "parlour_db_pool_connections",
            "database connections of this replica's pools, by pool and state",
            labels=["pool", "state"],
        )
        counts: dict[str, int] = {}
        figures: dict[tuple[str, str], int] = {}
        for store in list(self.stores):
            try:
                for status, count in table_counts(store).items():
                    counts[status] = counts.get(status, 0) + count
                for key, value in pool_figures(store).items():
                    figures[key] = figures.get(key, 0) + value
            except Exception:  # a scrape must not fail because the database is away
                log.warning("metrics: could not read the store", exc_info=True)
        for status, count in sorted(counts.items()):
            tables.add_metric([status], count)
        for (pool, state), value in sorted(figures.items()):
            pools.add_metric([pool, state], value)
        yield tables
        yield pools


STORES = StoreCollector()
REGISTRY.register(STORES)


def watch_store(store: Any) -> None:
    """Report ``store``'s tables and pools at every scrape while it lives."""
    STORES.stores.add(store)
