"""Duplicate-deal matches between opponents, for ``parlour selfplay``.

Every comparison here plays the same deals from every seating of the two
sides, so the luck of the cards falls on both alike, and counts each deal
(all its seatings together) as ONE sample: the intervals are over deals, and
the differences are paired per deal. Table-mates' results, which are
correlated, are never counted as separate samples.

- Hearts: side A in seats 0 and 2, side B in 1 and 3, then the other way
  round; a deal is one round of the passing cycle (four hands). The figure is
  A's points per hand per seat minus B's (negative: A is better).
- Wizard: four seats all of one level against four seats all of the other, on
  the same shuffles: exact bids and points per round per seat, paired per game.
- Kaiser (partnerships) and Crazy 8s (heads-up): A's share of the wins over
  both seatings of each deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from parlour.engine.base import GameState

Report = dict[str, Any]
#: (game, seats' players, seed text, hands or None) -> the finished game
Play = Callable[[str, Sequence[Any], str, int | None], GameState]
Stats = Callable[[Sequence[float]], dict[str, float]]
Progress = Callable[[int, str], Any]

HEARTS_DEAL_HANDS = 4  # one round of the passing cycle


def hearts(
    play: Play,
    side_a: Any,
    side_b: Any,
    deals: int,
    seed: str,
    stats: Stats,
    progress: Progress,
) -> Report:
    """Points per hand per seat of A and of B, and A minus B, over duplicate deals."""
    a_points: list[float] = []
    b_points: list[float] = []
    with progress(deals, f"hearts {side_a.name} v {side_b.name}") as bar:
        for deal in range(deals):
            a_taken: list[int] = []
            b_taken: list[int] = []
            for a_seats in ((0, 2), (1, 3)):
                players = [side_a if s in a_seats else side_b for s in range(4)]
                state = play("hearts", players, f"{seed}:{deal}", HEARTS_DEAL_HANDS)
                for scores in state.view(None).hand_scores:
                    for s in range(4):
                        (a_taken if s in a_seats else b_taken).append(scores[s])
            a_points.append(sum(a_taken) / len(a_taken))
            b_points.append(sum(b_taken) / len(b_taken))
            bar.update(1)
    return {
        "a": side_a.name,
        "b": side_b.name,
        "deals": deals,
        "hands": deals * 2 * HEARTS_DEAL_HANDS,
        "a_points_per_hand": stats(a_points),
        "b_points_per_hand": stats(b_points),
        "a_minus_b": stats([a - b for a, b in zip(a_points, b_points, strict=True)]),
    }


def wizard(
    play: Play,
    side_a: Any,
    side_b: Any,
    games: int,
    seats: int,
    seed: str,
    stats: Stats,
    progress: Progress,
) -> Report:
    """All-A tables against all-B tables on the same shuffles, paired per game."""
    per_side: dict[str, dict[str, list[float]]] = {
        "a": {"exact": [], "points": []},
        "b": {"exact": [], "points": []},
    }
    bids = {"a": 0, "b": 0}
    with progress(games, f"wizard {side_a.name} v {side_b.name}") as bar:
        for game in range(games):
            for key, side in (("a", side_a), ("b", side_b)):
                state = play("wizard", [side] * seats, f"{seed}:{game}", None)
                rounds = state.view(None).hand_scores
                results = [score for scores in rounds for score in scores]
                per_side[key]["exact"].append(sum(1 for r in results if r > 0) / len(results))
                per_side[key]["points"].append(sum(results) / len(results))
                bids[key] += len(results)
            bar.update(1)
    report: Report = {"a": side_a.name, "b": side_b.name, "games": games, "seats": seats}
    for key in ("a", "b"):
        report[f"{key}_bids"] = bids[key]
        report[f"{key}_exact"] = stats(per_side[key]["exact"])
        report[f"{key}_points_per_round"] = stats(per_side[key]["points"])
    report["a_minus_b_points"] = stats(
        [a - b for a, b in zip(per_side["a"]["points"], per_side["b"]["points"], strict=True)]
    )
    return report


def wins(
    play: Play,
    game: str,
    side_a: Any,
    side_b: Any,
    deals: int,
    seed: str,
    stats: Stats,
    progress: Progress,
) -> Report:
    """A's share of the wins, each deal played from both seatings (Kaiser or Crazy 8s)."""
    seatings = {
        "kaiser": ((0, 2), (1, 3)),
        "crazy8s": ((0,), (1,)),
    }[game]
    seats = 4 if game == "kaiser" else 2
    shares: list[float] = []
    with progress(deals, f"{game} {side_a.name} v {side_b.name}") as bar:
        for deal in range(deals):
            won = 0.0
            for a_seats in seatings:
                players = [side_a if s in a_seats else side_b for s in range(seats)]
                state = play(game, players, f"{seed}:{deal}", None)
                winners = set(state.winners())
                if winners:
                    won += len(winners & set(a_seats)) / len(winners)
            shares.append(won / len(seatings))
            bar.update(1)
    return {
        "a": side_a.name,
        "b": side_b.name,
        "deals": deals,
        "games": deals * len(seatings),
        "a_win_share": stats(shares),
    }


def seeded(seed: str) -> random.Random:
    return random.Random(seed)
