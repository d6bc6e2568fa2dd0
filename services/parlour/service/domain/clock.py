"""Turn clocks: the table options, and each seat's turn as the event log tells it.

A table may give each person a clock per turn (``turn_seconds``, 0 = no
clock) and a bank of extra seconds for the whole game (``bank_seconds``),
drawn on when a turn runs over. When a person's clock runs out, a bot of the
table's ``away_bot_level`` plays the seat (``SeatAway``) until the person
takes it back with its token (``SeatReturned``).

Nothing here reads a clock: a turn starts at the time of the event that
started it (its ``created_at``), so the deadline of every seat is a function
of the log. :class:`TurnClock` is folded with the events (``fold.Folded``),
by any replica, after any restart, to the same deadlines; the ``turns``
projection (``store.TurnRow``) is what it says after the latest append.

Application layer: no gRPC, no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from parlour.engine.options import OptionSpec, OptionType, OptionValue, resolve_options
from parlour.service.domain.statuses import SeatKind
from parlour.service.store.protocol import TurnRow

TURN_SECONDS = "turn_seconds"
BANK_SECONDS = "bank_seconds"
AWAY_BOT_LEVEL = "away_bot_level"

#: The table options of the clock, published in the catalogue beside each game's own.
CLOCK_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        TURN_SECONDS,
        OptionType.INT,
        0,
        (0, 1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300),
        "Seconds each person has for a turn; when they run out (and the bank too), a bot "
        "plays the seat until the person comes back. 0: no clock.",
    ),
    OptionSpec(
        BANK_SECONDS,
        OptionType.INT,
        0,
        (0, 5, 10, 30, 60, 120, 300, 600),
        "Extra seconds each person may use over the whole game when a turn runs over the "
        "turn clock. 0: no bank.",
    ),
    OptionSpec(
        AWAY_BOT_LEVEL,
        OptionType.CHOICE,
        "normal",
        ("random", "easy", "normal", "hard", "expert"),
        "The computer player that plays for a person whose clock ran out.",
    ),
)
CLOCK_NAMES = frozenset(spec.name for spec in CLOCK_OPTIONS)


def split_options(given: Mapping[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """(the game's own options, the clock's) of what a host sent."""
    game = {name: value for name, value in given.items() if name not in CLOCK_NAMES}
    clock = {name: value for name, value in given.items() if name in CLOCK_NAMES}
    return game, clock


def resolve_clock(given: Mapping[str, object]) -> dict[str, OptionValue]:
    """The clock options with their defaults filled in (refusing bad values)."""
    return resolve_options(CLOCK_OPTIONS, given)


@dataclass
class TurnClock:
    """Each seat's turn and bank, folded from the events (``fold.Folded`` keeps one)."""

    turn_seconds: int = 0
    bank_seconds: int = 0
    away_bot_level: str = "normal"
    #: seat -> when its current turn began
    since: dict[int, datetime] = field(default_factory=dict)
    #: seat -> seconds of bank used
    bank_used: dict[int, float] = field(default_factory=dict)
    #: person seats being played by a bot
    away: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> TurnClock:
        options = options or {}
        return cls(
            int(options.get(TURN_SECONDS, 0) or 0),
            int(options.get(BANK_SECONDS, 0) or 0),
            str(options.get(AWAY_BOT_LEVEL) or "normal"),
        )

    @property
    def on(self) -> bool:
        return self.turn_seconds > 0

    def track(self, to_act: Iterable[int], at: datetime, acted: int | None = None) -> None:
        """The seats to act after an event at ``at`` (``acted``: the seat that just acted,
        whose turn ends even when it is to act again). A moment with nobody to act (the
        game waits for chance) changes nothing."""
        waiting = set(to_act)
        if acted is not None and acted in self.since:
            self._end(acted, at)
        if not waiting:
            return
        for seat in [seat for seat in self.since if seat not in waiting]:
            self._end(seat, at)
        for seat in waiting:
            self.since.setdefault(seat, at)

    def _end(self, seat: int, at: datetime) -> None:
        began = self.since.pop(seat)
        if self.on and self.bank_seconds and seat not in self.away:
            over = (at - began).total_seconds() - self.turn_seconds
            if over > 0:
                self.bank_used[seat] = min(
                    float(self.bank_seconds), self.bank_used.get(seat, 0.0) + over
                )

    def went_away(self, seat: int) -> None:
        self.away.add(seat)

    def came_back(self, seat: int, at: datetime) -> None:
        """The person is back: if the seat is to act, its turn starts afresh now."""
        self.away.discard(seat)
        if seat in self.since:
            self.since[seat] = at

    def deadline(self, seat: int) -> datetime | None:
        """When the seat's clock runs out (None: no clock, or not its turn, or away)."""
        began = self.since.get(seat)
        if not self.on or began is None or seat in self.away:
            return None
        bank = max(0.0, self.bank_seconds - self.bank_used.get(seat, 0.0))
        return began + timedelta(seconds=self.turn_seconds + bank)

    def rows(self, game: str, bot_seats: Iterable[int]) -> list[TurnRow]:
        """The ``turns`` projection rows of the seats to act now that someone must act
        for: a seat a bot plays (the workers' claim reads these) and a person under
        a clock (the sweeper reads the deadline). A person's turn with no clock gets
        no row: nothing would read it, and every move would write it."""
        bots = set(bot_seats)
        rows = []
        for seat in sorted(self.since):
            if seat in bots or seat in self.away:
                rows.append(TurnRow(seat, SeatKind.BOT, game, self.since[seat], None))
            elif (deadline := self.deadline(seat)) is not None:
                rows.append(TurnRow(seat, SeatKind.PERSON, game, self.since[seat], deadline))
        return rows
