"""The table's chat at the terminal (issue 32), driven with Textual's pilot: t opens
the line, Enter says it, Escape goes back to the table's keys; another seat's
line shows as text (never markup); the host switches the chat off with T. In
English and Polish; captures under build/screens/tui/chat-*.svg."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from parlour.tui.app import ParlourApp
from parlour.tui.chat import ChatLine
from parlour.tui.speech import use
from tests.tui.conftest import Service, wait_until
from tests.tui.helpers import fill_seats, host_through_the_lobby
from tests.tui.test_screens_language import svg_text

SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "tui"


async def capture(pilot: Pilot[None], name: str) -> str:
    """Save an SVG of the screen under build/screens/tui; the screen's text."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    svg = pilot.app.export_screenshot()
    (SCREENS / f"{name}.svg").write_text(svg, encoding="utf-8")
    return svg_text(svg)


def chat_shown(table: object) -> str:
    return str(table.query_one("#chat").render())  # type: ignore[attr-defined]


async def test_a_seat_chats_reads_the_others_and_the_host_switches_it_off(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        table = await host_through_the_lobby(pilot, "crazy8s", 2, {})
        (other,) = await fill_seats(service.client, table, 1)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")  # start
        await wait_until(pilot, lambda: table.view is not None and table.view.phase == "play")
        assert not table.has_class("has-chat")  # nothing said yet: no panel
        await pilot.press("t")
        line = table.query_one("#chat-input", ChatLine)
        await wait_until(pilot, lambda: line.has_focus, what="the chat line focused")
        # the table's keys (p pass, d draw, digits) are letters of the line now
        await pilot.press(*"pd 12 gl")
        assert line.value == "pd 12 gl"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(table.view.chat) == 1, what="the line said")
        assert table.view.chat[0].text == "pd 12 gl" and line.value == ""
        await other.say("[bold]hi[/bold] from Player 1")
        await wait_until(pilot, lambda: len(table.view.chat) == 2, what="the other's line")
        shown = chat_shown(table)
        assert "[bold]hi[/bold] from Player 1" in shown  # text, never markup
        await capture(pilot, "chat-en-100x30")
        await pilot.resize_terminal(80, 24)  # the smallest terminal still shows hand and chat
        await pilot.pause(0.2)
        small = await capture(pilot, "chat-en-80x24")
        assert "Your hand" in small and "[bold]hi[/bold]" in small, small
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.1)
        await pilot.press("escape")
        assert not line.has_focus and not table.has_class("talking")
        assert app.screen is table  # Escape left the line, not the table

        await pilot.press("T")  # the host's switch
        await wait_until(pilot, lambda: not table.view.chat_enabled, what="the chat off")
        assert "The chat is off." in chat_shown(table)
        await pilot.press("t")
        assert not line.has_focus and "The chat is off." in table.message.plain
        await pilot.press("f2")  # Polski
        await wait_until(pilot, lambda: "Czat jest" in chat_shown(table), what="Polish")
        assert "Czat jest wyłączony." in chat_shown(table)
        assert table.query_one("#chat").border_title == "Czat przy stole"
        await capture(pilot, "chat-pl-100x30")
        use("en")
