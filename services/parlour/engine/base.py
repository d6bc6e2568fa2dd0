"""The engine protocol every game implements.

A game is fully determined by its seat count, its options, the decks supplied
at its chance steps and its actions, so the service can store exactly those
facts and any replica (or a replay on another machine) folds them back into
the same state. The engine never shuffles: when it needs the outcome of
chance, ``chance()`` names the cards to be shuffled, and the caller supplies
an ordering of them through ``deal()``.

Driving a game::

    state = new_game("hearts", 4, {})
    while not state.is_over:
        cards = state.chance()
        if cards is not None:
            state.deal(shuffled(cards))      # outside the engine
            continue
        seat = state.to_act()[0]
        state.apply(seat, choose(state.legal_actions(seat)))

Every method that takes input validates it and, when it raises an
``EngineError``, leaves the state exactly as it was.

Dealing, the same in every game: seat 0 deals the first hand and the deal
passes one seat to the left (seat + 1) each hand. The deck given to
``deal()`` is dealt from its front, one card at a time, to the dealer's left
first (position ``i`` of the dealt cards goes to seat ``(dealer + 1 + i) %
seats``), so every seat gets the same number; what is left is then turned up
or kept as stock, as each game says. ``deal_order()`` states it as data: for
each deck position, the seat that receives it (None: turned up, stock, pile).

- Wizard: round ``r`` deals ``r`` cards each; the next card is turned for
  trump (none when the whole pack is out); the rest stays undealt.
- Crazy 8s: ``hand_size`` cards each; the next card is turned up to start the
  discard pile; the rest is the stock, drawn from the front. A stock rebuilt
  from the discards is a chance step too: its first card completes the draw
  that emptied the stock (it goes to the seat that drew), the rest is stock.
- Kaiser: the 32 cards, eight each.
- Hearts: the 52 cards, thirteen each.

Starting from a position: every game has a ``from_position`` class method
that sets up a hand already dealt (the hands, the dealer, the hand number and
the running totals, and what else the game needs: Wizard's turned card,
Crazy 8s's pile and stock), so a third party can study or test a position
without replaying a game up to it.
"""

from __future__ import annotations

import copy
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from parlour.engine.actions import Action
from parlour.engine.cards import Card
from parlour.engine.errors import BadDeck, GameOver, IllegalAction, NotYourTurn
from parlour.engine.results import EndReason, EndRule, HandResult
from parlour.engine.view import View


class GameState(ABC):
    """A game in progress. Subclasses hold the rules of one game."""

    #: registry id: "wizard", "crazy8s", "kaiser", "hearts"
    game: ClassVar[str]

    seats: int

    # -- chance -------------------------------------------------------------
    @abstractmethod
    def chance(self) -> tuple[Card, ...] | None:
        """The cards to be shuffled and supplied next (sorted), or None.

        Non-None at the start of every deal, and in Crazy 8s when the stock
        must be rebuilt from the discards.
        """

    @abstractmethod
    def _deal(self, deck: tuple[Card, ...]) -> None:
        """Apply a validated shuffle of ``chance()``."""

    @abstractmethod
    def deal_order(self) -> tuple[int | None, ...]:
        """Where each position of the deck now due goes: a seat, or None (not dealt to a seat).

        Only while ``chance()`` is not None; one entry per card of ``chance()``.
        """

    def dealt_cards(self, deck: Sequence[Card], seat: int) -> tuple[Card, ...]:
        """The cards of ``deck`` (the one due now) that the deal gives ``seat``, in deck order."""
        return tuple(card for card, to in zip(deck, self.deal_order(), strict=True) if to == seat)

    def deal(self, deck: Sequence[Card]) -> None:
        """Supply the outcome of chance: an ordering of exactly ``chance()``."""
        if self.is_over:
            raise GameOver("game over", "the game has ended; no more deals", reason="GAME_OVER")
        wanted = self.chance()
        if wanted is None:
            raise BadDeck("deal", "no deal is due now")
        given = tuple(deck)
        # the same order as sorting the cards, on their dense indexes (no Python __lt__)
        if sorted(card.index for card in given) != [card.index for card in wanted]:
            raise BadDeck(
                "deal",
                f"the deck must be a shuffle of the {len(wanted)} cards asked for "
                f"(got {len(given)} cards)",
            )
        self._deal(given)

    # -- turns --------------------------------------------------------------
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats the game waits for (several at once only for simultaneous steps).

        Empty while a deal is due and once the game is over.
        """

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it is not to act)."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Apply an action already known to come from a seat that is to act.

        Must raise ``IllegalAction`` (naming the rule and the card) before
        changing anything when the action is not legal.
        """

    def apply(self, seat: int, action: Action) -> None:
        """Validate and apply ``action`` by ``seat``."""
        self.check_turn(seat, action)
        self._apply(seat, action)

    def check_turn(self, seat: int, doing: str | Action = "act") -> None:
        """Raise GameOver / NotYourTurn / IllegalAction unless ``seat`` is to act now
        (``doing``, the action or what it is, is put into words only in a refusal)."""
        if self.is_over:
            raise GameOver(
                "game over",
                f"the game has ended; seat {seat} cannot {doing}",
                reason="GAME_OVER",
                seat=seat,
            )
        if not 0 <= seat < self.seats:
            raise NotYourTurn(
                "seat",
                f"there is no seat {seat} at a {self.seats}-seat table",
                reason="NO_SUCH_SEAT",
                seat=seat,
                seats=self.seats,
            )
        if seat not in self.to_act():
            if self.chance() is not None:
                raise IllegalAction(
                    "deal",
                    f"the cards must be dealt before seat {seat} acts",
                    reason="DEAL_FIRST",
                    seat=seat,
                )
            waiting = ", ".join(str(s) for s in self.to_act())
            raise NotYourTurn(
                "turn order",
                f"it is not seat {seat}'s turn (waiting for {waiting})",
                reason="NOT_YOUR_TURN",
                seat=seat,
                waiting=waiting,
            )

    # -- what can be seen -----------------------------------------------------
    @abstractmethod
    def view(self, seat: int | None) -> View:
        """What ``seat`` may see (``None``: a spectator, who sees no hand)."""

    def seat_view(self, seat: int, public: View) -> View:
        """``view(seat)``, given ``public``: ``view(None)`` at this same moment.

        A game overrides this to build only the seat's own fields and take the
        rest from ``public`` (:func:`parlour.engine.view.own_view`), so that every
        seat's view of one move shares the work of what they all see.
        """
        return self.view(seat)

    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """Running totals, one per seat (partners share their side's total)."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def winners(self) -> tuple[int, ...]:
        """Seats that won (ties share the win); empty until the game is over."""

    @abstractmethod
    def end_rule(self) -> EndRule:
        """How this game ends and who wins, with this table's numbers filled in."""

    @abstractmethod
    def last_hand(self) -> HandResult | None:
        """The last finished hand, as facts; None until the first hand ends."""

    @abstractmethod
    def end_reason(self) -> EndReason | None:
        """Why the game ended; None while it goes on."""

    @abstractmethod
    def hand(self, seat: int) -> tuple[Card, ...]:
        """Ground truth: the cards ``seat`` holds now (hidden from the other seats)."""

    @abstractmethod
    def accounted_cards(self) -> tuple[Card, ...]:
        """Every card of the pack wherever it is: hands, tricks, piles, stock, turned card.

        Outside a chance step this is always the whole pack, once each.
        """

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON-able data (hidden cards included).

        Used for digests: two states are the same game position exactly when
        their snapshots are equal.
        """

    def digest(self) -> str:
        """A short hash of the whole state, stored beside each event for replay checks."""
        return hashlib.sha256(_canonical(self.snapshot()).encode()).hexdigest()[:16]

    def clone(self) -> Self:
        return copy.deepcopy(self)


def _canonical(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
