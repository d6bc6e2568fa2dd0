"""The terminal client in English and Polish: the language from the locale, the
table's words from the catalogue, refusals from their reason, names that fit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from parlour.client import ParlourError
from parlour.tui import render
from parlour.tui.app import ParlourApp
from parlour.tui.lobby import LobbyScreen, default_name
from parlour.tui.speech import next_language, system_language, use, why_not
from parlour.v1 import catalogue_pb2, lobby_pb2, play_pb2
from tests.tui.conftest import Service, wait_until
from tests.tui.helpers import fill_seats, host_through_the_lobby
from tests.tui.test_moves_and_render import plain


@pytest.fixture
def polish() -> Iterator[None]:
    use("pl")
    yield
    use("en")


def test_the_language_comes_from_the_locale() -> None:
    assert system_language({"LANG": "pl_PL.UTF-8"}) == "pl"
    assert system_language({"LC_ALL": "en_GB.UTF-8", "LANG": "pl_PL.UTF-8"}) == "en"
    assert system_language({"LC_ALL": "C", "LANG": "pl_PL"}) == "pl"
    assert system_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert system_language({}) == "en"
    assert next_language() == "pl"


def test_the_table_is_said_in_polish(polish: None) -> None:
    view = play_pb2.View(
        game="kaiser",
        seat=0,
        phase="bid",
        trump_text="no trump",
        players=[play_pb2.Player(seat=n, player_name=f"P{n}") for n in range(4)],
        to_act=[0],
        stock_count=5,
    )
    facts = plain(render.table_facts(view))
    assert "Atut: bez atu" in facts
    assert "Talia: 5 kart" in facts
    assert plain(render.whose_turn(view)).strip() == "Twój ruch."
    assert render.phase_words("bid") == "licytacja"
    assert render.seat_name(view, 0) == "ty" and render.player_name(view, 0) == "P0"
    assert default_name() == "Gracz"


def test_no_trump_line_in_a_game_without_trumps() -> None:
    hearts = play_pb2.View(game="hearts", trump_text="no trump", hearts_broken=False)
    assert "Trump" not in plain(render.table_facts(hearts))
    assert "Hearts: not broken" in plain(render.table_facts(hearts))
    assert default_name() == "Player"


def test_a_refusal_is_said_from_its_reason_in_either_language(polish: None) -> None:
    view = play_pb2.View(game="hearts", seat=1, players=[play_pb2.Player(seat=n) for n in range(4)])
    error = ParlourError(
        grpc.StatusCode.FAILED_PRECONDITION,
        "must follow suit: seat 1 holds clubs and cannot play QS on a club lead",
        "MUST_FOLLOW_SUIT",
        {"seat": "1", "card": "QS", "led": "C"},
    )
    name = lambda seat: render.player_name(view, seat)  # noqa: E731
    assert why_not(error, name) == "Musisz dołożyć do koloru (trefl): nie możesz teraz zagrać D♠."
    use("en")
    assert why_not(error, name) == "You must follow suit (clubs): Q♠ cannot be played now."
    # a refusal with no reason (an older server) is its message, cards said, never "you holds"
    error.reason = ""
    assert (
        why_not(error, name)
        == "must follow suit: Seat 2 holds clubs and cannot play Q♠ on a club lead"
    )


def test_score_columns_keep_the_seats_apart_when_names_are_cut() -> None:
    view = play_pb2.View(
        game="hearts",
        seat=0,
        seat_count=4,
        players=[
            play_pb2.Player(seat=n, player_name=f"Bot {n} (normal)", kind=lobby_pb2.SEAT_KIND_BOT)
            for n in range(1, 4)
        ],
    )
    view.players.insert(0, play_pb2.Player(seat=0, player_name="Ada"))
    for n, player in enumerate(view.players):
        player.seat = n
    assert render.score_headers(view, 10) == ["you", "Bot 1", "Bot 2", "Bot 3"]
    narrow = render.score_headers(view, 3)
    assert len(set(narrow)) == 4 and all(len(h) <= 3 for h in narrow), narrow
    assert "Bo…" not in narrow


SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "tui"


async def screen(pilot: Pilot[None], name: str) -> None:
    """Save an SVG capture of the screen under build/screens/tui (not committed)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    await pilot.pause(0.05)
    pilot.app.save_screenshot(f"{name}.svg", str(SCREENS))


@pytest.mark.parametrize(
    ("language", "kierki", "table_words", "refusal"),
    [
        ("en", "## Hearts (Kierki)", "Hearts: not broken", "Refused: Choose three cards"),
        ("pl", "Kierki\n\nGrana wersja", "Kiery: nieotwarte", "Odmowa: Przed rozpoczęciem gry"),
    ],
)
async def test_a_hearts_table_in_the_players_language(
    service: Service,
    tmp_path: Path,
    language: str,
    kierki: str,
    table_words: str,
    refusal: str,
) -> None:
    app = ParlourApp(service.address, state_dir=tmp_path / "state", language=language)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.games)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        lobby.query_one("#games", OptionList).focus()
        while (lobby.highlighted_game() or catalogue_pb2.GameInfo()).id != "hearts":
            await pilot.press("down")
        # the Polish original of Kierki in Polish; the English rules in English
        await wait_until(pilot, lambda: kierki in lobby.rules_shown().source, what="the rules")
        await screen(pilot, f"lobby-rules-hearts-{language}")
        table = await host_through_the_lobby(pilot, "hearts", 4, {})
        await fill_seats(service.client, table, 3)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")  # the host starts the game
        await wait_until(pilot, lambda: table.view.phase == "pass", what="the pass")
        facts = str(table.query_one("#facts").render())
        assert table_words in facts and "Trump" not in facts and "Atut" not in facts
        labels = [legal.label for legal in table.view.legal_actions]
        assert all(label.startswith("give " if language == "en" else "oddaj ") for label in labels)
        await screen(pilot, f"hearts-table-{language}")
        table.send("play 2C")  # before the pass: refused, and said why in one line
        await wait_until(pilot, lambda: bool(table.message.plain), what="the refusal")
        assert table.message.plain.startswith(refusal), table.message.plain
        await screen(pilot, f"hearts-refusal-{language}")
        await pilot.press("f2")  # the switch: the other language at once
        await wait_until(pilot, lambda: app.language != language)
        await screen(pilot, f"hearts-table-switched-from-{language}")
