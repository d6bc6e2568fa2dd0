"""An asyncio client for every RPC of the Parlour contract (``parlour.v1``).

Used by the terminal client, the AI worker and third parties; it depends on
nothing but the generated contract and grpcio. What it adds to the bare stubs:

- tokens travel as call metadata for you (``x-parlour-seat-token``,
  ``x-parlour-host-token``, ``x-parlour-worker-token``);
- act by legal-action id (from the view) or by action text ("play QS"),
  with a fresh request id that makes resending safe;
- calls that are safe to repeat are retried with backoff on UNAVAILABLE
  (and, given several addresses, on DEADLINE_EXCEEDED: a partitioned server
  goes silent), moving to the next server address of the list, and any call refused
  past a server's rate (RESOURCE_EXHAUSTED with ``retry-after``) is sent
  again after the wait it names, when that is short;
- :meth:`ParlourClient.watch` resumes from the last version it saw when the
  stream drops, on the same or another replica, so nothing is missed.

Errors come out as :class:`ParlourError` with the gRPC status ``code`` and
the server's message (which names the rule and the card)::

    async with ParlourClient("127.0.0.1:50051") as client:
        hosted = await client.host_table("hearts", seats=4, host_player_name="Ada",
                                         host_takes_seat=True)
        me = client.seat(hosted.table.table_id, hosted.seat, hosted.seat_token)
        ...
        async for update in me.watch():
            if me.seat in update.view.to_act:
                await me.act(update.view.legal_actions[0].id, expected_version=update.version)
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from parlour.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)

from .accounts import SessionMetadata

SEAT_TOKEN_KEY = "x-parlour-seat-token"
HOST_TOKEN_KEY = "x-parlour-host-token"
WORKER_TOKEN_KEY = "x-parlour-worker-token"
WORKER_ID_KEY = "x-parlour-worker-id"

R = TypeVar("R")
Metadata = tuple[tuple[str, str], ...]


class ParlourError(Exception):
    """A call the server refused (or could not be reached for).

    ``code`` is the gRPC status: INVALID_ARGUMENT (cannot be understood),
    NOT_FOUND, FAILED_PRECONDITION (against the rules now), ABORTED (stale
    version or lost race: fetch the view and decide again), UNAUTHENTICATED /
    PERMISSION_DENIED (token missing / wrong), UNAVAILABLE (after retries).
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        args: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        #: the refusal's machine-readable reason ("MUST_FOLLOW_SUIT", listed in
        #: common.proto), "" when the server sent none; say it with
        #: ``parlour.words.say_phrase("reason." + reason, **args)``
        self.reason = reason
        #: the reason's arguments: card codes, suit letters, seats from 0, numbers
        self.reason_args: dict[str, str] = dict(args or {})

    @classmethod
    def of(cls, error: grpc.aio.AioRpcError) -> ParlourError:
        reason, args = refusal_reason(error)
        return cls(error.code(), error.details() or "", reason, args)


def refusal_reason(error: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    """The reason and arguments of a refusal's google.rpc.ErrorInfo (from the
    ``grpc-status-details-bin`` trailer); ("", {}) when it carries none."""
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError:
        return "", {}
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.domain == "parlour":
            return info.reason, dict(info.metadata)
    return "", {}


#: the call metadata key asking the server for its words in a language
LANGUAGE_KEY = "accept-language"


class _Language:
    """Adds the client's language (``accept-language``) to every call."""

    def __init__(self, client: ParlourClient) -> None:
        self.client = client

    def _details(self, details: Any) -> Any:
        language = self.client.language
        if not language:
            return details
        metadata = (*tuple(details.metadata or ()), (LANGUAGE_KEY, language))
        return details._replace(metadata=grpc.aio.Metadata(*metadata))


class _LanguageUnary(_Language, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


# grpc.aio files an interceptor under the first kind it is, so each kind has its own
class _LanguageStream(_Language, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for calls that are safe to repeat."""

    attempts: int = 6
    initial_backoff: float = 0.05
    max_backoff: float = 2.0
    multiplier: float = 2.0

    #: the longest ``retry-after`` a rate-limited call waits out before trying again
    #: (a call the server refused past a rate changed nothing, so any call may be resent)
    max_rate_wait: float = 5.0
    #: how many times one call waits out a rate
    rate_waits: int = 20

    def delay(self, attempt: int) -> float:
        ceiling = min(self.max_backoff, self.initial_backoff * self.multiplier**attempt)
        return random.uniform(ceiling / 2, ceiling)


#: Status codes worth another try on another connection.
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE})
#: ... and, given more than one address, a call that got no answer in time: a server
#: cut off by a network partition does not refuse, it goes silent
RETRYABLE_ELSEWHERE = frozenset({grpc.StatusCode.DEADLINE_EXCEEDED})


def rate_wait(error: grpc.aio.AioRpcError) -> float | None:
    """The seconds a call refused past a server's rate or cap should wait (its
    ``retry-after`` trailing metadata), or None for any other refusal."""
    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    for key, value in error.trailing_metadata() or ():
        if key == "retry-after":
            try:
                return max(0.0, float(value if isinstance(value, str) else value.decode()))
            except ValueError:
                return None
    return None


@dataclass(eq=False)
class _Stubs:
    """One channel and its stubs, with the calls using it (closed once retired and idle)."""

    channel: grpc.aio.Channel
    catalogue: catalogue_pb2_grpc.CatalogueServiceAsyncStub
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    play: play_pb2_grpc.PlayServiceAsyncStub
    bots: bots_pb2_grpc.BotServiceAsyncStub
    replay: replay_pb2_grpc.ReplayServiceAsyncStub
    in_flight: int = 0
    retired: bool = False


def tokens(
    seat_token: str | None = None,
    host_token: str | None = None,
    worker_token: str | None = None,
    worker_id: str | None = None,
) -> Metadata:
    """Call metadata carrying the given tokens (and an AI worker's id)."""
    pairs = (
        (SEAT_TOKEN_KEY, seat_token),
        (HOST_TOKEN_KEY, host_token),
        (WORKER_TOKEN_KEY, worker_token),
        (WORKER_ID_KEY, worker_id),
    )
    return tuple((key, value) for key, value in pairs if value)


def new_request_id() -> str:
    return uuid.uuid4().hex


class ParlourClient:
    """One client, one or more server addresses ("host:port"); use ``async with``."""

    def __init__(
        self,
        addresses: str | Sequence[str],
        *,
        retry: RetryPolicy | None = None,
        timeout: float | None = 10.0,
        worker_token: str | None = None,
        worker_id: str | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        credentials: grpc.ChannelCredentials | None = None,
        session: SessionMetadata | None = None,
        language: str | None = None,
    ) -> None:
        """``session``: sends its token as ``authorization`` with every call (accounts.py);
        None: no session metadata at all."""
        self.addresses = [addresses] if isinstance(addresses, str) else list(addresses)
        if not self.addresses:
            raise ValueError("give at least one server address")
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self.worker_token = worker_token
        #: an AI worker's name: claims bot turns and is sent with its Acts
        self.worker_id = worker_id
        self._options = list(channel_options)
        #: TLS (see :func:`parlour.client.tls_credentials`); None: plaintext
        self.credentials = credentials
        self.session = session
        self._interceptors = session.interceptors() if session is not None else None
        #: the language the server's words (labels, events) are asked in ("en", "pl");
        #: None sends no ``accept-language`` (the server speaks English)
        self.language = language
        self._current = 0
        #: table id -> the contribution this client sent for its seat there (hex)
        self.entropy: dict[str, str] = {}
        self._stubs: _Stubs | None = None
        # every channel not yet closed: the current one and retired ones still in use
        self._open: set[_Stubs] = set()

    async def __aenter__(self) -> ParlourClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every channel; calls still in flight end with ParlourError(CANCELLED)."""
        self._stubs = None
        while self._open:
            await self._open.pop().channel.close()

    @property
    def address(self) -> str:
        """The server address in use now."""
        return self.addresses[self._current]

    def _connect(self) -> _Stubs:
        if self._stubs is None:
            said: list[grpc.aio.ClientInterceptor] = list(self._interceptors or ())
            if self.language:
                said += [_LanguageUnary(self), _LanguageStream(self)]
            if self.credentials is None:
                channel = grpc.aio.insecure_channel(
                    self.address, options=self._options, interceptors=said
                )
            else:
                channel = grpc.aio.secure_channel(
                    self.address, self.credentials, options=self._options, interceptors=said
                )
            self._stubs = _Stubs(
                channel,
                catalogue_pb2_grpc.CatalogueServiceStub(channel),
                lobby_pb2_grpc.LobbyServiceStub(channel),
                play_pb2_grpc.PlayServiceStub(channel),
                bots_pb2_grpc.BotServiceStub(channel),
                replay_pb2_grpc.ReplayServiceStub(channel),
            )
            self._open.add(self._stubs)
        return self._stubs

    @contextlib.asynccontextmanager
    async def _using(self) -> AsyncIterator[_Stubs]:
        """The current channel, held open for the duration of one call or stream.

        A channel closed under a call (only :meth:`close` does that) ends the
        call with ParlourError(CANCELLED), never with the CancelledError grpc
        raises for it, unless the calling task itself is being cancelled.
        """
        stubs = self._connect()
        stubs.in_flight += 1
        try:
            yield stubs
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if stubs in self._open or (task is not None and task.cancelling()):
                raise
            raise ParlourError(grpc.StatusCode.CANCELLED, "the client was closed") from None
        finally:
            stubs.in_flight -= 1
            if stubs.retired and stubs.in_flight == 0 and stubs in self._open:
                self._open.discard(stubs)
                await stubs.channel.close()

    async def _fail_over(self, failed: _Stubs) -> None:
        """Move to the next address, unless another call has already moved on from ``failed``.

        The failed channel is closed only once no call uses it any more: a
        retry never cancels the other calls (a running watch) of this client.
        """
        if self._stubs is not failed:
            return
        self._stubs = None
        self._current = (self._current + 1) % len(self.addresses)
        failed.retired = True
        if failed.in_flight == 0 and failed in self._open:
            self._open.discard(failed)
            await failed.channel.close()

    async def _call(self, call: Callable[[_Stubs], Awaitable[R]], *, idempotent: bool) -> R:
        attempt = waits = 0
        while True:
            try:
                async with self._using() as stubs:
                    return await call(stubs)
            except grpc.aio.AioRpcError as error:
                wait = rate_wait(error)
                short = wait is not None and wait <= self.retry.max_rate_wait
                if short and waits < self.retry.rate_waits:
                    waits += 1
                    await asyncio.sleep(wait or 0.0)
                    continue
                code = error.code()
                elsewhere = len(self.addresses) > 1 and code in RETRYABLE_ELSEWHERE
                if not idempotent or not (code in RETRYABLE or elsewhere):
                    raise ParlourError.of(error) from None
                if attempt + 1 >= self.retry.attempts:
                    raise ParlourError.of(error) from None
                await self._fail_over(stubs)
                await asyncio.sleep(self.retry.delay(attempt))
                attempt += 1

    # -- catalogue -----------------------------------------------------------------------

    async def list_games(self) -> list[catalogue_pb2.GameInfo]:
        """Every game the server offers, with its seat range and option schema."""
        request = catalogue_pb2.ListGamesRequest()
        response = await self._call(
            lambda s: s.catalogue.ListGames(request, timeout=self.timeout), idempotent=True
        )
        return list(response.games)

    async def get_game(self, game: str) -> catalogue_pb2.GameInfo:
        """One game, with its full rules text."""
        request = catalogue_pb2.GetGameRequest(game=game)
        response = await self._call(
            lambda s: s.catalogue.GetGame(request, timeout=self.timeout), idempotent=True
        )
        return response.game

    # -- lobby ---------------------------------------------------------------------------

    async def host_table(
        self,
        game: str,
        seats: int = 0,
        *,
        options: Mapping[str, object] | None = None,
        seat_setup: Sequence[tuple[str, str]] | None = None,
        name: str = "",
        host_player_name: str = "",
        host_takes_seat: bool = False,
        host_seat: int | None = None,
        players_entropy: bool = False,
    ) -> lobby_pb2.HostTableResponse:
        """Set up a table. ``seat_setup`` is per seat ("person", "") or ("bot", level).

        The host's seat contributes 32 random bytes to the deals (used when
        ``players_entropy`` is on); :attr:`entropy` remembers them by table.

        Option values may be given as bools or ints; they travel as text.
        Not retried (a retry could host two tables).
        """
        kinds = {"person": lobby_pb2.SEAT_KIND_PERSON, "bot": lobby_pb2.SEAT_KIND_BOT}
        request = lobby_pb2.HostTableRequest(
            game=game,
            seats=seats,
            options={key: _option_text(value) for key, value in (options or {}).items()},
            seat_setup=[
                lobby_pb2.SeatSetup(kind=kinds[kind], bot_level=level)
                for kind, level in (seat_setup or ())
            ],
            name=name,
            host_player_name=host_player_name,
            host_takes_seat=host_takes_seat,
            players_entropy=players_entropy,
            host_entropy=secrets.token_hex(32) if host_takes_seat else "",
        )
        if host_seat is not None:
            request.host_seat = host_seat
        response: lobby_pb2.HostTableResponse = await self._call(
            lambda s: s.lobby.HostTable(request, timeout=self.timeout), idempotent=False
        )
        if request.host_entropy:
            self.entropy[response.table.table_id] = request.host_entropy
        return response

    async def list_tables(
        self, *, game: str = "", status: str = "open", page_size: int = 0
    ) -> list[lobby_pb2.Table]:
        """The first page of tables, newest first; ``status`` is "open", "playing" or
        "finished", "expired" or "abandoned". See :meth:`list_tables_page` for the pages
        after it."""
        return list(
            (await self.list_tables_page(game=game, status=status, page_size=page_size)).tables
        )

    async def list_tables_page(
        self, *, game: str = "", status: str = "open", page_size: int = 0, page_token: str = ""
    ) -> lobby_pb2.ListTablesResponse:
        """One page of tables (0 = the server's default size) and the next page's token."""
        request = lobby_pb2.ListTablesRequest(
            game=game, status=_STATUS[status], page_size=page_size, page_token=page_token
        )
        return await self._call(
            lambda s: s.lobby.ListTables(request, timeout=self.timeout), idempotent=True
        )

    async def get_table(self, table_id: str) -> lobby_pb2.Table:
        request = lobby_pb2.GetTableRequest(table_id=table_id)
        response = await self._call(
            lambda s: s.lobby.GetTable(request, timeout=self.timeout), idempotent=True
        )
        return response.table

    async def join_table(
        self, table_id: str, player_name: str, seat: int | None = None
    ) -> lobby_pb2.JoinTableResponse:
        """Take a person seat (``seat``, or any free one). Not retried.

        The seat contributes 32 random bytes to the deals (used when the table
        has players' entropy); :attr:`entropy` remembers them by table.
        """
        request = lobby_pb2.JoinTableRequest(
            table_id=table_id, player_name=player_name, entropy=secrets.token_hex(32)
        )
        if seat is not None:
            request.seat = seat
        response: lobby_pb2.JoinTableResponse = await self._call(
            lambda s: s.lobby.JoinTable(request, timeout=self.timeout), idempotent=False
        )
        self.entropy[table_id] = request.entropy
        return response

    async def get_replay(
        self, table_id: str, seat: int | None = None, seat_token: str | None = None
    ) -> replay_pb2.GetReplayResponse:
        """A table's log: whole once the game is over, else cut to ``seat`` (or a spectator)."""
        request = replay_pb2.GetReplayRequest(table_id=table_id)
        if seat is not None:
            request.seat = seat
        metadata = self._seat_metadata(seat, seat_token)
        return await self._call(
            lambda s: s.replay.GetReplay(request, timeout=self.timeout, metadata=metadata),
            idempotent=True,
        )

    async def leave_table(self, table_id: str, seat: int, seat_token: str) -> lobby_pb2.Table:
        request = lobby_pb2.LeaveTableRequest(table_id=table_id, seat=seat)
        response = await self._call(
            lambda s: s.lobby.LeaveTable(
                request, metadata=tokens(seat_token=seat_token), timeout=self.timeout
            ),
            idempotent=False,
        )
        return response.table

    async def start_table(self, table_id: str, host_token: str) -> lobby_pb2.Table:
        """Start the game (host only); deals the first hand. Not retried."""
        request = lobby_pb2.StartTableRequest(table_id=table_id)
        response = await self._call(
            lambda s: s.lobby.StartTable(
                request, metadata=tokens(host_token=host_token), timeout=self.timeout
            ),
            idempotent=False,
        )
        return response.table

    # -- play ----------------------------------------------------------------------------

    def _seat_metadata(self, seat: int | None, seat_token: str | None) -> Metadata:
        if seat is None:
            return ()
        if seat_token:
            return tokens(seat_token=seat_token)
        return tokens(worker_token=self.worker_token, worker_id=self.worker_id)

    async def get_view(
        self,
        table_id: str,
        seat: int | None = None,
        seat_token: str | None = None,
        *,
        min_version: int | None = None,
    ) -> play_pb2.GetViewResponse:
        """The view of ``seat`` (its token needed), or the spectator view when seat is None;
        with ``min_version`` (a version a Watch event or an Act answer named), a view at
        that version or later, which the service may answer without reading its store."""
        request = play_pb2.GetViewRequest(table_id=table_id)
        if seat is not None:
            request.seat = seat
        if min_version is not None:
            request.min_version = min_version
        metadata = self._seat_metadata(seat, seat_token)
        return await self._call(
            lambda s: s.play.GetView(request, metadata=metadata, timeout=self.timeout),
            idempotent=True,
        )

    async def act(
        self,
        table_id: str,
        seat: int,
        seat_token: str | None,
        move: int | str | common_pb2.Action,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> play_pb2.ActResponse:
        """Act for ``seat``: ``move`` is a legal-action id (int; needs
        ``expected_version``), action text ("play QS") or an Action message.

        Retried on UNAVAILABLE with the same request id, so it is applied at
        most once; a retry that finds its first try applied answers with
        ``duplicate`` set.
        """
        request = play_pb2.ActRequest(
            table_id=table_id, seat=seat, request_id=request_id or new_request_id()
        )
        if expected_version is not None:
            request.expected_version = expected_version
        if isinstance(move, int):
            request.legal_action_id = move
        elif isinstance(move, str):
            request.action.text = move
        else:
            request.action.CopyFrom(move)
        metadata = self._seat_metadata(seat, seat_token)
        return await self._call(
            lambda s: s.play.Act(request, metadata=metadata, timeout=self.timeout),
            idempotent=True,
        )

    async def return_to_seat(
        self, table_id: str, seat: int, seat_token: str
    ) -> play_pb2.ReturnToSeatResponse:
        """Take back a seat a bot played while its turn clock had run out (safe to retry:
        a seat that is not away is answered with its view)."""
        request = play_pb2.ReturnToSeatRequest(table_id=table_id, seat=seat)
        metadata = tokens(seat_token=seat_token)
        return await self._call(
            lambda s: s.play.ReturnToSeat(request, metadata=metadata, timeout=self.timeout),
            idempotent=True,
        )

    async def say(
        self, table_id: str, seat: int, seat_token: str | None, text: str
    ) -> play_pb2.SayResponse:
        """Say a line in the table's chat for ``seat`` (public at the table). Not
        retried: a line said twice would show twice."""
        request = play_pb2.SayRequest(table_id=table_id, seat=seat, text=text)
        metadata = self._seat_metadata(seat, seat_token)
        return await self._call(
            lambda s: s.play.Say(request, metadata=metadata, timeout=self.timeout),
            idempotent=False,
        )

    async def set_chat(self, table_id: str, host_token: str, on: bool) -> play_pb2.SetChatResponse:
        """The host switches the table's chat on or off (safe to retry)."""
        request = play_pb2.SetChatRequest(table_id=table_id, on=on)
        return await self._call(
            lambda s: s.play.SetChat(
                request, metadata=tokens(host_token=host_token), timeout=self.timeout
            ),
            idempotent=True,
        )

    async def watch(
        self,
        table_id: str,
        seat: int | None = None,
        seat_token: str | None = None,
        from_version: int = 0,
    ) -> AsyncGenerator[play_pb2.WatchResponse, None]:
        """Views of the table as it changes, until the game is over.

        When the stream drops (server restart, network), it reconnects with
        backoff (to the next address of the list) and resumes after the last
        version received, so every event is delivered exactly once.
        """
        version = from_version
        attempt = 0
        metadata = self._seat_metadata(seat, seat_token)
        while True:
            request = play_pb2.WatchRequest(table_id=table_id, from_version=version)
            if seat is not None:
                request.seat = seat
            async with self._using() as stubs:
                call = stubs.play.Watch(request, metadata=metadata)
                try:
                    async for update in call:
                        attempt = 0
                        version = update.version
                        yield update
                    return
                except grpc.aio.AioRpcError as error:
                    if error.code() not in RETRYABLE or attempt + 1 >= self.retry.attempts:
                        raise ParlourError.of(error) from None
                finally:
                    call.cancel()
            await self._fail_over(stubs)
            await asyncio.sleep(self.retry.delay(attempt))
            attempt += 1

    # -- AI workers (BotService; needs worker_token and worker_id) -------------------------

    async def claim_turn(
        self, wait_seconds: float = 0.0, *, games: Sequence[str] = ()
    ) -> bots_pb2.ClaimTurnResponse:
        """Claim a bot's turn for this worker, waiting up to ``wait_seconds`` for one.

        Answers ``claimed`` False when none came. Play it with :meth:`act`
        (seat token None) at ``expected_version=response.version`` before
        ``lease_expires_at``. Retried on UNAVAILABLE (a lost answer's lease
        is this worker's own, so claiming again finds the turn again).
        """
        request = bots_pb2.ClaimTurnRequest(
            worker_id=self._require_worker_id(), wait_seconds=wait_seconds, games=list(games)
        )
        metadata = tokens(worker_token=self.worker_token)
        deadline = wait_seconds + (self.timeout or 10.0)
        return await self._call(
            lambda s: s.bots.ClaimTurn(request, metadata=metadata, timeout=deadline),
            idempotent=True,
        )

    async def release_turn(self, table_id: str, seat: int) -> bool:
        """Give back a claimed turn at once (True if this worker held its lease)."""
        request = bots_pb2.ReleaseTurnRequest(
            worker_id=self._require_worker_id(), table_id=table_id, seat=seat
        )
        metadata = tokens(worker_token=self.worker_token)
        response = await self._call(
            lambda s: s.bots.ReleaseTurn(request, metadata=metadata, timeout=self.timeout),
            idempotent=True,
        )
        return response.released

    def _require_worker_id(self) -> str:
        if not self.worker_id:
            raise ValueError("a worker needs a worker_id (ParlourClient(worker_id=...))")
        return self.worker_id

    def seat(self, table_id: str, seat: int, seat_token: str | None) -> Seat:
        """A handle that remembers a seat and its token."""
        return Seat(self, table_id, seat, seat_token)


@dataclass
class Seat:
    """One seat at one table, with its token: the usual way to play."""

    client: ParlourClient
    table_id: str
    seat: int
    token: str | None = field(repr=False)

    async def view(self, *, min_version: int | None = None) -> play_pb2.GetViewResponse:
        return await self.client.get_view(
            self.table_id, self.seat, self.token, min_version=min_version
        )

    async def act(
        self,
        move: int | str | common_pb2.Action,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> play_pb2.ActResponse:
        return await self.client.act(
            self.table_id,
            self.seat,
            self.token,
            move,
            expected_version=expected_version,
            request_id=request_id,
        )

    def watch(self, from_version: int = 0) -> AsyncGenerator[play_pb2.WatchResponse, None]:
        return self.client.watch(self.table_id, self.seat, self.token, from_version)

    async def say(self, text: str) -> play_pb2.SayResponse:
        return await self.client.say(self.table_id, self.seat, self.token, text)

    async def return_to_seat(self) -> play_pb2.ReturnToSeatResponse:
        if self.token is None:
            raise ValueError("taking a seat back needs the seat token")
        return await self.client.return_to_seat(self.table_id, self.seat, self.token)

    async def leave(self) -> lobby_pb2.Table:
        if self.token is None:
            raise ValueError("leaving needs the seat token")
        return await self.client.leave_table(self.table_id, self.seat, self.token)


_STATUS = {
    "": lobby_pb2.TABLE_STATUS_UNSPECIFIED,
    "open": lobby_pb2.TABLE_STATUS_OPEN,
    "playing": lobby_pb2.TABLE_STATUS_PLAYING,
    "finished": lobby_pb2.TABLE_STATUS_FINISHED,
    "expired": lobby_pb2.TABLE_STATUS_EXPIRED,
    "abandoned": lobby_pb2.TABLE_STATUS_ABANDONED,
}


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
