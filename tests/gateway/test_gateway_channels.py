"""The gateway's pool of connections to the game service (``gateway/channels.py``).

The service allows a connection 100 calls in flight (``limits.py``); the gateway
carries every browser's, so it spreads them over connections of its own.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import httpx
import pytest

from parlour.gateway.app import create_app
from parlour.gateway.channels import CALLS_PER_CHANNEL, ChannelPool
from parlour.service.grpc.limits import MAX_STREAMS_PER_CONNECTION
from tests.service.front import gateway_in_front
from tests.service.harness import running_service, seated_table

pytestmark = pytest.mark.timeout(120)


class Opened:
    def __init__(self) -> None:
        self.options: list[list[tuple[str, Any]]] = []
        self.closed = 0

    def __call__(self, options: Any) -> Any:
        self.options.append(list(options))
        opened = self

        class Channel:
            async def close(self) -> None:
                opened.closed += 1

        return Channel()


def test_the_pool_opens_a_channel_when_every_open_one_is_full() -> None:
    opened = Opened()
    pool = ChannelPool(opened, [("grpc.max_receive_message_length", 10)], per_channel=2, most=3)
    taken = [pool.take() for _ in range(5)]
    assert [number for number, _ in taken] == [0, 0, 1, 1, 2]
    assert pool.calls == [2, 2, 1]
    # each channel a connection of its own, with the options given
    assert all(("grpc.use_local_subchannel_pool", 1) in options for options in opened.options)
    assert all(("grpc.max_receive_message_length", 10) in options for options in opened.options)
    pool.give(0)
    assert pool.take()[0] in (0, 2)  # a least busy one, and no fourth channel
    assert len(opened.options) == 3
    # full everywhere and at its most: the least busy channel takes the call
    for _ in range(3):
        pool.take()
    assert (
        len(opened.options) == 3 and sum(pool.calls) == 8 and max(pool.calls) - min(pool.calls) <= 1
    )


def test_a_call_given_back_once_counts_once() -> None:
    pool = ChannelPool(Opened(), per_channel=5)
    number, _ = pool.take()
    give = pool.once(number)
    give()
    give()
    assert pool.calls == [0]
    with pool.borrowed():
        assert pool.calls == [1]
    assert pool.calls == [0]


async def test_the_service_holds_a_connections_calls_past_its_cap(sqlite_url: str) -> None:
    """The 101st Watch on one connection waits in the client until a call ends."""
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        own = [("grpc.use_local_subchannel_pool", 1)]
        async with grpc.aio.insecure_channel(service.address, options=own) as channel:
            from parlour.v1 import play_pb2, play_pb2_grpc

            stub = play_pb2_grpc.PlayServiceStub(channel)
            request = play_pb2.WatchRequest(table_id=table.table_id)
            calls = [stub.Watch(request) for _ in range(MAX_STREAMS_PER_CONNECTION)]
            await asyncio.wait_for(asyncio.gather(*(call.read() for call in calls)), 60)
            extra = stub.Watch(request)
            first = asyncio.ensure_future(extra.read())
            done, _ = await asyncio.wait({first}, timeout=2)
            assert not done, "a connection carried more calls than the service allows"
            calls[0].cancel()
            assert isinstance(await asyncio.wait_for(first, 30), play_pb2.WatchResponse)
            for call in [*calls[1:], extra]:
                call.cancel()


async def test_the_gateway_carries_more_streams_than_one_connection_allows(
    sqlite_url: str,
) -> None:
    watchers = MAX_STREAMS_PER_CONNECTION + 50
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        app = create_app(service.address)
        pool: ChannelPool = app.state.channels
        async with gateway_in_front(service.address, app=app) as base:
            limits = httpx.Limits(max_connections=watchers + 10)
            async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
                query = json.dumps({"tableId": table.table_id})
                arrived = 0

                async def watch(held: asyncio.Event) -> None:
                    nonlocal arrived
                    async with http.stream(
                        "GET", "/api/PlayService/Watch", params={"q": query}
                    ) as answer:
                        assert answer.status_code == 200
                        async for line in answer.aiter_lines():
                            if line.startswith("data:"):
                                assert "view" in json.loads(line[5:])
                                arrived += 1
                                await held.wait()
                                return

                held = asyncio.Event()
                streams = [asyncio.create_task(watch(held)) for _ in range(watchers)]
                while arrived < watchers:
                    await asyncio.sleep(0.05)
                    for stream in streams:
                        if stream.done():
                            stream.result()  # a failure shows at once
                # every watcher's first view came while all of them were open
                assert len(pool.calls) >= 2 and max(pool.calls) <= CALLS_PER_CHANNEL
                assert sum(pool.calls) == watchers
                held.set()
                await asyncio.wait_for(asyncio.gather(*streams), 30)
                # each stream's call given back once it ended
                for _ in range(100):
                    if sum(pool.calls) == 0:
                        break
                    await asyncio.sleep(0.05)
                assert sum(pool.calls) == 0
