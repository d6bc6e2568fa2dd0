"""The table's chat in the terminal (issue 32): the latest lines, and a line to type in.

The lines come from the view (``View.chat``, the same for every seat and
spectator). ``t`` opens the line; Enter says it (``PlayService.Say``), Escape
goes back to the table's keys. The host switches the chat on or off with
``T``. A line is shown as text: what a player wrote is never read as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Input

from parlour.v1 import play_pb2

from . import render
from .speech import t

#: the most characters a line holds (the server's limit, after NFC)
MAX_CHAT = 200


class ChatLine(Input):
    """The line being typed; Escape hands the keys back to the table."""

    BINDINGS = [Binding("escape", "done", show=False)]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(max_length=MAX_CHAT, **kwargs)  # type: ignore[arg-type]
        self.can_focus = False  # until t opens it: the keys are the table's

    def open(self) -> None:
        self.can_focus = True
        self.focus()

    def close(self) -> None:
        self.blur()
        self.can_focus = False

    def action_done(self) -> None:
        closing = getattr(self.screen, "action_close_chat", None)
        if callable(closing):
            closing()


def chat_text(view: play_pb2.View, last: int) -> Text:
    """The last ``last`` lines of the table's chat, each "name: text" (its text as is)."""
    text = Text()
    lines = list(view.chat)[-last:] if last > 0 else []
    for number, line in enumerate(lines):
        if number:
            text.append("\n")
        name = line.player_name or render.player_name(view, line.seat)
        text.append(name, style="bold")
        text.append(": ")
        text.append(line.text)  # as written: a Text is never read as markup
    if not view.chat_enabled and view.phase != "lobby" and not view.is_over:
        if lines:
            text.append("\n")
        text.append(t("chat.off"), style="dim")
    return text
