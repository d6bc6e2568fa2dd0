"""One gRPC server interceptor for what operators watch: a log line and metrics per RPC.

Every RPC is logged when it ends with its method, status code, duration and, when
the request carries them, the table id, seat and request id (JSON fields with
``--log-json``). Health checks and reflection log at DEBUG only. The same place
counts RPCs by method and code, times ``PlayService.Act`` by game and code, counts
bot claims and keeps the number of open ``Watch`` streams.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from parlour.service.app import metrics
from parlour.service.grpc.wrapping import Handler, Serialized, WrappingInterceptor, sent_as_is
from parlour.v1 import lobby_pb2

log = logging.getLogger("parlour.rpc")

ACT = "PlayService/Act"
WATCH = "PlayService/Watch"
CLAIM = "BotService/ClaimTurn"
#: how many tables' games a replica remembers, to label refused acts by game
KNOWN_TABLES = 10_000


def request_fields(request: Any) -> dict[str, Any]:
    """The table id, seat and request id a request carries (those it has and set)."""
    found: dict[str, Any] = {}
    if not isinstance(request, Message):
        return found
    for name, has_presence in _logged_fields(request.DESCRIPTOR):
        if has_presence and not request.HasField(name):
            continue
        value = getattr(request, name)
        if value != "":
            found[name] = value
    return found


@functools.cache
def _logged_fields(descriptor: Descriptor) -> tuple[tuple[str, bool], ...]:
    """The logged fields a message type has, each with whether it tracks presence."""
    fields = descriptor.fields_by_name
    return tuple(
        (name, fields[name].has_presence)
        for name in ("table_id", "seat", "request_id")
        if name in fields
    )


@functools.cache
def _child(metric: Any, *labels: str) -> Any:
    """``metric.labels(*labels)``, looked up once (the label sets are few and fixed)."""
    return metric.labels(*labels)


class ObservingInterceptor(WrappingInterceptor):
    """Logs and measures every RPC of the server it is given to."""

    def __init__(self) -> None:
        super().__init__()
        self._games: OrderedDict[str, str] = OrderedDict()

    def wrap(self, handler: Handler, full: str) -> Handler:
        method = full.rsplit(".", 1)[-1] if full.startswith("/parlour.") else full.lstrip("/")
        quiet = not full.startswith("/parlour.")
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, method, quiet),
                request_deserializer=handler.request_deserializer,
                response_serializer=sent_as_is(handler.response_serializer),
            )
        if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, method, quiet),
                request_deserializer=handler.request_deserializer,
                response_serializer=sent_as_is(handler.response_serializer),
            )
        return handler

    def _unary(
        self, behavior: Callable[[Any, Any], Awaitable[Any]], method: str, quiet: bool
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
        async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            began = time.perf_counter()
            code = grpc.StatusCode.UNKNOWN
            response = None
            try:
                response = await behavior(request, context)
                code = context.code() or grpc.StatusCode.OK
                return response
            except grpc.aio.AbortError:
                code = context.code() or grpc.StatusCode.UNKNOWN
                raise
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            finally:
                self._done(method, quiet, request, response, code, time.perf_counter() - began)

        return observed

    def _stream(
        self, behavior: Callable[[Any, Any], AsyncIterator[Any]], method: str, quiet: bool
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Any]]:
        async def observed(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            began = time.perf_counter()
            code = grpc.StatusCode.UNKNOWN
            watching = method == WATCH
            if watching:
                metrics.WATCH_STREAMS.inc()
            try:
                async for item in behavior(request, context):
                    yield item
                code = context.code() or grpc.StatusCode.OK
            except grpc.aio.AbortError:
                code = context.code() or grpc.StatusCode.UNKNOWN
                raise
            except (asyncio.CancelledError, GeneratorExit):
                code = grpc.StatusCode.CANCELLED
                raise
            finally:
                if watching:
                    metrics.WATCH_STREAMS.dec()
                self._done(method, quiet, request, None, code, time.perf_counter() - began)

        return observed

    def _done(
        self,
        method: str,
        quiet: bool,
        request: Any,
        response: Any,
        code: grpc.StatusCode,
        seconds: float,
    ) -> None:
        fields = request_fields(request)
        self._learn_game(response)
        if "table_id" not in fields:  # HostTable: the table is in the answer
            answered = getattr(response, "table", None)
            if isinstance(answered, lobby_pb2.Table) and answered.table_id:
                fields["table_id"] = answered.table_id
        _child(metrics.RPCS, method, code.name).inc()
        if method == ACT:
            game = self._game_of(response, fields.get("table_id", ""))
            _child(metrics.ACT_SECONDS, game, code.name).observe(seconds)
        elif method == CLAIM and code == grpc.StatusCode.OK:
            claimed = bool(getattr(response, "claimed", False))
            metrics.BOT_CLAIMS.labels("claimed" if claimed else "empty").inc()
        level = logging.DEBUG if quiet else logging.INFO
        if log.isEnabledFor(level):
            log.log(
                level,
                "%s %s",
                method,
                code.name,
                extra={
                    "rpc": method,
                    "code": code.name,
                    "duration_ms": round(seconds * 1000, 2),
                    **fields,
                },
            )

    def _learn_game(self, response: Any) -> None:
        """Remember which game a table plays, from any response that says so."""
        if not isinstance(response, Message):
            return
        for part in ("table", "view"):
            if part in response.DESCRIPTOR.fields_by_name and response.HasField(part):
                message = getattr(response, part)
                table_id = getattr(message, "table_id", "")
                if table_id and message.game:
                    self._games[table_id] = message.game
                    self._games.move_to_end(table_id)
                    if len(self._games) > KNOWN_TABLES:
                        self._games.popitem(last=False)

    def _game_of(self, response: Any, table_id: str) -> str:
        if isinstance(response, Serialized) and response.game:
            self._games[table_id] = response.game
            return response.game
        view = getattr(response, "view", None)
        if view is not None and view.game:
            self._games[table_id] = view.game
            return str(view.game)
        return self._games.get(table_id, "unknown")
