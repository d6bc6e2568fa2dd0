"""The fold: a table's events, replayed into an engine state.

A table's history is ``TableHosted``, ``SeatTaken``/``SeatLeft`` while it is
open, ``GameStarted``, then ``CardsDealt`` (the outcome of chance, recorded)
and ``ActionTaken`` events until ``GameFinished``. Folding never draws a
random number, so any replica — or a replay on another machine — reaches the
same state; each event's stored digest lets a replay check that it did.

Also here: the public one-line description of each event, for Watch streams.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.registry import new_game
from parlour.service.domain.clock import TurnClock
from parlour.service.domain.statuses import EventType
from parlour.service.domain.upcast import upcast
from parlour.service.store.protocol import StoredEvent

# domain.EventType's values (plain strings: compared once per event folded), by their names
TABLE_HOSTED = EventType.TABLE_HOSTED.value
SEAT_TAKEN = EventType.SEAT_TAKEN.value
SEAT_LEFT = EventType.SEAT_LEFT.value
GAME_STARTED = EventType.GAME_STARTED.value
CARDS_DEALT = EventType.CARDS_DEALT.value
ACTION_TAKEN = EventType.ACTION_TAKEN.value
GAME_FINISHED = EventType.GAME_FINISHED.value
SEAT_AWAY = EventType.SEAT_AWAY.value
SEAT_RETURNED = EventType.SEAT_RETURNED.value
TABLE_EXPIRED = EventType.TABLE_EXPIRED.value
GAME_ABANDONED = EventType.GAME_ABANDONED.value

#: The first schema version of each type whose digest is chained (see event_digest).
CHAINED_FROM: dict[str, int] = {ACTION_TAKEN: 2, CARDS_DEALT: 3}
_NEVER = 1 << 30


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
    #: the digest of the last event that carries one (what the next one chains to)
    digest: str = ""
    #: while open: each seated person's contribution to the deals (players' entropy)
    seat_entropy: dict[int, str] = field(default_factory=dict)
    #: from the start: the contributions, in seat order, that every deal derives from
    contributions: list[str] = field(default_factory=list)
    #: the number of deals so far (the next deal's number, from 0)
    deals: int = 0
    #: each seat's turn, bank and away flag, from the events' times (see clock.py)
    clock: TurnClock = field(default_factory=TurnClock)
    #: "abandoned" or "expired" once the table ended without finishing its game
    ended: str = ""

    def apply(self, event: StoredEvent, *, check_digest: bool = False) -> None:
        """Fold one more event (its seq must follow ``self.seq``)."""
        stored = event
        event = upcast(event)  # old schema versions are read as the current one
        payload = event.payload
        kind = event.type
        if kind == ACTION_TAKEN:  # the most frequent first
            assert self.state is not None, "action before the game started"
            seat = int(payload["seat"])
            self.state.apply(seat, parse_action(payload["action"]))
            self.clock.track(self.state.to_act(), event.created_at, acted=seat)
        elif kind == CARDS_DEALT:
            assert self.state is not None, "cards dealt before the game started"
            self.state.deal([Card.parse(code) for code in payload["cards"]])
            self.deals += 1
            self.clock.track(self.state.to_act(), event.created_at)
        elif kind == TABLE_HOSTED:
            self.setup = dict(payload)
            self.clock = TurnClock.of(payload.get("clock"))
        elif kind == SEAT_TAKEN:
            self.seat_entropy[int(payload["seat"])] = str(payload.get("entropy") or "")
        elif kind == SEAT_LEFT:
            self.seat_entropy.pop(int(payload["seat"]), None)
        elif kind == GAME_STARTED:
            self.state = new_game(
                self.setup["game"], int(self.setup["seats"]), self.setup.get("options") or {}
            )
            self.contributions = [str(value) for value in payload.get("contributions") or ()]
        elif kind == SEAT_AWAY:
            self.clock.went_away(int(payload["seat"]))
        elif kind == SEAT_RETURNED:
            self.clock.came_back(int(payload["seat"]), event.created_at)
        elif kind == GAME_ABANDONED:
            self.ended = "abandoned"
        elif kind == TABLE_EXPIRED:
            self.ended = "expired"
        if check_digest and event.digest and self.state is not None:
            got = event_digest(stored, self.digest, self.state)
            if got != event.digest:
                raise ReplayMismatch(event, got)
        if event.digest:
            self.digest = event.digest
        self.seq = event.seq

    def digest_next(self, kind: str, payload: dict[str, Any]) -> str:
        """The digest a new event (written now) carries, after it was applied to ``state``."""
        assert self.state is not None
        self.digest = chained_digest(self.digest, kind, payload, self.state)
        return self.digest


_ACTIONS: dict[str, Action] = {}


def parse_action(text: str) -> Action:
    """``Action.parse``, remembered (a log repeats the same few hundred actions)."""
    action = _ACTIONS.get(text)
    if action is None:
        action = Action.parse(text)
        if len(_ACTIONS) < 4096:
            _ACTIONS[text] = action
    return action


def event_digest(event: StoredEvent, previous: str, state: GameState) -> str:
    """The digest ``event`` must carry, by the definition of the schema version it was
    written at, given the digest of the event before it and the state it led to.

    Older versions hash a snapshot of the whole state (``GameState.digest``);
    from ``CHAINED_FROM`` on the digest is :func:`chained_digest` (their
    payloads are current: no upcast needed).
    """
    if event.schema_version < CHAINED_FROM.get(event.type, _NEVER):
        return state.digest()
    return chained_digest(previous, event.type, event.payload, state)


def chained_digest(previous: str, kind: str, payload: dict[str, Any], state: GameState) -> str:
    """The digest of an event written today: it chains onto the previous event's digest.

    A sha256 (16 hex digits kept) of the previous digest, the event's type and
    content and the seats the engine lists to act after it; a deal also adds
    the hash of the whole state (every hand), so the engine's position is
    compared in full once per deal and cheaply at every move. Changing any
    event, or playing it to another position, changes its digest and every
    later one. The seq is left out, so a fork that copies events keeps them
    verifiable. It costs a few microseconds, where hashing a snapshot of the
    whole state cost tens.
    """
    if kind == ACTION_TAKEN:
        text = f"{previous}|{kind}|{payload['seat']} {payload['action']}|{state.to_act()}"
    else:
        cards = " ".join(payload["cards"])
        text = f"{previous}|{kind}|{cards}|{state.to_act()}|{state.digest()}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
        action = parse_action(payload["action"])
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
    if kind == SEAT_AWAY:
        seat = int(payload["seat"])
        level = payload.get("bot_level") or "normal"
        return seat, None, f"seat {seat}'s clock ran out: a computer player ({level}) plays for it"
    if kind == SEAT_RETURNED:
        seat = int(payload["seat"])
        return seat, None, f"seat {seat} is back and plays again"
    if kind == TABLE_EXPIRED:
        return None, None, "the table expired: nobody started it in time"
    if kind == GAME_ABANDONED:
        return None, None, "the game was abandoned: nobody played for too long; no winner"
    if kind == TABLE_HOSTED:
        return None, None, f"a {payload.get('game')} table for {payload.get('seats')} was set up"
    if kind == GAME_STARTED:
        return None, None, "the game started"
    if kind == CARDS_DEALT:
        count = len(payload.get("cards", ()))
        committed = payload.get("commitment")
        sealed = f" (sealed: commitment {committed[:12]}…)" if committed else ""
        return None, None, f"{count} cards were shuffled and dealt{sealed}"
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
