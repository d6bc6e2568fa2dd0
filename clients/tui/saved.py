"""The seats this terminal holds, kept on disk so a restarted client can rejoin.

A seat token is the only proof of a seat and the server keeps just its hash,
so losing this file loses the seat. Seats are kept by table, not by server
address: any replica of the service serves any table, so a seat taken through
one address opens through another. The file is a small JSON list under
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

    def find(self, table_id: str) -> SavedSeat | None:
        """The saved seat at ``table_id``, whichever server address it was taken through."""
        return next((entry for entry in self.load() if entry.table_id == table_id), None)

    def remember(self, seat: SavedSeat) -> None:
        """Save ``seat``, replacing an older entry for the same table."""
        others = [entry for entry in self.load() if entry.table_id != seat.table_id]
        self._write([seat, *others])

    def forget(self, table_id: str) -> None:
        """Drop the saved seat at ``table_id`` (e.g. once its game is over)."""
        self._write([entry for entry in self.load() if entry.table_id != table_id])

    def _write(self, seats: list[SavedSeat]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps([asdict(s) for s in seats], indent=2), encoding="utf-8")
        temporary.chmod(0o600)
        temporary.replace(self.path)
