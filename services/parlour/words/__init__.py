"""The phrasebook: how a card, a suit, a seat, an action or an event is said to a person.

The one place words are made for people in Python, in English and Polish:
the service's menu labels and event lines (``LegalAction.label``,
``PublicEvent.words``, said in the language the call asked for), the
terminal client and the replay narration. Every sentence is an entry of the
language's catalogue (``en.json``, ``pl.json`` beside this module, read by
:mod:`parlour.words.catalogue`; the browser reads the same files), whole,
with named placeholders and CLDR plural forms. An action is said by
``say_action`` in a form: "label" ("play Q♠"), "past" ("played Q♠") or
"present". It works on the contract's notation (card codes such as "TH",
"W2", "N1"; action kinds as words), so it imports nothing of the service:
the service and the clients may both use it.

Seats inside the server's sentences stay the marker "seat N" (N from 0), in
every language, for a client to say by its player's name (:func:`say`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from parlour.words.catalogue import (
    DEFAULT_LANGUAGE,
    LANGUAGE,
    LANGUAGES,
    current,
    has,
    negotiate,
    phrase,
    plural_form,
    set_process_language,
    speaking,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGE",
    "LANGUAGES",
    "current",
    "negotiate",
    "phrase",
    "plural_form",
    "set_process_language",
    "speaking",
]

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: the suits' English names (the contract's words); :func:`suit_word` says them in any language
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_CARD = re.compile(r"\b(?:([2-9TJQKA])([CDHS])|([WN])[1-4])\b")
_SYMBOL_TEN = re.compile(r"\bT([♣♦♥♠])")
_NO_TRUMP = re.compile(r"\b(\d+)NT\b")
_SAT_DOWN = re.compile(r" took seat \d+$")
_SEAT = re.compile(r"\bseat (\d+)\b", re.IGNORECASE)


def suit_word(letter: str, language: str | None = None) -> str:
    """A suit's name: "hearts" (en), "kier" (pl); "" for no suit."""
    return phrase(f"suit.{letter}", language) if letter in SUIT_SYMBOLS else ""


def card_name(code: str, language: str | None = None) -> str:
    """A card as a person writes it: "10♥", "Q♠", "wizard" (pl "10♥", "D♠", "czarownik")."""
    if not code:
        return ""
    if len(code) == 2 and code[0] in "WN" and code[1].isdigit():
        return phrase("card.wizard" if code[0] == "W" else "card.jester", language)
    rank, suit = code[:-1], code[-1]
    letter = phrase(f"rank.{rank}", language) if rank in "AKQJT" else rank
    return letter + SUIT_SYMBOLS.get(suit, suit)


def card_words(code: str, language: str | None = None) -> str:
    """A card read aloud: "queen of spades", "10 of hearts", "wizard" (pl "dama pik")."""
    if not code or (len(code) == 2 and code[0] in "WN"):
        return card_name(code, language)
    rank, suit = code[:-1], code[-1]
    rank_word = phrase(f"rank_word.{rank}", language) if rank in "AKQJT" else rank
    return phrase("card.words", language, rank=rank_word, suit=suit_word(suit, language))


def cards_text(codes: Sequence[str], language: str | None = None) -> str:
    """Several cards in a sentence: "10♥ Q♠ wizard", or "(none)"."""
    return " ".join(card_name(code, language) for code in codes) or phrase("cards.none", language)


def say_cards(text: str, language: str | None = None) -> str:
    """Card codes inside a sentence said as cards: "cannot lead TH" -> "cannot lead 10♥",
    "W3 beats N1" -> "wizard beats jester", "T♠" (a ten as typed) -> "10♠"."""
    said = _CARD.sub(lambda match: card_name(match.group(0), language), text)
    said = _SYMBOL_TEN.sub(r"10\1", said)
    return _NO_TRUMP.sub(lambda m: phrase("bid.no_trump", language, number=m.group(1)), said)


def seat_namer(
    names: Mapping[int, str] | Sequence[str], language: str | None = None
) -> Callable[[int], str]:
    """A function saying a seat by its player's name ("Seat 3" when it has none)."""
    lookup = dict(enumerate(names)) if isinstance(names, Sequence) else dict(names)
    return lambda seat: lookup.get(seat) or phrase("seat.name", language, number=seat + 1)


def say(text: str, name: Callable[[int], str] | None = None) -> str:
    """Server text for people: card codes as cards, and "seat 2" by the player's name."""
    said = _SAT_DOWN.sub(" sat down", say_cards(text)) if current() == "en" else say_cards(text)
    if name is None:
        return said
    return _SEAT.sub(lambda match: name(int(match.group(1))), said)


#: how an action is said: "label" for a menu ("play Q♠"), "past" for what a seat did ("played Q♠")
Form = Literal["label", "past", "present"]
#: how cards are said: by name ("Q♠, K♥", for people) or by code ("QS KH", as the
#: contract's event text carries them, for clients to say as cards)
CardStyle = Literal["names", "codes"]

KINDS = ("play", "give", "bid", "trump", "draw", "pass")


def _action_key(kind: str, *, suit: str, no_trump: bool, card: str) -> str:
    kind = kind if kind in KINDS else "pass"
    if kind == "play" and suit:
        return "play_named"
    if kind == "bid" and no_trump:
        return "bid_nt"
    if kind == "give" and not card:
        return "give_secret"
    return kind


def say_action(
    kind: str,
    card: str = "",
    *,
    number: int | None = None,
    no_trump: bool = False,
    suit: str = "",
    form: Form = "label",
    cards: CardStyle = "names",
    count: int = 1,
    language: str | None = None,
) -> str:
    """An action in words, in one of three forms: "play 8♠, name hearts" (a label),
    "played 8♠ and named hearts" (past), "plays 8♠ and names hearts" (present).

    ``kind`` is the action's kind in words ("play", "give", "bid", "trump",
    "draw", "pass"); ``card`` its card code, or several ("QS KH 2C") given in
    one act; ``suit`` a suit letter; ``cards`` whether cards are said by name or
    code; ``count`` how many cards a give without cards chose.
    """
    key = _action_key(kind, suit=suit, no_trump=no_trump, card=card)
    said = ", ".join(card_name(one, language) for one in card.split()) if cards == "names" else card
    return phrase(
        f"action.{key}.{form}",
        language,
        card=said,
        cards=said,
        number=number,
        suit=suit_word(suit, language),
        count=count,
    )


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


def seat_marker(seat: int) -> str:
    """The marker a seat is written as inside the server's sentences ("seat 2")."""
    return f"seat {seat}"


def say_phrase(key: str, language: str | None = None, /, **args: object) -> str:
    """An event's or refusal's sentence, its first letter capital: ``phrase`` with
    card codes (``card``, ``cards``, ``top_card``) said as cards, suit letters
    (``suit``, ``led``, ``trump``) as suits, and seats (``seat``, ``holder``) as markers."""
    said: dict[str, object] = dict(args)
    for name in CARD_ARGS:
        if isinstance(said.get(name), str):
            said[name] = ", ".join(card_name(one, language) for one in str(said[name]).split())
    for name in SUIT_ARGS:
        if isinstance(said.get(name), str):
            said[name] = suit_word(str(said[name]), language)
    for name in BID_ARGS:
        if isinstance(said.get(name), str):
            said[name] = say_cards(str(said[name]), language)
    for name in SEAT_ARGS:
        value = said.get(name)
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            said[name] = seat_marker(int(value))
    text = phrase(key, language, **said)
    return text[:1].upper() + text[1:]


#: the arguments (of events and refusal reasons) that hold card codes, suit letters, seats
CARD_ARGS = ("card", "cards", "top_card", "must_play", "playable")
SUIT_ARGS = ("suit", "led", "trump", "suit_in_force")
SEAT_ARGS = ("seat", "holder", "dealer")
BID_ARGS = ("bid", "standing")


def option_label(name: str, language: str | None = None) -> str:
    """An option's label from its schema name: "screw_the_dealer" -> "Screw the dealer"."""
    key = f"option.{name}"
    if has(key, language):
        return phrase(key, language)
    words = name.replace("_", " ")
    return words[:1].upper() + words[1:]


def option_value(value: str, language: str | None = None) -> str:
    """An option's value in words: "true" -> "yes", "no_passing" -> "no passing"."""
    key = f"value.{value}"
    if has(key, language):
        return phrase(key, language)
    return value.replace("_", " ")
