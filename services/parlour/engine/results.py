"""Facts about how hands and games end, as values rather than sentences.

Every game publishes its :class:`EndRule` (what ends it, who wins, what a tie
does) in the registry, with the numbers its options decide left 0, and fills
them in per table in ``View.end_rule``. When a hand ends the game keeps a
:class:`HandResult` of it (``View.last_hand``) until the next one ends: the
points, totals and tricks per seat, and the game's own facts (Wizard bids,
the Crazy 8s outcome, the Kaiser contract made or set, the Hearts moon).
Clients render these; ``View.notes`` stays the words for people.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parlour.engine.cards import Card, Suit
    from parlour.engine.trick import Trick


class GameEnd(Enum):
    """What ends a game."""

    ROUNDS = "rounds"  # a fixed number of rounds (hands)
    TARGET = "target"  # hands until a total reaches the target


class WinnerRule(Enum):
    """Who wins a finished game."""

    HIGHEST_TOTAL = "highest"
    LOWEST_TOTAL = "lowest"


class TieRule(Enum):
    """What a tie for the best total does when the game would end."""

    SHARE = "share"  # the tied seats share the win
    PLAY_ON = "play on"  # another hand is played (Hearts)
    BIDDING_SIDE_WINS = "bidding side wins"  # Kaiser: both sides reach the target


class EndReason(Enum):
    """Why a game ended."""

    ROUNDS_PLAYED = "rounds played"
    TARGET_REACHED = "target reached"
    FELL_TO_MINUS_TARGET = "fell to minus the target"


@dataclass(frozen=True, slots=True)
class EndRule:
    """How a game ends and who wins.

    ``rounds`` and ``target`` are 0 in the catalogue when an option (named in
    ``rounds_option`` / ``target_option``) or the seat count decides them; a
    game's ``end_rule()`` gives its own numbers.
    """

    ends_by: GameEnd
    winner: WinnerRule
    ties: TieRule
    text: str
    rounds: int = 0
    rounds_option: str = ""
    target: int = 0
    target_option: str = ""
    loses_at_minus_target: bool = False
    partnerships: bool = False


@dataclass(frozen=True, slots=True)
class WizardRoundResult:
    """Wizard: the bids (tricks are in the HandResult) and the round's trump."""

    bids: tuple[int, ...]
    trump: Suit | None
    turned_card: Card | None


@dataclass(frozen=True, slots=True)
class CrazyEightsRoundResult:
    """Crazy 8s: who went out (None: the round was blocked) and what was left."""

    went_out: int | None
    cards_left: tuple[int, ...]
    stock_rebuilds: int

    @property
    def blocked(self) -> bool:
        return self.went_out is None


@dataclass(frozen=True, slots=True)
class KaiserHandResult:
    """Kaiser: the contract and whether the bidding side made it (per-team numbers)."""

    bidder: int
    bid: int
    no_trump: bool
    trump: Suit | None
    made: bool
    points_taken: tuple[int, int]  # by team: 0 is seats 0 and 2
    score_change: tuple[int, int]
    #: the seats that took the five of hearts (+5) and the three of spades (-3)
    five_of_hearts_seat: int | None = None
    three_of_spades_seat: int | None = None

    @property
    def bidding_team(self) -> int:
        return self.bidder % 2


@dataclass(frozen=True, slots=True)
class HeartsHandResult:
    """Hearts: points taken before the moon rule, the moon shooter, the last trick."""

    moon_shooter: int | None
    points_taken: tuple[int, ...]
    pass_direction: str
    last_trick: Trick
    tie_plays_on: bool
    #: the seat that took the queen of spades (13 points)
    queen_of_spades_seat: int | None = None


GameHandResult = WizardRoundResult | CrazyEightsRoundResult | KaiserHandResult | HeartsHandResult


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand (a round in Wizard and Crazy 8s), indexed by seat."""

    hand_number: int
    dealer: int
    points: tuple[int, ...]  # what the hand added to each seat's total
    totals: tuple[int, ...]  # the running totals after it
    tricks_taken: tuple[int, ...]  # empty in games without tricks
    text: str  # one line for a person
    detail: GameHandResult
