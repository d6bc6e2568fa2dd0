"""Play's use cases: view a table, act for a seat, and watch the table change.

Acting, in order: check the seat's token; in a unit of work on the table
(``tables.py``: its lock, the fold brought up to date), check the client's
expected version, apply the action on the cached state (an engine error
leaves it untouched), deal if chance is due, and append everything in one
transaction after the version the unit began at. A lost race is retried
once, reading the store (a pinned version is then refused as stale if a move
came since; chat lines do not count, ``Folded.moved_at``), or answered ABORTED. A
repeated request id applies nothing and answers the first result, when it
is the same request (same seat, same move); the id used by another seat or
for another move is refused (RequestIdReused).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.errors import EngineError
from parlour.service.app.dealing import Dealer
from parlour.service.app.moderation import check_spectator
from parlour.service.app.ports import BotActGuard, Waiter
from parlour.service.app.seating import Credentials, by_worker, check_seat
from parlour.service.app.tables import Tables, Unit, turn_rows
from parlour.service.app.views import (
    SeatView,
    check_reached,
    lobby_view,
    seat_view,
    shared_view,
    started,
)
from parlour.service.domain.errors import (
    BadRequest,
    LostRace,
    RequestIdReused,
    ShuttingDown,
    StaleVersion,
    TurnLeased,
    WrongTableState,
)
from parlour.service.domain.events import ActionTaken, CardsDealt, GameFinished, decode
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import DuplicateRequest, NewEvent, StoredEvent, TableRow, utcnow

#: A spectator's Watch sends at most one message a frame (ten a second), each with
#: every event since the last; the seats' streams send one per change.
SPECTATOR_FRAME_SECONDS = 0.1

#: A move as the client gave it: a legal-action id (int), action text, or an Action.
MoveSpec = int | str | Action


class Play:
    """Views, moves and watches of a table's game."""

    def __init__(
        self,
        tables: Tables,
        notifier: Waiter,
        dealer: Dealer,
        *,
        worker_token_hash: str | None,
        bot_act_guard: BotActGuard | None,
        watch_poll_seconds: float,
    ) -> None:
        if watch_poll_seconds <= 0:
            raise ValueError(f"watch_poll_seconds must be positive, not {watch_poll_seconds}")
        self.tables = tables
        self.store = tables.store
        self.notifier = notifier
        self.dealer = dealer
        self._worker_token_hash = worker_token_hash
        #: called before a worker's Act for a bot seat; raises TurnLeased when another
        #: worker holds the turn (``bots.LeaseGuard.check_act``)
        self._bot_act_guard = bot_act_guard
        #: how often a Watch re-reads the store whatever the notifier says
        self.watch_poll_seconds = watch_poll_seconds
        #: a spectator's stream sends at most one message this often (0: one per change)
        self.spectator_frame_seconds = SPECTATOR_FRAME_SECONDS
        #: how a spectator's stream waits out its frame (a test may hold it instead)
        self.frame_wait: Callable[[float], Awaitable[None]] = asyncio.sleep
        #: table id -> the frame clock its spectators on this replica wait on
        self._frames: dict[str, _FrameClock] = {}
        #: table -> the Watch streams following it on this replica
        self._streams: dict[str, int] = {}
        self._closing = False

    @property
    def closing(self) -> bool:
        """True once :meth:`begin_shutdown` was called."""
        return self._closing

    def begin_shutdown(self) -> None:
        """End every Watch stream with UNAVAILABLE, so its client resumes on another replica."""
        self._closing = True
        self.notifier.notify_all()

    async def _away(
        self, table: TableRow, credentials: Credentials, seat: int | None
    ) -> frozenset[int]:
        """The seats played by a bot while their person is away, when a worker asks for a
        person's seat (a worker may act for it then); empty otherwise (no right needed,
        and no read: a bot seat's move costs nothing more)."""
        if not by_worker(credentials):
            return frozenset()
        if table.status != TableStatus.PLAYING or seat is None:
            return frozenset()
        if not 0 <= seat < table.seats or table.seat_rows[seat].kind != SeatKind.PERSON:
            return frozenset()
        async with self.tables.unit(table.table_id) as unit:
            return frozenset(unit.folded.clock.away)

    async def _check_viewer(self, table: TableRow, seat: int | None, given: Credentials) -> None:
        if seat is not None:
            away = await self._away(table, given, seat)
            check_seat(table, seat, given, self._worker_token_hash, away)
        else:
            check_spectator(table)

    async def view(
        self,
        table_id: str,
        seat: int | None,
        credentials: Credentials,
        min_version: int | None = None,
    ) -> SeatView:
        """The view of ``seat`` (None: a spectator) at the table's latest version; with
        ``min_version``, at that version or later: the cached fold when it is that
        recent (no read), else the store's latest. :class:`AheadOfTable` if the
        table has not reached ``min_version``."""
        table = await self.tables.row(table_id)
        await self._check_viewer(table, seat, credentials)
        if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
            lobby = lobby_view(table)
            check_reached(table_id, lobby.version, min_version)
            return lobby
        async with self.tables.unit(table_id, fresh_from=min_version) as unit:
            check_reached(table_id, unit.folded.version, min_version)
            return shared_view(unit.folded, table, seat, watched=self._watched(table_id))

    async def act(
        self,
        table_id: str,
        seat: int,
        credentials: Credentials,
        move: MoveSpec,
        *,
        expected_version: int | None = None,
        request_id: str = "",
    ) -> SeatView:
        """Apply ``move`` for ``seat``; at most once per ``request_id``."""
        table = await self.tables.row(table_id)
        away = await self._away(table, credentials, seat)
        row = check_seat(table, seat, credentials, self._worker_token_hash, away)
        if isinstance(move, int) and expected_version is None:
            raise BadRequest("a legal_action_id needs the expected_version it was listed at")
        try:
            if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
                raise WrongTableState(f"the game at table {table_id} has not started")
            if (row.kind == SeatKind.BOT or seat in away) and self._bot_act_guard is not None:
                await self._bot_act_guard(table_id, seat, credentials.worker_id, expected_version)
            return await self._act(table, seat, move, expected_version, request_id, credentials)
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
        credentials: Credentials,
    ) -> SeatView:
        table_id = table.table_id
        worker = by_worker(credentials)

        async def apply(unit: Unit) -> SeatView:
            folded = unit.folded
            state = started(folded, table_id)
            if folded.ended:
                raise WrongTableState(f"the game at table {table_id} was {folded.ended}")
            if seat in folded.clock.away and not worker:
                raise WrongTableState(
                    f"seat {seat} is played by a bot since its clock ran out; take the "
                    "seat back first (PlayService.ReturnToSeat with its token)"
                )
            # chat lines since the version the move was decided at leave it standing
            if expected_version is not None and not (
                folded.moved_at <= expected_version <= folded.version
            ):
                raise StaleVersion(
                    f"version {expected_version} is stale: table {table_id} is at "
                    f"version {folded.version}; fetch the view and decide again",
                    expected=expected_version,
                    current=folded.version,
                )
            action = _resolve(state, seat, move)
            state.apply(seat, action)  # raises before changing anything
            unit.changing()
            events = self._consequences(folded, seat, action)
            now = utcnow()
            folded.clock.track(state.to_act(), now, acted=seat)
            await unit.commit(
                events,
                applied=True,
                request_id=request_id or None,
                table_status=TableStatus.FINISHED if state.is_over else None,
                turns=[] if state.is_over else turn_rows(folded, table),
                person_active_at=None if worker else now,
                now=now,
            )
            return shared_view(folded, table, seat, watched=self._watched(table_id))

        # a pinned version is checked against the cache: no read when it is that recent
        return await self.tables.run(
            table_id,
            apply,
            lost=(f"another move reached table {table_id} first; fetch the view and decide again"),
            # a retry reads the store: a pinned version is stale only if a move came
            # since (chat, here or on another replica, does not make it so)
            retry=True,
            fresh_from=expected_version,
            counted=True,
        )

    def _consequences(self, folded: Folded, seat: int, action: Action) -> list[NewEvent]:
        """The events an applied action produces: itself, a deal if due, the end if reached."""
        state = folded.state
        assert state is not None
        taken = ActionTaken(seat, str(action))
        events = [taken.new(folded.chain(taken))]
        events += self.dealer.deal_due(folded)
        if state.is_over:
            events.append(GameFinished(tuple(state.scores()), tuple(state.winners())).new())
        return events

    async def _first_result(
        self,
        table: TableRow,
        seat: int,
        first_seq: int,
        move: MoveSpec,
        expected_version: int | None,
        request_id: str,
    ) -> SeatView:
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
        async with self.tables.unit(table_id) as unit:
            folded = unit.folded
            caused = await self.store.read(table_id, first_seq - 1)  # the request's events on
            first = caused[0]
            before = None
            if isinstance(move, int) and first.type == ActionTaken.TYPE:
                before = fold(await self.store.read(table_id, 0, first_seq - 1))
            if not _same_request(first, before, seat, move, expected_version):
                made = decode(first)
                by, did = (
                    (made.seat, made.action) if isinstance(made, ActionTaken) else (None, None)
                )
                raise RequestIdReused(
                    f"request_id {request_id!r} was already used at table {table_id} by "
                    f"seat {by} for {did!r} (event {first_seq}); use a fresh request_id "
                    "for each move"
                )
            end = first_seq
            for event in caused[1:]:  # what the request also caused
                if event.type not in (CardsDealt.TYPE, GameFinished.TYPE):
                    break
                end = event.seq
            if folded.version != end:
                folded = fold(await self.store.read(table_id, 0, end))
            state = started(folded, table_id)
            return replace(seat_view(folded, table, state.view(seat)), version=end, duplicate=True)

    async def watch(
        self, table_id: str, seat: int | None, credentials: Credentials, from_version: int = 0
    ) -> AsyncIterator[SeatView]:
        """Views as the table changes, starting after ``from_version``; ends when the game does."""
        table = await self.tables.row(table_id)
        await self._check_viewer(table, seat, credentials)
        if from_version < 0:
            raise BadRequest(f"from_version must be 0 or more, not {from_version}")
        if from_version > 0:
            await self._check_not_ahead(table, from_version)
        sent = from_version
        last = -math.inf
        frame = self.spectator_frame_seconds if seat is None else 0.0
        streams = self._streams
        streams[table_id] = streams.get(table_id, 0) + 1
        try:
            while True:
                seen, over = await self._changes_since(table_id, seat, sent)
                if seen is not None:
                    yield seen
                    sent = seen.version
                    last = time.monotonic()
                if over:
                    return
                self._check_open()
                if frame:
                    await self._next_frame(table_id, sent, last)
                else:
                    await self.notifier.wait(table_id, sent, self.watch_poll_seconds)
                self._check_open()
        finally:
            left = streams[table_id] - 1
            if left:
                streams[table_id] = left
            else:
                del streams[table_id]

    async def _next_frame(self, table_id: str, sent: int, last: float) -> None:
        """Wait, as a spectator of ``table_id`` that has ``sent``, for the frame to send in.

        A spectator's messages come at most one a frame, each with every event
        since the last: a crowd watching a fast game costs a message per frame,
        not per move. The spectators of a table on this replica wait on one
        :class:`_FrameClock`, which alone is woken by the table's changes (so a
        move wakes one waiter here, not every spectator, while its Act is being
        answered) and wakes them all together at the frame's end, to share one
        message. A spectator already behind what the clock has heard waits out
        only what is left of the current frame.
        """
        frame = self.spectator_frame_seconds
        if self.notifier.latest(table_id) > sent:
            now = time.monotonic()
            if now - last < frame:
                await self.frame_wait(frame - now % frame)
            return
        clock = self._frames.get(table_id)
        if clock is None or clock.stopped:
            clock = self._frames[table_id] = _FrameClock(self, table_id, sent)
        await clock.tick(sent)

    def _watched(self, table_id: str) -> bool:
        """Whether Watch streams on this replica follow the table (then its seats' views
        share the part they have in common: ``shared_view``)."""
        return table_id in self._streams

    def _check_open(self) -> None:
        if self._closing:
            raise ShuttingDown("this server is shutting down; resume the watch elsewhere")

    async def _check_not_ahead(self, table: TableRow, version: int) -> None:
        """Refuse a version the table has not reached: it never will be sent."""
        if table.status == TableStatus.OPEN:
            latest = table.version
        else:
            async with self.tables.unit(table.table_id) as unit:
                latest = unit.folded.version
        check_reached(table.table_id, latest, version, "from_version")

    async def _changes_since(
        self, table_id: str, seat: int | None, sent: int
    ) -> tuple[SeatView | None, bool]:
        """The view after ``sent`` (None if nothing new) and whether the game is over."""
        table = await self.tables.row(table_id)
        if table.status in (TableStatus.OPEN, TableStatus.EXPIRED):
            expired = table.status == TableStatus.EXPIRED
            if table.version <= sent:
                return None, expired
            events = await self.store.read(table_id, sent, table.version)
            return lobby_view(table).with_events(tuple(events)), expired
        # One store read per table change on this replica, not one per watcher: the
        # cached fold is read again only if it is behind what this watcher has seen
        # or what the notifier heard; the first watcher woken brings it up to date.
        fresh_from = max(sent + 1, self.notifier.latest(table_id))
        key = ("watch", seat, sent)
        cached = self.tables.cached(table_id)
        if (
            cached is not None
            and cached.version >= fresh_from
            and cached.derived_at == cached.version
        ):
            # Another watcher of this seat built it at this version: no lock to take
            # (a fold being changed ahead of its commit is still at this version,
            # and what was derived at it before the change is still its view).
            shared: SeatView | None = cached.derived.get(key)
            if shared is not None:
                return shared, (shared.view is not None and shared.view.is_over) or bool(
                    shared.ended
                )
        async with self.tables.unit(table_id, fresh_from=fresh_from) as unit:
            folded = unit.folded
            state = started(folded, table_id)
            if folded.version <= sent:
                return None, state.is_over or bool(folded.ended)
            derived = folded.derived_now()
            seen: SeatView | None = derived.get(key)
            if seen is None:  # (shared by every watcher of the seat at that version)
                news = folded.since(sent)
                if news is None:  # further back than the fold keeps
                    news = tuple(await self.store.read(table_id, sent, folded.version))
                seen = derived[key] = shared_view(folded, table, seat).with_events(news)
        over = seen.view is not None and seen.view.is_over
        return seen, over or bool(seen.ended)


class _FrameClock:
    """The frames of one spectated table on this replica (see :meth:`Play._next_frame`).

    Its task waits on the notifier for the table to move past what it has
    seen (or for the Watch poll), then for the frame's end on the clock every
    replica shares (``frame - now % frame``), then wakes every spectator
    waiting. It stops when a wake-up finds no one waiting; the next spectator
    to wait starts another.
    """

    def __init__(self, play: Play, table_id: str, seen: int) -> None:
        self.play = play
        self.table_id = table_id
        self.seen = seen
        self.waiting = 0
        self.stopped = False
        self._frame = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def tick(self, sent: int) -> None:
        """Return at the end of the next frame that has something past ``self.seen``."""
        self.seen = max(self.seen, sent)
        frame = self._frame
        self.waiting += 1
        try:
            await frame.wait()
        finally:
            self.waiting -= 1

    async def _run(self) -> None:
        play, frame_seconds = self.play, self.play.spectator_frame_seconds
        try:
            while True:
                await play.notifier.wait(self.table_id, self.seen, play.watch_poll_seconds)
                if not self.waiting:
                    return
                self.seen = max(self.seen, play.notifier.latest(self.table_id))
                if not play.closing:
                    await play.frame_wait(frame_seconds - time.monotonic() % frame_seconds)
                frame, self._frame = self._frame, asyncio.Event()
                frame.set()
        finally:
            self.stopped = True
            if play._frames.get(self.table_id) is self:
                del play._frames[self.table_id]
            self._frame.set()  # no one is left waiting on a clock that has stopped


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
    made = decode(first)
    if not isinstance(made, ActionTaken) or made.seat != seat:
        return False
    if isinstance(move, int):
        if before is None or before.state is None or expected_version is None:
            return False
        if not before.moved_at <= expected_version <= first.seq - 1:  # chat may come between
            return False
        legal = before.state.legal_actions(seat)
        return 1 <= move <= len(legal) and str(legal[move - 1]) == made.action
    try:
        action = move if isinstance(move, Action) else Action.parse(move)
    except EngineError:
        return False
    return str(action) == str(Action.parse(made.action))
