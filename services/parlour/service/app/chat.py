"""Table chat (issue 32): a seat says a line, the host switches the chat on or off.

A chat line is public at the table: every seat and every spectator reads it
(``View.chat``, and a ``ChatSaid`` event on the Watch stream and in the
replay). Only a seat writes, with its own token (a spectator has no token to
be held to a rate by, and a bot does not chat). A line is kept in the table's
log as a ``ChatSaid`` event with no digest: it changes nothing of the game, so
a move decided before it is not stale (``Folded.moved_at``).

The limits: the text is NFC-normalised and stripped; it must then hold 1 to
``MAX_CHAT_CHARS`` characters and no control, format, surrogate or unassigned
character (a line is one line: no newline, no bidirectional override). The rate
(``chat_per_ten_seconds`` a seat, at the gRPC edge: ``grpc/rates.py``).

Chat is open while the game is played (status PLAYING); the table option
``chat`` sets it at the start, and the host (its token, or the host's session)
switches it with ``set_chat`` (a ``ChatSwitched`` event) at any time of the game.
"""

from __future__ import annotations

import unicodedata

from parlour.service.app.seating import Credentials, by_worker, check_host, check_seat
from parlour.service.app.tables import Tables, Unit
from parlour.service.domain.errors import ChatOff, ChatTextRefused, WrongToken
from parlour.service.domain.events import ChatSaid, ChatSwitched
from parlour.service.domain.fold import Folded
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import TableRow

#: the most characters a chat line holds (after NFC normalisation)
MAX_CHAT_CHARS = 200
#: Unicode categories a line may not hold: control, format (bidirectional
#: overrides, zero-width joiners), surrogates, private use, unassigned; and
#: the line and paragraph separators
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_chat(text: str) -> str:
    """The line as it is kept: NFC, stripped; ChatTextRefused naming the rule otherwise."""
    line = unicodedata.normalize("NFC", text).strip()
    if not line:
        raise ChatTextRefused("a chat line needs some text", rule="empty", max=MAX_CHAT_CHARS)
    if len(line) > MAX_CHAT_CHARS:
        raise ChatTextRefused(
            f"a chat line holds at most {MAX_CHAT_CHARS} characters, not {len(line)}",
            rule="too_long",
            max=MAX_CHAT_CHARS,
            length=len(line),
        )
    for char in line:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise ChatTextRefused(
                f"a chat line may not hold the character U+{ord(char):04X}",
                rule="character",
                max=MAX_CHAT_CHARS,
                code_point=f"U+{ord(char):04X}",
            )
    return line


def _check_playing(table: TableRow, folded: Folded) -> None:
    """Refuse chat at a table whose game has not started or is over."""
    over = folded.ended or (folded.state is not None and folded.state.is_over)
    if table.status != TableStatus.PLAYING or folded.state is None or over:
        raise ChatOff(
            f"the chat of table {table.table_id} is open only while its game is played",
            why="closed",
        )


class Chat:
    """Saying a line, and the host's switch."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def say(self, table_id: str, seat: int, credentials: Credentials, text: str) -> int:
        """Say ``text`` for ``seat`` (its token); the table's version after it."""
        table = await self.tables.row(table_id)
        if by_worker(credentials):
            raise WrongToken("a computer player does not chat; only a seat's own token says a line")
        row = check_seat(table, seat, credentials, None)
        line = clean_chat(text)

        async def append(unit: Unit) -> int:
            folded = unit.folded
            _check_playing(table, folded)
            if not folded.chat_on:
                raise ChatOff(f"the host switched the chat of table {table_id} off", why="off")
            said = ChatSaid(seat, line, row.player_name or "")
            return await _commit(unit, [said])

        return await self.tables.run(table_id, append, lost="the table moved on; say it again")

    async def set_chat(self, table_id: str, on: bool, credentials: Credentials) -> int:
        """The host switches the chat on or off; the table's version after it (nothing
        is written when it already is so)."""
        table = await self.tables.row(table_id)
        check_host(table, credentials)

        async def switch(unit: Unit) -> int:
            folded = unit.folded
            _check_playing(table, folded)
            if folded.chat_on == on:
                return folded.version
            return await _commit(unit, [ChatSwitched(on)])

        return await self.tables.run(table_id, switch, lost="the table moved on; try again")


async def _commit(unit: Unit, events: list[ChatSaid] | list[ChatSwitched]) -> int:
    """Append ``events`` and fold them into the cached table at once (so a move decided
    before them, answered from the cache, is not refused as a lost race)."""
    stored = await unit.commit([event.new() for event in events], applied=False)
    for event in stored:
        unit.folded.apply(event)
    return stored[-1].seq
