"""The least work a watched move needs, with no server, no store and no event loop.

Issue 34 asks that a move with every seat watching cost the service at most
1.5 times what ``bench/skeleton.py`` costs (grpc, the event loop, one commit
per Act, canned stream messages): the service's own work beyond the skeleton's
must stay under half of the skeleton's whole. This counts what no design of
the service can leave out of a move, over seeded random legal moves of the
four games at four seats, an equal number each, as ``bench/act_cost.py
--shape watched`` plays them (not the same deals: the service deals its own):

* the rules: the seat's legal actions, and the engine applying the move
  (which checks it);
* the views: the spectator's, and each seat's made from it with only its own
  fields built anew (``GameState.seat_view``, the engines' compiled code);
* the bytes: the shared part of the View, each seat's own part, and the
  move's event, converted and serialized by the contract's own functions.

Left out, so the figure is a floor, not an estimate: the table's facts in
the View (names, clocks, chat), the event's digest chain and its words' other
languages, the append, the log line, the metrics, every check of the caller.

It prints CPU time per move (``time.process_time``, best of ``--repeat``
passes over the same moves, after a pass to warm up). With ``--count`` it
runs itself under valgrind's callgrind twice over the same N moves, once
setting them up only and once doing their work too, and prints the
difference over N: the instructions per move, to set beside ``make
bench-act-cost``'s service and skeleton counts, which are of the same kind.

Run with ``.venv/bin/python bench/move_floor.py [--moves 200] [--count]``
(``make bench-move-floor``). This is a script, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from service import GAMES

from parlour.contract.view import public_view_to_proto, seat_part_to_proto
from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game
from parlour.service.domain.events import ActionTaken
from parlour.service.grpc.convert import public_event
from parlour.service.store.values import StoredEvent


def prepared(moves: int, seed: int) -> list[tuple[GameState, int, Action]]:
    """``moves`` seeded random legal moves, split evenly over the four games (new games
    as games end): each the state before it (a copy), the seat and the action."""
    rng = random.Random(seed)
    steps: list[tuple[GameState, int, Action]] = []
    per_game = -(-moves // len(GAMES))
    for game, seats in GAMES:
        state = new_game(game, seats, None)
        made = 0
        while made < per_game:
            if state.is_over:
                state = new_game(game, seats, None)
            if (cards := state.chance()) is not None:
                state.deal(shuffled(cards, rng))
                continue
            seat = state.to_act()[0]
            action = rng.choice(state.legal_actions(seat))
            steps.append((state.clone(), seat, action))
            state.apply(seat, action)
            made += 1
    return steps[:moves]


def one_move(state: GameState, seat: int, action: Action, seq: int, now: datetime) -> int:
    """The work of one watched move; the bytes it made (so none of it is optimised away)."""
    state.legal_actions(seat)
    state.apply(seat, action)
    event = StoredEvent(
        "floor",
        seq,
        ActionTaken.TYPE.value,
        1,
        ActionTaken(seat, str(action)).payload(),
        "",
        None,
        now,
    )
    made = len(public_event(event, None).SerializeToString())
    public = state.view(None)
    made += len(public_view_to_proto(public).SerializeToString())
    for viewer in range(state.seats):
        made += len(seat_part_to_proto(state.seat_view(viewer, public)).SerializeToString())
    return made


def run(steps: list[tuple[GameState, int, Action]], work: bool = True) -> float:
    """CPU seconds for every step, each on a fresh copy of its state (``work`` False:
    the copies only, for the count to take away)."""
    copies = [(state.clone(), seat, action) for state, seat, action in steps]
    now = datetime.now(UTC)
    started = time.process_time()
    if work:
        for seq, (state, seat, action) in enumerate(copies, start=1):
            one_move(state, seat, action, seq, now)
    return time.process_time() - started


def instructions(moves: int, seed: int, work: bool) -> int:
    """Callgrind's count of the instructions of this script over ``moves`` moves (the
    warm-up pass, and the moves' work only if ``work``)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--moves",
                str(moves),
                "--seed",
                str(seed),
                "--repeat",
                "1" if work else "0",
                "--quiet",
            ],
            check=True,
            capture_output=True,
        )
        text = Path(out).read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    assert found, "no total in callgrind's output"
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--count", action="store_true", help="instructions, under callgrind")
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    steps = prepared(args.moves, args.seed)
    run(steps)  # the warm-up: the first of each kind of word and message is dearer
    if args.quiet:  # under callgrind: the moves' copies and work once, or the copies only
        run(steps, work=args.repeat > 0)
        return
    best = min(run(steps) for _ in range(args.repeat))
    print(
        f"the least work of a watched move ({len(steps)} moves of {len(GAMES)} games, "
        "4 seats and a spectator each)"
    )
    print(f"  CPU per move, best of {args.repeat}:   {best / len(steps) * 1e6:8.1f} µs")
    if args.count:
        base = instructions(args.moves, args.seed, work=False)
        worked = instructions(args.moves, args.seed, work=True)
        per_move = (worked - base) / len(steps)
        print(
            f"  instructions per move (callgrind): {per_move / 1e6:8.3f} M "
            f"({(worked - base) / 1e6:.1f} M for {len(steps)} moves)"
        )


if __name__ == "__main__":
    main()
