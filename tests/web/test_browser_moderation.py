"""The host's moderation in real headless Chromium (issue 30): the host marks a seat
invite-only and closes the table to spectators at setup; a stranger takes the open
seat, the host removes them (asked twice), and the stranger is told why in Polish
and cannot sit again; an invitation without the seat's code is refused with its
reason; the seat's own invitation link takes the seat; a watcher is refused."""

from __future__ import annotations

from typing import Any

from tests.web.test_browser_table import DESKTOP, HOLD, PHONE
from tests.web.waiting import wait_until


def new_page(browser: Any, base: str, locale: str, where: str = "", size: Any = DESKTOP) -> Any:
    page = browser.new_context(viewport=size, locale=locale).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{base}/{HOLD}{where}")
    page.wait_for_selector("#account .who", state="attached")
    return page


def host_moderated_table(page: Any) -> str:
    """Crazy 8s for three: seat 2 a friend's, seat 3 invite-only, no spectators."""
    page.wait_for_selector("#game option", state="attached")
    page.fill("#name", "Ada")
    page.select_option("#game", "crazy8s")
    page.select_option("#seats", "3")
    page.select_option("[data-seat='1']", "person")
    page.select_option("[data-seat='2']", "person")
    assert page.get_attribute("[data-invite='2']", "aria-pressed") == "false"
    page.click("[data-invite='2']")
    assert page.get_attribute("[data-invite='2']", "aria-pressed") == "true"
    page.select_option("[data-option='spectators']", "off")
    page.click("#host")
    wait_until(page, "location.hash.startsWith('#/table/')")
    page.wait_for_selector(".waiting .seat-invite input")
    return str(page.evaluate("location.hash.split('/')[2]"))


def test_the_host_removes_a_stranger_and_invites_a_friend_to_a_kept_seat(
    browser: Any, web_stack: str
) -> None:
    ada = new_page(browser, web_stack, "en-GB")
    table_id = host_moderated_table(ada)
    # the invite-only seat is marked, and its own link carries its code
    assert "kept for an invited player" in ada.inner_text(".seat-list li[data-seat='2']")
    link = ada.input_value(".seat-invite input")
    assert f"#/join/{table_id}/" in link and len(link.rsplit("/", 1)[1]) >= 20
    assert "Spectators are not allowed" in ada.inner_text(".waiting")

    # a stranger (a Polish browser) takes the seat open to anyone
    obcy = new_page(browser, web_stack, "pl-PL")
    obcy.fill("#name", "Obcy")
    obcy.wait_for_selector(f"[data-join='{table_id}']")
    assert obcy.locator(f"[data-watch='{table_id}']").count() == 0  # no spectators here
    obcy.click(f"[data-join='{table_id}']")
    obcy.wait_for_selector(".waiting .seat-list")
    ada.wait_for_selector(".seat-list li[data-seat='1'] [data-remove='1']")
    assert ada.locator("[data-remove='0']").count() == 0  # not the host's own seat

    # a third browser with the plain invitation: the only free seat needs its code
    cy = new_page(browser, web_stack, "en-GB", f"#/join/{table_id}")
    cy.wait_for_selector("#about:not(:text('…'))")
    assert cy.locator("#watch").count() == 0  # no spectators: no "Just watch"
    cy.fill("#name", "Cy")
    cy.click("#take")
    cy.wait_for_selector(".refusal:not(:empty)")
    assert "kept for an invited player" in cy.inner_text(".refusal")

    # the host removes the stranger: asked first, and Cancel keeps them
    ada.click("[data-remove='1']")
    ada.wait_for_selector("dialog.confirm-remove[open]")
    assert "Obcy" in ada.inner_text("dialog.confirm-remove")
    ada.click("dialog.confirm-remove [data-cancel]")
    assert ada.locator("dialog.confirm-remove").count() == 0
    assert "Obcy" in ada.inner_text(".seat-list li[data-seat='1']")
    ada.click("[data-remove='1']")
    ada.click("dialog.confirm-remove [data-confirm]")
    ada.wait_for_selector(".seat-list li[data-seat='1'].open")

    # the stranger is told, in Polish, and cannot sit at the table again
    obcy.wait_for_selector(".removed-note")
    assert "Gospodarz usunął cię" in obcy.inner_text(".removed-note")
    assert "ty" not in obcy.inner_text(".seat-list li[data-seat='1']").split()
    obcy.click("[data-leave]")
    obcy.wait_for_selector(f"[data-join='{table_id}']")
    obcy.click(f"[data-join='{table_id}']")
    obcy.wait_for_selector("#host-form .refusal:not(:empty)")
    assert "nie możesz już zająć tam miejsca" in obcy.inner_text("#host-form .refusal")
    assert "Obcy" not in ada.inner_text(".seat-list")

    # the seat's own invitation takes the kept seat (a phone)
    bo = new_page(browser, web_stack, "en-GB", link.split(web_stack, 1)[1].lstrip("/"), PHONE)
    bo.fill("#name", "Bo")
    bo.click("#take")
    bo.wait_for_selector(".waiting .seat-list")
    assert "you" in bo.inner_text(".seat-list li[data-seat='2']")
    ada.wait_for_selector(".seat-list li[data-seat='2'].taken")
    assert "Bo" in ada.inner_text(".seat-list li[data-seat='2']")
    assert ada.locator(".seat-invite").count() == 0  # the kept seat is taken: no link left

    # spectators are off: a watcher is refused, with the reason
    cy.goto(f"{web_stack}/{HOLD}#/watch/{table_id}")
    cy.wait_for_selector(".notice")
    assert "allows no spectators" in cy.inner_text(".notice")
    for page in (ada, obcy, cy, bo):
        assert page.errors == []
        page.context.close()
