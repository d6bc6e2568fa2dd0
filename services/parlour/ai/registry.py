"""Find a computer opponent by game and level."""

from __future__ import annotations

from parlour.ai import crazy8s, hearts, kaiser, wizard
from parlour.ai.common import Decide, NamedStrategy, Strategy, choose_randomly

#: The levels each game offers, weakest first. "random" is the baseline.
LEVELS: dict[str, tuple[str, ...]] = {
    "wizard": ("random", "normal"),
    "crazy8s": ("random", "normal"),
    "kaiser": ("random", "normal"),
    "hearts": ("random", "easy", "normal", "hard"),
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


def levels(game_id: str) -> tuple[str, ...]:
    """The levels offered for ``game_id``, weakest first."""
    if game_id not in LEVELS:
        raise KeyError(f"no computer opponent for game {game_id!r} (known: {', '.join(LEVELS)})")
    return LEVELS[game_id]


def strategy_for(game_id: str, level: str = "normal") -> Strategy:
    """The strategy for ``game_id`` at ``level`` ("random", "easy", "normal", "hard")."""
    offered = levels(game_id)
    wanted = level if level in offered else ALIASES.get(level, level)
    if wanted not in offered:
        raise KeyError(f"no level {level!r} for {game_id} (offered: {', '.join(offered)})")
    if wanted == "random":
        return NamedStrategy(game_id, "random", choose_randomly)
    return NamedStrategy(game_id, wanted, _DECIDERS[game_id, wanted])
