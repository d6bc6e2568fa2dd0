"""The shared card model, actions and option schema."""

from __future__ import annotations

import pytest

from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import (
    ALL_CARDS,
    STANDARD_RANKS,
    Card,
    Rank,
    Suit,
    kaiser_deck,
    parse_cards,
    standard_deck,
    wizard_deck,
)
from parlour.engine.errors import InvalidOptions, MalformedAction
from parlour.engine.options import OptionSpec, OptionType, resolve_options


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_every_card_prints_and_parses_back(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert eval(repr(card)) is card
    assert Card.from_index(card.index) is card


def test_cards_are_interned_and_immutable() -> None:
    assert Card(Rank.QUEEN, Suit.SPADES) is Card.parse("QS")
    with pytest.raises(AttributeError):
        Card.parse("QS").rank = Rank.KING  # type: ignore[misc]


@pytest.mark.parametrize("text", ["10h", "T♥", "th", " TH "])
def test_other_spellings_of_a_ten(text: str) -> None:
    assert str(Card.parse(text)) == "TH"


@pytest.mark.parametrize("text", ["", "1S", "QX", "W5", "N0", "QSS", "ZZ"])
def test_an_unknown_card_code_is_a_malformed_action_quoting_it(text: str) -> None:
    with pytest.raises(MalformedAction) as err:
        Card.parse(text)
    assert repr(text) in str(err.value)
    assert err.value.rule == "card notation"


def test_wizards_and_jesters_have_their_own_codes() -> None:
    assert Card.parse("W1").is_wizard and Card.parse("N4").is_jester
    assert not Card.parse("W1").is_ordinary


def test_the_standard_ranks_exclude_wizard_and_jester() -> None:
    assert Rank.WIZARD not in STANDARD_RANKS and Rank.JESTER not in STANDARD_RANKS
    assert len(STANDARD_RANKS) == 13


def test_deck_sizes() -> None:
    assert len(set(standard_deck())) == 52
    assert len(set(wizard_deck())) == 60
    assert sum(card.is_wizard for card in wizard_deck()) == 4
    assert sum(card.is_jester for card in wizard_deck()) == 4
    assert len(set(kaiser_deck())) == 32


def test_the_kaiser_deck_swaps_two_sevens_for_the_five_of_hearts_and_three_of_spades() -> None:
    deck = set(kaiser_deck())
    assert {Card.parse(c) for c in ("7C", "7D", "5H", "3S")} <= deck
    assert Card.parse("7H") not in deck and Card.parse("7S") not in deck
    for suit in Suit:
        for rank in (Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE):
            assert Card(rank, suit) in deck


def test_parse_cards() -> None:
    assert [str(c) for c in parse_cards("QS, 2c 10D")] == ["QS", "2C", "TD"]


@pytest.mark.parametrize(
    "text",
    [
        "play QS",
        "play 8S name H",
        "bid 0",
        "bid 3",
        "bid 7NT",
        "pass",
        "draw",
        "trump H",
        "give QS",
    ],
)
def test_actions_print_and_parse_back(text: str) -> None:
    action = Action.parse(text)
    assert str(action) == text
    assert eval(repr(action)) == action


def test_action_kinds() -> None:
    assert Action.parse("bid 7nt") == Action(ActionKind.BID, number=7, no_trump=True)
    assert Action.parse("play 8s name hearts").suit is Suit.HEARTS


@pytest.mark.parametrize("text", ["", "jump", "play", "play QX", "bid x", "trump Z", "pass 3"])
def test_unreadable_actions_are_malformed(text: str) -> None:
    with pytest.raises(MalformedAction):
        Action.parse(text)


SPECS = (
    OptionSpec("rounds", OptionType.CHOICE, "all", ("all", "5", "10"), "how many rounds"),
    OptionSpec("screw", OptionType.BOOL, False, (True, False), "screw the dealer"),
    OptionSpec("floor", OptionType.INT, 6, (5, 6, 7, 8), "lowest bid"),
)


def test_options_fill_defaults_and_coerce_text() -> None:
    assert resolve_options(SPECS, {"floor": "7", "screw": "on"}) == {
        "rounds": "all",
        "screw": True,
        "floor": 7,
    }


@pytest.mark.parametrize(
    "given",
    [{"floor": 9}, {"floor": True}, {"screw": "maybe"}, {"rounds": "7"}, {"colour": "red"}],
)
def test_out_of_range_options_are_refused_by_name(given: dict[str, object]) -> None:
    with pytest.raises(InvalidOptions) as err:
        resolve_options(SPECS, given)
    assert next(iter(given)) in str(err.value)
