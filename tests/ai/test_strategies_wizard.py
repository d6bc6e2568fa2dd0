"""The Wizard computer opponent: each documented behaviour decides a position."""

from __future__ import annotations

from itertools import pairwise

import pytest

from parlour.ai.wizard import card_worth, expected_tricks
from parlour.engine.cards import Card, Suit
from tests.ai.positions import actions, decide, plays_of, view


def bidding(hand: str, *legal: str, trump: Suit | None = Suit.HEARTS) -> str:
    size = len(hand.split())
    position = view(
        "wizard", hand=hand, legal=actions(*legal), phase="bid", trump=trump, hand_sizes=[size] * 4
    )
    return decide("wizard", "normal", position)


def playing(
    hand: str,
    table: list[tuple[int, str]],
    bid: int,
    taken: int,
    legal: str | None = None,
    trump: Suit | None = Suit.CLUBS,
) -> str:
    size = len(hand.split())
    sizes = [size] * 4
    for seat, _ in table:
        sizes[seat] = size - 1
    position = view(
        "wizard",
        hand=hand,
        legal=plays_of(legal or hand),
        table=table,
        trump=trump,
        hand_sizes=sizes,
        bids=[str(bid), "0", "0", "0"],
        taken=[taken, 0, 0, 0],
    )
    return decide("wizard", "normal", position)


def test_a_wizard_counts_as_a_trick():
    assert bidding("W1", "bid 0", "bid 1") == "bid 1"


def test_a_jester_counts_as_no_trick():
    assert bidding("N1", "bid 0", "bid 1") == "bid 0"


def test_bids_the_nearest_number_on_offer():
    assert bidding("W1 N1", "bid 0", "bid 1", "bid 2") == "bid 1"


def test_bids_the_nearest_number_still_on_offer_when_screw_the_dealer_forbids_one():
    # About one trick expected, but the dealer may not bid 1: 0 is nearer than 2.
    position = view("wizard", hand="W1 N1", phase="bid", trump=Suit.HEARTS)
    assert expected_tricks(position.hand, position) == pytest.approx(0.95)
    assert bidding("W1 N1", "bid 0", "bid 2") == "bid 0"


@pytest.mark.parametrize("seats, in_hand", [(3, 1), (3, 12), (4, 5), (4, 15), (6, 3), (6, 10)])
def test_a_card_counts_for_more_when_higher_and_when_trump(seats: int, in_hand: int):
    dealt = in_hand * seats / 60
    lengths = {Suit.HEARTS: 1, Suit.SPADES: 1}

    def worth(code: str, trump: Suit | None) -> float:
        return card_worth(Card.parse(code), trump, seats, dealt, lengths, in_hand)

    ranks = "23456789TJQKA"
    for low, high in pairwise(ranks):
        assert worth(high + "H", Suit.HEARTS) >= worth(low + "H", Suit.HEARTS)
        assert worth(high + "S", Suit.HEARTS) >= worth(low + "S", Suit.HEARTS)
    for rank in "9TJQKA":
        assert worth(rank + "H", Suit.HEARTS) > worth(rank + "S", Suit.HEARTS)


def test_the_dealer_names_its_strongest_suit_after_a_turned_wizard():
    position = view(
        "wizard",
        hand="2C AS KS 9S 3D",
        legal=actions("trump C", "trump D", "trump H", "trump S"),
        phase="trump",
    )
    assert decide("wizard", "normal", position) == "trump S"


def test_chases_with_the_lowest_card_that_wins_while_short_of_its_bid():
    table = [(1, "9H"), (2, "3H"), (3, "TH")]
    assert playing("KH AH N1 W1", table, bid=1, taken=0) == "play KH"


def test_leads_a_sure_winner_while_short_of_its_bid():
    assert playing("W1 3D", [], bid=1, taken=0) == "play W1"


def test_gives_up_a_trick_it_cannot_win_with_its_least_useful_card_keeping_the_jester():
    # A wizard reached the front: nothing can win. Two tricks wanted, three cards left.
    assert playing("N1 4S 9D", [(1, "W2")], bid=2, taken=0) == "play 4S"


def test_spends_the_jester_first_when_every_remaining_trick_is_needed():
    assert playing("N1 4S 9D", [(1, "W2")], bid=3, taken=0) == "play N1"


def test_ducks_with_the_highest_card_that_still_loses_once_its_bid_is_made():
    assert playing("JH 5H KH", [(1, "QH")], bid=1, taken=1) == "play JH"


def test_ducks_with_a_jester_when_every_other_card_would_win():
    assert playing("AH N1", [(1, "2H")], bid=0, taken=0) == "play N1"


def test_leads_a_jester_when_it_has_one_to_spare_once_its_bid_is_made():
    assert playing("9D N1 AS", [], bid=1, taken=1) == "play N1"


def test_a_wizard_already_down_makes_its_own_wizard_safe_to_duck_with():
    # The first wizard takes the trick, so a second one is the highest card that loses.
    assert playing("W3 2D", [(1, "W1")], bid=0, taken=0) == "play W3"
