"""The replay viewer in Chromium: a finished game (computer players, played
fast through the real stack) opened at #/replay/ID, stepped back and
forward, trick by trick, jumped to a hand, played at a pace and paused, its
deals checked; then "Play on from here" forks a position into a new table
and a move is made there. Every view is photographed at 1280x800 and
390x844 in English and Polish (build/screens/web/replay-*) and scanned with
axe-core: no serious or critical violation."""

from __future__ import annotations

import asyncio
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from parlour.client import ParlourClient
from tests.service.harness import play_randomly, seated_table
from tests.web.test_browser_screens import Camera, axe_source, screens  # noqa: F401
from tests.web.test_browser_table import PHONE, move
from tests.web.waiting import StallGuard, wait_until

LOCALES = {"en": "en-GB", "pl": "pl-PL"}


def start_game(base: str, game: str, seats: int, options: dict[str, str]) -> str:
    """A table of computer players, started: their worker plays it to its end."""
    bot = {"kind": "SEAT_KIND_BOT", "botLevel": "random"}
    hosted = httpx.post(
        f"{base}/api/LobbyService/HostTable",
        json={"game": game, "seats": seats, "options": options, "seatSetup": [bot] * seats},
    ).json()
    table_id: str = hosted["table"]["tableId"]
    started = httpx.post(
        f"{base}/api/LobbyService/StartTable",
        json={"tableId": table_id},
        headers={"X-Parlour-Host-Token": hosted["hostToken"]},
    )
    assert started.status_code == 200, started.text
    return table_id


def wait_finished(base: str, table_id: str) -> str:
    """``table_id`` once its game is over."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        table = httpx.post(f"{base}/api/LobbyService/GetTable", json={"tableId": table_id})
        if table.json()["table"]["status"] == "TABLE_STATUS_FINISHED":
            return table_id
        time.sleep(0.3)
    raise AssertionError(f"the computer players did not finish table {table_id}")


def moves_of(base: str, table_id: str, seat: int) -> int:
    """How many moves ``seat`` has made at the table (its public log)."""
    replay = httpx.post(f"{base}/api/ReplayService/GetReplay", json={"tableId": table_id}).json()
    return sum(
        1
        for event in replay["events"]
        if event["type"] == "ActionTaken" and f'"seat": {seat}' in event["payloadJson"]
    )


@pytest.fixture(scope="module")
def game(web_stack: str) -> str:
    """A Wizard game of five hands between three computer players, played to its end."""
    return wait_finished(web_stack, start_game(web_stack, "wizard", 3, {"rounds": "5"}))


def where(page: Any) -> str:
    text: str = page.inner_text(".where")
    return text


def said(page: Any) -> str:
    text: str = page.inner_text("[data-said]")
    return text


@pytest.mark.parametrize("language", ["en", "pl"])
def test_step_through_a_finished_game_and_play_on_from_a_point(
    browser: Any,
    web_stack: str,
    game: str,
    language: str,
    axe_source: str,  # noqa: F811
    screens: Any,  # noqa: F811
) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, locale=LOCALES[language], bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    camera = Camera(page, language, axe_source, screens)
    page.goto(f"{web_stack}/#/replay/{game}")
    page.wait_for_selector(".replay-felt")
    first = where(page)
    assert first.startswith(("Hand 1 of 5", "Rozdanie 1 z 5")), first
    # once the game is over every hand is face up: three seats, each with its card
    assert page.locator(".replay-seat").count() == 3
    assert page.locator(".replay-seat .fan playing-card").count() == 3
    camera.shoot("replay-start")

    # forward and back, move by move
    opening = said(page)
    page.click("[data-forward]")
    wait_until(page, "!document.querySelector('[data-first]').disabled")
    assert said(page) != opening
    page.click("[data-forward]")
    page.click("[data-back]")
    page.click("[data-back]")
    wait_until(page, "document.querySelector('[data-first]').disabled")
    assert said(page) == opening

    # jump to hand 3, then a trick forward: a trick taken, its winner named
    page.select_option("[data-hand]", "3")
    wait_until(page, "/^(Hand 3|Rozdanie 3)/.test(document.querySelector('.where').textContent)")
    assert page.locator(".replay-seat .fan playing-card").count() == 9
    page.click("[data-trick-forward]")
    page.wait_for_selector(".replay-middle .taker")
    assert page.locator(".replay-middle .trick li").count() == 3
    camera.shoot("replay-trick")

    # the end of a hand: its summary, said as at the table
    page.click("[data-last]")
    page.wait_for_selector(".replay-over")
    page.wait_for_selector(".deal-check.verified, .deal-check.failed")
    assert page.locator(".replay-summary").count() == 1
    assert page.locator(".deal-check.verified").count() == 1  # fairdeal.js checked every deal
    camera.shoot("replay-end")

    # play at a pace, then pause: it moved, and stopped
    page.select_option("[data-hand]", "2")
    page.select_option("[data-pace]", "500")
    wait_until(page, "/^(Hand 2|Rozdanie 2)/.test(document.querySelector('.where').textContent)")
    before = where(page)
    page.click("[data-play]")
    wait_until(page, f"document.querySelector('.where').textContent !== {before!r}", timeout=10)
    page.click("[data-play]")
    paused = where(page)
    page.wait_for_timeout(1200)
    assert where(page) == paused

    # a shareable link: the page's own address opens the same step
    link = page.input_value(".share input")
    assert link.endswith(f"#/replay/{game}")
    assert f"#/replay/{game}/" in page.url

    # play on from here: hand 2, a move in, as seat 1
    page.select_option("[data-hand]", "2")
    wait_until(page, "/^(Hand 2|Rozdanie 2)/.test(document.querySelector('.where').textContent)")
    page.click("[data-forward]")
    page.click("[data-forward]")
    page.select_option("#fork-seat", "1")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    camera.shoot("replay-phone", both=False)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("[data-fork]")
    page.wait_for_selector(".felt", timeout=20_000)
    forked = page.url.rsplit("/", 1)[-1]
    assert forked != game and "#/table/" in page.url
    view = httpx.post(f"{web_stack}/api/PlayService/GetView", json={"tableId": forked}).json()
    assert view["view"]["handNumber"] == 2  # the fork goes on from hand 2
    before = moves_of(web_stack, forked, 1)
    # the bots play, and this browser makes a move for seat 1
    stall = StallGuard(page)
    while not move(page):
        stall.check("no move came to the forked table's person seat")
        page.wait_for_timeout(100)
    # the move was sent: it shows in the log within a few polls (a hang is what fails)
    for _ in range(600):
        if moves_of(web_stack, forked, 1) != before:
            break
        time.sleep(0.1)
    assert moves_of(web_stack, forked, 1) != before, "the forked table never took the move"
    assert not errors, errors
    assert not camera.found, camera.found
    context.close()


OTHER_GAMES = {
    "crazy8s": (3, {"rounds": "3"}),
    "kaiser": (4, {"target": "32"}),
    "hearts": (4, {}),
}


def played_out(address: str, game: str, seats: int, options: dict[str, str]) -> str:
    """A table of people, every seat played by the test through the client library with
    random legal moves to the end of the game; its id. (The computer players pace
    each move for people to follow: their Hearts game took most of a minute.)"""

    async def play() -> str:
        client = ParlourClient(address)
        try:
            table = await seated_table(client, game, seats, dict(options))
            await play_randomly(table, random.Random(f"replay viewer {game}"))
            return table.table_id
        finally:
            await client.close()

    # on a thread of its own: Playwright's sync API keeps an event loop on this one
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, play()).result()


@pytest.fixture(scope="module")
def other_games(web_stack: Any) -> dict[str, str]:
    """A finished game of each other kind, its seats played by the test."""
    return {
        game: played_out(web_stack.address, game, seats, options)
        for game, (seats, options) in OTHER_GAMES.items()
    }


@pytest.mark.parametrize("language", ["en", "pl"])
def test_every_game_is_drawn_by_the_viewer(
    browser: Any,
    web_stack: str,
    other_games: dict[str, str],
    language: str,
    axe_source: str,  # noqa: F811
    screens: Any,  # noqa: F811
) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, locale=LOCALES[language], bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    camera = Camera(page, language, axe_source, screens)
    for game, table_id in other_games.items():
        page.goto(f"{web_stack}/#/replay/{table_id}")
        page.wait_for_selector(".replay-felt")
        seats = OTHER_GAMES[game][0]
        assert page.locator(".replay-seat").count() == seats
        # the first step: every seat's whole hand face up
        dealt = page.locator(".replay-seat .fan playing-card").count()
        assert dealt >= seats * 5, dealt
        for _ in range(7):  # a few moves in
            page.click("[data-forward]")
        wait_until(page, "/ 8 /.test(document.querySelector('.where').textContent)")
        if game == "crazy8s":
            assert page.locator(".replay-middle playing-card").count() == 1  # the top card
        else:
            page.click("[data-trick-forward]")
            page.wait_for_selector(".replay-middle .taker")
        camera.shoot(f"replay-{game}")
        page.click("[data-last]")
        page.wait_for_selector(".replay-over .deal-check.verified")
    assert not errors, errors
    assert not camera.found, camera.found
    context.close()
