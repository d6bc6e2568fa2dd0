"""Ground truth for the hidden-card tests: which cards a seat may not have seen."""

from __future__ import annotations

import re
from collections.abc import Iterable

from parlour.engine.base import GameState
from parlour.engine.view import View

CARD_CODE = re.compile(r"\b(?:[2-9TJQKA][CDHS]|[WN][1-4])\b")


def cards_in(text: str) -> set[str]:
    """Every card code written in ``text``."""
    return set(CARD_CODE.findall(text))


def public_cards(view: View) -> set[str]:
    """The cards a spectator's view shows face up (played, turned, on the pile)."""
    shown = {view.top_card, view.turned_card}
    for trick in (view.current_trick, view.last_trick, *view.tricks):
        if trick is not None:
            shown |= {play.card for play in trick.plays}
    return {str(card) for card in shown if card is not None}


def hidden_from(state: GameState, seat: int | None) -> set[str]:
    """Cards other seats hold now that ``seat`` cannot know of.

    A seat knows where the cards it passed (Hearts) went, so those are left out.
    """
    passed: Iterable[object] = state.view(seat).passed_cards if seat is not None else ()
    known = {str(card) for card in passed}
    others = (other for other in range(state.seats) if other != seat)
    return {str(card) for other in others for card in state.hand(other)} - known
