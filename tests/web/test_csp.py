"""The browser client under the gateway's Content-Security-Policy, in Chromium:
the page loads and plays a whole short game with no violation in the console
(the policy allows no inline script or style, and the client uses none)."""

from __future__ import annotations

import time
from typing import Any

from tests.web.test_browser_table import DESKTOP, continue_summary, host, move, shot

HOLD = "?hold=300"


def test_the_page_plays_a_game_with_no_policy_violation(browser: Any, web_stack: str) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    violations: list[str] = []
    errors: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    answer = page.goto(f"{web_stack}/{HOLD}")
    assert answer is not None
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "crazy8s")
    page.select_option("#seats", "2")
    page.select_option("[data-option='hand_size']", "5")
    host(page, "Dee", "crazy8s")
    page.wait_for_selector(".felt")
    deadline = time.monotonic() + 90
    while not page.locator(".overlay.game-over").count():
        if time.monotonic() > deadline:
            shot(page, "csp-stuck")
            raise AssertionError("the game did not end")
        if not continue_summary(page):
            move(page)
        time.sleep(0.05)
    page.wait_for_selector(".overlay.game-over .deal-check", timeout=30_000)
    assert violations == [] and errors == []
    # and the listener does hear a violation: an inline style attribute is refused
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<i style=\"color:red\"></i>')")
    page.wait_for_timeout(500)
    assert violations and "style-src" in violations[0], violations
