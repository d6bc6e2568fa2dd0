"""Wizard, the trick-taking game of exact bids, for 3 to 6 players.

This module enforces ``../shared/rules/wizard.md`` together with the Wizard and
"All games" sections of ``../shared/rules/rulings.md`` (copies ship in
``rules/``). Deviations: none known.

A round runs deal -> (trump, when a wizard is turned) -> bid -> play. Round
``r`` deals ``r`` cards each from a 60-card pack, starting at the dealer's left;
the next card is turned for trump unless the whole pack is out. The deal passes
one seat to the left each round.

A finished round stays on the table (bids, tricks, turned card) until the next
deal, so a client can show how it ended; everything that belongs to a round is
cleared when the next one is dealt.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Self

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import SUITS, Card, Suit, format_cards, wizard_deck
from parlour.engine.errors import IllegalAction, InvalidOptions, NotYourTurn
from parlour.engine.options import OptionSpec, OptionType, OptionValue
from parlour.engine.registry import GameInfo
from parlour.engine.results import (
    EndReason,
    EndRule,
    GameEnd,
    HandResult,
    TieRule,
    WinnerRule,
    WizardRoundResult,
)
from parlour.engine.trick import Play, Trick
from parlour.engine.view import Move, PlayerView, View, own_view

MIN_SEATS = 3
MAX_SEATS = 6
ROUND_CHOICES = ("all", "5", "10")

WIZARD_PACK: tuple[Card, ...] = wizard_deck()

# Actions are built once: legal_actions hands out these shared immutable values.
_PLAY = {card: Action.play(card) for card in WIZARD_PACK}
_BID = tuple(Action.bid(n) for n in range(len(WIZARD_PACK) // MIN_SEATS + 1))
_NAME_TRUMP = tuple(Action.name_trump(suit) for suit in SUITS)

# Phases, as the view names them.
DEAL, TRUMP, BID, PLAY, OVER = "deal", "trump", "bid", "play", "over"


def rounds_in_game(seats: int, rounds: str = "all") -> int:
    """How many rounds a game lasts: the whole pack, or cut short to 5 or 10."""
    full = len(WIZARD_PACK) // seats
    return full if rounds == "all" else min(int(rounds), full)


def led_suit(cards: Sequence[Card]) -> tuple[Suit | None, bool]:
    """The suit led in a trick so far, and whether a wizard reached the front.

    The first card that is not a jester decides: an ordinary card leads its
    suit, a wizard means no suit is led for the whole trick.
    """
    for card in cards:
        if card.is_wizard:
            return None, True
        if card.is_ordinary:
            return card.suit, False
    return None, False


def trick_winner(plays: Sequence[Play], trump: Suit | None) -> int:
    """The seat that takes a complete trick."""
    for play in plays:
        if play.card.is_wizard:
            return play.seat  # the first wizard, whatever else is down
    suit, _ = led_suit([play.card for play in plays])
    for wanted in (trump, suit):
        if wanted is None:
            continue
        contenders = [p for p in plays if p.card.is_ordinary and p.card.suit is wanted]
        if contenders:
            return max(contenders, key=lambda p: p.card.rank).seat
    # No wizard and no ordinary card: nothing but jesters, so the first one takes it.
    return plays[0].seat


def round_score(bid: int, taken: int) -> int:
    """20 plus 10 a trick for an exact bid; otherwise -10 per trick over or under."""
    return 20 + 10 * taken if bid == taken else -10 * abs(bid - taken)


class WizardState(GameState):
    """A game of Wizard in progress."""

    game = "wizard"

    def __init__(
        self, seats: int = MIN_SEATS, rounds: str = "all", screw_the_dealer: bool = False
    ) -> None:
        # (Defaults only so that, compiled by mypyc, the state can be copied and pickled:
        # that calls __init__ without arguments before restoring every field.)
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise InvalidOptions(
                "seat count", f"Wizard seats {MIN_SEATS} to {MAX_SEATS} players, not {seats}"
            )
        if rounds not in ROUND_CHOICES:
            raise InvalidOptions("rounds", f"{rounds!r} is not one of {', '.join(ROUND_CHOICES)}")
        self.seats = seats
        self.rounds_option = rounds
        self.total_rounds = rounds_in_game(seats, rounds)
        self.screw_the_dealer = screw_the_dealer
        self.round = 1
        self.dealer = 0
        self.phase = DEAL
        self._turn: int | None = None  # the one seat to act, outside deal/over
        self._hands: list[list[Card]] = [[] for _ in range(seats)]
        self._stock: list[Card] = list(WIZARD_PACK)  # undealt cards, below the turned one
        self._turned: Card | None = None
        self._trump: Suit | None = None
        self._bids: list[int | None] = [None] * seats
        self._history: list[Move] = []
        self._tricks: list[Trick] = []
        self._leader = 0
        self._trick: list[Play] = []
        self._taken = [0] * seats
        self._hand_scores: list[tuple[int, ...]] = []
        self._totals = [0] * seats
        self._last_hand: HandResult | None = None

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str],
        *,
        turned: str | None = None,
        trump: Suit | None = None,
        dealer: int = 0,
        scores: Sequence[int] | None = None,
        **options: Any,
    ) -> WizardState:
        """A round already dealt, for tests and study: bidding (or naming trump) is next.

        ``hands`` holds one card list per seat ("W1 QS 3H"), all of the same
        length: the round number. ``turned`` is the card turned for trump
        (None: the whole pack is out, or give ``trump`` for a turned wizard
        whose suit the dealer already named). ``scores`` are the running totals.
        """
        state = cls(len(hands), **options)
        parsed = [sorted(Card.parse(code) for code in hand.split()) for hand in hands]
        state.round = len(parsed[0])
        if any(len(hand) != state.round for hand in parsed) or state.round > state.total_rounds:
            raise InvalidOptions("position", "every seat holds the round number of cards")
        state.dealer = dealer
        state._totals = list(scores) if scores is not None else [0] * state.seats
        turned_card = Card.parse(turned) if turned else None
        used = {card for hand in parsed for card in hand}
        if turned_card is not None:
            used.add(turned_card)
        state._hands = parsed
        state._turned = turned_card
        state._stock = [card for card in WIZARD_PACK if card not in used]
        state._leader = state._left_of_dealer
        if turned_card is None or not turned_card.is_wizard:
            state._trump = turned_card.suit if turned_card and turned_card.is_ordinary else None
            state.phase, state._turn = BID, state._left_of_dealer
        elif trump is not None:
            state._trump = trump
            state.phase, state._turn = BID, state._left_of_dealer
        else:
            state._trump = None
            state.phase, state._turn = TRUMP, dealer
        return state

    # -- chance ---------------------------------------------------------------
    def chance(self) -> tuple[Card, ...] | None:
        return WIZARD_PACK if self.phase == DEAL else None

    def deal_order(self) -> tuple[int | None, ...]:
        dealt = self.round * self.seats
        return tuple(
            (self.dealer + 1 + i) % self.seats if i < dealt else None
            for i in range(len(WIZARD_PACK))
        )

    def _deal(self, deck: tuple[Card, ...]) -> None:
        seats, dealt = self.seats, self.round * self.seats
        self._hands = [[] for _ in range(seats)]
        for i, card in enumerate(deck[:dealt]):
            self._hands[(self.dealer + 1 + i) % seats].append(card)
        for hand in self._hands:
            hand.sort()
        self._turned = deck[dealt] if dealt < len(deck) else None
        self._stock = list(deck[dealt + 1 :])
        self._bids = [None] * seats
        self._history = []
        self._tricks = []
        self._trick = []
        self._taken = [0] * seats
        self._leader = self._left_of_dealer
        turned = self._turned
        self._trump = turned.suit if turned is not None and turned.is_ordinary else None
        if turned is not None and turned.is_wizard:
            self.phase, self._turn = TRUMP, self.dealer
        else:
            self.phase, self._turn = BID, self._left_of_dealer

    @property
    def _left_of_dealer(self) -> int:
        return (self.dealer + 1) % self.seats

    # -- turns ----------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        return () if self._turn is None else (self._turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat != self._turn:
            return []
        if self.phase == TRUMP:
            return list(_NAME_TRUMP)
        if self.phase == BID:
            forbidden = self._forbidden_bid(seat)
            return [_BID[n] for n in range(self.round + 1) if n != forbidden]
        return [_PLAY[card] for card in self._playable(seat)]

    def _forbidden_bid(self, seat: int) -> int | None:
        """Screw the dealer: the number that would make the bids add up, if biddable."""
        if not self.screw_the_dealer or seat != self.dealer:
            return None
        rest = self.round - sum(bid for bid in self._bids if bid is not None)
        return rest if 0 <= rest <= self.round else None

    def _playable(self, seat: int) -> list[Card]:
        hand = self._hands[seat]
        suit, _ = led_suit([play.card for play in self._trick])
        if suit is None or not any(c.is_ordinary and c.suit is suit for c in hand):
            return list(hand)
        # Wizards and jesters may always be played; their `suit` only numbers the copies.
        return [c for c in hand if not c.is_ordinary or c.suit is suit]

    def _apply(self, seat: int, action: Action) -> None:
        if self.phase == TRUMP:
            self._name_trump(seat, action)
        elif self.phase == BID:
            self._bid(seat, action)
        else:
            self._play(seat, action)

    def _name_trump(self, seat: int, action: Action) -> None:
        if action.kind is not ActionKind.NAME_TRUMP or action.suit is None:
            raise IllegalAction(
                "dealer names trump",
                f"a wizard was turned: dealer seat {seat} must name trump "
                f"('trump C', 'trump D', 'trump H' or 'trump S'), not {action}",
                reason="DEALER_NAMES_TRUMP",
                seat=seat,
            )
        self._trump = action.suit
        self._history.append(Move(seat, str(action)))
        self.phase, self._turn = BID, self._left_of_dealer

    def _bid(self, seat: int, action: Action) -> None:
        if action.kind is not ActionKind.BID or action.number is None or action.no_trump:
            raise IllegalAction(
                "bidding",
                f"seat {seat} must bid a number of tricks ('bid 0' to 'bid {self.round}'), "
                f"not {action}",
                reason="MUST_BID_TRICKS",
                seat=seat,
                most=self.round,
            )
        number = action.number
        if not 0 <= number <= self.round:
            raise IllegalAction(
                "bid range",
                f"seat {seat} may bid 0 to {self.round} tricks in round {self.round}, not {number}",
                reason="BID_OUT_OF_RANGE",
                seat=seat,
                most=self.round,
                number=number,
            )
        if number == self._forbidden_bid(seat):
            raise IllegalAction(
                "screw the dealer",
                f"dealer seat {seat} may not bid {number}: the bids would add up to the "
                f"{self.round} tricks available",
                reason="SCREW_THE_DEALER",
                seat=seat,
                number=number,
                tricks=self.round,
            )
        self._bids[seat] = number
        self._history.append(Move(seat, str(action)))
        if seat == self.dealer:
            self.phase, self._turn = PLAY, self._left_of_dealer
        else:
            self._turn = (seat + 1) % self.seats

    def _play(self, seat: int, action: Action) -> None:
        card = action.card
        if action.kind is not ActionKind.PLAY or card is None or action.suit is not None:
            raise IllegalAction(
                "play",
                f"seat {seat} must play a card ('play QS'), not {action}",
                reason="MUST_PLAY_A_CARD",
                seat=seat,
            )
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalAction(
                "card not in hand",
                f"seat {seat} does not hold {card}",
                reason="CARD_NOT_IN_HAND",
                seat=seat,
                card=card,
            )
        suit, _ = led_suit([play.card for play in self._trick])
        if (
            suit is not None
            and card.is_ordinary
            and card.suit is not suit
            and any(c.is_ordinary and c.suit is suit for c in hand)
        ):
            raise IllegalAction(
                "must follow suit",
                f"seat {seat} holds {suit.word} and cannot play {card} when {suit.word} are led",
                reason="MUST_FOLLOW_SUIT",
                seat=seat,
                card=card,
                led=suit,
            )
        hand.remove(card)
        self._trick.append(Play(seat, card))
        if len(self._trick) < self.seats:
            self._turn = (seat + 1) % self.seats
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        plays = tuple(self._trick)
        winner = trick_winner(plays, self._trump)
        suit, _ = led_suit([play.card for play in plays])
        self._tricks.append(Trick(self._leader, plays, winner, suit))
        self._taken[winner] += 1
        self._trick = []
        self._leader = self._turn = winner  # the winner leads the next trick
        if len(self._tricks) == self.round:
            self._score_round()

    def _score_round(self) -> None:
        bids = [bid for bid in self._bids if bid is not None]
        assert len(bids) == self.seats, "every seat bids before the first lead"
        scores = tuple(
            round_score(bid, taken) for bid, taken in zip(bids, self._taken, strict=True)
        )
        self._hand_scores.append(scores)
        self._totals = [total + score for total, score in zip(self._totals, scores, strict=True)]
        self._last_hand = HandResult(
            hand_number=self.round,
            dealer=self.dealer,
            points=scores,
            totals=tuple(self._totals),
            tricks_taken=tuple(self._taken),
            text=f"round {self.round}: "
            + "; ".join(
                f"seat {seat} bid {bid}, took {taken} ({score:+d})"
                for seat, (bid, taken, score) in enumerate(
                    zip(bids, self._taken, scores, strict=True)
                )
            ),
            detail=WizardRoundResult(tuple(bids), self._trump, self._turned),
        )
        self._turn = None
        if self.round == self.total_rounds:
            self.phase = OVER
        else:
            self.phase = DEAL
            self.round += 1
            self.dealer = (self.dealer + 1) % self.seats

    # -- what can be seen -------------------------------------------------------
    def scores(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def winners(self) -> tuple[int, ...]:
        if not self.is_over:
            return ()
        best = max(self._totals)
        return tuple(seat for seat, total in enumerate(self._totals) if total == best)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._hands[seat])

    def end_rule(self) -> EndRule:
        return EndRule(
            GameEnd.ROUNDS,
            WinnerRule.HIGHEST_TOTAL,
            TieRule.SHARE,
            f"highest total after {self.total_rounds} rounds wins; ties share the win",
            rounds=self.total_rounds,
            rounds_option="rounds",
        )

    def last_hand(self) -> HandResult | None:
        return self._last_hand

    def end_reason(self) -> EndReason | None:
        return EndReason.ROUNDS_PLAYED if self.phase == OVER else None

    @property
    def trump(self) -> Suit | None:
        return self._trump

    @property
    def turned_card(self) -> Card | None:
        return self._turned

    def accounted_cards(self) -> tuple[Card, ...]:
        cards = [card for hand in self._hands for card in hand]
        cards += [play.card for trick in self._tricks for play in trick.plays]
        cards += [play.card for play in self._trick]
        cards += [self._turned] if self._turned is not None else []
        return (*cards, *self._stock)

    def trump_text(self) -> str:
        if self.phase == TRUMP:
            return "dealer to name trump"
        if self._trump is not None:
            return self._trump.word
        return "" if self.phase == DEAL and not self._tricks else "no trump"

    def view(self, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < self.seats:
            raise NotYourTurn(
                "seat",
                f"there is no seat {seat} at a {self.seats}-seat table",
                reason="NO_SUCH_SEAT",
                seat=seat,
                seats=self.seats,
            )
        players = tuple(
            PlayerView(
                seat=s,
                hand_size=len(self._hands[s]),
                score=self._totals[s],
                tricks_taken=self._taken[s],
                bid="" if self._bids[s] is None else str(self._bids[s]),
            )
            for s in range(self.seats)
        )
        current = None
        if self.phase == PLAY:
            suit, _ = led_suit([play.card for play in self._trick])
            current = Trick(self._leader, tuple(self._trick), None, suit)
        return View(
            game=self.game,
            seat=seat,
            seats=self.seats,
            phase=self.phase,
            hand_number=self.round,
            dealer=self.dealer,
            to_act=self.to_act(),
            hand=() if seat is None else self.hand(seat),
            players=players,
            legal_actions=() if seat is None else tuple(self.legal_actions(seat)),
            trump=self._trump,
            trump_text=self.trump_text(),
            turned_card=self._turned,
            current_trick=current,
            last_trick=self._tricks[-1] if self._tricks else None,
            tricks=tuple(self._tricks),
            history=tuple(self._history),
            hand_scores=tuple(self._hand_scores),
            scores=self.scores(),
            is_over=self.is_over,
            winners=self.winners(),
            notes=self.notes(),
            end_rule=self.end_rule(),
            last_hand=self._last_hand,
            end_reason=self.end_reason(),
        )

    def seat_view(self, seat: int, public: View) -> View:
        if not 0 <= seat < self.seats:
            return self.view(seat)
        return own_view(
            public, seat=seat, hand=self.hand(seat), legal_actions=tuple(self.legal_actions(seat))
        )

    def notes(self) -> tuple[str, ...]:
        """Plain-words facts about the table now."""
        if self.phase == OVER:
            who = " and ".join(f"seat {s}" for s in self.winners())
            verb = "wins" if len(self.winners()) == 1 else "share the win"
            return (f"game over: {who} {verb} with {max(self._totals)}",)
        notes = [f"round {self.round} of {self.total_rounds}"]
        if self.phase == DEAL:
            if self._tricks:
                notes.append(f"round {self.round - 1} is over; round {self.round} is to be dealt")
            return tuple(notes)
        turned = self._turned
        if turned is None:
            notes.append("the whole pack is dealt: no card turned, no trump")
        elif turned.is_wizard:
            named = "names trump" if self._trump is None else f"named {self._trump.word}"
            notes.append(f"{turned} turned: a wizard, so the dealer {named}")
        elif turned.is_jester:
            notes.append(f"{turned} turned: a jester, so no trump this round")
        if self.phase == BID and self._turn == self.dealer:
            forbidden = self._forbidden_bid(self.dealer)
            if forbidden is not None:
                notes.append(f"screw the dealer: seat {self.dealer} may not bid {forbidden}")
        if self.phase == PLAY and self._trick:
            suit, wizard_front = led_suit([play.card for play in self._trick])
            if wizard_front:
                notes.append("a wizard reached the front: no suit led")
            elif suit is None:
                notes.append("a jester led: the next ordinary card sets the suit")
        return tuple(notes)

    # -- whole state ------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        def trick(t: Trick) -> dict[str, Any]:
            return {
                "leader": t.leader,
                "cards": format_cards([play.card for play in t.plays]),
                "winner": t.winner,
            }

        return {
            "game": self.game,
            "seats": self.seats,
            "rounds": self.rounds_option,
            "screw_the_dealer": self.screw_the_dealer,
            "round": self.round,
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self._turn,
            "hands": [format_cards(hand) for hand in self._hands],
            "turned": None if self._turned is None else str(self._turned),
            "stock": format_cards(self._stock),
            "trump": None if self._trump is None else str(self._trump),
            "bids": list(self._bids),
            "history": [[move.seat, move.text] for move in self._history],
            "tricks": [trick(t) for t in self._tricks],
            "trick": {"leader": self._leader, "cards": format_cards([p.card for p in self._trick])},
            "taken": list(self._taken),
            "hand_scores": [list(scores) for scores in self._hand_scores],
            "totals": list(self._totals),
        }

    def clone(self) -> Self:
        # Cards, moves, plays and tricks are immutable, so copying the lists is enough.
        other = copy.copy(self)
        other._hands = [list(hand) for hand in self._hands]
        other._stock = list(self._stock)
        other._bids = list(self._bids)
        other._history = list(self._history)
        other._tricks = list(self._tricks)
        other._trick = list(self._trick)
        other._taken = list(self._taken)
        other._hand_scores = list(self._hand_scores)
        other._totals = list(self._totals)
        return other


def _new_game(seats: int, options: dict[str, OptionValue]) -> WizardState:
    return WizardState(
        seats,
        rounds=str(options.get("rounds", "all")),
        screw_the_dealer=bool(options.get("screw_the_dealer", False)),
    )


INFO = GameInfo(
    id="wizard",
    name="Wizard",
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    options=(
        OptionSpec(
            "rounds",
            OptionType.CHOICE,
            "all",
            ROUND_CHOICES,
            "Play every round until the pack runs out, or stop after 5 or 10 rounds",
        ),
        OptionSpec(
            "screw_the_dealer",
            OptionType.BOOL,
            False,
            (True, False),
            "Screw the dealer: the dealer may not bid the number that makes the bids "
            "add up to the tricks available",
        ),
    ),
    factory=_new_game,
    summary="Bid exactly how many tricks you will take; wizards always win, jesters never.",
    rules_file="wizard.md",
    end_rule=EndRule(
        GameEnd.ROUNDS,
        WinnerRule.HIGHEST_TOTAL,
        TieRule.SHARE,
        "highest total after the last round wins (every round until the pack runs out: "
        "60 / players, or 5 or 10 by the rounds option); ties share the win",
        rounds_option="rounds",
    ),
)
