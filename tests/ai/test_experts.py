"""The expert level: a small strength test on duplicate deals, and what it may read.

The full measurements (against the documented AI and OpenSpiel's ISMCTS) are
``make selfplay``; here the margins are set so that they cannot be met by luck
on these deals: several standard deviations of the per-deal difference.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from parlour.ai import hearts, hearts_search
from parlour.ai.crazy8s_expert import discard_pile, hand_groups
from parlour.ai.crazy8s_search import utility
from parlour.ai.eval import versus
from parlour.ai.eval.match import Clock, play
from parlour.ai.eval.stats import mean_ci
from parlour.ai.hearts_pass import plan_hard
from parlour.ai.kaiser_expert import contract, score
from parlour.ai.registry import LEVELS, strategy_for
from parlour.ai.wizard import expected_tricks
from parlour.ai.wizard_expert import bits, worth_table
from parlour.ai.wizard_search import (
    TOTAL_BONUS,
    beats,
    best_bid,
    bid_lift,
    hand_worth,
    likelihood,
)
from parlour.engine.cards import Card, Suit, standard_deck
from parlour.engine.playout import shuffled
from parlour.engine.registry import new_game
from parlour.engine.trick import Play
from parlour.engine.view import View
from parlour.engine.wizard import trick_winner
from tests.ai.positions import view as position_view

HEARTS_PACK = standard_deck()


class _Bar:
    def update(self, n: int) -> None:
        del n


@contextlib.contextmanager
def _quiet(total: int, description: str) -> Iterator[_Bar]:
    del total, description
    yield _Bar()


def _play(clock: Clock) -> versus.Play:
    def run(game: str, players: Any, seed: str, hands: int | None) -> Any:
        return play(game, players, seed, clock, hands=hands)

    return run


def test_every_game_offers_an_expert_level() -> None:
    assert all(levels[-1] == "expert" for levels in LEVELS.values())


def test_the_hearts_expert_takes_far_fewer_points_than_random_play() -> None:
    # 3 deals x 2 seatings x 4 hands. Per deal the expert-minus-random difference has a
    # standard deviation of about 3 points a hand, so -6 is several deviations from zero;
    # the expert measures about -10 here.
    report = versus.hearts(
        _play(Clock()),
        strategy_for("hearts", "expert", budget=3000),
        strategy_for("hearts", "random"),
        3,
        "strength",
        mean_ci,
        _quiet,
    )
    assert report["a_minus_b"]["mean"] <= -6, report


def test_the_wizard_expert_outscores_random_play_on_the_same_shuffles() -> None:
    clock = Clock()
    expert = strategy_for("wizard", "expert", budget=3000)
    rnd = strategy_for("wizard", "random")
    per_round = {}
    for name, side in (("expert", expert), ("random", rnd)):
        state = play("wizard", [side] * 4, "strength", clock, {"rounds": "10"})
        scores = [s for round_ in state.view(None).hand_scores for s in round_]
        per_round[name] = sum(scores) / len(scores)
    # 40 bids a side; a round's score has a standard deviation of about 25, so a
    # difference of 20 is over three deviations. Measured: +18.75 against -17.25.
    assert per_round["expert"] - per_round["random"] >= 20, per_round


def test_the_wizard_simulator_takes_tricks_as_the_engine_does() -> None:
    import random

    rng = random.Random(2)
    suits = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
    for _ in range(3000):
        cards = rng.sample(range(60), rng.randint(3, 6))
        trump = rng.choice([-1, 0, 1, 2, 3])
        engine = trick_winner(
            [Play(seat, Card.from_index(c)) for seat, c in enumerate(cards)],
            None if trump < 0 else suits[trump],
        )
        best, winner = -1, -1
        for seat, card in enumerate(cards):
            if beats(card, best, trump):
                best, winner = card, seat
        assert winner == engine, (cards, trump)


def _crazy8s_turns(
    state: Any, rng: random.Random, choose: Callable[..., Any], most: int = 400
) -> Iterator[tuple[int, View]]:
    """Each turn of a Crazy 8s game dealt from ``rng``: the seat and its view, then the
    move ``choose(view, legal, rng)`` picks is played."""
    for _ in range(most):
        if state.is_over:
            return
        if (cards := state.chance()) is not None:
            state.deal(shuffled(cards, rng))
            continue
        seat = state.to_act()[0]
        view = state.view(seat)
        yield seat, view
        state.apply(seat, choose(view, state.legal_actions(seat), rng))


def _any_legal(view: View, legal: Sequence[Any], rng: random.Random) -> Any:
    del view
    return rng.choice(legal)


def test_the_crazy8s_expert_reads_the_discard_pile_off_the_public_history() -> None:
    state = new_game("crazy8s", 2, {})
    for seat, view in _crazy8s_turns(state, random.Random(4), _any_legal, most=200):
        pile = discard_pile(view)
        assert pile[-1] == view.top_card.index if view.top_card else True
        seen = {c.index for c in view.hand} | set(pile)
        assert len(seen) == len(view.hand) + len(pile)  # the pile is none of the seat's cards
        assert 52 - len(seen) == (view.stock_count or 0) + sum(
            p.hand_size for p in view.players if p.seat != seat
        )


def test_the_wizard_expert_reads_a_bid_as_the_normal_opponent_makes_it() -> None:
    """The search's table of card worths adds up to the normal opponent's estimate, and a
    sampled deal explains a bid best when the hand is worth about that many tricks."""
    rng = random.Random(3)
    pack = [Card.from_index(i) for i in range(60)]
    for _ in range(200):
        seats = rng.randint(3, 6)
        hand = rng.sample(pack, rng.randint(1, 60 // seats))
        trump = rng.choice([None, *Suit])
        position = position_view("wizard", seats=seats, hand=" ".join(map(str, hand)), trump=trump)
        worth = hand_worth(bits(hand), worth_table(trump, seats, len(hand)))
        assert abs(worth - expected_tricks(tuple(hand), position)) < 1e-9
        strong, weak = bits(pack[52:56]), bits(pack[56:60])  # four wizards, four jesters
        table = worth_table(trump, seats, 4)
        for bid in (3, 4):
            assert likelihood([strong], [0], [bid], table) > likelihood([weak], [0], [bid], table)
        assert likelihood([weak], [0], [0], table) > likelihood([strong], [0], [0], table)
        assert likelihood([weak], [0], [-1], table) == 1.0  # no bid: nothing to explain


def test_the_wizard_expert_bids_for_a_trick_more_while_seats_are_still_to_bid() -> None:
    """Play-outs give a bidder with seats still to bid after it too few tricks, so its bid
    counts a chance of one more: none for the last two bidders, more the earlier it bids
    and the more cards it holds, at most an even chance. On the same sampled deals, the
    first of four bidders then bids higher on some hands and lower on none."""
    assert bid_lift(0, 15) == bid_lift(1, 15) == 0.0
    assert 0.0 < bid_lift(2, 8) < bid_lift(3, 8) <= 0.5
    assert bid_lift(3, 4) < bid_lift(3, 12)
    assert bid_lift(5, 60) == 0.5
    rng = random.Random(5)
    raised = lowered = 0
    for trial in range(40):
        size = rng.randint(6, 12)
        pack = list(range(60))
        rng.shuffle(pack)
        trump = rng.choice([None, *Suit])
        position = (
            0,  # the first bidder, seat 0 (the dealer is seat 3), with nothing bid yet
            sum(1 << card for card in pack[:size]),
            list(range(7)),
            {},
            0,
            -1 if trump is None else trump.index,
            sorted(pack[size:]),
            dict.fromkeys((1, 2, 3), size),
            worth_table(trump, 4, size),
        )
        plain = best_bid(*position, random.Random(trial), 20_000, 0.0)
        lifted = best_bid(*position, random.Random(trial), 20_000, bid_lift(3, size))
        raised += lifted > plain
        lowered += lifted < plain
    assert raised >= 3
    assert lowered == 0


def test_the_wizard_experts_last_bidder_weighs_the_total_its_bid_makes() -> None:
    """The last bidder's play-outs underrate a round whose bids add up to the tricks or
    one fewer: its bid counts the total it makes. On the same sampled deals, the bid it
    then makes never makes a total that counts less, and on some hands it changes."""
    assert TOTAL_BONUS[1] == TOTAL_BONUS[2] == max(TOTAL_BONUS)  # one under, or even
    rng = random.Random(6)
    changed = 0
    for trial in range(40):
        size = rng.randint(6, 12)
        pack = list(range(60))
        rng.shuffle(pack)
        trump = rng.choice([None, *Suit])
        made = {seat: rng.randint(0, size // 2) for seat in (0, 1, 2)}
        position = (
            3,  # the dealer, last to bid
            sum(1 << card for card in pack[:size]),
            list(range(size + 1)),
            made,
            0,
            -1 if trump is None else trump.index,
            sorted(pack[size:]),
            dict.fromkeys((0, 1, 2), size),
            worth_table(trump, 4, size),
        )

        def bonus(bid: int, size: int = size, total: int = sum(made.values())) -> float:
            return TOTAL_BONUS[min(2, max(-2, total + bid - size)) + 2]

        plain = best_bid(*position, random.Random(trial), 20_000, 0.0, (0.0,) * 5)
        weighed = best_bid(*position, random.Random(trial), 20_000, 0.0)
        assert bonus(weighed) >= bonus(plain)
        changed += weighed != plain
    assert changed >= 3


def test_the_crazy8s_expert_plays_for_the_game_in_its_last_round_and_for_points_before() -> None:
    """Lowest total after the last round wins: then only winning counts (points break
    near-ties); in an earlier round every point left with the others counts."""
    # seat 0 trails by 20 (30 v 10): what it and seat 1 hold when the round ends
    assert utility([0, 25], [30, 10], 0, last_round=True) == pytest.approx(100 + 0.25)  # won
    assert utility([0, 19], [30, 10], 0, last_round=True) == pytest.approx(0.19)  # 30 v 29: lost
    assert utility([0, 20], [30, 10], 0, last_round=True) == pytest.approx(50 + 0.2)  # shared
    assert utility([5, 60], [30, 10], 0, True) > 100 > utility([5, 14], [30, 10], 0, True)
    assert utility([0, 19], [30, 10], 0, last_round=False) == 19  # points, round 1 of 3
    assert utility([3, 0, 9], [0, 0, 0], 0, last_round=False) == pytest.approx(4.5 - 3)


def _fits(cards: list[int], groups: list[tuple[int, int]]) -> bool:
    """Can ``cards`` be split into the groups, each taking its count from outside its bitset?"""
    slots = [n for n, (count, _) in enumerate(groups) for _ in range(count)]
    if len(slots) != len(cards):
        return False
    taken: dict[int, int] = {}  # slot -> card (a bipartite matching, by augmenting paths)

    def place(card: int, seen: set[int]) -> bool:
        for slot, group in enumerate(slots):
            if slot in seen or groups[group][1] >> card & 1:
                continue
            seen.add(slot)
            if slot not in taken or place(taken[slot], seen):
                taken[slot] = card
                return True
        return False

    return all(place(card, set()) for card in cards)


@pytest.mark.parametrize("draw_until_playable", [True, False])
def test_the_crazy8s_expert_deals_hands_the_history_allows(draw_until_playable: bool) -> None:
    """Every other seat's real hand fits what the expert reads off the public history
    (a draw or pass shows the cards held then did not play), and the reading does
    narrow the deals once seats have drawn."""
    rng = random.Random(9)
    narrowed = 0
    normal = strategy_for("crazy8s", "normal")
    for game in range(30):
        seats = 2 + game % 3
        state = new_game("crazy8s", seats, {"draw_until_playable": draw_until_playable})
        for seat, view in _crazy8s_turns(state, rng, normal.choose):
            groups = hand_groups(view)
            for other in range(seats):
                if other == seat:
                    assert groups[other] == []
                    continue
                real = [c.index for c in state.view(other).hand]
                assert _fits(real, groups[other]), (view.history, other, real, groups[other])
                narrowed += any(forbidden for _, forbidden in groups[other])
    assert narrowed > 100


def test_kaiser_contract_and_score_follow_the_rules() -> None:
    state = new_game("kaiser", 4, {})
    assert contract(state.view(0)) is None
    # made: bidders score what they took; set: they lose the bid; no trump doubles
    assert score([7, 3], (0, 7, False), 0) == 7 - 3
    assert score([6, 4], (2, 7, False), 0) == -7 - 4
    assert score([8, 2], (1, 7, True), 1) == -14 - 8


# -- the Hearts expert's pass ---------------------------------------------------------------


def _hand(rng: random.Random) -> list[Card]:
    deck = list(HEARTS_PACK)
    rng.shuffle(deck)
    return sorted(deck[:13])


def test_the_simulated_seats_pass_as_the_hard_level_plans() -> None:
    """``quick_pass`` (bits, for the play-outs) is the hard plan's first three cards."""
    rng = random.Random(5)
    for _ in range(300):
        hand = _hand(rng)
        expected = {card.index for card in plan_hard(hand)[:3]}
        given = hearts_search.quick_pass(hearts_search.bits(hand))
        assert {i for i in range(52) if given >> i & 1} == expected, hand


def test_the_expert_passes_three_of_its_own_cards_the_same_way_at_each_pick() -> None:
    rng = random.Random(6)
    for direction in ("left", "right", "across"):
        hand = _hand(rng)
        first = hearts.plan_expert(hand, hearts.PASS_OFFSET[direction], 20_000)
        assert sorted(first) == sorted(hand)  # a whole plan of the hand, each card once
        assert hearts.plan_expert(hand, hearts.PASS_OFFSET[direction], 20_000) == first
        assert set(first[:3]) <= set(plan_hard(hand)[: hearts.PASS_CANDIDATES])


def test_the_expert_gives_its_chosen_three_through_the_single_card_picks() -> None:
    """Played through the engine, the three "give" actions are the set the search chose."""
    state = new_game("hearts", 4, {})
    state.deal(shuffled(list(state.chance() or ()), random.Random(8)))
    expert = strategy_for("hearts", "expert", 20_000)
    dealt = sorted(state.hand(0))
    offset = hearts.PASS_OFFSET[state.view(0).pass_direction]
    chosen = set(hearts.plan_expert(dealt, offset, 20_000)[:3])
    for _ in range(3):
        view = state.view(0)
        state.apply(0, expert.choose(view, view.legal_actions, random.Random(1)))
    assert set(state.view(0).passed_cards) == chosen


def test_play_outs_keep_the_first_tricks_discard_rule() -> None:
    """Void in clubs on the first trick, a seat holding the queen and hearts discards
    neither while it has another card."""
    queen, heart, diamond = (Card.parse(code).index for code in ("QS", "AH", "2D"))
    hand = 1 << queen | 1 << heart | 1 << diamond
    led = Card.parse("2C").index
    first = hearts_search.policy(hand, led // 13, led, False, False, False, True)
    assert first == diamond
    later = hearts_search.policy(hand, led // 13, led, False, False, False, False)
    assert later == queen
