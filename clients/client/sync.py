"""A blocking wrapper of :class:`ParlourClient` for scripts and benchmarks.

Every coroutine method of the async client becomes a plain method; ``watch``
becomes an ordinary iterator. The wrapper owns a private event loop, so use
it from one thread (it is not for code that already runs an event loop)::

    with SyncParlourClient("127.0.0.1:50051") as client:
        print([game.name for game in client.list_games()])
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from parlour.v1 import play_pb2

from .client import ParlourClient


class SyncParlourClient:
    """Blocking calls over one :class:`ParlourClient` (same arguments)."""

    def __init__(self, addresses: str | Sequence[str], **options: Any) -> None:
        self._runner = asyncio.Runner()
        self._client = ParlourClient(addresses, **options)

    def __enter__(self) -> SyncParlourClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._client.close())
        self._runner.close()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._client, name)
        if not asyncio.iscoroutinefunction(method):
            raise AttributeError(name)

        def blocking(*args: Any, **kwargs: Any) -> Any:
            return self._runner.run(method(*args, **kwargs))

        return blocking

    def watch(self, *args: Any, **kwargs: Any) -> Iterator[play_pb2.WatchResponse]:
        """Like ParlourClient.watch, as a blocking iterator."""
        updates = self._client.watch(*args, **kwargs)

        async def next_update() -> play_pb2.WatchResponse:
            return await anext(updates)

        try:
            while True:
                try:
                    yield self._runner.run(next_update())
                except StopAsyncIteration:
                    return
        finally:
            self._runner.run(updates.aclose())
