"""A real uvicorn gateway in front of a running game service, for tests that
speak both gRPC and HTTP to the same server (on either backend)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

from parlour.gateway.app import create_app
from parlour.gateway.http import HttpLimits, server_config


@asynccontextmanager
async def gateway_in_front(
    address: str, limits: HttpLimits | None = None, app: Any = None, **config: Any
) -> AsyncIterator[str]:
    """``http://127.0.0.1:PORT`` of a gateway to the service at ``address`` (or the
    gateway ``app`` made for it), served as ``parlour gateway`` serves it (``config``:
    more uvicorn.Config arguments)."""
    settings = server_config(
        app or create_app(address),
        "127.0.0.1",
        0,
        limits or HttpLimits(),
        log_level="warning",
        **config,
    )
    web = uvicorn.Server(settings)
    task = asyncio.create_task(web.serve())
    while not web.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = web.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        await task
