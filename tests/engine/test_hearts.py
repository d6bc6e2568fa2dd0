"""Hearts (Kierki): one scenario per sentence of rules/hearts.md (and hearts.pl.md)
and the Hearts rulings.

Positions are built by dealing a constructed deck and, where the hand passes,
by choosing the cards so that the hands after the pass are the ones the test
names: every test picks the hands it needs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping

import pytest

from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit, parse_cards, standard_deck
from parlour.engine.errors import (
    BadDeck,
    EngineError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    MalformedAction,
    NotYourTurn,
)
from parlour.engine.hearts import INFO, HeartsState, pass_direction, points_in
from parlour.engine.playout import play_out, shuffled
from parlour.engine.registry import get_game, new_game
from tests.engine.conftest import cards_in_view

PACK = standard_deck()
Chooser = Callable[[HeartsState, int, list[Action]], Action]

# -- helpers ---------------------------------------------------------------------


def new_table() -> HeartsState:
    state = INFO.new(4, {})
    assert isinstance(state, HeartsState)
    return state


def cards(text: str) -> set[Card]:
    return set(parse_cards(text))


def fill(hands: Mapping[int, str]) -> dict[int, list[Card]]:
    """The named cards per seat, the rest of the pack filled in pack order, seat by seat."""
    wanted = {seat: list(parse_cards(hands.get(seat, ""))) for seat in range(4)}
    used = {card for named in wanted.values() for card in named}
    spare = [card for card in PACK if card not in used]
    for seat in range(4):
        while len(wanted[seat]) < 13:
            wanted[seat].append(spare.pop(0))
    return wanted


def deal_exactly(state: HeartsState, dealt: Mapping[int, list[Card]]) -> None:
    """Deal ``dealt[seat]`` to each seat, one card at a time from the dealer's left."""
    first = state.view(None).dealer + 1
    state.deal([dealt[(first + k) % 4][k // 4] for k in range(52)])


def start_hand(state: HeartsState, hands: Mapping[int, str] | None = None) -> None:
    """Deal and pass so that the hands *after the pass* are ``hands`` (filled as ``fill``).

    Each seat receives the last three cards of its (filled) hand; the seat that
    passes to it is dealt them and gives them.
    """
    after = fill(hands or {})
    offset = pass_direction(state.view(None).hand_number)[1]
    if not offset:
        deal_exactly(state, after)
        return
    received = {seat: after[seat][-3:] for seat in range(4)}
    gives = {seat: received[(seat + offset) % 4] for seat in range(4)}
    dealt = {seat: after[seat][:-3] + gives[seat] for seat in range(4)}
    deal_exactly(state, dealt)
    for seat in range(4):
        for card in gives[seat]:
            state.apply(seat, Action.give(card))
    assert state.view(None).phase == "play"


def play(state: HeartsState, *codes: str) -> None:
    """Each seat to act in turn plays the next card named."""
    for code in codes:
        state.apply(state.to_act()[0], Action.parse(f"play {code}"))


def lowest(state: HeartsState, seat: int, legal: list[Action]) -> Action:
    return legal[0]


def points_first(state: HeartsState, seat: int, legal: list[Action]) -> Action:
    """Shed the queen of spades, then hearts, when allowed; else the lowest card."""
    for action in legal:
        if str(action) == "play QS":
            return action
    return next((a for a in legal if a.card is not None and a.card.suit.value == "H"), legal[0])


def play_hand(state: HeartsState, choose: Chooser = lowest, stop_before: int = 0) -> None:
    """Play on until the hand ends (or until ``stop_before`` plays remain in it)."""
    while state.chance() is None and not state.is_over:
        view = state.view(None)
        left = sum(player.hand_size for player in view.players)
        if left <= stop_before:
            return
        seat = state.to_act()[0]
        state.apply(seat, choose(state, seat, state.legal_actions(seat)))


def moon_hand(state: HeartsState, shooter: int, choose: Chooser = lowest) -> None:
    """A hand that ``shooter`` must win trick by trick: it holds every club."""
    start_hand(state, {shooter: "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"})
    play_hand(state, choose)


def bitset(text: str) -> int:
    mask = 0
    for card in parse_cards(text):
        mask |= 1 << card.index
    return mask


def legal(state: HeartsState, seat: int) -> set[str]:
    return {str(action) for action in state.legal_actions(seat)}


def refused(state: HeartsState, seat: int, text: str, error: type[EngineError]) -> EngineError:
    """Apply ``text`` by ``seat``, expect ``error``, and check nothing changed."""
    before = state.digest()
    with pytest.raises(error) as caught:
        state.apply(seat, Action.parse(text))
    assert state.digest() == before
    return caught.value


# -- setup -----------------------------------------------------------------------


def test_game_info_has_no_options_and_seats_four() -> None:
    info = get_game("hearts")
    assert (info.name, info.min_seats, info.max_seats, info.options) == (
        "Hearts (Kierki)",
        4,
        4,
        (),
    )
    assert info.rules_file == "hearts.md" and "Kierki" in info.rules_text
    with pytest.raises(InvalidOptions):
        new_game("hearts", 3)
    with pytest.raises(InvalidOptions):
        new_game("hearts", 4, {"jack_of_diamonds": True})


def test_four_players_thirteen_cards_each() -> None:
    state = new_table()
    assert state.chance() == tuple(sorted(PACK))
    state.deal(shuffled(PACK, random.Random(3)))
    assert [len(state.hand(seat)) for seat in range(4)] == [13] * 4
    assert sorted(state.accounted_cards()) == sorted(PACK)


def test_cards_are_dealt_one_at_a_time_from_the_dealers_left() -> None:
    state = new_table()
    assert state.view(None).dealer == 0
    state.deal(PACK)
    assert state.hand(1) == PACK[0::4]
    assert state.hand(2) == PACK[1::4]
    assert state.hand(0) == PACK[3::4]


def test_the_deal_passes_left_each_hand() -> None:
    state = new_table()
    dealers = []
    for shooter in (0, 1, 2):
        dealers.append(state.view(None).dealer)
        moon_hand(state, shooter)
    dealers.append(state.view(None).dealer)
    assert dealers == [0, 1, 2, 3]


# -- the pass --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand_number", "direction", "offset"),
    [(1, "left", 1), (2, "right", 3), (3, "across", 2), (4, "none", 0), (5, "left", 1)],
)
def test_pass_cycle_left_right_across_none_repeats(
    hand_number: int, direction: str, offset: int
) -> None:
    state = new_table()
    for shooter in range(hand_number - 1):
        moon_hand(state, shooter % 4)
    assert state.view(None).hand_number == hand_number
    state.deal(PACK)
    view = state.view(0)
    assert view.pass_direction == direction
    if not offset:
        assert view.phase == "play" and state.legal_actions(state.to_act()[0]) == [
            Action.play(Card.parse("2C"))
        ]
        assert "no passing this hand" in view.notes
        return
    dealt = {seat: state.hand(seat) for seat in range(4)}
    for seat in range(4):
        for card in dealt[seat][-3:]:
            state.apply(seat, Action.give(card))
    for seat in range(4):
        receiver = (seat + offset) % 4
        assert set(dealt[seat][-3:]) <= set(state.hand(receiver))
        assert not set(dealt[seat][-3:]) & set(state.hand(seat))
        assert state.view(receiver).received_cards == dealt[seat][-3:]


def test_pass_is_three_give_choices_per_seat_in_any_order() -> None:
    state = new_table()
    state.deal(PACK)
    assert state.view(None).phase == "pass"
    assert state.to_act() == (0, 1, 2, 3)
    assert legal(state, 2) == {f"give {card}" for card in state.hand(2)}
    state.apply(2, Action.parse("give 2D"))
    assert "give 2D" not in legal(state, 2) and len(legal(state, 2)) == 12
    state.apply(0, Action.parse("give 5C"))
    state.apply(2, Action.parse("give 3C"))
    state.apply(2, Action.parse("give 7C"))
    assert state.to_act() == (0, 1, 3)
    assert state.legal_actions(2) == []


def test_passed_cards_are_hidden_from_the_other_seats() -> None:
    state = new_table()
    state.deal(PACK)
    for code in ("5C", "9C", "KC"):
        state.apply(0, Action.parse(f"give {code}"))
    chosen = cards("5C 9C KC")
    assert set(state.view(0).passed_cards) == chosen
    for seat in (1, 2, 3, None):
        view = state.view(seat)
        assert view.passed_cards == () and view.received_cards == ()
        assert not any(code in move.text for move in view.history for code in ("5C", "9C", "KC"))
    assert [move.seat for move in state.view(None).history] == [0]


def test_cards_move_only_when_all_four_have_chosen() -> None:
    state = new_table()
    state.deal(PACK)
    before = [state.hand(seat) for seat in range(4)]
    for seat in (0, 1, 2):
        for card in before[seat][:3]:
            state.apply(seat, Action.give(card))
    assert [state.hand(seat) for seat in range(4)] == before
    assert state.view(1).received_cards == ()
    for card in before[3][:3]:
        state.apply(3, Action.give(card))
    assert set(state.view(1).received_cards) == set(before[0][:3])
    assert set(state.view(0).received_cards) == set(before[3][:3])
    assert set(state.view(0).passed_cards) == set(before[0][:3])
    for seat in (2, 3, None):
        assert not cards_in_view(state.view(seat)) & set(before[0][:3])


def test_giving_a_card_twice_is_refused() -> None:
    state = new_table()
    state.deal(PACK)
    state.apply(1, Action.parse("give 2C"))
    error = refused(state, 1, "give 2C", IllegalAction)
    assert error.rule == "pass three cards" and "2C" in str(error)


def test_giving_a_fourth_card_is_refused() -> None:
    state = new_table()
    state.deal(PACK)
    for code in ("2C", "6C", "TC"):
        state.apply(1, Action.parse(f"give {code}"))
    error = refused(state, 1, "give AC", NotYourTurn)
    assert "already chosen its three cards" in str(error)


def test_giving_a_card_not_held_is_refused() -> None:
    state = new_table()
    state.deal(PACK)
    assert "card not in hand" in str(refused(state, 1, "give 3C", IllegalAction))
    assert "card not in hand" in str(refused(state, 1, "give W1", IllegalAction))


def test_giving_outside_the_pass_phase_is_refused() -> None:
    state = new_table()
    start_hand(state)
    seat = state.to_act()[0]
    error = refused(state, seat, f"give {state.hand(seat)[0]}", IllegalAction)
    assert str(error) == f"pass three cards: the pass is over; seat {seat} must play a card"
    refused(state, (seat + 1) % 4, "give AS", NotYourTurn)
    play_hand(state)
    moon_hand(state, 1)
    moon_hand(state, 2)  # on to hand 4, which has no pass
    assert state.view(None).pass_direction == "none"
    state.deal(PACK)
    seat = state.to_act()[0]
    error = refused(state, seat, f"give {state.hand(seat)[0]}", IllegalAction)
    assert "there is no passing this hand" in str(error)


def test_playing_during_the_pass_is_refused() -> None:
    state = new_table()
    state.deal(PACK)
    assert refused(state, 1, "play 2C", IllegalAction).rule == "pass three cards"


# -- play ------------------------------------------------------------------------

ALL_CLUBS = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
ALL_HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"


def seat_two_leads_after_the_first_trick() -> HeartsState:
    """Seat 2 takes the first trick with AC and leads; hearts are not broken."""
    state = new_table()
    start_hand(
        state,
        {
            0: "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            1: "3C 4C 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",
            2: "AC 2D AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
            3: "5C 6C 7C 8C 9C TC JC QC KC KS QH KH AH",
        },
    )
    play(state, "2C", "3C", "AC", "5C")
    assert state.to_act() == (2,)
    return state


def test_two_of_clubs_leads_the_first_trick() -> None:
    state = new_table()
    start_hand(state, {2: "2C 3C 4C"})
    assert state.to_act() == (2,)
    assert state.legal_actions(2) == [Action.play(Card.parse("2C"))]
    error = refused(state, 2, "play 3C", IllegalAction)
    assert str(error) == "first lead is the two of clubs: seat 2 must lead 2C, not 3C"


def test_must_follow_the_led_suit_when_able() -> None:
    state = seat_two_leads_after_the_first_trick()
    play(state, "AS")
    assert legal(state, 3) == {"play KS"}
    error = refused(state, 3, "play 6C", IllegalAction)
    assert str(error) == "must follow suit: seat 3 holds spades and cannot play 6C on a spade lead"


def test_any_card_may_be_played_when_void_in_the_led_suit() -> None:
    state = seat_two_leads_after_the_first_trick()
    play(state, "2D")
    assert legal(state, 3) == {f"play {card}" for card in state.hand(3)}
    play(state, "AH", "9D")
    assert legal(state, 1) == {f"play {card}" for card in state.hand(1)}


def test_highest_card_of_the_led_suit_wins_and_leads_the_next_trick() -> None:
    state = seat_two_leads_after_the_first_trick()
    play(state, "2D", "AH", "9D", "QS")  # no trump: the ace of hearts and QS are off suit
    trick = state.view(None).last_trick
    assert trick is not None and trick.winner == 0 and trick.led_suit is Suit.DIAMONDS
    assert [str(p.card) for p in trick.plays] == ["2D", "AH", "9D", "QS"]
    assert [p.seat for p in trick.plays] == [2, 3, 0, 1]
    assert state.to_act() == (0,)


def test_each_heart_scores_one_point_and_the_queen_of_spades_thirteen() -> None:
    state = seat_two_leads_after_the_first_trick()
    play(state, "2D", "AH", "9D", "QS")
    play(state, "3D", "2S", "2H", "QH")
    players = state.view(None).players
    assert players[0].points_this_hand == 1 + 13 + 1 + 1
    assert [p.tricks_taken for p in players] == [2, 0, 1, 0]
    assert points_in(0) == 0 and points_in(bitset("QS 2H AH")) == 15


def test_hearts_may_not_be_led_before_they_are_broken() -> None:
    state = seat_two_leads_after_the_first_trick()
    assert legal(state, 2) == {"play 2D", "play AS"}
    error = refused(state, 2, "play 7H", IllegalAction)
    assert str(error) == "hearts not broken: seat 2 cannot lead 7H"


def test_hearts_may_be_led_once_broken() -> None:
    state = new_table()
    start_hand(
        state,
        {
            0: "2C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
            1: "AC AH AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
            2: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        },
    )
    play(state, "2C", "AC", "2H")  # seat 2 may discard a heart on the first trick...
    assert state.view(None).hearts_broken is True  # ...and that breaks hearts
    play(state, "3C")
    assert state.to_act() == (1,)
    assert legal(state, 1) == {f"play {card}" for card in state.hand(1)}
    play(state, "AH")


def seat_one_leads_only_hearts() -> HeartsState:
    """Seat 1 wins the first trick with AC and then holds twelve hearts."""
    state = new_table()
    start_hand(
        state,
        {
            0: "2C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
            1: "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
            2: "3C AH AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
            3: "4C 5C 6C 7C 8C 9C TC JC QC KC QS KS AS",
        },
    )
    play(state, "2C", "AC", "3C", "4C")
    assert state.to_act() == (1,)
    return state


def test_a_hand_of_only_hearts_may_lead_a_heart_before_hearts_are_broken() -> None:
    state = seat_one_leads_only_hearts()
    assert legal(state, 1) == {f"play {card}" for card in state.hand(1)}
    play(state, "2H")
    assert state.view(None).hearts_broken is False  # leading a heart does not break them


def test_following_a_heart_lead_or_discarding_on_it_does_not_break_hearts() -> None:
    state = seat_one_leads_only_hearts()
    play(state, "2H", "AH", "QS", "2D")
    view = state.view(None)
    assert view.hearts_broken is False and "hearts are broken" not in view.notes


def test_the_queen_of_spades_discarded_on_another_suit_does_not_break_hearts() -> None:
    state = seat_one_leads_only_hearts()
    play(state, "2H", "AH", "5C", "2D")  # seat 2 wins with AH
    play(state, "AD", "QS")  # seat 3, void in diamonds, discards the queen
    assert state.view(None).hearts_broken is False


def test_a_heart_discarded_on_another_suit_breaks_hearts() -> None:
    state = seat_one_leads_only_hearts()
    play(state, "2H", "AH", "5C", "2D")
    play(state, "AD", "QS", "3D")
    assert state.view(None).hearts_broken is False
    play(state, "3H")  # seat 1 holds only hearts and discards one on a diamond trick
    view = state.view(None)
    assert view.hearts_broken is True and "hearts are broken" in view.notes


def test_only_hearts_and_the_queen_of_spades_must_lead_the_queen() -> None:
    state = new_table()
    start_hand(
        state,
        {
            0: "2C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
            1: "AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
            2: "3C AD KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS",
        },
    )
    play(state, "2C", "AC", "3C", "4C")
    assert state.to_act() == (1,)
    assert legal(state, 1) == {"play QS"}
    error = refused(state, 1, "play 2H", IllegalAction)
    assert error.rule == "hearts not broken" and "must lead QS" in str(error)


def test_no_heart_or_queen_of_spades_on_the_first_trick() -> None:
    state = new_table()
    start_hand(state, {0: ALL_CLUBS, 1: "QS AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3D"})
    play(state, "2C")
    assert legal(state, 1) == {"play 3D"}
    assert refused(state, 1, "play QS", IllegalAction).rule == "no points on the first trick"
    assert refused(state, 1, "play AH", IllegalAction).rule == "no points on the first trick"
    play(state, "3D", "2D")
    assert "play 3H" not in legal(state, 3) and "play 2S" in legal(state, 3)


def test_first_trick_allows_hearts_and_the_queen_with_no_other_legal_card() -> None:
    state = new_table()
    start_hand(state, {0: ALL_CLUBS, 1: "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"})
    play(state, "2C")
    assert legal(state, 1) == {f"play {card}" for card in state.hand(1)}
    play(state, "QS")
    assert state.view(None).hearts_broken is False  # the queen does not break hearts
    assert legal(state, 2) == {f"play {card}" for card in state.hand(2)}  # all diamonds
    play(state, "2D")
    assert legal(state, 3) == {f"play {card}" for card in state.hand(3) if card.suit.value == "S"}


def test_first_trick_allows_a_heart_from_a_hand_of_only_hearts() -> None:
    state = new_table()
    start_hand(state, {0: ALL_CLUBS, 3: ALL_HEARTS})
    play(state, "2C", "2D")
    assert "play QS" not in legal(state, 2)  # seat 2 holds other spades
    play(state, "2S")
    assert legal(state, 3) == {f"play {card}" for card in state.hand(3)}
    play(state, "AH")
    assert state.view(None).hearts_broken is True  # a heart discarded on a club trick


# -- scoring and the end of the game ---------------------------------------------


def test_shooting_the_moon_scores_zero_and_26_to_each_other_player() -> None:
    state = new_table()
    moon_hand(state, 2)
    view = state.view(None)
    assert view.hand_scores == ((26, 26, 0, 26),)
    assert state.scores() == (26, 26, 0, 26)
    assert "seat 2 shot the moon" in view.notes


def test_a_hand_ends_after_thirteen_tricks_and_scores_accumulate() -> None:
    deck = shuffled(PACK, random.Random(5))
    spread = {seat: " ".join(map(str, deck[13 * seat : 13 * seat + 13])) for seat in range(4)}
    state = new_table()
    start_hand(state, spread)
    play_hand(state, stop_before=1)
    view = state.view(None)
    assert len(view.tricks) == 12 and state.chance() is None
    taken = [p.points_this_hand for p in view.players]
    play_hand(state)
    last = state.view(None).last_trick
    assert last is not None and last.winner is not None
    taken[last.winner] += points_in(bitset(" ".join(str(p.card) for p in last.plays)))
    assert sum(taken) == 26 and 26 not in taken  # no moon in this deal
    assert state.view(None).hand_scores == (tuple(taken),)
    start_hand(state, spread)
    play_hand(state)
    first, second = state.view(None).hand_scores
    assert state.scores() == tuple(a + b for a, b in zip(first, second, strict=True))


def test_game_ends_at_the_end_of_a_hand_in_which_a_player_reaches_100() -> None:
    state = new_table()
    for _ in range(3):
        moon_hand(state, 0)
    assert state.scores() == (0, 78, 78, 78) and not state.is_over
    start_hand(state, {1: ALL_CLUBS})
    play_hand(state, points_first, stop_before=1)
    view = state.view(None)
    assert 78 + view.players[1].points_this_hand >= 100  # past 100 inside the hand...
    assert not state.is_over and state.scores() == (0, 78, 78, 78)
    play_hand(state, points_first)  # ...but only the end of the hand counts (a moon: 0)
    assert state.scores() == (26, 78, 104, 104)
    assert state.is_over and state.view(None).phase == "over"


def test_lowest_total_wins() -> None:
    state = new_table()
    for shooter in (0, 0, 0, 1):
        moon_hand(state, shooter)
    assert state.winners() == (0,) and state.scores()[0] == min(state.scores())
    view = state.view(2)
    assert view.is_over and view.winners == (0,) and "seat 0 wins with 26" in view.notes


def test_tied_lowest_total_plays_another_hand() -> None:
    state = new_table()
    for shooter in (0, 1, 0, 1):
        moon_hand(state, shooter)
    assert state.scores() == (52, 52, 104, 104)
    assert not state.is_over and state.chance() is not None
    view = state.view(None)
    assert "the lowest total is tied: another hand is played" in view.notes
    assert view.hand_number == 5 and view.pass_direction == "left"
    moon_hand(state, 1)
    assert state.scores() == (78, 52, 130, 130) and state.winners() == (1,)


def test_every_hand_is_worth_26_or_78_with_a_moon_and_the_end_follows_the_rule() -> None:
    for seed in range(40):
        state = play_out(new_table(), random.Random(seed))
        hands = state.view(None).hand_scores
        totals = [0, 0, 0, 0]
        for number, points in enumerate(hands, start=1):
            assert sum(points) == 26 or sorted(points) == [0, 26, 26, 26]
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            finished = max(totals) >= 100 and totals.count(min(totals)) == 1
            assert finished == (number == len(hands))
        assert tuple(totals) == state.scores()
        assert state.winners() == (totals.index(min(totals)),)


# -- bad input, views and state --------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "text", "error"),
    [
        (1, "play AD", NotYourTurn),  # not seat 1's turn
        (9, "play 4D", NotYourTurn),  # no such seat
        (2, "play KD", IllegalAction),  # card not in hand
        (2, "play W1", IllegalAction),  # not a Hearts card at all
        (2, "play 2D name H", MalformedAction),  # Hearts names no suit
        (2, "bid 3", IllegalAction),
        (2, "pass", IllegalAction),
        (2, "give 2D", IllegalAction),
    ],
)
def test_bad_input_leaves_the_state_unchanged(
    seat: int, text: str, error: type[EngineError]
) -> None:
    state = seat_two_leads_after_the_first_trick()
    refused(state, seat, text, error)
    assert str(refused(state, 2, "play KD", IllegalAction)) == (
        "card not in hand: seat 2 does not hold KD"
    )


def test_deals_out_of_turn_or_wrong_decks_are_refused() -> None:
    state = new_table()
    before = state.digest()
    for deck in (PACK[:51], PACK[:51] + PACK[:1], [*PACK[:51], Card.parse("W1")]):
        with pytest.raises(BadDeck):
            state.deal(deck)
    assert state.digest() == before
    with pytest.raises(IllegalAction):
        state.apply(0, Action.parse("give 2C"))
    state.deal(PACK)
    with pytest.raises(BadDeck):
        state.deal(PACK)


def test_nothing_is_accepted_after_the_end() -> None:
    state = new_table()
    for _ in range(4):
        moon_hand(state, 3)
    assert state.is_over and state.to_act() == () and state.chance() is None
    before = state.digest()
    with pytest.raises(GameOver):
        state.apply(0, Action.parse("play 2C"))
    with pytest.raises(GameOver):
        state.deal(PACK)
    assert state.digest() == before
    assert sorted(state.accounted_cards()) == sorted(PACK)


def test_view_shows_the_hand_tricks_and_players() -> None:
    state = new_table()
    assert state.view(0).phase == "deal" and state.view(0).to_act == ()
    state.deal(PACK)
    assert state.view(0).phase == "pass" and state.view(0).legal_actions
    state = seat_two_leads_after_the_first_trick()
    play(state, "2D", "AH")
    view = state.view(0)
    assert view.phase == "play" and view.seat == 0 and view.hand == state.hand(0)
    assert {str(a) for a in view.legal_actions} == legal(state, 0)
    assert (
        len(view.tricks) == 1 and view.tricks[0].winner == 2 and view.last_trick == view.tricks[0]
    )
    assert view.current_trick is not None and view.current_trick.winner is None
    assert [str(p.card) for p in view.current_trick.plays] == ["2D", "AH"]
    assert view.hearts_broken is True and view.trump_text == "no trump"
    assert [p.hand_size for p in view.players] == [12, 12, 11, 11]
    assert state.view(None).hand == () and state.view(None).legal_actions == ()
    assert view.received_cards and set(view.received_cards) <= set(state.hand(0)) | {
        Card.parse("2C")
    }


def test_snapshot_is_plain_data_with_the_pending_pass_choices() -> None:
    state = new_table()
    state.deal(PACK)
    before = state.digest()
    state.apply(1, Action.parse("give AC"))
    snapshot = state.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert snapshot["chosen"][1] == ["AC"] and state.digest() != before
    twin = state.clone()
    assert twin.digest() == state.digest()
    twin.apply(1, Action.parse("give 2C"))
    assert twin.digest() != state.digest() and state.snapshot()["chosen"][1] == ["AC"]
