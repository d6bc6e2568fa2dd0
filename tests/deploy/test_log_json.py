"""With ``--log-json`` every line a process writes to stderr is a JSON object: gRPC's
C core, which writes its own plain-text lines (a TLS handshake that fails, for one),
is silenced (``GRPC_VERBOSITY=NONE`` before grpc is imported) unless the operator set
``GRPC_VERBOSITY`` themselves. A plaintext client knocking at a TLS replica is the
handshake failure here; without --log-json the C core's line is still written."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trustme

from tests.service.natsd import _free_port

PATIENCE = 60.0


def serve(tmp_path: Path, *flags: str, env: dict[str, str] | None = None) -> str:
    """Run parlour serve over TLS, knock with plaintext bytes, stop it; its stderr."""
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    cert.write_bytes(b"".join(b.bytes() for b in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(key))
    port = _free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PARLOUR_", "GRPC_"))}
    environment.update(env or {})
    command = [sys.executable, "-m", "parlour.cli", "serve", "--address", f"127.0.0.1:{port}"]
    command += ["--database-url", f"sqlite:///{tmp_path / 'p.db'}"]
    command += ["--tls-cert", str(cert), "--tls-key", str(key), *flags]
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as sink:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink, env=environment)
        try:
            deadline = time.monotonic() + PATIENCE
            while True:
                assert process.poll() is None, stderr.read_text()
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1) as knock:
                        knock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0" * 64)
                        knock.settimeout(5)
                        knock.recv(100)  # returns once the server gave up on the handshake
                    break
                except OSError:
                    assert time.monotonic() < deadline, "parlour serve never listened"
                    time.sleep(0.2)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(PATIENCE)
    return stderr.read_text()


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_log_json_makes_every_stderr_line_json(tmp_path: Path, how: str) -> None:
    if how == "flag":
        text = serve(tmp_path, "--log-json")
    else:
        text = serve(tmp_path, env={"PARLOUR_LOG_JSON": "1"})
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines, "parlour serve logged nothing"
    for line in lines:
        record = json.loads(line)  # fails on a plain-text line
        assert isinstance(record, dict), line


def test_without_log_json_the_c_core_still_says_what_failed(tmp_path: Path) -> None:
    text = serve(tmp_path)
    assert "andshake" in text or "ssl" in text.lower(), text


@pytest.mark.parametrize("verbosity", ["INFO"])
def test_an_operator_s_own_grpc_verbosity_is_kept(tmp_path: Path, verbosity: str) -> None:
    text = serve(tmp_path, "--log-json", env={"GRPC_VERBOSITY": verbosity})
    assert any(not line.startswith("{") for line in text.splitlines() if line.strip()), text
