"""Rematch in real headless Chromium (issue 31, point 4): two people (two browser
contexts, two guest accounts) and a bot finish a game; one presses "Play again" on the
game-over panel, the other sees the offer and accepts; the new table starts with both
in their old seats and the bot at its own. Screenshots at 1280x800 and 390x844."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx

from tests.web.test_browser_accounts import session_cookie
from tests.web.test_browser_home import call
from tests.web.test_browser_table import DESKTOP, PHONE, open_page, shot
from tests.web.waiting import wait_until


def finished_game(base: str, ada: str, bea: str, level: str) -> str:
    """Ada (seat 0), a bot (seat 1) and Bea (seat 2) play Crazy 8s to the end."""
    hosted = call(
        base,
        ada,
        "LobbyService/HostTable",
        {
            "game": "crazy8s",
            "seats": 3,
            "options": {"rounds": "1"},
            "seatSetup": [
                {"kind": "SEAT_KIND_PERSON"},
                {"kind": "SEAT_KIND_BOT", "botLevel": level},
                {"kind": "SEAT_KIND_PERSON"},
            ],
            "hostPlayerName": "Ada",
            "hostTakesSeat": True,
        },
    )
    table_id = str(hosted["table"]["tableId"])
    call(base, bea, "LobbyService/JoinTable", {"tableId": table_id, "playerName": "Bea", "seat": 2})
    answer = httpx.post(
        f"{base}/api/LobbyService/StartTable",
        json={"tableId": table_id},
        headers={"X-Parlour-Host-Token": hosted["hostToken"]},
    )
    assert answer.status_code == 200, answer.text
    sessions = {0: ada, 2: bea}
    rng = random.Random(table_id)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        seen = call(base, ada, "PlayService/GetView", {"tableId": table_id, "seat": 0})
        view = seen["view"]
        if view.get("isOver"):
            return table_id
        people = [seat for seat in view.get("toAct", []) if seat in sessions]
        if not people:
            time.sleep(0.05)
            continue
        seat = people[0]
        mine = call(
            base, sessions[seat], "PlayService/GetView", {"tableId": table_id, "seat": seat}
        )
        legal = mine["view"].get("legalActions", [])
        if legal:
            httpx.post(
                f"{base}/api/PlayService/Act",
                json={
                    "tableId": table_id,
                    "seat": seat,
                    "expectedVersion": mine["version"],
                    "legalActionId": rng.randrange(len(legal)) + 1,
                },
                headers={"Authorization": f"Bearer {sessions[seat]}"},
            )
    raise AssertionError("the game did not end")


def test_two_people_accept_a_rematch_and_the_bot_comes_along(
    browser: Any,
    web_stack: str,
) -> None:
    first = open_page(browser, web_stack, DESKTOP)
    second = open_page(browser, web_stack, PHONE)
    for page in (first, second):
        page.wait_for_selector("#account .who", state="attached")
    ada, bea = session_cookie(first), session_cookie(second)
    games = call(web_stack, ada, "CatalogueService/ListGames", {})["games"]
    level = next(game for game in games if game["id"] == "crazy8s")["botLevels"][0]
    ended = finished_game(web_stack, ada, bea, level)

    for page in (first, second):
        page.goto(f"{web_stack}/#/watch/{ended}")
        page.wait_for_selector(".overlay.game-over [data-play-again]")
    shot(first, "rematch-offer")
    first.click(".overlay.game-over [data-play-again]")
    wait_until(first, "location.hash.startsWith('#/table/')")
    rematch = first.evaluate("location.hash.split('/')[2]")
    assert rematch != ended
    # Bea's panel learns of the offer and accepts it
    second.wait_for_selector(".overlay.game-over .rematch p:has-text('Ada wants to play again')")
    shot(second, "rematch-offered")
    second.click(".overlay.game-over [data-play-again]")
    wait_until(second, f"location.hash === '#/table/{rematch}'")

    table = call(web_stack, ada, "LobbyService/GetTable", {"tableId": rematch})["table"]
    assert table["status"] == "TABLE_STATUS_PLAYING"
    assert table["game"] == "crazy8s" and table["seatCount"] == 3
    assert [seat.get("kind") for seat in table["seats"]] == [
        "SEAT_KIND_PERSON",
        "SEAT_KIND_BOT",
        "SEAT_KIND_PERSON",
    ]
    assert table["seats"][1]["botLevel"] == level
    assert all(seat.get("occupied") for seat in table["seats"])
    # both play at the new table, in their own seats
    for page, seat in ((first, 0), (second, 2)):
        page.wait_for_selector(".felt")
        page.wait_for_selector(f".seat.mine[data-seat='{seat}']")
    shot(first, "rematch-playing")
    shot(second, "rematch-playing")
    again = call(web_stack, bea, "HomeService/GetRematch", {"tableId": ended})["rematch"]
    assert again["rematchTableId"] == rematch and again["started"]
    assert again["mySeat"] == 2
    assert first.errors == [] and second.errors == []


def test_a_held_seat_is_declined_from_the_game_over_panel(
    browser: Any,
    web_stack: str,
) -> None:
    """Bea's seat waits for her (a stranger is refused it) until she presses "Not this
    time"; then anyone may take it. In Polish on her phone."""
    first = open_page(browser, web_stack, DESKTOP)
    second = open_page(browser, web_stack, PHONE)
    third = open_page(browser, web_stack, DESKTOP)
    for page in (first, second, third):
        page.wait_for_selector("#account .who", state="attached")
    ada, bea, cyd = session_cookie(first), session_cookie(second), session_cookie(third)
    third.context.close()
    ended = finished_game(web_stack, ada, bea, "random")
    rematch = call(web_stack, ada, "HomeService/PlayAgain", {"tableId": ended})["rematch"]
    rematch_id = rematch["rematchTableId"]
    join = {"tableId": rematch_id, "playerName": "Cyd", "seat": 2}
    refused = httpx.post(
        f"{web_stack}/api/LobbyService/JoinTable",
        json=join,
        headers={"Authorization": f"Bearer {cyd}"},
    )
    assert refused.status_code == 403 and "SEAT_HELD_FOR_REMATCH" in refused.text

    second.select_option("#language", "pl")
    second.goto(f"{web_stack}/#/watch/{ended}")
    second.wait_for_selector(".overlay.game-over .rematch-note")
    assert "czeka na ciebie" in second.inner_text(".overlay.game-over .rematch-note")
    shot(second, "rematch-held-pl")
    second.click(".overlay.game-over [data-decline-rematch]")
    second.wait_for_selector(".overlay.game-over .rematch-note:has-text('Odmówiłeś')")
    assert second.locator("[data-decline-rematch]").count() == 0
    shot(second, "rematch-declined-pl")
    taken = call(web_stack, cyd, "LobbyService/JoinTable", join)
    assert taken.get("seat") == 2
    second.select_option("#language", "en")
    assert first.errors == [] and second.errors == []
