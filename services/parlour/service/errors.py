"""Service errors and the ONE place that maps every error to a gRPC status.

The application layer (``app.py``) raises engine errors (the rules engine's
own hierarchy), store errors and the few service errors below; the gRPC layer
never decides a status code itself but asks :func:`status_for`. Anything not
listed here is a bug or an outage: it is logged with an incident id and
answered INTERNAL (or UNAVAILABLE when the database is unreachable), never
UNKNOWN and never with a traceback.
"""

from __future__ import annotations

import logging
import secrets

import grpc
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from parlour.engine.errors import (
    BadDeck,
    GameOver,
    IllegalAction,
    InvalidOptions,
    MalformedAction,
    NotYourTurn,
    UnknownGame,
)
from parlour.service.store import ConcurrencyConflict, DuplicateRequest, UnknownTable

log = logging.getLogger("parlour.service")


#: The longest status message sent; longer ones are cut (inputs are quoted short anyway).
MAX_MESSAGE = 500


def shorten(text: str, keep: int = 24) -> str:
    """``text`` quoted for a status message: whole if short, else a prefix and its length.

    The one way a status message quotes what a client sent, so a huge input
    can never make a status too large for the call's metadata.
    """
    if len(text) <= keep:
        return repr(text)
    return f"{text[:keep]!r}... ({len(text)} characters)"


class ServiceError(Exception):
    """A refusal decided by the service itself (not by the rules engine)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    """The request cannot be understood: a field missing or out of range."""


class TableNotFound(ServiceError):
    """No table with that id."""


class MissingToken(ServiceError):
    """A token the call needs is not in the metadata."""


class WrongToken(ServiceError):
    """The token given does not belong to that seat or table."""


class WrongTableState(ServiceError):
    """The table is not in the state the request needs (not open, not playing...)."""


class StaleVersion(ServiceError):
    """The client decided on a version that is no longer the table's version."""


class LostRace(ServiceError):
    """Another writer appended first and the request could not be re-applied."""


class TurnLeased(ServiceError):
    """A bot's turn is leased to another AI worker, which is to play it."""


class ShuttingDown(ServiceError):
    """This replica is stopping; the client should go on with another one."""


_CODES: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (BadRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedAction, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidOptions, grpc.StatusCode.INVALID_ARGUMENT),
    (BadDeck, grpc.StatusCode.INVALID_ARGUMENT),
    (TableNotFound, grpc.StatusCode.NOT_FOUND),
    (UnknownTable, grpc.StatusCode.NOT_FOUND),
    (UnknownGame, grpc.StatusCode.NOT_FOUND),
    (IllegalAction, grpc.StatusCode.FAILED_PRECONDITION),
    (NotYourTurn, grpc.StatusCode.FAILED_PRECONDITION),
    (GameOver, grpc.StatusCode.FAILED_PRECONDITION),
    (WrongTableState, grpc.StatusCode.FAILED_PRECONDITION),
    (StaleVersion, grpc.StatusCode.ABORTED),
    (LostRace, grpc.StatusCode.ABORTED),
    (TurnLeased, grpc.StatusCode.ABORTED),
    (ConcurrencyConflict, grpc.StatusCode.ABORTED),
    (DuplicateRequest, grpc.StatusCode.ABORTED),
    (MissingToken, grpc.StatusCode.UNAUTHENTICATED),
    (WrongToken, grpc.StatusCode.PERMISSION_DENIED),
    (ShuttingDown, grpc.StatusCode.UNAVAILABLE),
    # The database is down or overloaded: a retry elsewhere or later may work.
    (OperationalError, grpc.StatusCode.UNAVAILABLE),
    (PoolTimeout, grpc.StatusCode.UNAVAILABLE),
)


def status_for(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message a client receives for ``error``."""
    code, message = _status_for(error)
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return code, message


def _status_for(error: BaseException) -> tuple[grpc.StatusCode, str]:
    for kind, code in _CODES:
        if isinstance(error, kind):
            if isinstance(error, ShuttingDown):
                return code, str(error)
            if code is grpc.StatusCode.UNAVAILABLE:
                log.warning("database unavailable: %s", error)
                return code, "the game database is unavailable; retry shortly"
            if isinstance(error, UnknownTable):
                return code, f"no such table: {shorten(str(error))}"
            if isinstance(error, ConcurrencyConflict | DuplicateRequest):
                return code, "another move was applied first; fetch the view and retry"
            return code, str(error)
    incident = secrets.token_hex(4)
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        log.warning("database connection lost (incident %s): %s", incident, error)
        return grpc.StatusCode.UNAVAILABLE, f"the game database connection dropped ({incident})"
    log.error("unexpected error (incident %s)", incident, exc_info=error)
    return grpc.StatusCode.INTERNAL, f"internal error, logged as incident {incident}"
