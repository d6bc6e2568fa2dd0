"""The one mapping from errors to gRPC status codes, and the handlers' guards.

Every exception a servicer meets goes through :func:`status_for`: the
application's, the engine's and the store's errors each have their code, so
an unexpected error is logged and answered deliberately (INTERNAL, with an
incident id), never as UNKNOWN and never with a traceback. :func:`unary`
and :func:`streaming` wrap the handlers with it.

Every refusal also carries, beside its English message, the standard rich
error model in the ``grpc-status-details-bin`` trailer: a ``google.rpc.Status``
with one ``google.rpc.ErrorInfo`` detail (``reason``, the code from
``common.proto``; ``domain`` "parlour"; ``metadata``, its arguments), so a
client can say it in its player's language (:func:`refusal_for`,
:func:`details`). The guards also set the call's language
(:data:`parlour.words.LANGUAGE`) from the ``accept-language`` metadata.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from parlour.engine.errors import (
    BadDeck,
    EngineError,
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
from parlour.words import LANGUAGE, negotiate, say_phrase
from parlour.words import current as current_language
from parlour.words.catalogue import has as has_phrase

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


#: the ErrorInfo domain of every Parlour refusal
DOMAIN = "parlour"
#: the call metadata key naming the language words are said in (an Accept-Language value)
LANGUAGE_KEY = "accept-language"


def refusal_for(error: BaseException) -> tuple[str, dict[str, str]]:
    """The machine-readable reason of ``error`` and its arguments (strings):
    ("MUST_FOLLOW_SUIT", {"seat": "1", "card": "QS", "led": "H"})."""
    if isinstance(error, EngineError):
        return error.reason, dict(error.reason_args)
    if isinstance(error, errors.ServiceError):
        return error.REASON, dict(error.reason_args)
    if isinstance(error, UnknownTable):
        return "TABLE_NOT_FOUND", {}
    if isinstance(error, ConcurrencyConflict | DuplicateRequest):
        return "CONFLICT", {}
    if isinstance(error, StoreUnavailable):
        return "UNAVAILABLE", {}
    return "INTERNAL", {}


def details(
    code: grpc.StatusCode, message: str, reason: str, args: dict[str, str]
) -> tuple[tuple[str, str | bytes], ...]:
    """The ``grpc-status-details-bin`` trailer of a refusal: a google.rpc.Status with
    one ErrorInfo (``reason``, ``domain`` "parlour", ``metadata`` = ``args``)."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=args)
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(info)
    said = localized(reason, args)
    if said is not None:
        status.details.add().Pack(said)
    return tuple(rpc_status.to_status(status).trailing_metadata)


def localized(reason: str, args: dict[str, str]) -> error_details_pb2.LocalizedMessage | None:
    """The refusal said in the call's language (a google.rpc.LocalizedMessage), for a
    client without a catalogue of its own; None when the phrasebook has no words for it."""
    key = f"reason.{reason}"
    language = current_language()
    if not has_phrase(key, language):
        return None
    try:
        text = say_phrase(key, language, **args)
    except (KeyError, ValueError):  # an argument the sentence needs is missing
        return None
    return error_details_pb2.LocalizedMessage(locale=language, message=text)


async def abort(context: Context, error: BaseException) -> None:
    """Abort the call with ``error``'s status, message and reason."""
    code, message = status_for(error)
    reason, args = refusal_for(error)
    if code is grpc.StatusCode.INTERNAL:
        args = {"incident": message.rsplit(" ", 1)[-1]}
    await context.abort(code, message, trailing_metadata=details(code, message, reason, args))


def call_language(context: Context) -> str:
    """The language the call asks its words in (its ``accept-language`` metadata)."""
    for key, value in context.invocation_metadata() or ():
        if key == LANGUAGE_KEY:
            return negotiate(value if isinstance(value, str) else value.decode())
    return negotiate(None)


def unary(
    method: Callable[[S, Req, Context], Awaitable[Resp]],
) -> Callable[[S, Req, Context], Awaitable[Resp]]:
    """Answer every exception of a unary handler with its mapped status."""

    @functools.wraps(method)
    async def guarded(self: S, request: Req, context: Context) -> Resp:
        LANGUAGE.set(call_language(context))  # each call runs in its own task
        try:
            return await method(self, request, context)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            await abort(context, error)
            raise AssertionError("abort returned") from error

    return guarded


def streaming(
    method: Callable[[S, Req, Context], AsyncIterator[Resp]],
) -> Callable[[S, Req, Context], AsyncIterator[Resp]]:
    """Answer every exception of a server-streaming handler with its mapped status."""

    @functools.wraps(method)
    async def guarded(self: S, request: Req, context: Context) -> AsyncIterator[Resp]:
        LANGUAGE.set(call_language(context))
        try:
            async for item in method(self, request, context):
                yield item
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as error:
            await abort(context, error)

    return guarded
