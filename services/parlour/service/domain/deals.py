"""Verifiable deals: commit to every deck before it is played, reveal it at the end.

The procedure is documented for third parties in ``docs/fair-deals.md``; this
module is its reference implementation, used by the service to deal and by
``parlour replay`` to check. Pure functions over strings and ``hashlib``: no
I/O, no engine; a log is checked as its typed events (``events.py``).

- **Commitment** of a deal: ``sha256("parlour-deal-v1\\n" + salt + "\\n" +
  " ".join(cards))`` in lowercase hex, where ``salt`` is 64 lowercase hex
  digits (32 fresh random bytes) and ``cards`` the deck in dealing order.
- **Players' entropy** (a table option): the server draws a 32-byte seed when
  the table is hosted and publishes ``sha256("parlour-seed-v1\\n" + seed)``;
  each person seat contributes a value (hex, up to 64 digits) when it sits
  down; the start fixes the contributions in seat order. Deal ``n`` (0, 1,
  2... over the whole game) is then a Fisher-Yates shuffle of its cards,
  sorted by their codes, driven by a SHA-256 counter stream (:func:`shuffle`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    DomainEvent,
    GameStarted,
    SeatLeft,
    SeatTaken,
    TableHosted,
)

DEAL_TAG = "parlour-deal-v1"
SEED_TAG = "parlour-seed-v1"
SHUFFLE_TAG = "parlour-shuffle-v1"
#: Hex digits of a salt or a server seed (32 bytes).
SECRET_HEX = 64
#: The most hex digits a seat's contribution may have (the limit on the request fields).
MAX_CONTRIBUTION = 64
_HEX = frozenset("0123456789abcdef")


def new_secret() -> str:
    """32 fresh random bytes in lowercase hex (a salt, or a server seed)."""
    return secrets.token_hex(SECRET_HEX // 2)


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def commitment(cards: Sequence[str], salt: str) -> str:
    """The commitment to a deck: sha256 of the tag, the salt and the card codes."""
    return _sha256_hex(f"{DEAL_TAG}\n{salt}\n{' '.join(cards)}")


def seed_commitment(seed: str) -> str:
    """The commitment to the server's seed, published when the table is hosted."""
    return _sha256_hex(f"{SEED_TAG}\n{seed}")


def is_hex(text: str) -> bool:
    """Lowercase hex digits only (the empty string included)."""
    return set(text) <= _HEX


def deal_seed(seed: str, contributions: Sequence[str], deal: int) -> bytes:
    """The 32 bytes that drive deal number ``deal`` (0-based over the game)."""
    text = f"{SHUFFLE_TAG}\n{seed}\n{','.join(contributions)}\n{deal}"
    return hashlib.sha256(text.encode()).digest()


def shuffle(cards: Sequence[str], seed: str, contributions: Sequence[str], deal: int) -> list[str]:
    """Deal ``deal``'s deck: its card codes sorted, then Fisher-Yates from the last position.

    The random numbers are 4-byte big-endian integers read in turn from the
    stream ``sha256(key + counter)`` (counter: 4 bytes big-endian from 0),
    ``key = deal_seed(...)``. Position ``i`` (from ``len - 1`` down to 1)
    swaps with ``r = u % (i + 1)`` for the first ``u`` below
    ``2**32 - 2**32 % (i + 1)`` (others are skipped, so every ``r`` is equally likely).
    """
    deck = sorted(cards)
    key = deal_seed(seed, contributions, deal)
    stream = _Stream(key)
    for i in range(len(deck) - 1, 0, -1):
        span = i + 1
        limit = (1 << 32) - (1 << 32) % span
        while (u := stream.next_u32()) >= limit:
            pass
        r = u % span
        deck[i], deck[r] = deck[r], deck[i]
    return deck


class _Stream:
    def __init__(self, key: bytes) -> None:
        self.key = key
        self.counter = 0
        self.buffer = b""

    def next_u32(self) -> int:
        if len(self.buffer) < 4:
            block = hashlib.sha256(self.key + self.counter.to_bytes(4, "big")).digest()
            self.counter += 1
            self.buffer += block
        value, self.buffer = int.from_bytes(self.buffer[:4], "big"), self.buffer[4:]
        return value


# -- checking a log ---------------------------------------------------------------------------


class DealCheckFailed(Exception):
    """A revealed value that does not verify (``what`` the check, ``expected``/``got``)."""

    def __init__(self, what: str, expected: str, got: str) -> None:
        super().__init__(f"{what}: expected {expected}, got {got}")
        self.what, self.expected, self.got = what, expected, got


@dataclass
class DealChecker:
    """Walks a table's events (current schema, in order) and checks every revealed value.

    Call :meth:`check` with each (decoded) event; it raises
    :class:`DealCheckFailed` at the first event whose values do not verify.
    ``verified`` counts the deals whose commitment (and, with players'
    entropy, derivation) was checked; ``uncommitted`` those written before
    deals were committed (older logs), which carry nothing to check.
    """

    entropy: bool = False
    table_seats: int = 0
    seed: str = ""
    seed_commitment: str = ""
    seats: dict[int, str] = field(default_factory=dict)
    contributions: list[str] | None = None
    deals: int = 0
    verified: int = 0
    uncommitted: int = 0

    def check(self, event: DomainEvent) -> None:
        match event:  # (no sub-patterns: this runs for every event of a replay)
            case ActionTaken():
                return  # the most frequent: nothing to check
            case CardsDealt():
                self._dealt(event)
            case TableHosted():
                self._hosted(event)
            case SeatTaken():
                self.seats[event.seat] = event.entropy or ""
            case SeatLeft():
                self.seats.pop(event.seat, None)
            case GameStarted() if self.entropy:
                self._started(event.contributions)

    def _hosted(self, hosted: TableHosted) -> None:
        self.entropy = bool(hosted.players_entropy)
        self.table_seats = int(hosted.seats or 0)
        if not self.entropy:
            return
        self.seed = hosted.server_seed or ""
        self.seed_commitment = hosted.server_seed_commitment or ""
        if self.seed and seed_commitment(self.seed) != self.seed_commitment:
            raise DealCheckFailed(
                "the server seed's commitment",
                self.seed_commitment,
                f"{seed_commitment(self.seed)} from the revealed seed",
            )

    def _started(self, contributions: Sequence[str] | None) -> None:
        given = [str(value) for value in contributions or ()]
        wanted = [self.seats.get(seat, "") for seat in range(self.table_seats)]
        if len(given) != len(wanted):
            raise DealCheckFailed("the contributions", f"{len(wanted)} of them", str(len(given)))
        for seat, (have, want) in enumerate(zip(given, wanted, strict=True)):
            if have != want:
                raise DealCheckFailed(
                    f"seat {seat}'s contribution",
                    f"{want or 'none'} (as the seat contributed it)",
                    have or "none",
                )
        self.contributions = given

    def _dealt(self, dealt: CardsDealt) -> None:
        number = self.deals
        self.deals += 1
        cards = [str(code) for code in dealt.cards]
        committed = dealt.commitment or ""
        if not committed:
            self.uncommitted += 1
            return
        if dealt.deal is not None and int(dealt.deal) != number:
            raise DealCheckFailed("the deal's number", str(number), str(dealt.deal))
        salt = dealt.salt or ""
        got = commitment(cards, salt)
        if got != committed:
            raise DealCheckFailed(
                f"deal {number}'s commitment", committed, f"{got} from the revealed deck and salt"
            )
        if self.entropy and self.seed:
            derived = shuffle(cards, self.seed, self.contributions or [], number)
            if derived != cards:
                at = next(n for n, (a, b) in enumerate(zip(derived, cards, strict=True)) if a != b)
                raise DealCheckFailed(
                    f"deal {number}'s deck from the seed and contributions",
                    f"{derived[at]} at position {at}",
                    cards[at],
                )
        self.verified += 1
