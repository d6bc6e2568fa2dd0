"""OpenSpiel's ISMCTS as a Hearts opponent in self-play, for comparison only.

``IsmctsSeat`` sits at a Parlour Hearts table in ``parlour selfplay``: before
each of its moves the Parlour game so far is mirrored into OpenSpiel's
``hearts`` (same deal, passes and plays; OpenSpiel's options set to Parlour's
rules, so that hearts are broken only by a heart), and C++ ``pyspiel.ISMCTSBot``
chooses. The mirror holds every hand, as OpenSpiel's states do, but ISMCTS
samples its worlds with ``ResampleFromInfostate``, from what its own seat has
seen; Parlour stays the referee of every card. OpenSpiel is in the ``bench``
extra (``make bench-deps``).
"""

from __future__ import annotations

import random
from typing import Any

from parlour.engine.actions import Action
from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.hearts import pass_direction

#: Parlour's pass direction -> OpenSpiel's pass-direction chance outcome.
OPENSPIEL_PASS = {"none": 0, "left": 1, "across": 2, "right": 3}
OPENSPIEL_GAME = "hearts(qs_breaks_hearts=False)"


def openspiel_card(card: Card) -> int:
    """OpenSpiel's card action: rank-major (2C 2D 2H 2S 3C ...)."""
    return (card.index % 13) * 4 + card.index // 13


def parlour_card(action: int) -> Card:
    return Card.from_index((action % 4) * 13 + action // 4)


def load_pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        raise RuntimeError(
            "OpenSpiel is not installed: it is in the bench extra (make bench-deps)"
        ) from error
    return pyspiel


def mirror(game: Any, state: GameState, me: int = 0) -> Any:
    """The Parlour Hearts hand in progress as an OpenSpiel ``hearts`` state.

    The table is turned so that seat ``me`` is OpenSpiel's player 0 (who
    passes first): OpenSpiel's passes are made one player after another, and
    its resampling of a pass crashes once players before the sampler have
    passed. Passing and play go round the table the same way in both.
    """
    table = state.view(None)
    words, _ = pass_direction(table.hand_number)
    mirrored = game.new_initial_state()
    mirrored.apply_action(OPENSPIEL_PASS[words])
    plays = [p for trick in table.tricks for p in trick.plays]
    if table.current_trick is not None:
        plays += list(table.current_trick.plays)
    views = [state.view(seat) for seat in range(4)]
    dealt: list[list[Card]] = []
    for seat, view in enumerate(views):
        held = set(state.hand(seat)) | {p.card for p in plays if p.seat == seat}
        if view.received_cards:  # the exchange is done: undo it
            held = (held | set(view.passed_cards)) - set(view.received_cards)
        dealt.append(sorted(held))
    order = [(me + player) % 4 for player in range(4)]  # OpenSpiel player -> seat
    for n in range(13):  # OpenSpiel deals card k to player k mod 4
        for seat in order:
            mirrored.apply_action(openspiel_card(dealt[seat][n]))
    if words != "none":
        exchanged = bool(views[me].received_cards)
        for seat in order if exchanged else [me]:
            for card in views[seat].passed_cards:
                mirrored.apply_action(openspiel_card(card))
    for play in plays:
        mirrored.apply_action(openspiel_card(play.card))
    return mirrored


class IsmctsSeat:
    """A Hearts seat played by OpenSpiel's ISMCTS with ``simulations`` per move."""

    def __init__(self, simulations: int = 4000, seed: int = 0) -> None:
        pyspiel = load_pyspiel()
        self.game = pyspiel.load_game(OPENSPIEL_GAME)
        # kept here: the bot holds only a raw reference to its evaluator
        self.evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self.bot = pyspiel.ISMCTSBot(
            seed,
            self.evaluator,
            2.0,
            simulations,
            -1,  # unlimited world samples: each one resampled from the seat's infostate
            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            False,
        )
        self.name = f"hearts/ismcts-{simulations}"
        #: moves ISMCTS chose that Parlour's rules refused (played as a random legal card)
        self.refused = 0

    def choose_at(self, state: GameState, seat: int, rng: random.Random) -> Action:
        legal = state.legal_actions(seat)
        mirrored = mirror(self.game, state, seat)
        if mirrored.current_player() != 0:
            raise RuntimeError(
                f"mirror out of step: OpenSpiel waits for {mirrored.current_player()}"
            )
        card = parlour_card(self.bot.step(mirrored))
        for action in legal:
            if action.card is card:
                return action
        self.refused += 1
        return legal[rng.randrange(len(legal))]
