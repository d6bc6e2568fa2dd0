"""What the application needs of the world around it, as protocols and callables.

The composition root (``parlour.service.bootstrap``) passes the real ones in:
the notifier (``notify.Notifier``), the bot-turn lease check
(``bots.LeaseGuard.check_act``) and ReplayService.ForkTable's fork (``parlour serve``
passes ``parlour.replay.fork.fork_table``; see ``forking.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Protocol

from parlour.service.store.protocol import EventStore

#: (table_id, seat, worker_id, expected_version) -> None, or raises TurnLeased
BotActGuard = Callable[[str, int, str | None, int | None], Awaitable[None]]


class Waiter(Protocol):
    """What the application needs of a notifier (``notify.Notifier``).

    The notifier hears this process's appends from the store itself
    (``make_notifier(store)`` registers it as a listener), and other
    replicas' appends through its adapter (Postgres NOTIFY or NATS);
    ``wait_any`` wakes on bot turns only.
    """

    async def wait(self, table_id: str, after_seq: int, timeout: float) -> None: ...

    def latest(self, table_id: str) -> int: ...

    def notify_all(self) -> None: ...

    @property
    def changes(self) -> int: ...

    async def wait_any(self, after_changes: int, timeout: float) -> None: ...


class ForkedTable(Protocol):
    """What a fork made: the new table's id, its host token, a token per person seat."""

    @property
    def table_id(self) -> str: ...

    @property
    def host_token(self) -> str: ...

    @property
    def seat_tokens(self) -> dict[int, str]: ...

    @property
    def dealt_afresh(self) -> bool: ...


#: (store, source table, at, a (kind, bot level) per seat, seat -> account, seat -> name)
Forker = Callable[
    [EventStore, str, int, Sequence[tuple[str, str]], Mapping[int, str], Mapping[int, str]],
    Awaitable[ForkedTable],
]
