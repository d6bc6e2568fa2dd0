"""A log that was changed does not replay: the first changed event is named."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from parlour.engine.actions import Action, ActionKind
from parlour.replay.check import ReplayError, replay, summarize, write_log
from parlour.service.domain.fold import Folded
from parlour.service.domain.statuses import EventType
from parlour.service.store.protocol import StoredEvent

Log = list[StoredEvent]


def rejected(events: Log) -> ReplayError:
    with pytest.raises(ReplayError) as error:
        summarize(events)
    return error.value


def first_deal(events: Log) -> int:
    """Index (not seq) of the log's first CardsDealt event."""
    return next(n for n, event in enumerate(events) if event.type == EventType.CARDS_DEALT)


def with_payload(events: Log, index: int, payload: dict[str, object]) -> Log:
    changed = list(events)
    changed[index] = replace(events[index], payload=payload)
    return changed


@pytest.mark.parametrize("game", ["wizard", "crazy8s", "kaiser", "hearts"])
def test_the_untouched_log_replays(service_logs: dict[str, Log], game: str) -> None:
    assert summarize(service_logs[game])["finished"]


@pytest.mark.parametrize("game", ["wizard", "hearts"])
def test_a_card_changed_in_a_deal_is_named_at_that_deal(
    service_logs: dict[str, Log], game: str
) -> None:
    events = service_logs[game]
    index = first_deal(events)
    cards = list(events[index].payload["cards"])
    lost, doubled = cards[3], cards[4]
    cards[3] = doubled
    error = rejected(with_payload(events, index, {"cards": cards}))
    assert (error.seq, error.type) == (events[index].seq, EventType.CARDS_DEALT)
    assert f"{doubled} too many" in str(error) and f"{lost} missing" in str(error)
    assert str(error).startswith(f"event {events[index].seq} (CardsDealt")


def test_a_deal_with_a_card_code_nobody_knows_stops_the_replay_there(
    service_logs: dict[str, Log],
) -> None:
    events = service_logs["kaiser"]
    index = first_deal(events)
    cards = list(events[index].payload["cards"])
    cards[0] = "ZZ"
    error = rejected(with_payload(events, index, {"cards": cards}))
    assert (error.seq, error.type) == (events[index].seq, EventType.CARDS_DEALT)
    assert "unknown card code 'ZZ'" in str(error)


def test_two_cards_swapped_between_hands_fail_the_deal_digest(
    service_logs: dict[str, Log],
) -> None:
    events = service_logs["hearts"]
    index = first_deal(events)
    folded = Folded()
    for event in events[: index + 1]:
        folded.apply(event)
    assert folded.state is not None
    cards = list(events[index].payload["cards"])
    # a card of seat 0 and one of seat 1: the swap is a different deal, still a whole pack
    mine = next(n for n, code in enumerate(cards) if code in map(str, folded.state.hand(0)))
    theirs = next(n for n, code in enumerate(cards) if code in map(str, folded.state.hand(1)))
    cards[mine], cards[theirs] = cards[theirs], cards[mine]
    error = rejected(with_payload(events, index, {"cards": cards}))
    assert (error.seq, error.type) == (events[index].seq, EventType.CARDS_DEALT)
    assert error.expected == f"state digest {events[index].digest}"
    assert error.got != events[index].digest


def test_a_card_the_seat_does_not_hold_is_named_at_that_action(
    service_logs: dict[str, Log],
) -> None:
    events = service_logs["kaiser"]
    index = next(
        n
        for n, event in enumerate(events)
        if event.type == EventType.ACTION_TAKEN and event.payload["action"].startswith("play")
    )
    event = events[index]
    folded = Folded()
    for earlier in events[:index]:
        folded.apply(earlier)
    assert folded.state is not None
    seat = int(event.payload["seat"])
    foreign = folded.state.hand((seat + 1) % 4)[0]
    payload = {"seat": seat, "action": f"play {foreign}"}
    error = rejected(with_payload(events, index, payload))
    assert (error.seq, error.type) == (event.seq, EventType.ACTION_TAKEN)
    assert str(foreign) in str(error) and f"seat {seat}" in str(error)


@pytest.mark.parametrize("game", ["wizard", "crazy8s", "kaiser", "hearts"])
def test_another_legal_card_fails_that_actions_digest(
    service_logs: dict[str, Log], game: str
) -> None:
    events = service_logs[game]
    for step in replay(events):
        state = step.state
        if state is None or state.chance() is not None or not state.to_act():
            continue
        seat = state.to_act()[0]
        plays = [a for a in state.legal_actions(seat) if a.kind is ActionKind.PLAY]
        following = events[step.event.seq]  # the event after this step (seq n+1 at index n)
        if following.type != EventType.ACTION_TAKEN or following.payload["seat"] != seat:
            continue
        taken = Action.parse(following.payload["action"])
        others = [a for a in plays if a != taken and taken.kind is ActionKind.PLAY]
        if others:
            break
    else:
        pytest.fail("no play with an alternative in the whole game")
    index = following.seq - 1
    error = rejected(with_payload(events, index, {"seat": seat, "action": str(others[0])}))
    assert (error.seq, error.type) == (following.seq, EventType.ACTION_TAKEN)
    assert error.expected == f"state digest {following.digest}"


def test_changed_final_scores_are_named_at_game_finished(service_logs: dict[str, Log]) -> None:
    events = service_logs["crazy8s"]
    last = events[-1]
    assert last.type == EventType.GAME_FINISHED
    scores = [score + 1 for score in last.payload["scores"]]
    error = rejected(with_payload(events, len(events) - 1, {**last.payload, "scores": scores}))
    assert (error.seq, error.type) == (last.seq, EventType.GAME_FINISHED)


def test_a_missing_event_is_named_where_the_gap_is(service_logs: dict[str, Log]) -> None:
    events = service_logs["wizard"]
    error = rejected(events[:20] + events[21:])
    assert error.seq == events[21].seq and "gap" in str(error)


def test_the_command_line_stops_at_the_tampered_event(
    service_logs: dict[str, Log], tmp_path: Path
) -> None:
    events = service_logs["hearts"]
    index = first_deal(events) + 30
    event = events[index]
    assert event.type == EventType.ACTION_TAKEN
    seat = int(event.payload["seat"])
    # the same seat "plays" a card that is not a legal action at that point
    changed = with_payload(events, index, {"seat": seat, "action": "play QS name H"})
    path = tmp_path / "tampered.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_log(changed, out)
    result = subprocess.run(
        [sys.executable, "-m", "parlour.cli", "replay", "--file", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"event {event.seq} (ActionTaken: seat {seat} play QS name H)" in result.stderr
