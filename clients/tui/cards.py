"""How cards, suits and seats look on the terminal.

Only presentation: which card beats which, or which may be played, is the
server's business (it sends the legal actions). Card codes follow the
contract's notation ("QS", "TH", "W1", "N2").
"""

from __future__ import annotations

from rich.text import Text

from parlour.v1 import common_pb2
from parlour.words import SUIT_SYMBOLS, SUIT_WORDS, card_name
from parlour.words import suit_word as said_suit

_LETTER_BY_SYMBOL = {symbol: letter for letter, symbol in SUIT_SYMBOLS.items()}
RED_SUITS = frozenset("DH")

#: The contract's Suit enum values by letter, and back.
SUIT_BY_LETTER: dict[str, int] = {
    "C": common_pb2.SUIT_CLUBS,
    "D": common_pb2.SUIT_DIAMONDS,
    "H": common_pb2.SUIT_HEARTS,
    "S": common_pb2.SUIT_SPADES,
}
LETTER_BY_SUIT: dict[int, str] = {value: letter for letter, value in SUIT_BY_LETTER.items()}

RED = "bold #e05050"
BLACK = "bold #e8e8e8"
SPECIAL = "bold #c080ff"


def suit_word(suit: int) -> str:
    """The contract's Suit value in words ("hearts"), "" when unspecified."""
    letter = LETTER_BY_SUIT.get(suit)
    return said_suit(letter) if letter else ""


def card_label(code: str) -> str:
    """A card code as a person reads it: "Q♠", "10♥", "wizard", "jester" (the phrasebook's)."""
    return card_name(code)


def card_style(code: str) -> str:
    """Red for hearts and diamonds, white for clubs and spades, violet for wizards/jesters.

    ``code`` may be a card code ("QH") or a card as said ("Q♥").
    """
    last = _LETTER_BY_SYMBOL.get(code[-1:], code[-1:])
    if last in RED_SUITS:
        return RED
    if last in SUIT_SYMBOLS:
        return BLACK
    return SPECIAL


def card_text(code: str, *, dim: bool = False, selected: bool = False) -> Text:
    """A card as coloured text; dimmed when it may not be played, reversed when selected.

    ``code`` may be a card code ("QH") or a card as said ("Q♥", "wizard").
    """
    style = card_style(code)
    if dim:
        style = "#6a6a6a"
    if selected:
        style += " reverse"
    already_said = code[-1:] in _LETTER_BY_SYMBOL or code in ("wizard", "jester")
    said = code if already_said else card_name(code)
    return Text(said, style=style)


def action_text(text: str) -> Text:
    """Action text from the server with its card codes coloured: "play 8S name H"."""
    out = Text()
    for index, word in enumerate(text.split()):
        if index:
            out.append(" ")
        if index > 0 and _looks_like_card(word):
            out.append_text(card_text(word))
        elif word in SUIT_WORDS and index > 0:
            out.append(SUIT_WORDS[word], style=card_style("x" + word))
        else:
            out.append(word)
    return out


def _looks_like_card(word: str) -> bool:
    if len(word) == 2 and word[0] in "WN" and word[1].isdigit():
        return True
    if word in ("wizard", "jester"):
        return True
    suits = SUIT_SYMBOLS.keys() | _LETTER_BY_SYMBOL.keys()
    return len(word) >= 2 and word[-1] in suits and word[:-1] in _RANKS


_RANKS = frozenset(["2", "3", "4", "5", "6", "7", "8", "9", "T", "10", "J", "Q", "K", "A"])
