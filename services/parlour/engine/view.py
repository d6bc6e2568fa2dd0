"""The per-seat view: what one seat (or a spectator) may see, and nothing else.

One shape for every game, so that the contract, the clients and the bots need
no game-specific code to render or reason about a table. Fields a game does
not use stay at their empty defaults.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, fields
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING

from parlour.engine.actions import Action
from parlour.engine.cards import Card, Suit
from parlour.engine.trick import Trick

if TYPE_CHECKING:
    from parlour.engine.results import EndReason, EndRule, HandResult


@dataclass(frozen=True, slots=True)
class Move:
    """One public entry in the current hand's history (a bid, a pass, a draw...)."""

    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What everyone may know about one seat."""

    seat: int
    hand_size: int
    score: int
    tricks_taken: int = 0
    bid: str = ""
    team: int | None = None
    points_this_hand: int = 0


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``seat`` may see. ``seat`` is None for a spectator."""

    game: str
    seat: int | None
    seats: int
    phase: str  # "deal", "pass", "trump", "bid", "play", "over"
    hand_number: int
    dealer: int
    to_act: tuple[int, ...]
    hand: tuple[Card, ...]
    players: tuple[PlayerView, ...]
    legal_actions: tuple[Action, ...] = ()
    trump: Suit | None = None
    trump_text: str = ""  # in words: "hearts", "no trump", "not yet named"
    turned_card: Card | None = None
    current_trick: Trick | None = None
    last_trick: Trick | None = None
    tricks: tuple[Trick, ...] = ()  # completed tricks of the current hand
    history: tuple[Move, ...] = ()  # public moves of the current hand, in order
    suit_in_force: Suit | None = None
    suit_in_force_text: str = ""
    top_card: Card | None = None
    stock_count: int | None = None
    contract: str = ""
    pass_direction: str = ""
    passed_cards: tuple[Card, ...] = ()  # this seat's own chosen cards to pass
    received_cards: tuple[Card, ...] = ()  # shown only once every pass is in
    hearts_broken: bool | None = None
    hand_scores: tuple[tuple[int, ...], ...] = ()  # per finished hand, per seat
    scores: tuple[int, ...] = ()
    is_over: bool = False
    winners: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default=())  # plain-words facts: "hearts are broken"
    end_rule: EndRule | None = None  # how this table's game ends, its numbers filled in
    last_hand: HandResult | None = None  # the last finished hand, until the next one ends
    end_reason: EndReason | None = None  # why the game ended; None while it goes on
    passes_in_a_row: int = 0  # Crazy 8s: seats that passed in turn since the last play or draw
    must_play: Card | None = None  # Crazy 8s: the viewer's drawn card that must be played now


#: View's fields, in order, and a function of a View giving their values (:func:`own_view`)
_VIEW_FIELDS = tuple(each.name for each in fields(View))
_VIEW_VALUES = attrgetter(*_VIEW_FIELDS)


def own_view(public: View, **own: object) -> View:
    """A seat's view made from ``public``, the spectator's view at the same moment,
    and ``own``, the fields that are the seat's alone (its seat, hand, choices and
    notes; every other field of a seat's view is the spectator's).

    The same View as ``state.view(seat)``, without building again what every seat
    shares (the tricks, the players, the history): a move watched by every seat
    builds that once (:meth:`GameState.seat_view`). ``public`` holds no hidden card,
    so nothing but ``own`` can bring the seat a card.
    """
    made = object.__new__(View)
    setter = object.__setattr__  # View is frozen
    # every field copied in one pass of C calls (4 us where a loop of setattr took 6)
    deque(map(setter, repeat(made), _VIEW_FIELDS, _VIEW_VALUES(public)), 0)
    for name, value in own.items():
        setter(made, name, value)
    return made
