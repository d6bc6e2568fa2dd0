"""The Hearts (Kierki) computer opponents: each documented behaviour decides a position."""

from __future__ import annotations

import random

import pytest

from parlour.ai.common import voids_shown
from parlour.ai.hearts import moon_shooter
from parlour.ai.hearts_search import bits, deal_unseen, play_out
from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit, parse_cards
from parlour.engine.trick import Trick
from tests.ai.positions import decide, plays_of, trick, view

QUEEN_FIRST = trick([(1, "AS"), (2, "QS"), (3, "2S"), (0, "3S")], winner=1)
HEARTS_TO_ONE = trick([(1, "AH"), (2, "2H"), (3, "4H"), (0, "5H")], winner=1)


def playing(
    level: str,
    hand: str,
    table: list[tuple[int, str]] = (),  # type: ignore[assignment]
    legal: str | None = None,
    tricks: tuple[Trick, ...] = (),
    hand_sizes: list[int] | None = None,
    **extra: object,
) -> str:
    position = view(
        "hearts",
        hand=hand,
        legal=plays_of(legal or hand),
        table=table,
        tricks=tricks,
        hand_sizes=hand_sizes,
        **extra,
    )
    return decide("hearts", level, position)


def passing(level: str, hand: str) -> set[str]:
    """The three cards the level passes: three picks, each seeing the ones before."""
    dealt = list(parse_cards(hand))
    chosen: list[Card] = []
    for _ in range(3):
        left = [c for c in dealt if c not in chosen]
        position = view(
            "hearts",
            hand=" ".join(str(c) for c in left),
            legal=tuple(Action.give(c) for c in left),
            phase="pass",
            pass_direction="left",
            passed_cards=tuple(chosen),
        )
        chosen.append(Card.parse(decide("hearts", level, position).split()[1]))
    return {str(c) for c in chosen}


# -- easy ----------------------------------------------------------------------------------
def test_easy_plays_the_highest_card_that_will_not_win_a_trick_with_points():
    table = [(1, "9H"), (2, "4H"), (3, "TH")]
    assert playing("easy", "5H 8H JH QH", table) == "play 8H"


def test_easy_plays_its_lowest_card_when_every_card_would_take_points():
    assert playing("easy", "5H 9H", [(1, "2H")]) == "play 5H"


def test_easy_only_looks_at_the_trick_as_it_stands():
    # No points down yet, so the king looks safe to easy; normal keeps it away from the queen.
    assert playing("easy", "9S KS", [(1, "5S")]) == "play KS"
    assert playing("normal", "9S KS", [(1, "5S")]) == "play 9S"


def test_easy_passes_its_highest_cards():
    assert passing("easy", "AS AH AD 2C 3C 4C 5C 2D 3D 4D 2H 3H 4H") == {"AS", "AH", "AD"}


# -- normal --------------------------------------------------------------------------------
def test_normal_unloads_the_queen_of_spades_under_a_higher_spade():
    assert playing("normal", "QS 4S 9S", [(1, "KS")]) == "play QS"


def test_normal_discards_the_queen_of_spades_when_void():
    assert playing("normal", "QS 2H 9C", [(1, "5D")]) == "play QS"


def test_normal_sheds_the_ace_of_spades_when_void_while_the_queen_is_out():
    assert playing("normal", "AS 2H 9C", [(1, "5D")]) == "play AS"


def test_normal_keeps_the_ace_of_spades_once_the_queen_has_gone():
    assert playing("normal", "AS 2H 9C", [(1, "5D")], tricks=(QUEEN_FIRST,)) == "play 2H"


def test_normal_discards_its_highest_heart_when_void():
    assert playing("normal", "4H KH 9C", [(1, "5D")]) == "play KH"


def test_normal_ducks_with_the_highest_card_below_the_winner():
    assert playing("normal", "4C 9C QC", [(1, "TC")]) == "play 9C"


def test_normal_does_not_lead_spades_while_holding_the_queen():
    assert playing("normal", "QS 2S 5D 7C") == "play 5D"


def test_normal_leads_a_low_heart_once_hearts_are_broken():
    assert playing("normal", "2H 5D 7C", hearts_broken=True) == "play 2H"


def test_normal_passes_the_queen_ace_and_king_of_spades_when_short_of_spades():
    hand = "QS AS KS 2S 3C 4C 5C 6D 7D 8D 9H TH 2H"
    assert passing("normal", hand) == {"QS", "AS", "KS"}


def test_normal_keeps_guarded_spades_and_passes_high_hearts_then_towards_a_void():
    hand = "QS 2S 3S 4S 5S 3C 4C 5C 6D 7D AH KH 2H"
    assert passing("normal", hand) == {"AH", "KH", "7D"}


# -- hard ----------------------------------------------------------------------------------
def test_a_seat_that_did_not_follow_suit_is_remembered_as_void():
    position = view(
        "hearts",
        hand="2C",
        tricks=(trick([(0, "2D"), (1, "4C"), (2, "JD"), (3, "9D")], winner=2),),
        table=[(2, "5S"), (3, "KH")],
    )
    assert voids_shown(position) == {1: {Suit.DIAMONDS}, 3: {Suit.SPADES}}


def _everyone_behind_void() -> dict[str, object]:
    # Seat 1 showed a void in diamonds on the first trick; seat 0 plays before it.
    return {
        "hand": "KD AD 3C 5C 7C 9C 2H 3H 4H 2S 3S 4S",
        "table": [(2, "5D"), (3, "6D")],
        "legal": "KD AD",
        "tricks": (trick([(0, "2D"), (1, "4C"), (2, "JD"), (3, "9D")], winner=2),),
        "hand_sizes": [12, 12, 11, 11],
    }


def test_hard_remembers_voids_and_knows_nobody_behind_can_overtake():
    # Taking the trick anyway, hard spends its highest card.
    assert playing("hard", **_everyone_behind_void()) == "play AD"  # type: ignore[arg-type]


def test_normal_without_that_memory_plays_low_hoping_to_be_overtaken():
    assert playing("normal", **_everyone_behind_void()) == "play KD"  # type: ignore[arg-type]


def test_hard_sees_a_moon_shot_coming_when_one_opponent_has_every_point():
    shooting = view("hearts", hand="2C", tricks=(QUEEN_FIRST, HEARTS_TO_ONE))
    assert moon_shooter(shooting) == 1
    shared = trick([(2, "9H"), (3, "2C"), (0, "3C"), (1, "4C")], winner=2)
    assert moon_shooter(view("hearts", hand="2C", tricks=(QUEEN_FIRST, shared))) is None
    assert moon_shooter(view("hearts", hand="2C", tricks=(QUEEN_FIRST,))) is None  # too few yet


def test_hard_takes_a_trick_with_points_to_break_the_moon():
    table = [(1, "9H"), (2, "2H"), (3, "3H")]
    moon = (QUEEN_FIRST, HEARTS_TO_ONE)
    assert playing("hard", "TH 6H", table, tricks=moon) == "play TH"
    assert playing("normal", "TH 6H", table, tricks=moon) == "play 6H"


def test_hard_does_not_feed_the_shooter_when_void():
    moon = (QUEEN_FIRST, HEARTS_TO_ONE)
    assert playing("hard", "KH 9C", [(1, "5D")], tricks=moon) == "play 9C"
    assert playing("normal", "KH 9C", [(1, "5D")], tricks=moon) == "play KH"


def test_hard_passes_to_void_a_suit_first():
    hand = "QS 2S 3D 4D 5D 6D 7D 8D 9H TH JH AC KC"
    assert passing("normal", hand) == {"QS", "JH", "AC"}
    assert passing("hard", hand) == {"QS", "AC", "KC"}


# -- hard's look-ahead -------------------------------------------------------------------------
def test_a_play_out_scores_a_moon_shot_as_the_game_does():
    hands = [bits(parse_cards(h)) for h in ("2H", "AH", "3H", "4H")]
    assert play_out(hands, 0, [], [0, 22, 0, 0], True, True) == [26, 0, 26, 26]


def test_sampled_deals_respect_hand_sizes_voids_and_known_cards():
    unseen = [c.index for c in parse_cards("2C 3C 4C 2D 3D 4D")]
    known = {1: bits(parse_cards("4D"))}
    for seed in range(20):
        hands = deal_unseen(unseen, {1: 2, 2: 2, 3: 2}, {2: {0}}, known, random.Random(seed))
        assert hands is not None
        assert [hands[s].bit_count() for s in (1, 2, 3)] == [2, 2, 2]
        assert hands[1] & known[1]
        assert not hands[2] & bits(parse_cards("2C 3C 4C"))  # seat 2 is void in clubs


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_every_level_picks_one_of_the_legal_cards(level: str):
    legal = "5D 9D"
    assert playing(level, "5D 9D QS AH", [(1, "7D")], legal=legal).split()[1] in legal.split()
