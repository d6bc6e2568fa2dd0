"""The terminal's account screen (issue 30): claim a name and a password for this
guest, sign in to a named account from another terminal (the account's seats come
along: AccountService.ListMySeats), sign out. The session goes to ``identity.json``
(mode 0600, ``identity.py``); a password is never kept or shown.

Signing in binds this terminal's device secret to the account, so the next start
signs in to it again; signing out forgets the account: the session ends and the
terminal takes a new device secret (its next start is a new guest).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from parlour.client import ParlourClient, ParlourError
from parlour.client.accounts import (
    authenticate_device,
    claim_name,
    list_my_seats,
    new_device_secret,
    sign_in,
    sign_out,
    who_am_i,
)
from parlour.v1 import accounts_pb2

from .identity import Identity, IdentityFile
from .saved import SavedSeat, SeatBook
from .session import session
from .speech import t, why_not


def seat_words(seat: int) -> str:
    """A seat as a refusal names it: "seat 2" (from 1)."""
    return t("account.seat", n=seat + 1)


def who(account: accounts_pb2.Account | None) -> str:
    """The line that says who this terminal is."""
    if account is None or not account.name:
        return t("account.guest")
    return t("account.signed_in_as", name=account.name)


async def sign_in_named(
    client: ParlourClient, name: str, password: str, directory: Path | None = None
) -> accounts_pb2.Account:
    """Sign in to a named account; this terminal's device signs in to it from now on."""
    assert client.session is not None, "the client needs SessionMetadata to sign in"
    kept = IdentityFile(directory)
    identity = kept.load()
    signed = await sign_in(client, name, password, identity.device_secret)
    client.session.token = identity.session_token = signed.session_token
    kept.save(identity)
    account: accounts_pb2.Account = signed.account
    return account


async def sign_out_here(
    client: ParlourClient, directory: Path | None = None
) -> accounts_pb2.Account:
    """End the session and forget the account: a new device secret, a new guest."""
    assert client.session is not None, "the client needs SessionMetadata to sign out"
    with contextlib.suppress(ParlourError):  # a dead session is signed out anyway
        await sign_out(client)
    kept = IdentityFile(directory)
    identity = Identity(new_device_secret())
    client.session.token = None
    signed = await authenticate_device(client, identity.device_secret)
    client.session.token = identity.session_token = signed.session_token
    kept.save(identity)
    account: accounts_pb2.Account = signed.account
    return account


async def adopt_seats(client: ParlourClient, book: SeatBook, server: str) -> int:
    """Keep the account's seats this terminal does not know yet (they need no seat
    token: the session acts for them); how many were added."""
    added = 0
    for held in await list_my_seats(client):
        if book.find(held.table_id) is None:
            book.remember(
                SavedSeat(
                    server=server,
                    table_id=held.table_id,
                    seat=held.seat,
                    token="",
                    game=held.game,
                    table_name=held.table_name,
                )
            )
            added += 1
    return added


class AccountScreen(ModalScreen[accounts_pb2.Account | None]):
    """Who you are, and claim a name, sign in or sign out (Esc closes)."""

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, account: accounts_pb2.Account | None) -> None:
        super().__init__()
        self.account = account

    @property
    def guest(self) -> bool:
        return self.account is None or not self.account.name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="account-dialog"):
            yield Static(t("account.title"), classes="title")
            yield Static(who(self.account), id="account-who")
            if self.guest:
                yield Static(t("account.help"), classes="help")
                yield Label(t("account.name"))
                yield Input(id="account-name", max_length=64, compact=True)
                yield Label(t("account.password"))
                yield Input(id="account-password", password=True, max_length=256, compact=True)
                with Horizontal(classes="buttons"):
                    yield Button(t("account.claim"), id="account-claim", variant="primary")
                    yield Button(t("account.sign_in"), id="account-sign-in")
            else:
                with Horizontal(classes="buttons"):
                    yield Button(t("account.sign_out"), id="account-sign-out", variant="warning")
            yield Static("", id="account-message")
            yield Static(t("account.close_hint"), classes="help")

    def say(self, message: str, style: str = "") -> None:
        self.query_one("#account-message", Static).update(
            f"[{style}]{message}[/{style}]" if style else message
        )

    def _form(self) -> tuple[str, str]:
        return (
            self.query_one("#account-name", Input).value.strip(),
            self.query_one("#account-password", Input).value,
        )

    @on(Button.Pressed, "#account-claim")
    def _claim_pressed(self) -> None:
        self.claim()

    @on(Button.Pressed, "#account-sign-in")
    def _sign_in_pressed(self) -> None:
        self.sign_in()

    @on(Input.Submitted, "#account-password")
    def _submitted(self) -> None:
        self.sign_in()

    @on(Button.Pressed, "#account-sign-out")
    def _sign_out_pressed(self) -> None:
        self.sign_out()

    @work(exclusive=True, group="account")
    async def claim(self) -> None:
        name, password = self._form()
        try:
            account = await claim_name(session(self).client, name, password)
        except ParlourError as refused:
            self.say(why_not(refused, seat_words), "red")
            return
        self.dismiss(account)

    @work(exclusive=True, group="account")
    async def sign_in(self) -> None:
        name, password = self._form()
        here = session(self)
        try:
            account = await sign_in_named(here.client, name, password, here.state_dir)
            await adopt_seats(here.client, here.seat_book, here.address)
        except ParlourError as refused:
            self.say(why_not(refused, seat_words), "red")
            return
        self.dismiss(account)

    @work(exclusive=True, group="account")
    async def sign_out(self) -> None:
        here = session(self)
        try:
            account = await sign_out_here(here.client, here.state_dir)
        except ParlourError as refused:
            self.say(why_not(refused, seat_words), "red")
            return
        # the seats kept only through the account (no token of their own) go with it
        for saved in here.seat_book.load():
            if not saved.token:
                here.seat_book.forget(saved.table_id)
        self.dismiss(account)

    def action_close(self) -> None:
        self.dismiss(None)


async def current_account(client: ParlourClient) -> accounts_pb2.Account | None:
    """The signed-in account, or None when the session is missing or dead."""
    try:
        answer: accounts_pb2.WhoAmIResponse = await who_am_i(client)
    except ParlourError:
        return None
    return answer.account
