"""The unit of work on a table (``app/tables.py``): a lost race is tried once more
where the use case wants it, else answered LostRace, and a fold changed ahead of
an append that did not commit is evicted (the next read folds the log again).

At the application layer on SQLite, with the store's append made to lose every
race it runs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from parlour.engine.errors import EngineError
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.errors import LostRace
from parlour.service.notify import make_notifier
from parlour.service.store.protocol import ConcurrencyConflict, EventStore
from tests.replay.games import Played, open_store, seat_table


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[Parlour]:
    store = open_store(f"sqlite:///{tmp_path / 'parlour.sqlite3'}")
    try:
        yield Parlour(store, make_notifier(store))
    finally:
        await store.close()


def losing(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every append lose its race from now on; the versions each was tried at."""
    tried: list[int] = []

    async def lose(table_id: str, expected_version: int, *args: Any, **kwargs: Any) -> Any:
        tried.append(expected_version)
        raise ConcurrencyConflict(table_id)

    monkeypatch.setattr(store, "append", lose)
    return tried


def reads(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seq each store.read starts after, from now on."""
    starts: list[int] = []
    read = store.read

    async def counted(table_id: str, after: int = 0, *args: Any, **kwargs: Any) -> Any:
        starts.append(after)
        return await read(table_id, after, *args, **kwargs)

    monkeypatch.setattr(store, "read", counted)
    return starts


async def first_move(app: Parlour) -> tuple[Played, str]:
    played = await seat_table(app, "hearts", 4)
    state = played.mirror.state
    assert state is not None
    return played, str(state.legal_actions(0)[0])


async def test_an_unpinned_move_is_tried_twice_then_refused(
    app: Parlour, monkeypatch: pytest.MonkeyPatch
) -> None:
    played, move = await first_move(app)
    tried = losing(app.store, monkeypatch)
    with pytest.raises(LostRace, match="another move reached table"):
        await app.act(played.table_id, 0, played.credentials(0), move)
    assert tried == [played.mirror.version] * 2


async def test_a_pinned_move_is_tried_once_more_from_the_store_then_refused(
    app: Parlour, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (issue 32) what beat it may be a chat line, which leaves the move standing: the
    # retry reads the store, and refuses the move as stale only if a move came since
    played, move = await first_move(app)
    version = played.mirror.version
    tried = losing(app.store, monkeypatch)
    with pytest.raises(LostRace):
        await app.act(played.table_id, 0, played.credentials(0), move, expected_version=version)
    assert tried == [version] * 2


async def test_a_fold_changed_by_a_move_that_lost_its_race_is_folded_again(
    app: Parlour, monkeypatch: pytest.MonkeyPatch
) -> None:
    played, move = await first_move(app)
    version = played.mirror.version
    losing(app.store, monkeypatch)
    with pytest.raises(LostRace):
        await app.act(played.table_id, 0, played.credentials(0), move, expected_version=version)
    monkeypatch.undo()
    starts = reads(app.store, monkeypatch)
    seen = await app.view(played.table_id, 0, played.credentials(0), min_version=version)
    assert starts == [0]  # evicted: the whole log is folded again
    assert seen.version == version and seen.view is not None
    assert move in {str(action) for action in seen.view.legal_actions}  # not played


async def test_an_illegal_move_keeps_the_cached_fold(
    app: Parlour, monkeypatch: pytest.MonkeyPatch
) -> None:
    played, _ = await first_move(app)
    version = played.mirror.version
    state = played.mirror.state
    assert state is not None
    held = {str(card) for card in state.hand(0)}
    other = next(str(card) for card in state.hand(1) if str(card) not in held)
    with pytest.raises(EngineError):
        await app.act(
            played.table_id, 0, played.credentials(0), f"play {other}", expected_version=version
        )
    starts = reads(app.store, monkeypatch)
    seen = await app.view(played.table_id, 0, played.credentials(0), min_version=version)
    assert starts == []  # nothing was changed: the cache still answers, without a read
    assert seen.version == version


async def test_joining_is_tried_twice_and_starting_once(
    app: Parlour, monkeypatch: pytest.MonkeyPatch
) -> None:
    hosted = await app.host_table("hearts", 4, {}, host_player_name="Ada", host_takes_seat=True)
    table_id = hosted.table.table_id
    tried = losing(app.store, monkeypatch)
    with pytest.raises(LostRace, match="while joining"):
        await app.join(table_id, "Bo")
    assert tried == [2, 2]
    tried.clear()
    with pytest.raises(LostRace, match="while leaving"):
        await app.leave(table_id, 0, Credentials(seat_token=hosted.seat_token))
    assert tried == [2, 2]
    monkeypatch.undo()
    for name in ("Bo", "Cy", "Di"):
        await app.join(table_id, name)
    tried = losing(app.store, monkeypatch)
    with pytest.raises(LostRace, match="while starting"):
        await app.start(table_id, Credentials(host_token=hosted.host_token))
    assert tried == [5]
