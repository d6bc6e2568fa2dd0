"""The fold: a table's events, replayed into an engine state.

A table's history is ``TableHosted``, ``SeatTaken``/``SeatLeft`` while it is
open, ``GameStarted``, then ``CardsDealt`` (the outcome of chance, recorded)
and ``ActionTaken`` events until ``GameFinished``. Folding never draws a
random number, so any replica — or a replay on another machine — reaches the
same state; each event's stored digest lets a replay check that it did.
Events are folded as the typed classes ``events.decode`` reads them into.

Also here: the public one-line description of each event, for Watch streams.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any

from parlour.action_words import action_words
from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.registry import new_game
from parlour.service.domain.clock import TurnClock
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    ChatSaid,
    ChatSwitched,
    DomainEvent,
    GameAbandoned,
    GameFinished,
    GameStarted,
    SeatAway,
    SeatLeft,
    SeatRemoved,
    SeatReturned,
    SeatTaken,
    TableExpired,
    TableHosted,
    decode,
    decode_payload,
)
from parlour.service.domain.statuses import EventType
from parlour.service.store.protocol import StoredEvent

#: The first schema version of each type whose digest is chained (see event_digest).
CHAINED_FROM: dict[str, int] = {EventType.ACTION_TAKEN.value: 2, EventType.CARDS_DEALT.value: 3}
_NEVER = 1 << 30

#: How many of the latest chat lines a table's view carries.
CHAT_KEPT = 50
#: the latest events a cached fold keeps for its watchers (Folded.recent)
RECENT_KEPT = 64
#: The events that change nothing of the game: a move decided before one is not stale.
CHAT_EVENTS = frozenset({EventType.CHAT_SAID.value, EventType.CHAT_SWITCHED.value})


@dataclass(frozen=True, slots=True)
class ChatEntry:
    """One line of the table's chat, as every seat and spectator may read it."""

    version: int
    seat: int
    player_name: str
    text: str
    said_at: datetime


#: The events whose digest chains (the others hash the whole state, or carry none).
Chained = ActionTaken | CardsDealt


class ReplayMismatch(Exception):
    """A stored digest disagrees with the state the fold reached (corrupt or foreign history)."""

    def __init__(self, event: StoredEvent, got: str) -> None:
        super().__init__(
            f"table {event.table_id}: event {event.seq} ({event.type}) should leave the game "
            f"in the state with digest {event.digest}, but replaying it gives {got}"
        )
        self.seq = event.seq
        self.type = event.type
        self.expected = event.digest
        self.got = got


@dataclass
class Folded:
    """A table's engine state at ``version`` (the seq of the last event folded in).

    ``state`` is None until the game has started. ``hosted`` is the
    TableHosted event (game, seats, options...), ``setup`` its payload.
    """

    version: int = 0
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
    hosted: TableHosted | None = None
    #: the accounts the host removed from the table (they may not sit here again)
    barred_accounts: set[str] = field(default_factory=set)
    #: the host removed a person without an account: only signed-in callers may sit
    anonymous_barred: bool = False
    #: the version of the last event that was not chat: an Act decided at any version
    #: from here to ``version`` saw the game as it is (chat never makes a move stale)
    moved_at: int = 0
    #: whether seats may chat now (the table option, then the host's switch)
    chat_on: bool = True
    #: the latest chat lines (at most CHAT_KEPT), oldest first
    chat: list[ChatEntry] = field(default_factory=list)
    #: the latest stored events, contiguous, the last at ``version`` when kept up
    #: (the application's table cache keeps it: a watcher's news without a read)
    recent: deque[StoredEvent] = field(default_factory=lambda: deque(maxlen=RECENT_KEPT))
    #: what readers derived from the fold at ``derived_at`` (a view per seat),
    #: shared by every reader of that version; see :meth:`derived_now`
    derived: dict[Any, Any] = field(default_factory=dict)
    derived_at: int = -1

    def derived_now(self) -> dict[Any, Any]:
        """The values derived at the current version (emptied when it moved on).

        Only for values that are a function of the fold at a version: the
        fold changes ahead of a commit only under the table's lock, and a
        failed commit drops the whole fold from the cache.
        """
        if self.derived_at != self.version:
            self.derived.clear()
            self.derived_at = self.version
        return self.derived

    def keep(self, events: Iterable[StoredEvent]) -> None:
        """Remember ``events`` (read or committed, in seq order) in :attr:`recent`."""
        recent = self.recent
        for event in events:
            if recent:
                last = recent[-1].seq
                if event.seq <= last:
                    continue  # (read again from an earlier version)
                if event.seq != last + 1:
                    recent.clear()  # a gap: start again from here
            recent.append(event)

    def since(self, after: int) -> tuple[StoredEvent, ...] | None:
        """The events after ``after`` up to ``version`` from :attr:`recent`, or None
        if it does not hold all of them."""
        if after >= self.version:
            return ()
        recent = self.recent
        if not recent or recent[-1].seq != self.version or recent[0].seq > after + 1:
            return None
        # contiguous up to ``version``: the news are its last ``version - after``
        return tuple(islice(recent, len(recent) - (self.version - after), None))

    def apply(self, event: StoredEvent, *, check_digest: bool = False) -> None:
        """Fold one more event (its seq must follow ``self.version``)."""
        self.take(decode(event), event, check_digest=check_digest)

    def take(self, typed: DomainEvent, event: StoredEvent, *, check_digest: bool = False) -> None:
        """Fold ``typed``, the decoded ``event`` (its seq must follow ``self.version``)."""
        previous = self.digest
        # Class patterns without sub-patterns: matching fields positionally
        # costs more than reading them, and this runs for every event.
        match typed:
            case ActionTaken():  # the most frequent first
                assert self.state is not None, "action before the game started"
                self.state.apply(typed.seat, parse_action(typed.action))
                self.clock.track(self.state.to_act(), event.created_at, acted=typed.seat)
            case CardsDealt():
                assert self.state is not None, "cards dealt before the game started"
                self.state.deal([Card.parse(code) for code in typed.cards])
                self.deals += 1
                self.clock.track(self.state.to_act(), event.created_at)
            case _:
                self._lobby(typed, event)
        if event.digest:
            if check_digest and self.state is not None:
                got = digest_of(typed, event.schema_version, previous, self.state)
                if got != event.digest:
                    raise ReplayMismatch(event, got)
            self.digest = event.digest
        if typed.NAME not in CHAT_EVENTS:
            self.moved_at = event.seq
        self.version = event.seq

    def _lobby(self, typed: DomainEvent, event: StoredEvent) -> None:
        """Fold the events around the game: set-up, seating, start, clocks, the end."""
        match typed:
            case ChatSaid():
                line = ChatEntry(
                    event.seq, typed.seat, typed.player_name, typed.text, event.created_at
                )
                self.chat.append(line)
                if len(self.chat) > CHAT_KEPT:
                    del self.chat[: len(self.chat) - CHAT_KEPT]
            case ChatSwitched():
                self.chat_on = bool(typed.on)
            case TableHosted():
                self.hosted = typed
                self.setup = typed.payload()
                self.clock = TurnClock.of(typed.clock)
                self.chat_on = typed.chat is not False
            case SeatTaken():
                self.seat_entropy[typed.seat] = typed.entropy or ""
            case SeatLeft():
                self.seat_entropy.pop(typed.seat, None)
            case SeatRemoved():
                self.seat_entropy.pop(typed.seat, None)
                if typed.account_id is None:
                    self.anonymous_barred = True
                else:
                    self.barred_accounts.add(typed.account_id)
            case GameStarted():
                hosted = self.hosted
                assert hosted is not None, "the game started at a table nobody set up"
                self.state = new_game(hosted.game, int(hosted.seats), hosted.options or {})
                self.contributions = [str(value) for value in typed.contributions or ()]
            case SeatAway():
                self.clock.went_away(typed.seat)
            case SeatReturned():
                self.clock.came_back(typed.seat, event.created_at)
            case GameAbandoned():
                self.ended = "abandoned"
            case TableExpired():
                self.ended = "expired"

    def chain(self, event: Chained) -> str:
        """The digest ``event`` (written now, already applied to ``state``) carries."""
        assert self.state is not None
        self.digest = chained_digest(self.digest, event, self.state)
        return self.digest

    def digest_next(self, kind: str, payload: dict[str, Any]) -> str:
        """:meth:`chain` for an event given as its type and (current) payload."""
        event = decode_payload(kind, payload)
        assert isinstance(event, ActionTaken | CardsDealt), f"{kind} carries no chained digest"
        return self.chain(event)


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
    written at, given the digest of the event before it and the state it led to."""
    return digest_of(decode(event), event.schema_version, previous, state)


def digest_of(event: DomainEvent, version: int, previous: str, state: GameState) -> str:
    """:func:`event_digest` of an event already decoded (written at schema ``version``).

    Older versions hash a snapshot of the whole state (``GameState.digest``);
    from ``CHAINED_FROM`` on the digest is :func:`chained_digest`.
    """
    if version < CHAINED_FROM.get(event.NAME, _NEVER):
        return state.digest()
    return chained_digest(previous, event, state)


def chained_digest(previous: str, event: DomainEvent, state: GameState) -> str:
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
    if isinstance(event, ActionTaken):
        text = f"{previous}|{event.NAME}|{event.seat} {event.action}|{state.to_act()}"
    elif isinstance(event, CardsDealt):
        cards = " ".join(event.cards)
        text = f"{previous}|{event.NAME}|{cards}|{state.to_act()}|{state.digest()}"
    else:
        raise TypeError(f"a {event.NAME} event carries no chained digest")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fold(events: Iterable[StoredEvent], into: Folded | None = None) -> Folded:
    """Fold ``events`` (in seq order) onto ``into`` (or onto a fresh table)."""
    folded = into if into is not None else Folded()
    for event in events:
        if event.seq > folded.version:
            folded.apply(event)
    return folded


def describe(
    event: StoredEvent | DomainEvent, viewer: int | None
) -> tuple[int | None, Action | None, str]:
    """(seat, action, text) of ``event`` (stored, or decoded) as ``viewer`` may see it.

    A Hearts card given to another player is secret: only the giver sees it.
    """
    typed = decode(event) if isinstance(event, StoredEvent) else event
    match typed:
        case ActionTaken():
            seat, action = typed.seat, parse_action(typed.action)
            if action.kind is ActionKind.GIVE and viewer != seat:
                count = len(action.cards)
                chose = "a card" if count == 1 else f"{count} cards"
                return seat, Action(ActionKind.GIVE), f"seat {seat} chose {chose} to pass"
            return (
                seat,
                action,
                f"seat {seat} {action_words(action, 'past', cards='codes', language='en')}",
            )
        case SeatTaken():
            seat = typed.seat
            return seat, None, f"{typed.player_name or 'someone'} took seat {seat}"
        case SeatLeft():
            return typed.seat, None, f"seat {typed.seat} was given up"
        case SeatRemoved():
            return typed.seat, None, f"the host removed the player from seat {typed.seat}"
        case SeatAway():
            seat, level = typed.seat, typed.bot_level or "normal"
            return (
                seat,
                None,
                f"seat {seat}'s clock ran out: a computer player ({level}) plays for it",
            )
        case SeatReturned():
            return typed.seat, None, f"seat {typed.seat} is back and plays again"
        case TableExpired():
            return None, None, "the table expired: nobody started it in time"
        case GameAbandoned():
            return None, None, "the game was abandoned: nobody played for too long; no winner"
        case TableHosted():
            return None, None, f"a {typed.game} table for {typed.seats} was set up"
        case GameStarted():
            return None, None, "the game started"
        case CardsDealt():
            committed = typed.commitment
            sealed = f" (sealed: commitment {committed[:12]}…)" if committed else ""
            return None, None, f"{len(typed.cards)} cards were shuffled and dealt{sealed}"
        case GameFinished():
            who = ", ".join(f"seat {seat}" for seat in typed.winners) or "nobody"
            return None, None, f"the game is over; won by {who}"
        case ChatSaid():
            return typed.seat, None, f"seat {typed.seat} said: {typed.text}"
        case ChatSwitched():
            return None, None, "the host switched the chat " + ("on" if typed.on else "off")
    return None, None, typed.TYPE
