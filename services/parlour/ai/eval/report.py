"""The self-play report in words: each evaluation's figures beside its target."""

from __future__ import annotations

from parlour.ai.eval.selfplay import TARGETS, Report


def _pct(stats: dict[str, float]) -> str:
    return f"{100 * stats['rate']:.1f}% [{100 * stats['ci_low']:.1f}, {100 * stats['ci_high']:.1f}]"


def _mark(met: bool) -> str:
    return "target met" if met else "TARGET MISSED"


def format_report(report: Report) -> str:
    """The whole report, one line per figure, ending in whether every target was met."""
    lines = [f"Self-play evaluation, seed {report['seed']} ({report['seconds']:.0f} s)"]
    if "wizard" in report:
        w = report["wizard"]
        lines.append(
            f"Wizard    exact bids: AI {_pct(w['ai'])} of {w['ai']['bids']} bids "
            f"({w['ai']['rounds']} rounds); random {_pct(w['random'])} of {w['random']['bids']} "
            f"bids -- {_mark(w['target_met'])} (AI >= 50%)"
        )
    if "hearts" in report:
        h = report["hearts"]
        lines.append(f"Hearts    points per hand over {h['hands']} hands at mixed tables:")
        for level, stats in h["points_per_hand"].items():
            lines.append(
                f"            {level:<7} {stats['mean']:6.2f}  "
                f"[{stats['ci_low']:.2f}, {stats['ci_high']:.2f}]"
            )
        for step, test in h["steps"].items():
            verdict = "significant" if test["significant"] else "NOT significant"
            lines.append(
                f"            {step:<14} difference {test['mean']:+.2f} "
                f"[{test['ci_low']:+.2f}, {test['ci_high']:+.2f}], z={test['z']:.1f}, "
                f"p={test['p']:.2g}: {verdict}"
            )
        lines.append(f"            -- {_mark(h['target_met'])} (every step significant at 95%)")
    if "kaiser" in report:
        k = report["kaiser"]
        lines.append(
            f"Kaiser    AI side beats a random side {_pct(k)} of {k['games']} games "
            f"-- {_mark(k['target_met'])} (>= 80%)"
        )
    if "crazy8s" in report:
        c = report["crazy8s"]
        lines.append(
            f"Crazy 8s  AI beats random heads-up {_pct(c)} of {c['games']} games "
            f"-- {_mark(c['target_met'])} (>= 60%)"
        )
    lines += _format_expert(report)
    lines.append("Decision time per move (ms):   p50     p99     max  p50 cpu  p99 cpu    moves")
    for name, t in report["decision_time"].items():
        lines.append(
            f"  {name:<22} {t['p50_ms']:7.3f} {t['p99_ms']:7.3f} {t['max_ms']:7.2f} "
            f"{t['cpu_p50_ms']:8.3f} {t['cpu_p99_ms']:8.3f} {int(t['moves']):8d}"
        )
    lines.append(
        f"  -- {_mark(report['decision_target_met'])} (p99 < 20 ms for every strategy "
        "but the searching ones: expert and ismcts)"
    )
    lines.append("ALL TARGETS MET" if report["all_targets_met"] else "SOME TARGETS MISSED")
    return "\n".join(lines)


def _ci(stats: dict[str, float], scale: float = 1.0, unit: str = "") -> str:
    return (
        f"{scale * stats['mean']:+.2f}{unit} [{scale * stats['ci_low']:+.2f}, "
        f"{scale * stats['ci_high']:+.2f}] (n={int(stats['n'])})"
    )


def _format_expert(report: Report) -> list[str]:
    """The duplicate-deal evaluations of the expert level, in words."""
    lines = []
    w = report.get("wizard-expert")
    if w:
        lines.append(
            f"Wizard    expert at {w['seats']} expert seats, {w['games']} games "
            f"({w['a_bids']} bids), same shuffles as {w['seats']} normal seats:"
        )
        lines.append(f"            exact bids  expert {_ci(w['a_exact'], 100, '%')}")
        lines.append(f"                        normal {_ci(w['b_exact'], 100, '%')}")
        lines.append(f"            points/round expert {_ci(w['a_points_per_round'])}")
        lines.append(f"                         normal {_ci(w['b_points_per_round'])}")
        lines.append(f"            expert - normal     {_ci(w['a_minus_b_points'])} per round")
        lines.append(
            f"            -- {_mark(w['target_met'])} (>= 66% exact and more points per round)"
        )
    for key, margin in (("hearts-expert", 1.0), ("hearts-ismcts", 2.0)):
        h = report.get(key)
        if not h:
            continue
        if "skipped" in h:
            lines.append(f"Hearts    {key}: skipped: {h['skipped']}")
            continue
        lines.append(
            f"Hearts    {h['a']} v {h['b']}, {h['deals']} duplicate deals ({h['hands']} hands), "
            "points per hand per seat:"
        )
        lines.append(f"            {h['a']:<18} {_ci(h['a_points_per_hand'])}")
        lines.append(f"            {h['b']:<18} {_ci(h['b_points_per_hand'])}")
        lines.append(f"            difference         {_ci(h['a_minus_b'])}")
        if "ismcts_moves_refused" in h:
            lines.append(
                f"            ISMCTS moves refused by Parlour's rules: {h['ismcts_moves_refused']}"
            )
        verdict = _mark(h["target_met"])
        lines.append(f"            -- {verdict} (expert ahead by >= {margin:g}, significantly)")
    for key, words in (("kaiser-expert", "partnership"), ("crazy8s-expert", "heads-up")):
        k = report.get(key)
        if k:
            lines.append(
                f"{'Kaiser' if key.startswith('kaiser') else 'Crazy 8s':<10}{k['a']} v {k['b']} "
                f"{words}, {k['deals']} duplicate deals ({k['games']} games): win share "
                f"{_ci(k['a_win_share'], 100, '%')} -- {_mark(k['target_met'])} "
                f"({'>' if key.startswith('kaiser') else '>='} "
                f"{100 * TARGETS[key.replace('-', '_') + '_win']:.0f}%)"
            )
    return lines
