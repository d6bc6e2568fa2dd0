"""The end-of-hand summary and the words of the game's end, in the terminal: the
ONE place that says what a finished hand's result was (the browser's is
``clients/web/summary.js``).

It reads the contract's structured result of the last finished hand
(``View.last_hand``: points, totals and tricks per seat, and the game's own
facts) and says it by players' names, in the client's language (every word
from the phrasebook's ``tui.sum.*``, ``tui.end.*`` entries).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parlour.v1 import catalogue_pb2, common_pb2, play_pb2
from parlour.words import card_name, phrase, suit_word

from .keys import speak_keys
from .speech import t

_LEVEL = re.compile(r" \([^)]*\)$")
_SUIT_LETTER: dict[int, str] = {
    common_pb2.SUIT_CLUBS: "C",
    common_pb2.SUIT_DIAMONDS: "D",
    common_pb2.SUIT_HEARTS: "H",
    common_pb2.SUIT_SPADES: "S",
}


def player_name(view: play_pb2.View, seat: int) -> str:
    """A seat's player by name ("Ada"; a computer player without its level), "Seat 3" if free."""
    if 0 <= seat < len(view.players) and view.players[seat].player_name:
        return _LEVEL.sub("", view.players[seat].player_name)
    return phrase("seat.name", None, number=seat + 1)


def join_names(names: Sequence[str]) -> str:
    """ "Ada", "Ada and Bo", "Ada, Bo and Cy"."""
    if len(names) <= 1:
        return names[0] if names else t("nobody")
    return t("names.and", first=", ".join(names[:-1]), last=names[-1])


def side_name(view: play_pb2.View, team: int) -> str:
    """A Kaiser side (seats s and s + 2) by its players' names."""
    return join_names([player_name(view, s) for s in range(view.seat_count) if s % 2 == team])


def suit_words(suit: int) -> str:
    """A suit's name in the client's language ("" for none)."""
    return suit_word(_SUIT_LETTER.get(suit, ""))


#: a column's id (HandResult.columns) -> its heading's key
COLUMN_WORDS = {
    "player": "sum.col.player",
    "tricks": "sum.col.tricks",
    "took": "sum.col.took",
    "bid": "sum.col.bid",
    "result": "sum.col.result",
    "cards left": "sum.col.cards_left",
    "this hand": "sum.col.this_hand",
    "total": "sum.col.total",
}


@dataclass(frozen=True)
class HandResult:
    """A finished hand in words: a table (``columns``, their ids, over one row per seat;
    ``COLUMN_WORDS`` says their headings) and sentences."""

    hand: int
    dealer: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[str, ...]
    #: the seats the rows are of, in order; the viewer's own row is marked
    seats: tuple[int, ...]
    #: the hand's last trick when the result carries it (Hearts), else None
    last_trick: play_pb2.Trick | None = None


def hand_result(before: play_pb2.View, view: play_pb2.View) -> HandResult | None:
    """The hand ``view`` has just finished (``before`` is the view seen before it), or None."""
    if not view.HasField("last_hand") or before.phase == "lobby":
        return None
    if before.HasField("last_hand") and before.last_hand.hand_number == view.last_hand.hand_number:
        return None
    return describe_hand(view, view.last_hand)


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


Cells = list[tuple[str, list[str]]]  # (column, one cell per seat), shown before the points


def _at(values: Sequence[int], seat: int) -> int:
    return values[seat] if seat < len(values) else 0


def describe_hand(view: play_pb2.View, last: play_pb2.HandResult) -> HandResult:
    """``last`` (a View.last_hand) by players' names, with the game's own facts."""
    seats = tuple(range(view.seat_count))
    names = [player_name(view, seat) for seat in seats]
    tricks = [str(_at(last.tricks_taken, seat)) for seat in seats]
    trick: play_pb2.Trick | None = None
    game = last.WhichOneof("game")
    if game == "wizard":
        extra, lines = _wizard(last, names)
    elif game == "kaiser":
        extra, lines = [("tricks", tricks)], _kaiser(view, last.kaiser)
    elif game == "hearts":
        extra, lines = _hearts(view, last.hearts, tricks)
        trick = last.hearts.last_trick if last.hearts.last_trick.plays else None
    elif game == "crazy8s":
        extra, lines = _crazy8s(view, last.crazy8s)
    else:
        extra, lines = [("tricks", tricks)], []
    columns = ("player", *(name for name, _ in extra), "this hand", "total")
    rows = tuple(
        (
            names[seat],
            *(cells[seat] for _, cells in extra),
            _signed(_at(last.points, seat)),
            str(_at(last.totals, seat)),
        )
        for seat in seats
    )
    dealer = player_name(view, last.dealer)
    return HandResult(last.hand_number, dealer, columns, rows, tuple(lines), seats, trick)


def _wizard(last: play_pb2.HandResult, names: Sequence[str]) -> tuple[Cells, list[str]]:
    """Each bid against the tricks taken: made, or missed by how many."""
    bids = [_at(last.wizard.bids, seat) for seat in range(len(names))]
    took = [_at(last.tricks_taken, seat) for seat in range(len(names))]
    hits = [bid == tricks for bid, tricks in zip(bids, took, strict=True)]
    made = [
        t("sum.made") if hit else t("sum.missed_by", count=abs(bid - tricks))
        for hit, bid, tricks in zip(hits, bids, took, strict=True)
    ]
    cells = [("bid", [str(b) for b in bids]), ("took", [str(n) for n in took]), ("result", made)]
    making = [name for name, hit in zip(names, hits, strict=True) if hit]
    missed = [name for name, hit in zip(names, hits, strict=True) if not hit]
    lines = []
    if not missed:
        lines.append(t("sum.everyone_made"))
    else:
        if making:
            lines.append(t("sum.they_made", names=join_names(making), count=len(making)))
        lines.append(t("sum.they_missed", names=join_names(missed), count=len(missed)))
    lines.append(_wizard_trump(last.wizard))
    return cells, lines


def _kaiser(view: play_pb2.View, k: play_pb2.KaiserHandResult) -> list[str]:
    """The contract (who bid what, trump or no trump), made or set, and each side's change."""
    side = side_name(view, k.bidding_team)
    taken = _at(k.points_taken, k.bidding_team)
    suit = suit_words(k.trump)
    key = ("sum.kaiser.made" if k.made else "sum.kaiser.set") + ("" if suit else "_nt")
    bidder = player_name(view, k.bidder)
    lines = [t(key, bidder=bidder, number=k.bid, suit=suit, side=side, count=taken)]
    for team in (0, 1):
        change = _signed(_at(k.score_change, team))
        count = _at(k.points_taken, team)
        lines.append(t("sum.kaiser.side", side=side_name(view, team), count=count, change=change))
    # who took the two cards that count apart from the tricks
    if k.HasField("five_of_hearts_seat"):
        seat = k.five_of_hearts_seat
        five = side_name(view, seat % 2)
        lines.append(t("sum.kaiser.five", name=player_name(view, seat), side=five))
    if k.HasField("three_of_spades_seat"):
        seat = k.three_of_spades_seat
        three = side_name(view, seat % 2)
        lines.append(t("sum.kaiser.three", name=player_name(view, seat), side=three))
    lines.append(_us_and_them(view))
    return lines


def _us_and_them(view: play_pb2.View) -> str:
    """The two sides' game totals, the viewer's side first as "us" when it is seated."""
    totals = [0, 0]
    for seat, score in enumerate(view.scores or [p.score for p in view.players]):
        totals[seat % 2] = score  # partners share their side's total
    if view.HasField("seat"):
        ours = view.seat % 2
        return t("sum.kaiser.us_them", us=totals[ours], them=totals[1 - ours])
    a, b = side_name(view, 0), side_name(view, 1)
    return t("sum.kaiser.totals", a=a, x=totals[0], b=b, y=totals[1])


def _hearts(
    view: play_pb2.View, h: play_pb2.HeartsHandResult, tricks: list[str]
) -> tuple[Cells, list[str]]:
    """Tricks per seat, a shot moon, the last trick and who took it, the pass."""
    cells: Cells = [("tricks", tricks)]
    lines = []
    if h.HasField("moon_shooter"):
        # the points taken in tricks differ from the score only when the moon was shot
        cells.append(("took", [str(_at(h.points_taken, s)) for s in range(view.seat_count)]))
        lines.append(t("sum.hearts.moon", name=player_name(view, h.moon_shooter)))
    if h.HasField("queen_of_spades_seat"):
        lines.append(t("sum.hearts.queen", name=player_name(view, h.queen_of_spades_seat)))
    trick = h.last_trick
    if trick.plays:
        cards = " ".join(card_name(play.card) for play in trick.plays)
        won = next((play.card for play in trick.plays if play.seat == trick.winner), "")
        taker = player_name(view, trick.winner)
        lines.append(t("sum.hearts.last_trick", name=taker, card=card_name(won), cards=cards))
    if h.pass_direction in ("left", "right", "across"):
        direction = t(f"direction.{h.pass_direction}")
        lines.append(t("sum.hearts.passed", direction=direction))
    else:
        lines.append(t("sum.hearts.not_passed"))
    if h.tie_plays_on:
        lines.append(t("sum.hearts.tie"))
    return cells, lines


def _crazy8s(view: play_pb2.View, c: play_pb2.CrazyEightsRoundResult) -> tuple[Cells, list[str]]:
    """Who went out, or that the round was blocked, and the cards each seat was caught with."""
    cells: Cells = [("cards left", [str(_at(c.cards_left, s)) for s in range(view.seat_count)])]
    if c.outcome == play_pb2.CRAZY_EIGHTS_OUTCOME_WENT_OUT and c.HasField("went_out"):
        lines = [t("sum.crazy8s.went_out", name=player_name(view, c.went_out))]
    else:
        lines = [t("sum.crazy8s.blocked")]
    if c.stock_rebuilds == 2:
        lines.append(t("sum.crazy8s.rebuilt_twice"))
    elif c.stock_rebuilds:
        lines.append(t("sum.crazy8s.rebuilt", count=c.stock_rebuilds))
    return cells, lines


def _wizard_trump(result: play_pb2.WizardRoundResult) -> str:
    trump = suit_words(result.trump)
    turned = result.turned_card
    if not turned:
        return t("sum.whole_pack")
    if turned.startswith("W"):
        return t("sum.turned_wizard", suit=trump) if trump else t("sum.turned_wizard_none")
    if turned.startswith("N"):
        return t("sum.turned_jester")
    return t("sum.turned", card=card_name(turned), suit=trump)


def end_words(view: play_pb2.View) -> str:
    """Why the game ended, by players' names ("Bo reached 100 or more; the lowest total wins")."""
    rule = view.end_rule
    lowest = rule.winner == catalogue_pb2.WINNER_RULE_LOWEST_TOTAL
    wins = t("end.lowest_wins") if lowest else t("end.highest_wins")
    totals = list(view.scores) or [player.score for player in view.players]

    def who(seats: Sequence[int]) -> str:
        if rule.partnerships:
            return join_names([side_name(view, team) for team in sorted({s % 2 for s in seats})])
        return join_names([player_name(view, s) for s in seats])

    if view.end_reason == play_pb2.END_REASON_ROUNDS_PLAYED:
        rounds = rule.rounds or len(view.hand_scores)
        if rounds == 1:
            return t("end.one_round", wins=wins)
        return t("end.all_rounds", count=rounds, wins=wins)
    if view.end_reason == play_pb2.END_REASON_TARGET_REACHED:
        reached = [s for s, total in enumerate(totals) if total >= rule.target]
        return t("end.reached", names=who(reached), target=rule.target, wins=wins)
    if view.end_reason == play_pb2.END_REASON_FELL_TO_MINUS_TARGET:
        fell = [s for s, total in enumerate(totals) if total <= -rule.target]
        return t("end.fell", names=who(fell), target=rule.target)
    return f"{rule.text[:1].upper()}{rule.text[1:]}." if rule.text else ""


def summary_body(result: HandResult, me: int | None = None) -> Group:
    table = Table(box=None, padding=(0, 0, 0, 2), header_style="bold #9090c0")
    for index, column in enumerate(result.columns):
        words = t(COLUMN_WORDS[column]) if column in COLUMN_WORDS else column
        table.add_column(words, justify="left" if index == 0 else "right")
    made = t("sum.made")
    for seat, row in zip(result.seats, result.rows, strict=True):
        mine = seat == me
        name = Text(row[0] + (t("sum.you") if mine else ""), style="bold" if mine else "")
        cells = []
        for column, cell in zip(result.columns[1:], row[1:], strict=True):
            style = "bold" if column == "this hand" else ""
            if column == "result":
                style = "green" if cell == made else "red"
            cells.append(Text(cell, style=style))
        table.add_row(name, *cells)
    heading = Text(t("sum.dealt_by", name=result.dealer), style="dim")
    lines = [Text(f"• {line}", style="italic") for line in result.lines]
    return Group(heading, table, *lines)


class HandSummaryScreen(ModalScreen[None]):
    """Shown when a hand ends, before the next deal is played: points by player."""

    BINDINGS = [
        Binding("enter", "close", "Next hand"),
        Binding("escape", "close", "Next hand", show=False),
        # the app's language switch, here too: a modal screen keeps its keys to itself
        Binding("f2", "app.switch_language", show=False),
    ]
    #: each action's footer words (keys.py)
    KEY_WORDS = {"close": "key.next_hand"}

    def __init__(
        self,
        result: HandResult,
        me: int | None = None,
        sealed: str = "",
        view: play_pb2.View | None = None,
    ) -> None:
        super().__init__()
        self.result = result
        #: the view the result was read from: said again after a language switch
        self.source = view
        self.me = me
        #: the commitment announced for this hand's deal (its last, for a Crazy 8s rebuild)
        self.sealed = sealed

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog") as box:
            box.border_title = t("sum.title", number=self.result.hand)
            yield Static(summary_body(self.result, self.me), id="summary-body")
            if self.sealed:
                yield Static(
                    Text(t("sum.sealed", commitment=self.sealed[:12]), style="dim"),
                    id="deal-sealed",
                )
            yield Static(Text(t("sum.next_hint"), style="dim"))

    def on_mount(self) -> None:
        speak_keys(self)

    def say_again(self) -> None:
        """After a language switch (F2): this screen's words again."""
        speak_keys(self)
        if self.source is not None:
            self.result = describe_hand(self.source, self.source.last_hand)
        self.refresh(recompose=True)

    def action_close(self) -> None:
        self.dismiss(None)
