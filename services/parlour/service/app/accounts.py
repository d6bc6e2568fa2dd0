"""Accounts and sessions: guests from a device secret, names and passwords, sign-in.

Nakama's device authentication is the model: a client's first call with a
device secret makes a guest account bound to that device; the guest may
claim a unique name and a password, then sign in on another device. Each
sign-in opens a session whose token goes in call metadata as
``authorization: Bearer <token>``.

What is kept (never a secret itself):

* a device secret as its SHA-256 digest (it has at least 128 random bits, so
  a fast digest suffices, as for seat tokens);
* a session token (``secrets.token_urlsafe(32)``: 256 bits) as its SHA-256
  digest, with its expiry (:data:`DEFAULT_SESSION_SECONDS` unless set) and
  revocation time;
* a password as argon2id (argon2-cffi) with :data:`ARGON2_PARAMETERS`, RFC
  9106's second recommended option, hashed in a worker thread.

Names (:func:`clean_account_name`) are NFC, 3 to 24 characters of letters,
digits, marks, single inner spaces and ``-_.'``, no control, format or other
invisible character, and unique by their NFKC casefold.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

import argon2

from parlour.service.domain.errors import (
    BadRequest,
    NameTaken,
    NoSuchSession,
    NotSignedIn,
    SignInFailed,
    WrongTableState,
)
from parlour.service.store.protocol import (
    AccountRow,
    AccountStore,
    AlreadyNamed,
    SessionRow,
    utcnow,
)
from parlour.service.store.protocol import NameTaken as StoreNameTaken

#: the metadata key of a session, and its scheme
AUTHORIZATION_KEY = "authorization"
BEARER = "Bearer "
#: how long a session lasts unless the server sets otherwise (30 days)
DEFAULT_SESSION_SECONDS = 30 * 24 * 3600
#: argon2id's parameters (RFC 9106, section 4, the second recommended option)
ARGON2_PARAMETERS = {
    "time_cost": 3,
    "memory_cost": 64 * 1024,  # KiB: 64 MiB
    "parallelism": 4,
    "hash_len": 32,
    "salt_len": 16,
}
#: argon2id hashes run at once per process; more wait their turn (each takes 64 MiB and
#: a core for a fraction of a second: a burst of sign-ins must not exhaust the memory)
HASHES_AT_ONCE = 2
MIN_NAME, MAX_NAME = 3, 24
MIN_PASSWORD, MAX_PASSWORD = 8, 256
MIN_DEVICE_SECRET, MAX_DEVICE_SECRET = 32, 128
_DEVICE_SECRET = re.compile(r"[A-Za-z0-9_-]+")
_NAME_PUNCTUATION = frozenset("-_.'")


def default_hasher() -> argon2.PasswordHasher:
    """The password hasher with :data:`ARGON2_PARAMETERS` (argon2id)."""
    given = ARGON2_PARAMETERS
    return argon2.PasswordHasher(
        time_cost=given["time_cost"],
        memory_cost=given["memory_cost"],
        parallelism=given["parallelism"],
        hash_len=given["hash_len"],
        salt_len=given["salt_len"],
        type=argon2.Type.ID,
    )


def digest(secret: str) -> str:
    """The form a device secret or session token is stored in (SHA-256 hex)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def clean_account_name(name: str) -> tuple[str, str]:
    """(the name as shown, its key for uniqueness), or :class:`BadRequest` naming the rule."""
    text = unicodedata.normalize("NFC", name).strip()
    if not MIN_NAME <= len(text) <= MAX_NAME:
        raise BadRequest(
            f"a name has {MIN_NAME} to {MAX_NAME} characters, not {len(text)} (after trimming)"
        )
    if "  " in text:
        raise BadRequest("a name has single spaces between its words")
    for char in text:
        category = unicodedata.category(char)
        if char == " " or char in _NAME_PUNCTUATION or category[0] in "LNM":
            continue
        raise BadRequest(
            f"a name may not contain U+{ord(char):04X} "
            f"({unicodedata.name(char, 'unnamed')}, category {category}): only letters, "
            "digits, marks, spaces and - _ . ' are allowed"
        )
    return text, name_key(text)


def name_key(text: str) -> str:
    """What two names must differ in to be two names: their NFKC casefold."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFC", text).strip().casefold())


def check_password(password: str) -> None:
    """Refuse a password too short or too long (the message never quotes it)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise BadRequest(
            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters, not {len(password)}"
        )


def check_device_secret(secret: str) -> None:
    """Refuse a device secret of the wrong size or alphabet (never quoted)."""
    if not MIN_DEVICE_SECRET <= len(secret) <= MAX_DEVICE_SECRET:
        raise BadRequest(
            f"a device secret has {MIN_DEVICE_SECRET} to {MAX_DEVICE_SECRET} characters, "
            f"not {len(secret)}"
        )
    if not _DEVICE_SECRET.fullmatch(secret):
        raise BadRequest("a device secret is URL-safe base64 or hex (A-Z a-z 0-9 - _)")


def bearer_token(value: str | None) -> str | None:
    """The session token of an ``authorization`` value (None when absent);
    :class:`NotSignedIn` for another scheme or an empty token."""
    if value is None:
        return None
    if not value.startswith(BEARER) or not value[len(BEARER) :].strip():
        raise NotSignedIn('the authorization metadata must be "Bearer <session token>"')
    return value[len(BEARER) :].strip()


@dataclass(frozen=True)
class Caller:
    """Who a call's session says the caller is."""

    account: AccountRow
    session: SessionRow


@dataclass(frozen=True)
class SignedIn:
    """A new session: the account, the token (shown once) and the session's row."""

    account: AccountRow
    token: str
    session: SessionRow
    created: bool = False


class Accounts:
    """The account use cases over an :class:`AccountStore`."""

    def __init__(
        self,
        store: AccountStore,
        *,
        session_seconds: float = DEFAULT_SESSION_SECONDS,
        hasher: argon2.PasswordHasher | None = None,
    ) -> None:
        self.store = store
        self.session_seconds = session_seconds
        self.hasher = hasher or default_hasher()
        self._hashing = asyncio.Semaphore(HASHES_AT_ONCE)

    async def _open_session(
        self, account: AccountRow, method: str, device: str | None
    ) -> tuple[str, SessionRow]:
        token = secrets.token_urlsafe(32)
        now = utcnow()
        session = SessionRow(
            secrets.token_hex(8),
            account.account_id,
            method,
            now,
            now + timedelta(seconds=self.session_seconds),
            device_hash=device,
        )
        await self.store.add_session(session, digest(token))
        return token, session

    async def authenticate_device(self, device_secret: str) -> SignedIn:
        """Sign the device in to its account, made as a guest on first use."""
        check_device_secret(device_secret)
        device = digest(device_secret)
        account = await self.store.device_account(device)
        created = False
        if account is None:
            guest = AccountRow(secrets.token_hex(8), utcnow())
            account = await self.store.create_guest(guest, device)
            created = account.account_id == guest.account_id
        token, session = await self._open_session(account, "device", device)
        return SignedIn(account, token, session, created)

    async def caller(self, token: str | None, now: datetime | None = None) -> Caller:
        """The account and session of a session token; :class:`NotSignedIn` if there is
        none, or it is unknown, expired or revoked."""
        if not token:
            raise NotSignedIn(
                'no session: send "authorization: Bearer <session token>" '
                "(AccountService.AuthenticateDevice or SignIn gives one)"
            )
        session = await self.store.live_session(digest(token), now or utcnow())
        account = None if session is None else await self.store.get_account(session.account_id)
        if session is None or account is None:
            raise NotSignedIn("the session is unknown, expired or revoked; sign in again")
        return Caller(account, session)

    async def claim_name(self, caller: Caller, name: str, password: str) -> AccountRow:
        """Give the caller's guest account a name and a password."""
        shown, key = clean_account_name(name)
        check_password(password)
        if caller.account.name_key is not None:
            raise WrongTableState(f"this account already has the name {caller.account.name!r}")
        if await self.store.find_name(key) is not None:
            raise NameTaken(f"the name {shown!r} is taken")
        async with self._hashing:
            hashed = await asyncio.to_thread(self.hasher.hash, password)
        try:
            return await self.store.claim_name(caller.account.account_id, shown, key, hashed)
        except StoreNameTaken as taken:
            raise NameTaken(f"the name {shown!r} is taken") from taken
        except AlreadyNamed as named:
            raise WrongTableState("this account already has a name") from named

    async def sign_in(self, name: str, password: str, device_secret: str = "") -> SignedIn:
        """A new session on the named account, if the password is its own; with a device
        secret, that device signs in to this account from now on."""
        _, key = clean_account_name(name)
        check_password(password)
        if device_secret:
            check_device_secret(device_secret)
        account = await self.store.find_name(key)
        async with self._hashing:
            verified = await asyncio.to_thread(self._verify, account, password)
        if not verified:
            raise SignInFailed("no account has that name and password")
        assert account is not None
        device = digest(device_secret) if device_secret else None
        if device is not None:
            await self.store.bind_device(device, account.account_id, utcnow())
        token, session = await self._open_session(account, "password", device)
        return SignedIn(account, token, session)

    def _verify(self, account: AccountRow | None, password: str) -> bool:
        # an unknown name costs a hash too, so that timing does not tell names apart
        stored = account.password_hash if account is not None else None
        try:
            return self.hasher.verify(stored or _DUMMY_HASH.get(self.hasher), password)
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            return False

    async def sign_out(self, caller: Caller) -> None:
        """End the caller's session (its device unbound, as for :meth:`revoke`)."""
        await self.store.revoke_session(
            caller.account.account_id, caller.session.session_id, utcnow()
        )

    async def sessions(self, caller: Caller) -> list[SessionRow]:
        """The caller's account's live sessions, newest first."""
        return await self.store.live_sessions(caller.account.account_id, utcnow())

    async def revoke(self, caller: Caller, session_id: str) -> None:
        """Revoke one of the caller's account's live sessions; the device that opened it
        no longer signs in to the account (its next AuthenticateDevice is a new guest)."""
        if len(session_id) > 64 or not await self.store.revoke_session(
            caller.account.account_id, session_id, utcnow()
        ):
            raise NoSuchSession(f"this account has no live session {session_id[:64]!r}")


class _DummyHashes:
    """One hash per hasher of a password nobody has, to verify unknown names against."""

    def __init__(self) -> None:
        self._made: dict[int, str] = {}

    def get(self, hasher: argon2.PasswordHasher) -> str:
        found = self._made.get(id(hasher))
        if found is None:
            found = self._made[id(hasher)] = hasher.hash(secrets.token_urlsafe(16))
        return found


_DUMMY_HASH = _DummyHashes()
