"""The one mapping from errors to gRPC status codes, and the handlers' guards.

Every exception a servicer meets goes through :func:`status_for`: the
application's, the engine's and the store's errors each have their code, so
an unexpected error is logged and answered deliberately (INTERNAL, with an
incident id), never as UNKNOWN and never with a traceback. :func:`unary`
and :func:`streaming` wrap the handlers with it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from parlour.engine.errors import (
    BadDeck,
    GameOver,
    IllegalAction,
    InvalidOptions,
    MalformedAction,
    NotYourTurn,
    UnknownGame,
)
from parlour.service.domain import errors
from parlour.service.store.protocol import (
    ConcurrencyConflict,
    DuplicateRequest,
    StoreUnavailable,
    UnknownTable,
)

log = logging.getLogger("parlour.service")

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")


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
    # accounts and moderation (issue 30)
    (errors.NotSignedIn, grpc.StatusCode.UNAUTHENTICATED),
    (errors.NameTaken, grpc.StatusCode.ALREADY_EXISTS),
    (errors.AccountCapReached, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (errors.Barred, grpc.StatusCode.PERMISSION_DENIED),
    (errors.NoSuchSession, grpc.StatusCode.NOT_FOUND),
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
