"""Wizard: one scenario per sentence of rules/wizard.md and the Wizard rulings.

Positions are built by dealing a constructed deck, so every test chooses the
hands and the turned card it needs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping

import pytest

from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit, parse_cards
from parlour.engine.errors import (
    BadDeck,
    EngineError,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
)
from parlour.engine.playout import shuffled
from parlour.engine.registry import get_game
from parlour.engine.view import Move
from parlour.engine.wizard import INFO, WIZARD_PACK, WizardState, round_score

# -- helpers ---------------------------------------------------------------------


def new_game(seats: int = 3, **options: object) -> WizardState:
    state = INFO.new(seats, options)
    assert isinstance(state, WizardState)
    return state


def deal(state: WizardState, hands: Mapping[int, str], turned: str | None = "N4") -> None:
    """Deal this round so that each seat gets the cards named (the rest filled from the pack).

    ``turned`` is the card turned for trump; None lets the pack decide.
    """
    wanted = {seat: list(parse_cards(text)) for seat, text in hands.items()}
    used = {card for cards in wanted.values() for card in cards}
    if turned is not None:
        used.add(Card.parse(turned))
    spare = [card for card in WIZARD_PACK if card not in used]
    for seat in range(state.seats):
        cards = wanted.setdefault(seat, [])
        while len(cards) < state.round:
            cards.append(spare.pop(0))
    deck = [
        wanted[(state.dealer + 1 + i) % state.seats][i // state.seats]
        for i in range(state.round * state.seats)
    ]
    if turned is not None:
        deck.append(Card.parse(turned))
    state.deal(deck + spare)


def act(state: WizardState, seat: int, text: str) -> None:
    state.apply(seat, Action.parse(text))


def texts(actions: list[Action]) -> list[str]:
    return [str(action) for action in actions]


def bid_all(state: WizardState, bids: Mapping[int, int] | None = None) -> None:
    """Everyone bids (0 unless named), in turn from the dealer's left."""
    for i in range(state.seats):
        seat = (state.dealer + 1 + i) % state.seats
        act(state, seat, f"bid {(bids or {}).get(seat, 0)}")


def finish_round(state: WizardState) -> None:
    """Play the rest of the round, each seat taking its first legal action."""
    while state.phase not in ("deal", "over"):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])


def at_round(round_number: int, seats: int = 3, **options: object) -> WizardState:
    """A game whose earlier rounds were played out from an unshuffled pack."""
    state = new_game(seats, **options)
    for _ in range(round_number - 1):
        state.deal(WIZARD_PACK)
        finish_round(state)
    assert state.round == round_number and state.phase == "deal"
    return state


def play_round_missing_by(state: WizardState, misses: list[int], seed: int) -> None:
    """Deal a shuffled pack and bid so that each seat misses its bid by ``misses[seat]``."""
    deck = shuffled(WIZARD_PACK, random.Random(seed))
    state.deal(deck)
    rehearsal = state.clone()
    finish_round(rehearsal)  # first-legal play does not depend on the bids
    taken = [player.tricks_taken for player in rehearsal.view(None).players]
    if state.phase == "trump":
        state.apply(state.dealer, state.legal_actions(state.dealer)[0])
    bids = {}
    for seat, miss in enumerate(misses):
        bids[seat] = taken[seat] + miss if taken[seat] + miss <= state.round else taken[seat] - miss
    bid_all(state, bids)
    finish_round(state)
    assert [player.tricks_taken for player in state.view(None).players] == taken


# -- table and rounds --------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_three_to_six_players_may_sit_down(seats: int) -> None:
    state = new_game(seats)
    deal(state, {})
    assert state.seats == seats and len(state.view(0).players) == seats


@pytest.mark.parametrize("seats", [2, 7])
def test_fewer_than_three_or_more_than_six_players_are_refused(seats: int) -> None:
    with pytest.raises(InvalidOptions) as error:
        INFO.new(seats, {})
    assert error.value.rule == "seat count"


def test_options_default_to_the_whole_pack_without_screw_the_dealer() -> None:
    assert get_game("wizard") is INFO
    assert {spec.name: spec.default for spec in INFO.options} == {
        "rounds": "all",
        "screw_the_dealer": False,
    }
    state = new_game()
    assert state.total_rounds == 20 and not state.screw_the_dealer
    with pytest.raises(InvalidOptions):
        INFO.new(3, {"rounds": "7"})


@pytest.mark.parametrize(("seats", "rounds"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_round_r_deals_r_cards_each_until_the_pack_runs_out(seats: int, rounds: int) -> None:
    state = new_game(seats)
    played = 0
    while not state.is_over:
        state.deal(WIZARD_PACK)
        played += 1
        assert [len(state.hand(seat)) for seat in range(seats)] == [played] * seats
        finish_round(state)
    assert played == rounds == len(state.view(None).hand_scores)


@pytest.mark.parametrize(
    ("seats", "option", "rounds"),
    [(3, "5", 5), (3, "10", 10), (4, "10", 10), (5, "10", 10), (6, "5", 5), (6, "10", 10)],
)
def test_rounds_toggle_stops_after_5_or_10_rounds(seats: int, option: str, rounds: int) -> None:
    state = new_game(seats, rounds=option)
    while not state.is_over:
        state.deal(WIZARD_PACK)
        finish_round(state)
    assert state.round == rounds == len(state.view(None).hand_scores)


def test_round_one_deal_starts_at_the_dealers_left() -> None:
    state = new_game(3)
    assert state.dealer == 0
    state.deal(WIZARD_PACK)
    assert [texts_of(state.hand(seat)) for seat in range(3)] == ["4C", "2C", "3C"]
    assert state.turned_card == Card.parse("5C")


def texts_of(cards: tuple[Card, ...]) -> str:
    return " ".join(str(card) for card in cards)


def test_the_deal_passes_one_seat_left_each_round() -> None:
    state = new_game(4)
    dealers = []
    for _ in range(6):
        dealers.append(state.dealer)
        state.deal(WIZARD_PACK)
        finish_round(state)
    assert dealers == [0, 1, 2, 3, 0, 1]
    state = at_round(2, seats=3)
    state.deal(WIZARD_PACK)  # dealer 1: seat 2 gets the first card, seat 1 the third
    assert [texts_of(state.hand(seat)) for seat in range(3)] == ["3C 6C", "4C 7C", "2C 5C"]


# -- trump ---------------------------------------------------------------------------


def test_turned_ordinary_card_makes_its_suit_trump() -> None:
    state = new_game()
    deal(state, {}, turned="7H")
    view = state.view(1)
    assert view.turned_card == Card.parse("7H")
    assert (view.trump, view.trump_text, view.phase) == (Suit.HEARTS, "hearts", "bid")


def test_turned_jester_means_no_trump() -> None:
    state = new_game()
    deal(state, {}, turned="N2")
    view = state.view(1)
    assert (view.trump, view.trump_text, view.phase) == (None, "no trump", "bid")
    assert "N2 turned: a jester, so no trump this round" in view.notes


def test_turned_wizard_dealer_names_trump_before_anyone_bids() -> None:
    state = at_round(2)
    deal(state, {}, turned="W3")
    view = state.view(1)
    assert (view.phase, view.to_act, view.trump_text) == ("trump", (1,), "dealer to name trump")
    assert texts(state.legal_actions(1)) == ["trump C", "trump D", "trump H", "trump S"]
    assert state.legal_actions(2) == []
    with pytest.raises(NotYourTurn):
        act(state, 2, "bid 0")
    with pytest.raises(IllegalAction) as error:
        act(state, 1, "bid 0")
    assert error.value.rule == "dealer names trump"
    act(state, 1, "trump S")
    view = state.view(None)
    assert (view.trump, view.trump_text, view.phase, view.to_act) == (
        Suit.SPADES,
        "spades",
        "bid",
        (2,),
    )
    assert view.history == (Move(1, "trump S"),)
    assert "W3 turned: a wizard, so the dealer named spades" in view.notes


def test_last_round_of_a_full_game_turns_no_card_and_has_no_trump() -> None:
    state = at_round(10, seats=6)
    state.deal(WIZARD_PACK)
    view = state.view(None)
    assert (view.turned_card, view.trump, view.trump_text) == (None, None, "no trump")
    assert view.phase == "bid"
    assert "the whole pack is dealt: no card turned, no trump" in view.notes


@pytest.mark.parametrize(("seats", "option"), [(3, "5"), (3, "10"), (5, "10")])
def test_game_cut_short_still_turns_a_card_in_its_last_round(seats: int, option: str) -> None:
    state = at_round(int(option), seats=seats, rounds=option)
    deal(state, {}, turned="7D")
    assert state.round == state.total_rounds
    assert (state.turned_card, state.trump) == (Card.parse("7D"), Suit.DIAMONDS)


def test_ten_rounds_with_six_players_deal_the_whole_pack_so_no_card_is_turned() -> None:
    state = at_round(10, seats=6, rounds="10")
    state.deal(WIZARD_PACK)
    assert (state.turned_card, state.trump) == (None, None)


# -- bidding ---------------------------------------------------------------------------


def test_bidding_starts_at_the_dealers_left_and_each_bids_once() -> None:
    state = at_round(2)  # dealer is seat 1
    deal(state, {})
    order = []
    for bid in (2, 0, 1):
        seat = state.to_act()[0]
        order.append(seat)
        act(state, seat, f"bid {bid}")
    assert order == [2, 0, 1]
    view = state.view(None)
    assert view.history == (Move(2, "bid 2"), Move(0, "bid 0"), Move(1, "bid 1"))
    assert [player.bid for player in view.players] == ["0", "1", "2"]
    assert view.phase == "play"


def test_bid_is_from_none_up_to_the_cards_in_hand() -> None:
    state = at_round(2)
    deal(state, {})
    assert texts(state.legal_actions(2)) == ["bid 0", "bid 1", "bid 2"]
    for bad in ("bid 3", "bid -1"):
        with pytest.raises(IllegalAction) as error:
            act(state, 2, bad)
        assert error.value.rule == "bid range"


def test_without_screw_the_dealer_the_bids_may_add_up() -> None:
    state = new_game(screw_the_dealer=False)
    deal(state, {})
    act(state, 1, "bid 0")
    act(state, 2, "bid 0")
    assert texts(state.legal_actions(0)) == ["bid 0", "bid 1"]
    act(state, 0, "bid 1")
    assert state.phase == "play"


def test_screw_the_dealer_forbids_the_dealer_the_number_that_adds_up() -> None:
    state = at_round(3, screw_the_dealer=True)  # dealer is seat 2
    deal(state, {})
    act(state, 0, "bid 1")
    assert texts(state.legal_actions(1)) == ["bid 0", "bid 1", "bid 2", "bid 3"]
    act(state, 1, "bid 1")
    assert texts(state.legal_actions(2)) == ["bid 0", "bid 2", "bid 3"]
    assert "screw the dealer: seat 2 may not bid 1" in state.view(2).notes
    with pytest.raises(IllegalAction) as error:
        act(state, 2, "bid 1")
    assert error.value.rule == "screw the dealer"
    act(state, 2, "bid 3")


def test_screw_the_dealer_forbids_nothing_when_the_other_bids_exceed_the_tricks() -> None:
    state = at_round(2, screw_the_dealer=True)  # dealer is seat 1
    deal(state, {})
    act(state, 2, "bid 2")
    act(state, 0, "bid 1")
    assert texts(state.legal_actions(1)) == ["bid 0", "bid 1", "bid 2"]
    assert not any("screw the dealer" in note for note in state.view(1).notes)


# -- play: leading and following ---------------------------------------------------------


def test_player_to_the_dealers_left_leads_the_first_trick() -> None:
    state = at_round(2)  # dealer is seat 1
    deal(state, {})
    bid_all(state)
    assert state.to_act() == (2,)
    assert state.view(None).current_trick is not None
    assert state.view(None).current_trick.leader == 2  # type: ignore[union-attr]


def test_winner_of_a_trick_leads_the_next() -> None:
    state = at_round(3)  # dealer 2: seat 0 leads
    deal(state, {0: "2S 2C 3C", 1: "5S 4C 5C", 2: "KS 6C 7C"})
    bid_all(state)
    for seat, card in ((0, "2S"), (1, "5S"), (2, "KS")):
        act(state, seat, f"play {card}")
    view = state.view(None)
    assert view.to_act == (2,) and view.tricks[0].winner == 2
    assert view.current_trick is not None and view.current_trick.leader == 2


def follow_position() -> WizardState:
    """Round 3, no trump; seat 0 has led the five of hearts."""
    state = at_round(3)
    deal(state, {0: "5H 2C 3C", 1: "9H KS W1", 2: "3D 4D N1"})
    bid_all(state)
    act(state, 0, "play 5H")
    return state


def test_ordinary_card_leads_its_suit() -> None:
    state = follow_position()
    assert state.view(None).current_trick.led_suit is Suit.HEARTS  # type: ignore[union-attr]


def test_must_follow_suit_when_able() -> None:
    state = follow_position()
    assert "play KS" not in texts(state.legal_actions(1))
    before = state.digest()
    with pytest.raises(IllegalAction) as error:
        act(state, 1, "play KS")
    assert error.value.rule == "must follow suit"
    assert "KS" in str(error.value) and "hearts" in str(error.value)
    assert state.digest() == before


def test_wizard_or_jester_may_always_be_played_instead_of_following() -> None:
    state = follow_position()
    assert texts(state.legal_actions(1)) == ["play 9H", "play W1"]
    act(state, 1, "play W1")
    assert texts(state.legal_actions(2)) == ["play 3D", "play 4D", "play N1"]


def test_without_the_led_suit_any_card_may_be_played() -> None:
    state = follow_position()
    act(state, 1, "play 9H")
    assert texts(state.legal_actions(2)) == ["play 3D", "play 4D", "play N1"]


def test_jester_leads_nothing_and_the_next_ordinary_card_sets_the_suit() -> None:
    state = at_round(3)
    deal(state, {0: "N1 2C 3C", 1: "5S 9H KH", 2: "7S 8H 4D"})
    bid_all(state)
    act(state, 0, "play N1")
    view = state.view(1)
    assert view.current_trick is not None and view.current_trick.led_suit is None
    assert "a jester led: the next ordinary card sets the suit" in view.notes
    assert texts(state.legal_actions(1)) == ["play 9H", "play KH", "play 5S"]
    act(state, 1, "play 5S")
    assert state.view(None).current_trick.led_suit is Suit.SPADES  # type: ignore[union-attr]
    assert texts(state.legal_actions(2)) == ["play 7S"]


def test_wizard_leading_means_no_suit_is_led() -> None:
    state = at_round(3)
    deal(state, {0: "W1 2C 3C", 1: "5S 9H KH", 2: "7S 8H 4D"})
    bid_all(state)
    act(state, 0, "play W1")
    assert "a wizard reached the front: no suit led" in state.view(1).notes
    act(state, 1, "play 5S")
    assert texts(state.legal_actions(2)) == ["play 4D", "play 8H", "play 7S"]
    act(state, 2, "play 8H")
    trick = state.view(None).tricks[0]
    assert (trick.led_suit, trick.winner) == (None, 0)


def test_wizard_reaching_the_front_after_a_jester_leaves_no_suit_led() -> None:
    state = at_round(2, seats=4)  # dealer 1: seat 2 leads
    deal(state, {2: "N1 2C", 3: "W1 3C", 0: "5H 6H", 1: "7S 8H"})
    bid_all(state)
    act(state, 2, "play N1")
    act(state, 3, "play W1")
    act(state, 0, "play 5H")  # an ordinary card after the wizard sets no suit
    assert state.view(None).current_trick.led_suit is None  # type: ignore[union-attr]
    assert texts(state.legal_actions(1)) == ["play 8H", "play 7S"]
    act(state, 1, "play 7S")
    assert state.view(None).tricks[0].winner == 3


# -- play: who takes the trick ----------------------------------------------------------


def play_trick(state: WizardState, cards: str) -> int | None:
    """Play one card a seat from the leader on; return the winner."""
    for card in cards.split():
        act(state, state.to_act()[0], f"play {card}")
    return state.view(None).tricks[-1].winner


def test_first_wizard_played_takes_the_trick() -> None:
    state = at_round(3)
    deal(state, {0: "AS 2C 3C", 1: "W1 4C 5C", 2: "W2 6C 7C"}, turned="2S")
    bid_all(state)
    assert play_trick(state, "AS W1 W2") == 1


def test_highest_trump_takes_the_trick() -> None:
    state = at_round(3)
    deal(state, {0: "AS 2C 3C", 1: "3H 4D 5D", 2: "9H 6D 7D"}, turned="2H")
    bid_all(state)
    assert play_trick(state, "AS 3H 9H") == 2


def test_highest_card_of_the_led_suit_takes_the_trick_otherwise() -> None:
    state = at_round(3)
    deal(state, {0: "5S 2C 3C", 1: "KS 4C 5C", 2: "AD 6C 7C"}, turned="2H")
    bid_all(state)
    assert play_trick(state, "5S KS AD") == 1


def test_jester_never_wins_a_trick_with_another_card_in_it() -> None:
    state = at_round(3)
    deal(state, {0: "N1 3C 4C", 1: "2C 5C 6C", 2: "N2 7C 8C"})
    bid_all(state)
    assert play_trick(state, "N1 2C N2") == 1


def test_trick_of_nothing_but_jesters_goes_to_the_first_one_played() -> None:
    state = at_round(3)
    deal(state, {0: "2S N3 3C", 1: "AS N1 5C", 2: "3S N2 4C"})
    bid_all(state)
    assert play_trick(state, "2S AS 3S") == 1  # seat 1 now leads
    assert play_trick(state, "N1 N2 N3") == 1


# -- scoring and the end ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "taken", "score"),
    [(0, 0, 20), (3, 3, 50), (3, 1, -20), (1, 3, -20), (0, 2, -20), (2, 2, 40)],
)
def test_exact_bid_scores_20_plus_10_a_trick_and_a_miss_costs_10_a_trick(
    bid: int, taken: int, score: int
) -> None:
    assert round_score(bid, taken) == score


def test_each_round_is_scored_by_the_table() -> None:
    state = new_game()
    deal(state, {1: "AS", 2: "2C", 0: "3C"})
    bid_all(state, {1: 1, 2: 1, 0: 0})
    play_trick(state, "AS 2C 3C")
    view = state.view(None)
    assert view.hand_scores == ((20, 30, -10),)
    assert view.scores == state.scores() == (20, 30, -10)
    assert (view.phase, view.hand_number, view.dealer) == ("deal", 2, 1)


def test_highest_total_after_the_last_round_wins() -> None:
    state = new_game(rounds="5")
    for n in range(5):
        play_round_missing_by(state, [1, 0, 1], seed=n)
    assert state.is_over and state.winners() == (1,)
    assert state.view(None).winners == (1,) and state.view(None).is_over


def test_tied_totals_share_the_win() -> None:
    state = new_game(rounds="5")
    for n in range(5):
        play_round_missing_by(state, [1 if n < 4 else 2, 1, 1], seed=n)
    assert state.scores() == (-60, -50, -50)
    assert state.winners() == (1, 2)
    assert "game over: seat 1 and seat 2 share the win with -50" in state.view(None).notes


# -- the view and the whole state -----------------------------------------------------------


def test_view_shows_bids_tricks_and_only_the_seats_own_hand() -> None:
    state = at_round(3)
    deal(state, {0: "2S 2C 3C", 1: "5S 4C 5C", 2: "KS 6C 7C"}, turned="9D")
    bid_all(state, {0: 0, 1: 2, 2: 1})
    play_trick(state, "2S 5S KS")
    act(state, 2, "play 6C")
    view = state.view(0)
    assert (view.phase, view.hand_number, view.dealer) == ("play", 3, 2)
    assert view.hand == parse_cards("2C 3C")
    assert texts(list(view.legal_actions)) == ["play 2C", "play 3C"]
    assert [(p.bid, p.tricks_taken, p.hand_size) for p in view.players] == [
        ("0", 0, 2),
        ("2", 0, 2),
        ("1", 1, 1),
    ]
    assert view.last_trick == view.tricks[0] and view.tricks[0].winner == 2
    assert view.current_trick is not None and view.current_trick.led_suit is Suit.CLUBS
    assert (view.trump_text, view.turned_card) == ("diamonds", Card.parse("9D"))
    spectator = state.view(None)
    assert spectator.hand == () and spectator.legal_actions == ()
    assert state.view(1).legal_actions == ()


def test_snapshot_is_plain_data_and_clone_is_independent() -> None:
    state = at_round(2)
    deal(state, {}, turned="W1")
    snapshot = state.snapshot()
    assert json.loads(json.dumps(snapshot)) == snapshot
    copy = state.clone()
    act(copy, 1, "trump H")
    assert copy.digest() != state.digest()
    assert state.phase == "trump" and state.snapshot() == snapshot


# -- bad input leaves the state unchanged ------------------------------------------------------


def bidding() -> WizardState:
    state = at_round(2, screw_the_dealer=True)  # dealer is seat 1; seat 2 bids first
    deal(state, {2: "5H 2C", 0: "9H KS", 1: "3D 4D"})
    return state


def dealer_bidding() -> WizardState:
    state = bidding()
    act(state, 2, "bid 1")
    act(state, 0, "bid 0")
    return state


def playing() -> WizardState:
    state = bidding()
    bid_all(state, {2: 1, 0: 0, 1: 0})
    act(state, 2, "play 5H")
    return state


def naming_trump() -> WizardState:
    state = new_game()
    deal(state, {}, turned="W2")
    return state


def finished() -> WizardState:
    state = new_game(rounds="5")
    while not state.is_over:
        state.deal(WIZARD_PACK)
        finish_round(state)
    return state


def before_the_deal() -> WizardState:
    return at_round(2)


BAD_INPUTS: list[tuple[str, Callable[[], WizardState], int, str, type[EngineError], str]] = [
    ("wrong seat bids", bidding, 0, "bid 0", NotYourTurn, "turn order"),
    ("no such seat", bidding, 5, "bid 0", NotYourTurn, "seat"),
    ("bid out of range", bidding, 2, "bid 3", IllegalAction, "bid range"),
    ("no-trump bid", bidding, 2, "bid 1NT", IllegalAction, "bidding"),
    ("play while bidding", bidding, 2, "play 5H", IllegalAction, "bidding"),
    ("trump while bidding", bidding, 2, "trump H", IllegalAction, "bidding"),
    ("screw the dealer", dealer_bidding, 1, "bid 1", IllegalAction, "screw the dealer"),
    ("card not in hand", playing, 0, "play QS", IllegalAction, "card not in hand"),
    ("not following suit", playing, 0, "play KS", IllegalAction, "must follow suit"),
    ("bid while playing", playing, 0, "bid 0", IllegalAction, "play"),
    ("naming a suit on a play", playing, 0, "play 9H name S", IllegalAction, "play"),
    ("wrong seat plays", playing, 1, "play 3D", NotYourTurn, "turn order"),
    ("bid before trump is named", naming_trump, 0, "bid 0", IllegalAction, "dealer names trump"),
    ("act before the deal", before_the_deal, 2, "bid 0", IllegalAction, "deal"),
    ("act after the end", finished, 0, "bid 0", GameOver, "game over"),
]


@pytest.mark.parametrize(
    ("position", "seat", "text", "error", "rule"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_is_refused_and_leaves_the_state_unchanged(
    position: Callable[[], WizardState],
    seat: int,
    text: str,
    error: type[EngineError],
    rule: str,
) -> None:
    state = position()
    before = state.digest()
    with pytest.raises(error) as raised:
        act(state, seat, text)
    assert raised.value.rule == rule
    assert state.digest() == before


def test_card_not_in_hand_names_the_card() -> None:
    state = playing()
    with pytest.raises(IllegalAction) as error:
        act(state, 0, "play QS")
    assert "QS" in str(error.value)


def test_bad_deals_are_refused_and_leave_the_state_unchanged() -> None:
    state = at_round(2)
    before = state.digest()
    with pytest.raises(BadDeck):
        state.deal(WIZARD_PACK[:-1])
    assert state.digest() == before
    bid_state = playing()
    with pytest.raises(BadDeck):
        bid_state.deal(WIZARD_PACK)
    done = finished()
    with pytest.raises(GameOver):
        done.deal(WIZARD_PACK)


# -- random playouts: the score table holds in every round ----------------------------------------

PLAYOUTS_PER_SEAT_COUNT = 200


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_random_playouts_score_every_round_by_the_table(seats: int) -> None:
    rng = random.Random(seats)
    for game in range(PLAYOUTS_PER_SEAT_COUNT):
        screw = game % 2 == 1
        state = new_game(seats, screw_the_dealer=screw)
        while not state.is_over:
            state.deal(shuffled(WIZARD_PACK, rng))
            round_number = state.round
            while state.phase not in ("deal", "over"):
                seat = state.to_act()[0]
                state.apply(seat, rng.choice(state.legal_actions(seat)))
            view = state.view(None)
            bids = [int(player.bid) for player in view.players]
            taken = [player.tricks_taken for player in view.players]
            assert sum(taken) == round_number
            assert view.hand_scores[-1] == tuple(map(round_score, bids, taken))
            if screw:
                assert sum(bids) != round_number
        assert state.scores() == tuple(map(sum, zip(*state.view(None).hand_scores, strict=True)))
