"""Every strategy plays whole games at every seat count and table option without a slip.

The engine rejects any illegal action, so a game played to the end is a game in
which every choice was one of the legal actions offered.
"""

from __future__ import annotations

import pytest

from parlour.ai.eval.match import Clock, play
from parlour.ai.registry import LEVELS, strategy_for

TABLES = [
    ("wizard", 3, {"screw_the_dealer": True}),
    ("wizard", 6, {"rounds": "10"}),
    ("crazy8s", 2, {"draw_until_playable": False, "rounds": 3}),
    ("crazy8s", 5, {"hand_size": "9"}),
    ("crazy8s", 6, {}),
    ("kaiser", 4, {"floor": 8, "no_trump": False, "target": 32}),
    ("kaiser", 4, {"floor": 5}),
    ("hearts", 4, {}),
]


@pytest.mark.parametrize("game, seats, options", TABLES)
def test_every_level_plays_a_whole_game_with_legal_moves_only(
    game: str, seats: int, options: dict[str, object]
):
    levels = LEVELS[game]
    # the expert at a small thinking budget: the moves are as legal, and the test stays fast
    strategies = [
        strategy_for(game, levels[seat % len(levels)], budget=2000) for seat in range(seats)
    ]
    state = play(game, strategies, f"tables:{game}:{seats}", Clock(), options)
    assert state.is_over and state.winners()
