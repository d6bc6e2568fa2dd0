"""The expert's look in the replay viewer (issue 35), in Chromium.

A Wizard game with one person (this test, through the gateway) and two
computer players is played to its end; its replay is opened and the expert
asked for. The test then does a worker's part (BotService.ClaimAnalysis and
SubmitAnalysis with the stack's worker token), judging every decision by a
fixed rule so the page can be checked against it. The viewer must show the
analysis done, the person's summary, a biggest mistake that jumps to its move,
the note beside that move (the move played and the expert's, their expected
points, the points given away, the mark) and the expert's card outlined in the
seat's hand; a move the expert agrees with says so. Polish too, with its
numbers. A game still in play has no button, and the service refuses it.
Each view is photographed at 1280x900 and 390x844 in both languages
(test-artifacts/web/analysis-*) and scanned with axe-core.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from parlour.v1 import bots_pb2, bots_pb2_grpc, common_pb2
from tests.web.conftest import ARTIFACTS, WORKER_TOKEN
from tests.web.test_browser_screens import Camera, axe_source  # noqa: F401
from tests.web.waiting import wait_until

LOCALES = {"en": "en-GB", "pl": "pl-PL"}
SIZES = ({"width": 1280, "height": 900}, {"width": 390, "height": 844})
#: the cost over which the test's judgements are marked as mistakes
THRESHOLD = 3.0


def host_with_a_person(base: str) -> tuple[str, str]:
    """A started Wizard table: seat 0 this test's person, two computer players."""
    bot = {"kind": "SEAT_KIND_BOT", "botLevel": "random"}
    hosted = httpx.post(
        f"{base}/api/LobbyService/HostTable",
        json={
            "game": "wizard",
            "seats": 3,
            "options": {"rounds": "5"},
            "seatSetup": [{"kind": "SEAT_KIND_PERSON"}, bot, bot],
            "hostPlayerName": "Ada",
            "hostTakesSeat": True,
        },
    )
    assert hosted.status_code == 200, hosted.text
    table_id: str = hosted.json()["table"]["tableId"]
    started = httpx.post(
        f"{base}/api/LobbyService/StartTable",
        json={"tableId": table_id},
        headers={"X-Parlour-Host-Token": hosted.json()["hostToken"]},
    )
    assert started.status_code == 200, started.text
    return table_id, hosted.json()["seatToken"]


def play_to_the_end(base: str, table_id: str, token: str) -> None:
    """Seat 0's moves, chosen at random, until the game is over (the bots play theirs)."""
    rng = random.Random(35)
    headers = {"X-Parlour-Seat-Token": token}
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        seen = httpx.post(
            f"{base}/api/PlayService/GetView",
            json={"tableId": table_id, "seat": 0},
            headers=headers,
        ).json()
        view = seen["view"]
        if view.get("isOver"):
            return
        if 0 in view.get("toAct", []):
            pick = rng.choice(view["legalActions"])["id"]
            httpx.post(
                f"{base}/api/PlayService/Act",
                json={
                    "tableId": table_id,
                    "seat": 0,
                    "legalActionId": pick,
                    "expectedVersion": seen["version"],
                },
                headers=headers,
            )
        else:
            time.sleep(0.05)
    raise AssertionError(f"table {table_id} did not finish")


def judgement(decision: bots_pb2.AnalysisDecision, rank: int) -> bots_pb2.DecisionJudgement:
    """The test's expert: where the person played a card and had another, it prefers the
    first other card, and the move gave away 3.5 points and a half more for each such
    play before it (so the later plays are the costlier); elsewhere it agrees."""
    played = decision.played_legal_action_id
    legal = decision.view.legal_actions
    plays = [a.id for a in legal if a.action.kind == common_pb2.ACTION_KIND_PLAY]
    others = [id_ for id_ in plays if id_ != played]
    is_play = played in plays
    best, cost = (others[0], 3.5 + 0.5 * rank) if others and is_play else (played, 0.0)
    return bots_pb2.DecisionJudgement(
        seq=decision.seq,
        best_legal_action_id=best,
        played_points=20.0 - cost,
        played_low=17.0 - cost,
        played_high=23.0 - cost,
        played_playouts=40,
        best_points=20.0,
        best_low=17.0,
        best_high=23.0,
        best_playouts=40,
        cost=cost,
        cost_low=max(0.0, cost - 1.0),
        cost_high=cost + 1.0,
        marked=cost > THRESHOLD,
    )


def act_as_the_worker(
    address: str, table_id: str, error: str = ""
) -> list[bots_pb2.DecisionJudgement]:
    """Claim the table's analysis job and submit it judged (or failed with ``error``),
    as an AI worker would."""
    metadata = (("x-parlour-worker-token", WORKER_TOKEN),)
    with grpc.insecure_channel(address) as channel:
        bots = bots_pb2_grpc.BotServiceStub(channel)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            job = bots.ClaimAnalysis(
                bots_pb2.ClaimAnalysisRequest(worker_id="browser-test", wait_seconds=1),
                metadata=metadata,
                timeout=10,
            )
            if job.claimed:
                break
        assert job.claimed and job.table_id == table_id, "no analysis job came"
        judged: list[bots_pb2.DecisionJudgement] = []
        plays = 0
        for decision in [] if error else job.decisions:
            judged.append(judgement(decision, plays))
            plays += judged[-1].cost > 0
        done = bots.SubmitAnalysis(
            bots_pb2.SubmitAnalysisRequest(
                worker_id="browser-test",
                table_id=table_id,
                decisions=judged,
                error=error,
                budget=40,
                threshold=THRESHOLD,
                higher_is_better=True,
            ),
            metadata=metadata,
            timeout=10,
        )
        assert done.accepted
    return judged


@pytest.fixture(scope="module")
def finished(web_stack: str) -> str:
    table_id, token = host_with_a_person(web_stack)
    play_to_the_end(web_stack, table_id, token)
    return table_id


def photograph(page: Any, camera: Camera, name: str) -> None:
    """The whole page at desktop and phone width (test-artifacts/web), each scanned."""
    keep = page.viewport_size
    for size in SIZES:
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        where = ARTIFACTS / f"{name}-{camera.language}-{size['width']}.png"
        page.screenshot(path=str(where), full_page=True)
        camera.scan(f"{name} at {size['width']}")
    page.set_viewport_size(keep)
    page.wait_for_timeout(150)


def open_page(browser: Any, language: str) -> tuple[Any, Any, list[str]]:
    # bypass_csp: the scan injects axe-core inline (test_csp.py tests the policy itself)
    context = browser.new_context(viewport=SIZES[0], locale=LOCALES[language], bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def test_the_expert_looks_over_a_finished_game(
    browser: Any,
    web_stack: Any,
    finished: str,
    axe_source: str,  # noqa: F811
) -> None:
    context, page, errors = open_page(browser, "en")
    camera = Camera(page, "en", axe_source, ARTIFACTS)
    page.goto(f"{web_stack}/#/replay/{finished}")
    page.wait_for_selector("[data-expert-ask]")
    assert "The expert's look" in page.inner_text(".replay-expert")
    photograph(page, camera, "analysis-ask")

    page.click("[data-expert-ask]")
    page.wait_for_selector(".replay-expert .expert-state[role=status]")
    state = page.inner_text(".replay-expert .expert-state")
    assert state.startswith(("Asked for", "The expert is looking", "Asking")), state
    # a worker that fails: the page says why, and asking again queues it afresh
    act_as_the_worker(web_stack.address, finished, error="the expert's machine went away")
    page.wait_for_selector(".replay-expert .expert-state.failed", timeout=30_000)
    failed = page.inner_text(".replay-expert .expert-state.failed")
    assert "could not look over" in failed and "the expert's machine went away" in failed
    photograph(page, camera, "analysis-failed")
    page.click("[data-expert-ask]")
    wait_until(page, "!document.querySelector('.replay-expert .expert-state.failed')")
    judged = act_as_the_worker(web_stack.address, finished)
    # the page asks again by itself every two seconds: it finds the analysis done
    page.wait_for_selector(".expert-summary", timeout=30_000)
    summary = page.inner_text(".expert-summary")
    given = sum(j.cost for j in judged)
    marked = sum(j.marked for j in judged)
    row = page.inner_text(".expert-summary tbody tr")
    assert row.split("\t")[:4] == ["Ada", str(len(judged)), f"{given:.1f}", str(marked)], row
    assert "more points are better" in page.inner_text(".replay-expert")
    costliest = max(judged, key=lambda j: (j.cost, -j.seq))
    assert costliest.cost > THRESHOLD, summary
    photograph(page, camera, "analysis-summary")

    # a biggest mistake: the viewer goes to that move, the note beside it
    jumps = page.locator("[data-expert-jump]")
    assert 1 <= jumps.count() <= 3
    assert jumps.first.get_attribute("data-expert-jump") == str(costliest.seq)
    jumps.first.click()
    wait_until(page, f"location.hash.endsWith('/{costliest.seq}')")
    page.wait_for_selector(".expert-note.marked")
    note = page.inner_text(".expert-note")
    assert "✗ Mistake" in note and "The expert's choice" in note and "Ada's move" in note
    c, p = costliest.cost, 20.0 - costliest.cost
    assert f"{c:.1f} points ({c - 1:.1f} to {c + 1:.1f})" in note, note
    assert f"{p:.1f} expected ({p - 3:.1f} to {p + 3:.1f})" in note
    assert "20.0 expected (17.0 to 23.0)" in note
    # the expert's card, outlined and labelled in Ada's hand
    analysis = httpx.post(
        f"{web_stack}/api/AnalysisService/GetAnalysis", json={"tableId": finished}
    ).json()["analysis"]
    decision = next(d for d in analysis["decisions"] if int(d["seq"]) == costliest.seq)
    best_card = decision["best"]["action"]["card"]
    best = page.locator(".replay-seat[data-seat='0'] .expert-best")
    assert best.count() == 1
    assert best.locator("playing-card").get_attribute("code") == best_card
    assert best.locator("> small").inner_text().strip() == "expert"
    photograph(page, camera, "analysis-mistake")

    # a move the expert agrees with says so, and marks no card
    agreed = next(j for j in judged if j.cost == 0)
    page.goto(f"{web_stack}/#/replay/{finished}/{agreed.seq}")
    page.reload()
    page.wait_for_selector(".expert-note .expert-agrees")
    assert "The expert agrees" in page.inner_text(".expert-note")
    assert page.locator(".expert-best").count() == 0
    assert not errors, errors
    assert not camera.found, camera.found
    context.close()

    # the same in Polish, its numbers with a decimal comma
    context, page, errors = open_page(browser, "pl")
    camera = Camera(page, "pl", axe_source, ARTIFACTS)
    page.goto(f"{web_stack}/#/replay/{finished}")
    page.wait_for_selector(".expert-summary")
    assert "Okiem eksperta" in page.inner_text(".replay-expert")
    assert f"{given:.1f}".replace(".", ",") in page.inner_text(".expert-summary")
    photograph(page, camera, "analysis-summary")
    page.locator("[data-expert-jump]").first.click()
    page.wait_for_selector(".expert-note.marked")
    note = page.inner_text(".expert-note")
    assert "✗ Błąd" in note and "Wybór eksperta" in note
    assert f"{c:.1f} pkt (od {c - 1:.1f} do {c + 1:.1f})".replace(".", ",") in note, note
    assert page.inner_text(".expert-best > small").strip() == "ekspert"
    # the moves in the server's words, asked for in the page's language
    assert page.inner_text(".expert-note dd strong").startswith("zagraj ")
    photograph(page, camera, "analysis-mistake")
    # a switch of language reads the moves' words again, in it
    page.select_option("#language", "en")
    wait_until(page, "/^play /.test(document.querySelector('.expert-note dd strong').textContent)")
    assert "The expert's choice" in page.inner_text(".expert-note")
    assert not errors, errors
    assert not camera.found, camera.found
    context.close()

    # under the page's own Content-Security-Policy (no inline style or script): drawn whole
    context = browser.new_context(viewport=SIZES[0], locale=LOCALES["en"])
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(f"{web_stack}/#/replay/{finished}/{costliest.seq}")
    page.wait_for_selector(".expert-note.marked")
    page.wait_for_selector(".replay-seat .expert-best")
    assert page.locator(".expert-summary").count() == 1
    assert not violations, violations
    context.close()


def test_a_game_in_play_has_no_expert_to_ask(browser: Any, web_stack: str) -> None:
    table_id, _ = host_with_a_person(web_stack)  # waits for its person's move
    refused = httpx.post(
        f"{web_stack}/api/AnalysisService/RequestAnalysis", json={"tableId": table_id}
    )
    assert refused.status_code == 409, refused.text
    assert refused.json()["reason"] == "ANALYSIS_GAME_NOT_OVER"
    context, page, errors = open_page(browser, "en")
    page.goto(f"{web_stack}/#/replay/{table_id}")
    page.wait_for_selector(".replay-expert")
    assert page.locator("[data-expert-ask]").count() == 0
    assert "Once the game is over" in page.inner_text(".replay-expert")
    assert not errors, errors
    context.close()


def test_the_expert_module_on_a_hearts_pass_and_penalty_points(
    browser: Any, web_stack: str
) -> None:
    """analysis.js on an analysis as the contract's JSON carries it: a Hearts pass's
    three cards to draw, penalty points (fewer is better), a move the expert agrees with,
    the numbers in each language."""
    context, page, errors = open_page(browser, "en")
    page.goto(f"{web_stack}/")
    page.wait_for_selector("#language")
    said = page.evaluate((Path(__file__).parent / "analysis_cases.js").read_text())
    en, pl = said["en"], said["pl"]
    assert en["passCards"] == ["QS", "KH", "2C"] and en["passSeat"] == 2
    assert not en["passSame"] and en["playSame"] and en["unjudged"] is None
    assert said["bid"] == []  # a bid is said in words, no card drawn
    assert "✗ Mistake" in en["passNote"] and "Cy's move" in en["passNote"]
    assert "give Q♠ K♥ 2♣" in en["passNote"] or "give QS KH 2C" in en["passNote"]
    assert "13.3 points (12.3 to 14.3)" in en["passNote"], en["passNote"]
    assert "fewer is better" in en["passNote"] and "fewer is better" in en["panel"]
    assert "The expert agrees" in en["playNote"] and "Mistake" not in en["playNote"]
    assert "Cy's biggest mistakes" in en["panel"] and "13.3" in en["panel"]
    assert pl["points"] == "13,3" and "13,3 pkt (od 12,3 do 14,3)" in pl["passNote"]
    assert "✗ Błąd" in pl["passNote"] and "im mniej, tym lepiej" in pl["panel"]
    assert "Ekspert się zgadza" in pl["playNote"]
    assert not errors, errors
    context.close()
