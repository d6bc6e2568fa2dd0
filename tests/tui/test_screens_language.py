"""The terminal's setup, table, hand summary and game-over screens and their footers in
English and
Polish (issue 32), driven with Textual's pilot. Every word comes from the
phrasebook: each screen is captured in both languages (SVG and its text, under
build/screens/tui/) and checked for its words in that language and for no words
of the other."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Footer, OptionList

from parlour.tui.app import ParlourApp
from parlour.tui.dialogs import InfoScreen, NameSuitScreen
from parlour.tui.endgame import GameOverScreen
from parlour.tui.lobby import LobbyScreen
from parlour.tui.saved import SavedSeat
from parlour.tui.setup import SetupScreen
from parlour.tui.speech import use
from parlour.tui.summary import HandSummaryScreen, describe_hand
from parlour.v1 import catalogue_pb2, common_pb2, play_pb2
from tests.tui.conftest import Service, wait_until
from tests.tui.helpers import host_through_the_lobby
from tests.tui.test_hand_results import table_view

SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens" / "tui"
SIZE = (100, 34)
_TEXT = re.compile(r'<text [^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>')


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    use("en")


def svg_text(svg: str) -> str:
    """The characters of a Textual SVG screenshot, row by row."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, chunk in _TEXT.findall(svg):
        rows.setdefault(float(y), []).append((float(x), html.unescape(chunk).replace("\xa0", " ")))
    return "\n".join(
        "".join(chunk for _, chunk in sorted(row)).rstrip() for _, row in sorted(rows.items())
    )


async def capture(pilot: Pilot[None], name: str) -> str:
    """The screen as SVG and as text, saved under build/screens/tui; its text."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    screen = pilot.app.screen
    if screen.query(Footer):  # its keys are drawn a moment after the screen
        await wait_until(pilot, lambda: bool(screen.query("FooterKey")), what="the footer")
    await pilot.pause(0.2)
    svg = pilot.app.export_screenshot()
    (SCREENS / f"{name}.svg").write_text(svg, encoding="utf-8")
    text = svg_text(svg)
    (SCREENS / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    return text


def app_in(service: Service, tmp_path: Path, language: str) -> ParlourApp:
    return ParlourApp(service.address, state_dir=tmp_path / "state", language=language)


async def open_setup(pilot: Pilot[None], game: str) -> SetupScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.games))
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    lobby.query_one("#games", OptionList).focus()
    while lobby.highlighted_game() is None or lobby.highlighted_game().id != game:  # type: ignore[union-attr]
        await pilot.press("down")
    await pilot.press("h")
    await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen))
    assert isinstance(app.screen, SetupScreen)
    return app.screen


SETUP_WORDS = {
    "en": (
        "Host a table of Kaiser",
        "Your name",
        "Seats",
        "Options",
        "you (the host)",
        "computer: normal",
        "the lowest bid allowed (ten is the ceiling)",
        "Back",
        "Host table",
    ),
    "pl": (
        "Załóż stół: Kaiser",
        "Twoje imię",
        "Miejsca",
        "Opcje",
        "ty (gospodarz)",
        "Najniższa dozwolona licytacja",
        "Wstecz",
        "Załóż stół",
    ),
}


@pytest.mark.parametrize("language", ["en", "pl"])
async def test_the_setup_screen_and_its_footer_speak_the_language(
    service: Service, tmp_path: Path, language: str
) -> None:
    app = app_in(service, tmp_path, language)
    async with app.run_test(size=SIZE) as pilot:
        await open_setup(pilot, "kaiser")
        text = await capture(pilot, f"setup-{language}")
        for words in SETUP_WORDS[language]:
            assert words in text, (words, text)
        other = SETUP_WORDS["pl" if language == "en" else "en"]
        assert not [words for words in other[:5] if words in text]
        if language == "pl":  # a bot level said in Polish too
            assert "komputer: " in text and "computer" not in text


def kaiser_result() -> play_pb2.View:
    view = table_view("kaiser")
    last = view.last_hand
    last.hand_number, last.dealer = 2, 3
    last.points[:] = [-8, 5, -8, 5]
    last.totals[:] = [-8, 12, -8, 12]
    last.tricks_taken[:] = [2, 3, 1, 2]
    k = last.kaiser
    k.bidder, k.bidding_team, k.bid, k.made = 0, 0, 8, False
    k.trump = 3  # hearts
    k.points_taken[:] = [3, 7]
    k.score_change[:] = [-8, 5]
    k.five_of_hearts_seat = 1
    k.three_of_spades_seat = 2
    view.scores[:] = [-8, 12, -8, 12]
    return view


SUMMARY_WORDS = {
    "en": (
        "Hand 2 is over",
        "dealt by Dee",
        "player",
        "this hand",
        "total",
        "Ada (you)",
        "Ada bid 8 with hearts trump: set, Ada and Cy took only 3 points",
        "Bo took the 5♥ (+5 for Bo and Dee)",
        "Game: us -8, them 12",
        "Enter: next hand",
    ),
    "pl": (
        "Koniec rozdania 2",
        "rozdawał(a): Dee",
        "gracz",
        "w rozdaniu",
        "razem",
        "Ada (ty)",
        "Licytacja Ada: 8, atut kier, nieugrana; Ada i Cy: tylko 3 punkty",
        "5♥ (+5 dla: Bo i Dee) w lewach: Bo",
        "Gra: my -8, oni 12",
        "Enter: następne rozdanie",
    ),
}


@pytest.mark.parametrize("language", ["en", "pl"])
async def test_the_hand_summary_and_its_footer_speak_the_language(
    service: Service, tmp_path: Path, language: str
) -> None:
    app = app_in(service, tmp_path, language)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        view = kaiser_result()
        app.push_screen(HandSummaryScreen(describe_hand(view, view.last_hand), 0, "ab" * 32))
        await wait_until(pilot, lambda: isinstance(app.screen, HandSummaryScreen))
        text = await capture(pilot, f"summary-kaiser-{language}")
        for words in SUMMARY_WORDS[language]:
            assert words in text, (words, text)
        assert ("sealed before play" in text) is (language == "en")
        assert ("zapieczętowane" in text) is (language == "pl")


def finished_wizard() -> play_pb2.View:
    view = table_view("wizard", ("Ada", "Bo", "Cy"))
    view.phase, view.is_over = "over", True
    view.winners[:] = [1]
    view.scores[:] = [30, 70, 20]
    view.end_reason = play_pb2.END_REASON_ROUNDS_PLAYED
    view.end_rule.rounds = 3
    view.end_rule.winner = catalogue_pb2.WINNER_RULE_HIGHEST_TOTAL
    for points in ([20, 30, -10], [-10, 20, 10], [20, 20, 20]):
        view.hand_scores.add(points=points)
    last = view.last_hand
    last.hand_number, last.dealer = 3, 2
    last.points[:] = [20, 20, 20]
    last.totals[:] = [30, 70, 20]
    last.tricks_taken[:] = [1, 0, 2]
    last.wizard.bids[:] = [1, 0, 2]
    last.wizard.turned_card = "N1"
    return view


OVER_WORDS = {
    "en": (
        "Bo wins!",
        "All 3 rounds were played; the highest total wins.",
        "The last hand, hand 3:",
        "Everyone made their bid",
        "A jester was turned up: no trump",
        "Final scores",
        "Replay it on the server's machine: parlour replay t-over",
        "r: the event log here · a: the expert · Esc: back to the lobby",
        "The end",
    ),
    "pl": (
        "Wygrywa Bo!",
        "Rozegrano wszystkie 3 rundy; wygrywa najwyższy wynik.",
        "Ostatnie rozdanie, rozdanie 3:",
        "Wszystkie deklaracje trafione",
        "Odkryto błazna: bez atu",
        "Wyniki końcowe",
        "Odtwórz grę na maszynie serwera: parlour replay t-over",
        "r: dziennik zdarzeń tutaj · a: ekspert · Esc: powrót do poczekalni",
        "Koniec",
    ),
}


@pytest.mark.parametrize("language", ["en", "pl"])
async def test_the_game_over_screen_and_its_footer_speak_the_language(
    service: Service, tmp_path: Path, language: str
) -> None:
    app = app_in(service, tmp_path, language)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        seat = SavedSeat(service.address, "t-over", 0, "token", "wizard")
        app.push_screen(GameOverScreen(seat, finished_wizard(), []))
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        checked = "Sprawdzenie rozdań" if language == "pl" else "deal check failed"
        await wait_until(
            pilot,
            lambda: any(checked in str(w.render()) for w in app.screen.query("#deal-check")),
            what="the deal check",
        )
        text = await capture(pilot, f"game-over-wizard-{language}")
        for words in OVER_WORDS[language]:
            assert words in text, (words, text)


async def test_f2_says_the_hand_summary_again_in_polish(service: Service, tmp_path: Path) -> None:
    app = app_in(service, tmp_path, "en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        view = kaiser_result()
        result = describe_hand(view, view.last_hand)
        app.push_screen(HandSummaryScreen(result, 0, view=view))
        await wait_until(pilot, lambda: isinstance(app.screen, HandSummaryScreen))
        assert "Hand 2 is over" in await capture(pilot, "summary-before-f2")
        await pilot.press("f2")
        await wait_until(
            pilot, lambda: "Koniec rozdania" in svg_text(app.export_screenshot()), 5, "Polish"
        )
        text = await capture(pilot, "summary-after-f2")
        for words in SUMMARY_WORDS["pl"]:
            assert words in text, (words, text)


TABLE_KEYS = {
    "en": ("Play/choose", "Last trick", "Events", "Chat", "Lobby"),
    "pl": ("Zagraj/wybierz", "Ostatnia lewa", "Zdarzenia", "Czat", "Poczekalnia"),
}


@pytest.mark.parametrize("language", ["en", "pl"])
async def test_the_table_footer_and_hints_speak_the_language(
    service: Service, tmp_path: Path, language: str
) -> None:
    app = app_in(service, tmp_path, language)
    async with app.run_test(size=SIZE) as pilot:
        table = await host_through_the_lobby(pilot, "crazy8s", 2, {}, {1: "normal"})
        await pilot.press("enter")  # start against the bot (no worker: it never moves)
        await wait_until(pilot, lambda: table.view is not None and table.view.phase == "play")
        text = await capture(pilot, f"table-crazy8s-{language}")
        footer = text.splitlines()[-1]
        for words in TABLE_KEYS[language]:
            assert words in footer, (words, footer)
        other = TABLE_KEYS["pl" if language == "en" else "en"]
        assert not [words for words in other if words != "Chat" and words in footer], footer
        await pilot.press("f2")  # the other language, at once
        await wait_until(pilot, lambda: other[0] in svg_text(app.export_screenshot()))


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Name the suit in force:", "Esc: keep the card", "Esc: close")),
        ("pl", ("Wybierz kolor do dołożenia:", "Esc: zostaw kartę", "Esc: zamknij")),
    ],
)
async def test_the_small_screens_speak_the_language(
    service: Service, tmp_path: Path, language: str, words: tuple[str, str, str]
) -> None:
    app = app_in(service, tmp_path, language)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        eight = common_pb2.LegalAction(id=1, label="8♣ → ♥")
        eight.action.text = "play 8C name H"
        app.push_screen(NameSuitScreen("8C", [eight]))
        await wait_until(pilot, lambda: isinstance(app.screen, NameSuitScreen))
        text = await capture(pilot, f"name-suit-{language}")
        assert words[0] in text and words[1] in text
        await pilot.press("escape")
        app.push_screen(InfoScreen("Info", Text("…")))
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        assert words[2] in await capture(pilot, f"info-{language}")
