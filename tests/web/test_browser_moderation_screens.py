"""The moderation and sessions screens (issue 30) in English and Polish, at 1280x800
and 390x844, scanned with axe-core (no serious or critical violation, every control
44 px at least) and photographed to build/screens/web/: the host form with an
invite-only seat, the waiting room as the host sees it (a stranger to remove, a kept
seat's link), the removal asked again, what the removed player sees, and the
account's sessions."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_browser_accounts import account_form
from tests.web.test_browser_screens import Camera, axe_source, new_page, screens
from tests.web.waiting import wait_until

__all__ = ["axe_source", "screens"]


@pytest.mark.parametrize("language", ["en", "pl"])
def test_moderation_and_sessions_scanned_and_photographed(
    browser: Any, web_stack: str, axe_source: str, screens: Path, language: str
) -> None:
    host = new_page(browser, web_stack, language)
    camera = Camera(host, language, axe_source, screens)
    host.fill("#name", "Ada")
    host.select_option("#game", "crazy8s")
    host.select_option("#seats", "3")
    host.select_option("[data-seat='1']", "person")
    host.select_option("[data-seat='2']", "person")
    host.click("[data-invite='2']")
    host.select_option("[data-option='spectators']", "off")
    host.evaluate("document.querySelector('#seat-setup').scrollIntoView()")
    camera.shoot("moderation-setup")
    host.click("#host")
    wait_until(host, "location.hash.startsWith('#/table/')")
    table_id = host.evaluate("location.hash.split('/')[2]")
    host.wait_for_selector(".seat-invite input")

    stranger = new_page(browser, web_stack, language)
    stranger.fill("#name", "Zed")
    stranger.wait_for_selector(f"[data-join='{table_id}']")
    stranger.click(f"[data-join='{table_id}']")
    stranger.wait_for_selector(".waiting .seat-list")
    host.wait_for_selector("[data-remove='1']")
    camera.shoot("moderation-waiting-room")
    host.click("[data-remove='1']")
    host.wait_for_selector("dialog.confirm-remove[open]")
    camera.shoot("moderation-confirm")
    host.click("dialog.confirm-remove [data-confirm]")
    stranger.wait_for_selector(".removed-note")
    removed = Camera(stranger, language, axe_source, screens)
    removed.shoot("moderation-removed")
    stranger.click("[data-leave]")
    stranger.wait_for_selector(f"[data-join='{table_id}']")
    stranger.click(f"[data-join='{table_id}']")
    stranger.wait_for_selector("#host-form .refusal:not(:empty)")
    removed.scan("moderation-join-refused")

    # the sessions of a named account with two browsers
    name, password = f"Ses{secrets.token_hex(3)}", "a long enough password"
    host.goto(host.url.split("#")[0] + "#/")
    host.wait_for_selector("#account .who")
    account_form(host, "claim", name, password)
    host.wait_for_selector(f"#account strong:text('{name}')")
    account_form(stranger, "signin", name, password)
    stranger.wait_for_selector(f"#account strong:text('{name}')")
    host.click("#account [data-account='sessions']")
    host.wait_for_selector("dialog.sessions[open] [data-revoke]")
    camera.shoot("sessions")
    host.click("dialog.sessions [data-revoke]")
    host.wait_for_selector("dialog.sessions .done:not(:empty)")
    host.click("dialog.sessions [data-close]")
    wait_until(stranger, "document.querySelector('#account .ended') !== null", timeout=40)
    removed.shoot("sessions-signed-out")
    found = {**camera.found, **removed.found}
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    for page in (host, stranger):
        assert page.errors == []
        page.context.close()
