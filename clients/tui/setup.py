"""The host's setup screen, built from the option schema the catalogue publishes.

Every control comes from the game's ``OptionSpec`` list: a BOOL option is a
switch, an INT or CHOICE option a select of its allowed values with the
default preselected. A game that gains a toggle needs no change here. Its
words are the phrasebook's (``tui.setup.*``; an option's description from
``tui.about.*`` where the catalogue has one, else the server's sentence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from parlour.v1 import catalogue_pb2
from parlour.words import option_label, option_value
from parlour.words.catalogue import has

from .keys import speak_keys
from .speech import t

PERSON = "person"


@dataclass(frozen=True)
class TableSetup:
    """What the host chose: the request the lobby sends to HostTable."""

    game: str
    player_name: str
    seat_kinds: tuple[str, ...]  # per seat: "you", "person" or a bot level
    options: dict[str, str] = field(default_factory=dict)
    name: str = ""


def bot_levels(game: catalogue_pb2.GameInfo) -> tuple[str, ...]:
    """The bot levels the catalogue lists for ``game``: only these are offered."""
    return tuple(game.bot_levels)


def default_seat_count(game: catalogue_pb2.GameInfo) -> int:
    """Four seats where the game allows them (the usual table), else its minimum."""
    return 4 if game.min_seats <= 4 <= game.max_seats else game.min_seats


def option_description(game: str, spec: catalogue_pb2.OptionSpec) -> str:
    """An option's description in the client's language: the game's own words for it
    (``tui.about.<game>.<option>``), the shared ones (``tui.about.<option>``), else the
    server's sentence (an option this client has no words for yet)."""
    for key in (f"tui.about.{game}.{spec.name}", f"tui.about.{spec.name}"):
        if has(key):
            return t(key.removeprefix("tui."))
    return spec.description


def option_control(spec: catalogue_pb2.OptionSpec) -> Switch | Select[str]:
    """The control for one option: a switch for a BOOL, a select of allowed values otherwise."""
    control_id = f"option-{spec.name}"
    if spec.type == catalogue_pb2.OPTION_TYPE_BOOL:
        return Switch(value=spec.default_value.lower() == "true", id=control_id)
    choices = [(option_value(value), value) for value in spec.allowed_values]
    return Select(choices, value=spec.default_value, allow_blank=False, id=control_id, compact=True)


class SetupScreen(Screen[TableSetup | None]):
    """Choose seat count, who sits where (people or bots at a level) and the options."""

    BINDINGS = [
        Binding("escape", "cancel", "Back"),
        Binding("ctrl+s", "host", "Host table"),
    ]
    #: each action's footer words (keys.py)
    KEY_WORDS = {"cancel": "key.back", "host": "key.host"}

    def __init__(self, game: catalogue_pb2.GameInfo, player_name: str = "") -> None:
        super().__init__()
        self.game = game
        self.player_name = player_name
        self.levels = bot_levels(game)

    def compose(self) -> ComposeResult:
        game = self.game
        with VerticalScroll(id="setup"):
            yield Static(Text(t("setup.title", game=game.name)), classes="title")
            with Horizontal(classes="field"):
                yield Label(t("setup.your_name"), classes="field-label")
                yield Input(
                    value=self.player_name,
                    placeholder=t("setup.name_placeholder"),
                    id="player-name",
                    compact=True,
                )
            with Horizontal(classes="field"):
                yield Label(t("setup.seats"), classes="field-label")
                counts = [(str(n), n) for n in range(game.min_seats, game.max_seats + 1)]
                yield Select(
                    counts,
                    value=default_seat_count(game),
                    allow_blank=False,
                    id="seat-count",
                    compact=True,
                )
            with Vertical(id="seat-setup"):
                for seat in range(game.max_seats):
                    yield self._seat_row(seat)
            if game.options:
                yield Static(t("setup.options"), classes="subtitle")
            for spec in game.options:
                with Horizontal(classes="field option"):
                    yield Label(option_label(spec.name), classes="field-label")
                    yield option_control(spec)
                    description = Text(option_description(game.id, spec))
                    yield Static(description, classes="option-description")
            with Horizontal(classes="buttons"):
                yield Button(t("setup.host"), variant="primary", id="host", compact=True)
                yield Button(t("setup.back"), id="cancel", compact=True)
        yield Footer()

    def _seat_row(self, seat: int) -> Horizontal:
        if seat == 0:
            control: Static | Select[str] = Static(t("setup.you_host"), classes="seat-you")
        else:
            computers = [
                (t("setup.computer", level=option_value(level)), level) for level in self.levels
            ]
            choices = [(t("setup.person"), PERSON), *computers]
            preferred = "normal" if "normal" in self.levels else (self.levels or (PERSON,))[-1]
            control = Select(
                choices, value=preferred, allow_blank=False, id=f"seat-{seat}", compact=True
            )
        return Horizontal(
            Label(t("setup.seat", number=seat + 1), classes="field-label"),  # as the table does
            control,
            classes="field seat-row",
            id=f"seat-row-{seat}",
        )

    def on_mount(self) -> None:
        speak_keys(self)
        self._show_seat_rows(default_seat_count(self.game))
        self.query_one("#player-name", Input).focus()

    @on(Select.Changed, "#seat-count")
    def _seat_count_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._show_seat_rows(event.value)

    def _show_seat_rows(self, count: int) -> None:
        for seat in range(self.game.max_seats):
            self.query_one(f"#seat-row-{seat}").display = seat < count

    def setup(self) -> TableSetup:
        """The choices on screen as a TableSetup."""
        count = self.query_one("#seat-count", Select).value
        assert isinstance(count, int)
        kinds = ["you"]
        for seat in range(1, count):
            value = self.query_one(f"#seat-{seat}", Select).value
            kinds.append(str(value))
        options: dict[str, str] = {}
        for spec in self.game.options:
            control = self.query_one(f"#option-{spec.name}")
            if isinstance(control, Switch):
                options[spec.name] = "true" if control.value else "false"
            elif isinstance(control, Select):
                options[spec.name] = str(control.value)
        name = self.query_one("#player-name", Input).value.strip() or t("name.default")
        return TableSetup(self.game.id, name, tuple(kinds), options)

    def set_option(self, name: str, value: str) -> None:
        """Set one option's control (used by tests and by a remembered setup)."""
        control = self.query_one(f"#option-{name}")
        if isinstance(control, Switch):
            control.value = value == "true"
        elif isinstance(control, Select):
            control.value = value

    @on(Button.Pressed, "#host")
    def action_host(self) -> None:
        self.dismiss(self.setup())

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
