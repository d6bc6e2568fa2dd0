"""Issue 32 in real headless Chromium against the real processes: the page in
English and Polish (chosen from the browser's languages, switched and
remembered, said to the gateway), why a dimmed card cannot be played, a phone
hand that keeps still while cards are picked to pass, the suit picker that
closes when the turn has passed, the trick banner off the cards, the log in
order, focus kept on a picked card, the rules page (Kierki in Polish), the
invitation copied, the last trick peeked, the turn in the tab title, the
four-colour deck and a tall lobby's background.
"""

from __future__ import annotations

import contextlib
import json
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx

from parlour.words import card_name
from tests.web.conftest import ARTIFACTS
from tests.web.test_browser_table import (
    CORNER,
    DESKTOP,
    HOLD,
    PHONE,
    PlaywrightError,
    continue_summary,
    host,
    move,
    shot,
)
from tests.web.waiting import StallGuard, wait_until


def open_page(
    browser: Any, base: str, size: dict[str, int], where: str = "", locale: str = "en-GB"
) -> Any:
    context = browser.new_context(viewport=size, locale=locale)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{base}/{HOLD}{where}")
    return page


def hand_boxes(page: Any) -> dict[str, dict[str, float]]:
    """Where the layout puts each card of the hand, read in one go (the hand may redraw
    between reads; y from the hand's top, so a line above it that changes does not count)."""
    boxes: dict[str, dict[str, float]] = page.evaluate(
        """() => {
            const hand = document.querySelector('.hand');
            return Object.fromEntries([...document.querySelectorAll('.hand-card')].map((c) => {
                const r = c.getBoundingClientRect();
                // where the layout puts it (a card raised by hover or focus is not moved)
                const x = c.offsetLeft, y = c.offsetTop - hand.offsetTop;
                return [c.dataset.card, { x, y, width: r.width, height: r.height }];
            }));
        }"""
    )
    return boxes


def test_the_page_speaks_polish_from_the_browser_and_switches(browser: Any, web_stack: str) -> None:
    page = open_page(browser, web_stack, PHONE, locale="pl-PL")
    asked: list[str] = []
    page.on(
        "request",
        lambda r: asked.append(r.headers.get("accept-language", "")) if "/api/" in r.url else None,
    )
    page.wait_for_selector("#game option", state="attached")
    assert page.evaluate("document.documentElement.lang") == "pl"
    assert page.inner_text(".host h2") == "Załóż stół"
    assert page.input_value("#language") == "pl"
    page.select_option("#game", "hearts")
    assert "Kierki" in page.inner_text("#game")
    assert page.inner_text("#end-rule").startswith("Gra kończy się po rozdaniu")
    page.wait_for_timeout(3500)  # the lobby refreshes its lists: those calls say the language too
    assert asked and all(value == "pl" for value in asked), asked
    shot(page, "lobby-pl")
    # the switch: English now, remembered after a reload
    page.select_option("#language", "en")
    page.wait_for_selector("text=Host a table")
    page.reload()
    page.wait_for_selector("#game option", state="attached")
    assert page.inner_text(".host h2") == "Host a table"
    assert page.evaluate("localStorage.getItem('parlour.lang')") == "en"
    page.select_option("#language", "pl")
    page.wait_for_selector("text=Załóż stół")
    assert page.errors == []


def test_the_gateway_passes_the_language_on_and_hearts_rules_come_in_polish(web_stack: str) -> None:
    url = f"{web_stack}/api/CatalogueService/GetGame"
    polish = httpx.post(url, json={"game": "hearts"}, headers={"Accept-Language": "pl-PL,pl;q=0.9"})
    english = httpx.post(url, json={"game": "hearts"}, headers={"Accept-Language": "en"})
    assert polish.json()["game"]["rulesText"].startswith("Kierki")
    assert english.json()["game"]["rulesText"].startswith("# Hearts (Kierki)")
    # a game with no translation answers its English text; a strange header changes nothing
    kaiser = httpx.post(url, json={"game": "kaiser"}, headers={"Accept-Language": "pl"})
    assert kaiser.json()["game"]["rulesText"].startswith("# Kaiser")
    odd = httpx.post(url, json={"game": "hearts"}, headers={"Accept-Language": "pl<x>"})
    assert odd.status_code == 200 and odd.json()["game"]["rulesText"].startswith("# Hearts")


def test_the_rules_page_from_setup_and_table_in_the_players_language(
    browser: Any, web_stack: str
) -> None:
    page = open_page(browser, web_stack, PHONE, locale="pl-PL")
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "hearts")
    page.click("#read-rules")
    page.wait_for_selector(".rules h2")
    assert page.inner_text(".rules h2") == "Kierki"
    assert "Dama pik" in page.inner_text(".rules") or "damę pik" in page.inner_text(".rules")
    assert page.locator(".rules-note").count() == 0
    shot(page, "rules-hearts-pl")
    page.click("[data-back]")
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "kaiser")
    page.click("#read-rules")
    page.wait_for_selector(".rules h2")
    assert "Kaiser — zasady" in page.inner_text(".rules")  # the translation
    assert page.locator(".rules-note").count() == 0
    assert page.get_attribute(".rules", "lang") != "en"
    shot(page, "rules-kaiser-pl")
    page.click("[data-back]")
    # from the table
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "hearts")
    host(page, "Ola", "hearts")
    page.wait_for_selector(".felt")
    page.click("[data-rules]")
    page.wait_for_selector(".rules h2")
    assert page.inner_text(".rules h2") == "Kierki"
    page.click("[data-back]")
    page.wait_for_selector(".felt")
    assert page.errors == []


def test_a_dimmed_card_says_why_not_and_the_banner_leaves_the_cards_clear(
    browser: Any, web_stack: str
) -> None:
    """Items 3 and 10: a tap on a card nobody listed shows the server's refusal in one
    line; "takes the trick" is said under the felt, over no card; the chips say points."""
    page = open_page(browser, web_stack, DESKTOP)
    host(page, "Ida", "hearts")
    page.wait_for_selector(".felt")
    refused = ""
    tapped = ""
    banner_checked = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (refused and banner_checked):
        # the banner and the trick's cards, read in one go (the felt redraws as cards land)
        boxes = page.evaluate(
            """() => { const box = (e) => { const r = e.getBoundingClientRect();
                return { x: r.x, y: r.y, width: r.width, height: r.height }; };
              const taker = document.querySelector('.taker');
              return taker ? { taker: box(taker),
                cards: [...document.querySelectorAll('.middle .in-trick')].map(box) } : null; }"""
        )
        if boxes and boxes["cards"] and not banner_checked:
            box = boxes["taker"]
            for other in boxes["cards"]:
                apart = (
                    box["y"] >= other["y"] + other["height"]
                    or other["y"] >= box["y"] + box["height"]
                    or box["x"] >= other["x"] + other["width"]
                    or other["x"] >= box["x"] + box["width"]
                )
                assert apart, (box, other)
            banner_checked = True
        dim = page.locator(".hand-card.dim:not(.picked)")
        if (
            not refused
            and page.locator(".hand-card.legal").count()
            and dim.count()
            and not page.locator("[data-pass-send]").count()
        ):
            tapped = dim.first.get_attribute("data-card") or ""
            dim.first.click(position=CORNER, force=True)  # aria-disabled, yet a person may tap it
            wait_until(
                page, "document.querySelector('.refusal').textContent.length > 0", timeout=10
            )
            refused = page.inner_text(".refusal")
            box = page.locator(".refusal").bounding_box()
            assert box is not None and box["height"] < 30, refused  # one line
            shot(page, "refusal")
            continue
        move(page)
        time.sleep(0.05)
    assert refused and banner_checked, (refused, banner_checked)
    # the refusal names the card tapped, as a person writes it ("10♦"), and no seat jargon
    assert card_name(tapped, "en") in refused and "seat" not in refused.lower(), (tapped, refused)
    # the points chips say they are points
    facts = " ".join(page.locator(".facts").all_inner_texts())
    assert "this hand" not in facts or "point" in facts, facts
    assert page.errors == []


def test_the_phone_hand_keeps_still_while_cards_are_picked_to_pass(
    browser: Any, web_stack: str
) -> None:
    """Items 4 and 10: picking a card to pass moves no other card; each card shows at
    least 44 px; keyboard focus stays on the card picked."""
    page = open_page(browser, web_stack, PHONE)
    host(page, "Pia", "hearts")
    page.wait_for_selector("[data-pass-send]")
    page.wait_for_selector(".hand-card.legal")
    cards = page.locator(".hand-card")
    assert cards.count() == 13
    assert page.locator(".hand-row").count() == 2
    boxes = hand_boxes(page)
    rows: dict[float, list[Any]] = {}
    for box in boxes.values():
        rows.setdefault(round(box["y"]), []).append(box)
    for row in rows.values():
        row.sort(key=lambda b: b["x"])
        for left, right in pairwise(row):
            assert right["x"] - left["x"] >= 44, (left, right)  # the part of a card left showing
        assert all(b["height"] >= 44 and b["x"] >= 0 and b["x"] + b["width"] <= 390 for b in row)
    shot(page, "pass-pick")
    first = cards.nth(4).get_attribute("data-card")
    page.locator(f".hand-card[data-card='{first}']").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f".hand-card.picked[data-card='{first}']")
    assert page.evaluate("document.activeElement.dataset.card") == first
    after = hand_boxes(page)
    for code, box in boxes.items():
        if code != first:
            assert (after[code]["x"], after[code]["y"]) == (box["x"], box["y"]), code
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    second = page.evaluate("document.activeElement.dataset.card")
    assert second != first
    page.wait_for_selector(f".hand-card.picked[data-card='{second}']")
    assert page.locator(".pass-tray button.slot").count() == 2
    shot(page, "pass-picked")
    # a picked card tapped again goes back
    page.locator(f".hand-card[data-card='{first}']").click(position=CORNER)
    page.wait_for_selector(f".hand-card.picked[data-card='{first}']", state="detached")
    assert page.errors == []


def test_the_suit_picker_closes_when_the_turn_passes(browser: Any, web_stack: str) -> None:
    """Item 5: an eight's suit picker left open while the clock runs out closes, and a
    suit button is never left on the page doing nothing."""
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "crazy8s")
    page.select_option("#seats", "2")
    page.select_option("[data-option='hand_size']", "9")
    page.select_option("[data-option='rounds']", "5")  # rounds enough for an eight to come
    page.select_option("[data-option='turn_seconds']", "3")
    page.select_option("[data-option='away_bot_level']", "easy")
    page.click("#host")  # (host() would choose the game again, and so reset the options)
    page.wait_for_selector(".felt")
    deadline = time.monotonic() + 120
    closed = False
    while (
        time.monotonic() < deadline
        and not closed
        and not page.locator(".overlay.game-over").count()
    ):
        if continue_summary(page):
            continue
        if page.locator("[data-back]").count():
            page.click("[data-back]")
            continue
        if page.locator(".actions[data-chooser]").count():
            # an eight's picker is open: leave it; the clock runs out, a bot plays the seat,
            # and the picker goes
            shot(page, "suit-picker")
            page.wait_for_selector(".actions[data-chooser]", state="detached", timeout=20_000)
            closed = True
            break
        eights = page.locator(".hand-card.legal[data-card^='8']")
        if eights.count():
            # (the hand may be redrawn under the click: then it is tried again)
            with contextlib.suppress(PlaywrightError):
                eights.first.click(position=CORNER, timeout=2_000)
            continue
        move(page)
        time.sleep(0.05)
    assert closed, "no eight came to hand"
    assert page.locator(".actions[data-chooser]").count() == 0
    assert page.errors == []


def test_invitation_copied_last_trick_peek_title_and_four_colours(
    browser: Any, web_stack: str
) -> None:
    page = open_page(browser, web_stack, DESKTOP)
    table_id = host(page, "Uma", "hearts", {1: "person"})
    page.wait_for_selector(".waiting")
    page.click("[data-copy]")
    wait_until(page, "document.querySelector('.copied').textContent.length > 0")
    assert page.evaluate("navigator.clipboard.readText()").endswith(f"#/join/{table_id}")
    shot(page, "invite-copied")
    friend = open_page(browser, web_stack, DESKTOP, f"#/join/{table_id}")
    friend.click("#take")
    friend.wait_for_selector(".waiting")
    page.wait_for_selector("[data-start]:enabled")
    page.click("[data-start]")
    page.wait_for_selector(".hand-card.legal")
    assert page.title().startswith("Your turn")
    assert int(page.evaluate("document.body.dataset.chimed || 0")) >= 1
    # the four-colour deck: diamonds blue, clubs green
    page.click("#four")
    colours = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.hand playing-card')]
            .map((c) => [c.dataset.suit, getComputedStyle(c).color]))"""
    )
    expected = {
        "C": "rgb(15, 122, 46)",
        "D": "rgb(23, 71, 192)",
        "H": "rgb(200, 16, 46)",
        "S": "rgb(26, 26, 26)",
    }
    assert colours == {suit: expected[suit] for suit in colours}, colours
    page.reload()
    page.wait_for_selector(".hand-card")
    assert page.evaluate("document.body.classList.contains('four-colour')")
    # mute is remembered
    page.click("#mute")
    assert page.evaluate("localStorage.getItem('parlour.muted')") == "1"
    # play on until a trick is done, then peek at it
    deadline = time.monotonic() + 90
    while not page.locator("[data-peek]").count() and time.monotonic() < deadline:
        for who in (page, friend):
            move(who)
        time.sleep(0.05)
    page.click("[data-peek]")
    assert page.locator(".peek playing-card").count() == 4
    shot(page, "last-trick-peek")
    assert page.locator("#announce").text_content()  # moves are read out
    assert page.errors == [] and friend.errors == []


def test_a_tall_lobby_keeps_its_background(browser: Any, web_stack: str) -> None:
    """Item 13: the page's background runs to the bottom of a lobby taller than the window."""
    # (no tables are made for it: the lobby's lists are shared by every test)
    page = open_page(browser, web_stack, PHONE)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "kaiser")  # the longest setup form
    assert page.evaluate("document.documentElement.scrollHeight") > 1.5 * 844
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert (
        page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        == "rgb(7, 23, 14)"
    )
    page.screenshot(path=str(ARTIFACTS / "tall-lobby-390.png"))
    assert page.errors == []


def test_the_kaiser_dealer_is_told_why_there_is_no_pass_and_chips_say_points(
    browser: Any, web_stack: str
) -> None:
    """Items 8 and 10: the forced dealer's prompt says why there is no pass button; the
    Hearts chips say the points taken this hand are points (1 point, 5 points)."""
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    said = page.evaluate((Path(__file__).parent / "prompt_cases.js").read_text())
    assert said["forced"] == (
        "Your turn: make your bid. No pass: the first three players passed, so the dealer must bid."
    )
    assert said["free"] == "Your turn: make your bid."
    assert "1 point this hand" in said["facts"][1] and "5 points this hand" in said["facts"][2]
    assert "this hand" not in said["facts"][0]
    assert said["pl"]["forced"].endswith("więc rozdający musi licytować.")
    assert "1 punkt w rozdaniu" in said["pl"]["facts"][1]
    assert "5 punktów w rozdaniu" in said["pl"]["facts"][2]
    assert page.errors == []


def test_the_table_talk_keeps_the_last_trick_and_the_hand_end_in_order(
    browser: Any, web_stack: str
) -> None:
    """Item 10: at the end of a Hearts hand the log has the last plays, the last trick, then
    "Hand 1 is over", then the next deal, in that order (newest first on the page)."""
    page = open_page(browser, web_stack, DESKTOP)
    host(page, "Lou", "hearts")
    page.wait_for_selector(".felt")
    stall = StallGuard(page)
    while not page.locator(".overlay.summary").count():
        stall.check("the hand did not finish")
        move(page)
        time.sleep(0.05)
    lines = page.eval_on_selector_all(".log li", "ls => ls.map((l) => l.textContent)")
    over = lines.index("Hand 1 is over")
    assert lines[over + 1].endswith(")") and "took the trick (" in lines[over + 1], lines
    assert " played " in lines[over + 2], lines  # the trick's last card, before the trick
    assert all("Hand 1 is over" not in line for line in lines[over + 1 :])
    assert page.errors == []


REFUSAL_CASES = """
async () => {
  const { rpc } = await import("/static/api.js");
  const { CATALOGUES, setLang } = await import("/static/i18n.js");
  const { refusalWords } = await import("/static/words.js");
  // a reason this catalogue knows (added here: the server's codes come with its phrasebook)
  CATALOGUES.en["reason.test_follow"] = "You must follow {suit}: {card} is not {suit}.";
  CATALOGUES.pl["reason.test_follow"] = "Musisz dołożyć do koloru {suit}: {card} to nie {suit}.";
  const refused = async () => {
    try { await rpc("PlayService/Act", {}); } catch (error) { return error; }
  };
  const known = await refused();
  setLang("pl");
  const polish = refusalWords(known, null);
  setLang("en");
  const english = refusalWords(known, null);
  const odd = { reason: "no_such_reason", message: "seat 1 may not play TH" };
  const unknown = refusalWords(odd, null);
  return { polish, english, unknown, reason: known.reason, args: known.args };
}
"""


def test_a_refusal_is_said_from_its_reason_and_args_else_the_message(
    browser: Any, web_stack: str
) -> None:
    """A refusal body with ``reason`` and ``args`` is said through the catalogue in the page's
    language; without a reason the catalogue knows, the service's English message is shown."""
    page = open_page(browser, web_stack, DESKTOP)
    page.wait_for_selector("#game option", state="attached")
    body = {
        "code": "FAILED_PRECONDITION",
        "message": "must follow suit",
        "reason": "test_follow",
        "args": {"suit": "clubs", "card": "2D"},
    }
    page.route(
        "**/api/PlayService/Act",
        lambda route: route.fulfill(
            status=409, content_type="application/json", body=json.dumps(body)
        ),
    )
    said = page.evaluate(REFUSAL_CASES)
    assert (said["reason"], said["args"]) == ("test_follow", {"suit": "clubs", "card": "2D"})
    assert said["english"] == "You must follow clubs: 2♦ is not clubs."
    assert said["polish"] == "Musisz dołożyć do koloru clubs: 2♦ to nie clubs."
    assert said["unknown"] == "Seat 2 may not play 10♥"  # the message, cards and seats as said
    assert page.errors == []


LONG_HAND = """
async () => {
  const { TableScreen } = await import("/static/table.js");
  const screen = Object.create(TableScreen.prototype);
  Object.assign(screen, { selected: [], queue: [], log: [] });
  const hand = ["2C", "3C", "4C", "5C", "6C", "7C", "9C", "TC", "JC", "QC", "KC", "AC",
    "2D", "3D", "4D", "5D", "6D", "7D", "9D", "TD"];
  const view = { game: "crazy8s", seat: 0, phase: "play", hand, legalActions: [], players: [] };
  const row = screen.hand(view);
  document.body.replaceChildren(row);
  const rows = [...row.querySelectorAll(".hand-row")].map((r) =>
    [...r.querySelectorAll(".hand-card")].map((c) => c.getBoundingClientRect())
      .map((b) => [b.x, b.width]));
  return { rows, width: window.innerWidth };
}
"""


def test_a_long_hand_goes_in_rows_with_44_px_of_each_card(browser: Any, web_stack: str) -> None:
    """Item 4: twenty cards (a Crazy 8s hand after draws) on a phone: rows of at most
    seven, every card showing at least 44 px, none off the screen."""
    page = open_page(browser, web_stack, PHONE)
    page.wait_for_selector("#game option", state="attached")
    said = page.evaluate(LONG_HAND)
    assert [len(row) for row in said["rows"]] == [7, 7, 6]
    for row in said["rows"]:
        for (x, _), (next_x, _) in pairwise(row):
            assert next_x - x >= 44
        assert row[0][0] >= 0 and row[-1][0] + row[-1][1] <= said["width"]
    assert page.errors == []
