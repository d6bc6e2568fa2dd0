"""The end-of-hand summary in the terminal: the ONE place that decides what a
finished hand's result was (the browser's is ``clients/web/summary.js``).

Today it is built from what the view already carries: the new row of
``hand_scores``, the totals, the bids as last seen and the engine's notes
("seat 2 shot the moon", Kaiser's contract result). When the contract carries
a structured result of the last finished hand, only :func:`hand_result`
needs to read it instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parlour.v1 import play_pb2
from parlour.words import say

from . import render

_RESULT_NOTE = re.compile(r"moon|made|\bset\b|contract|tied|\bwins?\b|lose|\bbid\b", re.IGNORECASE)


@dataclass(frozen=True)
class SeatResult:
    name: str
    bid: str
    points: int
    total: int


@dataclass(frozen=True)
class HandResult:
    hand: int
    seats: tuple[SeatResult, ...]
    lines: tuple[str, ...]


def hand_result(before: play_pb2.View, view: play_pb2.View) -> HandResult | None:
    """The hand ``view`` has just finished (``before`` is the view seen before it), or None."""
    if len(view.hand_scores) <= len(before.hand_scores) or before.phase == "lobby":
        return None
    points = list(view.hand_scores[-1].points)
    totals = list(view.scores) or [player.score for player in view.players]
    bids = {player.seat: player.bid for player in before.players}
    seats = tuple(
        SeatResult(
            render.seat_name(view, seat),
            bids.get(seat, ""),
            points[seat] if seat < len(points) else 0,
            totals[seat] if seat < len(totals) else 0,
        )
        for seat in range(view.seat_count)
    )
    lines = [
        say(note, partial(render.seat_name, view))
        for note in view.notes
        if _RESULT_NOTE.search(note) and not note.startswith("pass ")
    ]
    if view.game == "wizard":  # a Wizard hand scores above zero exactly when the bid is made
        lines += [
            f"{seat.name} bid {seat.bid}: {'made it' if seat.points > 0 else 'missed'}"
            for seat in seats
            if seat.bid
        ]
    return HandResult(len(view.hand_scores), seats, tuple(lines))


def summary_body(result: HandResult) -> Group:
    table = Table(box=None, padding=(0, 0, 0, 2), header_style="bold #9090c0")
    table.add_column("player")
    shows_bids = any(seat.bid for seat in result.seats)
    if shows_bids:
        table.add_column("bid", justify="right")
    table.add_column("this hand", justify="right")
    table.add_column("total", justify="right")
    for seat in result.seats:
        points = Text(f"{seat.points:+d}" if seat.points else "0", style="bold")
        bid = [Text(seat.bid or "–")] if shows_bids else []
        table.add_row(Text(seat.name), *bid, points, Text(str(seat.total)))
    lines = [Text(f"• {line}", style="italic") for line in result.lines]
    return Group(table, *lines)


class HandSummaryScreen(ModalScreen[None]):
    """Shown when a hand ends, before the next deal is played: points by player."""

    BINDINGS = [
        Binding("enter", "close", "Next hand"),
        Binding("escape", "close", "Next hand", show=False),
    ]

    def __init__(self, result: HandResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog") as box:
            box.border_title = f"Hand {self.result.hand} is over"
            yield Static(summary_body(self.result), id="summary-body")
            yield Static(Text("Enter: next hand", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
