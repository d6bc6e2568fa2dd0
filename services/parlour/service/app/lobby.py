"""The lobby's use cases: host, list, get, join, leave and start a table.

Every change goes through a unit of work on the table (``tables.py``): a
lost race is tried once more (join, leave) or answered ABORTED (start).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from parlour.engine.registry import get_game
from parlour.service.app import auth, paging
from parlour.service.app.dealing import Dealer
from parlour.service.app.holds import HOLD_SECONDS, seat_for_join, seat_holds
from parlour.service.app.moderation import (
    AccountCaps,
    check_may_sit,
    check_seat_name,
    new_seat_code,
    pick_for_join,
)
from parlour.service.app.seating import (
    Credentials,
    Hosted,
    Joined,
    SeatChoice,
    check_host,
    check_seat,
    clean_name,
    default_name,
    pick_seat,
    require_open,
    seat_row,
)
from parlour.service.app.tables import Tables, Unit, turn_rows
from parlour.service.domain import deals
from parlour.service.domain.clock import TURN_SECONDS, resolve_clock, split_options
from parlour.service.domain.errors import BadRequest, WrongTableState, shorten
from parlour.service.domain.events import GameStarted, SeatLeft, SeatTaken, TableHosted
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.domain.table_options import CHAT, SPECTATORS, split_table_options
from parlour.service.store.protocol import StoredEvent, TableQuery, TableRow, utcnow


class Lobby:
    """Hosting, finding, joining, leaving and starting tables."""

    def __init__(
        self,
        tables: Tables,
        dealer: Dealer,
        *,
        worker_token_hash: str | None,
        bot_levels: Mapping[str, Sequence[str]],
        pager: paging.Pager | None = None,
        caps: AccountCaps | None = None,
    ) -> None:
        self.tables = tables
        #: signs and checks ListTables page tokens (a secret of its own if none is given)
        self.pager = pager or paging.Pager(paging.new_secret())
        self.caps = caps or AccountCaps(tables.store.accounts)
        self.store = tables.store
        self.dealer = dealer
        self._worker_token_hash = worker_token_hash
        #: game id -> the bot levels the catalogue publishes; host_table refuses others
        self.bot_levels = {game: tuple(levels) for game, levels in bot_levels.items()}
        #: how long a rematch's seats wait for their old players (app/holds.py)
        self.rematch_hold = timedelta(seconds=HOLD_SECONDS)

    async def host_table(
        self,
        game: str,
        seats: int,
        options: Mapping[str, object],
        seat_setup: Sequence[SeatChoice] = (),
        *,
        name: str = "",
        host_player_name: str = "",
        host_takes_seat: bool = False,
        host_seat: int | None = None,
        players_entropy: bool = False,
        host_entropy: str = "",
        credentials: Credentials = Credentials(),
    ) -> Hosted:
        """Set up a table seating exactly what the host asked for.

        With ``players_entropy`` the server draws its seed now and publishes
        its commitment in TableHosted, before any seat contributes. A
        signed-in host (``credentials.account_id``) hosts within the account's
        caps; the table and the host's seat are bound to the account.
        """
        account = credentials.account_id
        await self.caps.check_hosting(account, takes_seat=host_takes_seat)
        if credentials.account_name and host_takes_seat:
            host_player_name = credentials.account_name
        info = get_game(game)
        if seats == 0:
            seats = len(seat_setup)
        if seats == 0:
            raise BadRequest("give the number of seats or a seat setup")
        if seat_setup and len(seat_setup) != seats:
            raise BadRequest(f"{seats} seats but a setup for {len(seat_setup)}")
        options, table_options = split_table_options(options)
        game_options, clock_options = split_options(options)
        resolved = info.resolve(seats, game_options)
        clock = resolve_clock(clock_options)
        choices = list(seat_setup) or [SeatChoice() for _ in range(seats)]
        self._check_bot_levels(info.id, choices)
        host_name = clean_name(host_player_name, "host_player_name", required=host_takes_seat)
        if host_takes_seat:
            await check_seat_name(self.store.accounts, host_name, credentials)
        host_entropy = entropy_hex(host_entropy, "host_entropy")
        seat_rows = [seat_row(seat, choice) for seat, choice in enumerate(choices)]
        codes = {
            seat: new_seat_code()
            for seat, choice in enumerate(choices)
            if choice.invite_only and seat_rows[seat].kind == SeatKind.PERSON
        }
        for kept, code in codes.items():
            seat_rows[kept] = replace(seat_rows[kept], code_hash=auth.token_hash(code))
        hosted = TableHosted(
            game=info.id,
            seats=seats,
            options=dict(resolved),
            seat_kinds=tuple(row.kind.value for row in seat_rows),
            bot_levels=tuple(row.bot_level or "" for row in seat_rows),
            name=name or default_name(host_name, info),
            clock=clock,
            seat_code_hashes=tuple(row.code_hash or "" for row in seat_rows) if codes else None,
            spectators=False if table_options[SPECTATORS] == "off" else None,
            chat=False if table_options[CHAT] == "off" else None,
        )
        if players_entropy:
            seed = deals.new_secret()  # private: revealed with the log once the game is over
            hosted = replace(
                hosted,
                players_entropy=True,
                server_seed_commitment=deals.seed_commitment(seed),
                server_seed=seed,
            )
        events = [hosted.new()]
        seat, seat_token = None, ""
        if host_takes_seat:
            seat = pick_seat(seat_rows, host_seat, seats)
            seat_token = auth.new_token()
            seat_rows[seat] = replace(
                seat_rows[seat],
                player_name=host_name,
                token_hash=auth.token_hash(seat_token),
                occupied=True,
                account_id=account,
            )
            events.append(SeatTaken(seat, host_name, host_entropy or None, account).new())
        host_token = auth.new_token()
        row = TableRow(
            table_id=secrets.token_hex(8),
            game=info.id,
            seats=seats,
            # the clock's options are shown with the game's when the table has a clock
            options={
                **resolved,
                **(clock if clock[TURN_SECONDS] else {}),
                **({SPECTATORS: "off"} if hosted.spectators is False else {}),
                **({CHAT: "off"} if hosted.chat is False else {}),
            },
            status=TableStatus.OPEN,
            host_token_hash=auth.token_hash(host_token),
            version=len(events),
            name=hosted.name,
            seat_rows=tuple(seat_rows),
            host_account_id=account,
        )
        await self.store.create_table(row, events, now=row.created_at)
        # as stored: no need to read it back
        return Hosted(row, host_token, seat, seat_token, codes)

    def _check_bot_levels(self, game: str, choices: Sequence[SeatChoice]) -> None:
        """Refuse a bot level the catalogue does not publish for ``game`` (if it publishes any)."""
        offered = self.bot_levels.get(game)
        if not offered:
            return
        for seat, choice in enumerate(choices):
            if choice.kind == SeatKind.BOT and choice.bot_level and choice.bot_level not in offered:
                raise BadRequest(
                    f"seat {seat}: no bot level {choice.bot_level!r} for {game} "
                    f"(choose from {', '.join(offered)}, or leave it empty for the default)"
                )

    async def list_tables(
        self,
        status: TableStatus | None = TableStatus.OPEN,
        game: str | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> tuple[list[TableRow], str]:
        """One page of tables, newest first, and the token of the next page ("" if none)."""
        size = paging.page_size(page_size)
        scope = f"tables|{status or ''}|{game or ''}"
        after = self.pager.decode(page_token, scope)
        rows = await self.store.list_tables(
            TableQuery(
                status,
                game or None,
                size + 1,
                after=None if after is None else (after.created_at, after.key),
            )
        )
        if len(rows) <= size:
            return rows, ""
        last = rows[size - 1]
        cursor = paging.Cursor(last.created_at, last.table_id)
        return rows[:size], self.pager.encode(cursor, scope)

    async def get_table(self, table_id: str) -> TableRow:
        """The table's row as the store has it now."""
        return await self.tables.get_table(table_id)

    async def join(
        self,
        table_id: str,
        player_name: str,
        seat: int | None = None,
        entropy: str = "",
        *,
        seat_code: str = "",
        credentials: Credentials = Credentials(),
    ) -> Joined:
        """Take a free person seat (``seat``, or the lowest free one open to anyone, or
        the one ``seat_code`` opens).

        ``entropy`` is the seat's contribution to the deals (hex), used when
        the table was hosted with players' entropy. A signed-in caller's seat
        is bound to the account (and shows its claimed name); the rules of
        ``moderation.py`` decide who may sit.
        """
        account = credentials.account_id
        name = clean_name(credentials.account_name or player_name, "player_name", required=True)
        entropy = entropy_hex(entropy, "entropy")
        await self.caps.check_seating(account)
        await check_seat_name(self.store.accounts, name, credentials)
        # a rematch's seats wait for their old players (read before: a store query of its own)
        holds = await seat_holds(
            self.store.home, table_id, self.get_table, utcnow(), self.rematch_hold
        )

        async def take(unit: Unit) -> tuple[int, str]:
            table = await unit.row()
            require_open(table, "join")
            check_may_sit(unit.folded, table, credentials)
            wanted = seat if seat_code else seat_for_join(table, holds, seat, account)
            taken = pick_for_join(list(table.seat_rows), wanted, table.seats, seat_code)
            token = auth.new_token()
            row = replace(
                table.seat_rows[taken],
                player_name=name,
                token_hash=auth.token_hash(token),
                occupied=True,
                account_id=account,
            )
            await unit.commit(
                [SeatTaken(taken, name, entropy or None, account).new()],
                applied=False,
                seat_updates=[row],
                person_active_at=utcnow(),
            )
            return taken, token

        taken, token = await self.tables.run(
            table_id, take, lost="the table changed while joining; try again"
        )  # with the fold: it holds who the host removed (check_may_sit)
        return Joined(taken, token, await self.get_table(table_id))

    async def leave(self, table_id: str, seat: int, credentials: Credentials) -> TableRow:
        """Give up a seat at an open table; its token stops working."""

        async def free(unit: Unit) -> None:
            table = await unit.row()
            check_seat(table, seat, credentials, self._worker_token_hash)
            require_open(table, "leave")
            await unit.commit(
                [SeatLeft(seat).new()],
                applied=False,
                seat_updates=[table.seat_rows[seat].freed()],
            )

        await self.tables.run(
            table_id, free, lost="the table changed while leaving; try again", folded=False
        )
        return await self.get_table(table_id)

    async def start(self, table_id: str, credentials: Credentials) -> TableRow:
        """Start the game (host only, every seat filled) and deal the first hand."""

        async def deal(unit: Unit) -> TableRow:
            table = await self.get_table(table_id)
            check_host(table, credentials)
            require_open(table, "start")
            empty = [row.seat for row in table.seat_rows if not row.occupied]
            if empty:
                raise WrongTableState(
                    f"seat {empty[0]} is still free; every seat must be taken before the start"
                )
            folded = unit.changing()
            started = GameStarted()
            if folded.setup.get("players_entropy"):
                # fixed now, in seat order: a seat that gave none (a bot) adds ""
                started = GameStarted(
                    tuple(folded.seat_entropy.get(seat, "") for seat in range(table.seats))
                )
            folded.apply(
                _synthetic(table_id, folded.version + 1, GameStarted.TYPE, started.payload())
            )
            events = [started.new(), *self.dealer.deal_due(folded)]
            now = utcnow()
            assert folded.state is not None
            folded.clock.track(folded.state.to_act(), now)
            has_person = any(row.kind == SeatKind.PERSON for row in table.seat_rows)
            stored = await unit.commit(
                events,
                applied=True,
                table_status=TableStatus.PLAYING,
                turns=turn_rows(folded, table),
                person_active_at=now if has_person else None,
                now=now,
            )
            # the row as the append left it (no need to read it back)
            return replace(
                table,
                status=TableStatus.PLAYING,
                version=stored[-1].seq,
                updated_at=now,
                person_active_at=now if has_person else None,
            )

        return await self.tables.run(
            table_id, deal, retry=False, lost="the table changed while starting; try again"
        )


def entropy_hex(value: str, field_name: str) -> str:
    """A seat's contribution as stored: lowercase hex, at most 64 digits (or "")."""
    text = value.strip().lower()
    if len(text) > deals.MAX_CONTRIBUTION or not deals.is_hex(text):
        raise BadRequest(
            f"{field_name} must be at most {deals.MAX_CONTRIBUTION} hex digits, "
            f"not {shorten(value)}"
        )
    return text


def _synthetic(
    table_id: str, seq: int, kind: str, payload: dict[str, Any] | None = None
) -> StoredEvent:
    """An event folded into the cache ahead of its append (evicted if the append fails)."""
    return StoredEvent(table_id, seq, kind, 1, payload or {}, "", None, utcnow())
