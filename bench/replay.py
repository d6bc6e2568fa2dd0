"""Replay benchmark: how fast a game is rebuilt from its event log.

For each game, logs of random full games in the service's own format (the
current schema versions, a chained digest on every deal and action, every deal
committed with its salt revealed) are replayed
with ``parlour.replay.check``: events per second with every digest and every deal's
commitment checked, and
without checks (the bare fold). Then the time to rebuild one full six-player
Wizard game (every round, 60 cards): in process, checked and unchecked, and
in a fresh process from an exported file (``parlour replay --file
--json-summary``, Python start-up included).

Run with ``.venv/bin/python bench/replay.py [--games 20]`` (``make bench-replay``).
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
from typing import Any

from parlour.engine.registry import get_game
from parlour.replay.check import replay, write_log
from parlour.service.domain import deals
from parlour.service.domain.events import CardsDealt
from parlour.service.domain.fold import Folded
from parlour.service.domain.upcast import current_version
from parlour.service.store.protocol import StoredEvent

SETTINGS: dict[str, tuple[int, dict[str, Any]]] = {
    "wizard": (6, {}),
    "crazy8s": (4, {"rounds": 3}),
    "kaiser": (4, {}),
    "hearts": (4, {}),
}
_NOW = datetime.now(UTC)


def recorded_game(game: str, seats: int, options: dict[str, Any], seed: int) -> list[StoredEvent]:
    """A random full game's log, as the service records one."""
    rng = random.Random(seed)
    resolved = get_game(game).resolve(seats, options)
    events: list[StoredEvent] = []

    def record(kind: str, payload: dict[str, Any], digest: str = "") -> None:
        version = current_version(kind)
        events.append(
            StoredEvent("bench", len(events) + 1, kind, version, payload, digest, None, _NOW)
        )

    record(
        "TableHosted",
        {
            "game": game,
            "seats": seats,
            "options": resolved,
            "seat_kinds": ["bot"] * seats,
            "bot_levels": [""] * seats,
            "name": f"bench {game}",
        },
    )
    record("GameStarted", {})
    folded = Folded(state=get_game(game).new(seats, resolved))
    state = folded.state
    assert state is not None
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            deck = list(cards)
            rng.shuffle(deck)
            state.deal(deck)
            codes = tuple(str(card) for card in deck)
            salt = f"{rng.getrandbits(256):064x}"  # committed, as the service deals
            dealt = CardsDealt(codes, folded.deals, salt, deals.commitment(codes, salt))
            folded.deals += 1
            payload = dealt.payload()
            record("CardsDealt", payload, folded.digest_next("CardsDealt", payload))
            continue
        seat = state.to_act()[0]
        action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        payload = {"seat": seat, "action": str(action)}
        record("ActionTaken", payload, folded.digest_next("ActionTaken", payload))
    record("GameFinished", {"scores": list(state.scores()), "winners": list(state.winners())})
    return events


def rebuild(events: list[StoredEvent], check: bool, repeats: int = 1) -> float:
    """Seconds to fold the whole log (checking every digest if ``check``), best of ``repeats``.

    The best time is the least disturbed by other work on the machine.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _step in replay(events, check=check):
            pass
        best = min(best, time.perf_counter() - start)
    return best


def events_per_second(games: int) -> None:
    print(f"Replay speed ({games} random full games each; events per second):")
    print(f"  {'game':<9} {'seats':>5} {'events/game':>12} {'checked':>10} {'unchecked':>10}")
    for game, (seats, options) in SETTINGS.items():
        logs = [recorded_game(game, seats, options, seed) for seed in range(games)]
        count = sum(len(log) for log in logs)
        checked = sum(rebuild(log, True, repeats=5) for log in logs)
        bare = sum(rebuild(log, False, repeats=5) for log in logs)
        print(
            f"  {game:<9} {seats:>5} {count / games:>12.0f} "
            f"{count / checked:>10,.0f} {count / bare:>10,.0f}"
        )


def six_player_wizard(runs: int) -> None:
    log = recorded_game("wizard", 6, {}, seed=2024)
    checked = [rebuild(log, True) * 1000 for _ in range(runs)]
    bare = [rebuild(log, False) * 1000 for _ in range(runs)]
    print(f"\nA full six-player Wizard game ({len(log)} events, 10 rounds), {runs} rebuilds:")
    print(f"  every digest checked: best {min(checked):6.1f} ms, median {median(checked):6.1f} ms")
    print(f"  no checks:            best {min(bare):6.1f} ms, median {median(bare):6.1f} ms")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "wizard6.jsonl"
        with path.open("w", encoding="utf-8") as out:
            write_log(log, out)
        command = [sys.executable, "-m", "parlour.cli", "replay", "--json-summary", "--file"]
        walls = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([*command, str(path)], check=True, capture_output=True)
            walls.append((time.perf_counter() - start) * 1000)
    print(f"  fresh process, from the file: best {min(walls):4.0f} ms (Python start-up included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per kind (default 20)")
    parser.add_argument("--runs", type=int, default=20, help="rebuilds of the Wizard game")
    args = parser.parse_args()
    events_per_second(args.games)
    six_player_wizard(args.runs)


if __name__ == "__main__":
    main()
