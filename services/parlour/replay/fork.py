"""Fork: a new table that starts from another table's game at a chosen event.

To study a hand or settle an argument, ``fork_game`` copies a table's
game-defining events (``GameStarted``, ``CardsDealt``, ``ActionTaken``) up to
and including event ``at`` into a new table, with people or bots in the seats
as asked, so play goes on from exactly that position. The copies keep their
payloads, schema versions and digests: the new table's log replays to the
same states. Lobby events (``SeatTaken``, ``SeatLeft``) are not copied; the
new table records its own seating. If the position waits for a deal (the
last trick of a hand was just played), the fork deals afresh, as the service
would.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from parlour.replay.check import ReplayError, replay
from parlour.service.app import auth
from parlour.service.domain import deals
from parlour.service.domain import statuses as domain
from parlour.service.domain.events import CardsDealt, SeatTaken, TableHosted, decode
from parlour.service.domain.fold import chained_digest, fold
from parlour.service.domain.statuses import EventType
from parlour.service.store.protocol import (
    EventStore,
    NewEvent,
    SeatRow,
    TableRow,
    UnknownTable,
    stored_events,
    utcnow,
)
from parlour.words import phrase

GAME_EVENTS = (EventType.GAME_STARTED, EventType.CARDS_DEALT, EventType.ACTION_TAKEN)
PERSON, BOT = domain.SeatKind.PERSON, domain.SeatKind.BOT


class ForkError(Exception):
    """The fork cannot be made (no such table or event, game not started or over...)."""


@dataclass(frozen=True)
class SeatKind:
    """Who sits in a seat of the fork: a person, or a bot of some level."""

    kind: domain.SeatKind = BOT
    bot_level: str = ""

    @staticmethod
    def parse(text: str) -> SeatKind:
        """``person``, ``bot`` or ``bot:LEVEL`` (``p`` and ``b`` for short)."""
        word, _, level = text.strip().lower().partition(":")
        kind = {"p": PERSON, "person": PERSON, "b": BOT, "bot": BOT}.get(word)
        if kind is None:
            raise ValueError(f"a seat is 'person', 'bot' or 'bot:LEVEL', not {text!r}")
        if level and kind != BOT:
            raise ValueError(f"only a bot has a level: {text!r}")
        return SeatKind(kind, level)


@dataclass(frozen=True)
class Forked:
    """The new table: its id, the host token, and a token per person seat."""

    table_id: str
    source: str
    at: int
    host_token: str
    seat_tokens: dict[int, str] = field(default_factory=dict)
    seat_kinds: tuple[SeatKind, ...] = ()
    version: int = 0
    dealt_afresh: bool = False


async def fork_game(
    store: EventStore,
    source: str,
    at: int,
    seat_kinds: Sequence[SeatKind] | None = None,
    *,
    rng: random.Random | None = None,
    accounts: Mapping[int, str] | None = None,
    names: Mapping[int, str] | None = None,
) -> Forked:
    """Create a new table whose game is table ``source``'s game after event ``at``.

    ``seat_kinds`` (one per seat) defaults to the source table's seating.
    Every person seat is taken at once and its token returned; the new table
    is playing, so bots (and people, with their tokens) carry on from there.
    ``accounts`` and ``names`` (seat -> value) bind a person seat to an account
    and name it (ForkTable: the caller's seat); by default a person seat keeps
    the source's name, unbound.
    """
    try:
        table = await store.get_table(source)
    except UnknownTable:
        raise ForkError(f"no table {source!r}") from None
    events = await store.read(source, 0, at)
    if not events or events[-1].seq != at:
        final = await store.last_seq(source)
        raise ForkError(f"table {source} has no event {at} (its last is {final})")
    try:
        *_, last = replay(events)  # the prefix must be sound before anyone plays on
    except ReplayError as error:
        raise ForkError(f"table {source}'s log does not replay: {error}") from None
    state = last.state
    if state is None:
        raise ForkError(f"the game at table {source} had not started by event {at}")
    if state.is_over:
        raise ForkError(f"the game at table {source} is over at event {at}: nothing to play")
    setup = decode(events[0])
    if not isinstance(setup, TableHosted):  # not a table's log as the service writes one
        setup = TableHosted(table.game, table.seats, dict(table.options))
    kinds = tuple(seat_kinds) if seat_kinds else _kinds_of(setup, table.seats)
    if len(kinds) != table.seats:
        raise ForkError(f"table {source} has {table.seats} seats, not {len(kinds)}")

    host_token = auth.new_token()
    seat_rows, seat_tokens, seated = _seat(kinds, table, accounts or {}, names or {})
    # The fork's deals are its own: fresh shuffles (committed), not derived
    # from the source's seed, which is not copied.
    hosted = replace(
        setup,
        players_entropy=None,
        server_seed=None,
        server_seed_commitment=None,
        seat_kinds=tuple(str(kind.kind) for kind in kinds),
        bot_levels=tuple(kind.bot_level for kind in kinds),
        # in the language of the call that forks (the name is stored once, as data)
        name=phrase("table.fork_name", None, name=setup.name or table.name, table=source, at=at),
        forked_from={"table_id": source, "seq": at},
    )
    written = [hosted.new(), *seated]
    written += [
        NewEvent(event.type, event.payload, event.digest, event.schema_version)
        for event in events
        if event.type in GAME_EVENTS
    ]
    dealt_afresh = False
    cards = state.chance()
    if cards is not None:
        deck = list(cards)
        (rng or secrets.SystemRandom()).shuffle(deck)
        state.deal(deck)
        codes = tuple(str(card) for card in deck)
        salt = deals.new_secret()
        number = sum(event.type == EventType.CARDS_DEALT for event in written)
        dealt = CardsDealt(codes, number, salt, deals.commitment(codes, salt))
        previous = next((event.digest for event in reversed(written) if event.digest), "")
        written.append(dealt.new(chained_digest(previous, dealt, state)))
        dealt_afresh = True
    row = TableRow(
        table_id=secrets.token_hex(8),
        game=table.game,
        seats=table.seats,
        options=dict(table.options),
        status=domain.TableStatus.PLAYING,
        host_token_hash=auth.token_hash(host_token),
        version=len(written),
        name=hosted.name,
        seat_rows=tuple(seat_rows),
    )
    # the seats to act go into the "who must act now" projection with the table
    now = utcnow()
    folded = fold(stored_events(row.table_id, 0, written, None, now))
    bots = [seat_row.seat for seat_row in seat_rows if seat_row.kind == domain.SeatKind.BOT]
    turns = folded.clock.rows(table.game, bots)
    await store.create_table(row, written, turns=turns, now=now)
    return Forked(
        row.table_id, source, at, host_token, seat_tokens, kinds, len(written), dealt_afresh
    )


def _kinds_of(setup: TableHosted, seats: int) -> tuple[SeatKind, ...]:
    kinds = list(setup.seat_kinds or [PERSON] * seats)
    levels = list(setup.bot_levels or [""] * seats)
    return tuple(
        SeatKind(BOT, levels[seat] or "") if kind == BOT else SeatKind(PERSON)
        for seat, kind in enumerate(kinds)
    )


def _seat(
    kinds: Sequence[SeatKind],
    source: TableRow,
    accounts: Mapping[int, str],
    names: Mapping[int, str],
) -> tuple[list[SeatRow], dict[int, str], list[NewEvent]]:
    """Seat rows for the fork, a token per person seat, and the SeatTaken events."""
    rows, tokens, taken = [], {}, []
    for seat, kind in enumerate(kinds):
        if kind.kind == BOT:
            label = f"Bot {seat + 1}" + (f" ({kind.bot_level})" if kind.bot_level else "")
            rows.append(
                SeatRow(seat, BOT, kind.bot_level or None, label, token_hash=None, occupied=True)
            )
            continue
        old = source.seat_rows[seat] if seat < len(source.seat_rows) else None
        name = old.player_name if old is not None and old.kind == PERSON else None
        name = names.get(seat) or name or f"Player {seat + 1}"
        tokens[seat] = auth.new_token()
        account = accounts.get(seat)
        hashed = auth.token_hash(tokens[seat])
        rows.append(SeatRow(seat, PERSON, None, name, hashed, True, account_id=account))
        taken.append(SeatTaken(seat, name, account_id=account).new())
    return rows, tokens, taken


async def fork_table(
    store: EventStore,
    source: str,
    at: int,
    seats: Sequence[tuple[str, str]],
    accounts: Mapping[int, str],
    names: Mapping[int, str],
) -> Forked:
    """:func:`fork_game` as the service calls it (ReplayService.ForkTable, wired by
    ``parlour serve``): a seat is a ``(kind, bot level)`` pair of plain strings."""
    kinds = [SeatKind(domain.SeatKind(kind), level) for kind, level in seats]
    return await fork_game(store, source, at, kinds, accounts=accounts, names=names)
