"""The gateway's connections to the game service: a pool that grows with its calls.

The game service allows each connection a bounded number of calls in flight
(100: ``service/grpc/limits.py``), so that one client's burst on one
connection cannot crowd a replica's event loop. The gateway carries every
browser's calls, and each watching browser holds a stream open for as long as
it watches, so one connection would queue the 101st browser behind the others.
The pool opens another connection when every open one carries
``CALLS_PER_CHANNEL`` calls, up to ``MAX_CHANNELS``; past that the least busy
connection takes the call and gRPC queues it until a call ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import grpc

#: The calls the gateway puts on one connection: under the service's 100 per connection.
CALLS_PER_CHANNEL = 90
#: The most connections the pool opens (MAX_CHANNELS x CALLS_PER_CHANNEL calls at once,
#: well over the gateway's 1,000 HTTP connections' one stream each).
MAX_CHANNELS = 32
#: Each channel its own connection (gRPC otherwise shares one between equal channels).
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)

ChannelFactory = Callable[[Sequence[tuple[str, Any]]], grpc.aio.Channel]


class ChannelPool:
    """Channels to one address, each carrying at most ``per_channel`` calls while
    another can be opened. ``factory(options)`` opens a channel."""

    def __init__(
        self,
        factory: ChannelFactory,
        options: Sequence[tuple[str, Any]] = (),
        per_channel: int = CALLS_PER_CHANNEL,
        most: int = MAX_CHANNELS,
    ) -> None:
        if per_channel < 1 or most < 1:
            raise ValueError("a pool needs room for a call on a channel")
        self._factory = factory
        self._options = [*options, OWN_CONNECTION]
        self._per_channel = per_channel
        self._most = most
        self._channels: list[grpc.aio.Channel] = []
        self._calls: list[int] = []

    @property
    def calls(self) -> list[int]:
        """The calls in flight on each open channel, in the order they opened."""
        return list(self._calls)

    def take(self) -> tuple[int, grpc.aio.Channel]:
        """A channel for one more call (the least busy, or a new one when every
        channel is full and the pool may grow), and its number for :meth:`give`."""
        index = min(range(len(self._calls)), key=self._calls.__getitem__, default=-1)
        if index < 0 or (
            self._calls[index] >= self._per_channel and len(self._channels) < self._most
        ):
            self._channels.append(self._factory(self._options))
            self._calls.append(0)
            index = len(self._channels) - 1
        self._calls[index] += 1
        return index, self._channels[index]

    def give(self, index: int) -> None:
        """The call :meth:`take` gave channel ``index`` for has ended."""
        if index < len(self._calls):  # else the pool closed while the call ran
            self._calls[index] -= 1

    def once(self, index: int) -> Callable[[], None]:
        """:meth:`give` for ``index`` that does its work the first time it is called."""
        given = False

        def give() -> None:
            nonlocal given
            if not given:
                given = True
                self.give(index)

        return give

    @contextmanager
    def borrowed(self) -> Iterator[grpc.aio.Channel]:
        """A channel for the length of one unary call."""
        index, channel = self.take()
        try:
            yield channel
        finally:
            self.give(index)

    async def close(self) -> None:
        channels, self._channels, self._calls = self._channels, [], []
        for channel in channels:
            await channel.close()
