"""Table chat in real headless Chromium against the real processes (issue 32).

Two players in two browser contexts (one in English at desktop width, one in
Polish on a phone) chat at a Crazy 8s table through the gateway; a line shows
as text, never as markup; a spectator reads and cannot write; the host
switches the chat off and the other player's line input closes; the table
option "chat" offered by the setup screen starts a table with it off.
An axe-core scan of the table with its chat (0 serious or critical
violations, controls at least 44 px) in both languages. Screenshots go to
build/screens/web/chat-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.test_browser_issue32 import open_page
from tests.web.test_browser_screens import Camera, new_page
from tests.web.test_browser_screens import axe_source as axe_source  # the fixture
from tests.web.test_browser_table import DESKTOP, PHONE, host
from tests.web.waiting import wait_until

SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "web"


def lines(page: Any) -> list[str]:
    texts: list[str] = page.locator(".chat-lines li:not(.muted)").all_inner_texts()
    return texts


def say(page: Any, text: str) -> None:
    page.fill(".chat-form input", text)
    page.press(".chat-form input", "Enter")


def test_two_players_chat_a_spectator_reads_and_the_host_switches_it_off(
    browser: Any, web_stack: str
) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    ada = open_page(browser, web_stack, DESKTOP)
    table_id = host(ada, "Ada", "crazy8s", {1: "person"})
    ada.wait_for_selector(".waiting")
    bo = open_page(browser, web_stack, PHONE, f"#/join/{table_id}", locale="pl-PL")
    bo.fill("#name", "Bo")
    bo.click("#take")
    bo.wait_for_selector(".waiting")
    wait_until(ada, "!(document.querySelector('[data-start]') || {disabled: true}).disabled")
    ada.click("[data-start]")
    for page in (ada, bo):
        page.wait_for_selector(".chat .chat-form input:not([disabled])")
    assert ada.inner_text(".chat h2") == "Table chat"
    assert bo.inner_text(".chat h2") == "Czat przy stole"
    assert ada.get_attribute(".chat-log", "role") == "log"
    assert ada.locator("label[for]", has_text="Message to the table").count() == 1

    markup = "Hello <b>Bo</b> <img src=x onerror=alert(1)>"
    say(ada, markup)
    wait_until(bo, "document.querySelectorAll('.chat-lines li:not(.muted)').length === 1")
    assert lines(bo) == [f"Ada: {markup}"]
    assert bo.locator(".chat-lines b, .chat-lines img").count() == 0  # text, never markup
    assert ada.input_value(".chat-form input") == ""  # sent: the line is emptied
    say(bo, "Cześć, Ado! ♥")
    wait_until(ada, "document.querySelectorAll('.chat-lines li:not(.muted)').length === 2")
    assert lines(ada) == [f"Ada: {markup}", "Bo: Cześć, Ado! ♥"]

    spectator = open_page(browser, web_stack, DESKTOP, f"#/watch/{table_id}")
    spectator.wait_for_selector(".chat-lines li:not(.muted)")
    assert lines(spectator) == lines(ada)
    assert not spectator.locator(".chat-form").is_visible()
    assert "only the players write" in spectator.inner_text(".chat-note")
    assert spectator.locator(".chat-switch").count() == 0

    # a line too long for the server is refused in the player's words (the input
    # holds at most 200 characters, so it is sent around the page)
    ada.evaluate("document.querySelector('.chat-form input').removeAttribute('maxlength')")
    say(ada, "x" * 201)
    wait_until(ada, "document.querySelector('.chat-note').innerText.includes('200')")
    assert "200" in ada.inner_text(".chat-note")

    ada.screenshot(path=str(SCREENS / "chat-en-1280.png"))
    bo.screenshot(path=str(SCREENS / "chat-pl-390.png"), full_page=True)

    # the host switches it off: the other player's line closes, in Polish
    assert bo.locator(".chat-switch").count() == 0  # only the host's page has the switch
    ada.click(".chat-switch")
    wait_until(bo, "document.querySelector('.chat-form input').disabled")
    assert bo.inner_text(".chat-note") == "Czat jest wyłączony."
    wait_until(ada, "document.querySelector('.chat-switch').innerText === 'Switch the chat on'")
    assert lines(bo) == lines(ada)  # what was said stays
    ada.click(".chat-switch")
    wait_until(bo, "!document.querySelector('.chat-form input').disabled")
    for page in (ada, bo, spectator):
        assert page.errors == []
        page.context.close()


def test_the_setup_screen_starts_a_table_with_its_chat_off(browser: Any, web_stack: str) -> None:
    ada = open_page(browser, web_stack, DESKTOP)
    ada.wait_for_selector("#game option", state="attached")
    ada.fill("#name", "Ada")
    ada.select_option("#game", "crazy8s")
    ada.select_option("[data-option='chat']", "off")
    ada.click("#host")
    ada.wait_for_selector(".chat .chat-form input[disabled]", timeout=20_000)
    assert ada.inner_text(".chat-note") == "The chat is off."
    assert ada.inner_text(".chat-switch") == "Switch the chat on"
    assert ada.errors == []
    ada.context.close()


def test_the_chat_panel_passes_axe_and_its_controls_are_big_enough(
    browser: Any,
    web_stack: str,
    axe_source: str,
) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    for language in ("en", "pl"):
        page = new_page(browser, web_stack, language)
        page.fill("#name", "Ada")
        page.select_option("#game", "crazy8s")
        page.click("#host")
        page.wait_for_selector(".chat .chat-form input:not([disabled])", timeout=20_000)
        say(page, "Good luck — powodzenia!")
        page.wait_for_selector(".chat-lines li:not(.muted)")
        camera = Camera(page, language, axe_source, SCREENS)
        camera.shoot("chat-axe")  # 1280 and 390 wide, each scanned
        assert camera.found == {}, camera.found
        assert page.errors == []
        page.context.close()
