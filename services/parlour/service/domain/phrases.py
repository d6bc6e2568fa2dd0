"""Each event of a table's log as a phrasebook sentence: its key and arguments.

``describe`` (``fold.py``) gives the contract's English ``PublicEvent.text``;
this gives the entry of the phrasebook (``parlour.words``) the server says
``PublicEvent.words`` with, in the language the call asked for. A card given
to another Hearts player stays secret here too: only the giver sees which.
"""

from __future__ import annotations

from parlour.action_words import action_phrase
from parlour.engine.actions import Action, ActionKind
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    ChatSaid,
    ChatSwitched,
    DomainEvent,
    GameAbandoned,
    GameFinished,
    GameStarted,
    SeatAway,
    SeatLeft,
    SeatRemoved,
    SeatReturned,
    SeatTaken,
    TableExpired,
    TableHosted,
)
from parlour.service.domain.fold import parse_action

Phrase = tuple[str, dict[str, object]]


def event_phrase(event: DomainEvent, viewer: int | None) -> Phrase | None:
    """The phrasebook key and arguments of ``event`` as ``viewer`` may see it
    (None for an event the phrasebook has no sentence for)."""
    match event:
        case ActionTaken():
            action = parse_action(event.action)
            if action.kind is ActionKind.GIVE and viewer != event.seat:
                secret = Action(ActionKind.GIVE)
                key, args = action_phrase(event.seat, secret)
                args["count"] = len(action.cards)
                return key, args
            return action_phrase(event.seat, action)
        case SeatTaken():
            return "event.seat_taken", {"seat": event.seat, "name": event.player_name or "?"}
        case SeatLeft():
            return "event.seat_left", {"seat": event.seat}
        case SeatRemoved():
            return "event.seat_removed", {"seat": event.seat}
        case SeatAway():
            return "event.seat_away", {"seat": event.seat, "level": event.bot_level or "normal"}
        case SeatReturned():
            return "event.seat_returned", {"seat": event.seat}
        case TableExpired():
            return "event.table_expired", {}
        case GameAbandoned():
            return "event.game_abandoned", {}
        case TableHosted():
            return "event.table_hosted", {"game": event.game, "count": event.seats}
        case GameStarted():
            return "event.game_started", {}
        case CardsDealt():
            key = "event.dealt_sealed" if event.commitment else "event.dealt"
            commitment = (event.commitment or "")[:12] + "…"
            return key, {"count": len(event.cards), "commitment": commitment}
        case GameFinished():
            if not event.winners:
                return "event.game_over_nobody", {}
            winners = ", ".join(f"seat {seat}" for seat in event.winners)
            return "event.game_over", {"winners": winners, "count": len(event.winners)}
        case ChatSaid():
            return "event.chat_said", {"seat": event.seat, "text": event.text}
        case ChatSwitched():
            return ("event.chat_on" if event.on else "event.chat_off"), {}
    return None
