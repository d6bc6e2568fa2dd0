"""Crazy 8s at the terminal: naming the suit in force with an eight, and a refused card."""

from __future__ import annotations

import re
from collections.abc import Callable

from parlour.client import ParlourError
from parlour.tui.app import ParlourApp
from parlour.tui.dialogs import NameSuitScreen
from parlour.tui.moves import playable_cards
from parlour.tui.speech import why_not
from parlour.v1 import common_pb2
from tests.tui.conftest import Service, shoot, wait_until
from tests.tui.helpers import fill_seats, host_through_the_lobby, next_turn, press_and_wait
from tests.tui.players import others_playing

OTHER_SUIT = {"C": "h", "D": "s", "H": "c", "S": "d"}


def no_eights(legal: list[common_pb2.LegalAction]) -> common_pb2.LegalAction:
    """The other players keep their eights, so the eight at the terminal names the suit."""
    plain = [entry for entry in legal if not entry.action.card.startswith("8")]
    return (plain or list(legal))[0]


async def test_an_eight_names_the_suit_in_force_and_the_table_says_it_in_words(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "crazy8s", 3, {"rounds": "5"})
        others = await fill_seats(service.client, table, 2)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")  # start
        named = ""
        async with others_playing(others, no_eights) as players:
            for _ in range(400):
                await next_turn(pilot, table)
                view = table.view
                assert view is not None
                eights = [e for e in view.legal_actions if e.action.suit and e.action.card]
                if eights:
                    players.cancel()  # the table holds still after the eight
                    card = eights[0].action.card
                    while view.hand[table.cursor] != card:
                        await pilot.press("right")
                    await pilot.press("enter")
                    await wait_until(pilot, lambda: isinstance(app.screen, NameSuitScreen))
                    await shoot(pilot, "crazy8s-name-suit")
                    named = OTHER_SUIT[card[-1]]
                    await press_and_wait(pilot, table, named)
                    break
                if playable_cards(view.legal_actions):
                    key = "enter"
                else:
                    can_draw = any(e.action.text == "draw" for e in view.legal_actions)
                    key = "d" if can_draw else "p"
                await press_and_wait(pilot, table, key)
                assert not table.message.plain, table.message.plain
            assert named, "no eight came to the terminal's seat"
        words = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}[named]
        assert table.view is not None
        assert table.view.suit_in_force_text.startswith(words)
        facts = str(table.query_one("#facts").render())
        assert f"Suit in force: {words}" in facts
        await shoot(pilot, "crazy8s-suit-named")


async def test_a_refused_card_shows_the_servers_message(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "crazy8s", 2, {})
        others = await fill_seats(service.client, table, 1)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")
        async with others_playing(others, no_eights):
            while True:
                await next_turn(pilot, table)
                view = table.view
                assert view is not None
                playable = playable_cards(view.legal_actions)
                dimmed = [card for card in view.hand if card not in playable]
                if dimmed and playable:  # with no card playable, Enter draws instead
                    break
                await press_and_wait(pilot, table, "enter" if playable else "d")
                assert not table.message.plain, table.message.plain
            while view.hand[table.cursor] != dimmed[0]:
                await pilot.press("right")
            version = table.shown_version
            await pilot.press("enter")
            await wait_until(pilot, lambda: bool(table.message.plain), what="the refusal")
        # The same move through the client library gets the same answer from the server.
        try:
            await service.client.act(
                table.seat.table_id,
                table.seat.seat,
                table.seat.token,
                f"play {dimmed[0]}",
                expected_version=version,
            )
        except ParlourError as refusal:
            # the same refusal, said from its reason with cards and seats in words; just
            # after a draw the rule that refuses it is that the drawn card must be played
            drew = bool(view.must_play_card)
            assert refusal.reason == ("MUST_PLAY_DRAWN_CARD" if drew else "MUST_MATCH_SUIT_OR_RANK")
            said = why_not(refusal, table.player_name_of)
            assert table.message.plain == f"Refused: {said}"
            assert refusal.reason_args["card"] == dimmed[0]
            assert not re.search(r"\b[2-9TJQKA][CDHS]\b", said), said
            assert dimmed[0] in refusal.message
        else:
            raise AssertionError("the server accepted a card it did not list")
        assert table.shown_version == version  # nothing was played
        await shoot(pilot, "crazy8s-refused")
