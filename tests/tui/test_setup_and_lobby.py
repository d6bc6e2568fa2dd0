"""The lobby shows the catalogue; the setup screen is built from the option schema."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.widgets import DataTable, Select, Switch

from parlour.cli import build_parser
from parlour.tui.app import ParlourApp
from parlour.tui.lobby import LobbyScreen
from parlour.tui.setup import SetupScreen, TableSetup
from parlour.tui.table import TableScreen
from parlour.v1 import catalogue_pb2, lobby_pb2
from tests.tui.conftest import Service, shoot, wait_until
from tests.tui.helpers import host_through_the_lobby


class SetupOnly(App[TableSetup | None]):
    """Just the setup screen for one game, returning what the host chose."""

    def __init__(self, game: catalogue_pb2.GameInfo) -> None:
        super().__init__()
        self.game = game

    def on_mount(self) -> None:
        self.push_screen(SetupScreen(self.game, "Ada"), self.exit)


def check_controls(screen: SetupScreen, game: catalogue_pb2.GameInfo) -> None:
    for spec in game.options:
        control = screen.query_one(f"#option-{spec.name}")
        if spec.type == catalogue_pb2.OPTION_TYPE_BOOL:
            assert isinstance(control, Switch)
            assert control.value == (spec.default_value == "true")
        else:
            assert isinstance(control, Select)
            assert control.value == spec.default_value
            offered = [str(value) for _, value in control._options]
            assert offered == list(spec.allowed_values)


async def test_every_published_option_gets_a_control_with_its_default_preselected(
    service: Service,
) -> None:
    for game in await service.client.list_games():
        app = SetupOnly(game)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, SetupScreen)
            check_controls(screen, game)
            counts = [value for _, value in screen.query_one("#seat-count", Select)._options]
            assert counts == list(range(game.min_seats, game.max_seats + 1))
            levels = [v for _, v in screen.query_one("#seat-1", Select)._options][1:]
            assert levels == list(game.bot_levels)  # only the catalogue's levels
            await pilot.press("ctrl+s")
        chosen = app.return_value
        assert chosen is not None
        assert chosen.options == {spec.name: spec.default_value for spec in game.options}


async def test_a_new_toggle_in_the_catalogue_needs_no_client_change() -> None:
    game = catalogue_pb2.GameInfo(
        id="newgame",
        name="New Game",
        min_seats=2,
        max_seats=5,
        options=[
            catalogue_pb2.OptionSpec(
                name="jokers_wild",
                type=catalogue_pb2.OPTION_TYPE_BOOL,
                default_value="false",
                allowed_values=["true", "false"],
                description="Jokers stand for any card.",
            ),
            catalogue_pb2.OptionSpec(
                name="target",
                type=catalogue_pb2.OPTION_TYPE_INT,
                default_value="100",
                allowed_values=["50", "100", "150"],
                description="Points to win.",
            ),
        ],
    )
    app = SetupOnly(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen))
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        check_controls(screen, game)
        screen.query_one("#option-jokers_wild", Switch).focus()
        await pilot.press("enter")  # a switch toggles with Enter
        screen.query_one("#option-target", Select).focus()
        await pilot.press("enter", "down", "enter")  # open the list, next value, choose
        await pilot.pause()
        await pilot.press("ctrl+s")
    assert app.return_value is not None
    assert app.return_value.options == {"jokers_wild": "true", "target": "150"}
    assert app.return_value.seat_kinds[0] == "you"


async def test_the_lobby_shows_each_game_with_its_seat_range_and_rules(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.games)
        )
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        games = [str(option.prompt) for option in lobby.query_one("#games")._options]  # type: ignore[attr-defined]
        assert any("Crazy 8s" in g and "2–6 seats" in g for g in games)
        rules = await service.client.get_game("wizard")
        first_rule_line = next(line for line in rules.rules_text.splitlines() if line.strip())
        await wait_until(pilot, lambda: first_rule_line.strip("# ") in lobby.rules_shown().source)
        markdown = lobby.rules_shown()
        # how the game ends, from the catalogue; options by their labels, not schema names
        ends = rules.end_rule.text
        assert f"**How it ends:** {ends[:1].upper()}{ends[1:]}." in markdown.source
        for spec in rules.options:
            assert f"`{spec.name}`" not in markdown.source
            assert f"**{spec.name.replace('_', ' ').capitalize()}**" in markdown.source
        await shoot(pilot, "lobby")


async def test_hosting_sends_the_chosen_options_seats_and_bot_levels(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.games)
        )
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await shoot(pilot, "setup-wizard")
        await pilot.press("escape")
        table = await host_through_the_lobby(
            pilot,
            "wizard",
            3,
            {"rounds": "10", "screw_the_dealer": "true"},
            seat_kinds={1: "random"},
        )
        hosted = await service.client.get_table(table.seat.table_id)
    assert hosted.options["rounds"] == "10" and hosted.options["screw_the_dealer"] == "true"
    assert [s.kind for s in hosted.seats] == [
        lobby_pb2.SEAT_KIND_PERSON,
        lobby_pb2.SEAT_KIND_BOT,
        lobby_pb2.SEAT_KIND_PERSON,
    ]
    assert hosted.seats[1].bot_level == "random"
    assert hosted.status == lobby_pb2.TABLE_STATUS_OPEN  # seat 2 waits for a person


async def test_an_open_table_is_joined_from_the_lobby_and_followed_once_started(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    hosted = await service.client.host_table(
        "crazy8s", 2, host_player_name="Ada", host_takes_seat=True, name="Ada's table"
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await wait_until(pilot, lambda: lobby.query_one("#tables", DataTable).row_count == 1)
        await shoot(pilot, "lobby-open-table")
        await pilot.press("j")
        await wait_until(
            pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.view is not None
        )
        table = app.screen
        assert isinstance(table, TableScreen)
        assert table.seat.seat == 1 and table.view.phase == "lobby"
        await service.client.start_table(hosted.table.table_id, hosted.host_token)
        await wait_until(pilot, lambda: table.view.phase == "play" and len(table.view.hand) == 7)
        assert table.view.players[0].player_name == "Ada"


def test_parlour_play_is_a_subcommand_with_a_server_option() -> None:
    parser, module = build_parser("play")
    assert module is not None and module.__name__ == "parlour.cli.play"
    args = parser.parse_args(["play", "--server", "10.0.0.1:5"])
    assert args.server == "10.0.0.1:5"
