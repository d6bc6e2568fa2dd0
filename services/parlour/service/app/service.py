"""Application handlers: host, join, leave, start, act, view and watch a table.

Plain async methods over an injected :class:`EventStore` and notifier; no
gRPC here (``grpc_server.py`` adapts them). The engine state of a table is
the fold of its events; :class:`GameService` keeps an LRU cache of folded
states, always checked against the store: a read folds only the events after
the cached seq, and an append is made at the cached seq, so a stale cache can
only cost a retry, never a wrong answer.

Acting, in order: check the seat's token; under the table's lock, bring the
state up to date, check the client's expected version, apply the action on
the cached state (an engine error leaves it untouched), deal with
``secrets.SystemRandom`` if chance is due, and append everything in one
transaction at the cached seq. A lost race is retried once (when the client
did not pin a version) or answered ABORTED. Any failure after the state was
mutated evicts it from the cache. A repeated request id applies nothing and
answers the first result, when it is the same request (same seat, same move);
the id used by another seat or for another move is refused (RequestIdReused).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.errors import EngineError
from parlour.engine.registry import get_game
from parlour.engine.view import View
from parlour.service.app import auth, metrics, paging
from parlour.service.app.seating import (
    Credentials,
    Hosted,
    Joined,
    SeatChoice,
    clean_name,
    default_name,
    pick_seat,
    require_open,
    seat_row,
)
from parlour.service.domain import deals
from parlour.service.domain.clock import TURN_SECONDS, resolve_clock, split_options
from parlour.service.domain.errors import (
    AheadOfTable,
    BadRequest,
    LostRace,
    RequestIdReused,
    ShuttingDown,
    StaleVersion,
    TableNotFound,
    TurnLeased,
    WrongTableState,
    WrongToken,
    shorten,
)
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    GameAbandoned,
    GameFinished,
    GameStarted,
    SeatAway,
    SeatLeft,
    SeatReturned,
    SeatTaken,
    TableExpired,
    TableHosted,
)
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import (
    ConcurrencyConflict,
    DuplicateRequest,
    EventStore,
    NewEvent,
    SeatRow,
    StoredEvent,
    TableQuery,
    TableRow,
    TurnRow,
    UnknownTable,
    utcnow,
)

__all__ = [
    "Credentials",
    "GameService",
    "MoveSpec",
    "SeatChoice",
    "Snapshot",
    "Waiter",
]

log = logging.getLogger("parlour.service")

#: A move as the client gave it: a legal-action id (int), action text, or an Action.
MoveSpec = int | str | Action
#: (table_id, seat, worker_id, expected_version) -> None, or raises TurnLeased
BotActGuard = Callable[[str, int, str | None, int | None], Awaitable[None]]


class Waiter(Protocol):
    """What the application needs of a notifier (``notify.Notifier``).

    The notifier hears this process's appends from the store itself
    (``make_notifier(store)`` registers it as a listener), and other
    replicas' appends through its adapter (Postgres NOTIFY or NATS);
    ``wait_any`` wakes on bot turns only.
    """

    async def wait(self, game_id: str, after_seq: int, timeout: float) -> None: ...

    def notify_all(self) -> None: ...

    @property
    def changes(self) -> int: ...

    async def wait_any(self, after_changes: int, timeout: float) -> None: ...


@dataclass(frozen=True)
class Snapshot:
    """A seat's (or spectator's) view of a table at ``version``.

    ``view`` is None while the table is open (the lobby has no engine state).
    ``events`` are those since the caller's last version (Watch only).
    """

    version: int
    table: TableRow
    view: View | None
    events: tuple[StoredEvent, ...] = ()
    duplicate: bool = False
    #: person seats being played by a bot (their clock ran out)
    away: frozenset[int] = frozenset()
    #: seat -> when its turn clock runs out (seats to act, with a clock, not away)
    deadlines: Mapping[int, datetime] = field(default_factory=dict)
    #: "abandoned" or "expired" when the table ended without finishing its game
    ended: str = ""
    #: the bot level that plays for an away seat
    away_bot_level: str = ""


class GameService:
    """The game service's application layer (one per process)."""

    def __init__(
        self,
        store: EventStore,
        notifier: Waiter,
        *,
        worker_token: str | None = None,
        cache_size: int = 4096,
        rng: random.Random | None = None,
        watch_poll_seconds: float = 15.0,
        bot_levels: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.store = store
        #: game id -> the bot levels the catalogue publishes; HostTable refuses others
        self.bot_levels = {game: tuple(levels) for game, levels in (bot_levels or {}).items()}
        self.notifier = notifier
        self._worker_token_hash = auth.token_hash(worker_token) if worker_token else None
        self._cache_size = cache_size
        self._states: OrderedDict[str, Folded] = OrderedDict()
        # Seats never change once a table is playing, so its row is cached then;
        # its status and version are not read from it (the fold has them).
        self._rows: OrderedDict[str, TableRow] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._rng = rng or secrets.SystemRandom()
        self.watch_poll_seconds = watch_poll_seconds
        self._closing = False
        #: Called before a worker's Act for a bot seat as (table_id, seat, worker_id,
        #: expected_version); raises TurnLeased when another worker holds the turn
        #: (set by bots_rpc.BotTurns).
        self.bot_act_guard: BotActGuard | None = None

    @property
    def closing(self) -> bool:
        """True once :meth:`begin_shutdown` was called."""
        return self._closing

    def begin_shutdown(self) -> None:
        """End every Watch stream with UNAVAILABLE, so its client resumes on another replica."""
        self._closing = True
        self.notifier.notify_all()

    # -- plumbing ------------------------------------------------------------------------

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[table_id] = lock
        return lock

    def _remember(self, table_id: str, folded: Folded) -> None:
        self._states[table_id] = folded
        self._states.move_to_end(table_id)
        while len(self._states) > self._cache_size:
            self._states.popitem(last=False)

    def _evict(self, table_id: str) -> None:
        self._states.pop(table_id, None)

    async def _table(self, table_id: str) -> TableRow:
        """The table's row: cached once it is playing, read fresh while open."""
        row = self._rows.get(table_id)
        if row is not None:
            self._rows.move_to_end(table_id)
            return row
        if not table_id:
            raise BadRequest("table_id is required")
        try:
            row = await self.store.get_table(table_id)
        except UnknownTable:
            raise TableNotFound(f"no table {shorten(table_id)}") from None
        if row.status != TableStatus.OPEN:
            self._rows[table_id] = row
            while len(self._rows) > self._cache_size:
                self._rows.popitem(last=False)
        return row

    async def _refresh(self, table_id: str, after: int | None = None) -> tuple[Folded, list[Any]]:
        """Bring the cached fold up to the store's latest event (call under the lock).

        Returns the fold and the events read, which start after
        ``min(cached seq, after)`` so a watcher gets its events in the same read.
        """
        folded = self._states.get(table_id) or Folded()
        start = folded.seq if after is None else min(folded.seq, after)
        events = await self.store.read(table_id, start)
        try:
            fold(events, folded)
        except BaseException:
            self._evict(table_id)
            raise
        self._remember(table_id, folded)
        return folded, events

    def _check_seat(
        self,
        table: TableRow,
        seat: int,
        credentials: Credentials,
        away: frozenset[int] = frozenset(),
    ) -> SeatRow:
        """The seat's row, once ``credentials`` prove the caller may act for it (a worker
        acts for bot seats and for the seats of people who are away)."""
        if not 0 <= seat < table.seats:
            raise BadRequest(
                f"table {table.table_id} has seats 0 to {table.seats - 1}, not seat {seat}"
            )
        row = table.seat_rows[seat]
        if credentials.worker_token and not credentials.seat_token:
            if row.kind != SeatKind.BOT and seat not in away:
                raise WrongToken(
                    f"a worker token acts only for bot seats; seat {seat} is a person's "
                    "(send its seat token)"
                )
            auth.check_token(credentials.worker_token, self._worker_token_hash, "worker")
        else:
            auth.check_token(credentials.seat_token, row.token_hash, f"seat {seat}")
        return row

    async def _away(
        self, table: TableRow, credentials: Credentials, seat: int | None
    ) -> frozenset[int]:
        """The seats played by a bot while their person is away, when a worker asks for a
        person's seat (a worker may act for it then); empty otherwise (no right needed,
        and no read: a bot seat's move costs nothing more)."""
        if not (credentials.worker_token and not credentials.seat_token):
            return frozenset()
        if table.status != TableStatus.PLAYING or seat is None:
            return frozenset()
        if not 0 <= seat < table.seats or table.seat_rows[seat].kind != SeatKind.PERSON:
            return frozenset()
        async with self._lock(table.table_id):
            folded, _ = await self._refresh(table.table_id)
            return frozenset(folded.clock.away)

    async def _lobby_snapshot(self, table: TableRow) -> Snapshot:
        if table.status == TableStatus.EXPIRED:
            return Snapshot(table.version, table, None, ended="expired")
        return Snapshot(table.version, table, None)

    def _turn_rows(self, folded: Folded, table: TableRow) -> list[TurnRow]:
        """The table's rows of the "who must act now" projection (after ``folded``)."""
        bots = [row.seat for row in table.seat_rows if row.kind == SeatKind.BOT]
        return folded.clock.rows(table.game, bots)

    # -- clocks and expiry (run by the sweeper of every replica, see sweeper.py) ----------

    async def time_out(self, table_id: str, seat: int, version: int) -> bool:
        """A person's clock ran out at ``version``: a bot plays the seat from now (SeatAway).

        Checked against the log (the deadline is recomputed from it); appended at
        ``version``, so of several replicas sweeping the same deadline one writes.
        True if this call wrote the event.
        """
        table = await self._table(table_id)
        async with self._lock(table_id):
            folded, _ = await self._refresh(table_id)
            deadline = folded.clock.deadline(seat)
            now = utcnow()
            if (
                folded.seq != version
                or folded.ended
                or folded.state is None
                or folded.state.is_over
                or deadline is None
                or deadline > now
            ):
                return False
            folded.clock.went_away(seat)
            level = folded.clock.away_bot_level
            return await self._append_quietly(
                folded,
                table,
                [SeatAway(seat, level).new()],
                now,
            )

    async def return_to_seat(self, table_id: str, seat: int, credentials: Credentials) -> Snapshot:
        """The person takes back a seat a bot played while they were away (SeatReturned)."""
        table = await self._table(table_id)
        self._check_seat(table, seat, credentials)
        if credentials.worker_token and not credentials.seat_token:
            raise WrongToken("only the seat's own token takes a seat back")
        for attempt in (0, 1):
            async with self._lock(table_id):
                folded, _ = await self._refresh(table_id)
                state = _started(folded, table_id)
                if seat not in folded.clock.away:
                    return _snapshot(folded, table, state.view(seat))
                if folded.ended or state.is_over:
                    raise WrongTableState(f"the game at table {table_id} is over")
                now = utcnow()
                folded.clock.came_back(seat, now)
                turns = self._turn_rows(folded, table)
                try:
                    stored = await self.store.append(
                        table_id,
                        folded.seq,
                        [SeatReturned(seat).new()],
                        turns=turns,
                        bot_turn=_bot_turn(turns),
                        person_active_at=now,
                        now=now,
                    )
                except ConcurrencyConflict:
                    self._evict(table_id)
                    if attempt:
                        raise LostRace("the table moved on; try again") from None
                    continue
                except BaseException:
                    self._evict(table_id)
                    raise
                folded.seq = stored[-1].seq
                return _snapshot(folded, table, state.view(seat))
        raise AssertionError("unreachable")

    async def expire(self, table_id: str, before: datetime) -> bool:
        """End an open table whose last person activity was before ``before`` (TableExpired)."""
        table = await self.get_table(table_id)
        if table.status != TableStatus.OPEN:
            return False
        if table.person_active_at is None or table.person_active_at >= before:
            return False  # (a table without people never expires)
        try:
            await self.store.append(
                table_id,
                table.version,
                [TableExpired().new()],
                table_status=TableStatus.EXPIRED,
                turns=[],
                bot_turn=False,
            )
        except ConcurrencyConflict:
            return False
        return True

    async def abandon(self, table_id: str, before: datetime) -> bool:
        """End a playing table no person moved since ``before``: GameAbandoned, with the
        scores as they stand and no winner; the bots' turns go with it."""
        table = await self.get_table(table_id)
        if table.status != TableStatus.PLAYING:
            return False
        if table.person_active_at is None or table.person_active_at >= before:
            return False
        async with self._lock(table_id):
            folded, _ = await self._refresh(table_id)
            state = _started(folded, table_id)
            if folded.ended or state.is_over or folded.seq != table.version:
                return False
            ended = GameAbandoned(tuple(state.scores()))
            written = await self._append_quietly(
                folded,
                table,
                [ended.new()],
                utcnow(),
                status=TableStatus.ABANDONED,
                final=True,
            )
            if written:
                folded.ended = "abandoned"
            return written

    async def _append_quietly(
        self,
        folded: Folded,
        table: TableRow,
        events: list[NewEvent],
        now: datetime,
        *,
        status: TableStatus | None = None,
        final: bool = False,
    ) -> bool:
        """Append the sweeper's event at the fold's version (call under the lock); a lost
        race (another replica's sweeper, a move) is no error: False."""
        turns = [] if final else self._turn_rows(folded, table)
        try:
            stored = await self.store.append(
                table.table_id,
                folded.seq,
                events,
                table_status=status,
                turns=turns,
                bot_turn=_bot_turn(turns),
                now=now,
            )
        except ConcurrencyConflict:
            self._evict(table.table_id)
            return False
        except BaseException:
            self._evict(table.table_id)
            raise
        folded.seq = stored[-1].seq
        return True

    # -- the lobby -----------------------------------------------------------------------

    async def host_table(
        self,
        game: str,
        seats: int,
        options: Mapping[str, object],
        seat_setup: Sequence[SeatChoice] = (),
        *,
        name: str = "",
        host_player_name: str = "",
        host_takes_seat: bool = False,
        host_seat: int | None = None,
        players_entropy: bool = False,
        host_entropy: str = "",
    ) -> Hosted:
        """Set up a table seating exactly what the host asked for.

        With ``players_entropy`` the server draws its seed now and publishes
        its commitment in TableHosted, before any seat contributes.
        """
        info = get_game(game)
        if seats == 0:
            seats = len(seat_setup)
        if seats == 0:
            raise BadRequest("give the number of seats or a seat setup")
        if seat_setup and len(seat_setup) != seats:
            raise BadRequest(f"{seats} seats but a setup for {len(seat_setup)}")
        game_options, clock_options = split_options(options)
        resolved = info.resolve(seats, game_options)
        clock = resolve_clock(clock_options)
        choices = list(seat_setup) or [SeatChoice() for _ in range(seats)]
        self._check_bot_levels(info.id, choices)
        host_name = clean_name(host_player_name, "host_player_name", required=host_takes_seat)
        host_entropy = _entropy(host_entropy, "host_entropy")
        seat_rows = [seat_row(seat, choice) for seat, choice in enumerate(choices)]
        hosted = TableHosted(
            game=info.id,
            seats=seats,
            options=dict(resolved),
            seat_kinds=tuple(row.kind.value for row in seat_rows),
            bot_levels=tuple(row.bot_level or "" for row in seat_rows),
            name=name or default_name(host_name, info),
            clock=clock,
        )
        if players_entropy:
            seed = deals.new_secret()  # private: revealed with the log once the game is over
            hosted = replace(
                hosted,
                players_entropy=True,
                server_seed_commitment=deals.seed_commitment(seed),
                server_seed=seed,
            )
        events = [hosted.new()]
        seat, seat_token = None, ""
        if host_takes_seat:
            seat = pick_seat(seat_rows, host_seat, seats)
            seat_token = auth.new_token()
            seat_rows[seat] = replace(
                seat_rows[seat],
                player_name=host_name,
                token_hash=auth.token_hash(seat_token),
                occupied=True,
            )
            events.append(SeatTaken(seat, host_name, host_entropy or None).new())
        host_token = auth.new_token()
        row = TableRow(
            table_id=secrets.token_hex(8),
            game=info.id,
            seats=seats,
            # the clock's options are shown with the game's when the table has a clock
            options={**resolved, **clock} if clock[TURN_SECONDS] else dict(resolved),
            status=TableStatus.OPEN,
            host_token_hash=auth.token_hash(host_token),
            version=len(events),
            name=hosted.name,
            seat_rows=tuple(seat_rows),
        )
        await self.store.create_table(row, events, now=row.created_at)
        return Hosted(row, host_token, seat, seat_token)  # as stored: no need to read it back

    def _check_bot_levels(self, game: str, choices: Sequence[SeatChoice]) -> None:
        """Refuse a bot level the catalogue does not publish for ``game`` (if it publishes any)."""
        offered = self.bot_levels.get(game)
        if not offered:
            return
        for seat, choice in enumerate(choices):
            if choice.kind == SeatKind.BOT and choice.bot_level and choice.bot_level not in offered:
                raise BadRequest(
                    f"seat {seat}: no bot level {choice.bot_level!r} for {game} "
                    f"(choose from {', '.join(offered)}, or leave it empty for the default)"
                )

    async def list_tables(
        self,
        status: TableStatus | None = TableStatus.OPEN,
        game: str | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> tuple[list[TableRow], str]:
        """One page of tables, newest first, and the token of the next page ("" if none)."""
        size = paging.page_size(page_size)
        scope = f"tables|{status or ''}|{game or ''}"
        after = paging.decode(page_token, scope)
        rows = await self.store.list_tables(
            TableQuery(
                status,
                game or None,
                size + 1,
                after=None if after is None else (after.created_at, after.key),
            )
        )
        if len(rows) <= size:
            return rows, ""
        last = rows[size - 1]
        return rows[:size], paging.encode(paging.Cursor(last.created_at, last.table_id), scope)

    async def get_table(self, table_id: str) -> TableRow:
        try:
            return await self.store.get_table(table_id)
        except UnknownTable:
            raise TableNotFound(f"no table {shorten(table_id)}") from None

    async def join(
        self, table_id: str, player_name: str, seat: int | None = None, entropy: str = ""
    ) -> Joined:
        """Take a free person seat (``seat``, or the lowest free one).

        ``entropy`` is the seat's contribution to the deals (hex), used when
        the table was hosted with players' entropy.
        """
        name = clean_name(player_name, "player_name", required=True)
        entropy = _entropy(entropy, "entropy")
        for attempt in (0, 1):
            table = await self.get_table(table_id)
            require_open(table, "join")
            taken = pick_seat(list(table.seat_rows), seat, table.seats)
            token = auth.new_token()
            row = replace(
                table.seat_rows[taken],
                player_name=name,
                token_hash=auth.token_hash(token),
                occupied=True,
            )
            try:
                await self.store.append(
                    table_id,
                    table.version,
                    [SeatTaken(taken, name, entropy or None).new()],
                    seat_updates=[row],
                    bot_turn=False,
                    person_active_at=utcnow(),
                )
            except ConcurrencyConflict:
                if attempt:
                    raise LostRace("the table changed while joining; try again") from None
                continue
            return Joined(taken, token, await self.get_table(table_id))
        raise AssertionError("unreachable")

    async def leave(self, table_id: str, seat: int, credentials: Credentials) -> TableRow:
        """Give up a seat at an open table; its token stops working."""
        for attempt in (0, 1):
            table = await self.get_table(table_id)
            self._check_seat(table, seat, credentials)
            require_open(table, "leave")
            freed = SeatRow(seat=seat, kind=SeatKind.PERSON)
            try:
                await self.store.append(
                    table_id,
                    table.version,
                    [SeatLeft(seat).new()],
                    seat_updates=[freed],
                    bot_turn=False,
                )
            except ConcurrencyConflict:
                if attempt:
                    raise LostRace("the table changed while leaving; try again") from None
                continue
            return await self.get_table(table_id)
        raise AssertionError("unreachable")

    async def start(self, table_id: str, credentials: Credentials) -> TableRow:
        """Start the game (host only, every seat filled) and deal the first hand."""
        table = await self.get_table(table_id)
        auth.check_token(credentials.host_token, table.host_token_hash, "host")
        require_open(table, "start")
        empty = [row.seat for row in table.seat_rows if not row.occupied]
        if empty:
            raise WrongTableState(
                f"seat {empty[0]} is still free; every seat must be taken before the start"
            )
        async with self._lock(table_id):
            folded, _ = await self._refresh(table_id)
            started = GameStarted()
            if folded.setup.get("players_entropy"):
                # fixed now, in seat order: a seat that gave none (a bot) adds ""
                started = GameStarted(
                    tuple(folded.seat_entropy.get(seat, "") for seat in range(table.seats))
                )
            folded.apply(_synthetic(table_id, folded.seq + 1, GameStarted.TYPE, started.payload()))
            events = [started.new(), *self._chance(folded)]
            now = utcnow()
            assert folded.state is not None
            folded.clock.track(folded.state.to_act(), now)
            turns = self._turn_rows(folded, table)
            has_person = any(row.kind == SeatKind.PERSON for row in table.seat_rows)
            try:
                stored = await self.store.append(
                    table_id,
                    table.version,
                    events,
                    table_status=TableStatus.PLAYING,
                    turns=turns,
                    bot_turn=_bot_turn(turns),
                    person_active_at=now if has_person else None,
                    now=now,
                )
            except ConcurrencyConflict:
                raise LostRace("the table changed while starting; try again") from None
            finally:
                self._evict(table_id)
            folded.seq = stored[-1].seq
            self._remember(table_id, folded)
        # the row as the append left it (no need to read it back)
        return replace(
            table,
            status=TableStatus.PLAYING,
            version=stored[-1].seq,
            updated_at=now,
            person_active_at=now if has_person else None,
        )

    # -- play ----------------------------------------------------------------------------

    async def view(
        self,
        table_id: str,
        seat: int | None,
        credentials: Credentials,
        min_version: int | None = None,
    ) -> Snapshot:
        """The view of ``seat`` (None: a spectator) at the table's latest version; with
        ``min_version``, at that version or later: the cached fold when it is that
        recent (no read), else the store's latest. :class:`AheadOfTable` if the
        table has not reached ``min_version``."""
        table = await self._table(table_id)
        if seat is not None:
            self._check_seat(table, seat, credentials, await self._away(table, credentials, seat))
        if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
            snap = await self._lobby_snapshot(table)
            _check_reached(table_id, snap.version, min_version)
            return snap
        async with self._lock(table_id):
            folded = self._states.get(table_id)
            if folded is None or min_version is None or folded.seq < min_version:
                folded, _ = await self._refresh(table_id)
            _check_reached(table_id, folded.seq, min_version)
            state = _started(folded, table_id)
            return _snapshot(folded, table, state.view(seat))

    async def act(
        self,
        table_id: str,
        seat: int,
        credentials: Credentials,
        move: MoveSpec,
        *,
        expected_version: int | None = None,
        request_id: str = "",
    ) -> Snapshot:
        """Apply ``move`` for ``seat``; at most once per ``request_id``."""
        table = await self._table(table_id)
        away = await self._away(table, credentials, seat)
        row = self._check_seat(table, seat, credentials, away)
        by_worker = bool(credentials.worker_token and not credentials.seat_token)
        if isinstance(move, int) and expected_version is None:
            raise BadRequest("a legal_action_id needs the expected_version it was listed at")
        try:
            if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
                raise WrongTableState(f"the game at table {table_id} has not started")
            if (row.kind == SeatKind.BOT or seat in away) and self.bot_act_guard is not None:
                await self.bot_act_guard(table_id, seat, credentials.worker_id, expected_version)
            return await self._act(table, seat, move, expected_version, request_id, by_worker)
        except DuplicateRequest as duplicate:  # raced its own first try, which won
            return await self._first_result(
                table, seat, duplicate.first_seq, move, expected_version, request_id
            )
        except (EngineError, StaleVersion, LostRace, BadRequest, TurnLeased):
            # A resent request whose first try got through is now stale or
            # illegal; answer what the first try produced instead.
            if request_id:
                first = await self.store.find_request(table_id, request_id)
                if first is not None:
                    return await self._first_result(
                        table, seat, first, move, expected_version, request_id
                    )
            raise

    async def _act(
        self,
        table: TableRow,
        seat: int,
        move: MoveSpec,
        expected_version: int | None,
        request_id: str,
        by_worker: bool = False,
    ) -> Snapshot:
        table_id = table.table_id
        async with self._lock(table_id):
            for attempt in (0, 1):
                folded = self._states.get(table_id)
                if (
                    folded is None
                    or attempt == 1
                    or expected_version is None
                    or expected_version > folded.seq
                ):
                    folded, _ = await self._refresh(table_id)
                state = _started(folded, table_id)
                if folded.ended:
                    raise WrongTableState(f"the game at table {table_id} was {folded.ended}")
                if seat in folded.clock.away and not by_worker:
                    raise WrongTableState(
                        f"seat {seat} is played by a bot since its clock ran out; take the "
                        "seat back first (PlayService.ReturnToSeat with its token)"
                    )
                if expected_version is not None and expected_version != folded.seq:
                    raise StaleVersion(
                        f"version {expected_version} is stale: table {table_id} is at "
                        f"version {folded.seq}; fetch the view and decide again"
                    )
                action = _resolve(state, seat, move)
                state.apply(seat, action)  # raises before changing anything
                try:
                    events, status = self._consequences(folded, seat, action)
                    now = utcnow()
                    folded.clock.track(state.to_act(), now, acted=seat)
                    turns = [] if state.is_over else self._turn_rows(folded, table)
                    by_person = not by_worker
                    stored = await self.store.append(
                        table_id,
                        folded.seq,
                        events,
                        request_id=request_id or None,
                        table_status=status,
                        turns=turns,
                        bot_turn=_bot_turn(turns),
                        person_active_at=now if by_person else None,
                        now=now,
                    )
                except ConcurrencyConflict:
                    metrics.APPEND_CONFLICTS.inc()
                    self._evict(table_id)
                    if expected_version is not None or attempt:
                        raise LostRace(
                            f"another move reached table {table_id} first; "
                            "fetch the view and decide again"
                        ) from None
                    continue
                except BaseException:  # a DuplicateRequest is answered by act, unlocked
                    self._evict(table_id)
                    raise
                folded.seq = stored[-1].seq
                return _snapshot(folded, table, state.view(seat))
        raise AssertionError("unreachable")

    def _consequences(
        self, folded: Folded, seat: int, action: Action
    ) -> tuple[list[NewEvent], TableStatus | None]:
        """The events an applied action produces: itself, a deal if due, the end if reached."""
        state = folded.state
        assert state is not None
        taken = ActionTaken(seat, str(action))
        events = [taken.new(folded.chain(taken))]
        events += self._chance(folded)
        if state.is_over:
            events.append(GameFinished(tuple(state.scores()), tuple(state.winners())).new())
            return events, TableStatus.FINISHED
        return events, None

    def _chance(self, folded: Folded) -> list[NewEvent]:
        """Shuffle and deal if the game waits for chance (the deck is recorded).

        Each deal is committed: a fresh salt and the sha256 commitment to the
        deck are recorded with it (the commitment is public at once, the deck
        and salt once the game is over; see ``deals.py``). With players'
        entropy the deck is derived from the server's seed and the seats'
        contributions instead of drawn from ``self._rng``.
        """
        state = folded.state
        assert state is not None
        events = []
        seed = str(folded.setup.get("server_seed") or "")
        while (cards := state.chance()) is not None:
            number = folded.deals
            if seed:
                shuffled = deals.shuffle(
                    [str(card) for card in cards], seed, folded.contributions, number
                )
                deck = [Card.parse(code) for code in shuffled]
            else:
                deck = list(cards)
                self._rng.shuffle(deck)
            state.deal(deck)
            folded.deals += 1
            codes = [str(card) for card in deck]
            salt = deals.new_secret()
            dealt = CardsDealt(tuple(codes), number, salt, deals.commitment(codes, salt))
            events.append(dealt.new(folded.chain(dealt)))
        return events

    async def _first_result(
        self,
        table: TableRow,
        seat: int,
        first_seq: int,
        move: MoveSpec,
        expected_version: int | None,
        request_id: str,
    ) -> Snapshot:
        """What a request answered the first time: the seat's view after its events.

        Only for the same request: the same seat with the same move (by id at
        the same version, or the same action); anything else reusing the id is
        refused with RequestIdReused. A resent request usually comes straight
        after its first try, with the cached state still where that try left
        it: its view is answered from the cache. The log is folded again only
        when the table has moved on since, or to list the legal actions a
        resent legal_action_id was chosen from.
        """
        table_id = table.table_id
        async with self._lock(table_id):
            folded, _ = await self._refresh(table_id)
            caused = await self.store.read(table_id, first_seq - 1)  # the request's events on
            first = caused[0]
            before = None
            if isinstance(move, int) and first.type == ActionTaken.TYPE:
                before = fold(await self.store.read(table_id, 0, first_seq - 1))
            if not _same_request(first, before, seat, move, expected_version):
                raise RequestIdReused(
                    f"request_id {request_id!r} was already used at table {table_id} by "
                    f"seat {first.payload.get('seat')} for {first.payload.get('action')!r} "
                    f"(event {first_seq}); use a fresh request_id for each move"
                )
            end = first_seq
            for event in caused[1:]:  # what the request also caused
                if event.type not in (CardsDealt.TYPE, GameFinished.TYPE):
                    break
                end = event.seq
            if folded.seq != end:
                folded = fold(await self.store.read(table_id, 0, end))
            state = _started(folded, table_id)
            return replace(_snapshot(folded, table, state.view(seat)), version=end, duplicate=True)

    async def watch(
        self, table_id: str, seat: int | None, credentials: Credentials, from_version: int = 0
    ) -> AsyncIterator[Snapshot]:
        """Views as the table changes, starting after ``from_version``; ends when the game does."""
        table = await self._table(table_id)
        if seat is not None:
            self._check_seat(table, seat, credentials, await self._away(table, credentials, seat))
        if from_version < 0:
            raise BadRequest(f"from_version must be 0 or more, not {from_version}")
        if from_version > 0:
            await self._check_not_ahead(table, from_version)
        sent = from_version
        while True:
            snapshot, over = await self._changes_since(table_id, seat, sent)
            if snapshot is not None:
                yield snapshot
                sent = snapshot.version
            if over:
                return
            if self._closing:
                raise ShuttingDown("this server is shutting down; resume the watch elsewhere")
            await self.notifier.wait(table_id, sent, self.watch_poll_seconds)
            if self._closing:
                raise ShuttingDown("this server is shutting down; resume the watch elsewhere")

    async def _check_not_ahead(self, table: TableRow, version: int) -> None:
        """Refuse a version the table has not reached: it never will be sent."""
        if table.status == TableStatus.OPEN:
            latest = table.version
        else:
            async with self._lock(table.table_id):
                folded, _ = await self._refresh(table.table_id)
                latest = folded.seq
        _check_reached(table.table_id, latest, version, "from_version")

    async def _changes_since(
        self, table_id: str, seat: int | None, sent: int
    ) -> tuple[Snapshot | None, bool]:
        """The snapshot after ``sent`` (None if nothing new) and whether the game is over."""
        table = await self._table(table_id)
        if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
            expired = table.status == TableStatus.EXPIRED
            if table.version <= sent:
                return None, expired
            events = await self.store.read(table_id, sent, table.version)
            lobby = await self._lobby_snapshot(table)
            return replace(lobby, events=tuple(events)), expired
        async with self._lock(table_id):
            folded, events = await self._refresh(table_id, after=sent)
            state = _started(folded, table_id)
            if folded.seq <= sent:
                return None, state.is_over or bool(folded.ended)
            snapshot = _snapshot(folded, table, state.view(seat))
        news = tuple(event for event in events if event.seq > sent)
        if len(news) < folded.seq - sent:  # the cache was ahead of what we read
            news = tuple(await self.store.read(table_id, sent, folded.seq))
        over = snapshot.view is not None and snapshot.view.is_over
        return replace(snapshot, events=news), over or bool(snapshot.ended)


# -- helpers ---------------------------------------------------------------------------------


def _resolve(state: GameState, seat: int, move: MoveSpec) -> Action:
    if isinstance(move, Action):
        return move
    if isinstance(move, str):
        return Action.parse(move)
    state.check_turn(seat)  # not to act: FAILED_PRECONDITION, whatever the id
    legal = state.legal_actions(seat)
    if not 1 <= move <= len(legal):
        raise BadRequest(
            f"no legal action {move} for seat {seat}: the view lists ids 1 to {len(legal)}"
        )
    return legal[move - 1]


def _same_request(
    first: StoredEvent,
    before: Folded | None,
    seat: int,
    move: MoveSpec,
    expected_version: int | None,
) -> bool:
    """Whether a request (seat, move, expected_version) is the one that made event ``first``."""
    if first.type != ActionTaken.TYPE or int(first.payload["seat"]) != seat:
        return False
    if isinstance(move, int):
        if expected_version != first.seq - 1 or before is None or before.state is None:
            return False
        legal = before.state.legal_actions(seat)
        return 1 <= move <= len(legal) and str(legal[move - 1]) == first.payload["action"]
    try:
        action = move if isinstance(move, Action) else Action.parse(move)
    except EngineError:
        return False
    return str(action) == str(Action.parse(str(first.payload["action"])))


def _check_reached(
    table_id: str, latest: int, asked: int | None, field: str = "min_version"
) -> None:
    """Refuse a version (``field`` of the request) that the table has not reached."""
    if asked is not None and asked > latest:
        raise AheadOfTable(
            f"{field} {asked} is ahead of table {table_id}, which is at version {latest}; "
            "name a version you received (or 0)"
        )


def _bot_turn(turns: Sequence[TurnRow]) -> bool:
    """Whether the projection rows leave a bot (or a seat played by a bot) to act."""
    return any(turn.kind == SeatKind.BOT for turn in turns)


def _snapshot(folded: Folded, table: TableRow, view: View) -> Snapshot:
    """A snapshot at the fold's version, with the clock's and the ending's facts."""
    clock = folded.clock
    deadlines: dict[int, datetime] = {}
    if clock.on:
        for seat in clock.since:
            if seat < len(table.seat_rows) and table.seat_rows[seat].kind == SeatKind.BOT:
                continue  # a bot has no clock
            deadline = clock.deadline(seat)
            if deadline is not None and not folded.ended and not view.is_over:
                deadlines[seat] = deadline
    return Snapshot(
        folded.seq,
        table,
        view,
        away=frozenset(clock.away),
        deadlines=deadlines,
        ended=folded.ended,
        away_bot_level=clock.away_bot_level if clock.away else "",
    )


def _started(folded: Folded, table_id: str) -> GameState:
    if folded.seq == 0:
        raise TableNotFound(f"no table {shorten(table_id)}")
    if folded.state is None:
        raise WrongTableState(f"the game at table {table_id} has not started")
    return folded.state


def _synthetic(
    table_id: str, seq: int, kind: str, payload: dict[str, Any] | None = None
) -> StoredEvent:
    """An event folded into the cache ahead of its append (evicted if the append fails)."""
    from datetime import UTC, datetime

    return StoredEvent(table_id, seq, kind, 1, payload or {}, "", None, datetime.now(UTC))


def _entropy(value: str, field_name: str) -> str:
    """A seat's contribution as stored: lowercase hex, at most 64 digits (or "")."""
    text = value.strip().lower()
    if len(text) > deals.MAX_CONTRIBUTION or not deals.is_hex(text):
        raise BadRequest(
            f"{field_name} must be at most {deals.MAX_CONTRIBUTION} hex digits, "
            f"not {shorten(value)}"
        )
    return text
