"""Scenario tests for Crazy 8s, one per rule sentence and toggle value.

Rules: shared/rules/crazy8s.md and the "All games" and "Crazy 8s" sections of
rulings.md. Hands, the turned card and the stock are controlled with stacked
decks (``stacked``) or with ``CrazyEights.from_position``.
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from parlour.engine.actions import Action
from parlour.engine.cards import STANDARD_RANKS, Card, Rank, Suit, parse_cards, standard_deck
from parlour.engine.crazy8s import INFO, CrazyEights, penalty
from parlour.engine.errors import (
    BadDeck,
    EngineError,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
)
from parlour.engine.playout import play_out
from parlour.engine.registry import new_game
from parlour.engine.view import Move
from tests.engine.conftest import cards_in_view


def stacked(hands: Sequence[str], turned: str, stock: str = "", dealer: int = 0) -> list[Card]:
    """A full pack ordered so the deal gives ``hands[seat]`` to each seat.

    Cards go one at a time from the dealer's left; then ``turned`` is turned
    up and the stock starts with ``stock``, the unnamed cards following.
    """
    seats = len(hands)
    parsed = [parse_cards(hand) for hand in hands]
    deck: list[Card] = []
    for i in range(len(parsed[0])):
        for offset in range(1, seats + 1):
            deck.append(parsed[(dealer + offset) % seats][i])
    deck.append(Card.parse(turned))
    deck += parse_cards(stock)
    return deck + sorted(set(standard_deck()) - set(deck))


def dealt(hands: Sequence[str], turned: str, stock: str = "", **options: object) -> CrazyEights:
    state = new_game("crazy8s", len(hands), options)
    assert isinstance(state, CrazyEights)
    state.deal(stacked(hands, turned, stock, dealer=state.dealer))
    return state


def act(state: CrazyEights, seat: int, text: str) -> None:
    state.apply(seat, Action.parse(text))


def legal(state: CrazyEights, seat: int) -> list[str]:
    return [str(action) for action in state.legal_actions(seat)]


def refused(state: CrazyEights, seat: int, text: str, rule: str) -> EngineError:
    """Apply ``text``, expect an error naming ``rule``, and check nothing changed."""
    before = state.digest()
    with pytest.raises(EngineError) as caught:
        act(state, seat, text)
    assert rule in caught.value.rule
    assert state.digest() == before
    return caught.value


# -- table -------------------------------------------------------------------


@pytest.mark.parametrize("seats", [1, 7])
def test_two_to_six_players_seat_range_refuses_others(seats: int) -> None:
    with pytest.raises(InvalidOptions, match="seat count"):
        new_game("crazy8s", seats)
    with pytest.raises(InvalidOptions, match="seat count"):
        CrazyEights(seats)


def test_two_to_six_players_are_seated() -> None:
    assert (INFO.min_seats, INFO.max_seats) == (2, 6)
    for seats in range(2, 7):
        assert new_game("crazy8s", seats).seats == seats


def test_toggles_default_to_standard_hand_drawing_until_playable_and_one_round() -> None:
    defaults = {spec.name: spec.default for spec in INFO.options}
    assert defaults == {"hand_size": "standard", "draw_until_playable": True, "rounds": 1}
    allowed = {spec.name: spec.allowed for spec in INFO.options}
    assert allowed["hand_size"] == ("standard", "5", "7", "9")
    assert allowed["rounds"] == (1, 3, 5)
    with pytest.raises(InvalidOptions):
        new_game("crazy8s", 3, {"rounds": 2})


def test_six_players_with_nine_cards_each_is_refused_at_setup() -> None:
    with pytest.raises(InvalidOptions) as caught:
        new_game("crazy8s", 6, {"hand_size": "9"})
    assert "six players with nine cards" in caught.value.rule
    assert new_game("crazy8s", 5, {"hand_size": "9"}).chance() == standard_deck()


def test_one_52_card_deck_is_asked_for_sorted() -> None:
    state = new_game("crazy8s", 4)
    assert state.chance() == standard_deck()
    assert state.to_act() == ()
    assert state.view(None).phase == "deal"


@pytest.mark.parametrize(("seats", "cards"), [(2, 7), (3, 5), (4, 5), (5, 5), (6, 5)])
def test_seven_cards_each_heads_up_five_otherwise(seats: int, cards: int) -> None:
    state = new_game("crazy8s", seats)
    state.deal(standard_deck())
    assert [len(state.hand(seat)) for seat in range(seats)] == [cards] * seats
    assert state.view(0).stock_count == 52 - seats * cards - 1


@pytest.mark.parametrize("cards", [5, 7, 9])
@pytest.mark.parametrize("seats", [2, 4])
def test_hand_size_toggle_fixes_five_seven_or_nine(seats: int, cards: int) -> None:
    state = new_game("crazy8s", seats, {"hand_size": str(cards)})
    state.deal(standard_deck())
    assert [len(state.hand(seat)) for seat in range(seats)] == [cards] * seats


def test_deal_goes_one_at_a_time_from_the_dealers_left_then_turns_a_card_up() -> None:
    state = new_game("crazy8s", 3)
    deck = standard_deck()
    state.deal(deck)
    # dealer 0: seat 1 gets the first card, seat 2 the second, the dealer the third
    assert state.hand(1) == deck[0:15:3]
    assert state.hand(2) == deck[1:15:3]
    assert state.hand(0) == deck[2:15:3]
    view = state.view(None)
    assert view.top_card == deck[15] == view.turned_card
    assert view.suit_in_force == deck[15].suit
    assert view.stock_count == 52 - 16
    assert state.snapshot()["stock"] == [str(card) for card in deck[16:]]
    assert view.phase == "play"


def test_player_to_the_dealers_left_plays_first_and_play_passes_left() -> None:
    state = dealt(["2C 3C 4C 5C 6C", "7C 9C TC JC QC", "KC AC 2D 3D 4D"], "5D")
    assert state.view(None).dealer == 0
    assert state.to_act() == (1,)
    refused(state, 0, "play 2C", "turn order")
    act(state, 1, "draw")  # nothing plays on 5D: 7C 9C TC JC QC
    assert state.to_act() == (1,)  # drawing until playable keeps the turn
    state = dealt(["2C 3C 4C 5C 6C", "7C 9C TC JC QD", "KC AC 2D 3D 4D"], "5D")
    act(state, 1, "play QD")
    assert state.to_act() == (2,)
    act(state, 2, "play 2D")
    assert state.to_act() == (0,)


def test_deal_passes_one_seat_left_each_round() -> None:
    state = new_game("crazy8s", 3, {"rounds": 5})
    dealers, first = [], []
    rng = random.Random(4)
    while not state.is_over:
        if state.chance() is not None and state.view(None).phase == "deal":
            dealers.append(state.view(None).dealer)
            deck = list(standard_deck())
            rng.shuffle(deck)
            state.deal(deck)
            first.append(state.to_act()[0])
        elif state.chance() is not None:
            state.deal(state.chance() or ())
        else:
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert dealers == [0, 1, 2, 0, 1]
    assert first == [1, 2, 0, 1, 2]


def test_turned_up_eight_puts_its_own_suit_in_force() -> None:
    state = dealt(["2C 3C 4C 5C 6C", "7C 9H TC JC QC", "KC AC 2D 3D 4D"], "8H")
    view = state.view(1)
    assert view.suit_in_force is Suit.HEARTS and view.suit_in_force_text == "hearts"
    assert "the turned-up 8H puts hearts in force" in view.notes
    assert legal(state, 1) == ["play 9H"]


# -- play ----------------------------------------------------------------------


def test_play_matches_the_suit_in_force_or_the_rank_on_top() -> None:
    state = CrazyEights.from_position(["KS 9H 5C", "2D 3D"], pile="5H", stock="4D", turn=0)
    assert legal(state, 0) == ["play 5C", "play 9H"]
    refused(state, 0, "play KS", "must match the suit in force or the rank")
    act(state, 0, "play 5C")
    assert state.view(None).suit_in_force is Suit.CLUBS
    assert state.view(None).top_card == Card.parse("5C")


def test_eights_are_wild_and_name_every_suit_including_their_own() -> None:
    state = CrazyEights.from_position(["KS", "8S 2D"], pile="5H", stock="4D")
    assert legal(state, 1) == [f"play 8S name {suit}" for suit in "CDHS"]
    act(state, 1, "play 8S name S")
    assert state.view(None).suit_in_force is Suit.SPADES
    assert legal(state, 0) == ["play KS"]


def test_suit_in_force_is_stated_in_words_after_an_eight() -> None:
    state = CrazyEights.from_position(["KS 4C", "2D 3D", "8S 2C"], pile="5C", stock="4D", turn=2)
    act(state, 2, "play 8S name H")
    for seat in (None, 0, 1, 2):
        view = state.view(seat)
        assert view.suit_in_force is Suit.HEARTS
        assert view.suit_in_force_text == "hearts"
        assert view.top_card == Card.parse("8S")
        assert "seat 2 named hearts" in view.notes
        assert view.history == (Move(2, "play 8S name H"),)
    assert legal(state, 0) == ["draw"]  # the 4C matches neither hearts nor the eight


def test_an_eight_must_name_a_suit() -> None:
    state = CrazyEights.from_position(["KS", "8S 2D"], pile="5H", stock="4D")
    refused(state, 1, "play 8S", "an eight names the suit in force")


def test_only_an_eight_names_a_suit() -> None:
    state = CrazyEights.from_position(["KS", "5D 2D"], pile="5H", stock="4D")
    refused(state, 1, "play 5D name C", "only an eight names the suit in force")


def test_going_out_with_an_eight_still_names_a_suit() -> None:
    state = CrazyEights.from_position(["KS 3C", "8C"], pile="5H", stock="4D")
    assert legal(state, 1) == [f"play 8C name {suit}" for suit in "CDHS"]
    refused(state, 1, "play 8C", "an eight names the suit in force")
    act(state, 1, "play 8C name D")
    assert state.is_over and state.view(None).phase == "over"
    assert state.view(None).history[-1] == Move(1, "play 8C name D")


def test_a_card_not_in_hand_is_refused_quoting_it() -> None:
    state = CrazyEights.from_position(["KS", "5D 2D"], pile="5H", stock="4D")
    error = refused(state, 1, "play 9H", "card not in hand")
    assert "9H" in error.detail


# -- drawing -------------------------------------------------------------------


def test_draw_only_when_nothing_plays_never_by_choice() -> None:
    state = CrazyEights.from_position(["KS", "5D 2C"], pile="5H", stock="4D")
    assert legal(state, 1) == ["play 5D"]
    error = refused(state, 1, "draw", "draw only when nothing plays")
    assert "5D" in error.detail


def test_draw_until_playable_keeps_drawing_then_plays_the_drawn_card_at_once() -> None:
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="5H", stock="4D 6S 9H 7H")
    for drawn in range(1, 3):
        act(state, 1, "draw")
        assert state.to_act() == (1,) and legal(state, 1) == ["draw"]
        assert len(state.hand(1)) == 2 + drawn
    act(state, 1, "draw")
    assert legal(state, 1) == ["play 9H"]
    assert "seat 1 drew a card that plays and must play it at once" in state.view(0).notes
    refused(state, 1, "play 2C", "a drawn card that plays is played at once")
    refused(state, 1, "play 4D", "a drawn card that plays is played at once")
    refused(state, 1, "draw", "a drawn card that plays is played at once")
    refused(state, 1, "pass", "a drawn card that plays is played at once")
    act(state, 1, "play 9H")
    assert state.to_act() == (0,)
    assert state.view(0).history == (Move(1, "draw"),) * 3 + (Move(1, "play 9H"),)
    assert state.view(0).stock_count == 1


def test_a_drawn_eight_is_played_at_once_naming_any_suit() -> None:
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="5H", stock="4D 8D")
    act(state, 1, "draw")
    act(state, 1, "draw")
    assert legal(state, 1) == [f"play 8D name {suit}" for suit in "CDHS"]


def test_draw_until_playable_stops_when_nothing_is_left_to_draw() -> None:
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="5H", stock="4D 6S")
    act(state, 1, "draw")
    act(state, 1, "draw")
    assert legal(state, 1) == ["pass"]
    refused(state, 1, "draw", "nothing to draw")


def test_another_seats_drawn_card_is_never_shown() -> None:
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="5H", stock="4D 6S 9H")
    act(state, 1, "draw")
    act(state, 1, "draw")
    for seat in (None, 0):
        view = state.view(seat)
        assert not cards_in_view(view) & set(parse_cards("4D 6S"))
        assert all(move.text == "draw" for move in view.history)
        assert view.players[1].hand_size == 4
    assert set(parse_cards("4D 6S")) <= set(state.view(1).hand)


def test_draw_until_playable_off_one_unplayable_draw_ends_the_turn() -> None:
    state = CrazyEights.from_position(
        ["KS", "2C 3C"], pile="5H", stock="4D 9H", draw_until_playable=False
    )
    act(state, 1, "draw")
    assert state.to_act() == (0,)
    assert state.hand(1) == parse_cards("2C 3C 4D")
    assert state.view(0).history == (Move(1, "draw"),)


def test_draw_until_playable_off_a_single_drawn_card_that_plays_is_played_at_once() -> None:
    state = CrazyEights.from_position(
        ["KS", "2C 3C"], pile="5H", stock="9H 4D", draw_until_playable=False
    )
    act(state, 1, "draw")
    assert state.to_act() == (1,) and legal(state, 1) == ["play 9H"]
    refused(state, 1, "play 2C", "a drawn card that plays is played at once")
    act(state, 1, "play 9H")
    assert state.to_act() == (0,)


def test_draw_until_playable_off_an_unplayable_draw_is_not_a_pass() -> None:
    # seat 1 draws the last card and fails; seat 0 passing is then only the
    # first pass, so the round goes on until seat 1 passes too
    state = CrazyEights.from_position(
        ["KS 2S", "2C 3C"], pile="5H", stock="4D", draw_until_playable=False
    )
    act(state, 1, "draw")
    act(state, 0, "pass")
    assert not state.is_over and state.to_act() == (1,)
    act(state, 1, "pass")
    assert state.is_over


def test_empty_stock_is_rebuilt_from_the_discards_leaving_the_top_card() -> None:
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="6H 7H 4H 5H", stock="")
    act(state, 1, "draw")
    assert state.chance() == parse_cards("4H 6H 7H")  # the discards under the top, sorted
    assert state.to_act() == () and legal(state, 1) == []
    assert "the stock is being rebuilt from the discards under the top card" in state.view(0).notes
    refused(state, 1, "draw", "deal")
    with pytest.raises(BadDeck):
        state.deal(parse_cards("4H 6H 5H"))
    state.deal(parse_cards("7H 4H 6H"))  # the shuffle, from outside the engine
    view = state.view(1)
    assert view.top_card == Card.parse("5H") and state.snapshot()["pile"] == ["5H"]
    assert Card.parse("7H") in view.hand  # the draw completes from the new stock
    assert view.stock_count == 2 and state.snapshot()["stock"] == ["4H", "6H"]
    assert legal(state, 1) == ["play 7H"]
    assert sorted(state.accounted_cards()) == sorted(parse_cards("KS 2C 3C 4H 5H 6H 7H"))


def test_pass_when_nothing_to_draw_and_nothing_to_play() -> None:
    state = CrazyEights.from_position(["KS 5S", "2C 3C", "4H"], pile="5H", stock="")
    assert legal(state, 1) == ["pass"]
    act(state, 1, "pass")
    assert state.to_act() == (2,)
    assert state.view(0).history == (Move(1, "pass"),)
    refused(state, 2, "pass", "pass only when there is nothing to draw and nothing to play")
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="5H", stock="4D")
    refused(state, 1, "pass", "pass only when there is nothing to draw and nothing to play")
    state = CrazyEights.from_position(["KS", "2C 3C"], pile="4D 5H", stock="")
    refused(state, 1, "pass", "pass only when there is nothing to draw and nothing to play")


def test_every_player_passing_in_turn_blocks_the_round_and_everyone_holding_cards_pays() -> None:
    # no pack deals a block (every eight is in some hand), so build the position
    state = CrazyEights.from_position(["KS 9C", "2C 3C", "AD 4D TS"], pile="5H", stock="")
    for seat in (1, 2):
        act(state, seat, "pass")
        assert not state.is_over
    act(state, 0, "pass")
    assert state.is_over
    view = state.view(None)
    assert view.hand_scores == ((19, 5, 15),)
    assert view.scores == (19, 5, 15)
    assert "the round is blocked: nobody is out" in view.notes
    assert view.winners == (1,)


def test_only_passes_in_turn_count_towards_a_block() -> None:
    state = CrazyEights.from_position(["KS 9C", "2C 3C", "AD 4H TS"], pile="5H", stock="")
    act(state, 1, "pass")
    assert state.snapshot()["passes_in_turn"] == 1
    act(state, 2, "play 4H")
    assert state.snapshot()["passes_in_turn"] == 0
    act(state, 0, "draw")  # the 5H lies under the top now and is rebuilt into the stock
    state.deal(parse_cards("5H"))
    assert not state.is_over and state.snapshot()["passes_in_turn"] == 0


# -- scoring -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "points"),
    list(zip(STANDARD_RANKS, [2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10, 1], strict=True)),
)
def test_penalty_for_every_rank(rank: Rank, points: int) -> None:
    for suit in Suit:
        assert penalty(Card(rank, suit)) == points


def test_round_ends_when_a_player_sheds_the_last_card_and_everyone_else_pays() -> None:
    others = "2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS"
    state = CrazyEights.from_position([others, "9H", "8S"], pile="5H", stock="4D")
    act(state, 1, "play 9H")
    view = state.view(None)
    assert view.is_over
    assert "seat 1 went out" in view.notes
    assert view.hand_scores == ((2 + 3 + 4 + 5 + 6 + 7 + 9 + 10 * 4 + 1, 0, 50),)
    assert view.winners == (1,)


@pytest.mark.parametrize("rounds", [1, 3, 5])
def test_rounds_toggle_plays_one_three_or_five_rounds(rounds: int) -> None:
    state = play_out(new_game("crazy8s", 3, {"rounds": rounds}), random.Random(rounds))
    view = state.view(None)
    assert len(view.hand_scores) == rounds == view.hand_number
    totals = tuple(sum(column) for column in zip(*view.hand_scores, strict=True))
    assert view.scores == totals
    assert view.winners == tuple(s for s in range(3) if totals[s] == min(totals))


def test_the_next_round_is_dealt_after_a_round_ends_before_the_last() -> None:
    state = new_game("crazy8s", 2, {"rounds": 3})
    assert isinstance(state, CrazyEights)
    state.deal(stacked(["2C 3C 4C 5C 6C 7C 9C", "2H 3H 4H 5H 6H 7H 9H"], "TD"))
    assert state.to_act() == (1,)
    state.hands = [[Card.parse("TC")], [Card.parse("TH")]]  # shortcut to the last card
    act(state, 1, "play TH")
    view = state.view(None)
    assert view.phase == "deal" and state.chance() == standard_deck()
    assert view.hand_scores == ((10, 0),) and view.dealer == 1 and view.hand_number == 2


def test_lowest_total_wins_and_ties_share_the_win() -> None:
    state = CrazyEights.from_position(["5C", "5D"], pile="KH", stock="")
    act(state, 1, "pass")
    act(state, 0, "pass")
    assert state.view(None).hand_scores == ((5, 5),)
    assert state.winners() == (0, 1)


# -- bad input and the whole state --------------------------------------------


@pytest.mark.parametrize(
    ("seat", "text", "rule"),
    [
        (1, "play 9S", "card not in hand"),
        (1, "play KD", "must match the suit in force or the rank"),
        (1, "play 8C", "an eight names the suit in force"),
        (1, "play 5D name C", "only an eight names the suit in force"),
        (1, "draw", "draw only when nothing plays"),
        (1, "pass", "pass only when there is nothing to draw and nothing to play"),
        (1, "bid 3", "Crazy 8s moves"),
        (1, "trump H", "Crazy 8s moves"),
        (0, "play KS", "turn order"),
        (3, "pass", "seat"),
    ],
)
def test_each_bad_input_leaves_the_state_unchanged(seat: int, text: str, rule: str) -> None:
    state = CrazyEights.from_position(["KS", "5D KD 8C 2C"], pile="5H", stock="4D")
    error = refused(state, seat, text, rule)
    assert isinstance(error, IllegalAction | NotYourTurn)


def test_a_deal_when_none_is_due_is_refused() -> None:
    state = CrazyEights.from_position(["KS", "5D"], pile="5H", stock="4D")
    before = state.digest()
    with pytest.raises(BadDeck):
        state.deal(standard_deck())
    assert state.digest() == before


def test_snapshot_is_the_whole_state_as_json() -> None:
    state = dealt(["2C 3C 4C 5C 6C", "7C 9H TC JC QC", "KC AC 2D 3D 4D"], "8H")
    copy = state.clone()
    assert json.loads(json.dumps(state.snapshot())) == state.snapshot()
    assert copy.digest() == state.digest()
    act(state, 1, "play 9H")
    assert copy.digest() != state.digest()
    assert state.snapshot()["hands"][1] == ["7C", "TC", "JC", "QC"]


def test_a_spectator_sees_no_hand_and_no_legal_actions() -> None:
    state = dealt(["2C 3C 4C 5C 6C", "7C 9H TC JC QC", "KC AC 2D 3D 4D"], "8H")
    view = state.view(None)
    assert view.hand == () and view.legal_actions == ()
    assert [player.hand_size for player in view.players] == [5, 5, 5]


def test_module_states_the_rules_document_it_enforces() -> None:
    import parlour.engine.crazy8s as module

    # from the source: a build compiled by mypyc keeps no module docstring
    source = Path(module.__file__ or "").with_name("crazy8s.py").read_text(encoding="utf-8")
    assert "shared/rules/crazy8s.md" in (ast.get_docstring(ast.parse(source)) or "")
    assert INFO.rules_file == "crazy8s.md" and "Eights are wild" in INFO.rules_text


@pytest.mark.parametrize(
    "options",
    [
        {"draw_until_playable": False, "rounds": 3},
        {"hand_size": "9", "rounds": 5},
        {"hand_size": "5", "draw_until_playable": False},
    ],
)
def test_every_toggle_plays_to_the_end_keeping_the_pack_whole(options: dict[str, object]) -> None:
    for seed in range(10):
        rng = random.Random(seed)
        state = new_game("crazy8s", 2 + seed % 4, options)
        while not state.is_over:
            cards = state.chance()
            if cards is not None:
                deck = list(cards)
                rng.shuffle(deck)
                state.deal(deck)
                continue
            assert sorted(state.accounted_cards()) == list(standard_deck())
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        assert state.winners()
