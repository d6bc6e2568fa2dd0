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
import threading
from pathlib import Path

import pytest
import trustme

PATIENCE = 60.0


def serve(tmp_path: Path, *flags: str, env: dict[str, str] | None = None) -> str:
    """Run parlour serve over TLS, knock with plaintext bytes, stop it; its stderr."""
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    cert.write_bytes(b"".join(b.bytes() for b in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(key))
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PARLOUR_", "GRPC_"))}
    environment.update(env or {})
    # port 0: the server picks a free port and prints it, so the knock reaches this
    # server and no other (a port chosen here first could be taken by a test beside it)
    command = [sys.executable, "-m", "parlour.cli", "serve", "--address", "127.0.0.1:0"]
    command += ["--database-url", f"sqlite:///{tmp_path / 'p.db'}"]
    command += ["--tls-cert", str(cert), "--tls-key", str(key), *flags]
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=sink, env=environment, text=True
        )
        try:
            port = _listening_port(process, stderr)
            with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as knock:
                knock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0" * 64)
                knock.settimeout(PATIENCE)
                knock.recv(100)  # returns once the server gave up on the handshake
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(PATIENCE)
    return stderr.read_text()


def _listening_port(process: subprocess.Popen[str], stderr: Path) -> int:
    """The port ``parlour serve`` says it listens on (``parlour: serving on HOST:PORT``)."""
    assert process.stdout is not None
    found: list[int] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if "serving on " in line:
                found.append(int(line.split("serving on ", 1)[1].split()[0].rsplit(":", 1)[1]))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(PATIENCE)
    assert found, f"parlour serve never said where it listens: {stderr.read_text()}"
    return found[0]


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
