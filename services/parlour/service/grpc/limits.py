"""The contract's input limits, enforced once, at the gRPC edge.

Every string and repeated field of every request message has a maximum here
(``LIMITS``: the field's full name -> characters for a string, entries for a
repeated or map field), and the same number is written in the field's
comment in the .proto files (a test holds the two together). The
:class:`LimitsInterceptor` checks each request against the table before any
servicer runs, so nothing oversized or malformed reaches the engine or the
database. It walks the request through its protobuf descriptor, so a field
added to the contract is checked as soon as it has a limit, and a test fails
until it has one.

A control character (U+0000 to U+001F, U+007F to U+009F) has no meaning in
any field of the contract and is refused wherever it appears. Bytes that do
not decode as the request message are refused the same way, as
INVALID_ARGUMENT. A request larger than ``MAX_REQUEST_BYTES`` never gets that
far: the transport refuses it with RESOURCE_EXHAUSTED.

:func:`errors.shorten` is the one way a status message quotes what a client sent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from parlour.service.domain.errors import MAX_MESSAGE, BadRequest, shorten
from parlour.service.grpc.status import details
from parlour.service.grpc.wrapping import Handler, WrappingInterceptor

#: The largest request the server reads (the transport refuses bigger ones with
#: RESOURCE_EXHAUSTED); every request within LIMITS is far smaller.
MAX_REQUEST_BYTES = 64 * 1024
#: The largest response the server sends (a full game's replay is well under it).
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
#: A connection with no call in flight for this long is closed (GOAWAY; clients reconnect).
CONNECTION_IDLE_SECONDS = 30
#: A connection is closed this long after it opened (spreads clients over new replicas),
#: and its calls in flight get CONNECTION_AGE_GRACE_SECONDS more to finish (a Watch
#: cut then resumes, the client library does it, on any replica).
CONNECTION_AGE_SECONDS = 3600
CONNECTION_AGE_GRACE_SECONDS = 300
#: A connection must finish its HTTP/2 handshake within this long.
HANDSHAKE_SECONDS = 10
#: Calls one connection may have in flight at once: a burst of calls on one connection
#: waits in its client, not in the replica's event loop beside everyone else's calls (the
#: gateway spreads its browsers over a pool of connections: gateway/channels.py; a
#: caller's Watch streams are capped lower, per address).
MAX_STREAMS_PER_CONNECTION = 100
#: The most often a client may ping; more often (or any ping with no call in flight)
#: counts a strike, and two strikes close the connection.
MIN_PING_SECONDS = 60
#: gRPC server options that set those limits.
SERVER_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
    ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
    ("grpc.max_connection_idle_ms", CONNECTION_IDLE_SECONDS * 1000),
    ("grpc.max_connection_age_ms", CONNECTION_AGE_SECONDS * 1000),
    ("grpc.max_connection_age_grace_ms", CONNECTION_AGE_GRACE_SECONDS * 1000),
    ("grpc.server_handshake_timeout_ms", HANDSHAKE_SECONDS * 1000),
    ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.min_ping_interval_without_data_ms", MIN_PING_SECONDS * 1000),
    ("grpc.http2.max_ping_strikes", 2),
    # the server pings a connection quiet for a minute, and drops it if no answer in 20 s
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
)

# Sizes shared by several fields.
ID = 64  # a table id (the server's are 16 characters), a page token's parts
GAME = 32  # a game id or a bot level
PERSON_NAME = 40  # a name on a seat
WORKER_ID = 100
ENTROPY = 64  # a seat's contribution to the deals, hex (deals.MAX_CONTRIBUTION)

#: Field full name -> its maximum: characters (strings) or entries (repeated and map fields).
LIMITS: Mapping[str, int] = {
    "parlour.v1.GetGameRequest.game": GAME,
    "parlour.v1.HostTableRequest.game": GAME,
    "parlour.v1.HostTableRequest.options": 32,
    "parlour.v1.HostTableRequest.OptionsEntry.key": 64,
    "parlour.v1.HostTableRequest.OptionsEntry.value": 64,
    "parlour.v1.HostTableRequest.seat_setup": 16,
    "parlour.v1.SeatSetup.bot_level": GAME,
    "parlour.v1.HostTableRequest.name": 100,
    "parlour.v1.HostTableRequest.host_player_name": PERSON_NAME,
    "parlour.v1.HostTableRequest.host_entropy": ENTROPY,
    "parlour.v1.ListTablesRequest.game": GAME,
    "parlour.v1.ListTablesRequest.page_token": 200,
    "parlour.v1.GetTableRequest.table_id": ID,
    "parlour.v1.JoinTableRequest.table_id": ID,
    "parlour.v1.JoinTableRequest.player_name": PERSON_NAME,
    "parlour.v1.JoinTableRequest.entropy": ENTROPY,
    "parlour.v1.LeaveTableRequest.table_id": ID,
    "parlour.v1.StartTableRequest.table_id": ID,
    "parlour.v1.GetViewRequest.table_id": ID,
    "parlour.v1.ActRequest.table_id": ID,
    "parlour.v1.ActRequest.request_id": 100,
    "parlour.v1.ReturnToSeatRequest.table_id": ID,
    "parlour.v1.SayRequest.table_id": ID,
    "parlour.v1.SayRequest.text": 400,  # as sent; the line kept: chat.MAX_CHAT_CHARS after NFC
    "parlour.v1.SetChatRequest.table_id": ID,
    "parlour.v1.Action.card": 8,
    "parlour.v1.Action.text": 64,
    "parlour.v1.Action.more_cards": 12,
    "parlour.v1.Action.more_cards.item": 8,
    "parlour.v1.WatchRequest.table_id": ID,
    "parlour.v1.GetReplayRequest.table_id": ID,
    "parlour.v1.GetReplayHandRequest.table_id": ID,
    "parlour.v1.ForkTableRequest.table_id": ID,
    "parlour.v1.ClaimTurnRequest.worker_id": WORKER_ID,
    "parlour.v1.ClaimTurnRequest.games": 16,
    "parlour.v1.ClaimTurnRequest.games.item": GAME,
    "parlour.v1.ReleaseTurnRequest.worker_id": WORKER_ID,
    "parlour.v1.ReleaseTurnRequest.table_id": ID,
    # accounts and moderation (issue 30)
    "parlour.v1.JoinTableRequest.seat_code": ID,
    "parlour.v1.RemoveFromSeatRequest.table_id": ID,
    "parlour.v1.AuthenticateDeviceRequest.device_secret": 128,
    "parlour.v1.ClaimNameRequest.name": 64,
    "parlour.v1.ClaimNameRequest.password": 256,
    "parlour.v1.SignInRequest.name": 64,
    "parlour.v1.SignInRequest.password": 256,
    "parlour.v1.SignInRequest.device_secret": 128,
    "parlour.v1.RevokeSessionRequest.session_id": ID,
    # a home for players (issue 31)
    "parlour.v1.ListMyGamesRequest.page_token": 200,
    "parlour.v1.GetLeaderboardRequest.game": GAME,
    "parlour.v1.GetLeaderboardRequest.page_token": 200,
    "parlour.v1.GetTableRatingsRequest.table_id": ID,
    "parlour.v1.GetTablesRatingsRequest.table_ids": 50,
    "parlour.v1.GetTablesRatingsRequest.table_ids.item": ID,
    "parlour.v1.PlayAgainRequest.table_id": ID,
    "parlour.v1.GetRematchRequest.table_id": ID,
    "parlour.v1.DeclineRematchRequest.table_id": ID,
    # after the game: the expert's analysis (issue 35)
    "parlour.v1.RequestAnalysisRequest.table_id": ID,
    "parlour.v1.GetAnalysisRequest.table_id": ID,
    "parlour.v1.ClaimAnalysisRequest.worker_id": WORKER_ID,
    "parlour.v1.ClaimAnalysisRequest.games": 16,
    "parlour.v1.ClaimAnalysisRequest.games.item": GAME,
    "parlour.v1.SubmitAnalysisRequest.worker_id": WORKER_ID,
    "parlour.v1.SubmitAnalysisRequest.table_id": ID,
    "parlour.v1.SubmitAnalysisRequest.decisions": 500,
    "parlour.v1.SubmitAnalysisRequest.error": 200,
}

#: Call-metadata keys the service reads -> the longest value it accepts (tokens are 43 characters).
METADATA_LIMITS: Mapping[str, int] = {
    "x-parlour-seat-token": 100,
    "x-parlour-host-token": 100,
    "x-parlour-worker-token": 1024,  # chosen by the operator
    "x-parlour-worker-id": WORKER_ID,
    "authorization": 200,  # "Bearer " and a session token (43 characters)
}


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class LimitExceeded(BadRequest):
    """A request field over its documented limit, or holding a control character."""

    REASON = "LIMIT_EXCEEDED"


def item_limit(field: FieldDescriptor) -> int | None:
    """The per-item length limit of a repeated string field (None if it has none)."""
    return LIMITS.get(f"{field.full_name}.item")


def check_request(message: Message) -> None:
    """Raise :class:`LimitExceeded` for the first field of ``message`` over its limit."""
    _check_message(message, message.DESCRIPTOR.name)


def _limit(field: FieldDescriptor) -> int:
    # A field missing from the table is refused outright (a test keeps the table complete).
    return LIMITS.get(field.full_name, 0)


#: what a field's check is (:func:`_plan`)
_SKIP, _TEXT, _MESSAGE, _REPEATED, _MAP = range(5)


@functools.cache
def _plan(field: FieldDescriptor) -> tuple[int, int, int, Descriptor | None]:
    """How a field is checked, worked out once per field of the contract: (what, its
    limit, its items' limit, a map's entry type). A number or a flag has nothing to check."""
    if field.is_repeated:
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            return _MAP, _limit(field), 0, entry
        return _REPEATED, _limit(field), item_limit(field) or 0, None
    if field.type == FieldDescriptor.TYPE_STRING:
        return _TEXT, _limit(field), 0, None
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return _MESSAGE, 0, 0, None
    return _SKIP, 0, 0, None


def _check_message(message: Message, path: str) -> None:
    for field, value in message.ListFields():
        what, limit, per_item, entry = _plan(field)
        if what == _SKIP:
            continue
        if what == _TEXT:
            if len(value) > limit or _CONTROL.search(value) is not None:
                _check_text(f"{path}.{field.name}", value, limit)
            continue
        where = f"{path}.{field.name}"
        if what == _MESSAGE:
            _check_message(value, where)
            continue
        _check_count(field, where, len(value))
        if entry is not None:
            for key, item in value.items():
                _check_map_entry(entry, where, key, item)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            for index, item in enumerate(value):
                _check_message(item, f"{where}[{index}]")
        elif field.type == FieldDescriptor.TYPE_STRING:
            for index, item in enumerate(value):
                _check_text(f"{where}[{index}]", item, per_item)


def _check_map_entry(entry: Descriptor, where: str, key: Any, item: Any) -> None:
    key_field, value_field = entry.fields_by_name["key"], entry.fields_by_name["value"]
    if isinstance(key, str):
        _check_text(f"{where} key", key, _limit(key_field))
    if isinstance(item, str):
        _check_text(f"{where}[{shorten(str(key), 16)}]", item, _limit(value_field))
    elif isinstance(item, Message):
        _check_message(item, f"{where}[{shorten(str(key), 16)}]")


def _check_count(field: FieldDescriptor, where: str, count: int) -> None:
    limit = _limit(field)
    if count > limit:
        raise LimitExceeded(f"{where} has {count} entries; the limit is {limit}")


def _check_text(where: str, text: str, limit: int) -> None:
    if len(text) > limit:
        raise LimitExceeded(f"{where} is {len(text)} characters long; the limit is {limit}")
    bad = _CONTROL.search(text)
    if bad is not None:
        raise LimitExceeded(
            f"{where} holds the control character U+{ord(bad.group()):04X} at position "
            f"{bad.start()}; control characters are refused"
        )


def _is_credential(key: str) -> bool:
    # every Parlour key (the tokens, the worker id, whatever identifies a caller later)
    return key.startswith("x-parlour-") or key == "authorization"


def check_metadata(metadata: Any) -> None:
    """Raise :class:`LimitExceeded` for a Parlour header too long or with a control
    character, or sent more than once (which of two tokens would count is no
    guess the server makes)."""
    seen: set[str] = set()
    for key, value in metadata or ():
        if _is_credential(key):
            if key in seen:
                raise LimitExceeded(f"metadata {key} was sent more than once; send it once")
            seen.add(key)
        limit = METADATA_LIMITS.get(key)
        if limit is None:
            continue
        text = value if isinstance(value, str) else value.decode("utf-8", "replace")
        _check_text(f"metadata {key}", text, limit)


class _Undecodable:
    """What the lenient deserializer hands on when the bytes are not the request message."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _lenient(deserialize: Callable[[bytes], Any], name: str) -> Callable[[bytes], Any]:
    def lenient(raw: bytes) -> Any:
        try:
            return deserialize(raw)
        except Exception as error:
            return _Undecodable(f"the request is not a valid {name}: {shorten(str(error), 80)}")

    return lenient


async def _refuse_bad(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    """Abort the call with the mapped status if the request breaks a limit."""
    try:
        if isinstance(request, _Undecodable):
            raise LimitExceeded(request.reason)
        check_metadata(context.invocation_metadata())
        check_request(request)
    except LimitExceeded as error:
        message = error.message[:MAX_MESSAGE]
        trailer = details(
            grpc.StatusCode.INVALID_ARGUMENT, message, error.REASON, error.reason_args
        )
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, message, trailing_metadata=trailer)


class LimitsInterceptor(WrappingInterceptor):
    """Checks every request of the Parlour contract against LIMITS before its servicer runs."""

    def wrap(self, handler: Handler, method: str) -> Handler:
        if handler.request_deserializer is None or not method.startswith("/parlour.v1."):
            return handler
        name = method.strip("/").replace("/", ".")
        deserializer = _lenient(handler.request_deserializer, f"request of {name}")
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _checked_unary(handler.unary_unary),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _checked_stream(handler.unary_stream),
                request_deserializer=deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


def _checked_unary(behaviour: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    async def checked(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await _refuse_bad(request, context)
        return await behaviour(request, context)

    return checked


def _checked_stream(behaviour: Callable[..., Any]) -> Callable[..., AsyncIterator[Any]]:
    async def checked(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        await _refuse_bad(request, context)
        async for item in behaviour(request, context):
            yield item

    return checked
