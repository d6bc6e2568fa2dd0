"""The service's own refusals: domain errors that know nothing of gRPC or databases.

The application layer (``app.py``, ``bots.py``, ``replay_log.py``) raises
these, the rules engine's own errors and the store's; the gRPC edge
(``grpc_server.status_for``) is the one place that maps them to status codes.
"""

from __future__ import annotations

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


class RequestIdReused(ServiceError):
    """A request_id already used at the table by another seat or for another move."""


class AheadOfTable(ServiceError):
    """A Watch asked to resume from, or a GetView for, a version the table has not reached."""


# --- accounts and moderation (issue 30) ---------------------------------------------------


class NotSignedIn(ServiceError):
    """The call needs a live session and carries none, or an unknown, expired or revoked one."""


class NameTaken(ServiceError):
    """Another account has claimed that name."""


class AccountCapReached(ServiceError):
    """The account is at one of the server's per-account caps (open tables, seats)."""


class Barred(ServiceError):
    """The caller may not do this here: removed from the table by its host, an
    invite-only seat without its code, or spectators not allowed at the table."""


class NoSuchSession(ServiceError):
    """The account has no live session with that id."""
