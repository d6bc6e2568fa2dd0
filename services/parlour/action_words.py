"""The phrasebook said of an engine action: the one adapter from ``Action`` to words.

:mod:`parlour.words` imports nothing, so the clients can share it; this module
hands it an action's parts. The contract's labels, the fold's event text and
the replay's narration all say actions through it.
"""

from __future__ import annotations

from parlour.engine.actions import Action
from parlour.words import CardStyle, Form, say_action


def action_words(
    action: Action,
    form: Form = "label",
    cards: CardStyle = "names",
    language: str | None = None,
) -> str:
    """``action`` in words: "play Q♠" (label), "played Q♠" (past), "plays Q♠" (present),
    in ``language`` (the call's by default)."""
    return say_action(
        action.kind.value,
        " ".join(str(card) for card in action.cards),
        number=action.number,
        no_trump=action.no_trump,
        suit=action.suit.value if action.suit is not None else "",
        form=form,
        cards=cards,
        language=language,
    )


def action_phrase(seat: int, action: Action) -> tuple[str, dict[str, object]]:
    """The event sentence of ``seat`` taking ``action``: its key and arguments
    ("event.play", {"seat": 2, "card": "QS"}), for :func:`parlour.words.say_phrase`."""
    kind = action.kind.value
    suit = action.suit.value if action.suit is not None else ""
    card = " ".join(str(card) for card in action.cards)
    if kind == "play" and suit:
        key = "play_named"
    elif kind == "bid" and action.no_trump:
        key = "bid_nt"
    elif kind == "give" and not card:
        key = "give_secret"
    else:
        key = kind
    args: dict[str, object] = {"seat": seat, "card": card, "cards": card, "suit": suit}
    args["number"] = action.number
    args["count"] = max(1, len(action.cards))
    return f"event.{key}", args
