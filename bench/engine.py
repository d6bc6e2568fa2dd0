"""Engine micro-benchmark: random playouts through each engine's Python API.

For every registered game and seat count: full random games per second and
moves per second. Then Hearts against OpenSpiel's ``hearts`` on the same work,
one hand (deal, pass left, 52 plays) with random choices, and the ratio.

Every figure is CPU time of this process (``time.process_time``), so load from
other processes does not count against either side. OpenSpiel is driven the
cheapest way it allows: the pass direction, then the whole deal applied from
one shuffled list of the 52 card actions (no ``chance_outcomes()`` calls), then
random legal actions -- the same work Parlour does from one shuffled deck.
The two run in alternating short rounds in the same process. Parlour's Hearts
engine is measured as installed: compiled with mypyc when ``make install``
found a C compiler (see setup.py), and the report says which.

Run with ``.venv/bin/python bench/engine.py [--seconds 2]`` (``make bench-engine``).
OpenSpiel is the optional ``bench`` extra (``pip install -e '.[bench]'``); without
it the comparison is skipped with a note. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from parlour.engine.base import GameState
from parlour.engine.registry import GAME_MODULES, GameInfo, get_game

# OpenSpiel's first chance node picks the pass direction; "Left" matches our hand 1.
OPENSPIEL_PASS_LEFT = 1
ROUNDS = 8


class Meter:
    """Runs, units (moves) and seconds accumulated over one or more timed rounds."""

    def __init__(self) -> None:
        self.runs = self.units = 0
        self.seconds = 0.0

    def run_for(self, seconds: float, run_once: Callable[[], int]) -> Meter:
        start = time.process_time()
        deadline = start + seconds
        while True:
            self.units += run_once()
            self.runs += 1
            now = time.process_time()
            if now >= deadline:
                self.seconds += now - start
                return self

    @property
    def runs_per_second(self) -> float:
        return self.runs / self.seconds

    @property
    def units_per_second(self) -> float:
        return self.units / self.seconds


def random_game(info: GameInfo, seats: int, rng: random.Random) -> int:
    """Play one full game with random legal moves; return the number of moves."""
    state = info.new(seats, {})
    moves = 0
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            deck = list(cards)
            rng.shuffle(deck)
            state.deal(deck)
            continue
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        moves += 1
    return moves


def our_hearts_hand(info: GameInfo, rng: random.Random) -> int:
    """One Hearts hand from a new game: the deal, the pass and 52 plays."""
    state: GameState = info.new(4, {})
    deck = list(state.chance() or ())
    rng.shuffle(deck)
    state.deal(deck)
    moves = 0
    while state.chance() is None:  # the next deal is due when the hand is over
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        moves += 1
    return moves


OPENSPIEL_DECK = list(range(52))


def openspiel_hearts_hand(game: Any, rng: random.Random) -> int:
    """The same work through OpenSpiel, its cheapest way: the deal from one shuffled list."""
    state = game.new_initial_state()
    state.apply_action(OPENSPIEL_PASS_LEFT)
    deck = OPENSPIEL_DECK[:]
    rng.shuffle(deck)
    for card in deck:  # dealt one at a time round the table, like a shuffled deck
        state.apply_action(card)
    moves = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        moves += 1
    return moves


def bench_games(seconds: float) -> None:
    print(f"{'game':<10}{'seats':>6}{'games/s':>12}{'moves/s':>14}")
    for game in GAME_MODULES:
        try:
            info = get_game(game)
        except Exception as error:  # a game not written yet must not stop the others
            print(f"{game:<10} skipped: cannot load ({type(error).__name__}: {error})")
            continue
        for seats in range(info.min_seats, info.max_seats + 1):
            rng = random.Random(seats)
            meter = Meter().run_for(seconds, lambda: random_game(info, seats, rng))  # noqa: B023
            games, moves = meter.runs_per_second, meter.units_per_second
            print(f"{game:<10}{seats:>6}{games:>12,.1f}{moves:>14,.0f}")


def bench_hearts_against_openspiel(seconds: float) -> None:
    print("\nHearts: random hands (deal, pass left, 52 plays) per CPU second")
    try:
        info = get_game("hearts")
    except Exception as error:
        print(f"skipped: Hearts cannot load ({type(error).__name__}: {error})")
        return
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        pyspiel = None
    rng = random.Random(1)
    ours, theirs = Meter(), Meter()
    game = pyspiel.load_game("hearts") if pyspiel is not None else None
    # Alternate short rounds so that load from other processes falls on both alike.
    for _ in range(ROUNDS):
        ours.run_for(seconds / ROUNDS, lambda: our_hearts_hand(info, rng))
        if game is not None:
            theirs.run_for(seconds / ROUNDS, lambda: openspiel_hearts_hand(game, rng))
    import parlour.engine.hearts as engine_module

    compiled = engine_module.__file__ is not None and engine_module.__file__.endswith(".so")
    print(f"parlour's Hearts engine: {'compiled with mypyc' if compiled else 'plain Python'}")
    report("parlour", ours)
    if game is None:
        print("openspiel skipped: not installed (pip install -e '.[bench]')")
        return
    report("openspiel", theirs)
    print(f"ratio parlour/openspiel: {ours.runs_per_second / theirs.runs_per_second:.2f}x")


def report(name: str, meter: Meter) -> None:
    hands, moves = meter.runs_per_second, meter.units_per_second
    print(f"{name:<10}{hands:>12,.0f} hands/s{moves:>14,.0f} moves/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per case (default 2)")
    parser.add_argument("--only-hearts", action="store_true", help="just the OpenSpiel comparison")
    args = parser.parse_args()
    if not args.only_hearts:
        bench_games(args.seconds)
    bench_hearts_against_openspiel(args.seconds)


if __name__ == "__main__":
    main()
