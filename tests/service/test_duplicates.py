"""A resent request (same request id) is applied at most once and answered with its first result.

At the application layer on SQLite: the resend that arrives with the version
it was decided at (stale now) is answered from the cached state, and one
that names the current version and races its own first try (a
DuplicateRequest from the store) is answered too, without deadlocking on
the table's lock; another move under the same request id is refused.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from parlour.service.app.parlour import Parlour
from parlour.service.domain.errors import RequestIdReused
from parlour.service.notify import make_notifier
from tests.dblog import DbLog
from tests.replay.games import open_store, seat_table


async def test_a_resent_request_gives_its_first_answer_and_one_event(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'parlour.sqlite3'}"
    store = open_store(url)
    app = Parlour(store, make_notifier(store))
    try:
        played = await seat_table(app, "hearts", 4)
        table_id, me = played.table_id, played.credentials(0)
        state = played.mirror.state
        assert state is not None
        first, second = state.legal_actions(0)[:2]  # two cards seat 0 may pass
        version = played.mirror.version
        done = await app.act(table_id, 0, me, first, expected_version=version, request_id="r1")
        assert done.version == version + 1 and not done.duplicate
        # resent as it was: its version is stale now, the cached state answers
        again = await app.act(table_id, 0, me, first, expected_version=version, request_id="r1")
        assert (again.version, again.duplicate) == (done.version, True)
        assert again.view is not None and done.view is not None
        assert list(again.view.passed_cards) == list(done.view.passed_cards)
        # the same request id with another move at the current version: the store
        # refuses it as a duplicate, and since it is not the same move it is refused
        # (the request id is bound to its table, seat and move), not dropped in silence
        with pytest.raises(RequestIdReused):
            await asyncio.wait_for(
                app.act(table_id, 0, me, second, expected_version=done.version, request_id="r1"),
                10,
            )
        # the same move at the current version races its first try the same way: answered
        same = await asyncio.wait_for(
            app.act(table_id, 0, me, first, expected_version=done.version, request_id="r1"), 10
        )
        assert (same.version, same.duplicate) == (done.version, True)
        log = DbLog(url)
        assert [event.request_id for event in log.read(table_id, version)] == ["r1"]
        log.close()
        # and the table plays on from there
        nxt = await app.act(table_id, 0, me, second, expected_version=done.version)
        assert nxt.version == done.version + 1
    finally:
        await store.close()
