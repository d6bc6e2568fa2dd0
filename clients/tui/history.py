"""Your games in the terminal (issue 31): the signed-in account's tables, newest first,
in pages (HomeService.ListMyGames); Enter opens a table's replay (its events in the
server's words, ReplayService.GetReplay; once the game is over, A asks the expert to
look over it: issue 35), L a game's leaderboard with the ratings (the ordinal, "?"
while provisional: under ten games)."""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from parlour.client import ParlourError
from parlour.client.analysis import get_analysis, request_analysis
from parlour.client.home import get_leaderboard, list_my_games
from parlour.v1 import analysis_pb2, home_pb2, lobby_pb2, replay_pb2
from parlour.words import say

from . import expert
from .keys import speak_keys
from .session import session
from .speech import t, why_not

PAGE = 20
ENDINGS = {
    home_pb2.ENDING_FINISHED: "home.ending.finished",
    home_pb2.ENDING_ABANDONED: "home.ending.abandoned",
    home_pb2.ENDING_EXPIRED: "home.ending.expired",
}


def rating_text(rating: home_pb2.Rating) -> str:
    """The ordinal to one decimal, "?" after it while provisional."""
    return f"{rating.ordinal:.1f}{'?' if rating.provisional else ''}"


def ending_text(game: home_pb2.GameRecord) -> str:
    if game.ending in ENDINGS:
        return t(ENDINGS[game.ending])
    if game.status == lobby_pb2.TABLE_STATUS_OPEN:
        return t("home.status.open")
    return t("home.status.playing")


def result_text(game: home_pb2.GameRecord) -> str:
    mine = next((p for p in game.players if p.mine), None)
    score = mine.score if mine else 0
    if game.ending == home_pb2.ENDING_FINISHED:
        return t("home.won" if game.won else "home.lost", score=score)
    if game.ending == home_pb2.ENDING_ABANDONED:
        return t("home.stood", score=score)
    return "—"


def players_text(game: home_pb2.GameRecord) -> str:
    names = []
    for player in game.players:
        name = player.player_name or t("home.open_seat")
        names.append(f"{name}{' *' if player.winner else ''}")
    return ", ".join(names)


class HistoryScreen(Screen[None]):
    """The account's tables: Enter opens the replay, M shows more, L the leaderboard."""

    BINDINGS = [
        Binding("enter", "replay", "Replay"),
        Binding("m", "more", "More"),
        Binding("l", "leaderboard", "Leaderboard"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.games: list[home_pb2.GameRecord] = []
        self.token = ""

    def compose(self) -> ComposeResult:
        yield Label(t("home.title"), id="history-title")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Static("", id="history-note")
        yield Static(t("home.keys"), id="history-keys")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#history", DataTable)
        for key in ("game", "date", "players", "result", "ending"):
            table.add_column(t(f"home.col.{key}"), key=key)
        self.load()

    @work(exclusive=True)
    async def load(self) -> None:
        note = self.query_one("#history-note", Static)
        try:
            page = await list_my_games(session(self).client, PAGE, self.token)
        except ParlourError as error:
            note.update(error.message)
            return
        self.token = page.next_page_token
        table = self.query_one("#history", DataTable)
        for game in page.games:
            self.games.append(game)
            when = game.created_at.ToDatetime().strftime("%Y-%m-%d %H:%M")
            table.add_row(
                game.game,
                when,
                players_text(game),
                result_text(game),
                ending_text(game),
                key=game.table_id,
            )
        if not self.games:
            note.update(t("home.none"))
        else:
            note.update(t("home.more") if self.token else "")

    def action_more(self) -> None:
        if self.token:
            self.load()

    def _chosen(self) -> home_pb2.GameRecord | None:
        table = self.query_one("#history", DataTable)
        if not self.games or table.cursor_row is None:
            return None
        return self.games[min(table.cursor_row, len(self.games) - 1)]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the table takes the key): its replay."""
        event.stop()
        self.action_replay()

    def action_replay(self) -> None:
        game = self._chosen()
        if game is not None:
            self.app.push_screen(ReplayScreen(game))

    def action_leaderboard(self) -> None:
        game = self._chosen()
        self.app.push_screen(LeaderboardScreen(game.game if game else "crazy8s"))


class ReplayScreen(Screen[None]):
    """A table's events in the server's words, in order (the whole log once it ended;
    while it is played, what a spectator may see). Once the game is over, A asks for
    the expert's look: under each judged move its choice and the points given away,
    and above the log each person's summary."""

    BINDINGS = [
        Binding("a", "ask_expert", "Ask the expert"),
        Binding("escape", "app.pop_screen", "Back"),
    ]
    KEY_WORDS = {"ask_expert": "expert.key", "app.pop_screen": "key.back"}

    def __init__(self, game: home_pb2.GameRecord, seat_token: str | None = None) -> None:
        """``seat_token``: a seat's, for a table that allows no spectators (without an
        account's session: the game-over screen's guest)."""
        super().__init__()
        self.game = game
        self.seat_token = seat_token
        self.replay: replay_pb2.GetReplayResponse | None = None
        self.analysis: analysis_pb2.Analysis | None = None

    def compose(self) -> ComposeResult:
        yield Label(t("home.replay_title", game=self.game.game, table=self.game.table_id))
        yield Static("", id="expert-state")
        yield VerticalScroll(id="replay-lines")
        yield Footer()

    async def on_mount(self) -> None:
        speak_keys(self)
        self.load()

    def say_again(self) -> None:
        """After a language switch (F2): the log and the expert's words again, in it."""
        speak_keys(self)
        self.query_one(Label).update(
            t("home.replay_title", game=self.game.game, table=self.game.table_id)
        )
        self.load()

    @work(exclusive=True, group="replay")
    async def load(self) -> None:
        lines = self.query_one("#replay-lines", VerticalScroll)
        try:
            self.replay = await session(self).client.get_replay(
                self.game.table_id, seat_token=self.seat_token
            )
        except ParlourError as error:
            await lines.remove_children()
            await lines.mount(Static(error.message))
            return
        self.analysis = None
        await self.show_lines()
        if self.replay.finished:
            self.read_expert()
        else:
            self.say_state(t("expert.after_end"))

    def say_state(self, text: str) -> None:
        self.query_one("#expert-state", Static).update(text)

    def seat_name(self, seat: int) -> str:
        player = next((p for p in self.game.players if p.seat == seat), None)
        return (player.player_name if player else "") or t("home.open_seat")

    async def show_lines(self) -> None:
        """The log, each judged move followed by the expert's line (once it is done)."""
        if self.replay is None:  # A pressed before the log came: its load shows both
            return
        lines = self.query_one("#replay-lines", VerticalScroll)
        await lines.remove_children()
        done = self.analysis is not None and self.analysis.state == analysis_pb2.ANALYSIS_STATE_DONE
        judged = {d.seq: d for d in self.analysis.decisions} if done and self.analysis else {}
        shown: list[Static] = []
        if done and self.analysis:
            shown.append(Static(t("expert.summary_title"), classes="expert-title"))
            names = expert.summary_lines(self.analysis, self.seat_name)
            shown += [Static(line, classes="expert-summary") for line in names]
        said = [event for event in self.replay.events if event.text]
        for n, event in enumerate(said, 1):
            shown.append(Static(f"{n:4}  {say(event.text, self.seat_name)}"))
            if event.seq in judged:
                decision = judged[event.seq]
                mark = " marked" if decision.marked else ""
                line = expert.decision_line(decision)
                shown.append(Static(line, classes=f"expert-line{mark}"))
        await lines.mount_all(shown)

    @work(exclusive=True, group="expert")
    async def read_expert(self) -> None:
        """What there is: an analysis asked for before (followed while it is pending)."""
        try:
            analysis = await get_analysis(session(self).client, self.game.table_id, self.seat_token)
        except ParlourError as error:
            none = error.reason == "NO_ANALYSIS"
            self.say_state(t("expert.ask_hint") if none else why_not(error, self.seat_name))
            return
        await self.follow(analysis)

    @work(exclusive=True, group="expert")
    async def action_ask_expert(self) -> None:
        """Ask for the expert's look (once; asking again answers the same analysis)."""
        self.say_state(t("expert.asking"))
        try:
            asked = await request_analysis(
                session(self).client, self.game.table_id, self.seat_token
            )
        except ParlourError as error:
            self.say_state(why_not(error, self.seat_name))
            return
        await self.follow(asked.analysis)

    async def follow(self, analysis: analysis_pb2.Analysis) -> None:
        """Show ``analysis``, asking again every two seconds while it is queued or running
        (the worker stops with the screen)."""
        while True:
            self.say_state(expert.state_line(analysis))
            if analysis.state not in expert.PENDING:
                break
            await asyncio.sleep(expert.POLL_SECONDS)
            try:
                analysis = await get_analysis(
                    session(self).client, self.game.table_id, self.seat_token
                )
            except ParlourError as error:
                self.say_state(why_not(error, self.seat_name))
                return
        self.analysis = analysis
        if analysis.state == analysis_pb2.ANALYSIS_STATE_DONE:
            await self.show_lines()


class LeaderboardScreen(Screen[None]):
    """A game's ratings, best first; Tab: the next game, B: with the computer players."""

    GAMES = ("wizard", "crazy8s", "kaiser", "hearts")
    BINDINGS = [
        Binding("tab", "next_game", "Next game"),
        Binding("b", "bots", "Computer players"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game
        self.bots = False

    def compose(self) -> ComposeResult:
        yield Label("", id="board-title")
        yield DataTable(id="board", cursor_type="row")
        yield Static("", id="board-note")
        yield Static(t("home.board_keys"), id="board-keys")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#board", DataTable)
        for key in ("rank", "player", "rating", "games"):
            table.add_column(t(f"home.col.{key}"), key=key)
        self.load()

    @work(exclusive=True)
    async def load(self) -> None:
        self.query_one("#board-title", Label).update(t("home.board_title", game=self.game))
        note = self.query_one("#board-note", Static)
        table = self.query_one("#board", DataTable)
        table.clear()
        try:
            page = await get_leaderboard(
                session(self).client, self.game, include_bots=self.bots, page_size=PAGE
            )
        except ParlourError as error:
            note.update(error.message)
            return
        for rank, rating in enumerate(page.ratings, page.first_rank or 1):
            name = rating.name or t("home.guest")
            if rating.bot:
                name = t("home.bot", level=rating.name)
            table.add_row(str(rank), name, rating_text(rating), str(rating.games))
        note.update("" if page.ratings else t("home.board_empty"))

    def action_next_game(self) -> None:
        index = self.GAMES.index(self.game) if self.game in self.GAMES else -1
        self.game = self.GAMES[(index + 1) % len(self.GAMES)]
        self.load()

    def action_bots(self) -> None:
        self.bots = not self.bots
        self.load()
