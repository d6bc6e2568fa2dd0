"""The contract's conversions are a round trip: engine value -> message -> engine
value is the identity, over the views of real random play-outs of every game,
every card (wizards and jesters too), every action kind, every hand result,
every end rule and every option schema."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from parlour.contract.actions import action_from_proto, action_to_proto, action_words
from parlour.contract.cards import (
    SUIT_TO_PROTO,
    card_code,
    card_from_code,
    fill_trick,
    suit_from_proto,
    trick_from_proto,
)
from parlour.contract.options import option_spec_from_proto, option_spec_to_proto
from parlour.contract.results import (
    END_REASON_TO_PROTO,
    end_reason_from_proto,
    end_rule_from_proto,
    fill_end_rule,
    fill_hand_result,
    hand_result_from_proto,
)
from parlour.contract.view import view_from_proto, view_to_proto
from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import ALL_CARDS, Card, Suit
from parlour.engine.options import OptionType
from parlour.engine.playout import shuffled
from parlour.engine.registry import all_games, new_game
from parlour.engine.results import EndReason
from parlour.engine.trick import Play, Trick
from parlour.engine.view import View
from parlour.v1 import catalogue_pb2, play_pb2

#: short games, so that a play-out of each takes a moment (Hearts has no options)
SHORT: dict[str, dict[str, object]] = {
    "wizard": {"rounds": "5"},
    "crazy8s": {"rounds": 3},
    "kaiser": {"target": 32},
}


def states_of_a_play_out(game: str, seats: int, seed: int) -> Iterator[GameState]:
    """The state at every step of a random play-out, dealt and to act, then over."""
    rng = random.Random(seed)
    state = new_game(game, seats, SHORT.get(game))
    while not state.is_over:
        if (cards := state.chance()) is not None:
            state.deal(shuffled(cards, rng))
            continue
        yield state
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    yield state


def views_of_a_play_out(game: str, seats: int, seed: int) -> Iterator[View]:
    """Every view of a random play-out: each seat to act's and a spectator's, at every
    step, and every seat's once it is over."""
    for state in states_of_a_play_out(game, seats, seed):
        for seat in (*(range(seats) if state.is_over else state.to_act()), None):
            yield state.view(seat)


def seat_counts(game: str) -> list[int]:
    info = next(info for info in all_games() if info.id == game)
    return sorted({info.min_seats, info.max_seats})


@pytest.mark.parametrize("game", [info.id for info in all_games()])
def test_every_view_of_a_play_out_reads_back_as_itself(game: str) -> None:
    kinds: set[ActionKind] = set()
    details: set[type] = set()
    reasons: set[EndReason | None] = set()
    for seats in seat_counts(game):
        for view in views_of_a_play_out(game, seats, seed=seats):
            assert view_from_proto(view_to_proto(view)) == view
            kinds |= {action.kind for action in view.legal_actions}
            if view.last_hand is not None:
                details.add(type(view.last_hand.detail))
            reasons.add(view.end_reason)
    assert details, f"{game}: no hand was finished"
    assert len(details) == 1  # each game has its own kind of result
    assert kinds, f"{game}: no legal action was listed"
    assert reasons - {None}, f"{game}: the game did not end"


def test_the_play_outs_list_every_action_kind() -> None:
    kinds = {
        action.kind
        for info in all_games()
        for seed in (1, 2, 3)
        for view in views_of_a_play_out(info.id, info.max_seats, seed)
        for action in view.legal_actions
    }
    assert kinds == set(ActionKind)


def test_every_card_and_suit_reads_back_as_itself() -> None:
    assert any(card.is_wizard for card in ALL_CARDS) and any(card.is_jester for card in ALL_CARDS)
    for card in ALL_CARDS:
        assert card_from_code(card_code(card)) is card
    assert card_from_code(card_code(None)) is None
    for suit in (*Suit, None):
        assert suit_from_proto(SUIT_TO_PROTO[suit]) is suit


def test_a_trick_with_wizards_and_jesters_reads_back_as_itself() -> None:
    plays = tuple(Play(seat, Card.parse(code)) for seat, code in enumerate(("N1", "W3", "TH")))
    for trick in (Trick(0, plays, winner=1, led_suit=Suit.HEARTS), Trick(2, ())):
        message = play_pb2.Trick()
        fill_trick(message, trick)
        assert trick_from_proto(message) == trick


EVERY_KIND = (
    Action.play(Card.parse("QS")),
    Action.play(Card.parse("W1")),
    Action.play(Card.parse("N4")),
    Action.play(Card.parse("8C"), Suit.HEARTS),
    Action.bid(0),
    Action.bid(7, no_trump=True),
    Action.pass_(),
    Action.draw(),
    Action.name_trump(Suit.SPADES),
    Action.give(Card.parse("QS")),
    Action.give(Card.parse("QS"), Card.parse("KH"), Card.parse("2C")),
)


@pytest.mark.parametrize("action", EVERY_KIND, ids=str)
def test_every_action_kind_reads_back_as_itself_by_text_and_by_fields(action: Action) -> None:
    message = action_to_proto(action)
    assert action_from_proto(message) == action
    message.text = ""  # a client that sends only the fields
    assert action_from_proto(message) == action
    assert action_words(action) and "W1" not in action_words(action, "past")


def test_every_hand_result_end_rule_and_end_reason_reads_back_as_itself() -> None:
    found: dict[str, play_pb2.HandResult] = {}
    for info in all_games():
        rule = catalogue_pb2.EndRule()
        fill_end_rule(rule, info.end_rule)
        assert end_rule_from_proto(rule) == info.end_rule
        for view in views_of_a_play_out(info.id, info.min_seats, seed=5):
            if view.last_hand is not None:
                message = play_pb2.HandResult()
                fill_hand_result(message, view.last_hand)
                assert hand_result_from_proto(message) == view.last_hand
                found[info.id] = message
    assert {message.WhichOneof("game") for message in found.values()} == {
        "wizard",
        "crazy8s",
        "kaiser",
        "hearts",
    }
    for reason in (*EndReason, None):
        assert end_reason_from_proto(END_REASON_TO_PROTO[reason]) is reason
    # the service's own endings are not the rules': no engine reason
    assert end_reason_from_proto(play_pb2.END_REASON_ABANDONED) is None


def test_every_option_schema_reads_back_as_itself() -> None:
    specs = [spec for info in all_games() for spec in info.options]
    assert {spec.type for spec in specs} == set(OptionType)
    for spec in specs:
        assert option_spec_from_proto(option_spec_to_proto(spec)) == spec
