"""The Kaiser computer opponent: each documented behaviour decides a position."""

from __future__ import annotations

from parlour.ai.kaiser import suit_rating
from parlour.engine.cards import Suit, parse_cards
from tests.ai.positions import actions, decide, plays_of, view

STRONG = "AS KS QS JS TS AH AD 5H"
WEAK = "8C 9C 8D 9D 8H 9H 8S 3S"
LADDER = ("bid 7", "bid 7NT", "bid 8", "bid 8NT", "bid 9", "bid 9NT", "bid 10", "bid 10NT")


def bidding(hand: str, *legal: str) -> str:
    return decide("kaiser", "normal", view("kaiser", hand=hand, legal=actions(*legal), phase="bid"))


def playing(hand: str, table: list[tuple[int, str]], legal: str | None = None) -> str:
    position = view(
        "kaiser", hand=hand, legal=plays_of(legal or hand), table=table, trump=Suit.CLUBS
    )
    return decide("kaiser", "normal", position)


def test_rates_a_suit_by_trump_length_and_top_cards():
    longer = parse_cards("AS KS 9S 8S 7C 8D 9D 8H")
    shorter = parse_cards("AS KS 9S 7C 8C 8D 9D 8H")
    weaker = parse_cards("QS JS 9S 8S 7C 8D 9D 8H")
    assert suit_rating(longer, Suit.SPADES) > suit_rating(shorter, Suit.SPADES)
    assert suit_rating(longer, Suit.SPADES) > suit_rating(weaker, Suit.SPADES)


def test_adds_for_holding_the_five_of_hearts():
    with_five = parse_cards("AS KS 9S 8S 7C 8D 9D 5H")
    without = parse_cards("AS KS 9S 8S 7C 8D 9D 8H")
    assert suit_rating(with_five, Suit.SPADES) > suit_rating(without, Suit.SPADES)


def test_subtracts_for_holding_the_three_of_spades():
    with_three = parse_cards("AH KH 9H 8H 7C 8D 9D 3S")
    without = parse_cards("AH KH 9H 8H 7C 8D 9D 8S")
    assert suit_rating(with_three, Suit.HEARTS) < suit_rating(without, Suit.HEARTS)


def test_bids_the_lowest_bid_on_offer_when_the_hand_rates_at_it():
    assert bidding(STRONG, "pass", *LADDER) == "bid 7"


def test_bids_the_floor_rather_than_reaching():
    assert bidding(STRONG, "pass", "bid 6", "bid 6NT", *LADDER) == "bid 6"


def test_passes_when_the_hand_rates_below_the_lowest_bid_on_offer():
    assert bidding(WEAK, "pass", *LADDER) == "pass"


def test_the_dealer_forced_to_bid_bids_the_floor():
    assert bidding(WEAK, "bid 6", "bid 6NT", *LADDER) == "bid 6"


def test_names_its_best_rated_suit_as_trump():
    legal = actions("trump C", "trump D", "trump H", "trump S")
    position = view("kaiser", hand="AS KS QS 9S 8H 9D 7C AH", legal=legal, phase="trump")
    assert decide("kaiser", "normal", position) == "trump S"


def test_chases_the_five_of_hearts_with_its_best_card():
    assert playing("9H KH AH", [(3, "5H")]) == "play AH"


def test_without_the_five_on_the_table_it_plays_low_and_leaves_it_to_its_partner():
    assert playing("9H KH AH", [(3, "6H")]) == "play 9H"


def test_ducks_when_the_three_of_spades_is_on_the_table():
    assert playing("QS 8S", [(1, "3S"), (2, "9S"), (3, "JS")]) == "play 8S"


def test_takes_an_ordinary_trick_it_can_win_as_last_to_play():
    assert playing("QS 8S", [(1, "TS"), (2, "9S"), (3, "JS")]) == "play QS"


def test_lets_its_partner_have_a_trick_the_partner_is_already_winning():
    assert playing("KD 8D", [(1, "9D"), (2, "QD"), (3, "TD")]) == "play 8D"


def test_overtakes_when_an_opponent_is_winning_instead():
    assert playing("KD 8D", [(1, "9D"), (2, "TD"), (3, "QD")]) == "play KD"


def test_gives_the_five_of_hearts_to_a_trick_its_partner_is_winning():
    assert playing("5H 8S 9H", [(1, "9D"), (2, "AD"), (3, "TD")]) == "play 5H"


def test_gives_the_three_of_spades_to_a_trick_the_opponents_are_winning():
    assert playing("3S 8H 9H", [(1, "AD"), (2, "9D"), (3, "TD")]) == "play 3S"
