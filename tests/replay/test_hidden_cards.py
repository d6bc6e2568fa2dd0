"""A replay for one seat never tells another seat's hidden card.

Checked against the engine's ground truth (``state.hand(other)``) at every
event of real service games: the lines told at an event never name a card
another seat holds right after it, and nothing told so far names a card
another seat still holds that was never shown face up.
"""

from __future__ import annotations

import pytest

from parlour.replay.check import replay
from parlour.replay.narrate import Narrator
from parlour.service.domain.statuses import EventType
from parlour.service.store.protocol import StoredEvent
from tests.replay.hidden import cards_in, hidden_from, plain, public_cards

GAMES = ["wizard", "crazy8s", "kaiser", "hearts"]


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_replay_never_names_another_seats_hidden_card(
    service_logs: dict[str, list[StoredEvent]], game: str
) -> None:
    events = service_logs[game]
    seats = int(events[0].payload["seats"])
    for seat in range(seats):
        narrator = Narrator(seat)
        told: set[str] = set()
        public: set[str] = set()
        for step in replay(events):
            lines = narrator.lines(step)
            said = cards_in("\n".join(lines))
            told |= said
            state = step.state
            if state is None:
                continue
            public |= public_cards(state.view(None))
            hidden = plain(hidden_from(state, seat))
            assert not said & hidden, f"seat {seat} told {said & hidden} at {step.event.seq}"
            assert not (told - public) & hidden, f"seat {seat} was told {told & hidden}"
            if step.event.type == EventType.CARDS_DEALT and any(" deals" in line for line in lines):
                # not vacuous: the seat's own new hand is told in full
                assert plain(str(card) for card in state.hand(seat)) <= said


@pytest.mark.parametrize("game", GAMES)
def test_the_whole_table_replay_tells_every_hand_at_each_deal(
    service_logs: dict[str, list[StoredEvent]], game: str
) -> None:
    narrator = Narrator()
    deals = 0
    for step in replay(service_logs[game]):
        lines = narrator.lines(step)
        if step.event.type == EventType.CARDS_DEALT and any(" deals" in line for line in lines):
            state = step.state
            assert state is not None
            held = plain(str(card) for seat in range(state.seats) for card in state.hand(seat))
            assert held <= cards_in("\n".join(lines))
            deals += 1
    assert deals > 0
