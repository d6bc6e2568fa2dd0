"""Whole games through the contract: host, join, start and play to the end over
real gRPC, on SQLite and on Postgres, choosing random legal-action ids from each
seat's view, and checking on every response that no seat sees another's cards."""

from __future__ import annotations

import random

import grpc
import pytest

from parlour.client import ParlourError
from parlour.v1 import lobby_pb2
from tests.service.harness import Truth, play_randomly, running_service, seated_table

GAMES = [
    pytest.param("wizard", 6, {}, id="wizard-six-handed"),
    pytest.param("crazy8s", 4, {}, id="crazy8s"),
    pytest.param("kaiser", 4, {}, id="kaiser"),
    pytest.param("hearts", 4, {}, id="hearts"),
]


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
async def test_a_full_game_plays_to_the_end_through_the_contract(
    store_url: str, game: str, seats: int, options: dict[str, object]
) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, game, seats, options)
        started = await service.client.get_table(table.table_id)
        assert started.status == lobby_pb2.TABLE_STATUS_PLAYING
        assert started.seat_count == seats

        truth = Truth(service.log, table.table_id)
        final = await play_randomly(table, random.Random(f"{game}{seats}"), truth=truth)

        assert final.is_over and final.winners
        assert final.table_status == lobby_pb2.TABLE_STATUS_FINISHED
        finished = await service.client.get_table(table.table_id)
        assert finished.status == lobby_pb2.TABLE_STATUS_FINISHED
        events = service.log.read(table.table_id)
        assert events[-1].type == "GameFinished"
        assert events[-1].payload["winners"] == list(final.winners)
        assert events[-1].payload["scores"] == list(final.scores)
        # Nothing more can be played once the game is over.
        with pytest.raises(ParlourError) as refused:
            await table.seats[0].act("play 2C")
        assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert service.event_count(table.table_id) == events[-1].seq


async def test_a_six_handed_wizard_table_seats_exactly_six(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "wizard", 6, start=False)
        hosted = await service.client.get_table(table.table_id)
        assert hosted.seat_count == 6 and len(hosted.seats) == 6
        assert all(seat.occupied for seat in hosted.seats)
        await service.client.start_table(table.table_id, table.host_token)
        view = (await table.seats[5].view()).view
        assert view.seat_count == 6 and len(view.players) == 6
        assert len(view.hand) == 1  # round one: one card each
        assert [player.player_name for player in view.players] == [
            "Host",
            *(f"Player {n}" for n in range(1, 6)),
        ]
