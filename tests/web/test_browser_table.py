"""The browser table in real headless Chromium, against the real processes.

People host, join as friends, start, pass and play a whole Hearts hand by
clicking cards, reload in the middle of the hand and carry on, and watch as
a spectator; a Wizard round is bid and played; a short Crazy 8s game is
played to its end. Screenshots of the lobby, a trick in the middle, the hand
summary and the game-over table at 1280x800 and 390x844 are written to
test-artifacts/web/ for people to look at.
"""

from __future__ import annotations

import re
import time
from typing import Any

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the browser fixture skips (or, under CI=true, fails) first
    PlaywrightError = Exception  # type: ignore[misc, assignment]

from tests.web.conftest import ARTIFACTS

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: Contract codes that must never reach a person's eyes: "N2", "W4", "TH", "SUIT_HEARTS".
RAW_CODES = re.compile(r"\b(?:[WN][1-4]|T[CDHS]|SUIT_[A-Z]+|ACTION_KIND_[A-Z]+)\b")
HOLD = "?hold=300"
#: Where a person taps a card in a fanned hand: its corner, the part left uncovered.
CORNER = {"x": 8, "y": 24}


def open_page(browser: Any, base: str, size: dict[str, int], where: str = "") -> Any:
    page = browser.new_context(viewport=size).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{base}/{HOLD}{where}")
    return page


def shot(page: Any, name: str) -> None:
    width = page.viewport_size["width"]
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"))


def continue_summary(page: Any) -> bool:
    button = page.locator(".overlay.summary [data-continue]")
    if button.count():
        button.first.click()
        return True
    return False


def move(page: Any) -> bool:
    """Makes one move by clicking if this page may act now; True if it did.

    The table redraws as other players move, so a click that meets a redrawn
    card is simply tried again on the next round.
    """
    try:
        return _move(page)
    except PlaywrightError:
        return False


def _move(page: Any) -> bool:
    if page.locator(".overlay").count():
        return False
    send = page.locator("[data-pass-send]")
    if send.count():
        for _ in range(3):
            if send.is_enabled():
                break
            page.locator(".hand-card.legal").first.click(position=CORNER)
        send.click()
        page.wait_for_selector("[data-pass-send]", state="detached", timeout=10_000)
        return True
    suits = page.locator(".actions[data-chooser] button:enabled")
    if suits.count():  # an eight was picked: name a suit
        suits.first.click(timeout=2_000)
        return True
    legal = page.locator(".hand-card.legal")
    if legal.count():
        legal.first.click(timeout=2_000, position=CORNER)
        return True
    buttons = page.locator(".actions button:enabled")
    if buttons.count():
        buttons.first.click(timeout=2_000)
        return True
    return False


def visible_text(page: Any) -> str:
    text: str = page.inner_text("body")
    return text


def host(page: Any, name: str, game: str, seats: dict[int, str] | None = None) -> str:
    page.wait_for_selector("#game option", state="attached")
    page.fill("#name", name)
    page.select_option("#game", game)
    for seat, choice in (seats or {}).items():
        page.select_option(f"[data-seat='{seat}']", choice)
    page.click("#host")
    page.wait_for_function("location.hash.startsWith('#/table/')")
    table_id: str = page.evaluate("location.hash.split('/')[2]")
    return table_id


def test_friends_host_join_start_and_play_a_hearts_hand(browser: Any, web_stack: str) -> None:
    ada = open_page(browser, web_stack, DESKTOP)
    ada.wait_for_selector("#game option", state="attached")
    levels = ada.eval_on_selector_all(
        "[data-seat='1'] option", "options => options.map(o => o.textContent)"
    )
    assert "computer (hard)" not in levels  # only the catalogue's levels are offered
    shot(ada, "lobby")
    table_id = host(ada, "Ada", "hearts", {1: "person", 2: "person"})
    ada.wait_for_selector(".waiting")
    assert "2 of 4 seats taken" in visible_text(ada)
    assert ada.locator("[data-start]").is_disabled()

    # Bo finds the table in the lobby; Cy follows the invitation link.
    bo = open_page(browser, web_stack, PHONE)
    bo.fill("#name", "Bo")
    bo.wait_for_selector(f"[data-join='{table_id}']")
    shot(bo, "lobby")
    bo.click(f"[data-join='{table_id}']", timeout=10_000)
    bo.wait_for_selector(".waiting")
    ada.wait_for_function("document.body.innerText.includes('3 of 4 seats taken')")
    shot(ada, "waiting-room")
    shot(bo, "waiting-room")
    cy = open_page(browser, web_stack, DESKTOP, f"#/join/{table_id}")
    cy.fill("#name", "Cy")
    cy.click("#take")
    cy.wait_for_selector(".waiting")
    ada.wait_for_function("document.body.innerText.includes('4 of 4 seats taken')")
    ada.click("[data-start]")
    players = [ada, bo, cy]
    for page in players:
        page.wait_for_selector(".felt")
    assert "Bo" in ada.inner_text(".felt") and "Cy" in ada.inner_text(".felt")

    spectator = open_page(browser, web_stack, DESKTOP, f"#/watch/{table_id}")
    spectator.wait_for_selector(".felt")
    assert spectator.locator(".hand-card").count() == 0
    for name in ("Ada", "Bo", "Cy"):
        assert name in spectator.inner_text(".felt")

    shots: set[str] = set()
    takers: set[str] = set()  # "Bo takes the trick", seen while a finished trick is held
    reloaded = False
    deadline = time.monotonic() + 120
    while not ada.locator(".overlay.summary").count():
        if time.monotonic() > deadline:
            for number, page in enumerate(players):
                page.screenshot(path=str(ARTIFACTS / f"stuck-{number}.png"))
            raise AssertionError("the hand did not finish")
        for page in players:
            move(page)
            if page is ada:
                takers.update(ada.locator(".taker").all_inner_texts())  # no waiting
            width = page.viewport_size["width"]
            trick = page.locator(".middle:not(.gathering) .in-trick")
            if f"mid-trick-{width}" not in shots and trick.count() >= 2:
                page.wait_for_timeout(300)  # the card just played lands
                if trick.count() >= 2:
                    shot(page, "mid-trick")
                    shots.add(f"mid-trick-{width}")
        if (
            not reloaded
            and bo.locator(".hand-card").count()
            and bo.locator(".hand-card").count() <= 8
        ):
            held = sorted(
                bo.eval_on_selector_all(".hand-card", "cs => cs.map(c => c.dataset.card)")
            )
            bo.reload()
            bo.wait_for_selector(".hand-card")
            after = sorted(
                bo.eval_on_selector_all(".hand-card", "cs => cs.map(c => c.dataset.card)")
            )
            assert after == held  # the same seat and hand after the reload
            reloaded = True
        time.sleep(0.05)
    assert reloaded
    assert takers and all(re.fullmatch(r"\S.* takes? the trick", t) for t in takers), takers
    assert shots == {"mid-trick-1280", "mid-trick-390"}
    assert spectator.locator(".seat").count() == 4
    for page in (ada, bo):
        page.wait_for_selector(".overlay.summary")
        summary = page.inner_text(".overlay.summary")
        assert "Hand 1 is over" in summary and "Ada" in summary and "Bo" in summary
        shot(page, "hand-summary")
    # the hand's points add up to 26 (or 78 after a shot moon)
    points = ada.eval_on_selector_all(
        ".summary td.points", "cs => cs.map(c => Number(c.textContent))"
    )
    assert sum(points) in (26, 78)
    for page in (*players, spectator):
        assert not RAW_CODES.search(visible_text(page)), visible_text(page)
        assert page.errors == []
    assert not RAW_CODES.search(
        " ".join(ada.eval_on_selector_all(".log li", "ls => ls.map(l => l.textContent)"))
    )
    continue_summary(ada)
    ada.wait_for_selector(".overlay.summary", state="detached")
    ada.click("[data-sheet]")
    assert "Score sheet" in ada.inner_text(".overlay.sheet")


def test_a_wizard_round_is_bid_and_played(browser: Any, web_stack: str) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    host(page, "Wyn", "wizard")
    page.wait_for_selector(".felt")
    page.wait_for_selector(".actions button.bid", timeout=20_000)
    assert page.locator(".chip.trump").count() or "turned up" in page.inner_text(".table-bar")
    bids = page.eval_on_selector_all(".actions button.bid", "bs => bs.map(b => b.textContent)")
    assert bids[:2] == ["bid 0", "bid 1"]
    page.locator(".actions button.bid").first.click()
    page.wait_for_selector(".hand-card.legal", timeout=20_000)
    page.locator(".hand-card.legal").first.focus()  # played from the keyboard
    page.keyboard.press("Enter")
    page.wait_for_selector(".overlay.summary", timeout=20_000)
    summary = page.inner_text(".overlay.summary")
    assert "Hand 1 is over" in summary and "Wyn bid 0" in summary
    assert not RAW_CODES.search(visible_text(page))
    assert page.errors == []


def test_a_short_crazy8s_game_ends_with_the_result_by_name(browser: Any, web_stack: str) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "crazy8s")
    page.select_option("#seats", "2")
    page.select_option("[data-option='hand_size']", "5")
    host(page, "Cat", "crazy8s")
    page.wait_for_selector(".felt")
    deadline = time.monotonic() + 90
    while not page.locator(".overlay.game-over").count():
        if time.monotonic() > deadline:
            shot(page, "crazy8s-stuck")
            raise AssertionError("the game did not end")
        if not continue_summary(page):
            move(page)
        time.sleep(0.05)
    result = page.inner_text(".overlay.game-over")
    assert re.search(r"(Cat|Bot 2 \(\w+\)) wins!", result), result
    assert not RAW_CODES.search(visible_text(page))
    shot(page, "game-over")
    page.set_viewport_size(PHONE)
    shot(page, "game-over")
    assert page.errors == []
