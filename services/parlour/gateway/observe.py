"""Metrics and a log line for every request the gateway answers (an ASGI middleware).

Requests are labelled by route, not by path: ``/api/PlayService/Act``,
``/api`` or ``static`` (the page, its scripts and styles), so the label set stays
small whatever browsers ask for. Watch streams are counted while they are open.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from parlour.gateway.app import contract_rpcs

log = logging.getLogger("parlour.gateway")

Scope = dict[str, Any]
Receive = Any
Send = Any

REQUESTS = Counter(
    "parlour_gateway_requests", "HTTP requests answered, by route and status", ["route", "status"]
)
SECONDS = Histogram(
    "parlour_gateway_request_seconds",
    "time to answer an HTTP request (to the end of the stream for Watch), by route",
    ["route"],
)
STREAMS = Gauge("parlour_gateway_watch_streams", "server-sent-event Watch streams open now")


#: every route label of the contract's RPCs
KNOWN = frozenset(f"/api/{service}/{method}" for service, method in contract_rpcs())


def route_of(path: str) -> str:
    """The route label of a request path (a bounded set, whatever the path)."""
    if path in KNOWN or path == "/api":
        return path
    return "/api/unknown" if path.startswith("/api/") else "static"


class ObservingMiddleware:
    """Wraps the gateway's ASGI app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = route_of(scope["path"])
        streaming = route.endswith("/Watch")
        status = 500
        began = time.perf_counter()

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        if streaming:
            STREAMS.inc()
        try:
            await self.app(scope, receive, sending)
        finally:
            if streaming:
                STREAMS.dec()
            seconds = time.perf_counter() - began
            REQUESTS.labels(route, str(status)).inc()
            SECONDS.labels(route).observe(seconds)
            if route != "static":
                log.info(
                    "%s %s %d",
                    scope["method"],
                    route,
                    status,
                    extra={
                        "route": route,
                        "status": status,
                        "duration_ms": round(seconds * 1e3, 2),
                    },
                )
