"""Replay steps told in words: hand by hand and trick by trick.

Seats are told by their players' names (as the seats were taken) and cards as
people say them ("10♥", "wizard"): the words come from the phrasebook,
``parlour.words``.

Everything printed comes from the engine's per-seat views (``state.view``),
so a replay for one seat (``Narrator(seat=2)``) can only say what that seat
could see: its own hand, the public moves, its own Hearts passes. The whole
table's story (``Narrator()``) is told from every seat's view at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from parlour import words
from parlour.action_words import action_words
from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.registry import get_game
from parlour.engine.trick import Trick
from parlour.engine.view import View
from parlour.replay.check import Step
from parlour.service.domain.events import (
    ActionTaken,
    CardsDealt,
    GameFinished,
    GameStarted,
    SeatTaken,
    TableHosted,
)
from parlour.service.domain.fold import describe, parse_action
from parlour.words import card_name, option_label, option_value, say

Views = dict[int, View]


def cards_text(cards: Iterable[Card]) -> str:
    """Cards in a sentence, as the phrasebook says them ("10♥ Q♠", or "(none)")."""
    return words.cards_text([str(card) for card in cards])


class Narrator:
    """Turns replay steps into lines of text for ``seat`` (None: the whole table)."""

    def __init__(self, seat: int | None = None) -> None:
        self.seat = seat
        self._views: Views = {}
        self._trick_number = 0
        self._names: dict[int, str] = {}

    def lines(self, step: Step) -> list[str]:
        """What happened at ``step``, as the narrator's viewer saw it."""
        before = self._views
        after = self._look(step.state)
        self._views = after
        match step.typed:
            case ActionTaken(seat, action):
                return self._acted(seat, parse_action(action), before, after)
            case CardsDealt(cards):
                return self._dealt(before, after, len(cards))
            case TableHosted():
                return self._hosted(step.typed)
            case GameStarted():
                return ["The game starts."]
            case GameFinished():
                return self._finished(after)
            case SeatTaken(seat, player_name):
                self._names[seat] = player_name or f"Seat {seat + 1}"
                return [f"{self._names[seat]} sits down at seat {seat + 1}"]
        return [say(describe(step.typed, self.seat)[2], self._who)]

    # -- looking at the table ----------------------------------------------------------------

    def _look(self, state: GameState | None) -> Views:
        if state is None:
            return {}
        viewers = range(state.seats) if self.seat is None else (self.seat,)
        return {seat: state.view(seat) for seat in viewers}

    def _who(self, seat: int) -> str:
        name = self._names.get(seat) or f"Seat {seat + 1}"
        return f"{name} (you)" if seat == self.seat else name

    def _seats_text(self, values: Iterable[int]) -> str:
        return ", ".join(f"{self._who(seat)} {value}" for seat, value in enumerate(values))

    def _sees(self, seat: int) -> bool:
        return self.seat is None or self.seat == seat

    @staticmethod
    def _main(views: Views) -> View | None:
        """A view for the public facts (every seat's view agrees on them)."""
        return next(iter(views.values()), None)

    # -- events --------------------------------------------------------------------------------

    def _hosted(self, setup: TableHosted) -> list[str]:
        game = setup.game
        try:
            title = get_game(game).name
        except Exception:
            title = game
        kinds = list(setup.seat_kinds or ())
        levels = list(setup.bot_levels or ())
        for seat, kind in enumerate(kinds):
            if kind == "bot":  # named as the service seats them
                level = levels[seat] if seat < len(levels) else ""
                self._names[seat] = f"Bot {seat + 1}" + (f" ({level})" if level else "")
        seats = ", ".join(
            f"{seat + 1} {'computer' if kind == 'bot' else 'person'}"
            + (f" ({levels[seat]})" if seat < len(levels) and levels[seat] else "")
            for seat, kind in enumerate(kinds)
        )
        options = ", ".join(
            f"{option_label(str(k))}: {option_value(str(v).lower())}"
            for k, v in sorted((setup.options or {}).items())
        )
        lines = [f"{setup.name or title}: {title} for {setup.seats} seats"]
        if options:
            lines.append(f"  options: {options}")
        if seats:
            lines.append(f"  seats: {seats}")
        if self.seat is not None:
            lines.append(f"  (replayed as seat {self.seat + 1} saw it)")
        return lines

    def _dealt(self, before: Views, after: Views, count: int) -> list[str]:
        old, new = self._main(before), self._main(after)
        assert new is not None
        if old is not None and old.phase != "deal":
            stock = f" (stock: {new.stock_count})" if new.stock_count is not None else ""
            return [f"  the stock ran out: {count} cards were shuffled into a new stock{stock}"]
        self._trick_number = 0
        lines = ["", f"Hand {new.hand_number}: {self._who(new.dealer)} deals"]
        for seat, view in after.items():
            lines.append(f"  {self._who(seat)} holds {cards_text(view.hand)}")
        if new.stock_count is not None:
            starter = card_name(str(new.top_card))
            lines.append(f"  starter card {starter}, {new.stock_count} cards in the stock")
        elif new.turned_card is not None:
            turned = card_name(str(new.turned_card))
            lines.append(f"  turned up {turned}: trump is {new.trump_text}")
        elif new.trump_text and new.trump_text != "not yet named" and not new.pass_direction:
            lines.append(f"  trump: {new.trump_text}")
        if new.pass_direction:
            passing = new.pass_direction in ("none", "keep")
            lines.append(
                "  no passing this hand"
                if passing
                else f"  each seat passes three cards {new.pass_direction}"
            )
        return lines

    def _acted(self, seat: int, action: Action, before: Views, after: Views) -> list[str]:
        old, new = self._main(before), self._main(after)
        assert old is not None and new is not None
        lines = [f"  {self._who(seat)} {self._verb(seat, action, before, after)}"]
        if old.phase == "pass" and new.phase != "pass":
            lines += self._passes_done(new, after)
        if new.contract and new.contract != old.contract:
            lines.append(f"  contract: {say(new.contract, self._who)}")
        if new.last_trick is not None and new.last_trick != old.last_trick:
            lines.append(self._trick_taken(new.last_trick))
        if len(new.hand_scores) > len(old.hand_scores):
            number = len(new.hand_scores)
            lines.append(f"  hand {number} scores: {self._seats_text(new.hand_scores[-1])}")
            lines.append(f"  totals: {self._seats_text(new.scores)}")
        return lines

    def _verb(self, seat: int, action: Action, before: Views, after: Views) -> str:
        """What ``seat`` does, in the present: only the draws and another seat's
        passed cards differ from the phrasebook (they depend on what the reader sees)."""
        kind = action.kind
        if kind is ActionKind.GIVE and not self._sees(seat):
            return "chooses a card to pass" if not action.more else "chooses cards to pass"
        if kind is ActionKind.DRAW and seat in before and seat in after:
            drawn = set(after[seat].hand) - set(before[seat].hand)
            return f"draws {cards_text(sorted(drawn))}"
        return action_words(action, "present")

    def _passes_done(self, new: View, after: Views) -> list[str]:
        lines = [f"  the cards are passed {new.pass_direction}"]
        for seat, view in after.items():
            lines.append(
                f"  {self._who(seat)} passed {cards_text(view.passed_cards)}, "
                f"received {cards_text(view.received_cards)}, now holds {cards_text(view.hand)}"
            )
        return lines

    def _trick_taken(self, trick: Trick) -> str:
        self._trick_number += 1
        plays = " ".join(card_name(str(play.card)) for play in trick.plays)
        winner = "?" if trick.winner is None else self._who(trick.winner)
        return f"  trick {self._trick_number} to {winner} ({plays})"

    def _finished(self, after: Views) -> list[str]:
        view = self._main(after)
        if view is None:
            return ["The game is over."]
        won = " and ".join(self._who(seat) for seat in view.winners) or "nobody"
        return ["", f"Game over. Final scores: {self._seats_text(view.scores)}", f"Won by {won}."]
