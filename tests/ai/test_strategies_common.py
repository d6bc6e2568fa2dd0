"""The strategy registry, the random baseline and the shared table-reading helpers."""

from __future__ import annotations

import random

import pytest

from parlour.ai.common import still_to_play, voids_shown, winning_play
from parlour.ai.registry import LEVELS, strategy_for
from parlour.engine.cards import Suit
from tests.ai.positions import actions, trick, view


@pytest.mark.parametrize("game", sorted(LEVELS))
def test_every_game_offers_a_random_baseline_and_a_real_opponent(game: str):
    assert strategy_for(game, "random").name == f"{game}/random"
    assert strategy_for(game, "normal").name == f"{game}/normal"


def test_hearts_offers_four_levels_besides_random():
    assert LEVELS["hearts"] == ("random", "easy", "normal", "hard", "expert")
    levels = ("easy", "normal", "hard", "expert")
    assert {strategy_for("hearts", level).name for level in levels} == {
        "hearts/easy",
        "hearts/normal",
        "hearts/hard",
        "hearts/expert",
    }


@pytest.mark.parametrize("game", ["wizard", "crazy8s", "kaiser"])
def test_the_other_games_take_easy_and_hard_as_their_one_level(game: str):
    assert strategy_for(game, "easy").name == strategy_for(game, "hard").name == f"{game}/normal"


def test_an_unknown_game_or_level_is_refused():
    with pytest.raises(KeyError, match="chess"):
        strategy_for("chess", "normal")
    with pytest.raises(KeyError, match="grandmaster"):
        strategy_for("hearts", "grandmaster")
    with pytest.raises(ValueError, match="budget"):
        strategy_for("wizard", "expert", budget=0)


def test_the_random_baseline_picks_uniformly_among_the_legal_actions():
    legal = actions("bid 0", "bid 1", "bid 2", "bid 3")
    position = view("wizard", hand="W1 N1 2C", legal=legal, phase="bid")
    strategy = strategy_for("wizard", "random")
    picks = [str(strategy.choose(position, legal, random.Random(seed))) for seed in range(400)]
    assert set(picks) == {str(a) for a in legal}
    assert all(60 < picks.count(str(a)) < 140 for a in legal)


def test_a_strategy_is_reproducible_from_its_seed():
    legal = actions("bid 0", "bid 1", "bid 2", "bid 3")
    position = view("wizard", hand="W1 N1 2C", legal=legal, phase="bid")
    strategy = strategy_for("wizard", "random")
    first = [strategy.choose(position, legal, random.Random(7)) for _ in range(5)]
    assert first == [strategy.choose(position, legal, random.Random(7)) for _ in range(5)]


def test_a_lone_legal_action_is_taken_and_none_at_all_is_an_error():
    position = view("crazy8s", seats=2, hand="2C", legal=actions("draw"))
    strategy = strategy_for("crazy8s", "normal")
    assert str(strategy.choose(position, actions("draw"), random.Random(0))) == "draw"
    with pytest.raises(ValueError, match="no legal action"):
        strategy.choose(position, (), random.Random(0))


def test_the_winning_play_is_the_highest_trump_else_the_highest_of_the_lead():
    plays = trick([(1, "9D"), (2, "AD"), (3, "2C"), (0, "KD")]).plays
    assert winning_play(plays, Suit.CLUBS) == plays[2]
    assert winning_play(plays, None) == plays[1]
    assert winning_play(plays, Suit.HEARTS) == plays[1]


def test_the_seats_still_to_play_follow_the_seat_round_the_table():
    assert still_to_play(view("hearts", seat=2, hand="2C", table=[(1, "5C")])) == [3, 0]
    assert (
        still_to_play(view("hearts", seat=0, hand="2C", table=[(1, "5C"), (2, "6C"), (3, "7C")]))
        == []
    )


def test_a_wizard_or_jester_played_off_suit_reveals_no_void():
    position = view("wizard", hand="2C", table=[(1, "5D"), (2, "N1"), (3, "W2"), (0, "3C")])
    assert voids_shown(position) == {0: {Suit.DIAMONDS}}
    led_by_wizard = view("wizard", hand="2C", table=[(1, "W1"), (2, "5D"), (3, "3C")])
    assert voids_shown(led_by_wizard) == {}
