"""The real stack for the browser tests, and a real headless Chromium.

``parlour serve`` on a SQLite file, one ``parlour worker`` (three slots, with
a short think time, as people would see it; bots only, no analyses) and ``parlour
gateway`` run as separate processes on free loopback ports, the way ``parlour
demo`` runs them. The
browser is Debian's ``chromium`` driven by Playwright through its
``executable_path``: never a downloaded browser. Without Chromium or
Playwright the tests are skipped, except under ``CI=true`` where that fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.announced import BROWSER_CLIENT_ON, SERVING_ON, announced

CHROMIUM = os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
#: Screenshots for people to look at (git-ignored).
ARTIFACTS = ROOT / "test-artifacts" / "web"


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true needs the browser tests' Chromium: {reason}", pytrace=False)
    pytest.skip(reason)


def _wait(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {timeout} s")


#: The worker token of the stack's service (a test may claim work as a worker does).
WORKER_TOKEN = "browser-tests-worker-token"


#: the folders of the stacks started in this session, whose logs a failure report shows
_STACK_FOLDERS: list[Path] = []
#: lines of each log a failure report shows (the worker's, the service's warnings)
LOG_TAIL = 40


def _log_tail(path: Path, keep: Callable[[str], bool] | None = None) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as error:
        return f"({error})"
    if keep is not None:
        lines = [line for line in lines if keep(line)]
    return "\n".join(lines[-LOG_TAIL:]) or "(nothing)"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed browser test's report shows the stack's logs: what the AI worker and
    the game service said last (a bot that stopped playing is otherwise a mystery
    once CI's temporary folders are gone)."""
    report = yield
    if report.failed and _STACK_FOLDERS:
        for where in _STACK_FOLDERS:
            worker = _log_tail(where / "worker.log")
            report.sections.append((f"{where.name}/worker.log (last {LOG_TAIL} lines)", worker))
            report.sections.append(
                (
                    f"{where.name}/serve.log (its last {LOG_TAIL} lines not at INFO)",
                    _log_tail(where / "serve.log", lambda line: " INFO " not in line),
                )
            )
    return report


class Stack(str):
    """The gateway's base URL, which also knows the game service's gRPC address."""

    address: str

    def __new__(cls, base: str, address: str) -> Stack:
        made = super().__new__(cls, base)
        made.address = address
        return made


@pytest.fixture(scope="session")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The gateway's base URL (a ``Stack``), with a game service and an AI worker behind it."""
    where = tmp_path_factory.mktemp("web")
    _STACK_FOLDERS.append(where)
    env = dict(
        os.environ,
        PARLOUR_WORKER_TOKEN=WORKER_TOKEN,
        # one address hosts and joins for every test of the session, faster than people do
        PARLOUR_HOST_PER_MINUTE="1000",
        PARLOUR_JOIN_PER_MINUTE="1000",
        PARLOUR_SIGN_IN_PER_MINUTE="1000",
        PARLOUR_DEVICES_PER_MINUTE="1000",
        # the tests' own calls (playing a seat through the gateway) and every open page's
        # polls share the one address too
        PARLOUR_VIEW_PER_SECOND="1000",
        PARLOUR_ACT_PER_SECOND="1000",
    )
    parlour = [sys.executable, "-m", "parlour.cli"]
    children: list[subprocess.Popen[bytes]] = []

    def start(name: str, *command: str) -> subprocess.Popen[bytes]:
        log = (where / f"{name}.log").open("wb")
        child = subprocess.Popen(
            [*parlour, *command], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        children.append(child)
        return child

    try:
        serve = start(
            "serve", "serve", "--address", "127.0.0.1:0", "--database-url", f"sqlite:///{where}/db"
        )
        address = announced(where / "serve.log", SERVING_ON, serve)
        # bots only: the browser tests that need an analysis judge it themselves, with
        # known numbers to check the page against (tests/web/test_replay_analysis.py)
        # every claim and move logged: a failure report shows the worker's last ones;
        # three slots, as a deployment runs several, so that the all-bot games some
        # tests wait for are played side by side and a turn that holds one slot up
        # does not hold up every other table's bots
        start(
            "worker",
            "worker",
            "--server",
            address,
            "--think-seconds",
            "0.05",
            "--concurrency",
            "3",
            "--no-analysis",
            "--log-level",
            "DEBUG",
        )
        gateway = start("gateway", "gateway", "--server", address, "--port", "0")
        base = announced(where / "gateway.log", BROWSER_CLIENT_ON, gateway)
        _wait(lambda: httpx.get(base + "/").status_code == 200, "parlour gateway")
        yield Stack(base, address)
    finally:
        for child in children:
            child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        _STACK_FOLDERS.remove(where)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium under Playwright.

    Module-scoped: Playwright's sync API keeps an event loop running in this
    thread while it is open, which the async tests of other modules must not meet.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[test]')")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
