"""The terminal's account screens (issue 30), in English and Polish: a guest claims a
name and a password in one terminal (one state directory), signs in with them in a
second terminal (another state directory) and resumes the same seat there
(ListMySeats, no seat token); a wrong password is refused in the player's language;
signing out makes a new guest; identity.json stays mode 0600 throughout. SVG captures
go to build/screens/tui/."""

from __future__ import annotations

import json
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from parlour.client.accounts import who_am_i
from parlour.tui.account import AccountScreen
from parlour.tui.app import ParlourApp
from parlour.tui.identity import FILE_NAME
from parlour.tui.lobby import LobbyScreen
from parlour.tui.speech import use
from parlour.tui.table import TableScreen
from tests.tui.conftest import Service, wait_until


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """The Polish terminal sets the process's language: English again for later tests."""
    yield
    use("en")


SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "tui"


async def capture(pilot: Pilot[None], name: str) -> None:
    """SVG captures of the screen at 80x24 and 120x36."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    original = pilot.app.size
    for width, height in ((80, 24), (120, 36)):
        await pilot.resize_terminal(width, height)
        await pilot.pause(0.05)
        pilot.app.save_screenshot(f"{name}-{width}x{height}.svg", str(SCREENS))
    await pilot.resize_terminal(original.width, original.height)
    await pilot.pause(0.05)


def private(directory: Path) -> bool:
    return stat.S_IMODE((directory / FILE_NAME).stat().st_mode) == 0o600


async def open_account(pilot: Pilot[None], app: ParlourApp) -> AccountScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.games))
    await wait_until(pilot, lambda: app.account is not None, what="sign-in")
    app.screen.action_account()  # type: ignore[attr-defined]
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, AccountScreen) and bool(app.screen.query("#account-who")),
    )
    screen = app.screen
    assert isinstance(screen, AccountScreen)
    return screen


def message(screen: AccountScreen) -> str:
    return str(screen.query_one("#account-message", Static).render())


async def test_claim_a_name_then_sign_in_from_another_terminal_and_resume_the_seat(
    service: Service, tmp_path: Path
) -> None:
    name, password = f"Tui{secrets.token_hex(3)}", "a long enough password"
    one, two = tmp_path / "one", tmp_path / "two"
    first = ParlourApp(service.address, state_dir=one, language="en")
    async with first.run_test(size=(100, 30)) as pilot:
        screen = await open_account(pilot, first)
        await capture(pilot, "account-guest-en")
        screen.query_one("#account-name", Input).value = name
        screen.query_one("#account-password", Input).value = password
        await pilot.click("#account-claim")
        await wait_until(pilot, lambda: isinstance(first.screen, LobbyScreen), what="claimed")
        assert first.account is not None and first.account.name == name
        assert first.sub_title == f"Signed in as {name}"
        hosted = await first.session.client.host_table(
            "crazy8s", 2, host_takes_seat=True, host_player_name=name
        )
        table_id = hosted.table.table_id
        account_id = (await who_am_i(first.session.client)).account.account_id
    assert private(one)

    second = ParlourApp(service.address, state_dir=two, language="pl")
    async with second.run_test(size=(100, 30)) as pilot:
        screen = await open_account(pilot, second)
        assert "gość" in str(screen.query_one("#account-who", Static).render())
        screen.query_one("#account-name", Input).value = name
        screen.query_one("#account-password", Input).value = "not the password"
        await pilot.click("#account-sign-in")
        await wait_until(pilot, lambda: bool(message(screen)), what="the refusal")
        assert "Nie ma konta o tej nazwie i tym haśle" in message(screen), message(screen)
        await capture(pilot, "account-sign-in-refused-pl")
        screen.query_one("#account-password", Input).value = password
        await pilot.click("#account-sign-in")
        await wait_until(pilot, lambda: isinstance(second.screen, LobbyScreen), what="signed in")
        assert second.account is not None and second.account.account_id == account_id
        assert second.sub_title == f"Zalogowano jako {name}"
        banner = str(second.screen.query_one("#banner", Static).render())
        assert banner.endswith(f" · {name}")
        lobby = second.screen
        assert isinstance(lobby, LobbyScreen)
        await wait_until(pilot, lambda: any(s.table_id == table_id for s in lobby.my_seats))
        await capture(pilot, "account-signed-in-lobby-pl")
        # the same seat, from this terminal, with the session alone (no seat token)
        row = next(i for i, s in enumerate(lobby.my_seats) if s.table_id == table_id)
        assert lobby.my_seats[row].token == "" and lobby.my_seats[row].seat == hosted.seat
        lobby.query_one("#mine").move_cursor(row=row)  # type: ignore[attr-defined]
        lobby.action_rejoin()
        await wait_until(
            pilot,
            lambda: isinstance(second.screen, TableScreen) and second.screen.view is not None,
            what="the resumed seat",
            timeout=10,
        )
        assert second.screen.view.seat == hosted.seat  # type: ignore[attr-defined]
        second.pop_screen()
        await wait_until(pilot, lambda: isinstance(second.screen, LobbyScreen))
        # sign out: a new guest, the account's seat gone from this terminal
        screen = await open_account(pilot, second)
        await capture(pilot, "account-signed-in-pl")
        await pilot.click("#account-sign-out")
        await wait_until(pilot, lambda: isinstance(second.screen, LobbyScreen), what="signed out")
        assert second.account is not None and not second.account.name
        assert second.account.account_id != account_id
        assert not any(s.table_id == table_id for s in second.session.seat_book.load())
    assert private(two)
    kept = json.loads((two / FILE_NAME).read_text())
    assert password not in json.dumps(kept) and set(kept) == {"device_secret", "session_token"}
