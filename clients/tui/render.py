"""Rich renderables of a seat's view: seats, the trick, the table facts, scores.

Pure functions of the ``parlour.v1`` View the server sent; they show what is
there and decide nothing. Fields a game does not use are empty and left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from parlour.v1 import lobby_pb2, play_pb2
from parlour.words import say

from .cards import card_label, card_text, suit_word

PHASES = {
    "lobby": "waiting for players",
    "deal": "dealing",
    "pass": "passing cards",
    "bid": "bidding",
    "trump": "naming trump",
    "play": "playing",
    "over": "game over",
}


def seat_name(view: play_pb2.View, seat: int) -> str:
    """The name on ``seat`` ("Seat 3" while free, counted from 1); "you" for the viewing seat."""
    if view.HasField("seat") and view.seat == seat:
        return "you"
    if seat < len(view.players) and view.players[seat].player_name:
        return view.players[seat].player_name
    return f"Seat {seat + 1}"


_BOT_LEVEL = re.compile(r" \([^)]*\)$")


def _is_bot(player: play_pb2.Player) -> bool:
    return player.kind == lobby_pb2.SEAT_KIND_BOT


def seats_table(view: play_pb2.View) -> Table:
    """One row per seat: name, bid, tricks, points this hand, score, cards held.

    A column appears only when some seat has something in it, so each game
    shows what it uses (bids in Wizard and Kaiser, points in Hearts).
    """
    players = list(view.players)
    show_bid = any(p.bid for p in players) or view.phase == "bid"
    show_tricks = view.phase != "lobby" and view.game != "crazy8s"
    show_points = any(p.points_this_hand for p in players)
    show_team = any(p.HasField("team") for p in players)
    table = Table(box=None, padding=(0, 0, 0, 1), expand=True, header_style="bold #9090c0")
    table.add_column("", width=1, no_wrap=True)
    table.add_column("seat", ratio=1, min_width=8, no_wrap=True, overflow="ellipsis")
    if show_team:
        table.add_column("team", justify="right")
    if show_bid:
        table.add_column("bid", justify="right")
    if show_tricks:
        table.add_column("won", justify="right")
    if show_points:
        table.add_column("pts", justify="right")
    table.add_column("score", justify="right")
    table.add_column("held", justify="right")
    waiting = set(view.to_act)
    for player in players:
        name = Text(f"{player.seat + 1} {seat_name(view, player.seat)}")  # counted from 1
        if _is_bot(player) and "bot" not in name.plain.lower():
            name.append(" (bot)", style="dim")
        elif view.phase == "lobby" and not player.player_name:
            name.append(" (free)", style="italic yellow")
        if player.seat in waiting:
            name.stylize("bold yellow")
        if player.away:
            name.append(" away (bot playing)", style="italic #ffd27a")
        if player.time_left_ms and player.seat in waiting:
            name.append(f" {clock_words(player.time_left_ms)}", style="bold")
        marker = Text("▶", style="bold yellow") if player.seat in waiting else ""
        row: list[RenderableType] = [marker, name]
        if show_team:
            row.append(str(player.team) if player.HasField("team") else "")
        if show_bid:
            row.append(say(player.bid) or "·")
        if show_tricks:
            row.append(str(player.tricks_taken))
        if show_points:
            row.append(str(player.points_this_hand))
        row += [str(player.score), str(player.hand_size)]
        table.add_row(*row)
    return table


def trick_lines(view: play_pb2.View, trick: play_pb2.Trick, title: str) -> Text:
    """A trick as lines "Bob  Q♠", with who led and, once complete, who took it."""
    text = Text()
    text.append(title, style="bold")
    if trick.plays or trick.HasField("winner"):
        text.append(f": {seat_name(view, trick.leader)} led", style="dim")
    if trick.led_suit:
        text.append(f", {suit_word(trick.led_suit)} to follow", style="dim")
    for play in trick.plays:
        # the card first, in a fixed column, so a long name never hides it
        card = card_text(play.card)
        card.pad_right(7 - len(card.plain))
        text.append("\n  ")
        text.append_text(card)
        text.append(seat_name(view, play.seat))
    if trick.HasField("winner"):
        text.append(f"\n  taken by {seat_name(view, trick.winner)}", style="green")
    if not trick.plays:
        text.append("\n  (no card yet)", style="dim")
    return text


def table_facts(view: play_pb2.View) -> Text:
    """Trump, the turned card, the contract, top card, suit in force, stock, passing..."""
    text = Text()

    def fact(label: str, value: str | Text) -> None:
        if text:
            text.append("\n")
        text.append(f"{label}: ", style="bold #9090c0")
        text.append_text(value if isinstance(value, Text) else Text(value))

    if view.trump_text:
        fact("Trump", view.trump_text)
    if view.turned_card:
        fact("Turned card", card_text(view.turned_card))
    if view.contract:
        fact("Contract", say(view.contract, partial(seat_name, view)))
    if view.top_card:
        fact("Top card", card_text(view.top_card))
    if view.suit_in_force_text:
        fact("Suit in force", Text(view.suit_in_force_text, style="bold"))
    if view.HasField("stock_count"):
        fact("Stock", f"{view.stock_count} cards")
    if view.pass_direction:
        fact("Passing", view.pass_direction)
    if view.passed_cards:
        fact("You pass", Text(" ").join(card_text(c) for c in view.passed_cards))
    if view.received_cards:
        fact("You received", Text(" ").join(card_text(c) for c in view.received_cards))
    if view.HasField("hearts_broken"):
        fact("Hearts", "broken" if view.hearts_broken else "not broken")
    for note in view.notes:
        text.append(f"\n• {say(note, partial(seat_name, view))}", style="italic")
    return text


def scores_table(view: play_pb2.View, last: int | None = None, width: int = 80) -> Table:
    """Points per finished hand (the latest ``last`` of them) and the running totals.

    A seat name too long for ``width`` columns is shortened, never replaced by a number.
    """
    room = (width - 7) // max(view.seat_count, 1) - 2
    table = Table(box=None, padding=(0, 0, 0, 2), header_style="bold #9090c0")
    table.add_column("hand", justify="right", no_wrap=True)
    for seat in range(view.seat_count):
        name = seat_name(view, seat)
        if seat < len(view.players) and _is_bot(view.players[seat]):
            name = _BOT_LEVEL.sub("", name)  # "Bot 2", its level is in the seats table
        short = name if len(name) <= room else name[: max(room - 1, 2)] + "…"
        table.add_column(short, justify="right", no_wrap=True)
    rows = list(enumerate(view.hand_scores, start=1))
    if last is not None and len(rows) > last:
        rows = rows[len(rows) - last :] if last > 0 else []
    for number, hand in rows:
        table.add_row(str(number), *(str(points) for points in hand.points))
    totals = list(view.scores) or [p.score for p in view.players]
    table.add_row(Text("total", style="bold"), *(Text(str(s), style="bold") for s in totals))
    return table


def whose_turn(view: play_pb2.View) -> Text:
    """ "Your turn", "waiting for Bob" or the end of the game, in words."""
    if view.is_over:
        return Text("The game is over.", style="bold green")
    if view.phase == "lobby":
        return Text("Waiting for players to take their seats.", style="yellow")
    if view.end_reason == play_pb2.END_REASON_ABANDONED:
        return Text("The game was abandoned: nobody played for too long; no winner.", style="bold")
    mine = (
        view.players[view.seat] if view.HasField("seat") and view.seat < len(view.players) else None
    )
    if mine is not None and mine.away:
        return Text(
            "Your clock ran out: a computer player is playing for you. Press b to come back.",
            style="bold #ffd27a",
        )
    if view.HasField("seat") and view.seat in view.to_act:
        if mine is not None and mine.time_left_ms:
            return Text(f"Your turn ({clock_words(mine.time_left_ms)} left).", style="bold yellow")
        return Text("Your turn.", style="bold yellow")
    names = ", ".join(seat_name(view, seat) for seat in view.to_act)
    return Text(f"Waiting for {names}." if names else "", style="yellow")


def clock_words(milliseconds: int) -> str:
    """The time left on a turn clock: "12 s"."""
    return f"{-(-max(0, milliseconds) // 1000)} s"


def hand_line(hand: Sequence[str], playable: set[str], cursor: int, *, my_turn: bool) -> Text:
    """The hand as coloured cards; listed cards bright, others dimmed, the cursor reversed."""
    text = Text()
    for index, code in enumerate(hand):
        if index:
            text.append(" ")
        selected = index == cursor
        dim = my_turn and code not in playable
        piece = card_text(code, dim=dim, selected=selected)
        if my_turn and code in playable and not selected:
            piece.stylize("underline")
        text.append("[" if selected else " ", style="bold yellow")
        text.append_text(piece)
        text.append("]" if selected else " ", style="bold yellow")
    return text


def hand_boxes(
    hand: Sequence[str], playable: set[str], cursor: int, *, my_turn: bool, width: int
) -> Text | None:
    """The hand drawn as boxed cards (three lines), or None if it does not fit ``width``."""
    labels = [card_label(code) for code in hand]
    needed = sum(max(len(label), 3) + 5 for label in labels)
    if not hand or needed > width:
        return None
    top, middle, bottom = Text(), Text(), Text()
    for index, (code, label) in enumerate(zip(hand, labels, strict=True)):
        size = max(len(label), 3)
        selected = index == cursor
        dim = my_turn and code not in playable
        edge = "bold yellow" if selected else ("#505050" if dim else "#9a9a9a")
        top.append("╭" + "─" * (size + 2) + "╮ ", style=edge)
        middle.append("│ ", style=edge)
        face = card_text(code, dim=dim, selected=selected)
        face.pad_right(size - len(label))
        middle.append_text(face)
        middle.append(" │ ", style=edge)
        bottom.append("╰" + "─" * (size + 2) + "╯ ", style=edge)
    return Text("\n").join([top, middle, bottom])
