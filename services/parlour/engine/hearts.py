"""Hearts (Kierki): enforces ``hearts.md`` and its Polish original ``hearts.pl.md``
(the Polish text stands where the two differ), completed by the "All games" and
"Hearts" sections of ``rulings.md``.

Four players, 13 cards each, dealt one at a time from the dealer's left; the
deal passes left each hand (seat 0 deals hand 1). Before each hand every seat
passes three cards of the hand it was dealt: left, right, across, then no
passing, the cycle running through every hand, the extra hands of a tie
included. The pass is simultaneous and secret: each seat makes three
``give QS`` choices, seen only by itself, and the cards move once all four
seats have chosen. The holder of the two of clubs leads it to the first
trick; suit must be followed; on the first trick no heart and not the queen of
spades may be played unless the player has no other legal card. Hearts are
broken only by a heart discarded on a trick of another suit; before that a
heart may be led only from a hand of nothing but hearts (a hand of hearts and
the queen of spades must lead the queen). No trump. One point per heart, 13
for the queen of spades; a player who takes all 26 shoots the moon and scores
0 while each other player scores 26. The game ends after a hand in which a
player reaches 100; the lowest total wins, and while the lowest is tied
another hand is played.

No table options: the jack-of-diamonds -10 variant and the subtraction of
points for taking all the penalty cards are locked off, as the rules state.

Representation, for speed (random playouts and bot search): a hand is an int
bitset over ``card.index`` (clubs bits 0-12, diamonds 13-25, hearts 26-38,
spades 39-51), legal moves are bit masks, every ``play``/``give`` action is
one shared object per card, and views and snapshots are built only when asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple, NoReturn

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import ALL_CARDS, Card, Suit, standard_deck
from parlour.engine.errors import IllegalAction, InvalidOptions, MalformedAction, NotYourTurn
from parlour.engine.options import OptionValue
from parlour.engine.registry import GameInfo
from parlour.engine.results import (
    EndReason,
    EndRule,
    GameEnd,
    HandResult,
    HeartsHandResult,
    TieRule,
    WinnerRule,
)
from parlour.engine.trick import Play, Trick
from parlour.engine.view import Move, PlayerView, View, own_view

SEATS: Final = 4
HAND_SIZE: Final = 13
CARDS_PASSED: Final = 3
GAME_TARGET = 100
ALL_POINTS = 26
QUEEN_OF_SPADES_POINTS = 13

#: Pass cycle: hand 1 left, 2 right, 3 across, 4 none, then again: (words, seat offset).
PASS_CYCLE: tuple[tuple[str, int], ...] = (("left", 1), ("right", 3), ("across", 2), ("none", 0))

DEAL, PASS, PLAY, OVER = "deal", "pass", "play", "over"

_CARDS: Final[tuple[Card, ...]] = standard_deck()  # index order: _CARDS[i].index == i
_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_MASK: Final[tuple[int, ...]] = tuple(((1 << 13) - 1) << (13 * suit.index) for suit in _SUITS)
_SUIT_OF: Final[tuple[int, ...]] = tuple(index // 13 for index in range(52))
_HEARTS_SUIT: Final = 2  # Suit.HEARTS.index
_HEARTS: Final = 0x1FFF << 26
_QUEEN_OF_SPADES: Final = 1 << 49  # QS: spades (39) + queen (10)
_TWO_OF_CLUBS: Final = 1  # 2C: index 0
_POINT_CARDS: Final = _HEARTS | _QUEEN_OF_SPADES
assert _SUIT_MASK[Suit.HEARTS.index] == _HEARTS and Suit.HEARTS.index == _HEARTS_SUIT
assert 1 << Card.parse("QS").index == _QUEEN_OF_SPADES
assert 1 << Card.parse("2C").index == _TWO_OF_CLUBS
_FULL_PACK: Final = (1 << 52) - 1
_BIT: Final[tuple[int, ...]] = tuple(1 << index for index in range(52))
_BIT_OF_ID: Final[dict[int, int]] = {id(card): 1 << card.index for card in _CARDS}

_PLAY: Final[tuple[Action, ...]] = tuple(Action.play(card) for card in _CARDS)
_GIVE: Final[tuple[Action, ...]] = tuple(Action.give(card) for card in _CARDS)
# by any card.index (wizards and jesters, 52-59, have none): for identity checks
_PLAY_AT: Final[tuple[Action | None, ...]] = _PLAY + (None,) * 8
_GIVE_AT: Final[tuple[Action | None, ...]] = _GIVE + (None,) * 8


def _suit_tables(table: tuple[Action, ...]) -> tuple[list[tuple[Action, ...]], ...]:
    """For each suit, the actions of every 13-bit set of its cards, by that set.

    Turning a bitset into a list of actions one bit at a time was the largest cost
    of a random hand; a lookup per suit is several times cheaper. The 8,192 sets
    of a suit are made by doubling (each card added to every set made before it):
    a few milliseconds at import, about 0.7 MB a table.
    """
    tables = []
    for suit in range(4):
        found: list[tuple[Action, ...]] = [()]
        for action in table[13 * suit : 13 * suit + 13]:
            found += [(*actions, action) for actions in found]
        tables.append(found)
    return tuple(tables)


_PLAY_BY_SUIT: Final = _suit_tables(_PLAY)
_GIVE_BY_SUIT: Final = _suit_tables(_GIVE)
_SUIT_BITS: Final = 0x1FFF
_ONE_SEAT: Final[tuple[tuple[int, ...], ...]] = tuple((seat,) for seat in range(SEATS))


def points_in(mask: int) -> int:
    """Penalty points among the cards of ``mask``: 1 a heart, 13 the queen of spades."""
    return (mask & _HEARTS).bit_count() + (QUEEN_OF_SPADES_POINTS if mask & _QUEEN_OF_SPADES else 0)


def pass_direction(hand_number: int) -> tuple[str, int]:
    """(words, seat offset) of the pass before hand ``hand_number`` (counted from 1)."""
    return PASS_CYCLE[(hand_number - 1) % 4]


class HeartsState(GameState):
    """A game of Hearts for four seats."""

    game = "hearts"

    # Slots: over thirty attributes would no longer share one key table in a
    # plain instance dict, and every attribute read of the inner loop would slow.
    __slots__ = (
        "_acting",
        "_best",
        "_best_seat",
        "_chance",
        "_chosen",
        "_dealer",
        "_exchanged",
        "_hand_number",
        "_hand_scores",
        "_hands",
        "_hearts_broken",
        "_last_hand",
        "_leaders",
        "_led_suit",
        "_legal",
        "_moon",
        "_over",
        "_phase",
        "_plays",
        "_previous_trick",
        "_received",
        "_scores",
        "_taken",
        "_tied",
        "_trick_cards",
        "_trick_winners",
        "_tricks_taken",
        "_turn",
        "_waiting",
        "_winners",
        "seats",
    )

    def __init__(self) -> None:
        self.seats = SEATS
        self._phase = DEAL
        self._hand_number = 1
        self._dealer = 0
        self._scores = [0] * SEATS
        self._hand_scores: list[tuple[int, ...]] = []
        self._moon: int | None = None  # who shot the moon in the last finished hand
        self._tied = False  # the last hand ended at 100+ with the lowest total tied
        self._winners: tuple[int, ...] = ()
        self._over = False
        # (leader, winner, cards) of the last trick of the previous hand, shown until the deal
        self._previous_trick: tuple[int, int, tuple[int, ...]] | None = None
        self._last_hand: HandResult | _HandFacts | None = None
        self._reset_hand()

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str],
        *,
        dealer: int = 0,
        hand_number: int = 1,
        scores: Sequence[int] | None = None,
        passing: bool = True,
    ) -> HeartsState:
        """A hand already dealt, for tests and study: the pass (if this hand has one) is next.

        ``hands`` holds the four seats' thirteen cards ("2C AH ..."), together
        the whole pack; ``hand_number`` fixes the pass direction; ``scores`` are
        the running totals. ``passing=False`` starts the play at once, as if the
        cards had already been passed.
        """
        masks = [0] * SEATS
        for seat, hand in enumerate(hands):
            for code in hand.split():
                masks[seat] |= 1 << Card.parse(code).index
        if len(hands) != SEATS or any(mask.bit_count() != HAND_SIZE for mask in masks):
            raise InvalidOptions("position", "four hands of thirteen cards each")
        if masks[0] | masks[1] | masks[2] | masks[3] != _FULL_PACK:
            raise InvalidOptions("position", "the four hands must hold the whole pack once")
        state = cls()
        state._dealer, state._hand_number = dealer, hand_number
        if scores is not None:
            state._scores = list(scores)
        state._hands = masks
        if passing and pass_direction(hand_number)[1]:
            state._start_pass()
        else:
            state._start_play()
        return state

    def _reset_hand(self) -> None:
        self._hands = [0] * SEATS
        self._chosen = [0] * SEATS  # the cards each seat has chosen to pass
        self._received = [0] * SEATS
        self._exchanged = False
        self._waiting: tuple[int, ...] = ()  # seats still choosing cards to pass
        self._turn = -1
        # what chance() and to_act() answer, kept up to date (asked before every move)
        self._chance: tuple[Card, ...] | None = _CARDS
        self._acting: tuple[int, ...] = ()
        self._legal = -1  # the cards the seat to play may play, once asked (see _legal_mask)
        self._plays: list[int] = []  # card indices played this hand, in order
        self._leaders: list[int] = []  # the leader of each trick begun
        self._trick_winners: list[int] = []
        self._trick_cards = 0  # bitset of the trick in progress
        self._led_suit = -1
        self._best = -1  # the highest card of the led suit in the trick in progress
        self._best_seat = -1
        self._hearts_broken = False
        self._taken = [0] * SEATS  # bitsets of the cards each seat took this hand
        self._tricks_taken = [0] * SEATS

    # -- chance ---------------------------------------------------------------
    def chance(self) -> tuple[Card, ...] | None:
        return self._chance

    def deal_order(self) -> tuple[int | None, ...]:
        return tuple((self._dealer + 1 + i) % SEATS for i in range(len(_CARDS)))

    def deal(self, deck: Sequence[Card]) -> None:
        # A fast check of the usual case, a shuffle of the 52 cards; anything
        # else takes the general validation, which raises the right error.
        # Cards are interned (one object per card), so a card's bit is found by
        # its id; 52 single bits add up to the whole pack only if none repeats.
        if self._phase == DEAL and len(deck) == 52:
            try:
                bits = list(map(_BIT_OF_ID.__getitem__, map(id, deck)))
            except KeyError:  # not one of the 52 cards
                bits = []
            if sum(bits) == _FULL_PACK:
                self._deal_bits(bits)
                return
        super().deal(deck)

    def _deal(self, deck: tuple[Card, ...]) -> None:
        self._deal_bits([1 << card.index for card in deck])

    def _deal_bits(self, bits: list[int]) -> None:
        first = self._dealer + 1  # one card at a time, from the dealer's left
        hands = self._hands
        for offset in range(SEATS):  # the cards are distinct: their sum is their union
            hands[(first + offset) % SEATS] = sum(bits[offset::SEATS])
        if pass_direction(self._hand_number)[1]:
            self._start_pass()
        else:
            self._start_play()

    def _start_pass(self) -> None:
        self._phase = PASS
        self._chance = None
        self._waiting = self._acting = (0, 1, 2, 3)

    # -- turns ----------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        return self._acting

    def legal_actions(self, seat: int) -> list[Action]:
        turn = self._turn  # -1 outside the play
        if seat == turn and turn >= 0:
            mask = self._legal
            if mask < 0:
                mask = self._legal_mask(seat)
            tables = _PLAY_BY_SUIT
        elif self._phase == PASS and seat in self._waiting:
            mask = self._hands[seat] & ~self._chosen[seat]
            tables = _GIVE_BY_SUIT
        else:
            return []
        clubs, diamonds, hearts, spades = tables
        return [
            *clubs[mask & _SUIT_BITS],
            *diamonds[mask >> 13 & _SUIT_BITS],
            *hearts[mask >> 26 & _SUIT_BITS],
            *spades[mask >> 39],
        ]

    def _legal_mask(self, seat: int) -> int:
        """The cards ``seat`` (the seat to play) may play now, as a bitset.

        Asked twice a move (to list the moves, then to check the one chosen), so
        it is kept until the next card is played (``_legal`` is -1 when unknown).
        """
        legal = self._legal
        if legal >= 0:
            return legal
        hand = self._hands[seat]
        if not self._trick_cards:
            if not self._plays:
                legal = _TWO_OF_CLUBS
            elif self._hearts_broken:
                legal = hand
            else:
                # A hand of only hearts and the queen of spades leaves the queen alone here.
                legal = hand & ~_HEARTS or hand
        else:
            legal = hand & _SUIT_MASK[self._led_suit] or hand
            if len(self._plays) < SEATS:
                legal = legal & ~_POINT_CARDS or legal
        self._legal = legal
        return legal

    def apply(self, seat: int, action: Action) -> None:
        # The usual case, one of our own play actions from the seat to play,
        # skips the generic checks and plays the card here (this is the inner
        # loop of every playout); everything else takes the long way.
        turn = self._turn  # -1 outside the play
        card = action.card
        if seat == turn and turn >= 0 and card is not None:
            index = card.index
            if action is _PLAY_AT[index]:
                legal = self._legal
                if legal < 0:
                    legal = self._legal_mask(seat)
                if legal >> index & 1:
                    self._play(seat, index)
                    return
        elif (
            self._phase == PASS
            and seat in self._waiting
            and card is not None
            and action is _GIVE_AT[card.index]
        ):
            self._give_card(seat, card.index)
            return
        if self._phase == PASS and seat in range(SEATS) and seat not in self._waiting:
            waiting = ", ".join(str(s) for s in self._waiting)
            raise NotYourTurn(
                "pass three cards",
                f"seat {seat} has already chosen its three cards (waiting for seats {waiting})",
                reason="ALREADY_CHOSE_PASS",
                seat=seat,
                waiting=waiting,
            )
        super().apply(seat, action)

    def _apply(self, seat: int, action: Action) -> None:
        if self._phase == PASS:
            self._give(seat, action)
            return
        index = _card_index(action, ActionKind.PLAY, _PLAY)
        if index < 0 or not self._legal_mask(seat) >> index & 1:
            self._refuse_play(seat, action)
        self._play(seat, index)

    # -- the pass -------------------------------------------------------------
    def _give(self, seat: int, action: Action) -> None:
        if action.kind is ActionKind.GIVE and action.more:
            self._give_several(seat, action)
            return
        index = _card_index(action, ActionKind.GIVE, _GIVE)
        if index < 0:
            raise IllegalAction(
                "pass three cards",
                f"seat {seat} must choose three cards to pass before play starts, not {action}",
                reason="PASS_CARDS_FIRST",
                seat=seat,
            )
        self._give_card(seat, index)

    def _give_card(self, seat: int, index: int) -> None:
        """``seat`` (one still choosing) chooses the card ``index`` to pass."""
        bit = 1 << index
        if not self._hands[seat] & bit:
            raise IllegalAction(
                "card not in hand",
                f"seat {seat} does not hold {ALL_CARDS[index]}",
                reason="CARD_NOT_IN_HAND",
                seat=seat,
                card=ALL_CARDS[index],
            )
        chosen = self._chosen[seat]
        if chosen & bit:
            raise IllegalAction(
                "pass three cards",
                f"seat {seat} has already chosen {_CARDS[index]}",
                reason="CARD_ALREADY_CHOSEN",
                seat=seat,
                card=_CARDS[index],
            )
        chosen |= bit
        self._chosen[seat] = chosen
        if chosen.bit_count() == CARDS_PASSED:
            self._waiting = self._acting = tuple(s for s in self._waiting if s != seat)
            if not self._waiting:
                self._exchange()

    def _give_several(self, seat: int, action: Action) -> None:
        """``give QS KH 2C``: choose several cards in one act, all checked before any is taken."""
        cards = action.cards
        still = CARDS_PASSED - self._chosen[seat].bit_count()
        if len(cards) > still:
            raise IllegalAction(
                "pass three cards",
                f"seat {seat} has {still} card(s) left to choose, not {len(cards)}",
                reason="PASS_COUNT",
                seat=seat,
                count=still,
                given=len(cards),
            )
        if len(set(cards)) != len(cards):
            raise IllegalAction(
                "pass three cards",
                f"{action} names a card twice",
                reason="CARD_NAMED_TWICE",
                seat=seat,
            )
        for card in cards:
            if card.index >= 52 or not self._hands[seat] >> card.index & 1:
                raise IllegalAction(
                    "card not in hand",
                    f"seat {seat} does not hold {card}",
                    reason="CARD_NOT_IN_HAND",
                    seat=seat,
                    card=card,
                )
            if self._chosen[seat] >> card.index & 1:
                raise IllegalAction(
                    "pass three cards",
                    f"seat {seat} has already chosen {card}",
                    reason="CARD_ALREADY_CHOSEN",
                    seat=seat,
                    card=card,
                )
        for card in cards:  # every check is made: none of these can fail
            self._give(seat, _GIVE[card.index])

    def _exchange(self) -> None:
        offset = pass_direction(self._hand_number)[1]
        hands, chosen = self._hands, self._chosen
        for seat in range(SEATS):
            hands[seat] &= ~chosen[seat]
        for seat in range(SEATS):
            receiver = (seat + offset) % SEATS
            hands[receiver] |= chosen[seat]
            self._received[receiver] = chosen[seat]
        self._exchanged = True
        self._start_play()

    def _start_play(self) -> None:
        self._legal = -1
        self._phase = PLAY
        self._chance = None
        self._waiting = ()
        self._turn = next(s for s in range(SEATS) if self._hands[s] & _TWO_OF_CLUBS)
        self._acting = _ONE_SEAT[self._turn]

    # -- play -----------------------------------------------------------------
    def _play(self, seat: int, index: int) -> None:
        self._legal = -1
        bit = _BIT[index]
        self._hands[seat] ^= bit
        plays = self._plays
        plays.append(index)
        suit = _SUIT_OF[index]
        trick = self._trick_cards
        if not trick:
            self._leaders.append(seat)
            self._led_suit = suit
            self._best = index
            self._best_seat = seat
            self._trick_cards = bit
            self._turn = turn = (seat + 1) & 3
            self._acting = _ONE_SEAT[turn]
            return
        if suit == self._led_suit:
            if index > self._best:
                self._best = index
                self._best_seat = seat
        elif suit == _HEARTS_SUIT:
            self._hearts_broken = True  # a heart discarded on a trick of another suit
        if len(plays) & 3:
            self._trick_cards = trick | bit
            self._turn = turn = (seat + 1) & 3
            self._acting = _ONE_SEAT[turn]
            return
        winner = self._best_seat
        self._taken[winner] |= trick | bit
        self._tricks_taken[winner] += 1
        self._trick_winners.append(winner)
        self._trick_cards = 0
        self._turn = winner
        self._acting = _ONE_SEAT[winner]
        if len(plays) == SEATS * HAND_SIZE:
            self._finish_hand()

    def _queen_taker(self) -> int | None:
        """The seat whose trick took the queen of spades this hand."""
        queen = _QUEEN_OF_SPADES.bit_length() - 1
        for index, card in enumerate(self._plays):
            if card == queen:
                return self._trick_winners[index // SEATS]
        return None

    def _finish_hand(self) -> None:
        taken = [points_in(taken) for taken in self._taken]
        points = taken
        self._moon = next((s for s in range(SEATS) if points[s] == ALL_POINTS), None)
        if self._moon is not None:
            points = [0 if s == self._moon else ALL_POINTS for s in range(SEATS)]
        self._hand_scores.append(tuple(points))
        scores = self._scores
        for seat in range(SEATS):
            scores[seat] += points[seat]
        lowest = min(scores)
        reached = max(scores) >= GAME_TARGET
        self._tied = reached and scores.count(lowest) > 1
        last_trick = (self._leaders[-1], self._trick_winners[-1], tuple(self._plays[-4:]))
        # The facts of the hand; the HandResult is made from them when asked (last_hand)
        self._last_hand = _HandFacts(
            self._hand_number,
            self._dealer,
            tuple(points),
            tuple(scores),
            tuple(self._tricks_taken),
            tuple(taken),
            self._moon,
            self._tied,
            last_trick,
            self._queen_taker(),
        )
        if reached and not self._tied:
            self._over = True
            self._phase = OVER
            self._turn = -1
            self._acting = ()
            self._winners = (scores.index(lowest),)
            return
        self._previous_trick = last_trick
        self._hand_number += 1
        self._dealer = (self._dealer + 1) % SEATS
        self._phase = DEAL
        self._reset_hand()

    def _refuse_play(self, seat: int, action: Action) -> NoReturn:
        """Raise the error that says why ``action`` is not legal for ``seat`` now."""
        card = action.card
        if action.kind is ActionKind.GIVE:
            passing = "the pass is over" if self._exchanged else "there is no passing this hand"
            raise IllegalAction(
                "pass three cards",
                f"{passing}; seat {seat} must play a card",
                reason="PASSING_IS_OVER" if self._exchanged else "NO_PASSING_THIS_HAND",
                seat=seat,
            )
        if action.kind is not ActionKind.PLAY or card is None:
            raise IllegalAction(
                "play a card",
                f"seat {seat} must play a card, not {action}",
                reason="MUST_PLAY_A_CARD",
                seat=seat,
            )
        if action.suit is not None:
            raise MalformedAction("play a card", f"Hearts names no suit: play {card}, not {action}")
        hand = self._hands[seat]
        if card.index >= 52 or not hand >> card.index & 1:
            raise IllegalAction(
                "card not in hand",
                f"seat {seat} does not hold {card}",
                reason="CARD_NOT_IN_HAND",
                seat=seat,
                card=card,
            )
        if not self._trick_cards:
            if not self._plays:
                raise IllegalAction(
                    "first lead is the two of clubs",
                    f"seat {seat} must lead 2C, not {card}",
                    reason="FIRST_LEAD_TWO_OF_CLUBS",
                    seat=seat,
                    card=card,
                )
            if hand & ~_HEARTS == _QUEEN_OF_SPADES:
                raise IllegalAction(
                    "hearts not broken",
                    f"seat {seat} holds only hearts and the queen of spades and must lead QS, "
                    f"not {card}",
                    reason="MUST_LEAD_QUEEN_OF_SPADES",
                    seat=seat,
                    card=card,
                )
            raise IllegalAction(
                "hearts not broken",
                f"seat {seat} cannot lead {card}",
                reason="HEARTS_NOT_BROKEN",
                seat=seat,
                card=card,
            )
        led = _SUITS[self._led_suit].word
        if card.suit.index != self._led_suit and hand & _SUIT_MASK[self._led_suit]:
            raise IllegalAction(
                "must follow suit",
                f"seat {seat} holds {led} and cannot play {card} on a {led[:-1]} lead",
                reason="MUST_FOLLOW_SUIT",
                seat=seat,
                card=card,
                led=_SUITS[self._led_suit],
            )
        raise IllegalAction(
            "no points on the first trick",
            f"seat {seat} cannot play {card} on the first trick while holding another legal card",
            reason="NO_POINTS_ON_FIRST_TRICK",
            seat=seat,
            card=card,
        )

    # -- what can be seen -----------------------------------------------------
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def is_over(self) -> bool:
        return self._over

    def winners(self) -> tuple[int, ...]:
        return self._winners

    def end_rule(self) -> EndRule:
        return INFO.end_rule

    def last_hand(self) -> HandResult | None:
        last = self._last_hand
        if isinstance(last, _HandFacts):
            self._last_hand = result = last.result()
            return result
        return last

    def end_reason(self) -> EndReason | None:
        return EndReason.TARGET_REACHED if self._over else None

    def hand(self, seat: int) -> tuple[Card, ...]:
        return _cards(self._hands[seat])

    def accounted_cards(self) -> tuple[Card, ...]:
        held = 0
        for mask in self._hands:
            held |= mask
        return _cards(held) + tuple(_CARDS[index] for index in self._plays)

    def _trick(self, number: int) -> Trick:
        """Trick ``number`` (from 0) of this hand, complete or in progress."""
        cards = self._plays[SEATS * number : SEATS * number + SEATS]
        winner = self._trick_winners[number] if number < len(self._trick_winners) else None
        return _trick(self._leaders[number], winner, cards)

    def view(self, seat: int | None) -> View:
        own = seat if seat is not None and 0 <= seat < SEATS else None
        done = len(self._trick_winners)
        tricks = tuple(self._trick(n) for n in range(done))
        last = tricks[-1] if tricks else None
        if last is None and self._phase == DEAL and self._previous_trick is not None:
            last = _trick(*self._previous_trick)
        words, offset = pass_direction(self._hand_number)
        players = tuple(
            PlayerView(
                seat=s,
                hand_size=self._hands[s].bit_count(),
                score=self._scores[s],
                tricks_taken=self._tricks_taken[s],
                points_this_hand=points_in(self._taken[s]),
            )
            for s in range(SEATS)
        )
        return View(
            game=self.game,
            seat=seat,
            seats=SEATS,
            phase=self._phase,
            hand_number=self._hand_number,
            dealer=self._dealer,
            to_act=self.to_act(),
            hand=() if own is None else self.hand(own),
            players=players,
            legal_actions=() if own is None else tuple(self.legal_actions(own)),
            trump_text="no trump",
            current_trick=self._trick(done) if len(self._leaders) > done else None,
            last_trick=last,
            tricks=tricks,
            history=tuple(
                Move(s, f"chose three cards to pass {words}")
                for s in range(SEATS)
                if self._chosen[s].bit_count() == CARDS_PASSED
            ),
            pass_direction=words,
            passed_cards=() if own is None else _cards(self._chosen[own]),
            received_cards=(
                _cards(self._received[own]) if own is not None and self._exchanged else ()
            ),
            hearts_broken=self._hearts_broken,
            hand_scores=tuple(self._hand_scores),
            scores=self.scores(),
            is_over=self._over,
            winners=self._winners,
            notes=self._notes(words, offset, own),
            end_rule=INFO.end_rule,
            last_hand=self.last_hand(),
            end_reason=self.end_reason(),
        )

    def seat_view(self, seat: int, public: View) -> View:
        if not 0 <= seat < SEATS:
            return self.view(seat)
        words, offset = pass_direction(self._hand_number)
        return own_view(
            public,
            seat=seat,
            hand=self.hand(seat),
            legal_actions=tuple(self.legal_actions(seat)),
            passed_cards=_cards(self._chosen[seat]),
            received_cards=_cards(self._received[seat]) if self._exchanged else (),
            notes=self._notes(words, offset, seat),
        )

    def _notes(self, words: str, offset: int, seat: int | None) -> tuple[str, ...]:
        notes = []
        if self._phase == PASS:
            if seat is None:
                notes.append(f"each seat passes three cards {words}")
            else:
                notes.append(f"pass three cards {words}, to seat {(seat + offset) % SEATS}")
        elif self._phase != OVER and not offset and not self._plays:
            notes.append("no passing this hand")
        if self._hearts_broken:
            notes.append("hearts are broken")
        if self._moon is not None:
            notes.append(f"seat {self._moon} shot the moon")
        if self._tied:
            notes.append("the lowest total is tied: another hand is played")
        if self._over:
            winner = self._winners[0]
            notes.append(f"seat {winner} wins with {self._scores[winner]}")
        return tuple(notes)

    def snapshot(self) -> dict[str, Any]:
        previous = self._previous_trick
        return {
            "game": self.game,
            "phase": self._phase,
            "hand_number": self._hand_number,
            "dealer": self._dealer,
            "hands": [_codes(mask) for mask in self._hands],
            "chosen": [_codes(mask) for mask in self._chosen],
            "received": [_codes(mask) for mask in self._received],
            "exchanged": self._exchanged,
            "waiting": list(self._waiting),
            "turn": self._turn,
            "plays": [str(_CARDS[index]) for index in self._plays],
            "leaders": list(self._leaders),
            "trick_winners": list(self._trick_winners),
            "hearts_broken": self._hearts_broken,
            "taken": [_codes(mask) for mask in self._taken],
            "tricks_taken": list(self._tricks_taken),
            "scores": list(self._scores),
            "hand_scores": [list(points) for points in self._hand_scores],
            "moon": self._moon,
            "tied": self._tied,
            "over": self._over,
            "winners": list(self._winners),
            "previous_trick": None
            if previous is None
            else [previous[0], previous[1], [str(_CARDS[i]) for i in previous[2]]],
        }

    def clone(self) -> HeartsState:
        # Every list in the state holds immutable values: one level of copying is enough.
        twin = HeartsState.__new__(HeartsState)
        twin.seats = self.seats
        twin._phase = self._phase
        twin._hand_number = self._hand_number
        twin._dealer = self._dealer
        twin._scores = self._scores.copy()
        twin._hand_scores = self._hand_scores.copy()
        twin._moon = self._moon
        twin._tied = self._tied
        twin._winners = self._winners
        twin._over = self._over
        twin._previous_trick = self._previous_trick
        twin._last_hand = self._last_hand
        twin._hands = self._hands.copy()
        twin._chosen = self._chosen.copy()
        twin._received = self._received.copy()
        twin._exchanged = self._exchanged
        twin._waiting = self._waiting
        twin._turn = self._turn
        twin._chance = self._chance
        twin._acting = self._acting
        twin._legal = self._legal
        twin._plays = self._plays.copy()
        twin._leaders = self._leaders.copy()
        twin._trick_winners = self._trick_winners.copy()
        twin._trick_cards = self._trick_cards
        twin._led_suit = self._led_suit
        twin._best = self._best
        twin._best_seat = self._best_seat
        twin._hearts_broken = self._hearts_broken
        twin._taken = self._taken.copy()
        twin._tricks_taken = self._tricks_taken.copy()
        return twin


class _HandFacts(NamedTuple):
    """A finished hand as plain values, kept until its HandResult is asked for.

    Building the result (its text, its last trick) at the end of every hand was
    a sixth of the cost of a random playout, which rarely asks for it.
    """

    hand_number: int
    dealer: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    tricks_taken: tuple[int, ...]
    taken: tuple[int, ...]
    moon: int | None
    tied: bool
    last_trick: tuple[int, int, tuple[int, ...]]
    queen: int | None  # the seat that took the queen of spades

    def result(self) -> HandResult:
        moon, number, taken = self.moon, self.hand_number, self.taken
        text = (
            f"hand {number}: seat {moon} shot the moon"
            if moon is not None
            else f"hand {number}: " + ", ".join(f"seat {s} took {taken[s]}" for s in range(SEATS))
        )
        if self.tied:
            text += "; the lowest total is tied: another hand is played"
        return HandResult(
            hand_number=number,
            dealer=self.dealer,
            points=self.points,
            totals=self.totals,
            tricks_taken=self.tricks_taken,
            text=text,
            detail=HeartsHandResult(
                moon_shooter=moon,
                points_taken=taken,
                pass_direction=pass_direction(number)[0],
                last_trick=_trick(*self.last_trick),
                tie_plays_on=self.tied,
                queen_of_spades_seat=self.queen,
            ),
        )


def _cards(mask: int) -> tuple[Card, ...]:
    return tuple(_CARDS[index] for index in range(52) if mask >> index & 1)


def _codes(mask: int) -> list[str]:
    return [str(card) for card in _cards(mask)]


def _card_index(action: Action, kind: ActionKind, table: tuple[Action, ...]) -> int:
    """The card index of ``action`` if it is exactly ``kind`` of a card, else -1.

    A wizard or jester keeps its index (52 and up), which no Hearts hand holds.
    """
    card = action.card
    if action.kind is not kind or card is None:
        return -1
    index = card.index
    if index >= 52:
        return index
    canonical = table[index]
    return index if action is canonical or action == canonical else -1


def _trick(leader: int, winner: int | None, cards: Sequence[int]) -> Trick:
    plays = tuple(Play((leader + n) % SEATS, _CARDS[index]) for n, index in enumerate(cards))
    led = _SUITS[_SUIT_OF[cards[0]]] if cards else None
    return Trick(leader=leader, plays=plays, winner=winner, led_suit=led)


def _new(seats: int, options: dict[str, OptionValue]) -> GameState:
    if seats != SEATS:
        raise InvalidOptions("seat count", f"Hearts seats exactly 4 players, not {seats}")
    return HeartsState()


INFO = GameInfo(
    id="hearts",
    name="Hearts (Kierki)",
    min_seats=SEATS,
    max_seats=SEATS,
    options=(),
    factory=_new,
    summary="Four players avoid hearts and the queen of spades; the lowest total wins.",
    rules_file="hearts.md",
    end_rule=EndRule(
        GameEnd.TARGET,
        WinnerRule.LOWEST_TOTAL,
        TieRule.PLAY_ON,
        f"the game ends after a hand in which a player reaches {GAME_TARGET}; the lowest "
        "total wins, and while the lowest total is tied another hand is played",
        target=GAME_TARGET,
    ),
)
