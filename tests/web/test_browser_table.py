"""The browser table in real headless Chromium, against the real processes.

People host, join as friends, start, pass and play a whole Hearts hand by
clicking cards, reload in the middle of the hand and carry on, and watch as
a spectator; a Wizard round is bid and played; a short Crazy 8s game is
played to its end, and the browser verifies its deals from the replay.
Screenshots of the lobby, a trick in the middle, the hand summary and the
game-over table at 1280x800 and 390x844 are written to
test-artifacts/web/ for people to look at.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the browser fixture skips (or, under CI=true, fails) first
    PlaywrightError = Exception  # type: ignore[misc, assignment]

from tests.web.conftest import ARTIFACTS
from tests.web.waiting import wait_until

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: Contract codes that must never reach a person's eyes: "N2", "W4", "TH", "SUIT_HEARTS".
RAW_CODES = re.compile(r"\b(?:[WN][1-4]|T[CDHS]|SUIT_[A-Z]+|ACTION_KIND_[A-Z]+)\b")
HOLD = "?hold=300"
#: Where a person taps a card in a fanned hand: its corner, the part left uncovered.
CORNER = {"x": 8, "y": 24}


def open_page(browser: Any, base: str, size: dict[str, int], where: str = "") -> Any:
    page = browser.new_context(viewport=size).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{base}/{HOLD}{where}")
    return page


def shot(page: Any, name: str) -> None:
    width = page.viewport_size["width"]
    page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"))


def continue_summary(page: Any) -> bool:
    button = page.locator(".overlay.summary [data-continue]")
    if button.count():
        button.first.click()
        return True
    return False


def move(page: Any) -> bool:
    """Makes one move by clicking if this page may act now; True if it did.

    The table redraws as other players move, so a click that meets a redrawn
    card is simply tried again on the next round.
    """
    try:
        return _move(page)
    except PlaywrightError:
        return False


def _move(page: Any) -> bool:
    if page.locator(".overlay").count():
        return False
    send = page.locator("[data-pass-send]")
    if send.count():
        for _ in range(3):
            if send.is_enabled():
                break
            page.locator(".hand-card.legal").first.click(position=CORNER)
        send.click()
        page.wait_for_selector("[data-pass-send]", state="detached", timeout=10_000)
        return True
    suits = page.locator(".actions[data-chooser] button:enabled")
    if suits.count():  # an eight was picked: name a suit
        suits.first.click(timeout=2_000)
        return True
    legal = page.locator(".hand-card.legal")
    if legal.count():
        legal.first.click(timeout=2_000, position=CORNER)
        return True
    buttons = page.locator(".actions button:enabled")
    if buttons.count():
        buttons.first.click(timeout=2_000)
        return True
    return False


def visible_text(page: Any) -> str:
    text: str = page.inner_text("body")
    return text


def spectator_view(base: str, table_id: str) -> dict[str, Any]:
    """The table as a spectator sees it, straight from the gateway (the contract's JSON)."""
    answer = httpx.post(f"{base}/api/PlayService/GetView", json={"tableId": table_id})
    answer.raise_for_status()
    view: dict[str, Any] = answer.json()["view"]
    return view


def summary_rows(page: Any) -> dict[str, dict[str, str]]:
    """The hand summary's table: player name -> {column class: text}."""
    rows: list[dict[str, str]] = page.eval_on_selector_all(
        ".overlay.summary tbody tr",
        """rows => rows.map(r => Object.fromEntries([['name', r.querySelector('th').textContent],
            ...[...r.querySelectorAll('td')].map(c => [c.classList[0], c.textContent])]))""",
    )
    return {row.pop("name"): row for row in rows}


def names(view: dict[str, Any]) -> list[str]:
    """The seats' names as the summary says them (a computer player without its level)."""
    return [re.sub(r" \([^)]*\)$", "", p["playerName"]) for p in view["players"]]


def host(page: Any, name: str, game: str, seats: dict[int, str] | None = None) -> str:
    page.wait_for_selector("#game option", state="attached")
    page.fill("#name", name)
    page.select_option("#game", game)
    for seat, choice in (seats or {}).items():
        page.select_option(f"[data-seat='{seat}']", choice)
    page.click("#host")
    wait_until(page, "location.hash.startsWith('#/table/')")
    table_id: str = page.evaluate("location.hash.split('/')[2]")
    return table_id


def test_friends_host_join_start_and_play_a_hearts_hand(browser: Any, web_stack: str) -> None:
    ada = open_page(browser, web_stack, DESKTOP)
    ada.wait_for_selector("#game option", state="attached")
    catalogue = httpx.post(f"{web_stack}/api/CatalogueService/ListGames", json={}).json()["games"]
    for game in catalogue:  # exactly the catalogue's levels are offered, and a friend
        ada.select_option("#game", game["id"])
        offered = ada.eval_on_selector_all(
            "[data-seat='1'] option", "options => options.map(o => o.value)"
        )
        assert offered == [f"bot:{level}" for level in game["botLevels"]] + ["person"], offered
        ends = game["endRule"]["text"]
        assert ada.inner_text("#end-rule") == f"{ends[0].upper()}{ends[1:]}."
        default = "normal" if "normal" in game["botLevels"] else game["botLevels"][-1]
        assert ada.input_value("[data-seat='1']") == f"bot:{default}"
    ada.select_option("#game", "hearts")
    shot(ada, "lobby")
    table_id = host(ada, "Ada", "hearts", {1: "person", 2: "person"})
    ada.wait_for_selector(".waiting")
    assert "2 of 4 seats taken" in visible_text(ada)
    assert ada.locator("[data-start]").is_disabled()

    # Bo finds the table in the lobby; Cy follows the invitation link.
    bo = open_page(browser, web_stack, PHONE)
    bo.fill("#name", "Bo")
    bo.wait_for_selector(f"[data-join='{table_id}']")
    shot(bo, "lobby")
    bo.click(f"[data-join='{table_id}']", timeout=10_000)
    bo.wait_for_selector(".waiting")
    wait_until(ada, "document.body.innerText.includes('3 of 4 seats taken')")
    shot(ada, "waiting-room")
    shot(bo, "waiting-room")
    cy = open_page(browser, web_stack, DESKTOP, f"#/join/{table_id}")
    cy.fill("#name", "Cy")
    cy.click("#take")
    cy.wait_for_selector(".waiting")
    wait_until(ada, "document.body.innerText.includes('4 of 4 seats taken')")
    ada.click("[data-start]")
    players = [ada, bo, cy]
    for page in players:
        page.wait_for_selector(".felt")
    assert "Bo" in ada.inner_text(".felt") and "Cy" in ada.inner_text(".felt")

    spectator = open_page(browser, web_stack, DESKTOP, f"#/watch/{table_id}")
    spectator.wait_for_selector(".felt")
    assert spectator.locator(".hand-card").count() == 0
    for name in ("Ada", "Bo", "Cy"):
        assert name in spectator.inner_text(".felt")

    shots: set[str] = set()
    takers: set[str] = set()  # "Bo takes the trick", seen while a finished trick is held
    reloaded = False
    deadline = time.monotonic() + 120
    while not ada.locator(".overlay.summary").count():
        if time.monotonic() > deadline:
            for number, page in enumerate(players):
                page.screenshot(path=str(ARTIFACTS / f"stuck-{number}.png"))
            raise AssertionError("the hand did not finish")
        for page in players:
            move(page)
            if page is ada:
                takers.update(ada.locator(".taker").all_inner_texts())  # no waiting
            width = page.viewport_size["width"]
            trick = page.locator(".middle:not(.gathering) .in-trick")
            if f"mid-trick-{width}" not in shots and trick.count() >= 2:
                page.wait_for_timeout(300)  # the card just played lands
                if trick.count() >= 2:
                    shot(page, "mid-trick")
                    shots.add(f"mid-trick-{width}")
        if (
            not reloaded
            and bo.locator(".hand-card").count()
            and bo.locator(".hand-card").count() <= 8
        ):
            held = sorted(
                bo.eval_on_selector_all(".hand-card", "cs => cs.map(c => c.dataset.card)")
            )
            bo.reload()
            bo.wait_for_selector(".hand-card")
            after = sorted(
                bo.eval_on_selector_all(".hand-card", "cs => cs.map(c => c.dataset.card)")
            )
            assert after == held  # the same seat and hand after the reload
            reloaded = True
        time.sleep(0.05)
    assert reloaded
    assert takers and all(re.fullmatch(r"\S.* takes? the trick", t) for t in takers), takers
    assert shots == {"mid-trick-1280", "mid-trick-390"}
    assert spectator.locator(".seat").count() == 4
    for page in (ada, bo):
        page.wait_for_selector(".overlay.summary")
        summary = page.inner_text(".overlay.summary")
        assert "Hand 1 is over" in summary and "Ada" in summary and "Bo" in summary
        shot(page, "hand-summary")
    # the summary is the contract's hand result, by name: points, tricks, points taken
    view = spectator_view(web_stack, table_id)
    last = view["lastHand"]
    assert last["handNumber"] == 1 and sum(last["points"]) in (26, 78)
    rows = summary_rows(ada)
    assert list(rows) == names(view)
    for seat, name in enumerate(names(view)):
        assert int(rows[name]["points"]) == last["points"][seat]
        assert int(rows[name]["tricks"]) == last["tricksTaken"][seat]
        taken = last["hearts"]["pointsTaken"][seat]  # a "Took" column only after a shot moon
        assert int(rows[name].get("taken", rows[name]["points"])) == taken
        assert int(rows[name]["total"]) == last["totals"][seat]
    lines = ada.inner_text(".overlay.summary .result-lines")
    taker = names(view)[last["hearts"]["lastTrick"].get("winner", 0)]
    assert f"{taker} took the last trick" in lines
    assert "Cards were passed left" in lines
    shooter = last["hearts"].get("moonShooter")
    if shooter is None:
        assert "moon" not in lines
    else:
        assert f"{names(view)[shooter]} shot the moon" in lines
    for page in (*players, spectator):
        assert not RAW_CODES.search(visible_text(page)), visible_text(page)
        assert page.errors == []
    assert not RAW_CODES.search(
        " ".join(ada.eval_on_selector_all(".log li", "ls => ls.map(l => l.textContent)"))
    )
    continue_summary(ada)
    ada.wait_for_selector(".overlay.summary", state="detached")
    ada.click("[data-sheet]")
    assert "Score sheet" in ada.inner_text(".overlay.sheet")


def test_a_wizard_round_is_bid_and_played(browser: Any, web_stack: str) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    host(page, "Wyn", "wizard")
    page.wait_for_selector(".felt")
    page.wait_for_selector(".actions button", timeout=20_000)
    if not page.locator(".actions button.bid").count():
        # a wizard was turned up and Wyn deals the first round: the dealer names trump first
        assert "name trump" in page.inner_text("body")
        page.locator(".actions button").first.click()
    page.wait_for_selector(".actions button.bid", timeout=20_000)
    assert page.locator(".chip.trump").count() or "turned up" in page.inner_text(".table-bar")
    bids = page.eval_on_selector_all(".actions button.bid", "bs => bs.map(b => b.textContent)")
    assert bids[:2] == ["bid 0", "bid 1"]
    page.locator(".actions button.bid").first.click()
    page.wait_for_selector(".hand-card.legal", timeout=20_000)
    page.locator(".hand-card.legal").first.focus()  # played from the keyboard
    page.keyboard.press("Enter")
    page.wait_for_selector(".overlay.summary", timeout=20_000)
    summary = page.inner_text(".overlay.summary")
    assert "Hand 1 is over" in summary
    # each bid against the tricks taken, from the contract's hand result
    table_id = page.evaluate("location.hash.split('/')[2]")
    view = spectator_view(web_stack, table_id)
    last = view["lastHand"]
    rows = summary_rows(page)
    for seat, name in enumerate(names(view)):
        bid, took = last["wizard"]["bids"][seat], last["tricksTaken"][seat]
        assert (int(rows[name]["bid"]), int(rows[name]["tricks"])) == (bid, took)
        assert rows[name]["made"] == ("made" if bid == took else f"missed by {abs(bid - took)}")
        assert int(rows[name]["points"]) == last["points"][seat]
    assert rows["Wyn"]["bid"] == "0"  # the first bid offered was clicked
    assert "trump" in page.inner_text(".overlay.summary .result-lines")
    shot(page, "wizard-hand-summary")
    assert not RAW_CODES.search(visible_text(page))
    assert page.errors == []


def test_a_short_crazy8s_game_ends_with_the_result_by_name(browser: Any, web_stack: str) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "crazy8s")
    page.select_option("#seats", "2")
    page.select_option("[data-option='hand_size']", "5")
    table_id = host(page, "Cat", "crazy8s")
    page.wait_for_selector(".felt")
    deadline = time.monotonic() + 90
    checked = 0
    while not page.locator(".overlay.game-over").count():
        if time.monotonic() > deadline:
            shot(page, "crazy8s-stuck")
            raise AssertionError("the game did not end")
        # a summary is continued only once it has been checked: one that appeared between
        # the two looks was clicked away unread in one run (the game then ended unchecked)
        if page.locator(".overlay.summary").count():
            if not checked:
                checked = check_crazy8s_summary(page, web_stack, table_id)
            continue_summary(page)
        else:
            move(page)
        time.sleep(0.05)
    assert checked == 1
    # the browser checked the deals itself, from the replay: each one, seeds included
    page.wait_for_selector(".overlay.game-over .deal-check.verified", timeout=30_000)
    replay = httpx.post(f"{web_stack}/api/ReplayService/GetReplay", json={"tableId": table_id})
    deals = [event for event in replay.json()["events"] if event["type"] == "CardsDealt"]
    check = page.inner_text(".deal-check")
    count = "The deal was" if len(deals) == 1 else f"All {len(deals)} deals were"
    assert f"{count} verified" in check, check
    assert "players' contributions (yours included)" in check, check
    result = page.inner_text(".overlay.game-over")
    assert re.search(r"(Cat|Bot 2) wins!", result), result
    view = spectator_view(web_stack, page.evaluate("location.hash.split('/')[2]"))
    assert view["endReason"] == "END_REASON_ROUNDS_PLAYED"
    rounds = view["endRule"]["rounds"]
    played = "The game's one round was" if rounds == 1 else f"All {rounds} rounds were"
    assert f"{played} played; the lowest total wins." in result, result
    assert result.index(names(view)[view["winners"][0]]) < result.index(played)
    assert not RAW_CODES.search(visible_text(page))
    # issue 32, item 10: the log ends in order: the last plays, the hand's end, the game's end
    lines = page.eval_on_selector_all(".log li", "ls => ls.map((l) => l.textContent)")
    assert lines.index("Hand 1 is over") == 1 and len(lines) > 2, lines
    assert "over" in lines[0].lower(), lines
    shot(page, "game-over")
    page.set_viewport_size(PHONE)
    shot(page, "game-over")
    assert page.errors == []


def check_crazy8s_summary(page: Any, base: str, table_id: str) -> int:
    """The first round's summary says who went out (or that it was blocked) and the cards left."""
    last = spectator_view(base, table_id)["lastHand"]
    assert last["handNumber"] == 1
    rows = summary_rows(page)
    view = spectator_view(base, table_id)
    for seat, name in enumerate(names(view)):
        assert int(rows[name]["left"]) == last["crazy8s"]["cardsLeft"][seat]
        assert int(rows[name]["points"]) == last["points"][seat]
    lines = page.inner_text(".overlay.summary .result-lines")
    if last["crazy8s"]["outcome"] == "CRAZY_EIGHTS_OUTCOME_WENT_OUT":
        assert f"{names(view)[last['crazy8s']['wentOut']]} went out" in lines, lines
    else:
        assert "The round was blocked" in lines, lines
    assert "This deal was sealed before play (commitment " in page.inner_text(".overlay.summary")
    shot(page, "crazy8s-hand-summary")
    return 1


def test_the_summary_says_a_kaiser_set_a_moon_and_a_blocked_round(
    browser: Any, web_stack: str
) -> None:
    """The browser's summary module on results as the contract's JSON carries them (the
    Kaiser set contract, Hearts moon and blocked Crazy 8s round of tests/engine/test_results.py)."""
    page = open_page(browser, web_stack, DESKTOP)
    said = page.evaluate((Path(__file__).parent / "summary_cases.js").read_text())
    assert said["set"] == [
        "Bo bid 10 with clubs trump: set, Bo and Dee took only 0 points",
        "Ada and Cy: 10 points in tricks, +10 to the score",
        "Bo and Dee: 0 points in tricks, -10 to the score",
        # issue 32, item 6: who took the penalty cards, and the two sides' totals
        "Ada and Cy took the 5♥ (+5)",
        "Ada and Cy took the 3♠ (−3)",
        "Ada and Cy 20, Bo and Dee -55",
    ]
    # seen from Bo's seat: the 5♥ by the seat whose trick held it, us/them totals
    assert said["made"][-3:] == [
        "Dee took the 5♥ (+5)",
        "Ada and Cy took the 3♠ (−3)",
        "Us 8, them -3",
    ]
    assert said["end"] == "Bo and Dee fell to −52 or below, so the other side wins."
    assert said["moon"] == [
        "Ada shot the moon: 0 for them, 26 for everyone else",
        "Ada took the Q♠ (13 points)",
        "Ada took the last trick with the A♣ (A♣ K♥ Q♠ 10♦)",
        "No cards were passed",
    ]
    polish = said["pl"]
    assert polish["set"] == [
        "Licytacja Bo: 10, atut trefl, nieugrana; Bo i Dee: tylko 0 punktów",
        "Ada i Cy: 10 punktów w lewach, +10 do wyniku",
        "Bo i Dee: 0 punktów w lewach, -10 do wyniku",
        "5♥ (+5) w lewach: Ada i Cy",
        "3♠ (−3) w lewach: Ada i Cy",
        "Ada i Cy 20, Bo i Dee -55",
    ]
    assert polish["made"][-1] == "My 8, oni -3"
    assert polish["moon"][1] == "Dama pik (13 punktów): Ada"
    assert polish["blocked"] == [
        "Runda zablokowana: nikt nie mógł zagrać ani dobrać",
        "Talię odtworzono z odrzuconych kart 2 razy",
    ]
    assert polish["end"] == "Bo i Dee: −52 lub mniej, więc wygrywa druga para."
    assert said["columns"] == ["tricks", "taken", "points", "total"]
    assert (said["moonRow"]["taken"], said["moonRow"]["points"]) == (26, "0")
    assert said["blocked"] == [
        "The round was blocked: nobody could play or draw",
        "The stock was rebuilt from the discards 2 times",
    ]
    assert said["left"] == [2, 2, 2]
    assert page.errors == []


def test_a_turn_clock_ticks_a_bot_stands_in_and_the_player_comes_back(
    browser: Any, web_stack: str
) -> None:
    """Issue 12: the time left shows on the seat to act; when it runs out the seat says
    "away (bot playing)" and "I'm back" takes it back."""
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    page.fill("#name", "Dee")
    page.select_option("#game", "hearts")  # (the options form is drawn for the game chosen)
    page.select_option("[data-option='turn_seconds']", "3")
    page.select_option("[data-option='away_bot_level']", "easy")
    page.click("#host")
    wait_until(page, "location.hash.startsWith('#/table/')")
    table_id = page.evaluate("location.hash.split('/')[2]")
    assert spectator_view(web_stack, table_id)["players"][0]["playerName"] == "Dee"
    page.wait_for_selector("#prompt .clock")  # the pass: everyone's turn, mine on a clock
    assert re.fullmatch(r"[1-3] s", page.inner_text(".seat.mine .clock b")), page.inner_text(
        ".seat.mine .clock"
    )
    # issue 32, item 7: the chip says what it counts (the turn: this table has no bank)
    assert page.text_content(".seat.mine .clock small") == "turn"
    assert page.text_content("#prompt .clock small") == "turn"
    assert "Time left" not in page.inner_text("#prompt")
    assert 0 < clock_height(page) < 30  # one line
    shot(page, "turn-clock")
    page.wait_for_selector(".seat.mine .away", timeout=15_000)
    assert page.inner_text(".seat.mine .away") == "away (bot playing)"
    assert "a computer player is playing for you" in page.inner_text("#prompt")
    shot(page, "away")
    page.click("[data-back]")
    page.wait_for_selector(".seat.mine .away", state="detached", timeout=10_000)
    view = spectator_view(web_stack, table_id)
    assert not any(player.get("away") for player in view["players"])
    assert page.errors == []


def clock_height(page: Any) -> float:
    """The prompt's clock chip's height, read in one go (the prompt redraws as the table moves)."""
    height: float = page.evaluate(
        "(() => { const chip = document.querySelector('#prompt .clock');"
        " return chip ? chip.getBoundingClientRect().height : 0; })()"
    )
    return height


def test_the_clock_chip_says_turn_and_bank_and_no_clock_says_nothing(
    browser: Any, web_stack: str
) -> None:
    """Issue 32, item 7: with a bank the chip says "turn + bank"; without a clock no
    "Time left" and no chip, on a phone too.

    The table learns its clock options from GetTable while the first views arrive:
    the test holds that answer back, so the chip must wait for it rather than
    guess "turn" (a race a loaded CI run once lost)."""
    page = open_page(browser, web_stack, PHONE)
    held: list[Any] = []
    released = False

    def hold(route: Any) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/LobbyService/GetTable", hold)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "hearts")
    page.select_option("[data-option='turn_seconds']", "120")
    page.select_option("[data-option='bank_seconds']", "60")
    page.click("#host")
    page.wait_for_selector(".seat.mine .turn")
    assert held, "the table asks for its options"
    assert page.locator(".clock").count() == 0  # not yet known what it counts
    released = True
    for route in held:
        route.continue_()
    page.wait_for_selector(".seat.mine .clock")
    assert page.text_content(".seat.mine .clock small") == "turn + bank"
    assert "60 s" in (page.get_attribute(".seat.mine .clock", "title") or "")
    left = int(page.inner_text(".seat.mine .clock b").split()[0])
    assert 120 < left <= 180  # the turn and the bank together, as the label says
    page.wait_for_selector("#prompt .clock")
    shot(page, "turn-and-bank")
    assert 0 < clock_height(page) < 30
    plain = open_page(browser, web_stack, PHONE)
    plain.wait_for_selector("#game option", state="attached")
    plain.select_option("#game", "hearts")
    plain.click("#host")
    plain.wait_for_selector(".hand-card.legal")
    assert plain.locator(".clock").count() == 0
    assert "Time left" not in plain.inner_text("#prompt")
    assert page.errors == [] and plain.errors == []
