"""A replica cut off by a partition goes silent rather than refusing: a client given
two addresses moves on to the other when one does not answer in time (for calls that
are safe to repeat), and a client given one address still reports the deadline."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from parlour.client import ParlourClient, ParlourError, RetryPolicy
from tests.service.harness import running_service


@pytest.fixture
async def black_hole() -> AsyncIterator[str]:
    """A TCP listener that accepts connections and never says a word."""
    held: list[asyncio.StreamWriter] = []

    async def swallow(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        for writer in held:
            writer.close()
        server.close()


async def test_a_silent_address_is_left_for_the_other(black_hole: str, sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        answering = f"127.0.0.1:{service.server.port}"
        retry = RetryPolicy(attempts=3, initial_backoff=0.01)
        async with ParlourClient([black_hole, answering], retry=retry, timeout=1.0) as client:
            games = await client.list_games()
            assert {game.id for game in games} >= {"hearts", "wizard"}
            assert client.address == answering
        async with ParlourClient(black_hole, retry=retry, timeout=0.5) as alone:
            with pytest.raises(ParlourError) as failed:
                await alone.list_games()
            assert failed.value.code.name == "DEADLINE_EXCEEDED"
