"""The Prometheus endpoint served from the process's own event loop, no thread per
connection (``parlour serve`` and ``parlour gateway``).

prometheus_client's ``start_http_server`` answers each connection on a thread
of its own, so a thousand idle connections cost a thousand threads. This is a
tiny HTTP/1.0 responder on asyncio streams instead: it reads one request head
(at most ``MAX_HEAD_BYTES``, within ``READ_SECONDS``), answers ``GET /metrics``
with the registry's text format (anything else 404), and closes; past
``MAX_CONNECTIONS`` open at once, a new connection is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

#: how long a client has to send its request head
READ_SECONDS = 5.0
MAX_HEAD_BYTES = 8192
#: connections served at once; more are closed unanswered
MAX_CONNECTIONS = 64

log = logging.getLogger("parlour")


class MetricsServer:
    """``GET /metrics`` on asyncio; :meth:`start`, then :meth:`close`."""

    def __init__(self) -> None:
        self.open_connections = 0
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self, address: str) -> None:
        host, _, port = address.rpartition(":")
        self._server = await asyncio.start_server(
            self._answer, host or "0.0.0.0", int(port), limit=MAX_HEAD_BYTES
        )
        log.info("metrics at http://%s:%d/metrics", host or "0.0.0.0", self.port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open_connections >= MAX_CONNECTIONS:
            writer.close()
            return
        self.open_connections += 1
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_SECONDS)
            parts = head.split(b"\r\n", 1)[0].split()
            path = parts[1].split(b"?", 1)[0] if len(parts) >= 2 else b""
            if parts[:1] == [b"GET"] and path == b"/metrics":
                status, kind, body = b"200 OK", CONTENT_TYPE_LATEST.encode(), generate_latest()
            else:
                status, kind, body = b"404 Not Found", b"text/plain", b"not found\n"
            writer.write(
                b"HTTP/1.0 " + status + b"\r\nContent-Type: " + kind
                + b"\r\nContent-Length: " + str(len(body)).encode()
                + b"\r\nConnection: close\r\n\r\n" + body
            )  # fmt: skip
            await asyncio.wait_for(writer.drain(), READ_SECONDS)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            pass
        finally:
            self.open_connections -= 1
            writer.close()


async def start_metrics(address: str | None) -> MetricsServer | None:
    """The endpoint at ``address`` (HOST:PORT), started; None when no address is given."""
    if not address:
        return None
    server = MetricsServer()
    await server.start(address)
    return server
