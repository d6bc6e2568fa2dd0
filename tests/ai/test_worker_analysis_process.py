"""The analysis end to end through real processes: `parlour serve` (SQLite) and
`parlour worker` with its decision process, judging with the product's own
``parlour.ai.analysis.judge``. A finished game's analysis is asked for, the worker
claims it and settles it: DONE with every person's decision judged, through the
real wiring (the flags, the spawned decision process, the contract)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parlour.client import ParlourClient
from parlour.v1 import analysis_pb2
from tests.service.harness import play_randomly, seated_table
from tests.service.test_analysis import get_analysis, request_analysis

TOKEN = "analysis-process-token"
PARLOUR = [sys.executable, "-m", "parlour.cli"]


def start(args: list[str], log: Path) -> subprocess.Popen[str]:
    with log.open("w", encoding="utf-8") as handle:  # the child keeps its own copy
        return subprocess.Popen(
            [*PARLOUR, *args],
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
            env=dict(os.environ, PARLOUR_WORKER_TOKEN=TOKEN),  # a secret: never in argv
        )


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


@pytest.fixture
def address(tmp_path: Path) -> Iterator[str]:
    log = tmp_path / "serve.log"
    serve = start(
        [
            "serve",
            "--address",
            "127.0.0.1:0",
            "--database-url",
            f"sqlite:///{tmp_path / 'parlour.sqlite3'}",
            "--analysis-lease-seconds",
            "60",
        ],
        log,
    )
    try:
        # no clock of its own: a start that hangs is ended by pytest's timeout
        while not (found := re.search(r"serving on (\S+)", log.read_text())):
            assert serve.poll() is None, log.read_text()
            time.sleep(0.05)
        yield found.group(1)
    finally:
        stop(serve)


async def test_a_worker_process_claims_and_settles_a_finished_games_analysis(
    address: str, tmp_path: Path
) -> None:
    async with ParlourClient(address) as client:
        table = await seated_table(client, "wizard", 3, {"rounds": "5"})
        await play_randomly(table, random.Random(35))
        moves = sum(
            event.type == "ActionTaken"
            for event in (await client.get_replay(table.table_id)).events
        )
        queued = await request_analysis(client, table.table_id)
        assert queued.created
        log = tmp_path / "worker.log"
        worker = start(
            [
                "worker",
                "--server",
                address,
                "--worker-id",
                "analyst",
                "--processes",
                "1",
                "--analysis-budget",
                "4",
                "--wait-seconds",
                "1",
                "--log-level",
                "INFO",
            ],
            log,
        )
        try:
            settled = None
            for _ in range(1200):  # the wait is for the worker to start and judge, not a limit
                found = await get_analysis(client, table.table_id)
                if found.state in (
                    analysis_pb2.ANALYSIS_STATE_DONE,
                    analysis_pb2.ANALYSIS_STATE_FAILED,
                ):
                    settled = found
                    break
                assert worker.poll() is None, log.read_text()
                await asyncio.sleep(0.1)
        finally:
            stop(worker)
    assert settled is not None, log.read_text()
    assert f"analysing table {table.table_id}" in log.read_text()
    assert settled.state == analysis_pb2.ANALYSIS_STATE_DONE, settled.error
    assert len(settled.decisions) == moves  # every seat is a person's
    assert settled.budget == 4 and settled.higher_is_better  # Wizard: more is better
    for decision in settled.decisions:
        assert decision.cost >= 0 and decision.cost_low <= decision.cost <= decision.cost_high
        if decision.best.id == decision.played.id:
            assert decision.cost == 0
    summed = {s.seat: s.given_away for s in settled.summaries}
    for seat, total in summed.items():
        own = sum(d.cost for d in settled.decisions if d.seat == seat)
        assert abs(total - own) < 1e-6
