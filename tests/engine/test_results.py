"""Structured hand results, end rules and reasons, the dealing order, and starting
from a position: the engine facts the contract's HandResult and EndRule carry."""

from __future__ import annotations

import random

import pytest

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card, Suit, kaiser_deck, standard_deck
from parlour.engine.crazy8s import CrazyEights
from parlour.engine.errors import InvalidOptions
from parlour.engine.hearts import HeartsState
from parlour.engine.kaiser import KaiserState
from parlour.engine.registry import GameInfo, all_games, new_game
from parlour.engine.results import (
    CrazyEightsRoundResult,
    EndReason,
    GameEnd,
    HeartsHandResult,
    KaiserHandResult,
    TieRule,
    WinnerRule,
    WizardRoundResult,
)
from parlour.engine.wizard import WizardState


def play_first_legal(state: GameState, until_hand_over: int) -> None:
    """Play the first legal action of the seat to act until hand ``until_hand_over`` is scored."""
    while not state.is_over:
        result = state.last_hand()
        if result is not None and result.hand_number == until_hand_over:
            return
        if state.chance() is not None:
            return
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])


def test_kaiser_set_contract_is_a_structured_result_and_can_end_the_game() -> None:
    # Seat 0 holds every club; seat 1 bids ten and names clubs: seat 0's
    # trumps win all eight tricks, so the bidders take nothing and are set.
    hands = [
        "7C 8C 9C TC JC QC KC AC",
        "7D 8D 9D TD JD QD KD AD",
        "5H 8H 9H TH JH QH KH AH",
        "3S 8S 9S TS JS QS KS AS",
    ]
    state = KaiserState.from_position(hands, dealer=0, hand_number=3, scores=(10, -45))
    for seat, call in ((1, "bid 10"), (2, "pass"), (3, "pass"), (0, "pass"), (1, "trump C")):
        state.apply(seat, Action.parse(call))
    play_first_legal(state, until_hand_over=3)
    result = state.last_hand()
    assert result is not None and result.hand_number == 3 and result.dealer == 0
    detail = result.detail
    assert isinstance(detail, KaiserHandResult)
    assert (detail.bidder, detail.bidding_team, detail.bid, detail.no_trump) == (1, 1, 10, False)
    assert detail.trump is Suit.CLUBS and not detail.made
    assert detail.points_taken == (10, 0) and detail.score_change == (10, -10)
    assert result.points == (10, -10, 10, -10) and result.totals == (20, -55, 20, -55)
    assert result.tricks_taken == (8, 0, 0, 0)
    # -55 is at or below minus the target (52): seats 1 and 3 lose
    assert state.is_over and state.winners() == (0, 2)
    assert state.end_reason() is EndReason.FELL_TO_MINUS_TARGET
    view = state.view(2)
    assert view.last_hand == result and view.end_reason is EndReason.FELL_TO_MINUS_TARGET
    rule = view.end_rule
    assert rule is not None and rule.ends_by is GameEnd.TARGET and rule.target == 52
    assert rule.loses_at_minus_target and rule.partnerships
    assert rule.ties is TieRule.BIDDING_SIDE_WINS


def test_hearts_moon_keeps_the_raw_points_and_the_last_trick() -> None:
    # Seat 0 holds all thirteen clubs: it leads 2C and every club after, the
    # others can never follow, so it takes all thirteen tricks and every point.
    rest = [card for card in standard_deck() if card.suit is not Suit.CLUBS]
    hands = [
        " ".join(str(c) for c in standard_deck() if c.suit is Suit.CLUBS),
        *(" ".join(str(c) for c in rest[n::3]) for n in range(3)),
    ]
    state = HeartsState.from_position(hands, dealer=3, hand_number=4, scores=(0, 10, 20, 30))
    assert state.view(0).phase == "play" and state.to_act() == (0,)
    play_first_legal(state, until_hand_over=4)
    result = state.last_hand()
    assert result is not None and result.hand_number == 4 and result.dealer == 3
    detail = result.detail
    assert isinstance(detail, HeartsHandResult)
    assert detail.moon_shooter == 0
    assert detail.points_taken == (26, 0, 0, 0)
    assert result.points == (0, 26, 26, 26) and result.totals == (0, 36, 46, 56)
    assert detail.pass_direction == "none" and not detail.tie_plays_on
    assert detail.last_trick.winner == 0 and detail.last_trick.plays[0].card == Card.parse("AC")
    assert len(detail.last_trick.plays) == 4
    # the next hand is due: the result stays on the table while it is played
    assert state.chance() is not None
    assert state.view(None).last_hand == result and state.end_reason() is None


def test_hearts_game_over_says_the_target_was_reached() -> None:
    rest = [card for card in standard_deck() if card.suit is not Suit.CLUBS]
    hands = [
        " ".join(str(c) for c in standard_deck() if c.suit is Suit.CLUBS),
        *(" ".join(str(c) for c in rest[n::3]) for n in range(3)),
    ]
    state = HeartsState.from_position(hands, hand_number=2, scores=(0, 80, 90, 95), passing=False)
    play_first_legal(state, until_hand_over=2)
    assert state.is_over and state.winners() == (0,)
    assert state.end_reason() is EndReason.TARGET_REACHED
    rule = state.view(1).end_rule
    assert rule is not None and rule.target == 100 and rule.winner is WinnerRule.LOWEST_TOTAL
    assert rule.ties is TieRule.PLAY_ON


def test_crazy8s_blocked_round_has_no_seat_that_went_out() -> None:
    state = CrazyEights.from_position(
        ["2H 3H", "4H KD", "5H 9C"], pile="QS", dealer=2, hand_number=2, scores=(5, 0, 7), rounds=3
    )
    for seat in (0, 1, 2):
        assert state.view(seat).passes_in_a_row == seat
        state.apply(seat, Action.pass_())
    result = state.last_hand()
    assert result is not None and result.hand_number == 2 and result.dealer == 2
    detail = result.detail
    assert isinstance(detail, CrazyEightsRoundResult)
    assert detail.blocked and detail.went_out is None
    assert detail.cards_left == (2, 2, 2) and detail.stock_rebuilds == 0
    assert result.points == (5, 14, 14) and result.totals == (10, 14, 21)
    assert result.tricks_taken == ()
    rule = state.view(0).end_rule
    assert not state.is_over and rule is not None and rule.rounds == 3


def test_crazy8s_went_out_and_must_play_shown_only_to_the_drawer() -> None:
    state = CrazyEights.from_position(["2H", "4C KD"], pile="QH", stock="5D KH", turn=0)
    state.apply(0, Action.parse("play 2H"))
    result = state.last_hand()
    assert result is not None and isinstance(result.detail, CrazyEightsRoundResult)
    assert result.detail.went_out == 0 and result.points == (0, 14)
    assert state.end_reason() is EndReason.ROUNDS_PLAYED
    drawing = CrazyEights.from_position(["2C 3C", "4C KD"], pile="QH", stock="5D KH")
    drawing.apply(1, Action.draw())  # 5D does not play on QH with hearts in force
    drawing.apply(1, Action.draw())  # KH plays: it must be played at once
    assert drawing.view(1).must_play == Card.parse("KH")
    assert drawing.view(0).must_play is None and drawing.view(None).must_play is None


def test_wizard_round_result_has_bids_tricks_and_trump() -> None:
    state = WizardState.from_position(["W1 2C", "N1 AH", "KS 3D"], turned="7H", dealer=2)
    assert state.round == 2 and state.trump is Suit.HEARTS and state.to_act() == (0,)
    for seat, bid in ((0, 1), (1, 1), (2, 1)):
        state.apply(seat, Action.bid(bid))
    play_first_legal(state, until_hand_over=2)
    result = state.last_hand()
    assert result is not None and result.hand_number == 2
    detail = result.detail
    assert isinstance(detail, WizardRoundResult)
    assert detail.bids == (1, 1, 1) and detail.trump is Suit.HEARTS
    assert detail.turned_card == Card.parse("7H")
    assert sum(result.tricks_taken) == 2
    assert result.points == tuple(
        20 + 10 * taken if taken == 1 else -10 for taken in result.tricks_taken
    )
    rule = state.view(0).end_rule
    assert rule is not None and rule.rounds == 20 and rule.winner is WinnerRule.HIGHEST_TOTAL


def test_wizard_position_with_a_turned_wizard_waits_for_the_dealer() -> None:
    state = WizardState.from_position(["2C", "3C", "4C", "5C"], turned="W2", dealer=1)
    assert state.phase == "trump" and state.to_act() == (1,)
    named = WizardState.from_position(["2C", "3C", "4C", "5C"], turned="W2", trump=Suit.SPADES)
    assert named.phase == "bid" and named.trump is Suit.SPADES
    with pytest.raises(InvalidOptions):
        WizardState.from_position(["2C 3C", "4C", "5C"])


def test_positions_are_checked() -> None:
    with pytest.raises(InvalidOptions):
        HeartsState.from_position(["2C"] * 4)
    kaiser = KaiserState.from_position(
        [" ".join(str(c) for c in kaiser_deck()[n::4]) for n in range(4)], dealer=1, target=32
    )
    assert kaiser.to_act() == (2,) and kaiser.end_rule().target == 32


@pytest.mark.parametrize("info", all_games(), ids=lambda info: info.id)
def test_every_game_deals_as_its_deal_order_says(info: GameInfo) -> None:
    """Over several hands (Crazy 8s: with cards left from the last round), each
    seat's new hand is exactly what deal_order gives it."""
    rng = random.Random(7)
    game = info.id
    state = new_game(game, 4, {"rounds": 3} if game == "crazy8s" else {})
    deals = 0
    while not state.is_over and deals < 4:
        cards = state.chance()
        if cards is None:
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            continue
        deck = list(cards)
        rng.shuffle(deck)
        order = state.deal_order()
        assert len(order) == len(deck)
        rebuild = game == "crazy8s" and state.view(None).phase == "play"
        before = [state.hand(seat) for seat in range(4)]
        given = [state.dealt_cards(deck, seat) for seat in range(4)]
        state.deal(deck)
        for seat in range(4):
            expected = set(given[seat]) | (set(before[seat]) if rebuild else set())
            assert set(state.hand(seat)) == expected
        if not rebuild:
            deals += 1
            first = (state.view(None).dealer + 1) % 4
            assert order[0] == first
    catalogue = info.end_rule
    assert catalogue.text
    assert catalogue.rounds_option or catalogue.target or catalogue.target_option
