"""The gateway's HTTP server: uvicorn with time limits on what a client sends.

uvicorn times out only an idle keep-alive connection, and any byte restarts
that; a connection that sends half a request head is held for ever (a
thousand of them use up the process's open files). :class:`GuardedH11` gives
every request head ``header_seconds`` from the connection's start (or the
previous response's end), closes a connection past ``max_connections`` at
once, and the app (``app.py``) reads a body within ``BODY_SECONDS``.
:func:`server_config` puts it together with uvicorn's keep-alive timeout and
concurrency limit.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class HttpLimits:
    """The gateway's connection limits (``parlour gateway`` flags and environment)."""

    #: seconds a client has to send a request head (from connecting, or from the last answer)
    header_seconds: float = 10.0
    #: seconds an idle keep-alive connection is kept
    keep_alive_seconds: float = 5.0
    #: connections open at once; more are closed at once (and requests past it get 503)
    max_connections: int = 1000

    @classmethod
    def from_env(
        cls,
        header_seconds: float | None = None,
        keep_alive_seconds: float | None = None,
        max_connections: int | None = None,
    ) -> HttpLimits:
        """The given values, else $PARLOUR_GATEWAY_HEADER_SECONDS and the like, else
        the defaults."""
        default = cls()
        env = os.environ
        return cls(
            header_seconds=header_seconds
            or float(env.get("PARLOUR_GATEWAY_HEADER_SECONDS") or default.header_seconds),
            keep_alive_seconds=keep_alive_seconds
            or float(env.get("PARLOUR_GATEWAY_KEEP_ALIVE_SECONDS") or default.keep_alive_seconds),
            max_connections=max_connections
            or int(env.get("PARLOUR_GATEWAY_MAX_CONNECTIONS") or default.max_connections),
        )


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head and a connection cap."""

    limits = HttpLimits()
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        waiting = self.cycle
        super().data_received(data)
        if self.cycle is not waiting:  # a whole request head came
            self._disarm()

    def on_response_complete(self) -> None:
        done = self.cycle
        super().on_response_complete()
        if self.cycle is done and not self.transport.is_closing():
            self._arm()  # the next head has the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.limits.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(
    app: Any, host: str, port: int, limits: HttpLimits, **more: Any
) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` under ``limits`` (``more``: other options)."""
    protocol = type("GuardedH11Protocol", (GuardedH11,), {"limits": limits})
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=int(max(1, limits.keep_alive_seconds)),
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=16 * 1024,
        **more,
    )
