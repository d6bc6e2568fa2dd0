"""The end of a game: the winner, the final scores, the deal check, and how to see the replay."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parlour.client import ParlourError
from parlour.client.fairdeal import DealReport, verify_deals
from parlour.v1 import home_pb2, play_pb2
from parlour.words import say

from . import render
from .dialogs import InfoScreen, event_log_text
from .history import ReplayScreen
from .keys import speak_keys
from .saved import SavedSeat
from .session import session
from .speech import t
from .summary import describe_hand, end_words, join_names, player_name, summary_body


def replay_command(table_id: str) -> str:
    """The shell command that replays this game from the server's database, checking digests."""
    return f"parlour replay {table_id}"


#: the client library's checks (DealReport.checks, its English) -> their words' keys
CHECK_WORDS = {
    "each deck and salt hash to the commitment published before the deal was played": (
        "deal.check_hash"
    ),
    "each deck holds every card once": "deal.check_once",
    "each commitment is the one announced to this client during play": "deal.check_announced",
    "the server's seed matches the commitment published when the table was hosted": (
        "deal.check_seed"
    ),
    "each deck is the documented shuffle of the seed and the players' contributions": (
        "deal.check_shuffle"
    ),
    "your own contribution went into every shuffle": "deal.check_yours",
}


def deal_check_text(report: DealReport) -> Text:
    """The deal check's outcome and what was checked, in the client's language (a
    failure's detail is the client library's own sentence)."""
    if report.failure:
        return Text(t("deal.failed", why=report.failure), style="bold red")
    if not report.ok:
        return Text(t("deal.none"), style="bold red")
    key = "over.verified_seeds" if report.entropy else "over.verified"
    text = Text(t(key, count=report.verified), style="bold green")
    for line in report.checks:
        said = t(CHECK_WORDS[line]) if line in CHECK_WORDS else line
        text.append(f"\n  • {said}", style="green")
    return text


class GameOverScreen(ModalScreen[None]):
    """Final standings over the table; offers the event log and the replay command."""

    BINDINGS = [
        Binding("r", "replay", "Event log"),
        Binding("a", "expert", "The expert's look"),
        Binding("escape", "lobby", "Lobby"),
        Binding("enter", "lobby", "Lobby", show=False),
        # the app's language switch, here too: a modal screen keeps its keys to itself
        Binding("f2", "app.switch_language", show=False),
    ]
    #: each action's footer words (keys.py)
    KEY_WORDS = {"replay": "key.event_log", "expert": "key.expert", "lobby": "key.lobby"}

    def __init__(
        self, seat: SavedSeat, view: play_pb2.View, events: Sequence[play_pb2.PublicEvent]
    ) -> None:
        super().__init__()
        self.seat = seat
        self.final_view = view
        self.events = list(events)

    def compose(self) -> ComposeResult:
        view = self.final_view
        me = view.seat if view.HasField("seat") else -1
        winners = [player_name(view, seat) for seat in view.winners if seat != me]
        if me in view.winners and winners:
            won = t("over.you_win_with", names=join_names([t("over.you"), *winners]))
        elif me in view.winners:
            won = t("over.you_win")
        elif winners:
            won = t("over.wins", names=join_names(winners), count=len(winners))
        else:
            won = t("over.nobody_wins")
        headline = Text(won, style="bold green")
        reason = Text(end_words(view), style="bold")
        parts: list[RenderableType] = [headline, reason, Text("")]
        if view.HasField("last_hand"):  # the final hand, which had no summary of its own
            final = describe_hand(view, view.last_hand)
            parts += [
                Text(t("over.last_hand", number=final.hand), style="bold #9090c0"),
                summary_body(final, me if me >= 0 else None),
                Text(""),
            ]
        final_scores = Text(t("over.final_scores"), style="bold #9090c0")
        parts += [final_scores, render.scores_table(view, width=70)]
        offer = Text("\n" + t("over.replay_it"), style="dim")
        offer.append(replay_command(self.seat.table_id), style="bold cyan")
        offer.append("\n" + t("over.keys"), style="dim")
        with VerticalScroll(classes="dialog", id="game-over") as box:
            box.border_title = t("over.title")
            yield Static(Group(*parts, offer), id="game-over-body")
            yield Static(Text(t("over.checking"), style="dim"), id="deal-check")

    def on_mount(self) -> None:
        speak_keys(self)
        self.check_deals()

    def say_again(self) -> None:
        """After a language switch (F2): this screen's words again."""
        speak_keys(self)
        self.refresh(recompose=True)
        self.call_after_refresh(self.check_deals)

    @work(exclusive=True, group="deals")
    async def check_deals(self) -> None:
        """Read the finished game's replay and check every deal here (docs/fair-deals.md)."""
        client = session(self).client
        fetch = getattr(client, "get_replay", None)
        if fetch is None:
            return
        try:
            replay = await fetch(self.seat.table_id)
        except ParlourError as error:
            report = DealReport(failure=t("deal.unreadable", why=error.message))
        else:
            announced = {
                number: event.deal_commitment
                for number, event in enumerate(e for e in self.events if e.type == "CardsDealt")
            }
            mine = getattr(client, "entropy", {}).get(self.seat.table_id, "")
            me = self.final_view.seat if self.final_view.HasField("seat") else None
            report = verify_deals(replay, announced, mine, me)
        self.query_one("#deal-check", Static).update(deal_check_text(report))

    def action_lobby(self) -> None:
        self.dismiss(None)
        self.app.pop_screen()  # the table screen under this one

    def action_expert(self) -> None:
        """The game's replay, where A asks the expert to look over it (history.py)."""
        view = self.final_view
        players = [
            home_pb2.GamePlayer(seat=seat, player_name=player_name(view, seat))
            for seat in range(len(view.players))
        ]
        record = home_pb2.GameRecord(table_id=self.seat.table_id, game=view.game, players=players)
        self.app.push_screen(ReplayScreen(record, self.seat.token))

    @work(exclusive=True)
    async def action_replay(self) -> None:
        """The table's log: from the server's Replay RPC if the client offers it, else
        the events this screen watched go by."""
        lines = [(event.version, event.text) for event in self.events]
        fetch = getattr(session(self).client, "get_replay", None)
        if fetch is not None:
            try:
                replay = await fetch(self.seat.table_id)
                lines = [(event.seq, event.text) for event in replay.events]
            except ParlourError as error:
                self.notify(t("over.replay_unavailable", why=error.message), severity="warning")
        # in words, seats by name, the newest first (where the game ended)
        name = partial(render.seat_name, self.final_view)
        said = [(version, say(text, name)) for version, text in reversed(lines)]
        self.app.push_screen(InfoScreen(t("over.event_log"), event_log_text(said)))
