"""Every screen in English and in Polish, at 1280x800 and 390x844, scanned with
axe-core and photographed for people to look at.

For each language a person plays against computer players: the lobby, the
setup form (and a game's rules), the waiting room, a trick on the table, a
refusal (a dimmed card tapped), the hand summary of each game (Hearts,
Wizard, Crazy 8s, Kaiser) and a game over. axe-core (the npm package,
installed here with npm from tests/web/axe/package.json when its
node_modules is missing) is injected into each screen: no serious or
critical violation may be found. The pictures go to build/screens/web/
(not committed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_browser_table import CORNER, DESKTOP, HOLD, PHONE, continue_summary, move
from tests.web.waiting import StallGuard, wait_until

AXE = Path(__file__).parent / "axe"
SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "web"
LOCALES = {"en": "en-GB", "pl": "pl-PL"}


@pytest.fixture(scope="module")
def axe_source() -> str:
    script = AXE / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            if os.environ.get("CI") == "true":
                pytest.fail("CI=true needs npm for the axe-core scan", pytrace=False)
            pytest.skip("npm is not installed")
        lock = "ci" if (AXE / "package-lock.json").exists() else "install"
        subprocess.run([npm, lock, "--no-audit", "--no-fund"], cwd=AXE, check=True, timeout=300)
    return script.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def screens() -> Iterator[Path]:
    SCREENS.mkdir(parents=True, exist_ok=True)
    yield SCREENS


# axe over the whole page with every looping animation held at its start, then over
# what those animations move, held halfway (where a pulse peaks). A one-off movement
# (a card landing) is judged where it comes to rest. axe cannot judge text over the
# felt's gradient, so text an animation fades is a finding of its own: at some moment
# it is dimmer than its colours. (An element the page has since replaced has no
# style: it fades nothing.)
SCAN = """async () => {
    const run = async (where) => (await axe.run(where, { resultTypes: ["violations"] }))
        .violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    const moving = document.getAnimations().filter((a) => a.effect && a.effect.target);
    const looping = (a) => a.effect.getComputedTiming().iterations === Infinity;
    moving.filter((a) => !looping(a)).forEach((a) => a.finish());
    const loops = moving.filter(looping);
    const hold = (phase) => loops.forEach((a) => {
        a.pause();
        a.currentTime = phase * a.effect.getComputedTiming().duration;
    });
    const faded = (e) => {
        for (let at = e; at && at.isConnected; at = at.parentElement) {
            if (Number(getComputedStyle(at).opacity || 1) < 1) return true;
        }
        return false;
    };
    const name = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}`;
    const shown = loops.map((a) => a.effect.target)
        .filter((e) => e.isConnected && e.getClientRects().length);
    const found = [];
    for (const phase of [0, 0.5]) {
        hold(phase);
        const dim = shown.filter((e) => e.textContent.trim() && faded(e));
        found.push(...dim.map((e) => `fading text: ${name(e)}`));
        const live = shown.filter((e) => e.isConnected);
        if (!phase) found.push(...await run(document));
        else if (live.length) found.push(...await run({ include: live }));
    }
    loops.forEach((a) => a.play());
    return [...new Set(found)];
}"""


class Camera:
    """Photographs and scans the screens of one page in one language."""

    def __init__(self, page: Any, language: str, axe: str, where: Path) -> None:
        self.page, self.language, self.axe, self.where = page, language, axe, where
        self.found: dict[str, list[str]] = {}

    def scan(self, name: str) -> None:
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.add_script_tag(content=self.axe)
        # held still while scanned: a scan must not pass or fail by when it ran
        result = self.page.evaluate(SCAN)
        if result:
            self.found[name] = result
        # tap targets: every control at least 44 px each way (a hand's cards: tested apart)
        small = self.page.evaluate(
            """() => [...document.querySelectorAll('button, select, input, summary, a[href]')]
                .filter((e) => !e.closest('.hand') && e.offsetParent !== null)
                .map((e) => [e, e.getBoundingClientRect()])
                .filter(([e, r]) => r.width > 0 && (r.height < 44 || r.width < 44))
                .map(([e, r]) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}` +
                    `.${e.className}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""
        )
        if small:
            self.found[f"{name} (tap targets)"] = small

    def shoot(self, name: str, *, scan: bool = True, both: bool = True) -> None:
        sizes = (DESKTOP, PHONE) if both else (self.page.viewport_size,)
        keep = self.page.viewport_size
        for size in sizes:
            if size != self.page.viewport_size:
                self.page.set_viewport_size(size)
                self.page.wait_for_timeout(150)
            path = self.where / f"{name}-{self.language}-{size['width']}.png"
            self.page.screenshot(path=str(path))
            if scan:
                self.scan(f"{name} at {size['width']}")
        if self.page.viewport_size != keep:
            self.page.set_viewport_size(keep)
            self.page.wait_for_timeout(150)


def new_page(browser: Any, base: str, language: str, where: str = "") -> Any:
    # bypass_csp: the scan injects axe-core as an inline script, which the page's
    # Content-Security-Policy (tested on its own in test_csp.py) rightly refuses
    context = browser.new_context(viewport=DESKTOP, locale=LOCALES[language], bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{base}/{HOLD}{where}")
    page.wait_for_selector("#game option", state="attached")
    return page


def setup_table(page: Any, game: str, seats: int | None = None, **options: str) -> None:
    page.select_option("#game", game)
    if seats:
        page.select_option("#seats", str(seats))
    for name, value in options.items():
        page.select_option(f"[data-option='{name}']", value)
    page.click("#host")
    page.wait_for_selector(".felt", timeout=20_000)


def play_to_summary(
    page: Any, camera: Camera | None = None, *, trick: bool = False, refusal: bool = False
) -> None:
    """Moves until the hand summary shows; on the way photographs a trick and a refusal."""
    stall = StallGuard(page)
    while not page.locator(".overlay.summary").count():
        stall.check("the hand did not finish")
        if camera and trick and page.locator(".middle .in-trick").count() >= 3:
            camera.shoot("trick")
            trick = False
        dim = page.locator(".hand-card.dim:not(.picked)")
        if (
            camera
            and refusal
            and page.locator(".hand-card.legal").count()
            and dim.count()
            and not page.locator("[data-pass-send]").count()
        ):
            dim.first.click(position=CORNER, force=True)
            wait_until(
                page, "document.querySelector('.refusal').textContent.length > 0", timeout=10
            )
            camera.shoot("refusal")
            refusal = False
            continue
        move(page)
        time.sleep(0.05)


@pytest.mark.parametrize("language", ["en", "pl"])
def test_every_screen_scanned_and_photographed(
    browser: Any, web_stack: str, axe_source: str, screens: Path, language: str
) -> None:
    page = new_page(browser, web_stack, language)
    camera = Camera(page, language, axe_source, screens)
    camera.shoot("lobby")
    page.select_option("#game", "kaiser")
    camera.scan("setup")
    page.evaluate("document.querySelector('#host-form').scrollIntoView()")
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        page.screenshot(path=str(screens / f"setup-{language}-{size['width']}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.select_option("#game", "hearts")
    page.click("#read-rules")
    page.wait_for_selector(".rules h2")
    camera.shoot("rules-hearts")
    page.click("[data-back]")
    page.wait_for_selector("#game option", state="attached")

    # Hearts: the waiting room (a friend's seat left open), then against computer players
    page.select_option("#game", "hearts")
    page.select_option("[data-seat='1']", "person")
    page.click("#host")
    page.wait_for_selector(".waiting")
    camera.shoot("waiting-room")
    page.click("[data-leave]")
    page.wait_for_selector("#game option", state="attached")
    setup_table(page, "hearts")
    play_to_summary(page, camera, trick=True, refusal=True)
    camera.shoot("summary-hearts")

    for game, seats, options in (
        ("wizard", None, {}),
        ("kaiser", None, {"target": "32"}),
        ("crazy8s", 2, {"hand_size": "5", "rounds": "1"}),
    ):
        page.goto(f"{web_stack}/{HOLD}#/")
        page.wait_for_selector("#game option", state="attached")
        setup_table(page, game, seats, **options)
        play_to_summary(page)
        camera.shoot(f"summary-{game}")
        if game == "crazy8s":  # one round: the summary's button leads to the game over
            continue_summary(page)
            page.wait_for_selector(".overlay.game-over")
            page.wait_for_selector(".overlay.game-over .deal-check:not(.pending)", timeout=30_000)
            camera.shoot("game-over")
    assert camera.found == {}, json.dumps(camera.found, indent=1, ensure_ascii=False)
    assert page.errors == []
