"""The table options that are neither the game's nor the clock's (issue 30: moderation).

``spectators``: "on" (the default) or "off"; off refuses every view without a
seat (GetView, Watch, GetReplay as a spectator). Published in the catalogue
beside each game's options and the clock's, so a setup screen offers it
without a client change; a table shows it among its options only when off.

``chat`` (issue 32): "on" (the default) or "off"; whether the seats may chat
at the table from the start (the host switches it during the game,
``app/chat.py``). Shown among a table's options only when off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parlour.engine.options import OptionSpec, OptionType, resolve_options

SPECTATORS = "spectators"
CHAT = "chat"

TABLE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        SPECTATORS,
        OptionType.CHOICE,
        "on",
        ("on", "off"),
        "Whether people without a seat may watch the table and read its replay.",
    ),
    OptionSpec(
        CHAT,
        OptionType.CHOICE,
        "on",
        ("on", "off"),
        "Whether the seats may chat at the table (the host may switch it during the game).",
    ),
)
TABLE_NAMES = frozenset(spec.name for spec in TABLE_OPTIONS)


def split_table_options(
    given: Mapping[str, object],
) -> tuple[dict[str, object], dict[str, Any]]:
    """(the options for the game and the clock, the table's own resolved)."""
    rest = {name: value for name, value in given.items() if name not in TABLE_NAMES}
    own = {name: value for name, value in given.items() if name in TABLE_NAMES}
    return rest, dict(resolve_options(TABLE_OPTIONS, own))


def spectators_allowed(options: Mapping[str, Any]) -> bool:
    """Whether a table with these (stored) options lets people without a seat watch."""
    return bool(options.get(SPECTATORS, "on") != "off")
