"""Check a finished game's deals on the client's side (docs/fair-deals.md).

Written from the contract and the documented procedure only (``hashlib``):
each ``CardsDealt`` of a finished game's replay reveals its deck and salt,
which must hash to the commitment published before the deal was played
(and, when the client watched the game, to the one it saw then). With
players' entropy, the server's revealed seed must match the commitment
published when the table was hosted, the contributions fixed at the start
must be the ones the seats sent, and each deck must be the documented
shuffle of its cards driven by the seed and the contributions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parlour.v1 import replay_pb2


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def deal_commitment(cards: Sequence[str], salt: str) -> str:
    return _sha(f"parlour-deal-v1\n{salt}\n{' '.join(cards)}")


def derived_deck(
    cards: Sequence[str], seed: str, contributions: Sequence[str], n: int
) -> list[str]:
    """The documented shuffle: sorted codes, Fisher-Yates over a SHA-256 counter stream."""
    key = hashlib.sha256(
        f"parlour-shuffle-v1\n{seed}\n{','.join(contributions)}\n{n}".encode()
    ).digest()
    stream = b"".join(hashlib.sha256(key + i.to_bytes(4, "big")).digest() for i in range(64))
    numbers = (int.from_bytes(stream[i : i + 4], "big") for i in range(0, len(stream), 4))
    deck = sorted(cards)
    for i in range(len(deck) - 1, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        u = next(number for number in numbers if number < limit)
        r = u % (i + 1)
        deck[i], deck[r] = deck[r], deck[i]
    return deck


@dataclass
class DealReport:
    """What was checked, and the first thing that failed (None if all verified)."""

    verified: int = 0
    uncommitted: int = 0
    entropy: bool = False
    failure: str | None = None
    checks: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failure is None and self.verified > 0

    def headline(self) -> str:
        if self.failure:
            return f"Deal check FAILED: {self.failure}"
        if not self.verified:
            return "No committed deals to verify"
        return f"{self.verified} deal{'s' if self.verified != 1 else ''} verified"


def verify_deals(
    replay: replay_pb2.GetReplayResponse,
    announced: Mapping[int, str] | None = None,
    my_entropy: str = "",
    my_seat: int | None = None,
) -> DealReport:
    """Check every deal of a finished game's replay.

    ``announced``: deal number -> commitment as the client saw it during
    play (Watch's PublicEvent.deal_commitment); ``my_entropy``/``my_seat``:
    this client's own contribution, to check it went into the shuffle.
    """
    report = DealReport()
    if not replay.finished:
        report.failure = "the game is not over: deals are revealed at the end"
        return report
    seed = ""
    contributions: list[str] = []
    deal = 0
    for event in replay.events:
        payload: dict[str, Any] = json.loads(event.payload_json)
        where = f"event {event.seq}"
        if event.type == "TableHosted" and payload.get("players_entropy"):
            report.entropy = True
            seed = str(payload.get("server_seed", ""))
            if _sha(f"parlour-seed-v1\n{seed}") != payload.get("server_seed_commitment"):
                report.failure = f"{where}: the server seed does not match its commitment"
                return report
        elif event.type == "GameStarted" and report.entropy:
            contributions = [str(value) for value in payload.get("contributions", [])]
            if my_seat is not None and my_entropy and contributions[my_seat] != my_entropy:
                report.failure = f"{where}: your contribution was not used"
                return report
        elif event.type == "CardsDealt":
            number, deal = deal, deal + 1
            cards = [str(code) for code in payload.get("cards", [])]
            committed = str(payload.get("commitment", ""))
            if not committed:
                report.uncommitted += 1
                continue
            if deal_commitment(cards, str(payload.get("salt", ""))) != committed:
                report.failure = (
                    f"{where}: deal {number}'s deck and salt do not match its commitment"
                )
                return report
            seen = (announced or {}).get(number)
            if seen is not None and seen != committed:
                report.failure = f"{where}: deal {number}'s commitment is not the one announced"
                return report
            if len(set(cards)) != len(cards):
                report.failure = f"{where}: deal {number}'s deck repeats a card"
                return report
            if report.entropy and derived_deck(cards, seed, contributions, number) != cards:
                report.failure = f"{where}: deal {number}'s deck is not the one the seeds give"
                return report
            report.verified += 1
    report.checks = [
        "each deck and salt hash to the commitment published before the deal was played",
        "each deck holds every card once",
    ]
    if announced:
        report.checks.append("each commitment is the one announced to this client during play")
    if report.entropy:
        report.checks += [
            "the server's seed matches the commitment published when the table was hosted",
            "each deck is the documented shuffle of the seed and the players' contributions",
        ]
        if my_entropy:
            report.checks.append("your own contribution went into every shuffle")
    return report
