"""The application: one facade over the table use cases, one per process.

:class:`Parlour` is what the adapters call (the gRPC servicers, the sweeper,
the bot turns, the tests); each method hands over to the use cases by
concern, over one cache of folded tables (``tables.py``: the unit of work):

* ``lobby.py``: host, list, get, join, leave, start;
* ``play.py``: view, act, watch;
* ``duties.py``: time out, return to seat, expire, abandon (the sweeper's);
* ``accounts.py``: guests, names, sessions; ``moderation.py``: the host's
  removals, invite-only seats, spectators, the per-account caps;
* ``chat.py``: table chat, a seat's lines and the host's switch.

No gRPC and no driver here: the store and the notifier come in through the
constructor (``parlour.service.bootstrap`` wires the real ones).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from parlour.service.app import auth, paging
from parlour.service.app.accounts import DEFAULT_SESSION_SECONDS, Accounts, bearer_token
from parlour.service.app.chat import Chat
from parlour.service.app.dealing import Dealer
from parlour.service.app.duties import Duties
from parlour.service.app.history import History
from parlour.service.app.lobby import Lobby
from parlour.service.app.moderation import AccountCaps, Moderation
from parlour.service.app.play import MoveSpec, Play
from parlour.service.app.ports import BotActGuard, Forker, Waiter
from parlour.service.app.ratings import Leaderboard, Ratings
from parlour.service.app.rematch import Rematches
from parlour.service.app.seating import Credentials, Hosted, Joined, SeatChoice
from parlour.service.app.tables import Tables
from parlour.service.app.views import SeatView
from parlour.service.domain.statuses import TableStatus
from parlour.service.store.protocol import EventStore, TableRow

__all__ = [
    "Credentials",
    "MoveSpec",
    "Parlour",
    "SeatChoice",
    "SeatView",
    "Waiter",
]

#: how often a Watch re-reads the store whatever the notifier says, by default
WATCH_POLL_SECONDS = 15.0


class Parlour:
    """The game service's application layer (one per process)."""

    def __init__(
        self,
        store: EventStore,
        notifier: Waiter,
        *,
        worker_token: str | None = None,
        cache_size: int = 4096,
        rng: random.Random | None = None,
        watch_poll_seconds: float = WATCH_POLL_SECONDS,
        bot_levels: Mapping[str, Sequence[str]] | None = None,
        bot_act_guard: BotActGuard | None = None,
        page_secret: bytes | None = None,
        accounts: Accounts | None = None,
        caps: AccountCaps | None = None,
        forker: Forker | None = None,
    ) -> None:
        """``bot_act_guard`` is called before a worker's Act for a bot seat and raises
        TurnLeased when another worker holds the turn (``bots.LeaseGuard.check_act``).
        ``page_secret`` signs ListTables page tokens (``paging.Pager``; replicas
        must share it; None: a random one, good for this process only).
        ``accounts`` and ``caps`` default to the store's accounts with the default
        session time and caps. ``forker`` makes ForkTable's tables (``forking.Forker``;
        ``parlour serve`` passes ``parlour.replay.fork.fork_table``)."""
        self.store = store
        self.notifier = notifier
        #: ReplayService.ForkTable's fork (``forking.py``; None: this server forks nothing)
        self.forker = forker
        worker_hash = auth.token_hash(worker_token) if worker_token else None
        dealer = Dealer(rng or secrets.SystemRandom())
        self.tables = Tables(store, cache_size=cache_size)
        self.accounts = accounts or Accounts(
            store.accounts, session_seconds=DEFAULT_SESSION_SECONDS
        )
        self.lobby = Lobby(
            self.tables,
            dealer,
            worker_token_hash=worker_hash,
            bot_levels=bot_levels or {},
            caps=caps or AccountCaps(store.accounts),
            pager=paging.Pager(page_secret or paging.new_secret()),
        )
        self.moderation = Moderation(self.tables)
        self.chat = Chat(self.tables)
        self.play = Play(
            self.tables,
            notifier,
            dealer,
            worker_token_hash=worker_hash,
            bot_act_guard=bot_act_guard,
            watch_poll_seconds=watch_poll_seconds,
        )
        self.duties = Duties(self.tables, worker_token_hash=worker_hash)
        # a home for players (issue 31): history, the rating projection, leaderboards
        self.history = History(store.home, self.lobby.pager)
        self.ratings = Ratings(store)
        self.leaderboard = Leaderboard(store.home, self.lobby.pager)
        self.rematches = Rematches(self.lobby, store.home)
        self.tables.ended_hooks.append(self.ratings.game_ended)

    @property
    def closing(self) -> bool:
        """True once :meth:`begin_shutdown` was called."""
        return self.play.closing

    def begin_shutdown(self) -> None:
        """End every Watch stream with UNAVAILABLE, so its client resumes on another replica."""
        self.play.begin_shutdown()

    # -- the lobby -----------------------------------------------------------------------

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
        """See :meth:`Lobby.host_table`."""
        return await self.lobby.host_table(
            game,
            seats,
            options,
            seat_setup,
            name=name,
            host_player_name=host_player_name,
            host_takes_seat=host_takes_seat,
            host_seat=host_seat,
            players_entropy=players_entropy,
            host_entropy=host_entropy,
            credentials=credentials,
        )

    async def list_tables(
        self,
        status: TableStatus | None = TableStatus.OPEN,
        game: str | None = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> tuple[list[TableRow], str]:
        """See :meth:`Lobby.list_tables`."""
        return await self.lobby.list_tables(status, game, page_size, page_token)

    async def get_table(self, table_id: str) -> TableRow:
        """The table's row as the store has it now."""
        return await self.lobby.get_table(table_id)

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
        """See :meth:`Lobby.join`."""
        return await self.lobby.join(
            table_id, player_name, seat, entropy, seat_code=seat_code, credentials=credentials
        )

    async def remove_from_seat(
        self, table_id: str, seat: int, credentials: Credentials
    ) -> TableRow:
        """See :meth:`Moderation.remove_from_seat`; the table after."""
        await self.moderation.remove_from_seat(table_id, seat, credentials)
        return await self.lobby.get_table(table_id)

    async def say(self, table_id: str, seat: int, credentials: Credentials, text: str) -> int:
        """See :meth:`Chat.say`; the table's version after the line."""
        return await self.chat.say(table_id, seat, credentials, text)

    async def set_chat(self, table_id: str, on: bool, credentials: Credentials) -> int:
        """See :meth:`Chat.set_chat`; the table's version after."""
        return await self.chat.set_chat(table_id, on, credentials)

    async def identify(self, credentials: Credentials, authorization: str | None) -> Credentials:
        """``credentials`` with the account of the session in ``authorization`` (the
        metadata's value, None when absent); NotSignedIn for a dead session."""
        token = bearer_token(authorization)
        if token is None:
            return credentials
        caller = await self.accounts.caller(token)
        return replace(
            credentials,
            account_id=caller.account.account_id,
            account_name=caller.account.name,
        )

    async def leave(self, table_id: str, seat: int, credentials: Credentials) -> TableRow:
        """See :meth:`Lobby.leave`."""
        return await self.lobby.leave(table_id, seat, credentials)

    async def start(self, table_id: str, credentials: Credentials) -> TableRow:
        """See :meth:`Lobby.start`."""
        return await self.lobby.start(table_id, credentials)

    # -- play ----------------------------------------------------------------------------

    async def view(
        self,
        table_id: str,
        seat: int | None,
        credentials: Credentials,
        min_version: int | None = None,
    ) -> SeatView:
        """See :meth:`Play.view`."""
        return await self.play.view(table_id, seat, credentials, min_version)

    async def act(
        self,
        table_id: str,
        seat: int,
        credentials: Credentials,
        move: MoveSpec,
        *,
        expected_version: int | None = None,
        request_id: str = "",
    ) -> SeatView:
        """See :meth:`Play.act`."""
        return await self.play.act(
            table_id,
            seat,
            credentials,
            move,
            expected_version=expected_version,
            request_id=request_id,
        )

    def watch(
        self, table_id: str, seat: int | None, credentials: Credentials, from_version: int = 0
    ) -> AsyncIterator[SeatView]:
        """See :meth:`Play.watch`."""
        return self.play.watch(table_id, seat, credentials, from_version)

    # -- the sweeper's duties, and taking a seat back ------------------------------------

    async def time_out(self, table_id: str, seat: int, version: int) -> bool:
        """See :meth:`Duties.time_out`."""
        return await self.duties.time_out(table_id, seat, version)

    async def return_to_seat(self, table_id: str, seat: int, credentials: Credentials) -> SeatView:
        """See :meth:`Duties.return_to_seat`."""
        return await self.duties.return_to_seat(table_id, seat, credentials)

    async def expire(self, table_id: str, before: datetime) -> bool:
        """See :meth:`Duties.expire`."""
        return await self.duties.expire(table_id, before)

    async def abandon(self, table_id: str, before: datetime) -> bool:
        """See :meth:`Duties.abandon`."""
        return await self.duties.abandon(table_id, before)
