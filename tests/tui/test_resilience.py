"""A dropped connection resumes from the last version seen; a restarted client rejoins."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import DataTable

from parlour.client import ParlourClient
from parlour.tui.app import ParlourApp
from parlour.tui.lobby import LobbyScreen
from parlour.tui.opening import OpenFailed, open_seat
from parlour.tui.saved import SavedSeat, SeatBook, state_dir
from parlour.tui.table import TableScreen
from tests.tui.conftest import Service, shoot, wait_until
from tests.tui.helpers import fill_seats, host_through_the_lobby, my_turn, name_trump_if_asked


async def test_a_dropped_connection_resumes_from_the_last_version_and_misses_nothing(
    service: Service, make_app: Callable[[], ParlourApp]
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "wizard", 3, {"rounds": "5"})
        others = await fill_seats(service.client, table, 2)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")  # start: seat 1 bids first, then seat 2, then this seat
        await wait_until(pilot, lambda: table.view.phase in ("bid", "trump"))
        await name_trump_if_asked(pilot, table)
        await wait_until(pilot, lambda: table.view.phase == "bid")
        seen = table.watched_version

        port = service.server.port
        await service.stop()
        await wait_until(pilot, lambda: "offline" in table.connection.plain)
        await shoot(pilot, "reconnect-lost")

        # While this terminal is cut off, the others bid through another replica
        # serving the same database.
        replica = Service.__new__(Service)
        replica.url, replica.seed = service.url, 0
        await replica.start()
        async with ParlourClient(replica.address) as elsewhere:
            for seat in others:
                moved = elsewhere.seat(seat.table_id, seat.seat, seat.token)
                current = await moved.view()
                await moved.act(current.view.legal_actions[0].id, expected_version=current.version)
        await replica.stop()
        await service.start(port)
        latest = service.log.last_seq(table.seat.table_id)
        assert latest == seen + 2

        await wait_until(pilot, lambda: table.watched_version == latest, what="the resumed stream")
        assert "offline" not in table.connection.plain
        versions = [event.version for event in table.events]
        assert versions == list(range(1, latest + 1)), "every event once, none missed"
        assert [e.text for e in table.events[-2:]] == ["seat 1 bid 0", "seat 2 bid 0"]
        assert [p.bid for p in table.view.players] == ["", "0", "0"]
        await shoot(pilot, "reconnect-resumed")

        # And play goes on from here.
        await wait_until(pilot, lambda: my_turn(table))
        await pilot.press("enter")
        await wait_until(pilot, lambda: table.shown_version == latest + 1)


async def test_a_restarted_client_rejoins_its_seat_from_the_saved_token(
    service: Service, make_app: Callable[[], ParlourApp], tmp_path: Path
) -> None:
    first = make_app()
    async with first.run_test(size=(80, 24)) as pilot:
        table = await host_through_the_lobby(pilot, "wizard", 3, {"rounds": "5"})
        await fill_seats(service.client, table, 2)
        await wait_until(pilot, lambda: all(p.player_name for p in table.view.players))
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(table.view.hand))
        hand, table_id = list(table.view.hand), table.seat.table_id

    saved = json.loads((tmp_path / "state" / "seats.json").read_text())
    assert [(s["table_id"], s["seat"]) for s in saved] == [(table_id, 0)]
    assert saved[0]["token"] and saved[0]["server"] == service.address

    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, LobbyScreen))
        lobby = again.screen
        await wait_until(pilot, lambda: lobby.query_one("#mine", DataTable).row_count == 1)
        await shoot(pilot, "lobby-rejoin")
        await pilot.press("r")
        await wait_until(
            pilot, lambda: isinstance(again.screen, TableScreen) and again.screen.view is not None
        )
        rejoined = again.screen
        assert isinstance(rejoined, TableScreen)
        assert rejoined.seat.table_id == table_id
        assert list(rejoined.view.hand) == hand
        assert rejoined.view.seat == 0


def test_the_seat_file_lives_in_parlour_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOUR_STATE_DIR", str(tmp_path / "here"))
    assert state_dir() == tmp_path / "here"
    book = SeatBook()
    book.remember(SavedSeat("127.0.0.1:1", "t1", 2, "secret", "hearts"))
    book.remember(SavedSeat("127.0.0.1:1", "t1", 3, "newer", "hearts"))
    assert [s.token for s in book.load()] == ["newer"]
    # any replica serves any table: the seat is found whatever address it was taken through
    found = book.find("t1")
    assert found is not None and found.token == "newer"
    assert (tmp_path / "here" / "seats.json").stat().st_mode & 0o077 == 0
    book.forget("t1")
    assert book.load() == []


async def test_parlour_play_opens_a_seat_from_its_table_id_and_token(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOUR_STATE_DIR", str(tmp_path / "device-2"))
    hosted = await service.client.host_table(
        "hearts", 4, seat_setup=[("person", "")] * 4, host_player_name="Ada", host_takes_seat=True
    )
    table_id = hosted.table.table_id
    joined = await service.client.join_table(table_id, "Bo")
    # the seat number is found from the token alone (a fork prints just the token)
    opened = await asyncio.to_thread(open_seat, service.address, table_id, joined.seat_token)
    assert (opened.table_id, opened.seat, opened.game) == (table_id, joined.seat, "hearts")
    assert SeatBook().find(table_id) == opened
    with pytest.raises(OpenFailed, match="opens no seat"):
        await asyncio.to_thread(open_seat, service.address, table_id, "not-a-token")
    app = ParlourApp(service.address, state_dir=tmp_path / "state", open_seat=opened)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen))
        assert isinstance(app.screen, TableScreen) and app.screen.seat.seat == joined.seat
