"""The Crazy 8s computer opponent: each documented behaviour decides a position."""

from __future__ import annotations

from parlour.ai.crazy8s import next_seat_lacks
from parlour.engine.cards import Card, Suit
from parlour.engine.view import Move
from tests.ai.positions import actions, decide, view

#: Seat 1 drew twice with diamonds in force before a five played: it has no diamonds.
DREW_ON_DIAMONDS = (Move(0, "play 5D"), Move(1, "draw"), Move(1, "draw"), Move(1, "play 5C"))


def turn(hand: str, *legal: str, opponent_cards: int = 5, history: tuple[Move, ...] = ()) -> str:
    size = len(hand.split())
    position = view(
        "crazy8s",
        seats=2,
        hand=hand,
        legal=actions(*legal),
        hand_sizes=[size, opponent_cards],
        top_card=Card.parse("7H"),
        suit_in_force=Suit.HEARTS,
        stock_count=20,
        history=history,
    )
    return decide("crazy8s", "normal", position)


def eights(card: str) -> list[str]:
    return [f"play {card} name {suit}" for suit in "CDHS"]


def test_sheds_the_most_expensive_card_it_can_play():
    assert turn("5H KH 3C 7S", "play 5H", "play KH", "play 7S") == "play KH"


def test_saves_its_eights_while_another_card_plays():
    assert turn("8S 2H 4C", "play 2H", *eights("8S")) == "play 2H"


def test_plays_an_eight_when_nothing_else_plays():
    assert turn("8S 2C 4C", *eights("8S")).startswith("play 8S")


def test_names_the_suit_it_holds_most_of_when_it_plays_an_eight():
    assert turn("8S 2D 5D 9D 3C", *eights("8S")) == "play 8S name D"


def test_plays_its_eight_in_the_endgame_when_an_opponent_is_about_to_go_out():
    # Caught holding an eight costs 50: unload it before the opponent goes out.
    chosen = turn("8S 2H 4C 4D", "play 2H", *eights("8S"), opponent_cards=1)
    assert chosen.startswith("play 8S")


def test_keeps_its_eight_to_go_out_on_when_the_opponent_is_not_close():
    assert turn("8S 2H", "play 2H", *eights("8S"), opponent_cards=4) == "play 2H"


def test_draws_only_when_it_must():
    assert turn("2C 4C", "draw") == "draw"


def test_remembers_a_suit_the_next_player_had_to_draw_on():
    position = view("crazy8s", seats=2, hand="2C", history=DREW_ON_DIAMONDS)
    assert next_seat_lacks(position) == {Suit.DIAMONDS}
    position = view("crazy8s", seats=2, hand="2C", history=(*DREW_ON_DIAMONDS, Move(1, "draw")))
    # What it drew since may have brought diamonds back: only the latest draws count.
    assert next_seat_lacks(position) == {Suit.CLUBS}


def test_between_equally_expensive_cards_turns_to_a_suit_the_next_player_lacks():
    assert turn("KH KD 3C", "play KH", "play KD") == "play KH"
    assert turn("KH KD 3C", "play KH", "play KD", history=DREW_ON_DIAMONDS) == "play KD"


def test_in_the_endgame_its_eight_names_a_suit_the_next_player_lacks():
    legal = ("play 5D", *eights("8S"))
    assert turn("8S 5D 6D 3C", *legal, opponent_cards=2) == "play 5D"
    chosen = turn("8S 5D 6D 3C", *legal, opponent_cards=1, history=DREW_ON_DIAMONDS)
    assert chosen == "play 8S name D"
