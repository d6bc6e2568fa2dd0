"""Steps the terminal-client tests share: host through the lobby, find the table screen."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import OptionList, Select

from parlour.client import ParlourClient, Seat
from parlour.tui.app import ParlourApp
from parlour.tui.lobby import LobbyScreen
from parlour.tui.setup import SetupScreen
from parlour.tui.summary import HandSummaryScreen
from parlour.tui.table import TableScreen
from tests.tui.conftest import wait_until


async def host_through_the_lobby(
    pilot: Pilot[None],
    game: str,
    seats: int,
    options: dict[str, str],
    seat_kinds: dict[int, str] | None = None,
) -> TableScreen:
    """Pick ``game`` in the lobby, press h, fill the setup screen, host; the other seats
    are people unless ``seat_kinds`` says otherwise."""
    app = pilot.app
    assert isinstance(app, ParlourApp)
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.games))
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    games = lobby.query_one("#games", OptionList)
    games.focus()
    while lobby.highlighted_game() is None or lobby.highlighted_game().id != game:  # type: ignore[union-attr]
        await pilot.press("down")
    await pilot.press("h")
    await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen))
    setup = app.screen
    assert isinstance(setup, SetupScreen)
    setup.query_one("#seat-count", Select).value = seats
    for seat in range(1, seats):
        kind = (seat_kinds or {}).get(seat, "person")
        setup.query_one(f"#seat-{seat}", Select).value = kind
    for name, value in options.items():
        setup.set_option(name, value)
    await pilot.press("ctrl+s")
    await wait_until(
        pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.view is not None
    )
    table = app.screen
    assert isinstance(table, TableScreen)
    return table


async def fill_seats(client: ParlourClient, table: TableScreen, people: int) -> list[Seat]:
    """Seat ``people`` more people at the table through the client library."""
    taken = []
    for number in range(1, people + 1):
        joined = await client.join_table(table.seat.table_id, f"Player {number}")
        taken.append(client.seat(table.seat.table_id, joined.seat, joined.seat_token))
    return taken


def my_turn(table: TableScreen) -> bool:
    """The view on screen waits for this seat and no move is on its way."""
    view = table.view
    return (
        view is not None
        and table.app.screen is table
        and view.seat in view.to_act
        and not table.sending
    )


async def next_turn(pilot: Pilot[None], table: TableScreen, timeout: float = 60) -> None:
    """Wait for this seat's turn, closing each hand's summary (Enter) on the way: a hand
    that ends while the seat waits shows its summary before the next deal's turns."""
    app = table.app

    def summing_up() -> bool:
        return isinstance(app.screen, HandSummaryScreen)

    while True:
        await wait_until(pilot, lambda: my_turn(table) or summing_up(), timeout, "my turn")
        if not summing_up():
            return
        await pilot.press("enter")
        await wait_until(pilot, lambda: not summing_up(), what="the summary to close")


async def name_trump_if_asked(pilot: Pilot[None], table: TableScreen) -> None:
    """A wizard turned up in Wizard's first deal: this seat, the dealer, names trump (spades)
    before anyone bids. The server shuffles, so this happens on some deals only."""
    if my_turn(table) and table.view is not None and table.view.phase == "trump":
        await press_and_wait(pilot, table, "s")


async def press_and_wait(pilot: Pilot[None], table: TableScreen, key: str) -> None:
    """Press ``key`` for a move and wait for the server's answer: a newer view or a refusal."""
    before = table.shown_version
    table.show_message(table.message.__class__(""))
    await pilot.press(key)
    await wait_until(
        pilot,
        lambda: table.shown_version > before or bool(table.message.plain),
        what=f"the answer to {key!r}",
    )
