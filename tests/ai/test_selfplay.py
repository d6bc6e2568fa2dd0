"""The self-play evaluation: a fast smoke run in the normal suite, the full one marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parlour.ai.eval import selfplay
from parlour.ai.eval.report import format_report
from parlour.ai.eval.stats import paired_test
from parlour.cli import main

TINY = {"wizard": 3, "hearts": 4, "kaiser": 2, "crazy8s": 4}


def test_a_small_self_play_run_plays_every_game_and_reports_every_figure():
    report = selfplay.evaluate(sizes=TINY, seed=3)
    assert report["wizard"]["ai"]["rounds"] >= 3 and report["wizard"]["random"]["rounds"] >= 3
    assert 0 <= report["wizard"]["ai"]["rate"] <= 1
    assert report["hearts"]["hands"] >= 4
    assert set(report["hearts"]["points_per_hand"]) == {"hard", "normal", "easy", "random"}
    assert set(report["hearts"]["steps"]) == {"hard<normal", "normal<easy", "easy<random"}
    assert report["kaiser"]["games"] == 2 and report["crazy8s"]["games"] == 4
    assert {"wizard/normal", "hearts/hard", "kaiser/random", "crazy8s/normal"} <= set(
        report["decision_time"]
    )
    text = format_report(report)
    for words in ("Wizard", "Hearts", "Kaiser", "Crazy 8s", "Decision time"):
        assert words in text


def test_a_run_is_reproducible_from_its_seed():
    one = selfplay.evaluate(games=("crazy8s",), sizes=TINY, seed=5)
    two = selfplay.evaluate(games=("crazy8s",), sizes=TINY, seed=5)
    assert one["crazy8s"]["wins"] == two["crazy8s"]["wins"]


def test_the_command_writes_the_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "report.json"
    argv = ["--games", "kaiser,crazy8s", "--kaiser-games", "2", "--crazy8s-games", "2"]
    status = main(["selfplay", *argv, "--no-progress", "--json", str(out)])
    assert status in (0, 1)  # 1: so few games need not meet the targets
    assert json.loads(out.read_text())["kaiser"]["games"] == 2
    assert "Kaiser" in capsys.readouterr().out


def test_an_unknown_game_is_refused(capsys: pytest.CaptureFixture[str]):
    assert main(["selfplay", "--games", "chess", "--no-progress"]) == 2
    assert "chess" in capsys.readouterr().err


def test_paired_test_flags_a_clear_difference_and_not_noise():
    assert paired_test([-1.0, -1.2, -0.8, -1.1, -0.9] * 10)["significant"]
    assert not paired_test([-1.0, 1.0] * 20)["significant"]


@pytest.mark.slow
def test_the_computer_opponents_meet_their_targets():
    report = selfplay.evaluate(seed=1)
    assert report["all_targets_met"], format_report(report)


def test_the_expert_matches_pair_every_deal_and_report_by_deal():
    sizes = {"hearts-expert": 1, "crazy8s-expert": 2, "kaiser-expert": 1, "wizard-expert": 1}
    report = selfplay.evaluate(
        games=tuple(sizes),
        sizes=sizes,
        seed=2,
        settings=selfplay.Settings(expert_budget=500),
    )
    hearts = report["hearts-expert"]
    assert (hearts["deals"], hearts["hands"], hearts["a_minus_b"]["n"]) == (1, 8, 1)
    assert (
        report["crazy8s-expert"]["games"] == 4 and report["crazy8s-expert"]["a_win_share"]["n"] == 2
    )
    assert report["kaiser-expert"]["games"] == 2
    wizard = report["wizard-expert"]
    assert wizard["a_bids"] == wizard["b_bids"] == 4 * 15  # four seats, fifteen rounds
    text = format_report(report)
    assert "duplicate deals" in text and "exact bids" in text


def test_openspiel_ismcts_sees_the_parlour_hand_it_is_mirrored_from():
    pytest.importorskip("pyspiel")
    import random

    from parlour.ai.eval.ismcts import IsmctsSeat, mirror, openspiel_card, parlour_card
    from parlour.engine.playout import shuffled
    from parlour.engine.registry import new_game

    assert {parlour_card(openspiel_card(c)) for c in new_game("hearts", 4).chance() or ()} == set(
        new_game("hearts", 4).chance() or ()
    )
    seat = IsmctsSeat(simulations=50, seed=1)
    rng = random.Random(5)
    state = new_game("hearts", 4)
    state.deal(shuffled(state.chance() or (), rng))
    while state.chance() is None:
        mover = state.to_act()[0]
        mirrored = mirror(seat.game, state, mover)
        assert mirrored.current_player() == 0
        own = {openspiel_card(c) for c in state.hand(mover)}
        legal = {parlour_card(a) for a in mirrored.legal_actions()}
        assert {a.card for a in state.legal_actions(mover)} == legal
        assert own >= {openspiel_card(c) for c in legal}
        state.apply(mover, seat.choose_at(state, mover, rng))
    assert seat.refused == 0
