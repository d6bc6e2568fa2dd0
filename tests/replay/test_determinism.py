"""Every game replays exactly: random full games played through the service,
exported, and replayed from the file in a fresh process, give identical
digests at every event and identical scores.

Two worker processes play the games through the application layer (each on
its own SQLite file), so both cores are busy; as each batch is exported, a
fresh ``parlour replay --json-summary`` process replays it.
``PARLOUR_REPLAY_GAMES`` sets the number of games per kind (default 100;
``make soak`` replays 400).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from parlour.engine.registry import GAME_MODULES
from tests.replay.games import play_job, seat_counts

GAMES_PER_KIND = int(os.environ.get("PARLOUR_REPLAY_GAMES", "100"))
BATCHES = 8
PARLOUR = [sys.executable, "-m", "parlour.cli"]


def batches() -> list[list[tuple[str, int, int]]]:
    """Every (game, seats, seed), dealt round-robin into batches of equal weight."""
    games = [
        (game, seat_counts(game)[number % len(seat_counts(game))], 1000 * index + number)
        for index, game in enumerate(GAME_MODULES)
        for number in range(GAMES_PER_KIND)
    ]
    return [games[start::BATCHES] for start in range(BATCHES)]


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory (/dev/shm) when there is one: the games write ~200k events."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="parlour-replay-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ~160 CPU-seconds: about 85 s on two idle cores; allow for a busy machine
@pytest.mark.timeout(900)
def test_every_game_replays_identically_in_a_fresh_process(scratch: Path) -> None:
    expected: dict[str, dict[str, object]] = {}
    replays: list[subprocess.Popen[str]] = []
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        jobs = [(batch, str(scratch / f"batch{n}")) for n, batch in enumerate(batches())]
        for played in pool.imap_unordered(play_job, jobs):
            files = []
            for record in played:
                expected[str(record["path"])] = record
                files += ["--file", str(record["path"])]
            replays.append(
                subprocess.Popen(
                    [*PARLOUR, "replay", "--json-summary", *files],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
    summaries = {}
    for process in replays:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        for line in out.splitlines():
            summary = json.loads(line)
            summaries[summary["source"]] = summary

    assert len(expected) == GAMES_PER_KIND * len(GAME_MODULES)
    assert summaries.keys() == expected.keys()
    for path, record in expected.items():
        summary = summaries[path]
        replayed = {seq: digest for seq, digest in summary["digests"]}
        stored = record["digests"]
        assert isinstance(stored, list)
        # every deal and every action was recorded with its digest...
        assert len(stored) == record["dealt_or_acted"], path
        # ...and the fresh process recomputed each one identically
        assert all(replayed[seq] == digest for seq, digest in stored), path
        assert summary["checked"] == len(stored), path
        assert summary["finished"], path
        assert summary["scores"] == record["scores"], path
        assert summary["winners"] == record["winners"], path
