"""The expert's look in the terminal's replay (issue 35): F3, Enter on a finished game,
then A asks for the analysis; the test does a worker's part (claims the job and
submits fixed judgements) and the replay shows, under each judged move, the
expert's choice and the points given away (a mistake marked in words), and above
the log each person's summary, in English and in Polish. A game still in play is
refused with the server's words. The game-over screen's A opens the same replay,
where a failed analysis says why and A asks again.
Screenshots go to test-artifacts/tui/."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from textual.widgets import DataTable, Static

from parlour.ai.analyst import claim_analysis, submit_analysis
from parlour.client import ParlourClient
from parlour.client.accounts import SessionMetadata
from parlour.tui.app import ParlourApp
from parlour.tui.endgame import GameOverScreen
from parlour.tui.history import HistoryScreen, ReplayScreen
from parlour.tui.saved import SavedSeat
from parlour.tui.speech import use
from parlour.v1 import bots_pb2
from tests.tui.conftest import WORKER_TOKEN, Service, ai_worker, shoot, wait_until
from tests.tui.test_history import finished_game


def judged(decision: bots_pb2.AnalysisDecision, rank: int) -> bots_pb2.DecisionJudgement:
    """The test's expert: it prefers the first legal action; a different move gave away
    2.5 points the first time (a mistake, over the threshold of 2) and every other time
    after, 1.5 (no mistake) the times between."""
    best = decision.view.legal_actions[0].id
    cost = 0.0 if decision.played_legal_action_id == best else (2.5, 1.5)[rank % 2]
    return bots_pb2.DecisionJudgement(
        seq=decision.seq,
        best_legal_action_id=best,
        played_points=2.0 + cost,
        played_low=1.0 + cost,
        played_high=3.0 + cost,
        played_playouts=16,
        best_points=2.0,
        best_low=1.0,
        best_high=3.0,
        best_playouts=16,
        cost=cost,
        cost_low=max(0.0, cost - 0.5),
        cost_high=cost + 0.5,
        marked=cost > 2.0,
    )


async def act_as_the_worker(
    service: Service, table_id: str, error: str = ""
) -> list[bots_pb2.DecisionJudgement]:
    """Claim the table's job and submit it judged (or failed with ``error``)."""
    async with ParlourClient(
        service.address, worker_token=WORKER_TOKEN, worker_id="tui-expert"
    ) as worker:
        job = await claim_analysis(worker, 5.0)
        assert job.claimed and job.table_id == table_id
        judgements: list[bots_pb2.DecisionJudgement] = []
        for decision in [] if error else job.decisions:
            judgements.append(judged(decision, sum(j.cost > 0 for j in judgements)))
        done = await submit_analysis(
            worker,
            bots_pb2.SubmitAnalysisRequest(
                table_id=table_id,
                decisions=judgements,
                error=error,
                budget=16,
                threshold=2.0,
                higher_is_better=False,  # Crazy 8s counts penalties
            ),
        )
        assert done.accepted
    return judgements


def shown(screen: ReplayScreen) -> str:
    return "\n".join(str(line.render()) for line in screen.query(Static))


@pytest.mark.parametrize("language", ["en", "pl"])
async def test_the_replay_shows_the_experts_look_under_each_judged_move(
    service: Service, make_app: Callable[[], ParlourApp], language: str
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.signed_in.token is not None, what="sign-in")
        if language == "pl":
            await pilot.press("f2")  # the app's switch: its words, and the server's
        token = app.session.signed_in.token
        async with (
            ai_worker(service),
            ParlourClient(service.address, session=SessionMetadata(token)) as mine,
        ):
            finished, _ = await finished_game(mine, random.Random(5))
            playing = await mine.host_table(
                "crazy8s",
                2,
                seat_setup=[("person", ""), ("bot", "random")],
                host_player_name="Ada",
                host_takes_seat=True,
            )
            await mine.start_table(playing.table.table_id, playing.host_token)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        table = app.screen.query_one("#history", DataTable)
        await wait_until(pilot, lambda: table.row_count == 2, what="two games listed")

        # the game in play (the newest): the service refuses, in the client's words
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        state = screen.query_one("#expert-state", Static)
        after_end = {"en": "Once the game is over", "pl": "Gdy gra się skończy"}[language]
        await wait_until(pilot, lambda: after_end in str(state.render()), what="the note")
        await pilot.press("a")
        not_over = {"en": "still being played", "pl": "wciąż trwa"}[language]
        await wait_until(pilot, lambda: not_over in str(state.render()), what="the refusal")
        await pilot.press("escape")

        # the finished game: ask, the worker judges, the lines come
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        state = screen.query_one("#expert-state", Static)
        hint = {"en": "A: ask the expert", "pl": "A: poproś eksperta"}[language]
        await wait_until(pilot, lambda: hint in str(state.render()), what="the hint")
        await pilot.press("a")
        asked = {"en": "waiting for an expert", "pl": "czeka na wolnego"}[language]
        await wait_until(pilot, lambda: asked in str(state.render()), what="queued")
        judgements = await act_as_the_worker(service, finished)
        # the screen asks again by itself every two seconds
        await wait_until(
            pilot, lambda: bool(screen.query(".expert-line")), timeout=30, what="the lines"
        )
        lines = [str(line.render()) for line in screen.query(".expert-line")]
        assert len(lines) == len(judgements)
        marked = [j for j in judgements if j.marked]
        assert marked, "the random game gave the test's expert nothing to disagree with"
        agreed = [j for j in judgements if j.cost == 0]
        mistake = {"en": "✗ mistake", "pl": "✗ błąd"}[language]
        assert sum(mistake in line for line in lines) == len(marked)
        same = {"en": "the same move", "pl": "ten sam ruch"}[language]
        assert sum(same in line for line in lines) == len(agreed)
        costly = next(j for j in judgements if j.cost > 0)
        cost = f"{costly.cost:.1f}"
        if language == "pl":
            cost = cost.replace(".", ",")
        assert any(cost in line for line in lines if same not in line)
        # the moves in the server's words, asked for in the client's language
        moves = {
            "en": ("expert: play ", "expert: draw a card", "expert: pass"),
            "pl": ("ekspert: zagraj ", "ekspert: dobierz kartę", "ekspert: pas"),
        }[language]
        assert all(line.startswith(moves) for line in lines if same not in line), lines
        fewer = {"en": "fewer is better", "pl": "im mniej, tym lepiej"}[language]
        assert fewer in str(state.render())
        summary = [str(line.render()) for line in screen.query(".expert-summary")]
        given = f"{sum(j.cost for j in judgements):.1f}"
        if language == "pl":
            given = given.replace(".", ",")
        assert len(summary) == 1 and given in summary[0] and str(len(judgements)) in summary[0]
        # each judged move's line comes right after that move's line
        said = shown(screen).splitlines()
        first = said.index(
            next(line for line in said if line.strip().startswith(("expert", "ekspert")))
        )
        assert said[first - 1].strip()[:1].isdigit()
        await shoot(pilot, f"replay-expert-{language}")
        if language == "pl":  # the server's words too, after a switch on this screen
            await pilot.press("f2")
            await wait_until(
                pilot,
                lambda: "expert: the same move" in shown(screen),
                what="the English lines",
            )
    use("en")


async def test_the_game_over_screen_opens_the_replay_with_the_expert(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        async with ai_worker(service), ParlourClient(service.address) as mine:
            finished, seat_token = await finished_game(mine, random.Random(8))
            final = await mine.get_view(finished, 0, seat_token)
        seat = SavedSeat(service.address, finished, 0, seat_token, "crazy8s")
        app.push_screen(GameOverScreen(seat, final.view, []))
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        state = screen.query_one("#expert-state", Static)
        await wait_until(pilot, lambda: "A: ask the expert" in str(state.render()))
        await pilot.press("a")
        await wait_until(pilot, lambda: "waiting for an expert" in str(state.render()))
        # a worker that fails: the screen says why, and A asks again
        await act_as_the_worker(service, finished, error="the expert's machine went away")
        await wait_until(
            pilot, lambda: "machine went away" in str(state.render()), timeout=30, what="failed"
        )
        assert "A: ask again." in str(state.render())
        await pilot.press("a")
        await wait_until(pilot, lambda: "waiting for an expert" in str(state.render()))
        judgements = await act_as_the_worker(service, finished)
        await wait_until(
            pilot, lambda: bool(screen.query(".expert-line")), timeout=30, what="the lines"
        )
        assert len(screen.query(".expert-line")) == len(judgements)
        assert "Ada: decisions judged" in shown(screen)
        await pilot.press("escape")  # back to the game's end
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen))
