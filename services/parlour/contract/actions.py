"""Actions to and from the contract, and the words of a legal action's menu label.

An action crosses with its canonical text and its fields both filled; read
back, the text wins (it is what the server parses), and the fields serve a
client that sends only them.
"""

from __future__ import annotations

from parlour.action_words import action_words as action_words
from parlour.contract.cards import SUIT_TO_PROTO, by_name, card_code, inverse, suit_from_proto
from parlour.engine.actions import Action, ActionKind
from parlour.engine.cards import Card
from parlour.engine.errors import MalformedAction
from parlour.v1 import common_pb2, play_pb2
from parlour.words import current as current_language

KIND_TO_PROTO: dict[ActionKind | None, common_pb2.ActionKind.ValueType] = by_name(
    ActionKind, common_pb2.ActionKind, "ACTION_KIND_"
)
KIND_FROM_PROTO: dict[common_pb2.ActionKind.ValueType, ActionKind] = inverse(KIND_TO_PROTO)


def action_to_proto(value: Action) -> common_pb2.Action:
    message = common_pb2.Action(
        kind=KIND_TO_PROTO[value.kind],
        card=card_code(value.card),
        suit=SUIT_TO_PROTO[value.suit],
        no_trump=value.no_trump,
        text=str(value),
        more_cards=[str(card) for card in value.more],
    )
    if value.number is not None:
        message.number = value.number
    return message


def action_from_proto(message: common_pb2.Action) -> Action:
    """The engine action a message spells out (its text wins over its fields)."""
    if message.text:
        return Action.parse(message.text)
    kind = KIND_FROM_PROTO.get(message.kind)
    if kind is None:
        raise MalformedAction("action notation", "set the action's text or its kind")
    if kind in (ActionKind.PLAY, ActionKind.GIVE):
        if not message.card:
            raise MalformedAction("action notation", f"a {kind.value} action needs a card")
        card = Card.parse(message.card)
        if kind is ActionKind.GIVE:
            return Action.give(card, *(Card.parse(code) for code in message.more_cards))
        return Action.play(card, suit_from_proto(message.suit))
    if kind is ActionKind.BID:
        if not message.HasField("number"):
            raise MalformedAction("action notation", "a bid needs a number")
        return Action.bid(message.number, message.no_trump)
    if kind is ActionKind.NAME_TRUMP:
        suit = suit_from_proto(message.suit)
        if suit is None:
            raise MalformedAction("action notation", "naming trump needs a suit")
        return Action.name_trump(suit)
    return Action(kind)


# A view lists the same few actions move after move and is converted twice a
# move (GetView and Act), so each legal action's message and label are made once
# per language (the label is said in the call's language, parlour.words.LANGUAGE).
_LEGAL: dict[tuple[Action, str], tuple[common_pb2.Action, str]] = {}
_LEGAL_KEPT = 4096


def legal_entry(value: Action) -> tuple[common_pb2.Action, str]:
    """The action's message and menu label (cached: copy the message, never change it)."""
    key = (value, current_language())
    made = _LEGAL.get(key)
    if made is None:
        if len(_LEGAL) >= _LEGAL_KEPT:
            _LEGAL.clear()
        made = _LEGAL[key] = (action_to_proto(value), action_words(value))
    return made


def legal_actions_from_proto(view: play_pb2.View) -> list[Action]:
    """The view's legal actions as engine actions, in id order (id = index + 1)."""
    return [action_from_proto(legal.action) for legal in view.legal_actions]
