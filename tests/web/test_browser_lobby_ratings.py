"""Ratings beside the names in the lobby, in real headless Chromium (issue 31, point 3):
an open table's seated players each with their ordinal and the provisional mark, asked
for in one HomeService.GetTablesRatings call per change of the list (never one call per
table), in English and Polish (a bot by its level in words, never the server's English
name). Screenshots at 1280x800 and 390x844 in both languages go to test-artifacts/web/."""

from __future__ import annotations

import re
from typing import Any

# its own stack (the fixture defined again here): it counts the ratings calls the lobby
# makes, which other tests' tables in the shared stack would add to
from tests.web.conftest import web_stack  # noqa: F401
from tests.web.test_browser_accounts import session_cookie
from tests.web.test_browser_home import call, host_against_a_bot, play_seat_zero
from tests.web.test_browser_table import DESKTOP, PHONE, open_page, shot

ENGLISH_LEVELS = ("random", "easy", "normal", "hard", "expert")


def test_the_lobby_shows_each_seated_players_rating_in_one_call(
    browser: Any,
    web_stack: str,  # noqa: F811
) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#account .who")
    session = session_cookie(page)
    # Ada (this browser's guest) and the random bot, rated once each
    play_seat_zero(web_stack, session, host_against_a_bot(web_stack, session, "random"))
    waiting = host_against_a_bot(web_stack, session, "random", start=False)
    # another guest, never rated, at a table of their own
    other = open_page(browser, web_stack, DESKTOP)
    other.wait_for_selector("#account .who")
    stranger = session_cookie(other)
    unrated = call(
        web_stack,
        stranger,
        "LobbyService/HostTable",
        {"game": "crazy8s", "seats": 3, "hostPlayerName": "Cyd", "hostTakesSeat": True},
    )["table"]["tableId"]
    other.context.close()

    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url.rsplit("/api/", 1)[-1]))
    page.goto(f"{web_stack}/#/")
    row = page.locator(f"li[data-table='{waiting}']")
    row.locator(".lobby-player .rating").nth(1).wait_for()
    players = row.locator(".lobby-player")
    assert players.count() == 2
    assert players.nth(0).inner_text().startswith("Ada ")
    assert players.nth(1).inner_text().startswith("computer (random) ")
    for n in range(2):
        badge = players.nth(n).locator(".rating.provisional")
        assert badge.inner_text().endswith("?")
        # Ada is new; the random bot's rating is shared by every test of the session
        expected = r"only 1 game\b" if n == 0 else r"only \d+ games?\b"
        assert re.search(expected, badge.get_attribute("title") or ""), n
    cyd = page.locator(f"li[data-table='{unrated}'] .lobby-player")
    assert cyd.inner_text() == "Cyd" and cyd.locator(".rating").count() == 0
    shot(page, "lobby-ratings")
    page.set_viewport_size(PHONE)
    shot(page, "lobby-ratings")

    # three more refreshes of the lists, and nobody sat down: no more ratings calls
    while calls.count("LobbyService/ListTables") < 8:
        page.wait_for_timeout(250)
    assert calls.count("HomeService/GetTablesRatings") == 1
    assert "HomeService/GetTableRatings" not in calls

    # in Polish: the bot by its level in Polish, the badge's title too
    page.select_option("#language", "pl")
    row.locator(".lobby-player .rating").nth(1).wait_for()
    text = row.inner_text()
    assert "komputer (losowy)" in text
    assert not any(level in text.split() for level in ENGLISH_LEVELS)
    assert "wstępny" in (row.locator(".rating").first.get_attribute("title") or "")
    shot(page, "lobby-ratings-pl")
    page.set_viewport_size(DESKTOP)
    shot(page, "lobby-ratings-pl")
    page.select_option("#language", "en")
    assert page.errors == []
