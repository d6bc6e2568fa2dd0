"""The chance step: shuffle and deal whenever a game waits for chance.

Used when a game starts (the first hand) and after every move that ends a
hand. Each deal is committed: a fresh salt and the sha256 commitment to the
deck are recorded with it (the commitment is public at once, the deck and
salt once the game is over; see ``domain/deals.py``). With players' entropy
the deck is derived from the server's seed and the seats' contributions
instead of drawn from the dealer's random source.
"""

from __future__ import annotations

import random

from parlour.engine.cards import Card
from parlour.service.domain import deals
from parlour.service.domain.events import CardsDealt
from parlour.service.domain.fold import Folded
from parlour.service.store.protocol import NewEvent


class Dealer:
    """Deals on a folded state, from ``rng`` (``secrets.SystemRandom`` in service)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def deal_due(self, folded: Folded) -> list[NewEvent]:
        """Deal every hand the game waits for, on ``folded``; the CardsDealt events."""
        state = folded.state
        assert state is not None
        events = []
        seed = str(folded.setup.get("server_seed") or "")
        while (cards := state.chance()) is not None:
            number = folded.deals
            if seed:
                shuffled = deals.shuffle(
                    [str(card) for card in cards], seed, folded.contributions, number
                )
                deck = [Card.parse(code) for code in shuffled]
            else:
                deck = list(cards)
                self._rng.shuffle(deck)
            state.deal(deck)
            folded.deals += 1
            codes = [str(card) for card in deck]
            salt = deals.new_secret()
            dealt = CardsDealt(tuple(codes), number, salt, deals.commitment(codes, salt))
            events.append(dealt.new(folded.chain(dealt)))
        return events
