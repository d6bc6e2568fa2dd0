"""Kaiser: the prairie partnership game of the five of hearts and the three of spades.

Enforces ``../shared/rules/kaiser.md`` (copied to ``rules/kaiser.md``), completed
by the "All games" and "Kaiser" sections of ``rules/rulings.md``:

- four seats in two sides, seats 0 and 2 against 1 and 3; the deal (of hand 1 by
  seat 0) passes left each hand, eight cards each, one at a time from the
  dealer's left;
- one round of bidding from the dealer's left, the dealer last; every bid beats
  the standing one on the ladder 6 < 6NT < 7 < 7NT < ... < 10NT (from the floor);
  after three passes the dealer must bid; four passes (unreachable in play) redeal;
- the winning bidder names trump (a no-trump bid names none) and leads the first
  trick; the winner of a trick leads the next; follow suit if able; no bowers;
- a hand is worth ten: a point a trick, +5 for the five of hearts, -3 for the
  three of spades;
- a side that makes its bid scores all it took (double at no trump), one that
  goes down loses the bid (double at no trump); defenders keep what they took;
- after a hand, a side at or above the target wins, a side at or below minus the
  target loses, and when both reach the target the bidding side wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parlour.engine.actions import Action, ActionKind
from parlour.engine.base import GameState
from parlour.engine.cards import SUITS, Card, Rank, Suit, kaiser_deck
from parlour.engine.errors import IllegalAction
from parlour.engine.options import OptionSpec, OptionType, OptionValue, resolve_options
from parlour.engine.registry import GameInfo
from parlour.engine.results import (
    EndReason,
    EndRule,
    GameEnd,
    HandResult,
    KaiserHandResult,
    TieRule,
    WinnerRule,
)
from parlour.engine.trick import Play, Trick
from parlour.engine.view import Move, PlayerView, View, own_view

SEATS = 4
CEILING = 10
HAND_SIZE = 8
FIVE_OF_HEARTS = Card(Rank.FIVE, Suit.HEARTS)
THREE_OF_SPADES = Card(Rank.THREE, Suit.SPADES)


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid: a number of points, with a suit to be named or at no trump."""

    number: int
    no_trump: bool = False

    # Copied and pickled by its fields through the constructor (compiled by mypyc, a frozen
    # dataclass cannot be rebuilt field by field).
    def __reduce__(self) -> tuple[type[Bid], tuple[int, bool]]:
        return (Bid, (self.number, self.no_trump))

    @property
    def rung(self) -> int:
        """Place on the ladder: 6 < 6NT < 7 < 7NT ..., so 7 beats 6NT."""
        return self.number * 2 + int(self.no_trump)

    @property
    def action(self) -> Action:
        return Action.bid(self.number, self.no_trump)

    @property
    def words(self) -> str:
        return f"{self.number} no trump" if self.no_trump else str(self.number)

    def __str__(self) -> str:
        return f"{self.number}{'NT' if self.no_trump else ''}"


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0; seats 1 and 3 are team 1."""
    return seat % 2


def side_words(team: int) -> str:
    return f"seats {team} and {team + 2}"


def trick_points(cards: list[Card] | tuple[Card, ...]) -> int:
    """One for the trick, +5 for the five of hearts, -3 for the three of spades."""
    points = 1
    if FIVE_OF_HEARTS in cards:
        points += 5
    if THREE_OF_SPADES in cards:
        points -= 3
    return points


def trick_winner(plays: list[Play] | tuple[Play, ...], trump: Suit | None) -> int:
    """Highest trump if any was played, else the highest card of the led suit."""
    led = plays[0].card.suit
    in_force = trump if any(p.card.suit is trump for p in plays) else led
    best = max((p for p in plays if p.card.suit is in_force), key=lambda p: p.card.rank)
    return best.seat


class KaiserState(GameState):
    """A game of Kaiser in progress."""

    game = "kaiser"

    def __init__(self, seats: int = SEATS, options: dict[str, OptionValue] | None = None) -> None:
        # (Defaults only so that, compiled by mypyc, the state can be copied and pickled:
        # that calls __init__ without arguments before restoring every field.)
        if options is None:
            options = resolve_options(OPTIONS, None)
        self.seats = seats
        self.floor = int(options["floor"])
        self.no_trump_allowed = bool(options["no_trump"])
        self.target = int(options["target"])
        self.phase = "deal"  # "deal", "bid", "trump", "play", "over"
        self.hand_number = 1
        self.dealer = 0
        self.redeals = 0  # of the current hand, after four passes
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.calls: list[tuple[int, Bid | None]] = []  # this hand's bidding; None = pass
        self.bidder: int | None = None
        self.contract: Bid | None = None
        self.trump: Suit | None = None
        self.tricks: list[Trick] = []  # completed tricks of this hand
        self.leader = 0
        self.plays: list[Play] = []  # the trick on the table
        self.team_scores = [0, 0]
        self.hand_scores: list[tuple[int, ...]] = []
        self.last_result = ""
        self.winning_team: int | None = None
        self._last_hand: HandResult | None = None
        self._end_reason: EndReason | None = None

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str],
        *,
        dealer: int = 0,
        hand_number: int = 1,
        scores: Sequence[int] = (0, 0),
        **options: Any,
    ) -> KaiserState:
        """A hand already dealt, for tests and study: the bidding is next.

        ``hands`` holds the four seats' eight cards ("5H 3S AC ..."), ``scores``
        the two sides' totals (team 0 is seats 0 and 2). Options as the catalogue's.
        """
        option_values = {spec.name: options.get(spec.name, spec.default) for spec in OPTIONS}
        state = cls(len(hands), option_values)
        state.dealer = dealer
        state.hand_number = hand_number
        state.team_scores = list(scores)
        state.hands = [sorted(Card.parse(code) for code in hand.split()) for hand in hands]
        state.phase = "bid"
        return state

    # -- chance ---------------------------------------------------------------
    def chance(self) -> tuple[Card, ...] | None:
        return kaiser_deck() if self.phase == "deal" else None

    def deal_order(self) -> tuple[int | None, ...]:
        return tuple((self.dealer + 1 + i) % self.seats for i in range(len(kaiser_deck())))

    def _deal(self, deck: tuple[Card, ...]) -> None:
        hands: list[list[Card]] = [[] for _ in range(self.seats)]
        for i, card in enumerate(deck):
            hands[(self.dealer + 1 + i) % self.seats].append(card)
        self.hands = [sorted(hand) for hand in hands]
        self.calls, self.bidder, self.contract, self.trump = [], None, None, None
        self.tricks, self.plays = [], []
        self.phase = "bid"

    # -- turns ----------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        if self.phase == "bid":
            return ((self.dealer + 1 + len(self.calls)) % self.seats,)
        if self.phase == "trump":
            assert self.bidder is not None
            return (self.bidder,)
        if self.phase == "play":
            return ((self.leader + len(self.plays)) % self.seats,)
        return ()

    @property
    def standing(self) -> Bid | None:
        """The highest bid so far this hand."""
        bids = [bid for _, bid in self.calls if bid is not None]
        return max(bids, key=lambda bid: bid.rung) if bids else None

    def _dealer_forced(self) -> bool:
        return len(self.calls) == self.seats - 1 and self.standing is None

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase == "bid":
            standing = self.standing
            floor_rung = Bid(self.floor).rung
            above = floor_rung if standing is None else max(floor_rung, standing.rung + 1)
            actions = [] if self._dealer_forced() else [Action.pass_()]
            return actions + [bid.action for bid in self._ladder() if bid.rung >= above]
        if self.phase == "trump":
            return [Action.name_trump(suit) for suit in SUITS]
        return [Action.play(card) for card in self._playable(seat)]

    def _ladder(self) -> list[Bid]:
        kinds = (False, True) if self.no_trump_allowed else (False,)
        return [Bid(n, nt) for n in range(self.floor, CEILING + 1) for nt in kinds]

    def _playable(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        if self.plays:
            led = self.plays[0].card.suit
            following = [card for card in hand if card.suit is led]
            if following:
                return following
        return list(hand)

    def _apply(self, seat: int, action: Action) -> None:
        if self.phase == "bid":
            self._call(seat, action)
        elif self.phase == "trump":
            self._name_trump(seat, action)
        else:
            self._play(seat, action)

    # -- bidding --------------------------------------------------------------
    def _call(self, seat: int, action: Action) -> None:
        if action.kind is ActionKind.PASS:
            if self._dealer_forced():
                raise IllegalAction(
                    "the dealer must bid when the first three pass",
                    f"seat {seat} deals and the other three passed, so seat {seat} must bid "
                    f"at least {self.floor}",
                    reason="DEALER_MUST_BID",
                    seat=seat,
                    floor=self.floor,
                )
            self.calls.append((seat, None))
        elif action.kind is ActionKind.BID and action.number is not None:
            bid = Bid(action.number, action.no_trump)
            self._check_bid(seat, bid)
            self.calls.append((seat, bid))
        else:
            raise IllegalAction(
                "bidding",
                f"seat {seat} must bid or pass now, not {action}",
                reason="MUST_BID_OR_PASS",
                seat=seat,
            )
        if len(self.calls) == self.seats:
            self._end_bidding()

    def _check_bid(self, seat: int, bid: Bid) -> None:
        if bid.no_trump and not self.no_trump_allowed:
            raise IllegalAction(
                "no trump is off at this table",
                f"seat {seat} cannot bid {bid}; bid a number",
                reason="NO_TRUMP_IS_OFF",
                seat=seat,
                bid=bid,
            )
        if bid.number < self.floor:
            raise IllegalAction(
                f"the floor is {self.floor}",
                f"seat {seat} cannot bid {bid}: the lowest bid is {self.floor}",
                reason="BID_BELOW_FLOOR",
                seat=seat,
                bid=bid,
                floor=self.floor,
            )
        if bid.number > CEILING:
            raise IllegalAction(
                "the ceiling is ten",
                f"seat {seat} cannot bid {bid}: a hand is worth only ten points",
                reason="BID_ABOVE_CEILING",
                seat=seat,
                bid=bid,
            )
        standing = self.standing
        if standing is not None and bid.rung <= standing.rung:
            holder = next(s for s, b in self.calls if b == standing)
            raise IllegalAction(
                "each bid must beat the one before",
                f"seat {seat} bid {bid} but the standing bid is {standing} by seat {holder}",
                reason="BID_TOO_LOW",
                seat=seat,
                bid=bid,
                standing=standing,
                holder=holder,
            )

    def _end_bidding(self) -> None:
        """Close the round: the best bid takes the contract; four passes redeal.

        Four passes cannot happen through ``apply`` (the dealer's bid is forced);
        the redeal is kept for a position built by hand, and tested that way.
        """
        standing = self.standing
        if standing is None:
            self.redeals += 1
            self.hands = [[] for _ in range(self.seats)]
            self.calls = []
            self.phase = "deal"
            return
        self.bidder = next(seat for seat, bid in self.calls if bid == standing)
        self.contract = standing
        self.leader = self.bidder
        self.phase = "play" if standing.no_trump else "trump"

    def _name_trump(self, seat: int, action: Action) -> None:
        if action.kind is not ActionKind.NAME_TRUMP or action.suit is None:
            raise IllegalAction(
                "the bidder names trump",
                f"seat {seat} must name trump now, not {action}",
                reason="BIDDER_NAMES_TRUMP",
                seat=seat,
            )
        self.trump = action.suit
        self.phase = "play"

    # -- play -----------------------------------------------------------------
    def _play(self, seat: int, action: Action) -> None:
        card = action.card
        if action.kind is not ActionKind.PLAY or card is None or action.suit is not None:
            raise IllegalAction(
                "play a card",
                f"seat {seat} must play a card now, not {action}",
                reason="MUST_PLAY_A_CARD",
                seat=seat,
            )
        if card not in self.hands[seat]:
            raise IllegalAction(
                "card not in hand",
                f"seat {seat} does not hold {card}",
                reason="CARD_NOT_IN_HAND",
                seat=seat,
                card=card,
            )
        if card not in self._playable(seat):
            led = self.plays[0].card.suit
            raise IllegalAction(
                "must follow suit",
                f"seat {seat} holds {led.word} and cannot play {card} on a "
                f"{led.word.rstrip('s')} lead",
                reason="MUST_FOLLOW_SUIT",
                seat=seat,
                card=card,
                led=led,
            )
        self.hands[seat].remove(card)
        self.plays.append(Play(seat, card))
        if len(self.plays) == self.seats:
            self._close_trick()

    def _close_trick(self) -> None:
        plays = tuple(self.plays)
        winner = trick_winner(plays, self.trump)
        self.tricks.append(Trick(self.leader, plays, winner, plays[0].card.suit))
        self.plays = []
        self.leader = winner
        if len(self.tricks) == HAND_SIZE:
            self._score_hand()

    # -- scoring --------------------------------------------------------------
    def points_taken(self, seat: int) -> int:
        """Points ``seat`` has taken in this hand's completed tricks."""
        return sum(
            trick_points([p.card for p in trick.plays])
            for trick in self.tricks
            if trick.winner == seat
        )

    def side_points(self, team: int) -> int:
        return self.points_taken(team) + self.points_taken(team + 2)

    def _score_hand(self) -> None:
        assert self.bidder is not None and self.contract is not None
        bidders = team_of(self.bidder)
        defenders = 1 - bidders
        took = [self.side_points(0), self.side_points(1)]
        times = 2 if self.contract.no_trump else 1
        made = took[bidders] >= self.contract.number
        change = [0, 0]
        change[bidders] = took[bidders] * times if made else -self.contract.number * times
        change[defenders] = took[defenders]
        for team in (0, 1):
            self.team_scores[team] += change[team]
        self.hand_scores.append(tuple(change[team_of(seat)] for seat in range(self.seats)))
        self.last_result = (
            f"hand {self.hand_number}: {side_words(bidders)} bid {self.contract.words}, "
            f"took {took[bidders]} and {'made it' if made else 'went down'} "
            f"({change[bidders]:+d}); {side_words(defenders)} took {took[defenders]} "
            f"({change[defenders]:+d})"
        )
        self._last_hand = HandResult(
            hand_number=self.hand_number,
            dealer=self.dealer,
            points=self.hand_scores[-1],
            totals=self.scores(),
            tricks_taken=tuple(
                sum(1 for trick in self.tricks if trick.winner == s) for s in range(self.seats)
            ),
            text=self.last_result,
            detail=KaiserHandResult(
                bidder=self.bidder,
                bid=self.contract.number,
                no_trump=self.contract.no_trump,
                trump=self.trump,
                made=made,
                points_taken=(took[0], took[1]),
                score_change=(change[0], change[1]),
                five_of_hearts_seat=self._taker_of(FIVE_OF_HEARTS),
                three_of_spades_seat=self._taker_of(THREE_OF_SPADES),
            ),
        )
        self.winning_team = self._side_that_wins(bidders)
        if self.winning_team is not None:
            reached = max(self.team_scores) >= self.target
            self._end_reason = (
                EndReason.TARGET_REACHED if reached else EndReason.FELL_TO_MINUS_TARGET
            )
            self.phase = "over"
            return
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % self.seats
        self.redeals = 0
        self.phase = "deal"

    def _taker_of(self, card: Card) -> int | None:
        """The seat that took ``card`` in this hand's tricks (None if nobody did)."""
        for trick in self.tricks:
            if any(play.card == card for play in trick.plays):
                return trick.winner
        return None

    def _side_that_wins(self, bidders: int) -> int | None:
        """The end test, made only after a hand (None: play on)."""
        reached = [team for team in (0, 1) if self.team_scores[team] >= self.target]
        if len(reached) == 2:
            return bidders
        if reached:
            return reached[0]
        fallen = [team for team in (0, 1) if self.team_scores[team] <= -self.target]
        if len(fallen) == 1:
            return 1 - fallen[0]
        if fallen:
            # Both sides cannot fall in one hand (one of them always gains), but a
            # position built by hand could: the higher total wins, the bidders on a tie.
            low = self.team_scores
            return bidders if low[0] == low[1] else int(low[1] > low[0])
        return None

    def scores(self) -> tuple[int, ...]:
        return tuple(self.team_scores[team_of(seat)] for seat in range(self.seats))

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def winners(self) -> tuple[int, ...]:
        if self.winning_team is None:
            return ()
        return (self.winning_team, self.winning_team + 2)

    def end_rule(self) -> EndRule:
        return EndRule(
            GameEnd.TARGET,
            WinnerRule.HIGHEST_TOTAL,
            TieRule.BIDDING_SIDE_WINS,
            f"a side at {self.target} or more after a hand wins, one at {-self.target} or "
            "less loses; if both sides reach the target, the bidding side wins",
            target=self.target,
            target_option="target",
            loses_at_minus_target=True,
            partnerships=True,
        )

    def last_hand(self) -> HandResult | None:
        return self._last_hand

    def end_reason(self) -> EndReason | None:
        return self._end_reason

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.hands[seat])

    def accounted_cards(self) -> tuple[Card, ...]:
        cards = [card for hand in self.hands for card in hand]
        cards += [p.card for trick in self.tricks for p in trick.plays]
        return tuple(cards + [p.card for p in self.plays])

    # -- what can be seen -----------------------------------------------------
    def trump_text(self) -> str:
        if self.contract is not None and self.contract.no_trump:
            return "no trump"
        if self.trump is not None:
            return self.trump.word
        return "not yet named" if self.phase in ("bid", "trump") else ""

    def contract_text(self) -> str:
        if self.contract is None or self.bidder is None:
            return ""
        if self.contract.no_trump:
            return f"seat {self.bidder} bid {self.contract.words}"
        return f"seat {self.bidder} bid {self.contract.words}, trump {self.trump_text()}"

    def _bid_text(self, seat: int) -> str:
        for caller, bid in self.calls:
            if caller == seat:
                return "pass" if bid is None else str(bid)
        return ""

    def _history(self) -> tuple[Move, ...]:
        moves = [Move(seat, "pass" if bid is None else str(bid.action)) for seat, bid in self.calls]
        if self.bidder is not None and self.trump is not None:
            moves.append(Move(self.bidder, str(Action.name_trump(self.trump))))
        return tuple(moves)

    def _notes(self) -> tuple[str, ...]:
        notes = [f"target {self.target}; lose at {-self.target}"]
        if self.redeals:
            notes.append("all four passed: the same dealer deals the hand again")
        if self.contract is not None and self.bidder is not None and self.phase != "over":
            bidders = team_of(self.bidder)
            if self.tricks and len(self.tricks) < HAND_SIZE:
                notes.append(
                    f"{side_words(bidders)} have {self.side_points(bidders)} of the "
                    f"{self.contract.number} they bid"
                )
        if self.last_result:
            notes.append(self.last_result)
        if self.winning_team is not None:
            notes.append(f"{side_words(self.winning_team)} win")
        return tuple(notes)

    def seat_view(self, seat: int, public: View) -> View:
        if not 0 <= seat < self.seats:
            return self.view(seat)
        return own_view(
            public, seat=seat, hand=self.hand(seat), legal_actions=tuple(self.legal_actions(seat))
        )

    def view(self, seat: int | None) -> View:
        players = tuple(
            PlayerView(
                seat=s,
                hand_size=len(self.hands[s]),
                score=self.team_scores[team_of(s)],
                tricks_taken=sum(1 for trick in self.tricks if trick.winner == s),
                bid=self._bid_text(s),
                team=team_of(s),
                points_this_hand=self.points_taken(s),
            )
            for s in range(self.seats)
        )
        current = Trick(self.leader, tuple(self.plays)) if self.phase == "play" else None
        return View(
            game=self.game,
            seat=seat,
            seats=self.seats,
            phase=self.phase,
            hand_number=self.hand_number,
            dealer=self.dealer,
            to_act=self.to_act(),
            hand=() if seat is None else self.hand(seat),
            players=players,
            legal_actions=() if seat is None else tuple(self.legal_actions(seat)),
            trump=self.trump,
            trump_text=self.trump_text(),
            current_trick=current,
            last_trick=self.tricks[-1] if self.tricks else None,
            tricks=tuple(self.tricks),
            history=self._history(),
            contract=self.contract_text(),
            hand_scores=tuple(self.hand_scores),
            scores=self.scores(),
            is_over=self.is_over,
            winners=self.winners(),
            notes=self._notes(),
            end_rule=self.end_rule(),
            last_hand=self._last_hand,
            end_reason=self._end_reason,
        )

    def snapshot(self) -> dict[str, Any]:
        def trick_data(trick: Trick) -> dict[str, Any]:
            plays = [[p.seat, str(p.card)] for p in trick.plays]
            return {"leader": trick.leader, "plays": plays, "winner": trick.winner}

        return {
            "game": self.game,
            "seats": self.seats,
            "options": {
                "floor": self.floor,
                "no_trump": self.no_trump_allowed,
                "target": self.target,
            },
            "phase": self.phase,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "redeals": self.redeals,
            "hands": [[str(card) for card in hand] for hand in self.hands],
            "calls": [[seat, None if bid is None else str(bid)] for seat, bid in self.calls],
            "bidder": self.bidder,
            "contract": None if self.contract is None else str(self.contract),
            "trump": None if self.trump is None else str(self.trump),
            "tricks": [trick_data(trick) for trick in self.tricks],
            "leader": self.leader,
            "plays": [[p.seat, str(p.card)] for p in self.plays],
            "team_scores": list(self.team_scores),
            "hand_scores": [list(scores) for scores in self.hand_scores],
            "last_result": self.last_result,
            "winning_team": self.winning_team,
        }


OPTIONS = (
    OptionSpec(
        "floor", OptionType.INT, 6, (5, 6, 7, 8), "the lowest bid allowed (ten is the ceiling)"
    ),
    OptionSpec(
        "no_trump",
        OptionType.BOOL,
        True,
        (True, False),
        "allow no-trump bids: they outrank the same number and pay and cost double",
    ),
    OptionSpec(
        "target",
        OptionType.INT,
        52,
        (32, 52, 62),
        "points to win; a side that falls to minus this loses",
    ),
)

INFO = GameInfo(
    id="kaiser",
    name="Kaiser",
    min_seats=SEATS,
    max_seats=SEATS,
    options=OPTIONS,
    factory=KaiserState,
    summary=(
        "Prairie partnership trick-taker with a 32-card deck: bid for points, "
        "chase the five of hearts, duck the three of spades."
    ),
    rules_file="kaiser.md",
    end_rule=EndRule(
        GameEnd.TARGET,
        WinnerRule.HIGHEST_TOTAL,
        TieRule.BIDDING_SIDE_WINS,
        "a side at the target (the target option) or more after a hand wins, one at minus "
        "the target or less loses; if both sides reach the target, the bidding side wins",
        target_option="target",
        loses_at_minus_target=True,
        partnerships=True,
    ),
)
