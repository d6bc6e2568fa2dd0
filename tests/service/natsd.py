"""NATS for the tests: the machine's server (``$PARLOUR_TEST_NATS_URL``, default
nats://127.0.0.1:4222), or a ``nats-server`` process of the test's own that it
can stop and start again."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

NATS_URL_ENV = "PARLOUR_TEST_NATS_URL"


def _answers(host: str, port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.settimeout(timeout)
            return conn.recv(4).startswith(b"INFO")  # a NATS server greets first
    except OSError:
        return False


def system_nats_url() -> str:
    """The machine's NATS server; skips the test if none answers."""
    url = os.environ.get(NATS_URL_ENV) or "nats://127.0.0.1:4222"
    parts = urlsplit(url)
    if not _answers(parts.hostname or "127.0.0.1", parts.port or 4222):
        pytest.skip(f"no NATS server at {url} (set {NATS_URL_ENV})")
    return url


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class NatsServer:
    """A ``nats-server`` process on a port of its own, to stop and start again."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [self.binary, "-a", "127.0.0.1", "-p", str(self.port)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while not _answers("127.0.0.1", self.port, timeout=0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nats-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Kill it (no goodbye to its clients, as when it crashes)."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def own_nats_server() -> Iterator[NatsServer]:
    """A started ``nats-server`` of the test's own; skips if the binary is missing."""
    binary = shutil.which("nats-server")
    if binary is None:
        pytest.skip("no nats-server binary on this machine")
    server = NatsServer(binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()
