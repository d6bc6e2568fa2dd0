"""Hearts passing and Kaiser trump naming by key presses."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from parlour.tui.app import ParlourApp
from parlour.v1 import common_pb2
from tests.tui.conftest import Service, shoot, wait_until
from tests.tui.helpers import fill_seats, host_through_the_lobby, my_turn, press_and_wait
from tests.tui.players import others_playing


def passes_when_it_can(legal: Sequence[common_pb2.LegalAction]) -> common_pb2.LegalAction:
    return next((entry for entry in legal if entry.action.text == "pass"), legal[0])


async def test_hearts_cards_are_picked_apart_taken_back_and_passed_with_enter(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "hearts", 4, {})
        others = await fill_seats(service.client, table, 3)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")
        await wait_until(pilot, lambda: my_turn(table) and table.view.phase == "pass")
        assert table.view.pass_direction == "left"
        actions = table.query_one("#actions")
        assert "Enter pick it to pass" in str(actions.render())
        # a pick leaves the hand for the tray and can be taken back
        first = table._hand()[table.cursor]
        await pilot.press("enter")
        assert table.to_pass == [first] and first not in table._hand()
        assert "To pass left:" in str(actions.render())
        await pilot.press("backspace")
        assert table.to_pass == [] and first in table._hand()
        given = []
        for _ in range(3):
            given.append(table._hand()[table.cursor])
            await pilot.press("enter")
        assert table.to_pass == given and table.view.passed_cards == []
        assert "Enter pass these cards" in str(actions.render())
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(table.view.passed_cards) == 3, what="the pass")
        assert not table.message.plain, table.message.plain
        assert sorted(table.view.passed_cards) == sorted(given)
        assert "You pass:" in str(table.query_one("#facts").render())
        await shoot(pilot, "hearts-passed")
        async with others_playing(others):
            await wait_until(pilot, lambda: len(table.view.received_cards) == 3)
        assert "You received:" in str(table.query_one("#facts").render())


async def test_kaiser_bid_winner_names_trump_with_a_suit_letter(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "kaiser", 4, {})
        others = await fill_seats(service.client, table, 3)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")
        async with others_playing(others, passes_when_it_can):
            await wait_until(pilot, lambda: my_turn(table) and table.view.phase == "bid")
            await pilot.press("6")  # the lowest bid at the default floor
            await press_and_wait(pilot, table, "enter")
            assert not table.message.plain, table.message.plain
            await wait_until(pilot, lambda: my_turn(table) and table.view.phase == "trump")
            await shoot(pilot, "kaiser-name-trump")
            await press_and_wait(pilot, table, "h")
        assert table.view.trump_text == "hearts"
        assert "Trump: hearts" in str(table.query_one("#facts").render())
        assert table.view.contract
