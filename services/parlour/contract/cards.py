"""Cards, suits and tricks to and from the contract, and the enum tables behind them.

A card crosses as its code ("QS", "W2", "N1"), the empty string for none; a
suit as the contract's Suit enum, SUIT_UNSPECIFIED for none. Enum members are
matched by name, so a member without a counterpart fails at import.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from parlour.engine.cards import Card, Suit
from parlour.engine.trick import Play, Trick
from parlour.v1 import common_pb2, play_pb2


def by_name(values: Iterable[Enum], proto: Any, prefix: str) -> dict[Any, Any]:
    """Each member of an engine enum to the contract's value named ``prefix`` + its name,
    and None to ``prefix`` + UNSPECIFIED (a member with no counterpart fails at import)."""
    found = {member: proto.Value(prefix + member.name) for member in values}
    return {None: proto.Value(f"{prefix}UNSPECIFIED"), **found}


def inverse(mapping: dict[Any, Any]) -> dict[Any, Any]:
    """The contract's values back to the engine's (UNSPECIFIED left out: read it as None)."""
    return {value: key for key, value in mapping.items() if key is not None}


SUIT_TO_PROTO: dict[Suit | None, common_pb2.Suit.ValueType] = by_name(
    Suit, common_pb2.Suit, "SUIT_"
)
SUIT_FROM_PROTO: dict[common_pb2.Suit.ValueType, Suit] = inverse(SUIT_TO_PROTO)


def suit_from_proto(value: common_pb2.Suit.ValueType) -> Suit | None:
    """The engine suit of a contract Suit (None for SUIT_UNSPECIFIED)."""
    return SUIT_FROM_PROTO.get(value)


def card_code(card: Card | None) -> str:
    """A card's code, or "" for no card."""
    return str(card) if card is not None else ""


def card_from_code(code: str) -> Card | None:
    """The card of a code, or None for ""."""
    return Card.parse(code) if code else None


def card_codes(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def cards_from_codes(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def fill_trick(message: play_pb2.Trick, trick: Trick) -> None:
    """Copy ``trick`` into ``message`` (built in place: views are converted on every move)."""
    message.leader = trick.leader
    plays = message.plays
    for play in trick.plays:
        plays.add(seat=play.seat, card=str(play.card))
    message.led_suit = SUIT_TO_PROTO[trick.led_suit]
    if trick.winner is not None:
        message.winner = trick.winner


def trick_from_proto(message: play_pb2.Trick) -> Trick:
    return Trick(
        leader=message.leader,
        plays=tuple(Play(play.seat, Card.parse(play.card)) for play in message.plays),
        winner=message.winner if message.HasField("winner") else None,
        led_suit=suit_from_proto(message.led_suit),
    )
