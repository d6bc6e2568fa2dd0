"""No English on the Polish page (issue 31): a computer player's level in the players
lists ("Bot 2 (random)" is the server's data: said "Bot 2 (losowy)"), the header's
account buttons after switching the language (they stayed English until redrawn), and
the name of a table forked from a Polish page. At 390x844, in real headless Chromium;
screenshots go to test-artifacts/web/."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.web.test_browser_accounts import session_cookie
from tests.web.test_browser_home import call, host_against_a_bot, play_seat_zero
from tests.web.test_browser_table import DESKTOP, PHONE, open_page, shot

#: English words that must not show on these Polish screens
ENGLISH = re.compile(
    r"\b(?:random|easy|normal|hard|expert|Claim a name|Sign in|fork of|you|computer)\b"
)


def english_in(text: str) -> list[str]:
    return ENGLISH.findall(text)


def test_polish_screens_say_bot_levels_account_buttons_and_fork_names_in_polish(
    browser: Any,
    web_stack: str,
) -> None:
    page = open_page(browser, web_stack, PHONE)
    page.wait_for_selector("#account .who", state="attached")
    session = session_cookie(page)
    finished = host_against_a_bot(web_stack, session, "random")
    play_seat_zero(web_stack, session, finished)
    waiting = host_against_a_bot(web_stack, session, "random", start=False)

    # the language switched on the page (no reload): the header follows at once
    page.goto(f"{web_stack}/#/games")
    page.wait_for_selector(f"tr[data-table='{finished}']")
    page.select_option("#language", "pl")
    page.wait_for_selector("#account [data-account='claim']:text('Zajmij nazwę')")
    header = page.inner_text("#account")
    assert "Zaloguj się" in header and english_in(header) == []

    # "Your games": the bot's level in Polish
    page.wait_for_selector(f"tr[data-table='{finished}'] ul.players")
    rows = page.inner_text("#game-rows")
    assert "Bot 2 (losowy)" in rows
    assert english_in(rows) == []
    shot(page, "games-pl-words")

    # the waiting table: the seats list, the level of its computer player in Polish
    page.goto(f"{web_stack}/#/table/{waiting}")
    page.wait_for_selector(".seat-list li[data-seat='1']")
    seats = page.inner_text(".seat-list")
    assert "Bot 2 (losowy)" in seats and english_in(seats) == []
    shot(page, "waiting-pl-words")

    # a fork made from the Polish page is named in Polish, in the lobby too
    hand = call(web_stack, session, "ReplayService/GetReplayHand", {"tableId": finished, "hand": 1})
    at = next(s["seq"] for s in hand["steps"] if s["view"].get("phase") == "play")
    answer = httpx.post(
        f"{web_stack}/api/ReplayService/ForkTable",
        json={"tableId": finished, "at": at, "seat": 0},
        headers={"Authorization": f"Bearer {session}", "Accept-Language": "pl"},
    )
    assert answer.status_code == 200, answer.text
    fork = answer.json()["table"]
    assert f"dalsza gra ze stołu {finished}" in fork["name"]
    page.goto(f"{web_stack}/#/")
    row = page.locator(f"li[data-table='{fork['tableId']}']")
    row.wait_for()
    listed = row.inner_text()
    assert "dalsza gra ze stołu" in listed
    # the server's default name of a table hosted without one, in Polish too
    open_row = page.locator(f"li[data-table='{waiting}'] strong")
    assert open_row.inner_text() == "Szalone ósemki: stół gracza Ada"
    assert english_in(listed) == [], listed
    shot(page, "lobby-pl-words")
    page.set_viewport_size(DESKTOP)
    shot(page, "lobby-pl-words")
    page.select_option("#language", "en")
    page.wait_for_selector(f"li[data-table='{waiting}'] strong:text(\"Ada's Crazy 8s table\")")
    assert page.errors == []
