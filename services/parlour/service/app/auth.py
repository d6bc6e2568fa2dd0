"""Seat and host tokens: random secrets handed out once, stored only as hashes.

A token is ``secrets.token_urlsafe(32)`` (256 random bits). The database keeps
its SHA-256 hex digest, so a leaked database does not let anyone act for a
seat, and comparisons run in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from parlour.service.domain.errors import MissingToken, WrongToken

#: Call-metadata keys (gRPC headers are lower case).
SEAT_TOKEN_KEY = "x-parlour-seat-token"
HOST_TOKEN_KEY = "x-parlour-host-token"
WORKER_TOKEN_KEY = "x-parlour-worker-token"
#: Not a secret: which worker sends an Act, checked against the bot turn's lease.
WORKER_ID_KEY = "x-parlour-worker-id"


def new_token() -> str:
    """A fresh secret for a seat or a host."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The form a token is stored in."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_token(given: str | None, stored_hash: str | None, what: str) -> None:
    """Raise MissingToken / WrongToken unless ``given`` hashes to ``stored_hash``."""
    if not given:
        raise MissingToken(f"{what} token missing (send it as call metadata)")
    if not stored_hash or not hmac.compare_digest(token_hash(given), stored_hash):
        raise WrongToken(f"that is not the {what} token")
