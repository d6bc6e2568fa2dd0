"""Matching key presses to the legal actions the server listed.

Nothing here decides what is legal: the view's ``legal_actions`` do. These
helpers only sort the listed actions into "with a card" (play, give) and
"without" (bid, pass, draw, name trump), and find the one a key stands for.
"""

from __future__ import annotations

from collections.abc import Sequence

from parlour.v1 import common_pb2

from .cards import SUIT_BY_LETTER

LegalActions = Sequence[common_pb2.LegalAction]


def card_actions(legal: LegalActions, card: str) -> list[common_pb2.LegalAction]:
    """The listed actions that play or give ``card`` (several for an eight that names a suit)."""
    return [entry for entry in legal if entry.action.card == card]


def playable_cards(legal: LegalActions) -> set[str]:
    """The cards some listed action plays or gives."""
    return {entry.action.card for entry in legal if entry.action.card}


def other_actions(legal: LegalActions) -> list[common_pb2.LegalAction]:
    """The listed actions without a card: bids, pass, draw, naming trump."""
    return [entry for entry in legal if not entry.action.card]


def card_move_text(legal: LegalActions, phase: str, card: str) -> str:
    """The action text to send for a card nobody listed, so the server can say why not.

    The verb follows the phase the server reports: cards are given while
    passing (Hearts) and played otherwise.
    """
    verbs = {entry.action.text.split()[0] for entry in legal if entry.action.card}
    verb = verbs.pop() if len(verbs) == 1 else ("give" if phase == "pass" else "play")
    return f"{verb} {card}"


def bid_action(legal: LegalActions, typed: str) -> common_pb2.LegalAction | None:
    """The listed bid whose text is "bid <typed>" (e.g. typed "7NT" or "3")."""
    wanted = f"bid {typed}".lower()
    for entry in legal:
        if entry.action.kind == common_pb2.ACTION_KIND_BID and entry.action.text.lower() == wanted:
            return entry
    return None


def shortcut_action(legal: LegalActions, key: str) -> common_pb2.LegalAction | None:
    """The listed action a letter key stands for, if any.

    p: pass; d: draw; c/d/h/s: name that suit as trump (d means draw only
    when drawing is listed, which never happens while trump is being named).
    """
    by_kind: dict[int, list[common_pb2.LegalAction]] = {}
    for entry in legal:
        by_kind.setdefault(entry.action.kind, []).append(entry)
    if key == "p" and by_kind.get(common_pb2.ACTION_KIND_PASS):
        return by_kind[common_pb2.ACTION_KIND_PASS][0]
    if key == "d" and by_kind.get(common_pb2.ACTION_KIND_DRAW):
        return by_kind[common_pb2.ACTION_KIND_DRAW][0]
    suit = SUIT_BY_LETTER.get(key.upper())
    if suit is not None:
        for entry in by_kind.get(common_pb2.ACTION_KIND_NAME_TRUMP, []):
            if entry.action.suit == suit:
                return entry
    return None


def named_suit_choice(
    choices: Sequence[common_pb2.LegalAction], key: str
) -> common_pb2.LegalAction | None:
    """Among the actions for one card (an eight), the one naming the suit of ``key``."""
    suit = SUIT_BY_LETTER.get(key.upper())
    for entry in choices:
        if suit is not None and entry.action.suit == suit:
            return entry
    return None
