"""The game registry: find a game by id, with its seat range and option schema."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from parlour.engine.base import GameState
from parlour.engine.errors import InvalidOptions, UnknownGame
from parlour.engine.options import OptionSpec, OptionValue, resolve_options
from parlour.engine.results import EndRule

#: Registry ids, in catalogue order, and the module that holds each game.
GAME_MODULES: dict[str, str] = {
    "wizard": "parlour.engine.wizard",
    "crazy8s": "parlour.engine.crazy8s",
    "kaiser": "parlour.engine.kaiser",
    "hearts": "parlour.engine.hearts",
}


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Fixed facts about one game."""

    id: str
    name: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...]
    factory: Callable[[int, dict[str, OptionValue]], GameState]
    summary: str
    rules_file: str
    #: how the game ends and who wins; numbers set by options or seats are 0 here
    end_rule: EndRule

    @property
    def rules_text(self) -> str:
        return (
            resources.files("parlour.engine")
            .joinpath("rules", self.rules_file)
            .read_text(encoding="utf-8")
        )

    def resolve(self, seats: int, options: Mapping[str, object] | None) -> dict[str, OptionValue]:
        """Validate the seat count and options, filling defaults."""
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidOptions(
                "seat count",
                f"{self.name} seats {self.min_seats} to {self.max_seats} players, not {seats}",
            )
        return resolve_options(self.options, options)

    def new(self, seats: int, options: Mapping[str, object] | None = None) -> GameState:
        return self.factory(seats, self.resolve(seats, options))


@cache
def get_game(game: str) -> GameInfo:
    module_name = GAME_MODULES.get(game)
    if module_name is None:
        raise UnknownGame("game id", f"no game {game!r} (known: {', '.join(GAME_MODULES)})")
    info = importlib.import_module(module_name).INFO
    assert isinstance(info, GameInfo) and info.id == game
    return info


def all_games() -> tuple[GameInfo, ...]:
    return tuple(get_game(game) for game in GAME_MODULES)


def new_game(game: str, seats: int, options: Mapping[str, object] | None = None) -> GameState:
    """Create a game from its id, seat count and options."""
    return get_game(game).new(seats, options)
