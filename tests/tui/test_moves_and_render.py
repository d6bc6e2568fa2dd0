"""Keys map onto the actions the server listed; the view is drawn as sent."""

from __future__ import annotations

from rich.console import Console

from parlour.tui import render
from parlour.tui.cards import card_label, card_style
from parlour.tui.moves import (
    bid_action,
    card_actions,
    card_move_text,
    named_suit_choice,
    other_actions,
    shortcut_action,
)
from parlour.v1 import common_pb2, lobby_pb2, play_pb2

K = common_pb2


def listed(*texts: str) -> list[common_pb2.LegalAction]:
    """Legal actions as the server lists them (kind, card, suit filled from the text)."""
    suits = {"C": K.SUIT_CLUBS, "D": K.SUIT_DIAMONDS, "H": K.SUIT_HEARTS, "S": K.SUIT_SPADES}
    kinds = {
        "play": K.ACTION_KIND_PLAY,
        "bid": K.ACTION_KIND_BID,
        "pass": K.ACTION_KIND_PASS,
        "draw": K.ACTION_KIND_DRAW,
        "trump": K.ACTION_KIND_NAME_TRUMP,
        "give": K.ACTION_KIND_GIVE,
    }
    out = []
    for number, text in enumerate(texts, start=1):
        words = text.split()
        action = common_pb2.Action(kind=kinds[words[0]], text=text)
        if words[0] in ("play", "give"):
            action.card = words[1]
        if words[0] == "trump":
            action.suit = suits[words[1]]
        if "name" in words:
            action.suit = suits[words[-1]]
        out.append(common_pb2.LegalAction(id=number, action=action, label=text))
    return out


def plain(renderable: object, width: int = 80) -> str:
    console = Console(width=width, color_system=None, record=True)
    console.print(renderable)
    return console.export_text()


def test_d_draws_when_drawing_is_listed_and_names_diamonds_while_naming_trump() -> None:
    crazy = listed("play 7H", "draw")
    assert shortcut_action(crazy, "d").action.text == "draw"  # type: ignore[union-attr]
    naming = listed("trump C", "trump D", "trump H", "trump S")
    assert shortcut_action(naming, "d").action.text == "trump D"  # type: ignore[union-attr]
    assert shortcut_action(naming, "s").action.text == "trump S"  # type: ignore[union-attr]
    assert shortcut_action(crazy, "p") is None  # pass is not listed
    assert shortcut_action(listed("pass", "bid 6"), "p").action.text == "pass"  # type: ignore[union-attr]


def test_an_eight_lists_one_action_per_suit_and_a_key_picks_one() -> None:
    legal = listed(
        "play 8S name C", "play 8S name D", "play 8S name H", "play 8S name S", "play 3S"
    )
    eights = card_actions(legal, "8S")
    assert len(eights) == 4
    assert named_suit_choice(eights, "h").action.text == "play 8S name H"  # type: ignore[union-attr]
    assert named_suit_choice(eights, "x") is None


def test_a_typed_bid_finds_the_listed_bid_including_no_trump() -> None:
    legal = listed("pass", "bid 7", "bid 7NT")
    assert bid_action(legal, "7nt").id == 3  # type: ignore[union-attr]
    assert bid_action(legal, "12") is None
    assert [e.action.text for e in other_actions(legal)] == ["pass", "bid 7", "bid 7NT"]


def test_an_unlisted_card_is_sent_with_the_verb_of_the_phase() -> None:
    assert card_move_text(listed("give 2C", "give 3C"), "pass", "QS") == "give QS"
    assert card_move_text([], "pass", "QS") == "give QS"
    assert card_move_text([], "play", "QS") == "play QS"


def test_hearts_and_diamonds_are_red_and_wizards_and_jesters_are_named() -> None:
    assert card_style("QH") == card_style("2D") != card_style("QS") == card_style("TC")
    assert (card_label("TH"), card_label("W1"), card_label("N3")) == ("10♥", "wizard", "jester")


def test_cards_not_listed_are_dimmed_only_on_your_turn() -> None:
    mine = render.hand_line(["2C", "QH"], {"QH"}, 1, my_turn=True)
    dimmed = [span for span in mine.spans if "#6a6a6a" in str(span.style)]
    assert len(dimmed) == 1 and mine.plain[dimmed[0].start : dimmed[0].end] == "2♣"
    theirs = render.hand_line(["2C", "QH"], set(), 1, my_turn=False)
    assert not [span for span in theirs.spans if "#6a6a6a" in str(span.style)]


def test_the_table_states_the_suit_in_force_stock_and_trump_in_words() -> None:
    view = play_pb2.View(
        game="crazy8s",
        seat_count=2,
        top_card="8H",
        suit_in_force=K.SUIT_SPADES,
        suit_in_force_text="spades",
        stock_count=12,
    )
    text = plain(render.table_facts(view))
    assert "Top card: 8♥" in text and "Suit in force: spades" in text and "Stock: 12 cards" in text
    wizard = play_pb2.View(game="wizard", trump_text="no trump", turned_card="N2")
    assert "Trump: no trump" in plain(render.table_facts(wizard))
    assert "Turned card: jester" in plain(render.table_facts(wizard))


def test_scores_by_hand_show_each_finished_hand_and_the_totals() -> None:
    view = play_pb2.View(
        game="wizard",
        seat=0,
        seat_count=3,
        players=[play_pb2.Player(seat=n, player_name=f"P{n}") for n in range(3)],
        hand_scores=[
            play_pb2.HandScore(points=[20, -10, 30]),
            play_pb2.HandScore(points=[-10, 40, 20]),
        ],
        scores=[10, 30, 50],
    )
    lines = [line.split() for line in plain(render.scores_table(view, width=60)).splitlines()]
    assert lines == [
        ["hand", "you", "P1", "P2"],
        ["1", "20", "-10", "30"],
        ["2", "-10", "40", "20"],
        ["total", "10", "30", "50"],
    ]
    assert ["1", "20", "-10", "30"] not in [
        line.split() for line in plain(render.scores_table(view, last=1, width=60)).splitlines()
    ]
    # a computer player's column is headed by its name, without its level
    view.players[2].player_name, view.players[2].kind = "Bot 3 (normal)", lobby_pb2.SEAT_KIND_BOT
    head = plain(render.scores_table(view, width=60)).splitlines()[0].split()
    assert head == ["hand", "you", "P1", "Bot", "3"]
