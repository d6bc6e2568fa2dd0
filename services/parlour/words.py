"""The phrasebook: how a card, a suit, a seat, an action or an event is said to a person.

The one place words are made for people in Python: the service's menu labels
and event lines (the browser shows those as sent: ``LegalAction.label``,
``PublicEvent.words``), the terminal client and the replay narration. An
action is said by ``say_action`` in a form: "label" ("play Q♠") or "past"
("played Q♠"). It works on the contract's notation (card codes such as "TH",
"W2", "N1"; action kinds as words), so it imports nothing: the service and
the clients may both use it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_RANK_WORDS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}
_CARD = re.compile(r"\b(?:([2-9TJQKA])([CDHS])|([WN])[1-4])\b")
_SYMBOL_TEN = re.compile(r"\bT([♣♦♥♠])")
_NO_TRUMP = re.compile(r"\b(\d+)NT\b")
_SAT_DOWN = re.compile(r" took seat \d+$")
_SEAT = re.compile(r"\bseat (\d+)\b", re.IGNORECASE)


def card_name(code: str) -> str:
    """A card as a person writes it: "10♥", "Q♠", "wizard", "jester"."""
    if not code:
        return ""
    if len(code) == 2 and code[0] in "WN" and code[1].isdigit():
        return "wizard" if code[0] == "W" else "jester"
    rank, suit = code[:-1], code[-1]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS.get(suit, suit)


def card_words(code: str) -> str:
    """A card read aloud: "queen of spades", "10 of hearts", "wizard"."""
    named = card_name(code)
    if named in ("wizard", "jester") or not code:
        return named
    rank, suit = code[:-1], code[-1]
    return f"{_RANK_WORDS.get(rank, rank)} of {SUIT_WORDS.get(suit, suit)}"


def cards_text(codes: Sequence[str]) -> str:
    """Several cards in a sentence: "10♥ Q♠ wizard", or "(none)"."""
    return " ".join(card_name(code) for code in codes) or "(none)"


def say_cards(text: str) -> str:
    """Card codes inside a sentence said as cards: "cannot lead TH" -> "cannot lead 10♥",
    "W3 beats N1" -> "wizard beats jester", "T♠" (a ten as typed) -> "10♠"."""
    said = _CARD.sub(lambda match: card_name(match.group(0)), text)
    said = _SYMBOL_TEN.sub(r"10\1", said)
    return _NO_TRUMP.sub(r"\1 no trump", said)


def seat_namer(names: Mapping[int, str] | Sequence[str]) -> Callable[[int], str]:
    """A function saying a seat by its player's name ("Seat 3" when it has none)."""
    lookup = dict(enumerate(names)) if isinstance(names, Sequence) else dict(names)
    return lambda seat: lookup.get(seat) or f"Seat {seat + 1}"


def say(text: str, name: Callable[[int], str] | None = None) -> str:
    """Server text for people: card codes as cards, and "seat 2" by the player's name."""
    said = _SAT_DOWN.sub(" sat down", say_cards(text))
    if name is None:
        return said
    return _SEAT.sub(lambda match: name(int(match.group(1))), said)


#: how an action is said: "label" for a menu ("play Q♠"), "past" for what a seat did ("played Q♠")
Form = Literal["label", "past", "present"]
#: how cards are said: by name ("Q♠, K♥", for people) or by code ("QS KH", as the
#: contract's event text carries them, for clients to say as cards)
CardStyle = Literal["names", "codes"]

#: each kind's verb in the three forms: label ("play"), past ("played"), present ("plays")
_VERBS: dict[str, tuple[str, str, str]] = {
    "play": ("play", "played", "plays"),
    "give": ("give", "chose", "chooses"),
    "bid": ("bid", "bid", "bids"),
    "trump": ("trump:", "named", "names"),
    "draw": ("draw", "drew", "draws"),
    "pass": ("pass", "passed", "passes"),
}
_FORMS: dict[str, int] = {"label": 0, "past": 1, "present": 2}


def say_action(
    kind: str,
    card: str = "",
    *,
    number: int | None = None,
    no_trump: bool = False,
    suit: str = "",
    form: Form = "label",
    cards: CardStyle = "names",
) -> str:
    """An action in words, in one of three forms: "play 8♠, name hearts" (a label),
    "played 8♠ and named hearts" (past), "plays 8♠ and names hearts" (present).

    ``kind`` is the action's kind in words ("play", "give", "bid", "trump",
    "draw", "pass"); ``card`` its card code, or several ("QS KH 2C") given in
    one act; ``suit`` a suit letter; ``cards`` whether cards are said by name or code.
    """
    verb = _VERBS.get(kind, _VERBS["pass"])[_FORMS[form]]
    label = form == "label"
    if cards == "names":
        said = ", ".join(card_name(one) for one in card.split())
    else:
        said = card
    if kind == "play":
        names = {"label": ", name ", "past": " and named ", "present": " and names "}[form]
        return f"{verb} {said}" + (f"{names}{SUIT_WORDS[suit]}" if suit else "")
    if kind == "give":
        return f"give {said}" if label else f"{verb} {said or 'a card'} to pass"
    if kind == "bid":
        return f"{verb} {number}{' no trump' if no_trump else ''}"
    if kind == "trump":
        return f"trump: {SUIT_WORDS[suit]}" if label else f"{verb} {SUIT_WORDS[suit]} trump"
    if kind == "draw":
        return f"{verb} a card"
    return verb


def action_label(
    kind: str, card: str = "", *, number: int | None = None, no_trump: bool = False, suit: str = ""
) -> str:
    """A menu label: "play Q♠", "play 8♠, name hearts", "bid 7 no trump", "trump: hearts"."""
    return say_action(kind, card, number=number, no_trump=no_trump, suit=suit, form="label")


def past_tense(
    kind: str, card: str = "", *, number: int | None = None, no_trump: bool = False, suit: str = ""
) -> str:
    """What a seat did, for logs and replays: "played 10♥", "bid 2", "named hearts trump"."""
    return say_action(kind, card, number=number, no_trump=no_trump, suit=suit, form="past")


def say_event(text: str, *, seat: int | None = None, done: str = "") -> str:
    """One event as a sentence for a person: "Seat 2 played 10♥", "Ada sat down".

    ``done`` is what ``seat`` did, already in words (``past_tense``); without
    it the event's own text is said, cards as cards. Seats stay "seat 2", for
    a client to say by its player's name (``say``).
    """
    said = f"seat {seat} {done}" if done and seat is not None else say(text)
    return said[:1].upper() + said[1:]


def option_label(name: str) -> str:
    """An option's label from its schema name: "screw_the_dealer" -> "Screw the dealer"."""
    words = name.replace("_", " ")
    return words[:1].upper() + words[1:]


def option_value(value: str) -> str:
    """An option's value in words: "true" -> "yes", "no_passing" -> "no passing"."""
    return {"true": "yes", "false": "no"}.get(value, value.replace("_", " "))
