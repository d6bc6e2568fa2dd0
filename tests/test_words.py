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
    say_action,
    say_cards,
    say_event,
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


def test_an_action_is_said_in_either_form_by_one_function() -> None:
    assert say_action("play", "W1") == "play wizard"
    assert say_action("play", "N2", form="past") == "played jester"
    assert say_action("play", "8S", suit="H", form="past") == "played 8♠ and named hearts"
    assert say_action("give", "QS KH", form="label") == "give Q♠, K♥"
    assert say_action("give", "QS KH", form="past") == "chose Q♠, K♥ to pass"
    assert say_action("trump", suit="S") == "trump: spades"
    assert (say_action("draw"), say_action("draw", form="past")) == ("draw a card", "drew a card")
    assert (say_action("pass"), say_action("pass", form="past")) == ("pass", "passed")
    for kind in ("play", "give", "bid", "trump", "draw", "pass"):
        fields = {"card": "TH", "number": 3, "suit": "C"}
        assert action_label(kind, **fields) == say_action(kind, **fields, form="label")
        assert past_tense(kind, **fields) == say_action(kind, **fields, form="past")


def test_wizards_jesters_and_typed_tens_are_said_as_cards() -> None:
    assert say_cards("W3 beats N1, then W4") == "wizard beats jester, then wizard"
    assert say_cards("cannot play N2: follow T♥") == "cannot play jester: follow 10♥"
    # the game's name is a name, not a card
    assert say_cards("Ada's Wizard table") == "Ada's Wizard table"


def test_an_event_is_a_sentence_with_cards_said() -> None:
    assert say_event("seat 2 played W1", seat=2, done="played wizard") == "Seat 2 played wizard"
    assert say_event("Ada took seat 0", seat=0) == "Ada sat down"
    assert say_event("the game started") == "The game started"
    assert say_event("seat 1 chose a card to pass", seat=1) == "Seat 1 chose a card to pass"
