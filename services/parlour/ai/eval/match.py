"""One game between computer opponents, refereed by the engine, with no service.

Every seat is driven by the same strategy code the AI worker runs (or by a
``TableSeat``, a player that reads the table itself, like OpenSpiel's ISMCTS),
the outcome of chance comes from seeded shuffles, and the ``Clock`` keeps how
long each strategy took to choose each move.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from parlour.ai.common import Strategy
from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game


class Clock:
    """Time spent choosing each move, per strategy: wall-clock and CPU.

    The wall-clock time is what a player waits (and what the target is
    checked on); the CPU time is the strategy's own cost, unaffected by
    whatever else the machine is running.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.cpu_seconds: dict[str, list[float]] = defaultdict(list)

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for name, times in sorted(self.seconds.items()):
            ordered = sorted(times)
            cpu = sorted(self.cpu_seconds[name])
            out[name] = {
                "moves": len(ordered),
                "p50_ms": 1000 * quantile(ordered, 0.50),
                "p99_ms": 1000 * quantile(ordered, 0.99),
                "max_ms": 1000 * ordered[-1],
                "cpu_p50_ms": 1000 * quantile(cpu, 0.50),
                "cpu_p99_ms": 1000 * quantile(cpu, 0.99),
            }
        return out


def quantile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of sorted values."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@runtime_checkable
class TableSeat(Protocol):
    """A player that is not a Parlour strategy and needs the table itself (OpenSpiel's
    ISMCTS reads the game mirrored into OpenSpiel, and samples from its own seat's view)."""

    @property
    def name(self) -> str: ...

    def choose_at(self, state: GameState, seat: int, rng: random.Random) -> Action: ...


def play(
    game: str,
    strategies: Sequence[Strategy | TableSeat],
    seed: str,
    clock: Clock,
    options: dict[str, object] | None = None,
    hands: int | None = None,
) -> GameState:
    """Play one game to the end (or to the end of ``hands`` hands).

    Seat ``s`` is driven by ``strategies[s]``. The deck shuffles come from
    ``seed`` alone, so two games with the same seed are dealt the same cards
    hand by hand, whoever sits where.
    """
    state = new_game(game, len(strategies), options)
    deck_rng = random.Random(f"{seed}:deck")
    seat_rngs = [random.Random(f"{seed}:seat{s}") for s in range(len(strategies))]
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            if hands is not None and len(state.view(None).hand_scores) >= hands:
                break
            state.deal(shuffled(cards, deck_rng))
            continue
        seat = state.to_act()[0]
        strategy = strategies[seat]
        start, start_cpu = time.perf_counter(), time.thread_time()
        if isinstance(strategy, TableSeat):
            action = strategy.choose_at(state, seat, seat_rngs[seat])
        else:
            view = state.view(seat)
            action = strategy.choose(view, view.legal_actions, seat_rngs[seat])
        clock.cpu_seconds[strategy.name].append(time.thread_time() - start_cpu)
        clock.seconds[strategy.name].append(time.perf_counter() - start)
        state.apply(seat, action)
    return state
