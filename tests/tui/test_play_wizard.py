"""A whole Wizard game against three bots, played at the terminal by key presses
(the bot seats played by a real AI worker), and a refused bid."""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console
from textual.widgets import Static

from parlour.tui.app import ParlourApp
from parlour.tui.dialogs import InfoScreen
from parlour.tui.endgame import GameOverScreen
from parlour.tui.summary import HandSummaryScreen, join_names, player_name
from parlour.tui.table import TableScreen
from parlour.v1 import lobby_pb2
from tests.tui.conftest import Service, ai_worker, shoot, wait_until
from tests.tui.helpers import (
    fill_seats,
    host_through_the_lobby,
    my_turn,
    name_trump_if_asked,
    press_and_wait,
)
from tests.tui.players import others_playing

BOTS = {1: "normal", 2: "normal", 3: "random"}


async def test_a_wizard_game_against_three_bots_is_played_to_the_end_by_key_presses(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot, ai_worker(service):
        table = await host_through_the_lobby(pilot, "wizard", 4, {"rounds": "5"}, BOTS)
        # Every other seat is a bot, so the lobby started the game at once.
        await wait_until(pilot, lambda: table.view.phase != "lobby")
        assert [p.kind for p in table.view.players][1:] == [lobby_pb2.SEAT_KIND_BOT] * 3
        bids = cards = summaries = 0
        shot_trick = False

        def summing_up() -> bool:
            return isinstance(app.screen, HandSummaryScreen)

        while not table.over_shown:
            await wait_until(
                pilot, lambda: my_turn(table) or table.over_shown or summing_up(), what="my turn"
            )
            view = table.view
            if table.over_shown or view is None:
                break
            if summing_up():  # each hand ends with its summary before the next deal
                if summaries == 0:
                    await shoot(pilot, "wizard-hand-summary")
                    assert "Hand 1 is over" in str(app.screen.query_one(".dialog").border_title)
                    check_wizard_summary(app.screen, table)
                    sealed = on_screen(app.screen.query_one("#deal-sealed", Static))
                    assert "This deal was sealed before play (commitment " in sealed
                summaries += 1
                await pilot.press("enter")
                await wait_until(pilot, lambda: not summing_up())
                continue
            if bids == 0:
                await shoot(pilot, "wizard-bid")
            trick_under_way = len(view.current_trick.plays) >= 1 and view.HasField("last_trick")
            if not shot_trick and trick_under_way and len(view.hand) >= 2:
                shot_trick = True
                await shoot(pilot, "wizard-trick")
                await pilot.press("l")  # the last trick, on request
                await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
                await shoot(pilot, "wizard-last-trick")
                await pilot.press("escape")
                await wait_until(pilot, lambda: app.screen is table)
            bidding = view.phase == "bid"
            await press_and_wait(pilot, table, "enter")
            assert not table.message.plain, table.message.plain
            bids += bidding
            cards += view.phase == "play"
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen))

        def deals_checked() -> str:
            return on_screen(app.screen.query_one("#deal-check", Static))

        await wait_until(pilot, lambda: "verified" in deals_checked(), what="the deal check")
        # the client checked the five deals itself: commitments, seeds, its own contribution
        checked = deals_checked()
        assert "All 5 deals were verified (from the server's seed and the players'" in checked
        assert "your own contribution went into every shuffle" in checked
        await shoot(pilot, "wizard-game-over")
        view = table.view
        assert view is not None and view.is_over and view.winners
        # the end in words, the winners by name, and the last hand's result
        told = on_screen(app.screen.query_one("#game-over-body", Static))
        assert "All 5 rounds were played; the highest total wins." in told
        others = [player_name(view, seat) for seat in view.winners if seat != view.seat]
        said = join_names(["You", *others] if view.seat in view.winners else others)
        assert f"{said} win" in told and "The last hand, hand 5:" in told
        assert len(view.hand_scores) == 5
        assert (bids, cards) == (5, 1 + 2 + 3 + 4 + 5)
        assert summaries == 4  # the fifth hand ends the game: its result is the game-over screen
        versions = [event.version for event in table.events]
        assert versions == list(range(1, versions[-1] + 1)), "every event seen, once"
        await pilot.press("r")  # the event log offered at the end
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        told = str(app.screen.query_one("#info-body").render())
        # the newest first, seats by name, cards in words
        numbers = [int(line.split()[0]) for line in told.splitlines() if line.strip()]
        assert numbers == sorted(numbers, reverse=True) and numbers[0] >= versions[-1] - 1
        assert "seat 1 " not in told and not re.search(r"\b[2-9TJQKA][CDHS]\b", told)
        await shoot(pilot, "wizard-event-log")


async def test_a_bid_out_of_range_is_refused_with_the_servers_message(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "wizard", 3, {})
        others = await fill_seats(service.client, table, 2)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await shoot(pilot, "wizard-waiting")
        await pilot.press("enter")  # the host starts the game
        async with others_playing(others):
            await wait_until(pilot, lambda: my_turn(table), what="my first turn")
            await name_trump_if_asked(pilot, table)
            await wait_until(
                pilot, lambda: my_turn(table) and table.view.phase == "bid", what="my bid"
            )
        version = table.shown_version
        await pilot.press("9")  # round 1: the server lists bids 0 and 1 only
        await press_and_wait(pilot, table, "enter")
        assert table.message.plain == ("Refused: You may bid from 0 to 1, not 9.")
        assert table.shown_version == version
        await shoot(pilot, "wizard-refused-bid")
        assert isinstance(app.screen, TableScreen)


def check_wizard_summary(screen: object, table: TableScreen) -> None:
    """The first round's summary is the contract's result: each bid, the tricks, made or missed."""
    assert isinstance(screen, HandSummaryScreen) and table.view is not None
    last = table.view.last_hand
    assert last.hand_number == 1 and screen.result.hand == 1
    assert screen.result.columns == ("player", "bid", "took", "result", "this hand", "total")
    for seat, row in enumerate(screen.result.rows):
        bid, took = last.wizard.bids[seat], last.tricks_taken[seat]
        made = "made" if bid == took else f"missed by {abs(bid - took)}"
        assert row[1:4] == (str(bid), str(took), made)
        assert row[4] == (f"{last.points[seat]:+d}" if last.points[seat] else "0")
    assert row[0] == "Bot 4"  # by name, without the computer player's level
    told = on_screen(screen.query_one("#summary-body", Static))
    assert "dealt by" in told and "trump" in told


def on_screen(widget: Static) -> str:
    """The text a Static shows, as a person reads it."""
    console = Console(width=100, record=True)
    console.print(widget.content)
    return console.export_text()
