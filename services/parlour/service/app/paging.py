"""Pages of a newest-first listing, with opaque page tokens (ListTables; reusable).

A listing is ordered by (created_at descending, id ascending), which never
changes for a row, so a page token is simply the position of the last row
handed out: the next page starts strictly after it (keyset pagination).
Rows added or changed meanwhile can never make a page repeat an earlier row.
The token also carries the listing's filters ("scope"), so it cannot be
replayed against a different query. It is opaque to clients: URL-safe base64
of a small JSON object, a dot, and an HMAC-SHA256 tag (128 bits) over the
object under the server's page-token secret (:class:`Pager`). A token whose
tag does not match is refused before anything in it is read, so no client
string reaches the store through a token; what a signed token holds is
checked again all the same (a table id's characters, an aware timestamp).
Replicas must share the secret, or a page given by one is refused by another.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from parlour.service.domain.errors import BadRequest

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
_VERSION = 2
#: bytes of the HMAC-SHA256 tag a token carries (128 bits)
TAG_BYTES = 16
#: bytes of a secret made up at start when none is configured
SECRET_BYTES = 32
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
#: what a cursor's key (a table id) may be: the server's ids, never anything else
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_REFUSED = "page_token is not a token this server gave"


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


def new_secret() -> bytes:
    """A random page-token secret (a replica's own when none is configured)."""
    return secrets.token_bytes(SECRET_BYTES)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    if not _BASE64URL.fullmatch(text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Pager:
    """Page tokens signed with one secret: encode a cursor, decode and check a token."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a page-token secret needs at least 16 bytes")
        self._secret = secret

    def _tag(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()[:TAG_BYTES]

    def encode(self, cursor: Cursor, scope: str) -> str:
        """The page token for the page after ``cursor`` in the listing ``scope``."""
        document = {
            "v": _VERSION,
            "s": scope,
            "c": cursor.created_at.isoformat(),
            "k": cursor.key,
        }
        payload = json.dumps(document, separators=(",", ":")).encode()
        return f"{_b64(payload)}.{_b64(self._tag(payload))}"

    def decode(self, token: str, scope: str) -> Cursor | None:
        """The cursor in ``token`` (None for an empty token: the first page).

        Raises BadRequest for a token the server did not give (a forged or
        altered one: its tag is checked first), or gave for another ``scope``.
        """
        if not token:
            return None
        try:
            body, _, tag = token.partition(".")
            payload = _unb64(body)
            if not hmac.compare_digest(_unb64(tag), self._tag(payload)):
                raise ValueError("bad tag")
            document = json.loads(payload)
            if not isinstance(document, dict) or document.get("v") != _VERSION:
                raise ValueError("unknown token version")
            created, key = document["c"], document["k"]
            if not isinstance(created, str) or not isinstance(key, str) or not _KEY.fullmatch(key):
                raise ValueError("bad cursor")
            created_at = datetime.fromisoformat(created)
            if created_at.tzinfo is None:
                raise ValueError("naive timestamp")
        except (ValueError, TypeError, KeyError, binascii.Error, UnicodeDecodeError):
            raise BadRequest(_REFUSED) from None
        if document.get("s") != scope:
            raise BadRequest(
                "page_token was given for another game or status; start again without it"
            )
        return Cursor(created_at, key)
