"""The contract's end rule and hand result read back as the engine's values, so a
worker's view holds the same facts as a view in self-play (see ``convert.py``).

Enum values are matched by name: ``GAME_END_ROUNDS`` is ``GameEnd.ROUNDS``.
"""

from __future__ import annotations

from parlour.engine.cards import Card, Suit
from parlour.engine.results import (
    CrazyEightsRoundResult,
    EndReason,
    EndRule,
    GameEnd,
    GameHandResult,
    HandResult,
    HeartsHandResult,
    KaiserHandResult,
    TieRule,
    WinnerRule,
    WizardRoundResult,
)
from parlour.engine.trick import Play, Trick
from parlour.v1 import catalogue_pb2, common_pb2, play_pb2

_SUITS: dict[int, Suit | None] = {
    common_pb2.SUIT_UNSPECIFIED: None,
    common_pb2.SUIT_CLUBS: Suit.CLUBS,
    common_pb2.SUIT_DIAMONDS: Suit.DIAMONDS,
    common_pb2.SUIT_HEARTS: Suit.HEARTS,
    common_pb2.SUIT_SPADES: Suit.SPADES,
}


def end_rule(message: catalogue_pb2.EndRule) -> EndRule:
    return EndRule(
        ends_by=GameEnd[catalogue_pb2.GameEnd.Name(message.ends_by).removeprefix("GAME_END_")],
        winner=WinnerRule[
            catalogue_pb2.WinnerRule.Name(message.winner).removeprefix("WINNER_RULE_")
        ],
        ties=TieRule[catalogue_pb2.TieRule.Name(message.ties).removeprefix("TIE_RULE_")],
        text=message.text,
        rounds=message.rounds,
        rounds_option=message.rounds_option,
        target=message.target,
        target_option=message.target_option,
        loses_at_minus_target=message.loses_at_minus_target,
        partnerships=message.partnerships,
    )


def end_reason(value: play_pb2.EndReason.ValueType) -> EndReason | None:
    if value == play_pb2.END_REASON_UNSPECIFIED:
        return None
    return EndReason[play_pb2.EndReason.Name(value).removeprefix("END_REASON_")]


def _trick(message: play_pb2.Trick) -> Trick:
    return Trick(
        leader=message.leader,
        plays=tuple(Play(play.seat, Card.parse(play.card)) for play in message.plays),
        winner=message.winner if message.HasField("winner") else None,
        led_suit=_SUITS[message.led_suit],
    )


def _detail(message: play_pb2.HandResult) -> GameHandResult:
    which = message.WhichOneof("game")
    if which == "wizard":
        wizard = message.wizard
        turned = Card.parse(wizard.turned_card) if wizard.turned_card else None
        return WizardRoundResult(tuple(wizard.bids), _SUITS[wizard.trump], turned)
    if which == "crazy8s":
        eights = message.crazy8s
        went_out = eights.went_out if eights.HasField("went_out") else None
        return CrazyEightsRoundResult(went_out, tuple(eights.cards_left), eights.stock_rebuilds)
    if which == "kaiser":
        kaiser = message.kaiser
        taken, change = tuple(kaiser.points_taken), tuple(kaiser.score_change)
        return KaiserHandResult(
            bidder=kaiser.bidder,
            bid=kaiser.bid,
            no_trump=kaiser.no_trump,
            trump=_SUITS[kaiser.trump],
            made=kaiser.made,
            points_taken=(taken[0], taken[1]),
            score_change=(change[0], change[1]),
        )
    hearts = message.hearts
    return HeartsHandResult(
        moon_shooter=hearts.moon_shooter if hearts.HasField("moon_shooter") else None,
        points_taken=tuple(hearts.points_taken),
        pass_direction=hearts.pass_direction,
        last_trick=_trick(hearts.last_trick),
        tie_plays_on=hearts.tie_plays_on,
    )


def hand_result(message: play_pb2.HandResult) -> HandResult:
    return HandResult(
        hand_number=message.hand_number,
        dealer=message.dealer,
        points=tuple(message.points),
        totals=tuple(message.totals),
        tricks_taken=tuple(message.tricks_taken),
        text=message.text,
        detail=_detail(message),
    )
