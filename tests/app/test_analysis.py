"""Which decisions an analysis judges (``app/analysis.person_decisions``), over the
memory store: every move of a person's seat with that seat's own view right before
it and the id it played; not the moves a bot made for a person whose clock ran out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from parlour.service.app.analysis import person_decisions
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.fold import fold
from parlour.service.store.memory import MemoryEventStore
from tests.app.conftest import WORKER_TOKEN, later, playing

WORKER = Credentials(worker_token=WORKER_TOKEN, worker_id="w1")


async def test_a_persons_moves_are_judged_but_not_a_bots_for_them_while_away(
    app: Parlour, store: MemoryEventStore, clock: Callable[[datetime], None]
) -> None:
    seated = await playing(app, options={"turn_seconds": 30})  # Hearts: everyone passes
    table_id = seated.table_id
    version = (await app.get_table(table_id)).version
    clock(later())
    assert await app.time_out(table_id, 0, version)  # seat 0's clock ran out: a bot plays it
    away = await app.view(table_id, 0, seated.seat(0))
    by_bot = await app.act(table_id, 0, WORKER, 1, expected_version=away.version)
    mine = await app.view(table_id, 1, seated.seat(1))
    assert mine.view is not None
    chosen = len(mine.view.legal_actions)  # the last legal action, by id
    await app.act(table_id, 1, seated.seat(1), chosen, expected_version=mine.version)
    events = await store.read(table_id)
    table = await app.get_table(table_id)
    found = person_decisions(table, events)
    # the bot's move for seat 0 is not seat 0's person's; seat 1's is
    assert [(decision.seq, decision.seat) for decision in found] == [(mine.version + 1, 1)]
    assert by_bot.version == away.version + 1
    (decision,) = found
    assert decision.played == chosen
    # the seat's own view right before the move: the engine's, for that seat only
    before = fold(events[: decision.seq - 1]).state
    assert before is not None and decision.view == before.view(1)
    assert decision.view == mine.view
    assert str(decision.legal[decision.played - 1]) == events[decision.seq - 1].payload["action"]
