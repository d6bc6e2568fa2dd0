"""The README is true: `make run`'s command starts a working Parlour, and the
README's client example plays a whole game against its bots.

`parlour demo` (what `make run` runs) is started as a process on free ports and
a scratch SQLite file; the Python example is taken from README.md as written,
with only the address changed, and run in a fresh interpreter.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def readme_client_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 1, "the README has one Python example"
    return blocks[0]


def test_make_run_starts_a_parlour_the_readme_example_can_play(tmp_path: Path) -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run:.*\n\t\$\(BIN\)/parlour demo$", makefile, flags=re.MULTILINE)
    address = f"127.0.0.1:{free_port()}"
    web_port = free_port()
    demo = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "parlour.cli",
            "demo",
            "--address",
            address,
            "--web-port",
            str(web_port),
            "--database-url",
            f"sqlite:///{tmp_path / 'demo.sqlite3'}",
            # the README's example plays a whole game against the bots: no pauses for people
            "--think-seconds",
            "0",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert demo.stdout is not None
        banner = ""
        while "Ctrl-C" not in banner:
            line = demo.stdout.readline()
            assert line, f"parlour demo stopped early:\n{banner}"
            banner += line
        assert f"parlour play --server {address}" in banner
        example = readme_client_example().replace("127.0.0.1:50051", address)
        played = subprocess.run(
            [sys.executable, "-c", example + "\nprint('OVER', view.is_over, list(view.winners))"],
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert played.returncode == 0, played.stderr
        assert "OVER True" in played.stdout
        deadline = time.monotonic() + 20
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{web_port}/", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the browser gateway did not start"
                time.sleep(0.2)
        assert page.status_code == 200 and "Parlour" in page.text
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
            raise
