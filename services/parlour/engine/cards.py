"""The shared card model: suits, ranks, cards and the decks built from them.

Cards are small immutable values, interned, with a two-character text notation
that parses and prints: ``Card.parse("QS")``, ``str(card) == "QS"``.

Notation: rank ``2``-``9``, ``T`` (ten; ``10`` is accepted on input), ``J``,
``Q``, ``K``, ``A`` followed by the suit ``C``, ``D``, ``H`` or ``S`` (the
symbols ``♣♦♥♠`` are accepted on input). Wizard's four wizards are ``W1`` to
``W4`` and its four jesters ``N1`` to ``N4`` (``N`` for *Narr*, the jester of
the original German pack); they belong to no suit in play, and the digit only
tells the four copies apart.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import ClassVar

from parlour.engine.errors import MalformedAction


class Suit(Enum):
    """The four suits, in the order used for sorting and indexing."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]

    @property
    def word(self) -> str:
        """The suit in words, as a table states it: ``"hearts"``."""
        return self.name.lower()

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``"H"``, ``"♥"`` or ``"hearts"`` (any case)."""
        key = text.strip()
        suit = _SUIT_BY_TEXT.get(key.upper()) or _SUIT_BY_TEXT.get(key.lower())
        if suit is None:
            raise MalformedAction("suit notation", f"unknown suit {text!r} (use C, D, H or S)")
        return suit

    def __str__(self) -> str:
        return self.value


SUITS: tuple[Suit, ...] = tuple(Suit)
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
_SUIT_SYMBOL = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_BY_TEXT: dict[str, Suit] = {}
for _suit in SUITS:
    _SUIT_BY_TEXT[_suit.value] = _suit
    _SUIT_BY_TEXT[_SUIT_SYMBOL[_suit]] = _suit
    _SUIT_BY_TEXT[_suit.word] = _suit
    _SUIT_BY_TEXT[_suit.word.rstrip("s")] = _suit


class Rank(IntEnum):
    """Card ranks, valued so that a higher rank beats a lower one.

    The jester ranks below every ordinary card and the wizard above; neither
    belongs to the standard 52-card pack.
    """

    JESTER = 0
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    WIZARD = 15

    @property
    def char(self) -> str:
        return _RANK_CHAR[self]


STANDARD_RANKS: tuple[Rank, ...] = (
    Rank.TWO,
    Rank.THREE,
    Rank.FOUR,
    Rank.FIVE,
    Rank.SIX,
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.NINE,
    Rank.TEN,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.ACE,
)
_RANK_CHAR = {rank: str(int(rank)) for rank in STANDARD_RANKS if rank <= Rank.NINE}
_RANK_CHAR.update(
    {
        Rank.TEN: "T",
        Rank.JACK: "J",
        Rank.QUEEN: "Q",
        Rank.KING: "K",
        Rank.ACE: "A",
        Rank.WIZARD: "W",
        Rank.JESTER: "N",
    }
)
_RANK_BY_CHAR = {char: rank for rank, char in _RANK_CHAR.items() if rank in STANDARD_RANKS}
_RANK_BY_CHAR["10"] = Rank.TEN

#: Number of distinct cards in the shared model: 52 ordinary, 4 wizards, 4 jesters.
CARD_COUNT = 60
#: The dense indexes of the first wizard and the first jester (the 52 ordinary cards first).
FIRST_WIZARD, FIRST_JESTER = 52, 56


class Card:
    """One playing card. Interned: every equal card is the same object.

    ``index`` is a dense number 0..59 (suit-major for the 52 ordinary cards,
    then wizards 52..55 and jesters 56..59), handy for bitsets.
    For a wizard or jester, ``suit`` only tells the four copies apart.
    """

    __slots__ = ("_code", "index", "rank", "suit")
    _interned: ClassVar[dict[tuple[Rank, Suit], Card]] = {}

    rank: Rank
    suit: Suit
    index: int
    _code: str

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        key = (rank, suit)
        card = cls._interned.get(key)
        if card is None:
            card = object.__new__(cls)
            object.__setattr__(card, "rank", rank)
            object.__setattr__(card, "suit", suit)
            if rank == Rank.WIZARD:
                index = FIRST_WIZARD + suit.index
            elif rank == Rank.JESTER:
                index = FIRST_JESTER + suit.index
            else:
                index = suit.index * 13 + (int(rank) - 2)
            object.__setattr__(card, "index", index)
            # the code is asked for constantly (views, digests, events): made once
            if rank in (Rank.WIZARD, Rank.JESTER):
                code = f"{rank.char}{suit.index + 1}"
            else:
                code = f"{rank.char}{suit.value}"
            object.__setattr__(card, "_code", code)
            cls._interned[key] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @property
    def is_wizard(self) -> bool:
        return FIRST_WIZARD <= self.index < FIRST_JESTER  # by index: asked in every trick

    @property
    def is_jester(self) -> bool:
        return self.index >= FIRST_JESTER

    @property
    def is_ordinary(self) -> bool:
        """An ordinary card of the 52-card pack (not a wizard or jester)."""
        return self.index < FIRST_WIZARD

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card code such as ``"QS"``, ``"10h"``, ``"T♦"``, ``"W1"``."""
        # a canonical code (every stored one) is found as it is
        card = _CARD_BY_TEXT.get(text) or _CARD_BY_TEXT.get(text.strip().upper())
        if card is None:
            raise MalformedAction(
                "card notation",
                f"unknown card code {text!r} (rank 2-9 T J Q K A then suit C D H S; "
                "W1-W4 for wizards, N1-N4 for jesters)",
            )
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        return ALL_CARDS[index]

    def __str__(self) -> str:
        return self._code

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index

    def __hash__(self) -> int:
        return self.index


def _build_all_cards() -> tuple[Card, ...]:
    cards = [Card(rank, suit) for suit in SUITS for rank in STANDARD_RANKS]
    cards += [Card(Rank.WIZARD, suit) for suit in SUITS]
    cards += [Card(Rank.JESTER, suit) for suit in SUITS]
    assert [card.index for card in cards] == list(range(CARD_COUNT))
    return tuple(cards)


ALL_CARDS: tuple[Card, ...] = _build_all_cards()
_CARD_BY_TEXT: dict[str, Card] = {}
for _card in ALL_CARDS:
    _CARD_BY_TEXT[str(_card)] = _card
    if _card.is_ordinary:
        _CARD_BY_TEXT[_card.rank.char + _card.suit.symbol] = _card
        if _card.rank == Rank.TEN:
            _CARD_BY_TEXT["10" + _card.suit.value] = _card
            _CARD_BY_TEXT["10" + _card.suit.symbol] = _card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space- or comma-separated list of card codes."""
    return tuple(Card.parse(code) for code in text.replace(",", " ").split())


def format_cards(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(str(card) for card in cards)


def standard_deck() -> tuple[Card, ...]:
    """The ordinary 52-card pack, in index order (unshuffled)."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in STANDARD_RANKS)


def wizard_deck() -> tuple[Card, ...]:
    """Wizard's 60 cards: the 52-card pack, four wizards and four jesters."""
    return (
        standard_deck()
        + tuple(Card(Rank.WIZARD, suit) for suit in SUITS)
        + tuple(Card(Rank.JESTER, suit) for suit in SUITS)
    )


KAISER_RANKS: tuple[Rank, ...] = (
    Rank.EIGHT,
    Rank.NINE,
    Rank.TEN,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.ACE,
)


def kaiser_deck() -> tuple[Card, ...]:
    """Kaiser's 32 cards: eight to ace in every suit, 7C, 7D, 5H and 3S."""
    extras = (
        Card(Rank.SEVEN, Suit.CLUBS),
        Card(Rank.SEVEN, Suit.DIAMONDS),
        Card(Rank.FIVE, Suit.HEARTS),
        Card(Rank.THREE, Suit.SPADES),
    )
    cards = [Card(rank, suit) for suit in SUITS for rank in KAISER_RANKS]
    return tuple(sorted(cards + list(extras)))
