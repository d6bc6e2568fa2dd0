"""Accounts in real headless Chromium (issue 30): a guest plays, claims a name, signs in
from a second browser context and resumes the same seat there; signing out revokes the
session. Screenshots of the header and the form go to test-artifacts/web/."""

from __future__ import annotations

import secrets
import time
from typing import Any

import httpx

from tests.web.test_browser_table import DESKTOP, PHONE, host, move, open_page, shot
from tests.web.waiting import StallGuard, wait_until


def account_form(page: Any, button: str, name: str, password: str) -> None:
    page.click(f"#account [data-account='{button}']")
    page.wait_for_selector("dialog.account-form[open]")
    page.fill("dialog.account-form input[name='name']", name)
    page.fill("dialog.account-form input[name='password']", password)
    page.click("dialog.account-form button[type='submit']")


def play_until_moved(page: Any, moves: int, seconds: float = 90) -> None:
    """Make ``moves`` moves by clicking, as this page's seat gets its turns."""
    made, stall = 0, StallGuard(page, seconds)
    while made < moves:
        stall.check("the seat never got its turn")
        if page.locator(".overlay.summary [data-continue]").count():
            page.locator(".overlay.summary [data-continue]").first.click()
        elif move(page):
            made += 1
        time.sleep(0.1)


def session_cookie(page: Any) -> str:
    for cookie in page.context.cookies():
        if cookie["name"] == "parlour_session":
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            return str(cookie["value"])
    raise AssertionError("no session cookie")


def test_a_guest_claims_a_name_and_resumes_the_seat_in_another_browser(
    browser: Any, web_stack: str
) -> None:
    name, password = f"Ada{secrets.token_hex(3)}", "analytical engine"
    first = open_page(browser, web_stack, DESKTOP)
    first.wait_for_selector("#account .who")
    assert "guest" in first.inner_text("#account")
    # the page's script holds no session: the cookie is HttpOnly, localStorage has none
    assert "parlour_session" not in first.evaluate("document.cookie")
    first.wait_for_selector("#game option", state="attached")
    first.select_option("#game", "crazy8s")
    first.select_option("#seats", "2")
    first.select_option("[data-option='hand_size']", "7")
    table_id = host(first, "Guest", "crazy8s")
    first.wait_for_selector(".felt")
    play_until_moved(first, 1)
    account_form(first, "claim", name, password)
    first.wait_for_selector(f"#account strong:text('{name}')")
    shot(first, "account-signed-in")
    session = session_cookie(first)
    stored = first.evaluate("JSON.stringify(Object.assign({}, localStorage))")
    assert session not in stored

    second = open_page(browser, web_stack, DESKTOP)
    second.wait_for_selector("#account .who")
    assert "guest" in second.inner_text("#account")
    account_form(second, "signin", name, "not the password")
    second.wait_for_selector("dialog.account-form .refusal:not(:empty)")
    assert (
        "no account has that name and password"
        in second.inner_text(".account-form .refusal").lower()
    )
    shot(second, "account-sign-in-refused")
    second.fill("dialog.account-form input[name='password']", password)
    second.click("dialog.account-form button[type='submit']")
    second.wait_for_selector(f"#account strong:text('{name}')")
    # the account's seat is listed in this browser too, and opens with the session alone
    second.wait_for_selector(f"[data-rejoin='{table_id}']")
    second.locator(f"[data-rejoin='{table_id}']").first.click()
    second.wait_for_selector(".felt")
    second.wait_for_selector(".hand-card")
    play_until_moved(second, 1)
    second.set_viewport_size(PHONE)
    shot(second, "account-resumed")
    second.set_viewport_size(DESKTOP)

    old = session_cookie(second)
    second.click("#account [data-account='signout']")
    wait_until(second, "document.querySelector('#account').innerText.includes('guest')")
    dead = httpx.post(
        f"{web_stack}/api/PlayService/GetView",
        json={"tableId": table_id, "seat": 0},
        headers={"Authorization": f"Bearer {old}"},
    )
    assert dead.status_code == 401  # revoked, not only forgotten by the browser
    # the first browser's own session still plays the seat
    alive = httpx.post(
        f"{web_stack}/api/PlayService/GetView",
        json={"tableId": table_id, "seat": 0},
        headers={"Authorization": f"Bearer {session}"},
    )
    assert alive.status_code == 200, alive.text
    assert first.errors == [] and second.errors == []
