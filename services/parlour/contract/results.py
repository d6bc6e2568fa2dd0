"""End rules and hand results to and from the contract's messages.

These facts are public (every seat sees the same result of a finished hand),
so nothing here can leak a hidden card. Enum values are matched by name:
``GAME_END_ROUNDS`` is ``GameEnd.ROUNDS``.
"""

from __future__ import annotations

from parlour.contract.cards import (
    SUIT_TO_PROTO,
    by_name,
    card_code,
    card_from_code,
    fill_trick,
    inverse,
    suit_from_proto,
    trick_from_proto,
)
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
from parlour.v1 import catalogue_pb2, play_pb2

_GAME_END = by_name(GameEnd, catalogue_pb2.GameEnd, "GAME_END_")
_WINNER = by_name(WinnerRule, catalogue_pb2.WinnerRule, "WINNER_RULE_")
_TIES = by_name(TieRule, catalogue_pb2.TieRule, "TIE_RULE_")
_GAME_END_FROM, _WINNER_FROM, _TIES_FROM = inverse(_GAME_END), inverse(_WINNER), inverse(_TIES)
END_REASON_TO_PROTO: dict[EndReason | None, play_pb2.EndReason.ValueType] = by_name(
    EndReason, play_pb2.EndReason, "END_REASON_"
)
# ABANDONED and EXPIRED are the service's endings, not the rules': None here
_END_REASON_FROM: dict[play_pb2.EndReason.ValueType, EndReason] = inverse(END_REASON_TO_PROTO)


# -- end rules -------------------------------------------------------------------------------


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


def end_rule_from_proto(message: catalogue_pb2.EndRule) -> EndRule:
    return EndRule(
        ends_by=_GAME_END_FROM[message.ends_by],
        winner=_WINNER_FROM[message.winner],
        ties=_TIES_FROM[message.ties],
        text=message.text,
        rounds=message.rounds,
        rounds_option=message.rounds_option,
        target=message.target,
        target_option=message.target_option,
        loses_at_minus_target=message.loses_at_minus_target,
        partnerships=message.partnerships,
    )


def end_reason_from_proto(value: play_pb2.EndReason.ValueType) -> EndReason | None:
    """The rules' reason a game ended; None while it goes on (or the service ended it)."""
    return _END_REASON_FROM.get(value)


# -- hand results ----------------------------------------------------------------------------


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
        message.wizard.turned_card = card_code(detail.turned_card)
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
                five_of_hearts_seat=detail.five_of_hearts_seat,
                three_of_spades_seat=detail.three_of_spades_seat,
            )
        )
    elif isinstance(detail, HeartsHandResult):
        hearts = message.hearts
        if detail.moon_shooter is not None:
            hearts.moon_shooter = detail.moon_shooter
        hearts.points_taken.extend(detail.points_taken)
        hearts.pass_direction = detail.pass_direction
        fill_trick(hearts.last_trick, detail.last_trick)
        hearts.tie_plays_on = detail.tie_plays_on
        if detail.queen_of_spades_seat is not None:
            hearts.queen_of_spades_seat = detail.queen_of_spades_seat


def _detail_from_proto(message: play_pb2.HandResult) -> GameHandResult:
    which = message.WhichOneof("game")
    if which == "wizard":
        wizard = message.wizard
        return WizardRoundResult(
            tuple(wizard.bids), suit_from_proto(wizard.trump), card_from_code(wizard.turned_card)
        )
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
            trump=suit_from_proto(kaiser.trump),
            made=kaiser.made,
            points_taken=(taken[0], taken[1]),
            score_change=(change[0], change[1]),
            five_of_hearts_seat=(
                kaiser.five_of_hearts_seat if kaiser.HasField("five_of_hearts_seat") else None
            ),
            three_of_spades_seat=(
                kaiser.three_of_spades_seat if kaiser.HasField("three_of_spades_seat") else None
            ),
        )
    hearts = message.hearts
    return HeartsHandResult(
        moon_shooter=hearts.moon_shooter if hearts.HasField("moon_shooter") else None,
        points_taken=tuple(hearts.points_taken),
        pass_direction=hearts.pass_direction,
        last_trick=trick_from_proto(hearts.last_trick),
        tie_plays_on=hearts.tie_plays_on,
        queen_of_spades_seat=(
            hearts.queen_of_spades_seat if hearts.HasField("queen_of_spades_seat") else None
        ),
    )


def hand_result_from_proto(message: play_pb2.HandResult) -> HandResult:
    return HandResult(
        hand_number=message.hand_number,
        dealer=message.dealer,
        points=tuple(message.points),
        totals=tuple(message.totals),
        tricks_taken=tuple(message.tricks_taken),
        text=message.text,
        detail=_detail_from_proto(message),
    )
