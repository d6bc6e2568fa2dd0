"""``parlour export`` and ``parlour replay`` from the command line."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from parlour.replay.check import export_game, load_log, parse_log, summarize, write_log
from parlour.service.store.protocol import EventStore, StoredEvent
from tests.replay.games import load_into_store, open_store

PARLOUR = [sys.executable, "-m", "parlour.cli"]


def parlour(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PARLOUR, *args], input=stdin, capture_output=True, text=True, timeout=120
    )


async def test_export_then_replay_from_the_file_tells_the_same_game_as_the_database(
    sqlite_store: EventStore, service_logs: dict[str, list[StoredEvent]], tmp_path: Path
) -> None:
    events = service_logs["kaiser"]
    await load_into_store(sqlite_store, events, "table-1")
    path = tmp_path / "kaiser.jsonl"
    exported = parlour("export", "table-1", "--database-url", sqlite_store.url, "-o", str(path))
    assert exported.returncode == 0, exported.stderr
    assert f"exported {len(events)} events" in exported.stderr
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [set(json.loads(line)) for line in lines] == [
        {"seq", "type", "schema_version", "payload", "digest"}
    ] * len(events)
    assert load_log(path)[-1].payload == events[-1].payload

    from_file = parlour("replay", "--file", str(path))
    from_database = parlour("replay", "table-1", "--database-url", sqlite_store.url)
    assert from_file.returncode == from_database.returncode == 0, from_file.stderr
    assert from_file.stdout == from_database.stdout
    story = from_file.stdout
    # seats by their players' names, cards as people say them
    assert re.search(r"Hand 1: \S.* deals", story) and "trick 1 to " in story
    assert "seat 0" not in story and not re.search(r"\b[2-9TJQKA][CDHS]\b", story)
    assert "hand 1 scores:" in story and "Game over. Final scores:" in story


def test_stepping_without_a_terminal_just_carries_on(
    service_logs: dict[str, list[StoredEvent]], tmp_path: Path
) -> None:
    path = tmp_path / "hearts.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_log(service_logs["hearts"], out)
    stepped = parlour("replay", "--file", str(path), "--step", "--seat", "2", stdin="")
    assert stepped.returncode == 0, stepped.stderr
    assert "(replayed as seat 2 saw it)" in stepped.stdout  # --seat counts from 1
    assert "Game over." in stepped.stdout
    assert re.search(r"\n  \S[^\n]* chooses a card to pass", stepped.stdout)
    assert re.search(r"\(you\) chooses (10|[2-9JQKA])[♣♦♥♠] to pass", stepped.stdout)


def test_a_seat_the_table_does_not_have_is_refused() -> None:
    path = Path(__file__).parent / "data" / "wizard_v1_deals.jsonl"
    refused = parlour("replay", "--file", str(path), "--seat", "7")
    assert refused.returncode != 0
    assert "not 7" in refused.stderr


def test_seats_count_from_one_and_zero_is_refused() -> None:
    path = Path(__file__).parent / "data" / "wizard_v1_deals.jsonl"
    first = parlour("replay", "--file", str(path), "--seat", "1")
    assert first.returncode == 0 and "(replayed as seat 1 saw it)" in first.stdout
    zero = parlour("replay", "--file", str(path), "--seat", "0")
    assert zero.returncode == 2 and "counts from 1" in zero.stderr
    assert "Traceback" not in zero.stderr
    assert "seats count from 1" in " ".join(parlour("replay", "--help").stdout.split())


def test_outside_the_project_folder_export_and_replay_say_there_is_no_database(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PARLOUR_DATABASE_URL"}
    for command in (["export", "t1"], ["replay", "t1"]):
        ran = subprocess.run(
            [*PARLOUR, *command], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
        )
        assert ran.returncode == 1, ran.stderr
        lines = ran.stderr.strip().splitlines()
        assert len(lines) == 1 and "no database at" in lines[0] and "--database-url" in lines[0]
    assert list(tmp_path.iterdir()) == []  # no empty parlour.sqlite3 left behind
    (tmp_path / "other.sqlite3").touch()  # a file, but not a Parlour database
    ran = parlour("export", "t1", "--database-url", f"sqlite:///{tmp_path / 'other.sqlite3'}")
    assert ran.returncode == 1 and "holds no Parlour tables" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_export_of_an_unknown_table_says_so(sqlite_store: EventStore) -> None:
    missing = parlour("export", "nope", "--database-url", sqlite_store.url)
    assert missing.returncode == 1 and "no table 'nope'" in missing.stderr


def test_stepping_at_a_terminal_waits_for_enter_and_stops_on_q() -> None:
    path = Path(__file__).parent / "data" / "wizard_v1_deals.jsonl"
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*PARLOUR, "replay", "--file", str(path), "--step"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(terminal)
    os.write(controller, b"\n\nq\n")  # after events 1 and 2: Enter; after event 3: q
    out, err = process.communicate(timeout=60)
    os.close(controller)
    assert process.returncode == 0, err
    assert out.splitlines()[-2:] == ["Ada sits down at seat 1", "Player 1 sits down at seat 2"]
    assert "Game over" not in out


async def test_a_game_exports_to_the_same_bytes_from_either_database(
    store_url: str, service_logs: dict[str, list[StoredEvent]]
) -> None:
    events = service_logs["hearts"]
    store = open_store(store_url)
    try:
        await load_into_store(store, events, "table-1")
        exported = io.StringIO()
        await export_game(store, "table-1", exported)
        replayed = summarize(load_log_text(exported.getvalue()))
    finally:
        await store.close()
    expected = io.StringIO()
    write_log(events, expected)
    assert exported.getvalue() == expected.getvalue()
    assert replayed["finished"] and replayed["checked"] > 0


def load_log_text(text: str) -> list[StoredEvent]:
    return parse_log(text.splitlines(), "exported")
