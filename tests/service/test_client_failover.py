"""The client library's retries never cancel other calls in flight on the same client.

Reproduction: one client watches a table and acts on it (the README's own
usage). The database drops the Act's connection once (as when Postgres
restarts: the service answers UNAVAILABLE); the client resends the Act. That
retry used to close the channel the watch streamed on, and the watch raised
``asyncio.CancelledError`` into the application.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from parlour.client import ParlourClient, ParlourError, RetryPolicy
from parlour.service.store.protocol import StoreUnavailable
from parlour.v1 import play_pb2
from tests.service.harness import running_service, seated_table


def drop_the_database_once(app: Any) -> list[int]:
    """Make the next append fail as a restarting Postgres would (the store translates a
    dropped connection into StoreUnavailable); count the failures."""
    store = app.store
    real = store.append
    dropped: list[int] = []

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        if not dropped:
            dropped.append(1)
            raise StoreUnavailable("server closed the connection")
        return await real(*args, **kwargs)

    store.append = flaky
    return dropped


async def test_an_act_retry_does_not_cancel_a_watch_on_the_same_client(store_url: str) -> None:
    async with running_service(store_url) as service:
        client = ParlourClient(service.address, retry=RetryPolicy(initial_backoff=0.01))
        try:
            table = await seated_table(client, "crazy8s", 2)
            me = table.seats[0]
            updates: list[play_pb2.WatchResponse] = []
            first = asyncio.Event()

            async def watch() -> None:
                async for update in me.watch():
                    updates.append(update)
                    first.set()

            watcher = asyncio.create_task(watch())
            await asyncio.wait_for(first.wait(), 10)
            view = await me.view()
            mover = table.seats[view.view.to_act[0]]
            dropped = drop_the_database_once(service.server.app)
            done = await mover.act(1, expected_version=view.version)
            assert dropped, "the database never dropped the Act"
            assert not done.duplicate and done.version > view.version
            # the watch is still running on the same client and sees the move
            for _ in range(200):
                if updates[-1].version >= done.version or watcher.done():
                    break
                await asyncio.sleep(0.02)
            assert not watcher.done(), watcher.exception() if watcher.done() else None
            assert updates[-1].version >= done.version
            watcher.cancel()
            with pytest.raises(asyncio.CancelledError):
                await watcher
        finally:
            await client.close()


async def test_a_watch_raises_only_parlour_error_when_its_client_is_closed(
    sqlite_url: str,
) -> None:
    async with running_service(sqlite_url) as service:
        client = ParlourClient(service.address)
        table = await seated_table(client, "crazy8s", 2)
        got_one = asyncio.Event()
        caught: list[BaseException] = []

        async def watch() -> None:
            try:
                async for _ in table.seats[0].watch():
                    got_one.set()
            except BaseException as error:
                caught.append(error)
                raise

        watcher = asyncio.create_task(watch())
        await asyncio.wait_for(got_one.wait(), 10)
        await client.close()
        with pytest.raises(ParlourError) as error:
            await asyncio.wait_for(watcher, 10)
        assert error.value.code == grpc.StatusCode.CANCELLED
        assert isinstance(caught[0], ParlourError)
