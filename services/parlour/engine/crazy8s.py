"""Crazy 8s: shed your hand by matching the suit in force or the rank on top.

Enforces ``../shared/rules/crazy8s.md`` (a copy ships as ``rules/crazy8s.md``)
together with the "All games" and "Crazy 8s" sections of ``rulings.md``.

How the rules map onto the engine protocol:

- Each round starts with a chance step for the sorted 52-card pack. The deal
  gives ``hand_size`` cards to each seat one at a time from the dealer's left,
  turns the next card up to start the discard pile, and leaves the rest as the
  stock, drawn in deck order. Round 1 is dealt by seat 0; the deal passes left.
- A turn is ``play XX``, or ``play 8X name S`` for an eight (every suit may be
  named, its own included). ``draw`` is legal only when nothing in hand plays;
  ``pass`` only when nothing plays and there is nothing to draw.
- A drawn card that plays must be played at once. With draw-until-playable on
  the seat keeps drawing (one ``draw`` per card) until one plays or nothing is
  left; with it off, an unplayable single draw ends the turn, which is not a
  pass.
- When a draw needs a card and the stock is empty, the discards under the top
  card are the next chance step (``chance()`` lists them; nobody is to act);
  the deal of them becomes the new stock and completes the draw.
- A round ends when a seat sheds its last card, or is blocked when every seat
  passes in turn; everyone holding cards pays the penalties. Lowest total
  after the last round wins, ties sharing the win.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from typing import Any

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import SUITS, Card, Rank, Suit, standard_deck
from parlour.engine.errors import IllegalAction, InvalidOptions
from parlour.engine.options import OptionSpec, OptionType, OptionValue
from parlour.engine.registry import GameInfo
from parlour.engine.results import (
    CrazyEightsRoundResult,
    EndReason,
    EndRule,
    GameEnd,
    HandResult,
    TieRule,
    WinnerRule,
)
from parlour.engine.view import Move, PlayerView, View, own_view

MIN_SEATS = 2
MAX_SEATS = 6
PACK_SIZE = 52
STUCK = "pass only when there is nothing to draw and nothing to play"


def penalty(card: Card) -> int:
    """What a card costs the seat caught holding it: eight 50, T-K 10, ace 1, else face."""
    if card.rank == Rank.EIGHT:
        return 50
    if card.rank == Rank.ACE:
        return 1
    if card.rank >= Rank.TEN:
        return 10
    return int(card.rank)


def standard_hand_size(seats: int) -> int:
    """Seven cards each heads-up, five otherwise."""
    return 7 if seats == 2 else 5


class CrazyEights(GameState):
    """A game of Crazy 8s in progress."""

    game = "crazy8s"

    def __init__(
        self,
        seats: int = MIN_SEATS,
        hand_size: str = "standard",
        draw_until_playable: bool = True,
        rounds: int = 1,
    ) -> None:
        # (Defaults only so that, compiled by mypyc, the state can be copied and pickled:
        # that calls __init__ without arguments before restoring every field.)
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise InvalidOptions("seat count", f"Crazy 8s seats 2 to 6 players, not {seats}")
        self.seats = seats
        self.hand_size_option = hand_size
        self.hand_size = standard_hand_size(seats) if hand_size == "standard" else int(hand_size)
        if seats * self.hand_size + 1 > PACK_SIZE:
            raise InvalidOptions(
                "six players with nine cards each is refused",
                f"the 52-card pack cannot deal {self.hand_size} cards to {seats} players "
                "and turn one up",
            )
        self.draw_until_playable = draw_until_playable
        self.rounds = rounds
        self.round_number = 1
        self.dealer = 0
        self.phase = "deal"  # "deal", "play", "over"
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.stock: list[Card] = []  # drawn from the front
        self.pile: list[Card] = []  # the discard pile; the last card is on top
        self.turned: Card | None = None
        self.suit_in_force: Suit | None = None
        self.named_by: int | None = None  # seat whose eight named the suit in force
        self.turn = 0
        self.must_play: Card | None = None  # a drawn card that plays
        self.rebuild_due = False  # a draw waits for the discards to be shuffled
        self.passes_in_turn = 0
        self.rebuilds = 0
        self.history: list[tuple[int, str]] = []
        self.outcome = ""  # how the last finished round ended, in words
        self.hand_scores: list[list[int]] = []
        self.totals = [0] * seats
        self._last_hand: HandResult | None = None

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str],
        pile: str,
        stock: str = "",
        *,
        suit_in_force: Suit | None = None,
        turn: int | None = None,
        dealer: int = 0,
        hand_number: int = 1,
        scores: Sequence[int] | None = None,
        **options: Any,
    ) -> CrazyEights:
        """A round already in play, for tests and puzzles: no deal, no checks of the pack.

        ``hands`` holds one card list per seat ("QS 3H"), ``pile`` the discards
        bottom to top, ``stock`` the stock in drawing order. The suit in force
        defaults to the top card's suit; the turn to the dealer's left.
        ``hand_number`` is the round (of the ``rounds`` option), ``scores`` the
        running totals.
        """
        state = cls(len(hands), **options)
        state.dealer = dealer
        state.round_number = hand_number
        if scores is not None:
            state.totals = list(scores)
        state.hands = [sorted(Card.parse(code) for code in hand.split()) for hand in hands]
        state.pile = [Card.parse(code) for code in pile.split()]
        state.stock = [Card.parse(code) for code in stock.split()]
        state.turned = state.pile[0]
        state.suit_in_force = suit_in_force or state.pile[-1].suit
        state.turn = (dealer + 1) % state.seats if turn is None else turn
        state.phase = "play"
        return state

    # -- chance -------------------------------------------------------------
    def chance(self) -> tuple[Card, ...] | None:
        if self.phase == "deal":
            return standard_deck()
        if self.rebuild_due:
            return tuple(sorted(self.pile[:-1]))
        return None

    def _deal(self, deck: tuple[Card, ...]) -> None:
        if self.rebuild_due:
            self._rebuild_stock(deck)
            return
        cards = iter(deck)
        self.hands = [[] for _ in range(self.seats)]
        for _ in range(self.hand_size):
            for offset in range(1, self.seats + 1):
                self.hands[(self.dealer + offset) % self.seats].append(next(cards))
        for hand in self.hands:
            hand.sort()
        self.turned = next(cards)
        self.pile = [self.turned]
        self.stock = list(cards)
        # a turned-up eight puts its own suit in force, like any other card
        self.suit_in_force = self.turned.suit
        self.named_by = None
        self.turn = (self.dealer + 1) % self.seats
        self.must_play = None
        self.passes_in_turn = 0
        self.rebuilds = 0
        self.history = []
        self.outcome = ""
        self.phase = "play"

    def deal_order(self) -> tuple[int | None, ...]:
        if self.rebuild_due:  # the first card completes the draw, the rest is stock
            return (self.turn,) + (None,) * (len(self.pile) - 2)
        dealt = self.hand_size * self.seats
        return tuple(
            (self.dealer + 1 + i) % self.seats if i < dealt else None for i in range(PACK_SIZE)
        )

    def _rebuild_stock(self, shuffled: tuple[Card, ...]) -> None:
        self.pile = self.pile[-1:]
        self.stock = list(shuffled)
        self.rebuilds += 1
        self.rebuild_due = False
        self._draw_one(self.turn)

    # -- turns --------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase != "play" or self.rebuild_due:
            return ()
        return (self.turn,)

    @property
    def top_card(self) -> Card:
        return self.pile[-1]

    def plays(self, card: Card) -> bool:
        """Whether ``card`` may go on the pile now (eights always may)."""
        return (
            card.rank == Rank.EIGHT
            or card.suit == self.suit_in_force
            or card.rank == self.top_card.rank
        )

    def _playable(self, seat: int) -> list[Card]:
        return [card for card in self.hands[seat] if self.plays(card)]

    def _can_draw(self) -> bool:
        return bool(self.stock) or len(self.pile) > 1

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        cards = [self.must_play] if self.must_play is not None else self._playable(seat)
        if cards:
            return [
                variant
                for card in cards
                for variant in (
                    [Action.play(card, suit) for suit in SUITS]
                    if card.rank == Rank.EIGHT
                    else [Action.play(card)]
                )
            ]
        return [Action.draw() if self._can_draw() else Action.pass_()]

    def _apply(self, seat: int, action: Action) -> None:
        if action.kind is ActionKind.PLAY and action.card is not None:
            self._check_play(seat, action.card, action.suit)
            self._play(seat, action)
        elif action.kind is ActionKind.DRAW:
            self._check_draw_or_pass(seat, "draw")
            self.history.append((seat, "draw"))
            self.passes_in_turn = 0
            if self.stock:
                self._draw_one(seat)
            else:
                self.rebuild_due = True
        elif action.kind is ActionKind.PASS:
            self._check_draw_or_pass(seat, "pass")
            self._pass(seat)
        else:
            raise IllegalAction(
                "Crazy 8s moves",
                f"{action} is not a Crazy 8s move (play a card, draw or pass)",
                reason="NOT_A_CRAZY8S_MOVE",
                seat=seat,
            )

    # -- checks (raise before anything changes) --------------------------------
    def _check_play(self, seat: int, card: Card, name: Suit | None) -> None:
        if card not in self.hands[seat]:
            raise IllegalAction(
                "card not in hand",
                f"seat {seat} does not hold {card}",
                reason="CARD_NOT_IN_HAND",
                seat=seat,
                card=card,
            )
        if self.must_play is not None and card != self.must_play:
            raise IllegalAction(
                "a drawn card that plays is played at once",
                f"seat {seat} drew {self.must_play}, which plays, and must play it, not {card}",
                reason="MUST_PLAY_DRAWN_CARD",
                seat=seat,
                must_play=self.must_play,
                card=card,
            )
        if card.rank == Rank.EIGHT and name is None:
            raise IllegalAction(
                "an eight names the suit in force",
                f"say which suit: 'play {card} name H'",
                reason="EIGHT_NAMES_SUIT",
                seat=seat,
                card=card,
            )
        if card.rank != Rank.EIGHT and name is not None:
            raise IllegalAction(
                "only an eight names the suit in force",
                f"{card} is not an eight: 'play {card}'",
                reason="ONLY_EIGHT_NAMES_SUIT",
                seat=seat,
                card=card,
            )
        if not self.plays(card):
            assert self.suit_in_force is not None
            raise IllegalAction(
                "must match the suit in force or the rank",
                f"{card} matches neither {self.suit_in_force.word} (the suit in force) "
                f"nor the rank of {self.top_card} on top",
                reason="MUST_MATCH_SUIT_OR_RANK",
                seat=seat,
                card=card,
                suit_in_force=self.suit_in_force,
                top_card=self.top_card,
            )

    def _check_draw_or_pass(self, seat: int, verb: str) -> None:
        if self.must_play is not None:
            raise IllegalAction(
                "a drawn card that plays is played at once",
                f"seat {seat} drew {self.must_play}, which plays: it cannot {verb} instead",
                reason="MUST_PLAY_DRAWN_CARD",
                seat=seat,
                must_play=self.must_play,
                card=self.must_play,
            )
        playable = self._playable(seat)
        rule = "draw only when nothing plays" if verb == "draw" else STUCK
        if playable:
            raise IllegalAction(
                rule,
                f"seat {seat} holds {playable[0]}, which plays on {self.top_card} "
                f"with {self.suit_in_force.word if self.suit_in_force else '?'} in force",
                reason="DRAW_ONLY_WHEN_NOTHING_PLAYS" if verb == "draw" else "PASS_ONLY_WHEN_STUCK",
                seat=seat,
                playable=playable[0],
                top_card=self.top_card,
            )
        if verb == "draw" and not self._can_draw():
            raise IllegalAction(
                STUCK,
                "the stock is empty and no discards lie under the top card",
                reason="STUCK_NOTHING_TO_DRAW",
                seat=seat,
            )
        if verb == "pass" and self._can_draw():
            raise IllegalAction(
                STUCK,
                "there is something to draw"
                + (f" ({len(self.stock)} cards in the stock)" if self.stock else " (the discards)"),
                reason="PASS_ONLY_WHEN_STUCK_DRAW",
                seat=seat,
            )

    # -- moves --------------------------------------------------------------
    def _play(self, seat: int, action: Action) -> None:
        card = action.card
        assert card is not None
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.suit_in_force = action.suit or card.suit
        self.named_by = seat if action.suit is not None else None
        self.must_play = None
        self.passes_in_turn = 0
        self.history.append((seat, str(action)))
        if not self.hands[seat]:
            self._end_round(f"seat {seat} went out", seat)
        else:
            self.turn = (seat + 1) % self.seats

    def _draw_one(self, seat: int) -> None:
        card = self.stock.pop(0)
        insort(self.hands[seat], card)
        if self.plays(card):
            self.must_play = card
        elif not self.draw_until_playable:
            # one unplayable draw ends the turn; this is not a pass (rulings)
            self.turn = (seat + 1) % self.seats

    def _pass(self, seat: int) -> None:
        self.history.append((seat, "pass"))
        self.passes_in_turn += 1
        if self.passes_in_turn == self.seats:
            self._end_round("the round is blocked: nobody is out", None)
        else:
            self.turn = (seat + 1) % self.seats

    def _end_round(self, outcome: str, went_out: int | None) -> None:
        # the seat that went out holds nothing, so one sum serves both endings
        scores = [sum(penalty(card) for card in hand) for hand in self.hands]
        self.hand_scores.append(scores)
        self.totals = [total + score for total, score in zip(self.totals, scores, strict=True)]
        self.outcome = outcome
        self._last_hand = HandResult(
            hand_number=self.round_number,
            dealer=self.dealer,
            points=tuple(scores),
            totals=tuple(self.totals),
            tricks_taken=(),
            text=f"round {self.round_number}: {outcome}; "
            + ", ".join(f"seat {s} {points:+d}" for s, points in enumerate(scores)),
            detail=CrazyEightsRoundResult(
                went_out, tuple(len(hand) for hand in self.hands), self.rebuilds
            ),
        )
        if self.round_number == self.rounds:
            self.phase = "over"
        else:
            self.round_number += 1
            self.dealer = (self.dealer + 1) % self.seats
            self.phase = "deal"

    # -- what can be seen -----------------------------------------------------
    def _notes(self) -> tuple[str, ...]:
        notes: list[str] = []
        if self.outcome:
            notes.append(self.outcome)
        if self.suit_in_force is not None and self.phase == "play":
            if self.named_by is not None:
                notes.append(f"seat {self.named_by} named {self.suit_in_force.word}")
            elif len(self.pile) == 1 and self.top_card.rank == Rank.EIGHT:
                notes.append(
                    f"the turned-up {self.top_card} puts {self.suit_in_force.word} in force"
                )
        if self.must_play is not None:
            notes.append(f"seat {self.turn} drew a card that plays and must play it at once")
        if self.rebuild_due:
            notes.append("the stock is being rebuilt from the discards under the top card")
        if self.rebuilds:
            notes.append(f"the stock has been rebuilt {self.rebuilds} time(s) this round")
        if self.passes_in_turn:
            notes.append(f"{self.passes_in_turn} seat(s) have passed in turn")
        return tuple(notes)

    def view(self, seat: int | None) -> View:
        return View(
            game=self.game,
            seat=seat,
            seats=self.seats,
            phase=self.phase,
            hand_number=self.round_number,
            dealer=self.dealer,
            to_act=self.to_act(),
            hand=tuple(self.hands[seat]) if seat is not None else (),
            players=tuple(
                PlayerView(seat=s, hand_size=len(self.hands[s]), score=self.totals[s])
                for s in range(self.seats)
            ),
            legal_actions=tuple(self.legal_actions(seat)) if seat is not None else (),
            turned_card=self.turned,
            history=tuple(Move(s, text) for s, text in self.history),
            suit_in_force=self.suit_in_force,
            suit_in_force_text=self.suit_in_force.word if self.suit_in_force else "",
            top_card=self.pile[-1] if self.pile else None,
            stock_count=len(self.stock),
            hand_scores=tuple(tuple(scores) for scores in self.hand_scores),
            scores=self.scores(),
            is_over=self.is_over,
            winners=self.winners(),
            notes=self._notes(),
            end_rule=self.end_rule(),
            last_hand=self._last_hand,
            end_reason=self.end_reason(),
            passes_in_a_row=self.passes_in_turn,
            must_play=self.must_play if seat is not None and seat == self.turn else None,
        )

    def seat_view(self, seat: int, public: View) -> View:
        if not 0 <= seat < self.seats:
            return self.view(seat)
        return own_view(
            public,
            seat=seat,
            hand=tuple(self.hands[seat]),
            legal_actions=tuple(self.legal_actions(seat)),
            must_play=self.must_play if seat == self.turn else None,
        )

    def scores(self) -> tuple[int, ...]:
        return tuple(self.totals)

    def end_rule(self) -> EndRule:
        return EndRule(
            GameEnd.ROUNDS,
            WinnerRule.LOWEST_TOTAL,
            TieRule.SHARE,
            f"lowest total after {self.rounds} round{'s' if self.rounds > 1 else ''} wins; "
            "ties share the win",
            rounds=self.rounds,
            rounds_option="rounds",
        )

    def last_hand(self) -> HandResult | None:
        return self._last_hand

    def end_reason(self) -> EndReason | None:
        return EndReason.ROUNDS_PLAYED if self.is_over else None

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def winners(self) -> tuple[int, ...]:
        if not self.is_over:
            return ()
        lowest = min(self.totals)
        return tuple(s for s in range(self.seats) if self.totals[s] == lowest)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.hands[seat])

    def accounted_cards(self) -> tuple[Card, ...]:
        return tuple(card for hand in self.hands for card in hand) + tuple(self.pile + self.stock)

    def snapshot(self) -> dict[str, Any]:
        def codes(cards: Sequence[Card]) -> list[str]:
            return [str(card) for card in cards]

        return {
            "game": self.game,
            "seats": self.seats,
            "options": {
                "hand_size": self.hand_size_option,
                "draw_until_playable": self.draw_until_playable,
                "rounds": self.rounds,
            },
            "round": self.round_number,
            "dealer": self.dealer,
            "phase": self.phase,
            "hands": [codes(hand) for hand in self.hands],
            "stock": codes(self.stock),
            "pile": codes(self.pile),
            "turned": str(self.turned) if self.turned else None,
            "suit_in_force": str(self.suit_in_force) if self.suit_in_force else None,
            "named_by": self.named_by,
            "turn": self.turn,
            "must_play": str(self.must_play) if self.must_play else None,
            "rebuild_due": self.rebuild_due,
            "passes_in_turn": self.passes_in_turn,
            "rebuilds": self.rebuilds,
            "history": [[s, text] for s, text in self.history],
            "outcome": self.outcome,
            "hand_scores": [list(scores) for scores in self.hand_scores],
            "totals": list(self.totals),
        }


def _new(seats: int, options: dict[str, OptionValue]) -> CrazyEights:
    return CrazyEights(
        seats,
        hand_size=str(options["hand_size"]),
        draw_until_playable=bool(options["draw_until_playable"]),
        rounds=int(options["rounds"]),
    )


OPTIONS = (
    OptionSpec(
        "hand_size",
        OptionType.CHOICE,
        "standard",
        ("standard", "5", "7", "9"),
        "Cards dealt to each player: standard is 7 heads-up and 5 otherwise.",
    ),
    OptionSpec(
        "draw_until_playable",
        OptionType.BOOL,
        True,
        (True, False),
        "Keep drawing until a card plays; off: draw one card and the turn passes if it does not.",
    ),
    OptionSpec("rounds", OptionType.INT, 1, (1, 3, 5), "Rounds to play; lowest total wins."),
)

INFO = GameInfo(
    id="crazy8s",
    name="Crazy 8s",
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    options=OPTIONS,
    factory=_new,
    summary="Shed your hand by matching the suit in force or the rank on top; eights are wild.",
    rules_file="crazy8s.md",
    end_rule=EndRule(
        GameEnd.ROUNDS,
        WinnerRule.LOWEST_TOTAL,
        TieRule.SHARE,
        "lowest total after the last round (the rounds option) wins; ties share the win",
        rounds_option="rounds",
    ),
)
