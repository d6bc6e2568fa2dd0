"""The account's sessions in real headless Chromium (issue 30): a named player lists
the account's sessions (how each began, when, this browser marked) and ends the one
of another browser context, which is then signed out (a new guest, told why), and
stays signed out when it loads the page again."""

from __future__ import annotations

import secrets
from typing import Any

from tests.web.test_browser_accounts import account_form
from tests.web.test_browser_moderation import new_page
from tests.web.waiting import wait_until


def test_ending_a_session_signs_that_browser_out(browser: Any, web_stack: str) -> None:
    name, password = f"Sid{secrets.token_hex(3)}", "a long enough password"
    first = new_page(browser, web_stack, "en-GB")
    account_form(first, "claim", name, password)
    first.wait_for_selector(f"#account strong:text('{name}')")
    second = new_page(browser, web_stack, "pl-PL")
    account_form(second, "signin", name, password)
    second.wait_for_selector(f"#account strong:text('{name}')")

    first.click("#account [data-account='sessions']")
    first.wait_for_selector("dialog.sessions[open] li")
    rows = first.locator("dialog.sessions li")
    assert rows.count() == 2
    current = first.locator("dialog.sessions li[data-current]")
    assert current.count() == 1 and "this browser" in current.inner_text()
    assert current.locator("[data-revoke]").count() == 0  # this one ends with Sign out
    other = first.locator("dialog.sessions li:not([data-current])")
    assert "Name and password" in other.inner_text() and "Started" in other.inner_text()
    other.locator("[data-revoke]").click()
    first.wait_for_selector("dialog.sessions .done:not(:empty)")
    assert first.locator("dialog.sessions li").count() == 1
    first.click("dialog.sessions [data-close]")

    # the other browser notices by itself (it checks while shown), signed out, told why
    wait_until(second, "document.querySelector('#account .ended') !== null", timeout=40)
    assert "zakończona z innego urządzenia" in second.inner_text("#account .ended")
    assert name not in second.inner_text("#account")
    second.reload()
    second.wait_for_selector("#account .who")
    assert name not in second.inner_text("#account")  # the device cookie went with it
    assert second.locator("[data-account='claim']").count() == 1
    # the first browser is still signed in
    first.reload()
    first.wait_for_selector(f"#account strong:text('{name}')")
    for page in (first, second):
        assert page.errors == []
        page.context.close()
