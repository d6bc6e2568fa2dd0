"""The lobby: the catalogue's games and rules, open tables to join, your seats to rejoin."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import (
    ContentSwitcher,
    DataTable,
    Footer,
    Input,
    Label,
    Markdown,
    OptionList,
    Static,
)
from textual.widgets.option_list import Option

from parlour.client import ParlourError
from parlour.client.home import get_tables_ratings
from parlour.v1 import accounts_pb2, catalogue_pb2, lobby_pb2
from parlour.words import option_label, option_value

from .account import AccountScreen, who
from .history import rating_text
from .saved import SavedSeat
from .session import session
from .setup import PERSON, SetupScreen, TableSetup
from .speech import language, t
from .table import TableScreen


def rules_markdown(game: catalogue_pb2.GameInfo) -> str:
    """The game's summary, seat range, options and rules, as Markdown."""
    seats = t("rules.seats", low=game.min_seats, high=game.max_seats)
    lines = [f"## {game.name}", "", game.summary, "", seats]
    if game.bot_levels:
        levels = ", ".join(option_value(level) for level in game.bot_levels)
        lines.append(t("rules.bots", levels=levels))
    if game.end_rule.text:
        ends = game.end_rule.text
        lines += ["", t("rules.ends", text=ends[:1].upper() + ends[1:])]
    if game.options:
        lines += ["", t("rules.options"), ""]
        for spec in game.options:
            allowed = " / ".join(option_value(value) for value in spec.allowed_values)
            default = option_value(spec.default_value)
            lines.append(
                t(
                    "rules.option",
                    label=option_label(spec.name),
                    allowed=allowed,
                    default=default,
                    description=spec.description,
                )
            )
    if game.rules_text:  # the server's, in the language this client asked for
        lines += ["", "---", "", game.rules_text]
    return "\n".join(lines)


def seated_players(table: lobby_pb2.Table, ratings: dict[int, str]) -> str:
    """The players seated at an open table, each with their rating ("Ada 3.4?"); a bot
    by its level in words ("computer (random)")."""
    names = []
    for seat in table.seats:
        if not seat.occupied:
            continue
        if seat.kind == lobby_pb2.SEAT_KIND_BOT:
            name = t("setup.computer", level=option_value(seat.bot_level))
        else:
            name = seat.player_name
        rating = ratings.get(seat.seat)
        names.append(f"{name} {rating}" if rating else name)
    return ", ".join(name for name in names if name)


def seats_taken(table: lobby_pb2.Table) -> str:
    taken = sum(1 for seat in table.seats if seat.occupied)
    return f"{taken}/{table.seat_count}"


class LobbyScreen(Screen[None]):
    """Pick a game to host, an open table to join, or one of your seats to rejoin."""

    BINDINGS = [
        Binding("h", "host", "Host"),
        Binding("j", "join", "Join"),
        Binding("r", "rejoin", "Rejoin"),
        Binding("x", "forget", "Forget seat"),
        Binding("a", "account", "Account"),
        Binding("f5", "refresh", "Refresh"),
        Binding("ctrl+r", "refresh", "Refresh", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.games: list[catalogue_pb2.GameInfo] = []
        #: (game, language) -> the game with its rules, as the server sent them
        self.full_rules: dict[tuple[str, str], catalogue_pb2.GameInfo] = {}
        self.open_tables: list[lobby_pb2.Table] = []
        #: table id -> seat -> its rating as shown, for the open tables listed
        self.ratings: dict[str, dict[int, str]] = {}
        self.my_seats: list[SavedSeat] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="lobby-top"):
            yield Static(Text.assemble(("Parlour", "bold"), f" · {self.server}"), id="banner")
            yield Label("Your name:")
            yield Input(value=default_name(), id="lobby-name", compact=True)
        with Horizontal(id="lobby-games"):
            yield OptionList(id="games", classes="panel")
            # one Markdown per game and language, made once: moving the cursor back
            # to a game shows its rules at once (a Markdown takes ~1 s to build)
            with (
                VerticalScroll(id="rules", classes="panel"),
                ContentSwitcher(id="rules-switch", initial="rules-text"),
            ):
                yield Markdown(t("rules.loading"), id="rules-text")
        with Horizontal(id="lobby-tables"):
            with Vertical(classes="panel", id="open-panel"):
                yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
            with Vertical(classes="panel", id="mine-panel"):
                yield DataTable(id="mine", cursor_type="row")
        yield Static(id="lobby-message")
        yield Footer()

    @property
    def server(self) -> str:
        return session(self).address

    def on_mount(self) -> None:
        self.show_who()
        self.query_one("#games").border_title = "Games (h: host)"
        self.query_one("#rules").border_title = t("rules.title")
        self.query_one("#open-panel").border_title = "Open tables (j)"
        self.query_one("#mine-panel").border_title = "Your seats (r)"
        self.query_one("#tables", DataTable).add_columns(
            "table", "game", "seats", t("home.col.players"), "id"
        )
        self.query_one("#mine", DataTable).add_columns("game", "seat", "table")
        self.query_one("#games").focus()
        self.action_refresh()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    # -- loading -----------------------------------------------------------------------------

    @work(exclusive=True, group="lobby")
    async def action_refresh(self) -> None:
        client = session(self).client
        try:
            if not self.games:
                self.games = await client.list_games()
                games = self.query_one("#games", OptionList)
                games.clear_options()
                for game in self.games:
                    seats = f"{game.min_seats}–{game.max_seats} seats"
                    games.add_option(Option(f"[b]{game.name}[/b] [dim]{seats}[/dim]", id=game.id))
                if self.games:
                    games.highlighted = 0
            self.open_tables = await client.list_tables(status="open")
            self.ratings = await self._ratings(self.open_tables)
            self._show_tables()
        except ParlourError as error:
            self.say(f"The server at {self.server} does not answer: {error.message}", "red")
        except NoMatches:  # the app closed while the server was answering
            return

    async def _ratings(self, tables: list[lobby_pb2.Table]) -> dict[str, dict[int, str]]:
        """The listed tables' seats' ratings, in one call (none: the names alone)."""
        if not tables:
            return {}
        try:
            found = await get_tables_ratings(
                session(self).client, [table.table_id for table in tables[:50]]
            )
        except ParlourError:
            return {}
        return {
            table_id: {s.seat: rating_text(s.rating) for s in seats if s.HasField("rating")}
            for table_id, seats in found.items()
        }

    def _show_tables(self) -> None:
        tables = self.query_one("#tables", DataTable)
        tables.clear()
        for table in self.open_tables:
            players = seated_players(table, self.ratings.get(table.table_id, {}))
            tables.add_row(table.name, table.game, seats_taken(table), players, table.table_id)
        self.my_seats = session(self).seat_book.load()
        mine = self.query_one("#mine", DataTable)
        mine.clear()
        for saved in self.my_seats:
            mine.add_row(saved.game, str(saved.seat), saved.table_name or saved.table_id)
        self.say("")

    @on(OptionList.OptionHighlighted, "#games")
    def _game_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.show_rules(event.option.id)

    @work(exclusive=True, group="rules")
    async def show_rules(self, game: str) -> None:
        key = (game, language())
        switch = self.query_one("#rules-switch", ContentSwitcher)
        shown = f"rules-{game}-{key[1]}"
        if not switch.query(f"#{shown}"):
            # the cursor may be moving on: build a game's rules only where it rests
            await asyncio.sleep(0.15)
            if key not in self.full_rules:
                try:
                    self.full_rules[key] = await session(self).client.get_game(game)
                except ParlourError as error:
                    self.say(error.message, "red")
                    return
            if not switch.query(f"#{shown}"):
                await switch.mount(Markdown(rules_markdown(self.full_rules[key]), id=shown))
        try:
            switch.current = shown
        except NoMatches:  # the lobby was covered (a seat opened) before it was mounted
            return
        self.query_one("#rules", VerticalScroll).scroll_home(animate=False)

    def rules_shown(self) -> Markdown:
        """The rules on screen now."""
        switch = self.query_one("#rules-switch", ContentSwitcher)
        return switch.query_one(f"#{switch.current}", Markdown)

    def say_again(self) -> None:
        """After a language switch: the rules of the game under the cursor, in it."""
        self.show_who()
        self.query_one("#rules").border_title = t("rules.title")
        games = self.query_one("#games", OptionList)
        if games.highlighted is not None:
            option = games.get_option_at_index(games.highlighted)
            if option.id is not None:
                self.show_rules(option.id)

    def say(self, message: str, style: str = "") -> None:
        self.query_one("#lobby-message", Static).update(Text(message, style=style))

    def player_name(self) -> str:
        return self.query_one("#lobby-name", Input).value.strip() or default_name()

    def highlighted_game(self) -> catalogue_pb2.GameInfo | None:
        index = self.query_one("#games", OptionList).highlighted
        return self.games[index] if index is not None and index < len(self.games) else None

    # -- hosting -----------------------------------------------------------------------------

    def action_host(self) -> None:
        game = self.highlighted_game()
        if game is None:
            return
        self.app.push_screen(SetupScreen(game, self.player_name()), self._hosting_chosen)

    def _hosting_chosen(self, setup: TableSetup | None) -> None:
        if setup is not None:
            self.host(setup)

    @work(exclusive=True, group="seat")
    async def host(self, setup: TableSetup) -> None:
        """Host the table the setup screen describes, take seat 0, start it if no one else comes."""
        client = session(self).client
        seat_setup = [
            ("person", "") if kind in ("you", PERSON) else ("bot", kind)
            for kind in setup.seat_kinds
        ]
        try:
            hosted = await client.host_table(
                setup.game,
                len(seat_setup),
                options=setup.options,
                seat_setup=seat_setup,
                name=setup.name,
                host_player_name=setup.player_name,
                host_takes_seat=True,
                host_seat=0,
                players_entropy=True,  # no single party chooses a deck (docs/fair-deals.md)
            )
        except ParlourError as error:
            self.say(f"Could not host: {error.message}", "red")
            return
        saved = SavedSeat(
            server=self.server,
            table_id=hosted.table.table_id,
            seat=hosted.seat,
            token=hosted.seat_token,
            game=setup.game,
            table_name=hosted.table.name,
            host_token=hosted.host_token,
        )
        session(self).seat_book.remember(saved)
        if all(kind != PERSON for kind in setup.seat_kinds):
            try:
                await client.start_table(saved.table_id, saved.host_token)
            except ParlourError as error:
                self.say(f"Hosted, but could not start: {error.message}", "red")
        self.app.push_screen(TableScreen(saved))

    # -- joining -----------------------------------------------------------------------------

    def action_join(self) -> None:
        row = self.query_one("#tables", DataTable).cursor_row
        if 0 <= row < len(self.open_tables):
            self.join(self.open_tables[row])

    @on(DataTable.RowSelected, "#tables")
    def _table_chosen(self) -> None:
        self.action_join()

    @work(exclusive=True, group="seat")
    async def join(self, table: lobby_pb2.Table) -> None:
        client = session(self).client
        try:
            joined = await client.join_table(table.table_id, self.player_name())
        except ParlourError as error:
            self.say(f"Could not join: {error.message}", "red")
            return
        saved = SavedSeat(
            server=self.server,
            table_id=table.table_id,
            seat=joined.seat,
            token=joined.seat_token,
            game=table.game,
            table_name=table.name,
        )
        session(self).seat_book.remember(saved)
        self.app.push_screen(TableScreen(saved))

    def action_rejoin(self) -> None:
        row = self.query_one("#mine", DataTable).cursor_row
        if 0 <= row < len(self.my_seats):
            self.app.push_screen(TableScreen(self.my_seats[row]))

    @on(DataTable.RowSelected, "#mine")
    def _seat_chosen(self) -> None:
        self.action_rejoin()

    def action_forget(self) -> None:
        row = self.query_one("#mine", DataTable).cursor_row
        if 0 <= row < len(self.my_seats):
            saved = self.my_seats[row]
            session(self).seat_book.forget(saved.table_id)
            self.action_refresh()

    # -- the account (issue 30): claim a name, sign in, sign out ----------------------------

    def action_account(self) -> None:
        self.app.push_screen(
            AccountScreen(getattr(self.app, "account", None)), self._account_changed
        )

    def _account_changed(self, account: accounts_pb2.Account | None) -> None:
        if account is None:
            return
        self.app.account = account  # type: ignore[attr-defined]
        self.app.sub_title = who(account)
        self.show_who()
        self.action_refresh()

    def show_who(self) -> None:
        """The banner: the server, and who this terminal is (issue 30)."""
        account = getattr(self.app, "account", None)
        said = ""  # short: the banner shares the top line with the name field
        if account is not None:
            said = f" · {account.name}" if account.name else f" · {t('account.guest_short')}"
        banner = Text.assemble(("Parlour", "bold"), f" · {self.server}", (said, "bold green"))
        self.query_one("#banner", Static).update(banner)

    async def action_quit(self) -> None:
        self.app.exit()


def default_name() -> str:
    """The name offered until the player types theirs: "Player" (pl "Gracz"), never the
    login name (a stranger at the table should not learn it)."""
    return t("name.default")
