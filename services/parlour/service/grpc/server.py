"""The gRPC edge: typed grpc.aio servicers over the application layer.

Servicers only translate: request message -> application call -> response
message. Every exception goes through :func:`status_for`, the one mapping
from the application's, the engine's and the store's errors to status
codes, so an unexpected error is logged and answered deliberately, never as
UNKNOWN and never with a traceback. Health checking and server reflection
are registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from parlour.engine.errors import (
    BadDeck,
    GameOver,
    IllegalAction,
    InvalidOptions,
    MalformedAction,
    NotYourTurn,
    UnknownGame,
)
from parlour.engine.registry import GameInfo, all_games, get_game
from parlour.service.app import auth, metrics
from parlour.service.app.bots import DEFAULT_LEASE_SECONDS, BotTurns, LeaseGuard
from parlour.service.app.parlour import (
    WATCH_POLL_SECONDS,
    Credentials,
    MoveSpec,
    Parlour,
    SeatChoice,
)
from parlour.service.app.replay_log import ReplayLog, get_replay
from parlour.service.app.sweeper import Sweeper, SweepSettings
from parlour.service.domain import errors
from parlour.service.domain.statuses import TableStatus
from parlour.service.grpc import convert, limits
from parlour.service.grpc.observe import ObservingInterceptor
from parlour.service.grpc.reflection import enable_reflection
from parlour.service.notify import Notifier, make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import (
    ConcurrencyConflict,
    DuplicateRequest,
    EventStore,
    StoreUnavailable,
    UnknownTable,
)
from parlour.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)

log = logging.getLogger("parlour.service")

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")


def _service_name(module: Any, service: str) -> str:
    return str(module.DESCRIPTOR.services_by_name[service].full_name)


_CODES: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (errors.BadRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedAction, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidOptions, grpc.StatusCode.INVALID_ARGUMENT),
    (BadDeck, grpc.StatusCode.INVALID_ARGUMENT),
    (errors.TableNotFound, grpc.StatusCode.NOT_FOUND),
    (UnknownTable, grpc.StatusCode.NOT_FOUND),
    (UnknownGame, grpc.StatusCode.NOT_FOUND),
    (IllegalAction, grpc.StatusCode.FAILED_PRECONDITION),
    (NotYourTurn, grpc.StatusCode.FAILED_PRECONDITION),
    (GameOver, grpc.StatusCode.FAILED_PRECONDITION),
    (errors.WrongTableState, grpc.StatusCode.FAILED_PRECONDITION),
    (errors.StaleVersion, grpc.StatusCode.ABORTED),
    (errors.LostRace, grpc.StatusCode.ABORTED),
    (errors.TurnLeased, grpc.StatusCode.ABORTED),
    (ConcurrencyConflict, grpc.StatusCode.ABORTED),
    (DuplicateRequest, grpc.StatusCode.ABORTED),
    (errors.RequestIdReused, grpc.StatusCode.ALREADY_EXISTS),
    (errors.AheadOfTable, grpc.StatusCode.OUT_OF_RANGE),
    (errors.MissingToken, grpc.StatusCode.UNAUTHENTICATED),
    (errors.WrongToken, grpc.StatusCode.PERMISSION_DENIED),
    (errors.ShuttingDown, grpc.StatusCode.UNAVAILABLE),
    # The database is down or overloaded: a retry elsewhere or later may work.
    (StoreUnavailable, grpc.StatusCode.UNAVAILABLE),
)


def status_for(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message a client receives for ``error`` (never over
    MAX_MESSAGE characters: inputs are quoted short, and anything longer is cut)."""
    code, message = _status_for(error)
    if len(message) > errors.MAX_MESSAGE:
        message = message[: errors.MAX_MESSAGE - 3] + "..."
    return code, message


def _status_for(error: BaseException) -> tuple[grpc.StatusCode, str]:
    for kind, code in _CODES:
        if isinstance(error, kind):
            if isinstance(error, errors.ShuttingDown):
                return code, str(error)
            if code is grpc.StatusCode.UNAVAILABLE:
                log.warning("database unavailable: %s", error)
                return code, "the game database is unavailable; retry shortly"
            if isinstance(error, UnknownTable):
                return code, f"no such table: {errors.shorten(str(error))}"
            if isinstance(error, ConcurrencyConflict | DuplicateRequest):
                return code, "another move was applied first; fetch the view and retry"
            return code, str(error)
    incident = secrets.token_hex(4)
    log.error("unexpected error (incident %s)", incident, exc_info=error)
    return grpc.StatusCode.INTERNAL, f"internal error, logged as incident {incident}"


def unary(
    method: Callable[[S, Req, Context], Awaitable[Resp]],
) -> Callable[[S, Req, Context], Awaitable[Resp]]:
    """Answer every exception of a unary handler with its mapped status."""

    @functools.wraps(method)
    async def guarded(self: S, request: Req, context: Context) -> Resp:
        try:
            return await method(self, request, context)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            code, message = status_for(error)
            await context.abort(code, message)
            raise AssertionError("abort returned") from error

    return guarded


def streaming(
    method: Callable[[S, Req, Context], AsyncIterator[Resp]],
) -> Callable[[S, Req, Context], AsyncIterator[Resp]]:
    """Answer every exception of a server-streaming handler with its mapped status."""

    @functools.wraps(method)
    async def guarded(self: S, request: Req, context: Context) -> AsyncIterator[Resp]:
        try:
            async for item in method(self, request, context):
                yield item
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as error:
            code, message = status_for(error)
            await context.abort(code, message)

    return guarded


def credentials(context: Context) -> Credentials:
    """The tokens in the call's metadata."""
    found: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        if key in (
            auth.SEAT_TOKEN_KEY,
            auth.HOST_TOKEN_KEY,
            auth.WORKER_TOKEN_KEY,
            auth.WORKER_ID_KEY,
        ):
            found[key] = value if isinstance(value, str) else value.decode()
    return Credentials(
        seat_token=found.get(auth.SEAT_TOKEN_KEY),
        host_token=found.get(auth.HOST_TOKEN_KEY),
        worker_token=found.get(auth.WORKER_TOKEN_KEY),
        worker_id=found.get(auth.WORKER_ID_KEY),
    )


class _OverApp:
    """A servicer over the application layer."""

    def __init__(self, app: Parlour) -> None:
        self.app = app


def _optional_seat(request: Any) -> int | None:
    """The request's seat, or None for a spectator (the field is not set)."""
    return int(request.seat) if request.HasField("seat") else None


class CatalogueServicer(catalogue_pb2_grpc.CatalogueServiceServicer):
    """CatalogueService: the games and their option schemas (straight from the registry).

    ``bot_levels`` (game id -> levels) is injected by whoever knows the bots
    (the CLI); the service layer itself never imports them.
    """

    def __init__(self, bot_levels: Mapping[str, Sequence[str]] | None = None) -> None:
        self.bot_levels = dict(bot_levels or {})
        # static data: built once (the rules text is read from the package here, not per call)
        self._list = catalogue_pb2.ListGamesResponse(
            games=[self._info(info, with_rules=False) for info in all_games()]
        )
        self._games = {
            info.id: catalogue_pb2.GetGameResponse(game=self._info(info, with_rules=True))
            for info in all_games()
        }

    @unary
    async def ListGames(
        self, request: catalogue_pb2.ListGamesRequest, context: Context
    ) -> catalogue_pb2.ListGamesResponse:
        return self._list

    @unary
    async def GetGame(
        self, request: catalogue_pb2.GetGameRequest, context: Context
    ) -> catalogue_pb2.GetGameResponse:
        if not request.game:
            raise errors.BadRequest("game is required")
        return self._games[get_game(request.game).id]  # get_game names an unknown game

    def _info(self, info: GameInfo, *, with_rules: bool) -> catalogue_pb2.GameInfo:
        message = convert.game_info(info, with_rules=with_rules)
        message.bot_levels.extend(self.bot_levels.get(info.id, ()))
        return message


class LobbyServicer(_OverApp, lobby_pb2_grpc.LobbyServiceServicer):
    """LobbyService over :class:`Parlour`."""

    @unary
    async def HostTable(
        self, request: lobby_pb2.HostTableRequest, context: Context
    ) -> lobby_pb2.HostTableResponse:
        setup = [
            SeatChoice(convert.SEAT_KIND_FROM_PROTO.get(seat.kind, "?"), seat.bot_level)
            for seat in request.seat_setup
        ]
        hosted = await self.app.host_table(
            request.game,
            request.seats,
            dict(request.options),
            setup,
            name=request.name,
            host_player_name=request.host_player_name,
            host_takes_seat=request.host_takes_seat,
            host_seat=request.host_seat if request.HasField("host_seat") else None,
            players_entropy=request.players_entropy,
            host_entropy=request.host_entropy,
        )
        response = lobby_pb2.HostTableResponse(
            table=convert.table(hosted.table),
            host_token=hosted.host_token,
            seat_token=hosted.seat_token,
        )
        if hosted.seat is not None:
            response.seat = hosted.seat
        return response

    @unary
    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        status = convert.STATUS_FROM_PROTO.get(request.status, TableStatus.OPEN)
        rows, next_token = await self.app.list_tables(
            status, request.game, request.page_size, request.page_token
        )
        return lobby_pb2.ListTablesResponse(
            tables=[convert.table(row) for row in rows], next_page_token=next_token
        )

    @unary
    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        row = await self.app.get_table(request.table_id)
        return lobby_pb2.GetTableResponse(table=convert.table(row))

    @unary
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        seat = _optional_seat(request)
        joined = await self.app.join(
            request.table_id, request.player_name, seat, entropy=request.entropy
        )
        return lobby_pb2.JoinTableResponse(
            seat=joined.seat, seat_token=joined.seat_token, table=convert.table(joined.table)
        )

    @unary
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        row = await self.app.leave(request.table_id, request.seat, credentials(context))
        return lobby_pb2.LeaveTableResponse(table=convert.table(row))

    @unary
    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Context
    ) -> lobby_pb2.StartTableResponse:
        row = await self.app.start(request.table_id, credentials(context))
        return lobby_pb2.StartTableResponse(table=convert.table(row))


class PlayServicer(_OverApp, play_pb2_grpc.PlayServiceServicer):
    """PlayService over :class:`Parlour`."""

    @unary
    async def GetView(
        self, request: play_pb2.GetViewRequest, context: Context
    ) -> play_pb2.GetViewResponse:
        seat = _optional_seat(request)
        least = request.min_version if request.HasField("min_version") else None
        snap = await self.app.view(request.table_id, seat, credentials(context), least)
        return play_pb2.GetViewResponse(
            version=snap.version, view=convert.any_view(snap.view, snap.table, seat, snap)
        )

    @unary
    async def Act(self, request: play_pb2.ActRequest, context: Context) -> play_pb2.ActResponse:
        which = request.WhichOneof("move")
        move: MoveSpec
        if which == "legal_action_id":
            move = request.legal_action_id
        elif which == "action":
            move = convert.action_from_proto(request.action)
        else:
            raise errors.BadRequest("set legal_action_id or action")
        snap = await self.app.act(
            request.table_id,
            request.seat,
            credentials(context),
            move,
            expected_version=(
                request.expected_version if request.HasField("expected_version") else None
            ),
            request_id=request.request_id,
        )
        return play_pb2.ActResponse(
            version=snap.version,
            view=convert.any_view(snap.view, snap.table, request.seat, snap),
            duplicate=snap.duplicate,
        )

    @unary
    async def ReturnToSeat(
        self, request: play_pb2.ReturnToSeatRequest, context: Context
    ) -> play_pb2.ReturnToSeatResponse:
        snap = await self.app.return_to_seat(request.table_id, request.seat, credentials(context))
        return play_pb2.ReturnToSeatResponse(
            version=snap.version,
            view=convert.any_view(snap.view, snap.table, request.seat, snap),
        )

    @streaming
    async def Watch(
        self, request: play_pb2.WatchRequest, context: Context
    ) -> AsyncIterator[play_pb2.WatchResponse]:
        seat = _optional_seat(request)
        updates = self.app.watch(request.table_id, seat, credentials(context), request.from_version)
        async for snap in updates:
            yield play_pb2.WatchResponse(
                version=snap.version,
                view=convert.any_view(snap.view, snap.table, seat, snap),
                events=[convert.public_event(event, seat) for event in snap.events],
            )


class BotServicer(bots_pb2_grpc.BotServiceServicer):
    """BotService over :class:`BotTurns`."""

    def __init__(self, turns: BotTurns) -> None:
        self.turns = turns

    @unary
    async def ClaimTurn(
        self, request: bots_pb2.ClaimTurnRequest, context: Context
    ) -> bots_pb2.ClaimTurnResponse:
        self.turns.check_worker(credentials(context))
        claim = await self.turns.claim(
            request.worker_id,
            request.wait_seconds,
            frozenset(request.games),
            time_left=context.time_remaining(),
        )
        if claim is None:
            return bots_pb2.ClaimTurnResponse(claimed=False)
        response = bots_pb2.ClaimTurnResponse(
            claimed=True,
            table_id=claim.table.table_id,
            seat=claim.seat,
            game=claim.table.game,
            bot_level=claim.bot_level,
            version=claim.version,
            view=convert.view(claim.view, claim.table),
            options={
                name: convert.option_text(value) for name, value in claim.table.options.items()
            },
        )
        response.lease_expires_at.FromDatetime(claim.expires_at)
        return response

    @unary
    async def ReleaseTurn(
        self, request: bots_pb2.ReleaseTurnRequest, context: Context
    ) -> bots_pb2.ReleaseTurnResponse:
        self.turns.check_worker(credentials(context))
        released = await self.turns.release(request.worker_id, request.table_id, request.seat)
        return bots_pb2.ReleaseTurnResponse(released=released)


def replay_response(log: ReplayLog) -> replay_pb2.GetReplayResponse:
    """The GetReplay message for ``log``."""
    table = log.table
    return replay_pb2.GetReplayResponse(
        table_id=table.table_id,
        game=table.game,
        seat_count=table.seats,
        status=convert.STATUS_TO_PROTO.get(table.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
        version=log.events[-1].event.seq if log.events else 0,
        finished=log.finished,
        complete=log.complete,
        events=[
            replay_pb2.ReplayEvent(
                seq=item.event.seq,
                type=item.event.type,
                schema_version=item.event.schema_version,
                payload_json=json.dumps(item.event.payload, ensure_ascii=False),
                digest=item.event.digest,
                redacted=item.redacted,
                text=item.text,
            )
            for item in log.events
        ],
    )


class ReplayServicer(_OverApp, replay_pb2_grpc.ReplayServiceServicer):
    """ReplayService over :class:`Parlour` and the store."""

    @unary
    async def GetReplay(
        self, request: replay_pb2.GetReplayRequest, context: Context
    ) -> replay_pb2.GetReplayResponse:
        seat = _optional_seat(request)
        log = await get_replay(self.app, request.table_id, seat, credentials(context))
        return replay_response(log)


@dataclass
class GameServer:
    """A bound (not yet started) game service: the gRPC server and what it serves."""

    server: grpc.aio.Server
    port: int
    app: Parlour
    health: health.aio.HealthServicer

    async def start(self) -> None:
        await self.server.start()

    async def stop(self, grace: float | None = 5.0) -> None:
        """Say NOT_SERVING, let calls in flight finish for up to ``grace`` seconds, stop."""
        await self.health.enter_graceful_shutdown()
        self.app.begin_shutdown()
        await self.server.stop(grace)


async def build_server(
    address: str,
    store: EventStore,
    notifier: Notifier,
    *,
    worker_token: str | None = None,
    bot_levels: Mapping[str, Sequence[str]] | None = None,
    lease_seconds: float | None = None,
    credentials: grpc.ServerCredentials | None = None,
    catch_up_seconds: float | None = None,
) -> GameServer:
    """A game service bound to ``address`` ("host:port"; port 0 picks a free port).

    ``worker_token`` is the shared secret that lets AI workers act for bot
    seats; ``bot_levels`` is published in the catalogue; ``lease_seconds`` is
    how long a worker holds a bot turn it claimed (default 5); ``credentials``
    serve TLS instead of plaintext; ``catch_up_seconds`` how often a Watch re-reads the
    store whatever the notifier says (default 15: the bound on a lost wake-up).
    Every RPC is logged and measured (:mod:`parlour.service.grpc.observe`).
    """
    if catch_up_seconds is not None and catch_up_seconds <= 0:
        raise ValueError(f"catch_up_seconds must be positive, not {catch_up_seconds}")
    app = Parlour(
        store,
        notifier,
        worker_token=worker_token,
        bot_levels=bot_levels,
        watch_poll_seconds=catch_up_seconds or WATCH_POLL_SECONDS,
        bot_act_guard=LeaseGuard(store).check_act,
    )
    bot_turns = BotTurns(
        app,
        notifier,
        worker_token=worker_token,
        lease_seconds=lease_seconds or DEFAULT_LEASE_SECONDS,
    )
    # no SO_REUSEPORT: a second replica started on a busy port fails instead of sharing it
    server = grpc.aio.server(
        # the observer outermost, so that a request the limits refuse is logged and
        # counted too; then the limits: past them, a request is refused before any
        # servicer reads it
        interceptors=[ObservingInterceptor(), limits.LimitsInterceptor()],
        options=[*limits.SERVER_OPTIONS, ("grpc.so_reuseport", 0)],
    )
    # (register function, servicer, full service name): one line per service
    services: list[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]] = [
        (
            catalogue_pb2_grpc.add_CatalogueServiceServicer_to_server,
            CatalogueServicer(bot_levels),
            _service_name(catalogue_pb2, "CatalogueService"),
        ),
        (
            lobby_pb2_grpc.add_LobbyServiceServicer_to_server,
            LobbyServicer(app),
            _service_name(lobby_pb2, "LobbyService"),
        ),
        (
            play_pb2_grpc.add_PlayServiceServicer_to_server,
            PlayServicer(app),
            _service_name(play_pb2, "PlayService"),
        ),
        (
            replay_pb2_grpc.add_ReplayServiceServicer_to_server,
            ReplayServicer(app),
            _service_name(replay_pb2, "ReplayService"),
        ),
        (
            bots_pb2_grpc.add_BotServiceServicer_to_server,
            BotServicer(bot_turns),
            _service_name(bots_pb2, "BotService"),
        ),
    ]
    for register, servicer, _ in services:
        register(servicer, server)
    names = [name for _, _, name in services]
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (*names, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    enable_reflection((*names, health.SERVICE_NAME), server)
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    return GameServer(server, port, app, health_servicer)


async def serve(
    address: str,
    database_url: str,
    *,
    migrate: bool = True,
    worker_token: str | None = None,
    bot_levels: Mapping[str, Sequence[str]] | None = None,
    lease_seconds: float | None = None,
    credentials: grpc.ServerCredentials | None = None,
    connections: int | None = None,
    ready: Callable[[int], None] | None = None,
    notify: str | None = None,
    catch_up_seconds: float | None = None,
    sweep: SweepSettings | None = None,
) -> None:
    """Run a game service until SIGINT/SIGTERM (or cancellation), then stop gracefully.

    ``connections`` is the store's connection budget (see ``store.py``); ``notify``
    names the notifier (``notify.make_notifier``: local, postgres or nats://HOST:PORT;
    by default LISTEN/NOTIFY on Postgres, in process on SQLite); ``sweep`` how often
    this replica's sweeper fires turn clocks and expiries (``sweeper.py``).
    """
    if migrate:
        await asyncio.to_thread(upgrade_head, database_url)
    store = open_store(database_url, connections=connections)
    metrics.watch_store(store)
    notifier = make_notifier(store, notify)
    try:
        await notifier.start()
    except BaseException:
        await store.close()
        raise
    built = await build_server(
        address,
        store,
        notifier,
        worker_token=worker_token,
        bot_levels=bot_levels,
        lease_seconds=lease_seconds,
        credentials=credentials,
        catch_up_seconds=catch_up_seconds,
    )
    await built.start()
    sweeper = Sweeper(built.app, sweep or SweepSettings.from_env())
    sweeper.start()
    if ready is not None:
        ready(built.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await sweeper.stop()
        await built.stop(grace=5.0)
        await notifier.stop()
        await store.close()
