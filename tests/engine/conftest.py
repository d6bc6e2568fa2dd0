"""Helpers shared by the engine tests."""

from __future__ import annotations

from parlour.engine.cards import Card
from parlour.engine.trick import Trick
from parlour.engine.view import View


def trick_cards(trick: Trick | None) -> set[Card]:
    return set() if trick is None else {play.card for play in trick.plays}


def cards_in_view(view: View) -> set[Card]:
    """Every card a view shows, wherever it shows it."""
    cards = set(view.hand) | set(view.passed_cards) | set(view.received_cards)
    cards |= trick_cards(view.current_trick) | trick_cards(view.last_trick)
    for trick in view.tricks:
        cards |= trick_cards(trick)
    for extra in (view.top_card, view.turned_card):
        if extra is not None:
            cards.add(extra)
    for action in view.legal_actions:
        if action.card is not None:
            cards.add(action.card)
    return cards
