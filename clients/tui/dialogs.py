"""Small screens over the table: naming a suit, the last trick, the end of the game."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parlour.v1 import common_pb2

from .cards import action_text
from .moves import named_suit_choice
from .speech import t


class NameSuitScreen(ModalScreen[common_pb2.LegalAction | None]):
    """Several listed actions share one card (an eight that names a suit): pick one."""

    BINDINGS = [
        Binding("c", "name('c')", "clubs"),
        Binding("d", "name('d')", "diamonds"),
        Binding("h", "name('h')", "hearts"),
        Binding("s", "name('s')", "spades"),
        Binding("escape", "dismiss_none", "Cancel"),
    ]

    def __init__(self, card: str, choices: Sequence[common_pb2.LegalAction]) -> None:
        super().__init__()
        self.card = card
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        lines = Text(t("dialog.name_suit") + "\n", style="bold")
        for entry in self.choices:
            letter = entry.action.text.split()[-1].lower()
            lines.append(f"\n  {letter}  ", style="bold yellow")
            lines.append(entry.label or entry.action.text)
        lines.append("\n\n" + t("dialog.keep_card"), style="dim")
        with Vertical(classes="dialog"):
            yield Static(lines)

    def action_name(self, key: str) -> None:
        chosen = named_suit_choice(self.choices, key)
        if chosen is not None:
            self.dismiss(chosen)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class InfoScreen(ModalScreen[None]):
    """A read-only panel (the last trick, the event log); any of its keys closes it."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("l", "close", "Close", show=False),
        Binding("enter", "close", "Close", show=False),
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog") as box:
            box.border_title = self.title_text
            yield Static(self.body, id="info-body")
            yield Static(Text(t("dialog.close"), style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


def event_log_text(lines: Sequence[tuple[int, str]]) -> Text:
    """Numbered event lines "12  seat 2 played QS", card codes coloured."""
    text = Text()
    for index, (version, line) in enumerate(lines):
        if index:
            text.append("\n")
        text.append(f"{version:>4}  ", style="dim")
        text.append_text(action_text(line))
    return text
