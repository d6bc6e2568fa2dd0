"""A seat's View is the spectator's public part and the seat's own part (issue 34).

The service builds the fields every seat shares once per version, from the
spectator's view, which holds no hidden card, and each seat's own fields apart
(``contract/view.py``: ``SEAT_FIELDS``). That is only right if, at every moment
of every game, a seat's view differs from the spectator's in those fields
alone, and if the two parts' bytes joined read as the seat's whole View. Both
are checked here on every view of random play-outs of every game, at its
fewest and most seats.
"""

from __future__ import annotations

import random

import pytest

from parlour.contract.view import (
    SEAT_FIELDS,
    public_view_to_proto,
    seat_part_to_proto,
    view_to_proto,
)
from parlour.engine.playout import shuffled
from parlour.engine.registry import all_games, new_game
from parlour.v1 import play_pb2
from tests.contract.test_round_trip import seat_counts, states_of_a_play_out


def names(message: play_pb2.View) -> set[str]:
    return {field.name for field, _ in message.ListFields()}


@pytest.mark.parametrize("game", [info.id for info in all_games()])
def test_a_seats_view_is_the_spectators_public_part_and_its_own(game: str) -> None:
    own_fields: set[str] = set()
    for seats in seat_counts(game):
        for seed in (1, 2):
            for state in states_of_a_play_out(game, seats, seed):
                spectator = state.view(None)
                public = public_view_to_proto(spectator)
                assert not names(public) & SEAT_FIELDS
                shared = public.SerializeToString()
                for seat in range(seats):
                    view = state.view(seat)
                    whole = view_to_proto(view)
                    # the fields every seat shares are the spectator's, at every step
                    assert public_view_to_proto(view) == public, (game, seats, seat)
                    part = seat_part_to_proto(view)
                    assert names(part) <= SEAT_FIELDS
                    own_fields |= names(part)
                    joined = play_pb2.View.FromString(shared + part.SerializeToString())
                    assert joined == whole, (game, seats, seat)
    # each game shows a seat at least its seat, its hand and its choices apart
    assert {"seat", "hand", "legal_actions"} <= own_fields, own_fields


def test_the_seat_fields_are_fields_of_the_view() -> None:
    assert set(play_pb2.View.DESCRIPTOR.fields_by_name) >= SEAT_FIELDS
    # the public part fills every other field the engine's view gives
    state = new_game("hearts", 4)
    rng = random.Random(4)
    state.deal(shuffled(state.chance() or (), rng))
    public = names(public_view_to_proto(state.view(None)))
    assert {"game", "players", "phase", "to_act", "pass_direction"} <= public
