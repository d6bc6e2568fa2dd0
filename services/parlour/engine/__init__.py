"""Parlour's rules engines: pure, deterministic, no I/O.

See ``base.GameState`` for the protocol every game implements and
``registry`` to find a game by id.
"""

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import Card, Rank, Suit
from parlour.engine.errors import (
    BadDeck,
    EngineError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    MalformedAction,
    NotYourTurn,
    UnknownGame,
)
from parlour.engine.registry import GameInfo, all_games, get_game, new_game
from parlour.engine.view import View

__all__ = [
    "Action",
    "ActionKind",
    "BadDeck",
    "Card",
    "EngineError",
    "GameInfo",
    "GameOver",
    "GameState",
    "IllegalAction",
    "InvalidOptions",
    "MalformedAction",
    "NotYourTurn",
    "Rank",
    "Suit",
    "UnknownGame",
    "View",
    "all_games",
    "get_game",
    "new_game",
]
