"""Rich renderables of a seat's view: seats, the trick, the table facts, scores.

Pure functions of the ``parlour.v1`` View the server sent; they show what is
there and decide nothing. Fields a game does not use are empty and left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from parlour.v1 import lobby_pb2, play_pb2
from parlour.words import SUIT_WORDS, phrase, say
from parlour.words import suit_word as said_suit

from .cards import card_label, card_text, suit_word
from .speech import t

PHASES = ("lobby", "deal", "pass", "bid", "trump", "play", "over")


def phase_words(phase: str) -> str:
    """A phase in words: "bidding" (pl "licytacja")."""
    return t(f"phase.{phase}") if phase in PHASES else phase


def seat_name(view: play_pb2.View, seat: int) -> str:
    """The name on ``seat`` ("Seat 3" while free, counted from 1); "you" for the viewing seat."""
    if view.HasField("seat") and view.seat == seat:
        return t("you")
    return player_name(view, seat)


def player_name(view: play_pb2.View, seat: int) -> str:
    """The name on ``seat``, the viewing seat's too: the subject of the server's
    sentences, which are in the third person ("Ada holds clubs", never "you holds")."""
    if seat < len(view.players) and view.players[seat].player_name:
        return view.players[seat].player_name
    return phrase("seat.name", None, number=seat + 1)


_BOT_LEVEL = re.compile(r" \([^)]*\)$")


def _is_bot(player: play_pb2.Player) -> bool:
    return player.kind == lobby_pb2.SEAT_KIND_BOT


def seats_table(view: play_pb2.View, ratings: Mapping[int, str] | None = None) -> Table:
    """One row per seat: name (and its rating, from ``ratings`` by seat), bid, tricks,
    points this hand, score, cards held.

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
    table.add_column(t("col.seat"), ratio=1, min_width=8, no_wrap=True, overflow="ellipsis")
    if show_team:
        table.add_column(t("col.team"), justify="right")
    if show_bid:
        table.add_column(t("col.bid"), justify="right")
    if show_tricks:
        table.add_column(t("col.won"), justify="right")
    if show_points:
        table.add_column(t("col.pts"), justify="right")
    table.add_column(t("col.score"), justify="right")
    table.add_column(t("col.held"), justify="right")
    waiting = set(view.to_act)
    for player in players:
        name = Text(f"{player.seat + 1} {seat_name(view, player.seat)}")  # counted from 1
        if _is_bot(player) and "bot" not in name.plain.lower():
            name.append(t("seat.bot"), style="dim")
        elif view.phase == "lobby" and not player.player_name:
            name.append(t("seat.free"), style="italic yellow")
        if ratings and player.seat in ratings:  # the OpenSkill ordinal, "?" if provisional
            name.append(f" {ratings[player.seat]}", style="#c8b060")
        if player.seat in waiting:
            name.stylize("bold yellow")
        if player.away:
            name.append(t("seat.away"), style="italic #ffd27a")
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
        mine = view.HasField("seat") and view.seat == trick.leader
        led = t("trick.you_led") if mine else t("trick.led", name=player_name(view, trick.leader))
        text.append(led, style="dim")
    if trick.led_suit:
        text.append(t("trick.follow", suit=suit_word(trick.led_suit)), style="dim")
    for play in trick.plays:
        # the card first, in a fixed column, so a long name never hides it
        card = card_text(play.card)
        card.pad_right(7 - len(card.plain))
        text.append("\n  ")
        text.append_text(card)
        text.append(seat_name(view, play.seat))
    if trick.HasField("winner"):
        text.append("\n  " + t("trick.taken", name=seat_name(view, trick.winner)), style="green")
    if not trick.plays:
        text.append("\n  " + t("trick.empty"), style="dim")
    return text


def table_facts(view: play_pb2.View) -> Text:
    """Trump, the turned card, the contract, top card, suit in force, stock, passing..."""
    text = Text()

    def fact(label: str, value: str | Text) -> None:
        if text:
            text.append("\n")
        text.append(f"{label}: ", style="bold #9090c0")
        text.append_text(value if isinstance(value, Text) else Text(value))

    # Hearts has no trumps at all: no line says "Trump: no trump" there
    if view.trump_text and view.game not in GAMES_WITHOUT_TRUMPS:
        fact(t("fact.trump"), trump_words(view))
    if view.turned_card:
        fact(t("fact.turned"), card_text(view.turned_card))
    if view.contract:
        fact(t("fact.contract"), say(view.contract, partial(player_name, view)))
    if view.top_card:
        fact(t("fact.top"), card_text(view.top_card))
    if view.suit_in_force_text:
        fact(t("fact.suit_in_force"), Text(view.suit_in_force_text, style="bold"))
    if view.HasField("stock_count"):
        fact(t("fact.stock"), phrase("cards.count", None, count=view.stock_count))
    if view.pass_direction:
        fact(t("fact.passing"), view.pass_direction)
    if view.passed_cards:
        fact(t("fact.you_pass"), Text(" ").join(card_text(c) for c in view.passed_cards))
    if view.received_cards:
        fact(t("fact.you_received"), Text(" ").join(card_text(c) for c in view.received_cards))
    if view.HasField("hearts_broken"):
        fact(t("fact.hearts"), t("hearts.broken" if view.hearts_broken else "hearts.not_broken"))
    for note in view.notes:
        text.append(f"\n• {say(note, partial(player_name, view))}", style="italic")
    return text


def scores_table(view: play_pb2.View, last: int | None = None, width: int = 80) -> Table:
    """Points per finished hand (the latest ``last`` of them) and the running totals.

    A seat name too long for ``width`` columns is shortened, never replaced by a number.
    """
    room = (width - 7) // max(view.seat_count, 1) - 2
    table = Table(box=None, padding=(0, 0, 0, 2), header_style="bold #9090c0")
    table.add_column(t("col.hand"), justify="right", no_wrap=True)
    for header in score_headers(view, room):
        table.add_column(header, justify="right", no_wrap=True)
    rows = list(enumerate(view.hand_scores, start=1))
    if last is not None and len(rows) > last:
        rows = rows[len(rows) - last :] if last > 0 else []
    for number, hand in rows:
        table.add_row(str(number), *(str(points) for points in hand.points))
    totals = list(view.scores) or [p.score for p in view.players]
    table.add_row(Text(t("col.total"), style="bold"), *(Text(str(s), style="bold") for s in totals))
    return table


def score_headers(view: play_pb2.View, room: int) -> list[str]:
    """Each seat's column heading in ``room`` characters: its name, shortened while the
    short names still tell the seats apart ("Bo… Bo…" never), else the seat's number
    and initials as the seats table numbers them ("1 Bo", "2 Bo" -> "1B", "2B")."""
    names = []
    for seat in range(view.seat_count):
        name = seat_name(view, seat)
        if seat < len(view.players) and _is_bot(view.players[seat]):
            name = _BOT_LEVEL.sub("", name)  # "Bot 2", its level is in the seats table
        names.append(name)
    if all(len(name) <= room for name in names):
        return names
    short = [name if len(name) <= room else name[: max(room - 1, 1)] + "…" for name in names]
    if room >= 4 and len(set(short)) == len(short):
        return short
    return [f"{seat + 1}{name[: max(room - 1, 1)]}" for seat, name in enumerate(names)]


def whose_turn(view: play_pb2.View) -> Text:
    """ "Your turn", "waiting for Bob" or the end of the game, in words."""
    if view.is_over:
        return Text(t("turn.over"), style="bold green")
    if view.phase == "lobby":
        return Text(t("turn.lobby"), style="yellow")
    if view.end_reason == play_pb2.END_REASON_ABANDONED:
        return Text(t("turn.abandoned"), style="bold")
    mine = (
        view.players[view.seat] if view.HasField("seat") and view.seat < len(view.players) else None
    )
    if mine is not None and mine.away:
        return Text(t("turn.away"), style="bold #ffd27a")
    if view.HasField("seat") and view.seat in view.to_act:
        if mine is not None and mine.time_left_ms:
            left = clock_words(mine.time_left_ms)
            return Text(t("turn.yours_clock", left=left), style="bold yellow")
        return Text(t("turn.yours"), style="bold yellow")
    names = ", ".join(seat_name(view, seat) for seat in view.to_act)
    return Text(t("turn.waiting", names=names) if names else "", style="yellow")


def clock_words(milliseconds: int) -> str:
    """The time left on a turn clock: "12 s"."""
    return t("clock", seconds=-(-max(0, milliseconds) // 1000))


#: the games with no trump suit ever (their views still say "no trump")
GAMES_WITHOUT_TRUMPS = ("hearts", "crazy8s")


def trump_words(view: play_pb2.View) -> str:
    """The trump as the view says it, in the player's language where it is a suit."""
    text = view.trump_text
    for letter, word in SUIT_WORDS.items():
        if text == word:
            return said_suit(letter)
    if text == "no trump":
        return phrase("bid.no_trump", None, number="").strip()
    return text


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
