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
    """A refusal decided by the service itself (not by the rules engine).

    ``REASON`` is its machine-readable code (listed in ``common.proto``);
    ``reason_args`` the facts a client may say it with (seats from 0, versions).
    """

    REASON = "REFUSED"

    def __init__(self, message: str, **args: object) -> None:
        super().__init__(message)
        self.message = message
        self.reason_args = {name: str(value) for name, value in args.items()}


class BadRequest(ServiceError):
    """The request cannot be understood: a field missing or out of range."""

    REASON = "BAD_REQUEST"


class TableNotFound(ServiceError):
    """No table with that id."""

    REASON = "TABLE_NOT_FOUND"


class MissingToken(ServiceError):
    """A token the call needs is not in the metadata."""

    REASON = "MISSING_TOKEN"


class WrongToken(ServiceError):
    """The token given does not belong to that seat or table."""

    REASON = "WRONG_TOKEN"


class WrongTableState(ServiceError):
    """The table is not in the state the request needs (not open, not playing...)."""

    REASON = "WRONG_TABLE_STATE"


class StaleVersion(ServiceError):
    """The client decided on a version that is no longer the table's version."""

    REASON = "STALE_VERSION"


class LostRace(ServiceError):
    """Another writer appended first and the request could not be re-applied."""

    REASON = "LOST_RACE"


class TurnLeased(ServiceError):
    """A bot's turn is leased to another AI worker, which is to play it."""

    REASON = "TURN_LEASED"


class ShuttingDown(ServiceError):
    """This replica is stopping; the client should go on with another one."""

    REASON = "SHUTTING_DOWN"


class RequestIdReused(ServiceError):
    """A request_id already used at the table by another seat or for another move."""

    REASON = "REQUEST_ID_REUSED"


class AheadOfTable(ServiceError):
    """A Watch asked to resume from, or a GetView for, a version the table has not reached."""

    REASON = "AHEAD_OF_TABLE"


# --- accounts and moderation (issue 30) ---------------------------------------------------


class NotSignedIn(ServiceError):
    """The call needs a live session and carries none, or an unknown, expired or revoked one."""

    REASON = "NOT_SIGNED_IN"


class SignInFailed(NotSignedIn):
    """No account has that name and password (which of the two is wrong is not said)."""

    REASON = "SIGN_IN_FAILED"


class NameTaken(ServiceError):
    """Another account has claimed that name."""

    REASON = "NAME_TAKEN"


class AccountCapReached(ServiceError):
    """The account is at one of the server's per-account caps (open tables, seats)."""

    REASON = "ACCOUNT_CAP_REACHED"


class Barred(ServiceError):
    """The caller may not do this here: removed from the table by its host, an
    invite-only seat without its code, or spectators not allowed at the table."""

    REASON = "BARRED"


# --- the host's moderation, each refusal with a reason of its own (issue 30, web) --------


class RemovedByHost(Barred):
    """The host removed this account from the table: it may not sit there again."""

    REASON = "REMOVED_BY_HOST"


class SignedInOnly(Barred):
    """The host removed someone without an account: the table seats only signed-in callers."""

    REASON = "SIGNED_IN_ONLY"


class SeatNeedsCode(Barred):
    """An invite-only seat asked for without its seat code."""

    REASON = "SEAT_NEEDS_CODE"


class SeatHeldForRematch(Barred):
    """A seat of a rematch asked for by someone other than the player it waits for
    (app/holds.py)."""

    REASON = "SEAT_HELD_FOR_REMATCH"


class WrongSeatCode(Barred):
    """A seat code that opens no seat at this table (or another seat than the one asked)."""

    REASON = "WRONG_SEAT_CODE"


class NoSpectators(Barred):
    """The table allows no spectators (its option ``spectators`` is off)."""

    REASON = "NO_SPECTATORS"


class NameOwned(Barred):
    """A seat name that is another account's claimed name."""

    REASON = "NAME_OWNED"


class OnlyInvitedSeatsFree(WrongTableState):
    """Every free seat is kept for an invited player (each needs its seat code)."""

    REASON = "ONLY_INVITED_SEATS_FREE"


class NoSuchSession(ServiceError):
    """The account has no live session with that id."""

    REASON = "NO_SUCH_SESSION"


# -- table chat (issue 32) ---------------------------------------------------------------


class ChatTextRefused(BadRequest):
    """A chat line that is not one: empty, too long, or with a character a line may
    not hold (INVALID_ARGUMENT)."""

    REASON = "CHAT_TEXT_REFUSED"


class ChatOff(WrongTableState):
    """The table's chat is switched off, or closed (the game has not started or is over)."""

    REASON = "CHAT_OFF"
