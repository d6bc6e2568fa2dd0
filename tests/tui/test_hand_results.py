"""The terminal's hand summary and game-over words read the contract's hand result.

Views are built as the contract carries them (the same facts as the Kaiser set
contract, Hearts moon and blocked Crazy 8s round of tests/engine/test_results.py)
and the summary is rendered as a person reads it.
"""

from __future__ import annotations

from rich.console import Console

from parlour.tui.summary import HandResult, describe_hand, end_words, hand_result, summary_body
from parlour.v1 import catalogue_pb2, common_pb2, lobby_pb2, play_pb2

NAMES = ("Ada", "Bo", "Cy", "Dee")


def table_view(game: str, names: tuple[str, ...] = NAMES, seat: int = 0) -> play_pb2.View:
    view = play_pb2.View(game=game, seat=seat, seat_count=len(names), phase="play")
    for number, name in enumerate(names):
        kind = lobby_pb2.SEAT_KIND_BOT if "(" in name else lobby_pb2.SEAT_KIND_PERSON
        view.players.add(seat=number, player_name=name, kind=kind)
    return view


def said(result: HandResult, me: int | None = 0) -> str:
    console = Console(width=100, record=True)
    console.print(summary_body(result, me))
    return console.export_text()


def test_a_hearts_moon_is_told_by_name_with_the_last_trick() -> None:
    view = table_view("hearts")
    last = view.last_hand
    last.hand_number, last.dealer = 1, 3
    last.points[:] = [0, 26, 26, 26]
    last.totals[:] = [0, 26, 26, 26]
    last.tricks_taken[:] = [13, 0, 0, 0]
    last.hearts.moon_shooter = 0
    last.hearts.points_taken[:] = [26, 0, 0, 0]
    last.hearts.pass_direction = "none"
    trick = last.hearts.last_trick
    trick.leader, trick.winner = 0, 0
    for seat, card in enumerate(("AC", "KH", "QS", "TD")):
        trick.plays.add(seat=seat, card=card)
    result = describe_hand(view, last)
    assert result.columns == ("player", "tricks", "took", "this hand", "total")
    assert result.rows[0] == ("Ada", "13", "26", "0", "0")
    assert result.rows[1] == ("Bo", "0", "0", "+26", "26")
    assert result.lines == (
        "Ada shot the moon: 0 for them, 26 for everyone else",
        "Ada took the last trick with the A♣ (A♣ K♥ Q♠ 10♦)",
        "No cards were passed",
    )
    assert result.last_trick == trick
    text = said(result)
    assert "dealt by Dee" in text and "Ada (you)" in text and "Ada shot the moon" in text


def test_a_hand_without_a_moon_has_no_took_column_and_is_found_once() -> None:
    before = table_view("hearts")
    view = table_view("hearts")
    last = view.last_hand
    last.hand_number = 2
    last.points[:] = [3, 13, 10, 0]
    last.hearts.points_taken[:] = [3, 13, 10, 0]
    last.hearts.pass_direction = "right"
    result = hand_result(before, view)
    assert result is not None and result.hand == 2
    assert result.columns == ("player", "tricks", "this hand", "total")
    assert "Cards were passed right" in result.lines
    assert not any("moon" in line for line in result.lines)
    before.last_hand.CopyFrom(last)  # the same hand seen again: no second summary
    assert hand_result(before, view) is None


def test_a_wizard_round_says_each_bid_made_or_missed() -> None:
    view = table_view("wizard", ("Wyn", "Bot 2 (normal)", "Bot 3 (random)"))
    last = view.last_hand
    last.hand_number = 3
    last.tricks_taken[:] = [2, 0, 1]
    last.points[:] = [40, -10, -20]
    last.wizard.bids[:] = [2, 1, 3]
    last.wizard.trump = common_pb2.SUIT_SPADES
    last.wizard.turned_card = "W3"
    result = describe_hand(view, last)
    assert result.columns == ("player", "bid", "took", "result", "this hand", "total")
    assert [row[3] for row in result.rows] == ["made", "missed by 1", "missed by 2"]
    assert result.lines == (
        "Wyn made their bid",
        "Bot 2 and Bot 3 missed",
        "A wizard was turned up; the dealer named spades trump",
    )


def test_a_kaiser_set_contract_names_the_bidder_the_trump_and_each_sides_change() -> None:
    view = table_view("kaiser")
    view.scores[:] = [20, -55, 20, -55]
    last = view.last_hand
    last.hand_number, last.dealer = 4, 0
    last.points[:] = [10, -10, 10, -10]
    last.totals[:] = [20, -55, 20, -55]
    last.tricks_taken[:] = [8, 0, 0, 0]
    k = last.kaiser
    k.bidder, k.bidding_team, k.bid, k.trump, k.made = 1, 1, 10, common_pb2.SUIT_CLUBS, False
    k.points_taken[:] = [10, 0]
    k.score_change[:] = [10, -10]
    k.five_of_hearts_seat, k.three_of_spades_seat = 0, 2  # who took the cards that count
    result = describe_hand(view, last)
    assert result.lines == (
        "Bo bid 10 with clubs trump: set, Bo and Dee took only 0 points",
        "Ada and Cy: 10 points in tricks, +10 to the score",
        "Bo and Dee: 0 points in tricks, -10 to the score",
        "Ada took the 5♥ (+5 for Ada and Cy)",
        "Cy took the 3♠ (-3 for Ada and Cy)",
        "Game: us 20, them -55",
    )
    view.is_over = True
    view.winners[:] = [0, 2]
    view.end_reason = play_pb2.END_REASON_FELL_TO_MINUS_TARGET
    view.end_rule.target, view.end_rule.partnerships = 52, True
    assert end_words(view) == "Bo and Dee fell to −52 or below, so the other side wins."


def test_a_blocked_crazy8s_round_and_the_end_by_rounds() -> None:
    view = table_view("crazy8s", ("Cat", "Dan", "Eve"))
    last = view.last_hand
    last.hand_number, last.dealer = 3, 2
    last.points[:] = [5, 17, 14]
    last.totals[:] = [12, 30, 14]
    last.crazy8s.outcome = play_pb2.CRAZY_EIGHTS_OUTCOME_BLOCKED
    last.crazy8s.cards_left[:] = [2, 2, 2]
    last.crazy8s.stock_rebuilds = 2
    result = describe_hand(view, last)
    assert result.columns == ("player", "cards left", "this hand", "total")
    assert result.rows[1] == ("Dan", "2", "+17", "30")
    assert result.lines == (
        "The round was blocked: nobody could play or draw",
        "The stock was rebuilt from the discards twice",
    )
    view.scores[:] = [12, 30, 14]
    view.end_reason = play_pb2.END_REASON_ROUNDS_PLAYED
    view.end_rule.rounds = 3
    view.end_rule.winner = catalogue_pb2.WINNER_RULE_LOWEST_TOTAL
    assert end_words(view) == "All 3 rounds were played; the lowest total wins."
    view.end_reason = play_pb2.END_REASON_TARGET_REACHED
    view.end_rule.target = 30
    assert end_words(view) == "Dan reached 30 or more; the lowest total wins."
