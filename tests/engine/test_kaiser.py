"""Kaiser: a scenario test per sentence of rules/kaiser.md and the Kaiser rulings.

Deals are constructed: ``deck_for`` turns four hands into the deck that deals
them, and ``planned_hand`` builds a whole hand in which every seat follows suit
and each trick goes to a chosen seat, so a test can fix who takes what.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest

from parlour.engine.actions import Action
from parlour.engine.cards import Card, Rank, Suit, kaiser_deck, parse_cards
from parlour.engine.errors import (
    BadDeck,
    EngineError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
)
from parlour.engine.kaiser import INFO, KaiserState, trick_points
from parlour.engine.registry import get_game

# -- helpers ----------------------------------------------------------------------

#: One suit in each hand: whoever leads wins the trick (nobody can follow).
SUIT_HANDS = (
    "7C 8C 9C TC JC QC KC AC",
    "7D 8D 9D TD JD QD KD AD",
    "5H 8H 9H TH JH QH KH AH",
    "3S 8S 9S TS JS QS KS AS",
)

#: Voids where the trick rules need them (seat 1 bids and leads in these tests).
MIXED_HANDS = (
    "AC KC QC JC TC 9C 8C 7C",
    "8S JH 9H 8H 5H TD 9D 8D",
    "AH KH QH TH AD KD QD JD",
    "3S 9S TS JS QS KS AS 7D",
)

#: The eight tricks of a planned hand, one suit each. The fifth holds the five of
#: hearts (worth 6), the seventh the three of spades (worth -2), the rest 1 each.
TRICK_SETS = (
    "7C 8C 9C TC",
    "JC QC KC AC",
    "7D 8D 9D TD",
    "JD QD KD AD",
    "5H 8H 9H TH",
    "JH QH KH AH",
    "3S 8S 9S TS",
    "JS QS KS AS",
)
PLANNED_VALUES = (1, 1, 1, 1, 6, 1, -2, 1)


def new(**options: object) -> KaiserState:
    state = INFO.new(4, options)
    assert isinstance(state, KaiserState)
    return state


def deck_for(hands: Sequence[str], dealer: int) -> list[Card]:
    """The deck that deals ``hands[seat]`` to each seat, dealing from ``dealer``'s left."""
    parsed = [parse_cards(hand) for hand in hands]
    assert sorted(card for hand in parsed for card in hand) == list(kaiser_deck())
    return [parsed[(dealer + 1 + i) % 4][i // 4] for i in range(32)]


def deal(state: KaiserState, hands: Sequence[str]) -> None:
    state.deal(deck_for(hands, state.dealer))


def act(state: KaiserState, seat: int, text: str) -> None:
    state.apply(seat, Action.parse(text))


def call_round(state: KaiserState, calls: Sequence[str]) -> None:
    """Bids and passes in turn from the dealer's left: "pass", "7", "7NT"."""
    for call in calls:
        (seat,) = state.to_act()
        act(state, seat, "pass" if call == "pass" else f"bid {call}")


def legal_texts(state: KaiserState, seat: int) -> list[str]:
    return [str(action) for action in state.legal_actions(seat)]


def plan_tricks(bidder: int, winners: Sequence[int]) -> list[tuple[int, list[Card]]]:
    """(leader, cards in play order) for each trick; ``winners[i]`` gets trick i's top card."""
    tricks = []
    leader = bidder
    for cards_text, winner in zip(TRICK_SETS, winners, strict=True):
        lower = list(parse_cards(cards_text))
        top = lower.pop()
        order = [top if (leader + i) % 4 == winner else lower.pop(0) for i in range(4)]
        tricks.append((leader, order))
        leader = winner
    return tricks


def planned_hand(
    state: KaiserState, calls: Sequence[str], winners: Sequence[int], trump: str = "C"
) -> None:
    """Deal, bid, name trump (unless no trump) and play a hand whose tricks go to ``winners``."""
    seats = [(state.dealer + 1 + i) % 4 for i in range(4)]
    bidder = [seat for seat, call in zip(seats, calls, strict=True) if call != "pass"][-1]
    tricks = plan_tricks(bidder, winners)
    hands: list[list[str]] = [[] for _ in range(4)]
    for leader, cards in tricks:
        for i, card in enumerate(cards):
            hands[(leader + i) % 4].append(str(card))
    deal(state, [" ".join(hand) for hand in hands])
    call_round(state, calls)
    if state.phase == "trump":
        act(state, bidder, f"trump {trump}")
    for leader, cards in tricks:
        for i, card in enumerate(cards):
            state.apply((leader + i) % 4, Action.play(card))


def finish_hand(state: KaiserState) -> None:
    """Play the hand under way with the first legal action at every step."""
    while state.phase not in ("deal", "over"):
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])


def expect_refused(
    state: KaiserState, seat: int, text: str, error: type[EngineError], rule: str | None = None
) -> EngineError:
    before = state.digest()
    with pytest.raises(error) as caught:
        act(state, seat, text)
    assert state.digest() == before
    if rule is not None:
        assert caught.value.rule == rule
    return caught.value


# -- table, deck and deal ---------------------------------------------------------


def test_the_deck_is_eight_to_ace_with_7c_7d_5h_3s() -> None:
    deck = kaiser_deck()
    assert len(deck) == 32 == len(set(deck))
    for suit in Suit:
        ranks = {card.rank for card in deck if card.suit is suit}
        assert {Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING} < ranks
        assert Rank.ACE in ranks
    extras = {card for card in deck if card.rank < Rank.EIGHT}
    assert extras == set(parse_cards("7C 7D 5H 3S"))
    assert new().chance() == deck


def test_four_players_in_two_partnerships_sitting_opposite() -> None:
    assert (INFO.min_seats, INFO.max_seats) == (4, 4)
    with pytest.raises(InvalidOptions):
        get_game("kaiser").new(3)
    state = new()
    assert [player.team for player in state.view(None).players] == [0, 1, 0, 1]
    planned_hand(state, ["pass", "6", "pass", "pass"], [2, 2, 2, 2, 2, 0, 0, 2])
    assert state.scores() == (10, 0, 10, 0)


def test_eight_cards_each_dealt_one_at_a_time_from_the_dealers_left() -> None:
    state = new()
    deck = kaiser_deck()
    state.deal(deck)
    assert state.dealer == 0
    for seat in range(4):
        assert state.hand(seat) == tuple(sorted(deck[(seat - 1) % 4 :: 4]))
    assert state.accounted_cards() and sorted(state.accounted_cards()) == list(deck)


def test_the_deal_passes_left_each_hand() -> None:
    state = new(target=62)
    dealers = []
    for _ in range(5):
        dealers.append(state.dealer)
        state.deal(kaiser_deck())
        assert state.to_act() == ((state.dealer + 1) % 4,)
        # dealt from the new dealer's left too
        assert state.hand((state.dealer + 1) % 4) == tuple(sorted(kaiser_deck()[0::4]))
        finish_hand(state)
    assert dealers == [0, 1, 2, 3, 0]


# -- bidding ----------------------------------------------------------------------


def test_bidding_opens_to_the_dealers_left_and_goes_round_to_the_dealer() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    order = []
    for call in ["pass", "6", "pass", "7"]:
        order += state.to_act()
        call_round(state, [call])
    assert order == [1, 2, 3, 0]
    assert [(move.seat, move.text) for move in state.view(None).history] == [
        (1, "pass"),
        (2, "bid 6"),
        (3, "pass"),
        (0, "bid 7"),
    ]


def test_bidding_is_one_round_each_player_calls_once() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["6", "7", "8", "9"])
    assert state.phase == "trump"
    assert state.bidder == 0 and str(state.contract) == "9"


def test_no_trump_outranks_the_same_number_6nt_beats_6() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["6"])
    assert "bid 6NT" in legal_texts(state, 2)
    assert "bid 6" not in legal_texts(state, 2)
    call_round(state, ["6NT", "pass", "pass"])
    assert state.bidder == 2 and str(state.contract) == "6NT"


def test_a_higher_number_in_a_suit_beats_a_lower_no_trump_7_beats_6nt() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["6NT"])
    assert legal_texts(state, 2)[:3] == ["pass", "bid 7", "bid 7NT"]
    call_round(state, ["7", "pass", "pass"])
    assert state.bidder == 2 and str(state.contract) == "7"


@pytest.mark.parametrize(("standing", "low"), [("7", "7"), ("7", "6NT"), ("7NT", "7")])
def test_each_bid_must_beat_the_one_before(standing: str, low: str) -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, [standing])
    error = expect_refused(state, 2, f"bid {low}", IllegalAction)
    assert error.rule == "each bid must beat the one before"
    assert f"standing bid is {standing} by seat 1" in error.detail


def test_the_dealer_too_must_beat_the_standing_bid() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["pass", "8", "pass"])
    assert "bid 8" not in legal_texts(state, 0)
    expect_refused(state, 0, "bid 8", IllegalAction, "each bid must beat the one before")
    call_round(state, ["8NT"])
    assert state.bidder == 0


@pytest.mark.parametrize("floor", [5, 6, 7, 8])
def test_the_floor_is_the_lowest_bid(floor: int) -> None:
    state = new(floor=floor)
    deal(state, SUIT_HANDS)
    assert legal_texts(state, 1)[:3] == ["pass", f"bid {floor}", f"bid {floor}NT"]
    expect_refused(state, 1, f"bid {floor - 1}", IllegalAction, f"the floor is {floor}")
    call_round(state, [str(floor)])
    assert str(state.standing) == str(floor)


def test_the_floor_is_six_by_default() -> None:
    assert new().floor == 6
    with pytest.raises(InvalidOptions):
        new(floor=4)
    with pytest.raises(InvalidOptions):
        new(floor=9)


def test_the_ceiling_is_ten() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    assert legal_texts(state, 1)[-2:] == ["bid 10", "bid 10NT"]
    expect_refused(state, 1, "bid 11", IllegalAction, "the ceiling is ten")
    call_round(state, ["10NT"])
    # nothing is left above 10NT: the rest can only pass
    assert legal_texts(state, 2) == ["pass"]


def test_no_trump_is_on_by_default() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    assert "bid 7NT" in legal_texts(state, 1)


def test_no_trump_toggled_off_offers_no_no_trump_bid() -> None:
    state = new(no_trump=False)
    deal(state, SUIT_HANDS)
    assert not [text for text in legal_texts(state, 1) if text.endswith("NT")]
    expect_refused(state, 1, "bid 7NT", IllegalAction, "no trump is off at this table")
    call_round(state, ["10", "pass", "pass"])
    assert legal_texts(state, 0) == ["pass"]


def test_the_dealer_must_bid_when_the_first_three_pass() -> None:
    state = new(floor=7)
    deal(state, SUIT_HANDS)
    call_round(state, ["pass", "pass", "pass"])
    assert state.to_act() == (0,)
    assert "pass" not in legal_texts(state, 0)
    assert legal_texts(state, 0)[0] == "bid 7"
    expect_refused(state, 0, "pass", IllegalAction, "the dealer must bid when the first three pass")
    expect_refused(state, 0, "bid 6", IllegalAction, "the floor is 7")
    call_round(state, ["7"])
    assert state.bidder == 0


def test_if_all_four_pass_the_hand_is_redealt_by_the_same_dealer() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    # Unreachable through apply (the dealer's bid is forced): build the position.
    state.calls = [(1, None), (2, None), (3, None), (0, None)]
    state._end_bidding()
    assert state.phase == "deal" and state.chance() == kaiser_deck()
    assert (state.dealer, state.hand_number, state.to_act()) == (0, 1, ())
    assert state.contract is None and all(not state.hand(seat) for seat in range(4))
    assert any("deals the hand again" in note for note in state.view(None).notes)
    json.dumps(state.snapshot())
    deal(state, MIXED_HANDS)
    assert state.to_act() == (1,) and state.view(None).history == ()


# -- trump and the lead -------------------------------------------------------------


def test_the_winning_bidder_names_trump() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["6", "pass", "pass", "pass"])
    assert state.phase == "trump" and state.to_act() == (1,)
    assert legal_texts(state, 1) == ["trump C", "trump D", "trump H", "trump S"]
    assert state.view(1).trump_text == "not yet named"
    assert state.view(1).contract == "seat 1 bid 6, trump not yet named"
    expect_refused(state, 2, "trump H", NotYourTurn)
    act(state, 1, "trump H")
    view = state.view(None)
    assert (view.phase, view.trump, view.trump_text) == ("play", Suit.HEARTS, "hearts")
    assert view.contract == "seat 1 bid 6, trump hearts"
    assert view.history[-1].seat == 1 and view.history[-1].text == "trump H"


def test_a_no_trump_bidder_is_committed_to_no_trump() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["pass", "7NT", "pass", "pass"])
    view = state.view(None)
    assert view.phase == "play" and view.trump is None
    assert view.trump_text == "no trump"
    assert view.contract == "seat 2 bid 7 no trump"
    assert [move.text for move in view.history] == ["pass", "bid 7NT", "pass", "pass"]


def test_the_bidder_leads_the_first_trick() -> None:
    state = new()
    deal(state, SUIT_HANDS)
    call_round(state, ["pass", "pass", "6", "pass"])
    act(state, 3, "trump S")
    assert state.to_act() == (3,)
    assert state.view(3).current_trick is not None
    assert state.view(3).current_trick.leader == 3


def test_the_winner_of_a_trick_leads_the_next() -> None:
    state = new()
    deal(state, MIXED_HANDS)
    call_round(state, ["6", "pass", "pass", "pass"])
    act(state, 1, "trump H")
    for seat, card in [(1, "8S"), (2, "JD"), (3, "9S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 3
    assert state.to_act() == (3,)


# -- play ---------------------------------------------------------------------------


def mixed_hand_with_trump(trump: str = "H") -> KaiserState:
    state = new()
    deal(state, MIXED_HANDS)
    if trump == "NT":
        call_round(state, ["6NT", "pass", "pass", "pass"])
    else:
        call_round(state, ["6", "pass", "pass", "pass"])
        act(state, 1, f"trump {trump}")
    return state


def test_must_follow_suit_when_able() -> None:
    state = mixed_hand_with_trump()
    act(state, 1, "play JH")
    assert legal_texts(state, 2) == ["play TH", "play QH", "play KH", "play AH"]
    error = expect_refused(state, 2, "play AD", IllegalAction, "must follow suit")
    assert "seat 2 holds hearts and cannot play AD on a heart lead" in error.detail


def test_a_player_who_cannot_follow_may_play_anything() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "JH"), (2, "QH")]:
        act(state, seat, f"play {card}")
    assert sorted(legal_texts(state, 3)) == sorted(
        f"play {card}" for card in MIXED_HANDS[3].split()
    )
    act(state, 3, "play 7D")


def test_trump_beats_every_other_suit() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "8S"), (2, "TH"), (3, "AS"), (0, "AC")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 2


@pytest.mark.parametrize("trump", ["H", "NT"])
def test_otherwise_only_the_led_suit_can_win(trump: str) -> None:
    state = mixed_hand_with_trump(trump)
    for seat, card in [(1, "8S"), (2, "AD"), (3, "9S"), (0, "AC")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 3


def test_no_bowers_the_jack_of_trump_is_just_a_jack() -> None:
    state = mixed_hand_with_trump("H")
    for seat, card in [(1, "JH"), (2, "QH"), (3, "9S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 2


def test_no_bowers_the_jack_of_the_same_colour_is_not_trump() -> None:
    state = mixed_hand_with_trump("H")
    # Under euchre rules JD would be the left bower, a trump, and win.
    for seat, card in [(1, "8S"), (2, "JD"), (3, "9S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 3


# -- what a hand is worth -------------------------------------------------------------


def test_each_trick_is_worth_one() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "JH"), (2, "QH"), (3, "9S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.view(None).players[2].points_this_hand == 1
    assert state.view(None).players[2].tricks_taken == 1


def test_taking_the_five_of_hearts_is_worth_five_more() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "5H"), (2, "AH"), (3, "9S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.view(None).players[2].points_this_hand == 6


def test_taking_the_three_of_spades_costs_three() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "8S"), (2, "AD"), (3, "3S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.tricks[-1].winner == 1
    assert state.view(None).players[1].points_this_hand == -2


def test_both_in_the_same_trick_is_worth_three() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "5H"), (2, "AH"), (3, "3S"), (0, "7C")]:
        act(state, seat, f"play {card}")
    assert state.view(None).players[2].points_this_hand == 3
    assert trick_points(parse_cards("5H 3S 8C 8D")) == 3


def test_a_hand_is_always_worth_ten_over_300_random_hands() -> None:
    rng = random.Random(20240601)
    hands = 0
    while hands < 300:
        state = new(target=32)
        while not state.is_over:
            cards = state.chance()
            if cards is not None:
                deck = list(cards)
                rng.shuffle(deck)
                state.deal(deck)
                continue
            (seat,) = state.to_act()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            if len(state.tricks) == 8 and state.phase in ("deal", "over"):
                assert sum(state.points_taken(s) for s in range(4)) == 10
                hands += 1
        assert len(state.hand_scores) == state.hand_number


# -- scoring --------------------------------------------------------------------------
# In a planned hand the fifth trick is worth 6 and the seventh -2; others 1 each.


def test_a_bidding_side_that_makes_it_scores_every_point_it_took() -> None:
    state = new()
    planned_hand(state, ["pass", "6", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.hand_scores == [(7, 3, 7, 3)]
    assert state.scores() == (7, 3, 7, 3)


def test_a_made_no_trump_contract_scores_double() -> None:
    state = new()
    planned_hand(state, ["pass", "6NT", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.scores() == (14, 3, 14, 3)


def test_a_bidding_side_that_goes_down_loses_its_bid() -> None:
    state = new()
    planned_hand(state, ["pass", "8", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.hand_scores == [(-8, 3, -8, 3)]


def test_a_no_trump_contract_that_goes_down_loses_double() -> None:
    state = new()
    planned_hand(state, ["pass", "8NT", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.scores() == (-16, 3, -16, 3)


def test_defenders_keep_what_they_took_when_the_bidders_go_down() -> None:
    state = new()
    planned_hand(state, ["7", "pass", "pass", "pass"], [3, 3, 3, 3, 0, 1, 0, 3])
    # seats 1 and 3 bid 7 and took 6; seats 0 and 2 took the other 4 (6 - 2)
    assert state.hand_scores == [(4, -7, 4, -7)]


def test_defenders_keep_what_they_took_even_when_it_is_negative() -> None:
    state = new()
    planned_hand(state, ["pass", "6", "pass", "pass"], [2, 2, 2, 2, 2, 2, 1, 2])
    assert state.hand_scores == [(12, -2, 12, -2)]


def test_a_side_scores_all_it_took_which_can_be_more_than_ten() -> None:
    state = new()
    planned_hand(state, ["pass", "10NT", "pass", "pass"], [2, 2, 2, 2, 2, 2, 1, 2])
    assert state.scores() == (24, -2, 24, -2)


# -- the end ----------------------------------------------------------------------------


@pytest.mark.parametrize("target", [32, 52, 62])
def test_the_first_side_to_the_target_wins(target: int) -> None:
    state = new(target=target)
    state.team_scores = [target - 8, 0]
    planned_hand(state, ["pass", "6", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.scores()[0] == target - 1 and not state.is_over
    planned_hand(state, ["pass", "pass", "6", "pass"], [1, 1, 1, 1, 2, 2, 1, 1])
    assert state.scores() == (target + 6, 6, target + 6, 6)
    assert state.is_over and state.winners() == (0, 2)
    assert state.view(3).winners == (0, 2) and state.phase == "over"
    assert state.to_act() == () and state.chance() is None


def test_the_target_is_52_by_default() -> None:
    assert new().target == 52
    with pytest.raises(InvalidOptions):
        new(target=40)


def test_defenders_reaching_the_target_win() -> None:
    state = new()
    state.team_scores = [0, 50]
    planned_hand(state, ["pass", "6", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    assert state.scores() == (7, 53, 7, 53)
    assert state.winners() == (1, 3)


@pytest.mark.parametrize("target", [32, 52, 62])
def test_a_side_that_falls_to_minus_the_target_loses_outright(target: int) -> None:
    state = new(target=target)
    state.team_scores = [-(target - 7), 0]
    planned_hand(state, ["pass", "6", "pass", "pass"], [1, 1, 1, 1, 1, 1, 1, 2])
    assert state.scores() == (-(target - 1), 9, -(target - 1), 9) and not state.is_over
    planned_hand(state, ["pass", "pass", "6", "pass"], [1, 1, 1, 1, 1, 1, 1, 2])
    assert state.scores()[0] == -(target - 1) - 6 <= -target
    assert state.winners() == (1, 3)


def test_when_both_sides_reach_the_target_in_one_hand_the_bidding_side_wins() -> None:
    state = new()
    state.team_scores = [50, 47]
    planned_hand(state, ["6", "pass", "pass", "pass"], [0, 0, 0, 0, 1, 0, 0, 0])
    # seats 1 and 3 bid and reach 53; seats 0 and 2 reach 54 but defended
    assert state.scores() == (54, 53, 54, 53)
    assert state.winners() == (1, 3)


def test_the_end_is_tested_only_after_a_hand() -> None:
    state = new()
    state.team_scores = [60, 0]
    deal(state, SUIT_HANDS)
    call_round(state, ["6", "pass", "pass", "pass"])
    act(state, 1, "trump D")
    assert not state.is_over and state.winners() == ()
    finish_hand(state)
    assert state.is_over and state.winners() == (0, 2)


def test_scores_are_per_seat_each_showing_its_sides_total() -> None:
    state = new()
    planned_hand(state, ["pass", "6", "pass", "pass"], [1, 1, 1, 1, 2, 0, 1, 1])
    planned_hand(state, ["pass", "pass", "7", "pass"], [3, 3, 3, 3, 3, 0, 1, 1])
    view = state.view(0)
    assert view.hand_scores == ((7, 3, 7, 3), (-7, 9, -7, 9))
    assert view.scores == state.scores() == (0, 12, 0, 12)
    assert [player.score for player in view.players] == [0, 12, 0, 12]


# -- view, snapshot and bad input ----------------------------------------------------------


def test_each_seat_sees_its_own_hand_and_the_public_table() -> None:
    state = mixed_hand_with_trump()
    for seat, card in [(1, "JH"), (2, "QH"), (3, "9S"), (0, "7C"), (2, "AD")]:
        act(state, seat, f"play {card}")
    spectator = state.view(None)
    assert spectator.hand == () and spectator.legal_actions == ()
    view = state.view(3)
    assert view.hand == state.hand(3) and "play 7D" in map(str, view.legal_actions)
    assert view.last_trick is not None and view.last_trick.winner == 2
    assert view.current_trick is not None and str(view.current_trick.plays[0].card) == "AD"
    assert len(view.tricks) == 1 and view.tricks[0].led_suit is Suit.HEARTS
    players = view.players
    assert [p.bid for p in players] == ["pass", "6", "pass", "pass"]
    assert [p.tricks_taken for p in players] == [0, 0, 1, 0]
    assert [p.points_this_hand for p in players] == [0, 0, 1, 0]
    assert [p.hand_size for p in players] == [7, 7, 6, 7]


def test_snapshot_is_the_whole_state_as_json() -> None:
    state = mixed_hand_with_trump()
    act(state, 1, "play JH")
    data = json.loads(json.dumps(state.snapshot()))
    assert data == state.snapshot()
    assert data["hands"][2] == [str(c) for c in state.hand(2)]
    assert data["plays"] == [[1, "JH"]] and data["trump"] == "H"
    assert state.clone().digest() == state.digest()
    other = state.clone()
    act(other, 2, "play QH")
    assert other.digest() != state.digest()


def test_bad_input_leaves_the_state_unchanged() -> None:
    state = new()
    with pytest.raises(IllegalAction):
        act(state, 1, "bid 6")
    before = state.digest()
    with pytest.raises(BadDeck):
        state.deal(list(kaiser_deck())[:-1])
    assert state.digest() == before
    deal(state, MIXED_HANDS)
    expect_refused(state, 2, "bid 6", NotYourTurn)
    expect_refused(state, 1, "play 8S", IllegalAction, "bidding")
    expect_refused(state, 1, "trump H", IllegalAction, "bidding")
    with pytest.raises(BadDeck):
        state.deal(kaiser_deck())
    call_round(state, ["6", "pass", "pass", "pass"])
    expect_refused(state, 1, "bid 7", IllegalAction, "the bidder names trump")
    act(state, 1, "trump H")
    expect_refused(state, 1, "play AC", IllegalAction, "card not in hand")
    expect_refused(state, 1, "play 8S name H", IllegalAction, "play a card")
    expect_refused(state, 1, "pass", IllegalAction, "play a card")
    expect_refused(state, 0, "play AC", NotYourTurn)
    expect_refused(state, 7, "play AC", NotYourTurn)
    state.team_scores = [100, 0]
    finish_hand(state)
    assert state.is_over
    expect_refused(state, 1, "bid 6", GameOver)
    with pytest.raises(GameOver):
        state.deal(kaiser_deck())
