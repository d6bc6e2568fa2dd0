"""After the game, the expert looks over the play (issue 35): AnalysisService's and
the workers' analysis jobs' application layer.

Who may ask is the replay's rule, by the replay's own check
(``replay_log.check_may_read``): a game's analysis tells no more than its
finished replay, which whoever may read the replay already has. Only a game
that is over is analysed: while it is on, the expert's verdict on a move
would tell what the hidden hands hold (:class:`AnalysisGameNotOver`).

The decisions judged are every move a person made (not a bot seat's, nor
a bot's for a person whose clock ran out), each with the seat's own engine
view right before it, folded from the log here as GetView would have given
it then (never another seat's cards), and the id of the move in that view's
legal actions. A job is leased to one worker at a time (``store/analyses.py``);
its parts renew the lease; the last part is checked against the job's
decisions and the per-seat summaries are computed here, from what is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from parlour.engine.actions import Action
from parlour.engine.view import View
from parlour.service.app import auth
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.replay_log import check_may_read
from parlour.service.domain.errors import BadRequest, TableNotFound, TurnLeased, WrongTableState
from parlour.service.domain.events import ActionTaken, TableHosted, decode
from parlour.service.domain.fold import Folded, parse_action
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.protocol import (
    AnalysisRow,
    AnalysisState,
    AnalysisUpdate,
    StoredEvent,
    TableRow,
    utcnow,
)

#: how long a worker holds an analysis it claimed (``parlour serve --analysis-lease-seconds``)
DEFAULT_ANALYSIS_LEASE_SECONDS = 300.0
#: leases a job may run out of before it fails
MAX_ATTEMPTS = 3
MAX_WAIT_SECONDS = 60.0
MAX_WORKER_ID = 100
#: how often an idle claim looks again (a request on another replica wakes no one here)
POLL_SECONDS = 2.0
#: how many of a seat's costliest decisions its summary names
BIGGEST_MISTAKES = 3
MAX_ERROR = 200

_OVER = (TableStatus.FINISHED, TableStatus.ABANDONED)
DONE, FAILED, RUNNING = AnalysisState.DONE, AnalysisState.FAILED, AnalysisState.RUNNING


class AnalysisGameNotOver(WrongTableState):
    """The table's game is not over: analysing it would reveal the hidden cards."""

    REASON = "ANALYSIS_GAME_NOT_OVER"


class NoAnalysis(TableNotFound):
    """Nobody asked for the table's analysis."""

    REASON = "NO_ANALYSIS"


class AnalysisNotLeased(TurnLeased):
    """The worker does not hold the job (its lease ran out and another claimed it)."""

    REASON = "ANALYSIS_NOT_LEASED"


@dataclass(frozen=True)
class Decision:
    """One move a person made: the ActionTaken's seq, the seat's own view right before
    it (with its legal actions) and the move's id among them (from 1)."""

    seq: int
    seat: int
    view: View
    played: int

    @property
    def legal(self) -> tuple[Action, ...]:
        return self.view.legal_actions


@dataclass(frozen=True)
class Job:
    """A claimed analysis: the table, its row (with the lease) and the decisions to judge."""

    table: TableRow
    row: AnalysisRow
    decisions: tuple[Decision, ...]


@dataclass(frozen=True)
class Judged:
    """One decision as a worker judged it (SubmitAnalysis's DecisionJudgement)."""

    seq: int
    best: int
    #: (points, low, high, playouts) of the move played and of the expert's
    played_estimate: tuple[float, float, float, int]
    best_estimate: tuple[float, float, float, int]
    cost: tuple[float, float, float]
    marked: bool


@dataclass(frozen=True)
class Part:
    """One SubmitAnalysis: judged decisions, or the worker's failure, and its facts."""

    judged: Sequence[Judged] = ()
    more: bool = False
    error: str = ""
    budget: int = 0
    threshold: float = 0.0
    higher_is_better: bool = True


def person_decisions(
    table: TableRow, events: Sequence[StoredEvent], copied: int = 0
) -> list[Decision]:
    """Every move a person made in the log, with its seat's own view right before it.

    A bot seat's moves are left out, and so are the moves a bot made for a person
    while they were away (their clock ran out), and the first ``copied`` moves (a
    fork's log starts with its source's moves, made by the source's players). A
    move that is not one of the legal actions the view listed (a Hearts pass of
    several cards sent in one act) has no id to judge it by and is left out too.
    """
    people = {row.seat for row in table.seat_rows if row.kind == SeatKind.PERSON}
    folded = Folded()
    found: list[Decision] = []
    moves = 0
    for event in events:
        read = decode(event)
        state = folded.state
        if isinstance(read, ActionTaken):
            moves += 1
        if (
            moves > copied
            and isinstance(read, ActionTaken)
            and read.seat in people
            and state is not None
            and read.seat not in folded.clock.away
        ):
            view = state.view(read.seat)
            played = str(parse_action(read.action))
            listed = [str(legal) for legal in view.legal_actions]
            if played in listed:
                found.append(Decision(event.seq, read.seat, view, listed.index(played) + 1))
        folded.take(read, event)
    return found


async def decisions_of(app: Parlour, table: TableRow) -> list[Decision]:
    """The people's decisions at ``table`` (:func:`person_decisions`); a fork's moves
    copied from its source (``TableHosted.forked_from``) are the source's players'."""
    events = await app.store.read(table.table_id)
    copied = 0
    hosted = decode(events[0]) if events else None
    if isinstance(hosted, TableHosted) and hosted.forked_from:
        source = str(hosted.forked_from["table_id"])
        upto = int(hosted.forked_from["seq"])
        copied = sum(
            event.type == ActionTaken.TYPE for event in await app.store.read(source, 0, upto)
        )
    return await asyncio.to_thread(person_decisions, table, events, copied)


def summaries(decisions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per seat (in seat order): decisions judged, the points given away, how many were
    marked, and the seqs of its costliest decisions (cost over 0; ties: the earlier)."""
    seats = sorted({int(item["seat"]) for item in decisions})
    found = []
    for seat in seats:
        own = [item for item in decisions if item["seat"] == seat]
        costly = sorted((item for item in own if item["cost"][0] > 0), key=_costliest)
        found.append(
            {
                "seat": seat,
                "decisions": len(own),
                "given_away": sum(float(item["cost"][0]) for item in own),
                "marked": sum(1 for item in own if item["marked"]),
                "biggest": [item["seq"] for item in costly[:BIGGEST_MISTAKES]],
            }
        )
    return found


def _costliest(item: Mapping[str, Any]) -> tuple[float, int]:
    return (-float(item["cost"][0]), int(item["seq"]))


class Analyses:
    """Queues analyses for the people who may read a replay, and leases them to workers."""

    def __init__(
        self,
        app: Parlour,
        *,
        worker_token: str | None,
        lease_seconds: float = DEFAULT_ANALYSIS_LEASE_SECONDS,
    ) -> None:
        if lease_seconds <= 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds}")
        self.app = app
        self.store = app.store.analyses
        self.lease_seconds = lease_seconds
        self._token_hash = auth.token_hash(worker_token) if worker_token else None
        #: set by a request on this replica: an idle claim here looks again at once
        self._queued = asyncio.Event()

    def check_worker(self, given: Credentials) -> None:
        """Raise MissingToken / WrongToken unless the call carries the worker token."""
        auth.check_token(given.worker_token, self._token_hash, "worker")

    # -- a player's side -------------------------------------------------------------------

    async def _readable(self, table_id: str, credentials: Credentials) -> TableRow:
        """The table, if the caller may read its replay and its game is over."""
        if not table_id:
            raise BadRequest("table_id is required")
        table = await self.app.get_table(table_id)
        check_may_read(table, None, credentials)
        if table.status not in _OVER:
            raise AnalysisGameNotOver(
                f"the game at table {table_id} is not over ({table.status}): only a game "
                "that is over is analysed, since the expert's verdict on a move would "
                "reveal the hidden cards"
            )
        return table

    async def request(self, table_id: str, credentials: Credentials) -> tuple[AnalysisRow, bool]:
        """Queue table ``table_id``'s analysis (once); the row, and whether this queued it."""
        table = await self._readable(table_id, credentials)
        row, created = await self.store.request(table_id, table.game, utcnow())
        if created:
            self._queued.set()
        return row, created

    async def get(self, table_id: str, credentials: Credentials) -> AnalysisRow:
        """Table ``table_id``'s analysis as it stands."""
        await self._readable(table_id, credentials)
        row = await self.store.get(table_id)
        if row is None:
            raise NoAnalysis(f"nobody has asked for the analysis of table {table_id}")
        return row

    # -- the workers' side -------------------------------------------------------------------

    async def claim(
        self,
        worker_id: str,
        wait_seconds: float,
        games: Sequence[str] = (),
        *,
        time_left: float | None = None,
    ) -> Job | None:
        """Lease the oldest free analysis to ``worker_id``, waiting up to ``wait_seconds``."""
        worker_id = _worker_id(worker_id)
        if not 0 <= wait_seconds <= MAX_WAIT_SECONDS:
            raise BadRequest(f"wait_seconds must be 0 to {MAX_WAIT_SECONDS:g}, not {wait_seconds}")
        if time_left is not None:
            wait_seconds = max(0.0, min(wait_seconds, time_left - 0.5))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_seconds
        while not self.app.closing:
            self._queued.clear()
            now = utcnow()
            until = now + timedelta(seconds=self.lease_seconds)
            row = await self.store.claim(worker_id, sorted(games), now, until, MAX_ATTEMPTS)
            if row is not None:
                table = await self.app.get_table(row.table_id)
                return Job(table, row, tuple(await decisions_of(self.app, table)))
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._queued.wait(), min(remaining, POLL_SECONDS))
        return None

    async def submit(self, worker_id: str, table_id: str, part: Part) -> tuple[AnalysisRow, bool]:
        """Store ``part`` of the job ``worker_id`` holds; the row after, and False if the job
        was already complete by this worker (a second submission: nothing changes)."""
        worker_id = _worker_id(worker_id)
        if not table_id:
            raise BadRequest("table_id is required")
        row = await self.store.get(table_id)
        if row is None:
            raise NoAnalysis(f"nobody has asked for the analysis of table {table_id}")
        if row.state in (DONE, FAILED) and row.worker_id == worker_id:
            return row, False
        if row.state != RUNNING or row.worker_id != worker_id:
            raise AnalysisNotLeased(
                f"the analysis of table {table_id} is not leased to worker {worker_id!r} "
                f"(it is {row.state}); claim another"
            )
        now = utcnow()
        if part.error:
            error = part.error[:MAX_ERROR]
            saved = AnalysisUpdate(FAILED, None, None, finished_at=now, error=error)
        else:
            table = await self.app.get_table(table_id)
            decisions = await decisions_of(self.app, table)
            saved = _merged(row, decisions, part, now, self.lease_seconds)
        stored = await self.store.save(table_id, worker_id, saved)
        if stored is None:  # claimed by another between the read and the write
            raise AnalysisNotLeased(
                f"the analysis of table {table_id} was claimed by another worker; claim another"
            )
        return stored, True


def _merged(
    row: AnalysisRow, decisions: Sequence[Decision], part: Part, now: datetime, lease: float
) -> AnalysisUpdate:
    """The job's result with ``part`` added: a part resent replaces what it judged before."""
    by_seq = {decision.seq: decision for decision in decisions}
    judged: dict[int, dict[str, Any]] = {
        int(item["seq"]): item for item in (row.result or {}).get("judged", ())
    }
    for item in part.judged:
        decision = by_seq.get(item.seq)
        if decision is None:
            raise BadRequest(f"seq {item.seq} is not a decision of the analysis of {row.table_id}")
        if not 1 <= item.best <= len(decision.legal):
            raise BadRequest(
                f"best_legal_action_id {item.best} of seq {item.seq}: that decision lists "
                f"ids 1 to {len(decision.legal)}"
            )
        numbers = (*item.played_estimate[:3], *item.best_estimate[:3], *item.cost)
        if not all(math.isfinite(number) for number in numbers):
            raise BadRequest(f"seq {item.seq}: every estimate and cost must be a finite number")
        judged[item.seq] = _stored(decision, item)
    if not math.isfinite(part.threshold):
        raise BadRequest("threshold must be a finite number")
    facts = {
        "budget": part.budget,
        "threshold": part.threshold,
        "higher_is_better": part.higher_is_better,
    }
    if part.more:
        until = now + timedelta(seconds=lease)
        return AnalysisUpdate(RUNNING, {**facts, "judged": list(judged.values())}, until)
    missing = sorted(set(by_seq) - set(judged))
    if missing:
        shown = ", ".join(str(seq) for seq in missing[:5])
        raise BadRequest(
            f"{len(missing)} decisions of the analysis of {row.table_id} were not judged "
            f"(seq {shown}...); send them before the last part"
        )
    ordered = [judged[seq] for seq in sorted(judged)]
    result = {**facts, "decisions": ordered, "summaries": summaries(ordered)}
    return AnalysisUpdate(DONE, result, None, finished_at=now)


def _stored(decision: Decision, item: Judged) -> dict[str, Any]:
    """A judged decision as the result's JSON keeps it (with both moves' texts)."""
    return {
        "seq": decision.seq,
        "seat": decision.seat,
        "hand": decision.view.hand_number,
        "phase": decision.view.phase,
        "played": [decision.played, str(decision.legal[decision.played - 1])],
        "best": [item.best, str(decision.legal[item.best - 1])],
        "played_estimate": list(item.played_estimate),
        "best_estimate": list(item.best_estimate),
        "cost": list(item.cost),
        "marked": item.marked,
    }


def _worker_id(worker_id: str) -> str:
    cleaned = worker_id.strip()
    if not cleaned:
        raise BadRequest("worker_id is required")
    if len(cleaned) > MAX_WORKER_ID:
        raise BadRequest(f"worker_id is longer than {MAX_WORKER_ID} characters")
    return cleaned
