"""The phrasebook said of an engine action: the one adapter from ``Action`` to words.

:mod:`parlour.words` imports nothing, so the clients can share it; this module
hands it an action's parts. The contract's labels, the fold's event text and
the replay's narration all say actions through it.
"""

from __future__ import annotations

from parlour.engine.actions import Action
from parlour.words import CardStyle, Form, say_action


def action_words(action: Action, form: Form = "label", cards: CardStyle = "names") -> str:
    """``action`` in words: "play Q♠" (label), "played Q♠" (past), "plays Q♠" (present)."""
    return say_action(
        action.kind.value,
        " ".join(str(card) for card in action.cards),
        number=action.number,
        no_trump=action.no_trump,
        suit=action.suit.value if action.suit is not None else "",
        form=form,
        cards=cards,
    )
