"""A game step by step, as a replay viewer draws it (GetReplayHand's application layer).

The log is folded with the rules engine, here on the server, and after each
game event the position is given as the engine's own view: the browser draws
a past position exactly as it draws a live one, and no client holds a second
copy of the rules. Who sees what follows GetReplay (``replay_log.py``): once
the game is over, every seat's cards at every step; while it is on, only
what the asking seat (or a spectator) saw at the time, which is the engine's
view for that seat at that point of the log.

The steps are given a hand at a time (a long Wizard game is some hundreds of
positions): a hand's steps run from its deal to its last move (after which the
engine already counts the next hand, still to be dealt); the game's last
hand ends with GameFinished or GameAbandoned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from parlour.engine.view import View
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.replay_log import check_may_read, check_seat_token
from parlour.service.domain.errors import BadRequest, TableNotFound, WrongTableState
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    GameAbandoned,
    GameFinished,
    SeatAway,
    SeatReturned,
    decode,
)
from parlour.service.domain.fold import Folded
from parlour.service.store.protocol import StoredEvent, TableRow

#: the events that are steps of a replay (the lobby's are not)
_STEPS = (CardsDealt, ActionTaken, SeatAway, SeatReturned, GameFinished, GameAbandoned)
_ENDS = (GameFinished, GameAbandoned)


class NoSuchHand(TableNotFound):
    """The game has not reached that hand."""

    REASON = "NO_SUCH_HAND"


@dataclass(frozen=True)
class Step:
    """One step: the event, and the position right after it."""

    event: StoredEvent
    view: View
    #: every seat's cards after the event (the game is over), else empty
    hands: tuple[tuple[str, ...], ...]
    #: person seats a bot was playing after the event (their clock ran out)
    away: frozenset[int]
    #: the seat whose words the event is said for (the actor, once the game is over)
    viewer: int | None


@dataclass(frozen=True)
class HandIndex:
    """One hand of the game: its number, its first and last step and how many it has."""

    hand: int
    first_seq: int
    last_seq: int
    steps: int


@dataclass(frozen=True)
class ReplayHand:
    """What GetReplayHand answers."""

    table: TableRow
    finished: bool
    version: int
    hand: int
    hands: tuple[HandIndex, ...]
    steps: tuple[Step, ...]
    public: bool


def fold_steps(
    events: Sequence[StoredEvent], seat: int | None, wanted: int
) -> tuple[bool, list[HandIndex], list[Step]]:
    """Whether the game is over, the index of its hands, and hand ``wanted``'s steps
    (0: the first hand's) as ``seat`` (None: a spectator) may see them."""
    typed = [decode(event) for event in events]
    finished = any(isinstance(read, _ENDS) for read in typed)
    folded = Folded()
    index: list[HandIndex] = []
    steps: list[Step] = []
    hand = seats = 0
    for event, read in zip(events, typed, strict=True):
        folded.take(read, event)
        state = folded.state
        if state is None or not isinstance(read, _STEPS):
            continue
        if isinstance(read, CardsDealt | ActionTaken):
            public = state.view(None)
            number = public.hand_number
            if public.phase == "deal" and public.last_hand is not None:
                # a hand's last move: the engine counts the next hand, which is not dealt yet
                number = public.last_hand.hand_number
            hand, seats = max(hand, number), public.seats
        if not hand:
            continue
        if index and index[-1].hand == hand:
            last = index[-1]
            index[-1] = HandIndex(hand, last.first_seq, event.seq, last.steps + 1)
        else:
            index.append(HandIndex(hand, event.seq, event.seq, 1))
        if hand != (wanted or 1):
            continue
        actor = read.seat if isinstance(read, ActionTaken) else None
        hands: tuple[tuple[str, ...], ...] = ()
        if finished:
            hands = tuple(tuple(str(card) for card in state.hand(each)) for each in range(seats))
        steps.append(
            Step(
                event,
                state.view(seat),
                hands,
                frozenset(folded.clock.away),
                actor if finished and actor is not None else seat,
            )
        )
    return finished, index, steps


async def get_replay_hand(
    app: Parlour, table_id: str, seat: int | None, hand: int, credentials: Credentials
) -> ReplayHand:
    """Hand ``hand`` (0: the first) of table ``table_id``'s game, step by step."""
    if not table_id:
        raise BadRequest("table_id is required")
    if hand < 0:
        raise BadRequest(f"hand counts from 1 (0: the first), not {hand}")
    table = await app.get_table(table_id)
    events = await app.store.read(table_id)
    finished = any(event.type in ("GameFinished", "GameAbandoned") for event in events)
    if seat is not None and not finished:
        check_seat_token(table, seat, credentials)
    public = check_may_read(table, seat, credentials)
    over, index, steps = await asyncio.to_thread(fold_steps, events, seat, hand)
    if not index:
        raise WrongTableState(f"the game at table {table_id} has not started: nothing to replay")
    if not steps:
        last = index[-1].hand
        raise NoSuchHand(
            f"the game at table {table_id} has hands 1 to {last}, not hand {hand}",
            hand=hand,
            last=last,
        )
    return ReplayHand(
        table,
        over,
        events[-1].seq,
        hand or 1,
        tuple(index),
        tuple(steps),
        public,
    )
