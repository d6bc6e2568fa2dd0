"""The AI worker: plays the bot seats of Parlour servers, through the contract, like any client.

A worker runs ``concurrency`` slots; each loops: claim a bot turn
(``BotService.ClaimTurn``, a long poll, under a lease), turn the seat's view
into the engine's View, let the strategy for the game and the bot's level
choose (with a ``random.Random`` seeded from the worker's seed and the turn,
so a decision can be reproduced), and play it with ``PlayService.Act`` by
legal-action id at the claimed version. It sees only what a person in that
seat could see: the view the server sends.

Decisions run off the event loop, in a pool of ``processes`` worker processes
(``--processes``, the worker's CPU budget; 0 runs them in a thread of this
process), so one long expert search does not hold the other slots' claims
and acts.

Unless ``--no-analysis``, one more slot claims finished games' analyses and
judges them in the same pool, a decision at a time (``analyst.py``), so the
bots' turns never wait behind a whole game's analysis.

It rides out server restarts: UNAVAILABLE is retried with backoff, moving
round the server addresses it was given; an Act is resent with the same
request id, so it is applied at most once. A turn that went stale (ABORTED:
the table moved on, or another worker holds it) is dropped and the worker
claims again. A move the server refuses as malformed (INVALID_ARGUMENT) is
logged and the slot backs off: one broken turn must not stop every table's
bots. A wrong worker token, or a server without the BotService, stops the
worker (:class:`WorkerRefused`): retrying cannot help.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Awaitable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from parlour.ai import analysis
from parlour.ai.analyst import Analyst, Judge
from parlour.ai.common import NamedStrategy, Strategy, choose_randomly
from parlour.ai.registry import strategy_for
from parlour.client import ParlourClient, ParlourError, RetryPolicy, new_request_id
from parlour.contract.view import view_from_proto
from parlour.v1 import bots_pb2, common_pb2

log = logging.getLogger("parlour.worker")

T = TypeVar("T")

#: Refusals that retrying cannot mend: the worker stops.
FATAL = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INVALID_ARGUMENT,
    }
)
#: Act answers meaning the turn is gone (moved on, taken, over): claim another.
TURN_GONE = frozenset(
    {grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND}
)


class WorkerRefused(Exception):
    """The server refuses this worker for good (wrong token, no BotService...)."""


class MoveRefused(Exception):
    """The server refused one bot move as malformed (INVALID_ARGUMENT): a fault of that
    turn, not of the worker, which backs off and plays on (the server hands out the
    other waiting turns before this one again)."""


@dataclass(frozen=True)
class WorkerConfig:
    """How a worker runs (``parlour worker`` options)."""

    servers: tuple[str, ...]
    worker_token: str
    worker_id: str
    concurrency: int = 1
    #: how long one ClaimTurn waits for a turn before the worker asks again
    wait_seconds: float = 20.0
    #: a pause before each move, so that people can follow the bots' play
    think_seconds: float = 0.0
    seed: int = 0
    #: only these games' turns (empty: every game)
    games: tuple[str, ...] = ()
    max_backoff: float = 5.0
    #: TLS to the servers (see parlour.client.tls_credentials); None: plaintext
    credentials: grpc.ChannelCredentials | None = None
    #: processes that run the decisions (the worker's CPU budget); 0: a thread of this
    #: process (``parlour worker`` defaults to 1)
    processes: int = 0
    #: the expert level's thinking budget, simulated card plays per decision (None: its default)
    expert_budget: int | None = None
    #: also claim and judge finished games' analyses, on a slot of their own
    analysis: bool = True
    #: play-outs per candidate move when judging (None: each game's default)
    analysis_budget: int | None = None


@dataclass
class Tally:
    """What a worker did, for its log and its exit summary."""

    played: int = 0
    dropped: int = 0
    retries: int = 0
    #: analyses judged and submitted whole
    analysed: int = 0
    started: float = field(default_factory=time.monotonic)

    def rate(self) -> float:
        """Turns played per second since the start."""
        return self.played / max(time.monotonic() - self.started, 1e-9)


#: a draw is paced at this share of the pause: Crazy 8s draws come in runs (a seat
#: draws until a card plays), and a whole pause for each made a three-player round
#: against bots last more than 13 minutes
DRAW_PACE = 0.25


def pause_seconds(
    claim: bots_pb2.ClaimTurnResponse, legal_action_id: int, think_seconds: float, thought: float
) -> float:
    """How long a bot waits before sending its move, so people can follow it: the
    table's pace (``think_seconds``) less the time the decision already took, a
    quarter of it for a draw."""
    if think_seconds <= 0:
        return 0.0
    pace = think_seconds
    legal = claim.view.legal_actions
    listed = 0 < legal_action_id <= len(legal)
    if listed and legal[legal_action_id - 1].action.kind == common_pb2.ACTION_KIND_DRAW:
        pace = think_seconds * DRAW_PACE
    return max(0.0, pace - thought)


@dataclass(frozen=True)
class Choice:
    """A decision: the legal-action id to send, its text and the strategy that chose it."""

    legal_action_id: int
    text: str
    strategy: str


class Strategies:
    """The strategy per (game, level), with the fallbacks the contract promises."""

    def __init__(self, budget: int | None = None) -> None:
        self._found: dict[tuple[str, str], Strategy] = {}
        self.budget = budget

    def get(self, game: str, level: str) -> Strategy:
        """``level`` of ``game``; an unknown (or empty) level plays the game's default,
        a game with no computer opponent plays random legal moves."""
        key = (game, level)
        if key not in self._found:
            self._found[key] = self._find(game, level, self.budget)
        return self._found[key]

    @staticmethod
    def _find(game: str, level: str, budget: int | None) -> Strategy:
        if level:
            try:
                return strategy_for(game, level, budget)
            except KeyError:
                log.warning("no level %r for %s: playing its default level", level, game)
        try:
            return strategy_for(game)
        except KeyError:
            log.warning("no computer opponent for %s: playing random legal moves", game)
            return NamedStrategy(game, "random", choose_randomly)


def decide(strategy: Strategy, claim: bots_pb2.ClaimTurnResponse, seed: int) -> Choice:
    """The strategy's choice for the claimed turn, as a legal-action id of its view."""
    view = view_from_proto(claim.view)
    legal = list(view.legal_actions)
    if not legal:
        raise ValueError(f"table {claim.table_id} seat {claim.seat}: no legal action in the view")
    rng = random.Random(f"{seed}:{claim.table_id}:{claim.seat}:{claim.version}")
    try:
        index = legal.index(strategy.choose(view, legal, rng))
    except Exception:  # a strategy's bug must not stall a table: play a legal move anyway
        log.exception("%s failed at table %s; playing a random move", strategy.name, claim.table_id)
        index = rng.randrange(len(legal))
    return Choice(claim.view.legal_actions[index].id, str(legal[index]), strategy.name)


#: The strategies of a decision process (one per budget), made on first use.
_PROCESS_STRATEGIES: dict[int | None, Strategies] = {}


def decide_elsewhere(game: str, level: str, budget: int | None, claim: bytes, seed: int) -> Choice:
    """:func:`decide` for a serialized claim: what a decision process runs."""
    strategies = _PROCESS_STRATEGIES.setdefault(budget, Strategies(budget))
    turn = bots_pb2.ClaimTurnResponse.FromString(claim)
    return decide(strategies.get(game, level), turn, seed)


def decision_pool(processes: int) -> Executor:
    """Where decisions run: ``processes`` spawned processes, or (0) one thread."""
    if processes < 0:
        raise ValueError("processes must be 0 (a thread) or more")
    if processes == 0:
        return ThreadPoolExecutor(1, thread_name_prefix="parlour-decide")
    # spawn, not fork: the parent runs gRPC's threads, which a fork would copy mid-flight
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_leave_with_parent,
        initargs=(os.getpid(),),
    )


def _leave_with_parent(parent: int, every: float = 1.0) -> None:
    """In a decision process: exit once the worker that started it is gone.

    A worker killed outright (SIGKILL) cannot shut its pool down, and an idle
    decision process waits on a queue it holds both ends of, so it would wait
    for ever; this watch ends it within ``every`` seconds.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="parlour-parent-watch", daemon=True).start()


class Worker:
    """Plays bot turns (and judges analyses) until :meth:`stop` (or a refusal)."""

    def __init__(self, config: WorkerConfig, *, judge: Judge = analysis.judge) -> None:
        """``judge`` judges one decision of an analysis (``parlour.ai.analysis.judge``'s
        shape); a process pool needs it importable by name."""
        if not config.servers:
            raise ValueError("give at least one server address")
        if config.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.config = config
        self.tally = Tally()
        self._stop = asyncio.Event()
        self._pool: Executor | None = None
        self.analyst = Analyst(
            judge,
            self._decision_pool,
            budget=config.analysis_budget,
            games=config.games,
            wait_seconds=config.wait_seconds,
        )

    def stop(self) -> None:
        """Finish the turns in hand and return from :meth:`run`."""
        self._stop.set()

    async def run(self) -> Tally:
        """Run every slot until stopped; raises WorkerRefused if the server refuses us."""
        self.tally = Tally()
        self._pool = decision_pool(self.config.processes)
        slots = [asyncio.create_task(self._slot(n)) for n in range(self.config.concurrency)]
        if self.config.analysis:
            slots.append(asyncio.create_task(self._analysis_slot()))
        try:
            await asyncio.gather(*slots)
        finally:
            for slot in slots:
                slot.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
            self._pool.shutdown(wait=False, cancel_futures=True)
        return self.tally

    async def _decide(self, claim: bots_pb2.ClaimTurnResponse) -> Choice:
        """The strategy's choice, made in the decision pool, off the event loop."""
        config = self.config
        if self._pool is None:
            self._pool = decision_pool(config.processes)
        work = (claim.game, claim.bot_level, config.expert_budget, claim.SerializeToString())
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, decide_elsewhere, *work, config.seed
            )
        except BrokenProcessPool:
            log.error("a decision process died: starting a new pool")
            self._pool = decision_pool(config.processes)
            raise

    def _decision_pool(self) -> Executor:
        if self._pool is None:
            self._pool = decision_pool(self.config.processes)
        return self._pool

    def slot_id(self, n: int) -> str:
        """The worker id slot ``n`` claims with: each slot holds its own leases."""
        name = self.config.worker_id
        return name if self.config.concurrency == 1 else f"{name}/{n}"

    async def _slot(self, n: int) -> None:
        config = self.config
        client = ParlourClient(
            config.servers,
            worker_token=config.worker_token,
            worker_id=self.slot_id(n),
            retry=RetryPolicy(attempts=4, max_backoff=1.0),
            credentials=config.credentials,
        )
        failures = 0
        async with client:
            while not self._stop.is_set():
                try:
                    claim = await self._unless_stopped(
                        client.claim_turn(config.wait_seconds, games=config.games)
                    )
                    if claim is not None and claim.claimed:
                        await self._play(client, claim)
                    failures = 0
                    continue
                except ParlourError as error:
                    if error.code in FATAL:
                        raise WorkerRefused(
                            f"{client.address} refused the worker: {error}"
                        ) from None
                    problem = str(error)
                except MoveRefused as error:
                    problem = str(error)
                except Exception as error:  # one odd turn must not stop every bot
                    log.exception("unexpected error with %s", client.address)
                    problem = repr(error)
                failures += 1
                await self._back_off(failures, problem, client)

    async def _back_off(self, failures: int, problem: str, client: ParlourClient) -> None:
        """Wait before a slot's next try: growing with its failures in a row, jittered."""
        self.tally.retries += 1
        delay = min(self.config.max_backoff, 0.1 * 2**failures) * random.uniform(0.5, 1)
        log.warning("%s; retrying in %.1f s (%s)", problem, delay, client.address)
        await self._unless_stopped(asyncio.sleep(delay))

    async def _analysis_slot(self) -> None:
        """Claim analyses and judge them until stopped; a server without them ends the slot
        (the bot turns go on)."""
        config = self.config
        client = ParlourClient(
            config.servers,
            worker_token=config.worker_token,
            worker_id=f"{config.worker_id}/analysis",
            retry=RetryPolicy(attempts=4, max_backoff=1.0),
            credentials=config.credentials,
        )
        failures = 0
        async with client:
            while not self._stop.is_set():
                try:
                    job = await self._unless_stopped(self.analyst.claim(client))
                    if job is not None and job.claimed:
                        log.info(
                            "analysing table %s (%d decisions)", job.table_id, len(job.decisions)
                        )
                        if await self.analyst.analyse(client, job, self._stop.is_set):
                            self.tally.analysed += 1
                    failures = 0
                    continue
                except ParlourError as error:
                    if error.code is grpc.StatusCode.UNIMPLEMENTED:
                        log.info("%s judges no analyses: the analysis slot stops", client.address)
                        return
                    if error.code in FATAL:
                        raise WorkerRefused(
                            f"{client.address} refused the worker: {error}"
                        ) from None
                    problem = str(error)
                except BrokenProcessPool:
                    log.error("a decision process died: starting a new pool")
                    self._pool = decision_pool(config.processes)
                    problem = "a decision process died"
                except Exception as error:  # one odd job must not stop the worker
                    log.exception("unexpected error with %s", client.address)
                    problem = repr(error)
                failures += 1
                await self._back_off(failures, problem, client)

    async def _play(self, client: ParlourClient, claim: bots_pb2.ClaimTurnResponse) -> None:
        where = f"table {claim.table_id} seat {claim.seat} version {claim.version}"
        log.debug("%s claimed %s (%s, %s)", client.worker_id, where, claim.game, claim.view.phase)
        began = time.perf_counter()
        choice = await self._decide(claim)
        thought = time.perf_counter() - began
        pause = pause_seconds(claim, choice.legal_action_id, self.config.think_seconds, thought)
        if pause:
            await asyncio.sleep(pause)
        try:
            await client.act(
                claim.table_id,
                claim.seat,
                None,
                choice.legal_action_id,
                expected_version=claim.version,
                request_id=new_request_id(),
            )
        except ParlourError as error:
            if error.code is grpc.StatusCode.INVALID_ARGUMENT:
                self.tally.dropped += 1
                log.error("the server refused %r at %s: %s", choice.text, where, error.message)
                raise MoveRefused(f"a move refused at {where}") from None
            # PERMISSION_DENIED after a claim: the seat was a person's away, and the person
            # came back before the bot's move (the worker token acts for bot seats only):
            # the turn is theirs again, not a refusal of the worker
            if error.code not in TURN_GONE and error.code != grpc.StatusCode.PERMISSION_DENIED:
                raise
            self.tally.dropped += 1
            log.debug("%s dropped %s: %s", client.worker_id, where, error.message)
            return
        self.tally.played += 1
        log.debug(
            "%s played %r at %s (%s, %.1f ms)",
            client.worker_id,
            choice.text,
            where,
            choice.strategy,
            thought * 1000,
        )

    async def _unless_stopped(self, work: Awaitable[T]) -> T | None:
        """``work``'s result, or None if the worker was stopped first (``work`` is cancelled)."""
        task = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return None


def parse_servers(servers: Sequence[str]) -> tuple[str, ...]:
    """Server addresses from repeated and/or comma-separated options."""
    found = tuple(part.strip() for item in servers for part in item.split(",") if part.strip())
    if not found:
        raise ValueError("give at least one --server address")
    return found
