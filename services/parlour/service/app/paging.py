"""Pages of a newest-first listing, with opaque page tokens (ListTables; reusable).

A listing is ordered by (created_at descending, id ascending), which never
changes for a row, so a page token is simply the position of the last row
handed out: the next page starts strictly after it (keyset pagination).
Rows added or changed meanwhile can never make a page repeat an earlier row.
The token also carries the listing's filters ("scope"), so it cannot be
replayed against a different query. It is opaque to clients (URL-safe base64
of a small JSON object); the server checks everything in it.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime

from parlour.service.domain.errors import BadRequest

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
_VERSION = 1


@dataclass(frozen=True)
class Cursor:
    """The position of a row in a newest-first listing."""

    created_at: datetime
    key: str


def page_size(requested: int) -> int:
    """The page size to use for a request's ``page_size`` (0 = the default)."""
    if requested == 0:
        return DEFAULT_PAGE_SIZE
    if not 1 <= requested <= MAX_PAGE_SIZE:
        raise BadRequest(f"page_size must be 0 to {MAX_PAGE_SIZE}, not {requested}")
    return requested


def encode(cursor: Cursor, scope: str) -> str:
    """The page token for the page after ``cursor`` in the listing ``scope``."""
    document = {"v": _VERSION, "s": scope, "c": cursor.created_at.isoformat(), "k": cursor.key}
    raw = json.dumps(document, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str, scope: str) -> Cursor | None:
    """The cursor in ``token`` (None for an empty token: the first page).

    Raises BadRequest for a token the server did not give for this ``scope``.
    """
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        document = json.loads(raw)
        if not isinstance(document, dict) or document.get("v") != _VERSION:
            raise ValueError("unknown token version")
        created_at = datetime.fromisoformat(document["c"])
        key = document["k"]
        if not isinstance(key, str) or created_at.tzinfo is None:
            raise ValueError("bad cursor")
    except (ValueError, TypeError, KeyError, binascii.Error, UnicodeDecodeError):
        raise BadRequest("page_token is not a token this server gave") from None
    if document.get("s") != scope:
        raise BadRequest("page_token was given for another game or status; start again without it")
    return Cursor(created_at, key)
