"""Actions: what a seat does, as a small immutable value with a text form.

Text forms (``Action.parse`` / ``str``), shared by every game:

=====================  ==============================================
``play QS``            play a card
``play 8S name H``     Crazy 8s: play an eight and name the suit in force
``bid 3``              bid a number (Wizard tricks, Kaiser points)
``bid 7NT``            Kaiser: a no-trump bid
``pass``               Kaiser: pass in the bidding; Crazy 8s: nothing to
                       draw and nothing to play
``draw``               Crazy 8s: draw one card from the stock
``trump H``            name trump (Wizard dealer after a turned wizard;
                       Kaiser winning bidder)
``give QS``            Hearts: choose one of the three cards to pass
``give QS KH 2C``      Hearts: choose several (all three) in one act
=====================  ==============================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from parlour.engine.cards import Card, Suit
from parlour.engine.errors import MalformedAction


class ActionKind(Enum):
    PLAY = "play"
    BID = "bid"
    PASS = "pass"
    DRAW = "draw"
    NAME_TRUMP = "trump"
    GIVE = "give"


@dataclass(frozen=True, slots=True)
class Action:
    """One move. Fields not used by ``kind`` stay at their defaults."""

    kind: ActionKind
    card: Card | None = None
    number: int | None = None
    suit: Suit | None = None
    no_trump: bool = False
    #: GIVE only: the further cards chosen in the same act ("give QS KH 2C")
    more: tuple[Card, ...] = ()

    # -- constructors -----------------------------------------------------
    @staticmethod
    def play(card: Card, name: Suit | None = None) -> Action:
        return Action(ActionKind.PLAY, card=card, suit=name)

    @staticmethod
    def bid(number: int, no_trump: bool = False) -> Action:
        return Action(ActionKind.BID, number=number, no_trump=no_trump)

    @staticmethod
    def pass_() -> Action:
        return PASS

    @staticmethod
    def draw() -> Action:
        return DRAW

    @staticmethod
    def name_trump(suit: Suit) -> Action:
        return Action(ActionKind.NAME_TRUMP, suit=suit)

    @staticmethod
    def give(card: Card, *more: Card) -> Action:
        return Action(ActionKind.GIVE, card=card, more=more)

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card the action plays or gives (several for a give of more than one)."""
        return () if self.card is None else (self.card, *self.more)

    # -- text form --------------------------------------------------------
    def __str__(self) -> str:
        kind = self.kind
        if kind is ActionKind.PLAY:
            text = f"play {self.card}"
            return f"{text} name {self.suit}" if self.suit is not None else text
        if kind is ActionKind.BID:
            return f"bid {self.number}{'NT' if self.no_trump else ''}"
        if kind is ActionKind.NAME_TRUMP:
            return f"trump {self.suit}"
        if kind is ActionKind.GIVE:
            return " ".join(["give", *(str(card) for card in self.cards)])
        return str(kind.value)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        words = text.strip().split()
        if not words:
            raise MalformedAction("action notation", "empty action")
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "play" and len(args) == 1:
                return Action.play(Card.parse(args[0]))
            if verb == "play" and len(args) == 3 and args[1].lower() == "name":
                return Action.play(Card.parse(args[0]), Suit.parse(args[2]))
            if verb == "bid" and len(args) == 1:
                word = args[0].upper()
                no_trump = word.endswith("NT")
                number = int(word[:-2] if no_trump else word)
                return Action.bid(number, no_trump)
            if verb in ("pass", "draw") and not args:
                return PASS if verb == "pass" else DRAW
            if verb == "trump" and len(args) == 1:
                return Action.name_trump(Suit.parse(args[0]))
            if verb == "give" and args:
                return Action.give(*(Card.parse(arg) for arg in args))
        except ValueError:
            pass
        raise MalformedAction(
            "action notation",
            f"cannot read {text!r} (expected e.g. 'play QS', 'play 8S name H', 'bid 3', "
            "'bid 7NT', 'pass', 'draw', 'trump H', 'give QS', 'give QS KH 2C')",
        )


PASS = Action(ActionKind.PASS)
DRAW = Action(ActionKind.DRAW)
