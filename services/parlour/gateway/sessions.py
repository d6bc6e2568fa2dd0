"""The browser's session at the gateway: HttpOnly cookies, never a token in the page.

AccountService goes through the gateway like every service, with three
differences (issue 30):

* The session token of AuthenticateDevice and SignIn is taken out of the
  JSON answer and set as the cookie :data:`SESSION_COOKIE` (HttpOnly,
  SameSite=Strict, Path=/api, Secure when the page came over HTTPS, for the
  session's lifetime); SignOut clears it and the device cookie (the browser
  forgets the account; its next visit is a new guest). Every call that carries the cookie
  (and no ``Authorization`` header) is sent on with
  ``authorization: Bearer <token>``. The page's script never sees a token,
  so nothing of it can be left in localStorage.
* The device secret is the gateway's to make: AuthenticateDevice without one
  makes 32 random bytes and keeps them in the cookie :data:`DEVICE_COOKIE`
  (HttpOnly, the same flags, a year); SignIn without one sends the cookie's,
  so the browser signs in to the account from then on.
* CSRF: a POST that carries either cookie must also carry the header
  :data:`CSRF_HEADER` (any value; the page's ``rpc`` sends "1"). A form or
  a cross-site script cannot set it without a CORS preflight, which the
  gateway never grants; SameSite=Strict is the second line. A request without
  the cookies (a REST client with its own tokens) has no ambient authority to
  forge and needs no header.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from google.protobuf.message import Message
from starlette.requests import Request
from starlette.responses import JSONResponse

SESSION_COOKIE = "parlour_session"
DEVICE_COOKIE = "parlour_device"
CSRF_HEADER = "x-parlour-csrf"
#: how long the browser keeps its device secret (browsers cap cookies at 400 days)
DEVICE_COOKIE_SECONDS = 365 * 24 * 3600
MAX_COOKIE_CHARS = 200
#: the AccountService methods whose answer opens a session
_OPENS_SESSION = frozenset({"AuthenticateDevice", "SignIn"})
_ACCOUNTS = "AccountService"


class Refused(Exception):
    """A request the gateway refuses for its session rules, with the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _cookie(request: Request, name: str) -> str | None:
    value = request.cookies.get(name)
    if not value:
        return None
    if len(value) > MAX_COOKIE_CHARS or not all("!" <= char <= "~" for char in value):
        raise Refused(400, f"the {name} cookie is malformed; sign in again")
    return value


def check_csrf(request: Request) -> None:
    """Refuse (403) a POST that carries the session or device cookie without the header."""
    if request.method != "POST" or request.headers.get(CSRF_HEADER):
        return
    if request.cookies.get(SESSION_COOKIE) or request.cookies.get(DEVICE_COOKIE):
        raise Refused(
            403,
            f"a request with the session cookie must carry the {CSRF_HEADER} header "
            "(cross-site requests are refused)",
        )


def session_metadata(request: Request) -> tuple[tuple[str, str], ...]:
    """The ``authorization`` metadata to send: the header's, else the session cookie's."""
    header = request.headers.get("authorization")
    if header:
        if len(header) > MAX_COOKIE_CHARS or not all(" " <= char <= "~" for char in header):
            raise Refused(400, "the Authorization header is malformed")
        return (("authorization", header),)
    token = _cookie(request, SESSION_COOKIE)
    return (("authorization", f"Bearer {token}"),) if token else ()


def prepare(service: str, method: str, message: Message, request: Request) -> str | None:
    """Fill the device secret of AuthenticateDevice and SignIn from the cookie (or a new
    one for AuthenticateDevice); the new secret, to set as the cookie, or None."""
    if service != _ACCOUNTS or method not in _OPENS_SESSION:
        return None
    given: Any = message
    if given.device_secret:
        return None
    kept = _cookie(request, DEVICE_COOKIE)
    if kept:
        given.device_secret = kept
        return None
    if method == "SignIn":
        return None
    given.device_secret = secrets.token_urlsafe(32)
    return str(given.device_secret)


def answer(
    service: str,
    method: str,
    body: dict[str, Any],
    request: Request,
    new_device: str | None,
) -> JSONResponse:
    """The JSON answer, with the session's token moved from the body to its cookie."""
    if service != _ACCOUNTS:
        return JSONResponse(body)
    secure = request.url.scheme == "https"
    token = body.pop("sessionToken", "") if method in _OPENS_SESSION else ""
    response = JSONResponse(body)
    flags: dict[str, Any] = {"httponly": True, "samesite": "strict", "secure": secure}
    if token:
        expires = body.get("session", {}).get("expiresAt", "")
        response.set_cookie(
            SESSION_COOKIE, token, max_age=_seconds_until(expires), path="/api", **flags
        )
    if new_device:
        response.set_cookie(
            DEVICE_COOKIE, new_device, max_age=DEVICE_COOKIE_SECONDS, path="/api", **flags
        )
    if method == "SignOut":  # this browser forgets the account: a new guest next time
        response.delete_cookie(SESSION_COOKIE, path="/api", **flags)
        response.delete_cookie(DEVICE_COOKIE, path="/api", **flags)
    return response


def _seconds_until(moment: str) -> int:
    """Seconds from now to an RFC 3339 time (a day when it cannot be read)."""
    try:
        when = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        return 24 * 3600
    return max(0, int((when - datetime.now(UTC)).total_seconds()))


# --- issue 30 (browser): a SignOut whose session is already dead still forgets it ----------


def refused(service: str, method: str, response: JSONResponse) -> JSONResponse:
    """The refusal of a call; for SignOut (its session revoked from another device, or
    expired) the browser forgets the session and the device all the same, as on success,
    so that a revoked named account does not sign in again from the device cookie."""
    if service == _ACCOUNTS and method == "SignOut":
        response.delete_cookie(SESSION_COOKIE, path="/api", httponly=True, samesite="strict")
        response.delete_cookie(DEVICE_COOKIE, path="/api", httponly=True, samesite="strict")
    return response
