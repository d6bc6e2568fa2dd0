"""``seat_view(seat, public)`` is ``view(seat)``, built from the spectator's view (issue 34).

A move watched by every seat builds the spectator's view once and each
seat's view from it, only the seat's own fields anew. That is only right if
the result equals the seat's view built whole at every moment of every
game: checked on every step of random play-outs of every game, at its fewest
and most seats, for every seat.
"""

from __future__ import annotations

import pytest

from parlour.engine.base import GameState
from parlour.engine.registry import all_games, new_game
from parlour.engine.view import View, own_view
from tests.contract.test_round_trip import seat_counts, states_of_a_play_out


@pytest.mark.parametrize("game", [info.id for info in all_games()])
def test_a_seat_view_from_the_spectators_is_the_seats_view(game: str) -> None:
    steps = 0
    for seats in seat_counts(game):
        for seed in (1, 2, 3):
            for state in states_of_a_play_out(game, seats, seed):
                public = state.view(None)
                for seat in range(seats):
                    built = state.seat_view(seat, public)
                    assert type(built) is View
                    assert built == state.view(seat), (game, seats, seed, seat)
                steps += 1
    assert steps > 100


@pytest.mark.parametrize("game", [info.id for info in all_games()])
def test_each_game_builds_a_seat_view_of_its_own(game: str) -> None:
    """Every game overrides the fallback (which builds the view whole), or the fan-out
    shares nothing."""
    state = new_game(game, min(seat_counts(game)))
    assert type(state).seat_view is not GameState.seat_view


def test_a_seat_number_out_of_range_is_refused_as_view_refuses_it() -> None:
    for info in all_games():
        state = new_game(info.id, info.min_seats)
        public = state.view(None)
        try:
            expected: object = state.view(info.max_seats + 1)
        except Exception as refused:  # the same refusal, whatever it is
            with pytest.raises(type(refused)):
                state.seat_view(info.max_seats + 1, public)
        else:
            assert state.seat_view(info.max_seats + 1, public) == expected


def test_own_view_takes_only_the_fields_named_from_the_seat() -> None:
    state = new_game("hearts", 4)
    public = state.view(None)
    made = own_view(public, seat=2, notes=("mine",))
    assert made.seat == 2 and made.notes == ("mine",)
    assert made.players is public.players and made.hand == ()
    with pytest.raises(AttributeError):
        made.seat = 3  # type: ignore[misc]  # still frozen
