"""The fold: a table's events, replayed into an engine state.

A table's history is ``TableHosted``, ``SeatTaken``/``SeatLeft`` while it is
open, ``GameStarted``, then ``CardsDealt`` (the outcome of chance, recorded)
and ``ActionTaken`` events until ``GameFinished``. Folding never draws a
random number, so any replica — or a replay on another machine — reaches the
same state; each event's stored digest lets a replay check that it did.

Also here: the public one-line description of each event, for Watch streams.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.registry import new_game
from parlour.service.store import StoredEvent
from parlour.service.upcast import upcast

TABLE_HOSTED = "TableHosted"
SEAT_TAKEN = "SeatTaken"
SEAT_LEFT = "SeatLeft"
GAME_STARTED = "GameStarted"
CARDS_DEALT = "CardsDealt"
ACTION_TAKEN = "ActionTaken"
GAME_FINISHED = "GameFinished"


class ReplayMismatch(Exception):
    """A stored digest disagrees with the state the fold reached (corrupt or foreign history)."""

    def __init__(self, event: StoredEvent, got: str) -> None:
        super().__init__(
            f"table {event.game_id}: event {event.seq} ({event.type}) should leave the game "
            f"in the state with digest {event.digest}, but replaying it gives {got}"
        )
        self.seq = event.seq
        self.type = event.type
        self.expected = event.digest
        self.got = got


@dataclass
class Folded:
    """A table's engine state after its events up to ``seq``.

    ``state`` is None until the game has started. ``setup`` is the
    TableHosted payload (game, seats, options...).
    """

    seq: int = 0
    setup: dict[str, Any] = field(default_factory=dict)
    state: GameState | None = None

    def apply(self, event: StoredEvent, *, check_digest: bool = False) -> None:
        """Fold one more event (its seq must follow ``self.seq``)."""
        event = upcast(event)  # old schema versions are read as the current one
        payload = event.payload
        kind = event.type
        if kind == TABLE_HOSTED:
            self.setup = dict(payload)
        elif kind == GAME_STARTED:
            self.state = new_game(
                self.setup["game"], int(self.setup["seats"]), self.setup.get("options") or {}
            )
        elif kind == CARDS_DEALT:
            assert self.state is not None, "cards dealt before the game started"
            self.state.deal([Card.parse(code) for code in payload["cards"]])
        elif kind == ACTION_TAKEN:
            assert self.state is not None, "action before the game started"
            self.state.apply(int(payload["seat"]), Action.parse(payload["action"]))
        if check_digest and event.digest and self.state is not None:
            got = self.state.digest()
            if got != event.digest:
                raise ReplayMismatch(event, got)
        self.seq = event.seq


def fold(events: Iterable[StoredEvent], into: Folded | None = None) -> Folded:
    """Fold ``events`` (in seq order) onto ``into`` (or onto a fresh table)."""
    folded = into if into is not None else Folded()
    for event in events:
        if event.seq > folded.seq:
            folded.apply(event)
    return folded


def describe(event: StoredEvent, viewer: int | None) -> tuple[int | None, Action | None, str]:
    """(seat, action, text) of ``event`` as ``viewer`` may see it.

    A Hearts card given to another player is secret: only the giver sees it.
    """
    event = upcast(event)
    payload = event.payload
    kind = event.type
    if kind == ACTION_TAKEN:
        seat = int(payload["seat"])
        action = Action.parse(payload["action"])
        if action.kind is ActionKind.GIVE and viewer != seat:
            count = len(action.cards)
            chose = "a card" if count == 1 else f"{count} cards"
            return seat, Action(ActionKind.GIVE), f"seat {seat} chose {chose} to pass"
        return seat, action, f"seat {seat} {_past_tense(action)}"
    if kind == SEAT_TAKEN:
        seat = int(payload["seat"])
        return seat, None, f"{payload.get('player_name') or 'someone'} took seat {seat}"
    if kind == SEAT_LEFT:
        seat = int(payload["seat"])
        return seat, None, f"seat {seat} was given up"
    if kind == TABLE_HOSTED:
        return None, None, f"a {payload.get('game')} table for {payload.get('seats')} was set up"
    if kind == GAME_STARTED:
        return None, None, "the game started"
    if kind == CARDS_DEALT:
        return None, None, f"{len(payload.get('cards', ()))} cards were shuffled and dealt"
    if kind == GAME_FINISHED:
        winners = payload.get("winners") or []
        who = ", ".join(f"seat {seat}" for seat in winners) or "nobody"
        return None, None, f"the game is over; won by {who}"
    return None, None, kind


def _past_tense(action: Action) -> str:
    kind = action.kind
    if kind is ActionKind.PLAY:
        named = f" and named {action.suit.word}" if action.suit is not None else ""
        return f"played {action.card}{named}"
    if kind is ActionKind.BID:
        return f"bid {action.number}{' no trump' if action.no_trump else ''}"
    if kind is ActionKind.NAME_TRUMP:
        assert action.suit is not None
        return f"named {action.suit.word} trump"
    if kind is ActionKind.GIVE:
        return f"chose {' '.join(str(card) for card in action.cards)} to pass"
    if kind is ActionKind.DRAW:
        return "drew a card"
    return "passed"
