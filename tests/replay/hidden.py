"""Ground truth for the hidden-card tests: which cards a seat may not have seen."""

from __future__ import annotations

import re
from collections.abc import Iterable

from parlour.engine.base import GameState
from parlour.engine.view import View

#: A rank-and-suit card as the narration says it ("10♥", "Q♠").
CARD_SAID = re.compile(r"(?<![\w♣♦♥♠])(10|[2-9JQKA])([♣♦♥♠])")
SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def cards_in(text: str) -> set[str]:
    """The code of every rank-and-suit card said in ``text`` ("10♥" -> "TH").

    Wizards and jesters are said by name only ("wizard"): the four of each play
    alike, so naming one tells nothing about which another seat holds, and they
    are left out of the comparison (see ``plain``).
    """
    return {
        ("T" if rank == "10" else rank) + SUIT_OF_SYMBOL[symbol]
        for rank, symbol in CARD_SAID.findall(text)
    }


def plain(codes: Iterable[str]) -> set[str]:
    """The rank-and-suit cards among ``codes`` (without wizards and jesters)."""
    return {code for code in codes if code[0] not in "WN"}


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
