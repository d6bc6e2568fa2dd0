"""Hearts: the three cards to pass chosen in one act ("give QS KH 2C"), beside the
three single gives; every check is made before any card is taken."""

from __future__ import annotations

import pytest

from parlour.engine.actions import Action
from parlour.engine.cards import Card, standard_deck
from parlour.engine.errors import IllegalAction, MalformedAction
from parlour.engine.hearts import HeartsState

HANDS = [" ".join(str(card) for card in standard_deck()[n::4]) for n in range(4)]


def test_give_text_round_trips_with_several_cards() -> None:
    action = Action.parse("give qs kh 2c")
    assert action == Action.give(Card.parse("QS"), Card.parse("KH"), Card.parse("2C"))
    assert str(action) == "give QS KH 2C" and action.cards == action.parse(str(action)).cards
    assert str(Action.parse("give QS")) == "give QS" and not Action.parse("give QS").more
    with pytest.raises(MalformedAction):
        Action.parse("give")


def test_three_cards_in_one_act_pass_like_three_gives() -> None:
    one_act = HeartsState.from_position(HANDS)
    three_acts = HeartsState.from_position(HANDS)
    mine = one_act.hand(1)[:3]
    one_act.apply(1, Action.give(*mine))
    for card in mine:
        three_acts.apply(1, Action.give(card))
    assert one_act.snapshot() == three_acts.snapshot()
    assert one_act.to_act() == (0, 2, 3) and one_act.view(1).passed_cards == mine
    # one single give, then the two left in one act
    one_act.apply(2, Action.give(one_act.hand(2)[0]))
    one_act.apply(2, Action.give(*one_act.hand(2)[1:3]))
    assert 2 not in one_act.to_act()


@pytest.mark.parametrize(
    ("given", "rule"),
    [
        (lambda hand, other: (*hand[:3], hand[3]), "left to choose"),  # four cards
        (lambda hand, other: (hand[0], hand[0]), "names a card twice"),
        (lambda hand, other: (hand[0], other[0]), "does not hold"),
        (lambda hand, other: (hand[0], Card.parse("W1")), "does not hold"),
    ],
)
def test_a_bad_give_of_several_takes_no_card(given: object, rule: str) -> None:
    state = HeartsState.from_position(HANDS)
    before = state.snapshot()
    cards = given(state.hand(0), state.hand(1))  # type: ignore[operator]
    with pytest.raises(IllegalAction, match=rule):
        state.apply(0, Action.give(*cards))
    assert state.snapshot() == before


def test_giving_more_than_are_left_is_refused() -> None:
    state = HeartsState.from_position(HANDS)
    state.apply(3, Action.give(state.hand(3)[0]))
    with pytest.raises(IllegalAction, match="2 card"):
        state.apply(3, Action.give(*state.hand(3)[1:4]))
    state.apply(3, Action.give(*state.hand(3)[1:3]))
    assert 3 not in state.to_act()
