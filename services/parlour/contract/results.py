"""Conversions of the engine's end rules and hand results to the contract's messages.

Kept beside ``convert.py`` (views, actions, tables): these facts are public
(every seat sees the same result of a finished hand), so nothing here can
leak a hidden card.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from parlour.engine.cards import Suit
from parlour.engine.results import (
    CrazyEightsRoundResult,
    EndReason,
    EndRule,
    GameEnd,
    HandResult,
    HeartsHandResult,
    KaiserHandResult,
    TieRule,
    WinnerRule,
    WizardRoundResult,
)
from parlour.engine.trick import Trick
from parlour.engine.view import View
from parlour.v1 import catalogue_pb2, common_pb2, play_pb2


def by_name(values: Iterable[Enum], proto: Any, prefix: str) -> dict[Any, Any]:
    """Each member of an engine enum to the contract's value named ``prefix`` + its name,
    and None to ``prefix`` + UNSPECIFIED (a member with no counterpart fails at import)."""
    found = {member: proto.Value(prefix + member.name) for member in values}
    return {None: proto.Value(f"{prefix}UNSPECIFIED"), **found}


def inverse(mapping: dict[Any, Any]) -> dict[Any, Any]:
    """The contract's values back to the engine's (UNSPECIFIED left out)."""
    return {value: key for key, value in mapping.items() if key is not None}


SUIT_TO_PROTO = by_name(Suit, common_pb2.Suit, "SUIT_")
_GAME_END = by_name(GameEnd, catalogue_pb2.GameEnd, "GAME_END_")
_WINNER = by_name(WinnerRule, catalogue_pb2.WinnerRule, "WINNER_RULE_")
_TIES = by_name(TieRule, catalogue_pb2.TieRule, "TIE_RULE_")
END_REASON = by_name(EndReason, play_pb2.EndReason, "END_REASON_")


def fill_end_rule(message: catalogue_pb2.EndRule, rule: EndRule) -> None:
    """Copy ``rule`` into ``message`` (GameInfo.end_rule or View.end_rule)."""
    message.ends_by = _GAME_END[rule.ends_by]
    message.winner = _WINNER[rule.winner]
    message.ties = _TIES[rule.ties]
    message.rounds = rule.rounds
    message.rounds_option = rule.rounds_option
    message.target = rule.target
    message.target_option = rule.target_option
    message.loses_at_minus_target = rule.loses_at_minus_target
    message.partnerships = rule.partnerships
    message.text = rule.text


def _fill_trick(message: play_pb2.Trick, trick: Trick) -> None:
    message.leader = trick.leader
    for play in trick.plays:
        message.plays.add(seat=play.seat, card=str(play.card))
    message.led_suit = SUIT_TO_PROTO[trick.led_suit]
    if trick.winner is not None:
        message.winner = trick.winner


def fill_hand_result(message: play_pb2.HandResult, result: HandResult) -> None:
    """Copy ``result`` into ``message`` (View.last_hand)."""
    message.hand_number = result.hand_number
    message.dealer = result.dealer
    message.points.extend(result.points)
    message.totals.extend(result.totals)
    message.tricks_taken.extend(result.tricks_taken)
    message.text = result.text
    detail = result.detail
    if isinstance(detail, WizardRoundResult):
        message.wizard.bids.extend(detail.bids)
        message.wizard.trump = SUIT_TO_PROTO[detail.trump]
        message.wizard.turned_card = str(detail.turned_card) if detail.turned_card else ""
    elif isinstance(detail, CrazyEightsRoundResult):
        eights = message.crazy8s
        eights.outcome = (
            play_pb2.CRAZY_EIGHTS_OUTCOME_BLOCKED
            if detail.went_out is None
            else play_pb2.CRAZY_EIGHTS_OUTCOME_WENT_OUT
        )
        if detail.went_out is not None:
            eights.went_out = detail.went_out
        eights.cards_left.extend(detail.cards_left)
        eights.stock_rebuilds = detail.stock_rebuilds
    elif isinstance(detail, KaiserHandResult):
        message.kaiser.CopyFrom(
            play_pb2.KaiserHandResult(
                bidder=detail.bidder,
                bidding_team=detail.bidding_team,
                bid=detail.bid,
                no_trump=detail.no_trump,
                trump=SUIT_TO_PROTO[detail.trump],
                made=detail.made,
                points_taken=detail.points_taken,
                score_change=detail.score_change,
            )
        )
    elif isinstance(detail, HeartsHandResult):
        hearts = message.hearts
        if detail.moon_shooter is not None:
            hearts.moon_shooter = detail.moon_shooter
        hearts.points_taken.extend(detail.points_taken)
        hearts.pass_direction = detail.pass_direction
        _fill_trick(hearts.last_trick, detail.last_trick)
        hearts.tie_plays_on = detail.tie_plays_on


def fill_view_results(message: play_pb2.View, value: View) -> None:
    """The view's end rule, last hand, end reason and Crazy 8s turn facts."""
    if value.end_rule is not None:
        fill_end_rule(message.end_rule, value.end_rule)
    if value.last_hand is not None:
        fill_hand_result(message.last_hand, value.last_hand)
    message.end_reason = END_REASON[value.end_reason]
    message.passes_in_a_row = value.passes_in_a_row
    if value.must_play is not None:
        message.must_play_card = str(value.must_play)
