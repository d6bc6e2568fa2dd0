"""Your games in the terminal client (issue 31, point 1): F3 lists the account's tables
newest first with their players, result and how they ended; Enter opens a finished
table's replay in words; L shows the game's leaderboard with the ratings. Screenshots
go to test-artifacts/tui/."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from rich.console import Console
from textual.widgets import DataTable, Static

from parlour.client import ParlourClient
from parlour.client.accounts import SessionMetadata
from parlour.tui import render
from parlour.tui.app import ParlourApp
from parlour.tui.history import HistoryScreen, LeaderboardScreen, ReplayScreen
from parlour.tui.saved import SavedSeat
from parlour.tui.table import TableScreen
from tests.tui.conftest import Service, ai_worker, shoot, wait_until


async def finished_game(client: ParlourClient, rng: random.Random) -> tuple[str, str]:
    """Crazy 8s against a random bot, played to the end by this client's account."""
    hosted = await client.host_table(
        "crazy8s",
        2,
        options={"rounds": "1"},
        seat_setup=[("person", ""), ("bot", "random")],
        host_player_name="Ada",
        host_takes_seat=True,
    )
    table_id = hosted.table.table_id
    await client.start_table(table_id, hosted.host_token)
    for _ in range(2000):
        seen = await client.get_view(table_id, 0, hosted.seat_token)
        if seen.view.is_over:
            return table_id, hosted.seat_token
        if 0 in seen.view.to_act:
            pick = rng.randrange(len(seen.view.legal_actions)) + 1
            await client.act(table_id, 0, hosted.seat_token, pick, expected_version=seen.version)
        else:
            await asyncio.sleep(0.02)
    raise AssertionError("the game did not end")


async def test_your_games_opens_a_replay_and_the_leaderboard(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.signed_in.token is not None, what="sign-in")
        token = app.session.signed_in.token
        async with (
            ai_worker(service),
            ParlourClient(service.address, session=SessionMetadata(token)) as mine,
        ):
            finished, seat_token = await finished_game(mine, random.Random(3))
            waiting = await mine.host_table(
                "crazy8s",
                2,
                seat_setup=[("person", ""), ("bot", "random")],
                host_player_name="Ada",
                host_takes_seat=True,
            )
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        table = app.screen.query_one("#history", DataTable)
        await wait_until(pilot, lambda: table.row_count == 2, what="two games listed")
        keys = [row.value for row in table.rows]
        assert keys == [waiting.table.table_id, finished]
        newest, older = table.get_row_at(0), table.get_row_at(1)
        assert newest[4] == "waiting for players" and newest[3] == "—"
        assert older[0] == "crazy8s" and older[4] == "played to the end"
        assert str(older[3]).startswith(("won (", "lost ("))
        assert "Ada" in str(older[2]) and "Bot 2" in str(older[2])
        await shoot(pilot, "home-history")

        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await wait_until(pilot, lambda: len(app.screen.query(Static)) > 5, what="the replay")
        said = " ".join(str(line.render()) for line in app.screen.query(Static))
        assert "Ada" in said
        await pilot.press("escape", "l")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        board = app.screen.query_one("#board", DataTable)
        await wait_until(pilot, lambda: board.row_count == 1, what="the guest's rating")
        rank, name, rating, games = board.get_row_at(0)
        assert (rank, name, games) == ("1", "a guest", "1") and rating.endswith("?")
        await pilot.press("b")
        await wait_until(pilot, lambda: board.row_count == 2, what="the bot level too")
        await shoot(pilot, "home-leaderboard")

        # the ratings beside the names at the table (the finished one, from seat 0)
        while isinstance(app.screen, (LeaderboardScreen, HistoryScreen)):
            app.pop_screen()
            await pilot.pause()
        # the table screen itself, not app.screen: the game-over panel of the finished
        # game may open over it at any moment
        screen = TableScreen(SavedSeat(service.address, finished, 0, seat_token, "crazy8s"))
        app.push_screen(screen)
        await wait_until(pilot, lambda: bool(screen.query("#seats")), what="the seats")
        await wait_until(pilot, lambda: len(screen.ratings) == 2, what="the ratings")
        assert all(text.endswith("?") for text in screen.ratings.values())
        await wait_until(pilot, lambda: screen.view is not None, what="the view")
        assert screen.view is not None
        console = Console(width=80, record=True)
        console.print(render.seats_table(screen.view, screen.ratings))
        shown = console.export_text()
        assert (
            f"you {screen.ratings[0]}" in shown and f"Bot 2 (random) {screen.ratings[1]}" in shown
        )
        await shoot(pilot, "home-table-ratings")


async def test_the_terminal_lobby_shows_the_seated_players_ratings(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    """The open tables' players, each with their ordinal and "?" while provisional (one
    GetTablesRatings call for the list), a bot by its level in words."""
    from parlour.tui.lobby import LobbyScreen

    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.signed_in.token is not None, what="sign-in")
        token = app.session.signed_in.token
        async with (
            ai_worker(service),
            ParlourClient(service.address, session=SessionMetadata(token)) as mine,
        ):
            await finished_game(mine, random.Random(5))
            waiting = await mine.host_table(
                "crazy8s",
                3,
                seat_setup=[("person", ""), ("bot", "random"), ("person", "")],
                host_player_name="Ada",
                host_takes_seat=True,
            )
        assert isinstance(app.screen, LobbyScreen)
        lobby = app.screen
        await pilot.press("f5")
        tables = lobby.query_one("#tables", DataTable)
        await wait_until(pilot, lambda: tables.row_count == 1, what="the open table")
        await wait_until(pilot, lambda: "?" in str(tables.get_row_at(0)[3]), what="ratings")
        row = tables.get_row_at(0)
        assert row[4] == waiting.table.table_id
        ada, bot = str(row[3]).split(", ")
        assert ada.startswith("Ada ") and ada.endswith("?")
        assert bot.startswith("computer: random ") and bot.endswith("?")
        await shoot(pilot, "lobby-ratings")
