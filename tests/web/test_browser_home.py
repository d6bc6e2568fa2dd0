"""A home for players in real headless Chromium (issue 31, points 1 and 3): a guest's
finished and open tables in "Your games" (newest first, with players, result and how it
ended; a row opens #/replay/ID), the leaderboard with its provisional mark and the bot
levels, the ratings beside the names at the table, in English and Polish. Screenshots
at 1280x800 and 390x844 go to test-artifacts/web/."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx

from tests.web.test_browser_accounts import session_cookie
from tests.web.test_browser_table import DESKTOP, PHONE, open_page, shot
from tests.web.waiting import wait_until


def call(base: str, session: str, method: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/api/{method}", json=body, headers={"Authorization": f"Bearer {session}"}
    )
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def host_against_a_bot(base: str, session: str, level: str, *, start: bool = True) -> str:
    hosted = call(
        base,
        session,
        "LobbyService/HostTable",
        {
            "game": "crazy8s",
            "seats": 2,
            "options": {"rounds": "1"},
            "seatSetup": [
                {"kind": "SEAT_KIND_PERSON"},
                {"kind": "SEAT_KIND_BOT", "botLevel": level},
            ],
            "hostPlayerName": "Ada",
            "hostTakesSeat": True,
        },
    )
    table_id = str(hosted["table"]["tableId"])
    if start:
        answer = httpx.post(
            f"{base}/api/LobbyService/StartTable",
            json={"tableId": table_id},
            headers={"X-Parlour-Host-Token": hosted["hostToken"]},
        )
        assert answer.status_code == 200, answer.text
    return table_id


def play_seat_zero(base: str, session: str, table_id: str) -> dict[str, Any]:
    """Seat 0's moves by the session until the game is over (the worker plays the bot)."""
    rng = random.Random(table_id)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        seen = call(base, session, "PlayService/GetView", {"tableId": table_id, "seat": 0})
        view = seen["view"]
        if view.get("isOver"):
            return dict(view)
        if 0 in view.get("toAct", []) and view.get("legalActions"):
            pick = rng.randrange(len(view["legalActions"])) + 1
            body = {
                "tableId": table_id,
                "seat": 0,
                "expectedVersion": seen["version"],
                "legalActionId": pick,
            }
            httpx.post(
                f"{base}/api/PlayService/Act",
                json=body,
                headers={"Authorization": f"Bearer {session}"},
            )
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not end")


def test_your_games_and_the_leaderboard_in_both_languages(
    browser: Any,
    web_stack: str,
) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#account .who")
    session = session_cookie(page)
    games = call(web_stack, session, "CatalogueService/ListGames", {})["games"]
    (crazy8s,) = [game for game in games if game["id"] == "crazy8s"]
    level = crazy8s["botLevels"][0]
    finished = host_against_a_bot(web_stack, session, level)
    final = play_seat_zero(web_stack, session, finished)
    waiting = host_against_a_bot(web_stack, session, level, start=False)
    won = 0 in final.get("winners", [])

    page.click("#my-games")
    page.wait_for_selector(f"tr[data-table='{finished}']")
    rows = page.locator("#game-rows tr")
    assert [rows.nth(n).get_attribute("data-table") for n in range(rows.count())] == [
        waiting,
        finished,
    ]
    done = page.locator(f"tr[data-table='{finished}']")
    assert "Crazy" in done.inner_text()
    assert done.locator(".ending").inner_text() == "played to the end"
    score = next(p.get("score", 0) for p in final["players"] if p.get("seat", 0) == 0)
    assert done.locator(".result").inner_text() == f"{'won' if won else 'lost'} ({score})"
    assert "Ada (you)" in done.locator("ul.players").inner_text()
    open_row = page.locator(f"tr[data-table='{waiting}']")
    assert open_row.locator(".ending").inner_text() == "waiting for players"
    assert open_row.locator(".back-to-table").count() == 1
    shot(page, "home-games")
    page.set_viewport_size(PHONE)
    shot(page, "home-games")
    page.set_viewport_size(DESKTOP)

    # the leaderboard: the guest, provisional after one game; the bot level on request
    page.click("#leaderboards")
    page.wait_for_selector(".board-games a")
    page.click(".board-games a[href='#/leaderboard/crazy8s']")
    me = f"account:{call(web_stack, session, 'AccountService/WhoAmI', {})['account']['accountId']}"
    page.wait_for_selector(f"tr[data-subject='{me}']")
    mine = page.locator(f"tr[data-subject='{me}']")
    assert "a guest" in mine.inner_text()
    assert mine.locator(".rating.provisional").inner_text().endswith("?")
    assert page.locator("tr.bot").count() == 0
    page.check("#with-bots")
    page.wait_for_selector(f"tr[data-subject='bot:crazy8s:{level}']")
    shot(page, "home-leaderboard")
    page.set_viewport_size(PHONE)
    shot(page, "home-leaderboard")
    page.set_viewport_size(DESKTOP)

    # in Polish
    page.select_option("#language", "pl")
    page.wait_for_selector("h2:text('Ranking: ')")
    assert page.inner_text("#my-games") == "Twoje gry"
    page.click("#my-games")
    page.wait_for_selector(f"tr[data-table='{finished}']")
    ending = page.locator(f"tr[data-table='{finished}'] .ending").inner_text()
    assert ending == "rozegrana do końca"
    page.set_viewport_size(PHONE)
    shot(page, "home-games-pl")
    page.set_viewport_size(DESKTOP)
    page.select_option("#language", "en")

    # the ratings beside the names at the table (a spectator's view of the finished game)
    page.goto(f"{web_stack}/#/watch/{finished}")
    page.wait_for_selector(".seat[data-seat='1'] .nameplate .rating")
    plate = page.locator(".seat[data-seat='0'] .nameplate .rating")
    assert plate.inner_text().endswith("?")
    shot(page, "home-table-ratings")

    # each row opens its replay
    page.goto(f"{web_stack}/#/games")
    page.wait_for_selector(f"tr[data-table='{finished}'] a.replay-link")
    page.click(f"tr[data-table='{finished}'] a.replay-link")
    # the viewer opens there, then names its step in the address (#/replay/ID/SEQ)
    wait_until(page, f"location.hash.startsWith('#/replay/{finished}')")
    page.wait_for_selector(".replay-bar")
    assert page.errors == []
