"""The seats this terminal holds, kept on disk so a restarted client can rejoin.

A seat token is the only proof of a seat and the server keeps just its hash,
so losing this file loses the seat. The file is a small JSON list under
``$PARLOUR_STATE_DIR`` (or ``~/.config/parlour``), readable by its owner only.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

FILE_NAME = "seats.json"


@dataclass(frozen=True)
class SavedSeat:
    """A seat taken at a table, with its secret token."""

    server: str
    table_id: str
    seat: int
    token: str
    game: str = ""
    table_name: str = ""
    host_token: str = ""


def state_dir() -> Path:
    """Where the client keeps its state: $PARLOUR_STATE_DIR or ~/.config/parlour."""
    configured = os.environ.get("PARLOUR_STATE_DIR")
    return Path(configured) if configured else Path.home() / ".config" / "parlour"


class SeatBook:
    """The saved seats, one per (server, table)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or state_dir()) / FILE_NAME

    def load(self) -> list[SavedSeat]:
        """Every saved seat, newest first; an unreadable file counts as empty."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return [SavedSeat(**entry) for entry in raw]
        except (OSError, ValueError, TypeError):
            return []

    def for_server(self, server: str) -> list[SavedSeat]:
        """The saved seats at tables of ``server``."""
        return [entry for entry in self.load() if entry.server == server]

    def remember(self, seat: SavedSeat) -> None:
        """Save ``seat``, replacing an older entry for the same table."""
        others = [
            entry
            for entry in self.load()
            if (entry.server, entry.table_id) != (seat.server, seat.table_id)
        ]
        self._write([seat, *others])

    def forget(self, server: str, table_id: str) -> None:
        """Drop the saved seat at ``table_id`` (e.g. once its game is over)."""
        kept = [e for e in self.load() if (e.server, e.table_id) != (server, table_id)]
        self._write(kept)

    def _write(self, seats: list[SavedSeat]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps([asdict(s) for s in seats], indent=2), encoding="utf-8")
        temporary.chmod(0o600)
        temporary.replace(self.path)
