"""Find a computer opponent by game and level."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from parlour.ai import (
    crazy8s,
    crazy8s_expert,
    hearts,
    kaiser,
    kaiser_expert,
    wizard,
    wizard_expert,
)
from parlour.ai.common import Decide, NamedStrategy, Strategy, choose_randomly
from parlour.engine.actions import Action

#: The levels each game offers, weakest first. "random" is the baseline.
LEVELS: dict[str, tuple[str, ...]] = {
    "wizard": ("random", "normal", "expert"),
    "crazy8s": ("random", "normal", "expert"),
    "kaiser": ("random", "normal", "expert"),
    "hearts": ("random", "easy", "normal", "hard", "expert"),
}

#: Games with a single real level accept the Hearts level names for it.
ALIASES = {"easy": "normal", "hard": "normal"}

_DECIDERS: dict[tuple[str, str], Decide] = {
    ("wizard", "normal"): wizard.decide,
    ("crazy8s", "normal"): crazy8s.decide,
    ("kaiser", "normal"): kaiser.decide,
    ("hearts", "easy"): hearts.decide_easy,
    ("hearts", "normal"): hearts.decide_normal,
    ("hearts", "hard"): hearts.decide_hard,
}

#: The search levels, each taking a thinking budget (simulated card plays per decision).
_SEARCHERS: dict[tuple[str, str], tuple[Callable[..., Action], int]] = {
    ("wizard", "expert"): (wizard_expert.decide_expert, wizard_expert.EXPERT_BUDGET),
    ("hearts", "expert"): (hearts.decide_expert, hearts.EXPERT_BUDGET),
    ("crazy8s", "expert"): (crazy8s_expert.decide_expert, crazy8s_expert.EXPERT_BUDGET),
    ("kaiser", "expert"): (kaiser_expert.decide_expert, kaiser_expert.EXPERT_BUDGET),
}


def levels(game: str) -> tuple[str, ...]:
    """The levels offered for ``game``, weakest first."""
    if game not in LEVELS:
        raise KeyError(f"no computer opponent for game {game!r} (known: {', '.join(LEVELS)})")
    return LEVELS[game]


def strategy_for(game: str, level: str = "normal", budget: int | None = None) -> Strategy:
    """The strategy for ``game`` at ``level`` ("random", "easy", "normal", "hard", "expert").

    ``budget`` is the expert level's thinking budget, in simulated moves per
    decision (None: the level's default); the other levels ignore it.
    """
    offered = levels(game)
    wanted = level if level in offered else ALIASES.get(level, level)
    if wanted not in offered:
        raise KeyError(f"no level {level!r} for {game} (offered: {', '.join(offered)})")
    if wanted == "random":
        return NamedStrategy(game, "random", choose_randomly)
    if (game, wanted) in _SEARCHERS:
        decide, default = _SEARCHERS[game, wanted]
        if budget is not None and budget < 1:
            raise ValueError(f"the thinking budget must be at least 1 play, not {budget}")
        return NamedStrategy(game, wanted, partial(decide, budget=budget or default))
    return NamedStrategy(game, wanted, _DECIDERS[game, wanted])
