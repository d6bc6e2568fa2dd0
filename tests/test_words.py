"""The phrasebook: cards, seats and actions as people say them."""

from __future__ import annotations

from parlour.words import (
    action_label,
    card_name,
    card_words,
    option_label,
    option_value,
    past_tense,
    say,
    seat_namer,
)


def test_cards_are_said_not_coded() -> None:
    assert [card_name(c) for c in ("TH", "QS", "2C", "W1", "N4")] == [
        "10♥",
        "Q♠",
        "2♣",
        "wizard",
        "jester",
    ]
    assert card_words("QS") == "queen of spades" and card_words("TD") == "10 of diamonds"


def test_server_text_is_said_with_cards_and_names() -> None:
    name = seat_namer(["Ada", "Bo", ""])
    assert say("seat 1 cannot lead TH: hearts not broken", name) == (
        "Bo cannot lead 10♥: hearts not broken"
    )
    assert say("seat 2 played N2", name) == "Seat 3 played jester"
    assert say("Ada took seat 0") == "Ada sat down"
    assert say("bid 9NT") == "bid 9 no trump"
    # words that merely look like codes inside other words are left alone
    assert say("THE END") == "THE END"


def test_actions_options_and_events_in_words() -> None:
    assert action_label("play", "8S", suit="H") == "play 8♠, name hearts"
    assert action_label("bid", number=7, no_trump=True) == "bid 7 no trump"
    assert action_label("give", "W3") == "give wizard"
    assert past_tense("trump", suit="D") == "named diamonds trump"
    assert past_tense("give") == "chose a card to pass"
    assert option_label("screw_the_dealer") == "Screw the dealer"
    assert (option_value("false"), option_value("no_passing")) == ("no", "no passing")
