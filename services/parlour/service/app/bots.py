"""Bot turns: handed to AI workers (BotService), one worker per turn, under a lease.

Application layer: no gRPC here (``grpc/servicers.py``'s BotServicer adapts it).

A bot turn is a seat the table waits for that a bot plays: a bot seat, or a
person's seat while the person is away (their clock ran out). The ``turns``
projection lists them, kept in the appending transaction; :class:`BotTurns`
reads a few of them (an index scan of the bot turns, the longest-waiting
first, leaving out those under a live lease: it costs the same whatever the
number of tables waiting for people) and leases one to the claiming worker
with ``store.claim_bot_turn``: one atomic upsert, so two workers never hold
the same live lease. A lease is for one version of the table: once the table
moves on, the turn is over and the seat is claimable again; a worker that
dies mid-turn holds it only until the lease expires.

The lease is about sharing out the work, not about safety: an Act still
names the version it was decided at, and the event log takes one move per
version, so a turn can never be played twice whatever happens to leases.
Still, an Act from a worker that does not hold a live lease on the turn is
refused (:class:`LeaseGuard`, the application's ``bot_act_guard``), so that a slow
worker whose lease ran out cannot cut in on the worker now playing the turn.

An idle worker long-polls: ClaimTurn waits on the notifier's bot-turn
wake-ups (an append that leaves a bot to act, see ``PendingAppend.bot_turn``),
not on every append, and looks again; while turns are held by other workers
it also looks again every quarter lease, to catch expiries.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from parlour.engine.view import View
from parlour.service.app import auth, metrics
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.ports import Waiter
from parlour.service.domain.errors import BadRequest, TurnLeased, WrongToken
from parlour.service.store.protocol import EventStore, TableRow, Turn, utcnow

log = logging.getLogger("parlour.service.app.bots")

#: How long a worker holds a turn it claimed unless it plays it sooner.
DEFAULT_LEASE_SECONDS = 5.0
MAX_WAIT_SECONDS = 60.0
MAX_WORKER_ID = 100
#: how many bot turns one claim pass reads from the projection
CLAIM_BATCH = 16
MAX_GRANTS_KEPT = 10_000


@dataclass(frozen=True)
class Claim:
    """A bot turn leased to a worker: the seat's own view at ``version``."""

    table: TableRow
    seat: int
    version: int
    view: View
    expires_at: datetime
    #: the level of the bot that plays: the seat's, or the table's away_bot_level
    bot_level: str = ""


@dataclass(frozen=True)
class _Grant:
    """A lease this replica granted: to whom, for which version, until when (loop time)."""

    worker_id: str
    version: int
    until: float


class LeaseGuard:
    """Checks a worker's Act for a bot seat against the turn's lease (in the store)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def check_act(
        self, table_id: str, seat: int, worker_id: str | None, expected_version: int | None
    ) -> None:
        """Refuse a worker's Act for a bot seat whose turn another worker holds a live lease on.

        A lease granted at an earlier version than the one the Act was decided
        at is for a turn already over, and does not count.
        """
        lease = await self.store.get_lease(table_id, seat)
        if lease is None or lease.worker_id == worker_id:
            return
        left = (lease.expires_at - utcnow()).total_seconds()
        if left <= 0 or (expected_version is not None and lease.version < expected_version):
            return
        raise TurnLeased(
            f"seat {seat}'s turn at table {table_id} (version {lease.version}) is leased to "
            f"worker {lease.worker_id!r} for {left:.1f} s more; claim another turn"
        )


class BotTurns:
    """Finds bot turns and leases them to workers (:class:`LeaseGuard` checks their Acts)."""

    def __init__(
        self,
        app: Parlour,
        notifier: Waiter,
        *,
        worker_token: str | None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        if lease_seconds <= 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds}")
        self.app = app
        self.notifier = notifier
        self.lease_seconds = lease_seconds
        self._token_hash = auth.token_hash(worker_token) if worker_token else None
        # the service checks the bot seat's view request like any worker's
        self._as_worker = Credentials(worker_token=worker_token)
        self._granted: dict[tuple[str, int], _Grant] = {}

    def check_worker(self, given: Credentials) -> None:
        """Raise MissingToken / WrongToken unless the call carries the worker token."""
        auth.check_token(given.worker_token, self._token_hash, "worker")

    async def claim(
        self,
        worker_id: str,
        wait_seconds: float,
        games: frozenset[str] = frozenset(),
        *,
        time_left: float | None = None,
    ) -> Claim | None:
        """Lease one bot turn to ``worker_id``, waiting up to ``wait_seconds`` for one.

        ``time_left`` is what remains of the caller's deadline: the answer
        (empty-handed if need be) comes before it runs out.
        """
        worker_id = _worker_id(worker_id)
        if not 0 <= wait_seconds <= MAX_WAIT_SECONDS:
            raise BadRequest(f"wait_seconds must be 0 to {MAX_WAIT_SECONDS:g}, not {wait_seconds}")
        if time_left is not None:
            wait_seconds = max(0.0, min(wait_seconds, time_left - 0.5))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_seconds
        while not self.app.closing:
            mark = self.notifier.changes
            if len(self._granted) > MAX_GRANTS_KEPT:  # forget the grants that ran out
                now = loop.time()
                self._granted = {k: g for k, g in self._granted.items() if g.until > now}
            candidates = await self.app.store.bot_turns(
                utcnow(), sorted(games), CLAIM_BATCH, worker_id
            )
            # turns this replica leased to others are skipped without a write; those it
            # leased to this worker already go after the rest (each part longest-waiting
            # first): the worker asking again dropped them, or lost the answer, and one
            # turn it cannot play must not keep it from every other table's
            free: list[Turn] = []
            own: list[Turn] = []
            for turn in candidates:
                holder = self._holder(turn)
                if holder is None:
                    free.append(turn)
                elif holder == worker_id:
                    own.append(turn)
            free += own
            if free:
                claimed_at = utcnow()
                taken = await self.app.store.claim_bot_turn(worker_id, self.lease_seconds, free)
                if taken is not None:
                    earlier = self._granted.get(taken[:2])
                    if earlier and earlier.worker_id != worker_id and earlier.version == taken[2]:
                        metrics.LEASE_EXPIRIES.inc()  # (as far as this replica granted it)
                    self._granted[taken[:2]] = _Grant(
                        worker_id, taken[2], loop.time() + self.lease_seconds
                    )
                    expires_at = claimed_at + timedelta(seconds=self.lease_seconds)
                    claim = await self._seat_view(*taken, expires_at)
                    if claim is not None:
                        return claim
                    # the table moved on under the claim: look again at once, while the
                    # caller's wait lasts (a turn row behind its table is never claimed
                    # round and round until the caller's deadline)
                    if loop.time() < deadline:
                        continue
                    return None
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            if candidates:  # held by other workers: look again when a lease may run out
                remaining = min(remaining, self._next_expiry(candidates, free))
            else:  # turns under a live lease are not listed: look again when one may lapse
                remaining = min(remaining, max(0.05, self.lease_seconds / 4))
            await self.notifier.wait_any(mark, remaining)
        return None

    def _holder(self, turn: Turn) -> str | None:
        """The worker this replica leased ``turn`` to, while that lease is live."""
        grant = self._granted.get(turn[:2])
        if (
            grant is not None
            and grant.version == turn[2]
            and grant.until > asyncio.get_running_loop().time()
        ):
            return grant.worker_id
        return None

    def _next_expiry(self, candidates: list[Turn], tried: list[Turn]) -> float:
        """Seconds until a lease on one of the candidates may have run out."""
        if tried:  # some are held through other replicas: their expiry is unknown here
            return max(0.05, self.lease_seconds / 4)
        now = asyncio.get_running_loop().time()
        ends = [self._granted[turn[:2]].until - now for turn in candidates]
        return max(0.01, min(ends) + 0.01)

    async def release(self, worker_id: str, table_id: str, seat: int) -> bool:
        """Give back ``worker_id``'s lease on the seat's turn, if it holds one."""
        worker_id = _worker_id(worker_id)
        if not table_id:
            raise BadRequest("table_id is required")
        grant = self._granted.get((table_id, seat))
        if grant is not None and grant.worker_id == worker_id:
            del self._granted[table_id, seat]
        return await self.app.store.release_lease(table_id, seat, worker_id)

    async def _seat_view(
        self, table_id: str, seat: int, version: int, expires_at: datetime
    ) -> Claim | None:
        """The claimed seat's own view, or None if the table is no longer at that turn.

        Chat since the turn began moves the table's version, not the turn: the
        turn is the same while no move came after it (``moved_at``), and its Act
        at the claimed version is still accepted."""
        try:
            seen = await self.app.view(table_id, seat, self._as_worker)
        except WrongToken:  # its person came back since the turn was listed: not a bot's
            return None
        if seen.moved_at != version or seen.view is None or seat not in seen.view.to_act:
            return None
        level = seen.table.seat_rows[seat].bot_level or ""
        if seat in seen.away:
            level = seen.away_bot_level
        return Claim(seen.table, seat, version, seen.view, expires_at, level)


def _worker_id(worker_id: str) -> str:
    cleaned = worker_id.strip()
    if not cleaned:
        raise BadRequest("worker_id is required")
    if len(cleaned) > MAX_WORKER_ID:
        raise BadRequest(f"worker_id is longer than {MAX_WORKER_ID} characters")
    return cleaned
