"""The expert opponents' decision time where this runs: in the image, or in a
`make run` virtualenv. One hand of each game, an expert in seat 0 against the
normal level, the same deals every run; prints JSON: per game, the expert's
decisions (those with more than one legal action) and their wall-clock and CPU
p50 in ms, and whether the engines are compiled (mypyc) in this Python. The CPU
time is the one to compare on a loaded machine.

    podman run --rm -i parlour:latest python - < deploy/expert_decisions.py
    .venv/bin/python deploy/expert_decisions.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time

from parlour.ai.registry import strategy_for
from parlour.engine import hearts
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game

#: game -> hands played (Wizard's first rounds have few cards: four of them)
HANDS = {"hearts": 1, "wizard": 4, "crazy8s": 1, "kaiser": 1}
SEATS = 4


#: games are played (deal after deal, the same every run) until the expert made this many
AT_LEAST = 12


def decisions(game: str, hands: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each of the expert's real decisions."""
    wall: list[float] = []
    cpu: list[float] = []
    number = 0
    while len(cpu) < AT_LEAST:
        one_game(game, hands, f"expert-decisions:{game}:{number}", wall, cpu)
        number += 1
    return wall, cpu


def one_game(game: str, hands: int, seed: str, wall: list[float], cpu: list[float]) -> None:
    expert = strategy_for(game, "expert")
    players = [expert, *(strategy_for(game, "normal") for _ in range(SEATS - 1))]
    state = new_game(game, SEATS, None)
    deck = random.Random(seed)
    rngs = [random.Random(f"{seed}:{s}") for s in range(SEATS)]
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            if len(state.view(None).hand_scores) >= hands:
                break
            state.deal(shuffled(cards, deck))
            continue
        seat = state.to_act()[0]
        view = state.view(seat)
        start, start_cpu = time.perf_counter(), time.thread_time()
        action = players[seat].choose(view, view.legal_actions, rngs[seat])
        if seat == 0 and len(view.legal_actions) > 1:
            cpu.append(time.thread_time() - start_cpu)
            wall.append(time.perf_counter() - start)
        state.apply(seat, action)


def main() -> int:
    figures: dict[str, object] = {"compiled": hearts.__file__.endswith(".so")}
    for game, hands in HANDS.items():
        wall, cpu = decisions(game, hands)
        figures[game] = {
            "decisions": len(cpu),
            "p50_ms": round(1000 * statistics.median(wall), 1),
            "cpu_p50_ms": round(1000 * statistics.median(cpu), 1),
        }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
