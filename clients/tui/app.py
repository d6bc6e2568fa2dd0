"""The Parlour terminal client: a Textual app over the client library.

It speaks to the game service only through ``parlour.client`` and the
contract's messages; the rules stay on the server.
"""

from __future__ import annotations

from pathlib import Path

import grpc
from textual.app import App
from textual.binding import Binding

from parlour.client import ParlourError
from parlour.v1 import accounts_pb2

from .account import adopt_seats, who
from .history import HistoryScreen
from .identity import sign_in
from .lobby import LobbyScreen
from .saved import SavedSeat
from .session import Session
from .speech import next_language, system_language, t, use
from .table import TableScreen


class ParlourApp(App[None]):
    """`parlour play`: the lobby, the setup screen, the table, the end of the game."""

    CSS_PATH = "parlour.tcss"
    TITLE = "Parlour"
    BINDINGS = [
        Binding("f2", "switch_language", "Language / Język"),
        Binding("f3", "history", "Your games / Twoje gry"),  # history.py (issue 31)
    ]

    def __init__(
        self,
        address: str,
        *,
        state_dir: Path | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        open_seat: SavedSeat | None = None,
        language: str | None = None,
    ) -> None:
        super().__init__()
        self.language = use(language or system_language())
        self.session = Session.open(address, state_dir, credentials, self.language)
        self.open_seat = open_seat
        #: the signed-in account (None until signed in, or without a server)
        self.account: accounts_pb2.Account | None = None

    async def on_mount(self) -> None:
        try:  # the seats this terminal takes are then its account's
            account = await sign_in(self.session.client, self.session.state_dir)
            self.account = account
            self.sub_title = who(account)
            # the account's seats taken elsewhere open here too (the session acts for them)
            await adopt_seats(self.session.client, self.session.seat_book, self.session.address)
        except ParlourError:
            pass  # no server yet: the lobby says so, and seat tokens work without an account
        self.push_screen(LobbyScreen())
        if self.open_seat is not None:  # `parlour play --table ID --token TOKEN`
            self.push_screen(TableScreen(self.open_seat))

    def action_switch_language(self) -> None:
        """Speak the next language: this client's words now, the server's from the next call."""
        self.language = use(next_language())
        self.session.client.language = self.session.stream_client.language = self.language
        self.notify(t("language_now"))
        said = getattr(self.screen, "say_again", None)
        if callable(said):
            said()
        self.screen.refresh(recompose=False)

    def action_history(self) -> None:
        """Your games: the account's tables, their replays, the leaderboards."""
        if not isinstance(self.screen, HistoryScreen):
            self.push_screen(HistoryScreen())

    async def on_unmount(self) -> None:
        await self.session.close()
