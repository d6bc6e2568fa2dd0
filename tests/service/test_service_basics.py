"""The service's plumbing over real gRPC: health, reflection, the catalogue,
the lobby's life cycle, and what Watch streams show (and hide)."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from parlour.client import ParlourClient, ParlourError, SyncParlourClient
from parlour.engine.registry import all_games
from parlour.service.domain.clock import CLOCK_OPTIONS
from parlour.service.domain.table_options import TABLE_OPTIONS
from parlour.v1 import catalogue_pb2, lobby_pb2, play_pb2
from tests.service.harness import running_service, seated_table


async def test_health_check_says_serving(sqlite_url: str) -> None:
    async with (
        running_service(sqlite_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        health = health_pb2_grpc.HealthStub(channel)
        for name in (
            "",
            "parlour.v1.PlayService",
            "parlour.v1.LobbyService",
            "parlour.v1.AnalysisService",
        ):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection_lists_the_services(sqlite_url: str) -> None:
    async with (
        running_service(sqlite_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = [reply async for reply in reflection.ServerReflectionInfo(iter([request]))]
        names = {item.name for item in replies[0].list_services_response.service}
        assert {
            "parlour.v1.CatalogueService",
            "parlour.v1.LobbyService",
            "parlour.v1.PlayService",
            "parlour.v1.AnalysisService",
            "grpc.health.v1.Health",
        } <= names


async def test_the_catalogue_publishes_every_game_and_its_options(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        games = await service.client.list_games()
        assert [game.id for game in games] == [info.id for info in all_games()]
        assert all(not game.rules_text for game in games)
        for info, game in zip(all_games(), games, strict=True):
            assert (game.min_seats, game.max_seats) == (info.min_seats, info.max_seats)
            # the game's own options, then the turn clock's and the table's (every game has them)
            assert [option.name for option in game.options] == [
                spec.name for spec in (*info.options, *CLOCK_OPTIONS, *TABLE_OPTIONS)
            ]
            for option in game.options:
                assert option.type != catalogue_pb2.OPTION_TYPE_UNSPECIFIED
                assert option.default_value in option.allowed_values
        hearts = await service.client.get_game("hearts")
        assert "Hearts" in hearts.rules_text or "hearts" in hearts.rules_text


async def test_a_table_seats_exactly_what_the_host_set_up(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        hosted = await service.client.host_table(
            "wizard",
            seat_setup=[("person", ""), ("bot", "normal"), ("person", ""), ("bot", "")],
            options={"screw_the_dealer": True},
            name="Friday",
            host_player_name="Ada",
            host_takes_seat=True,
            host_seat=2,
        )
        table = hosted.table
        assert table.seat_count == 4 and table.name == "Friday"
        assert [seat.kind for seat in table.seats] == [
            lobby_pb2.SEAT_KIND_PERSON,
            lobby_pb2.SEAT_KIND_BOT,
            lobby_pb2.SEAT_KIND_PERSON,
            lobby_pb2.SEAT_KIND_BOT,
        ]
        assert hosted.seat == 2 and table.seats[2].player_name == "Ada"
        assert table.options["screw_the_dealer"] == "true"
        assert set(table.options) == {spec.name for spec in all_games()[0].options}
        assert len(hosted.host_token) >= 43 and len(hosted.seat_token) >= 43
        listed = await service.client.list_tables(game="wizard")
        assert [t.table_id for t in listed] == [table.table_id]
        assert await service.client.list_tables(game="hearts") == []
        assert await service.client.list_tables(status="playing") == []
        # tokens are stored only as hashes
        row = service.log.table(table.table_id)
        assert hosted.seat_token not in repr(row) and hosted.host_token not in repr(row)


async def test_leaving_frees_the_seat_and_retires_the_token(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4, start=False)
        leaver = table.seats[3]
        freed = await leaver.leave()
        assert not freed.seats[3].occupied and freed.seats[3].player_name == ""
        with pytest.raises(ParlourError) as caught:
            await leaver.view()
        assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
        joined = await service.client.join_table(table.table_id, "Dee")
        assert joined.seat == 3
        await service.client.start_table(table.table_id, table.host_token)
        with pytest.raises(ParlourError) as late:
            await table.seats[0].leave()
        assert late.value.code == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_lobby_watch_shows_seats_filling_then_the_deal(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 3, start=False)
        stream = service.client.watch(table.table_id)
        lobby = await anext(stream)
        assert lobby.view.phase == "lobby"
        assert lobby.view.table_status == lobby_pb2.TABLE_STATUS_OPEN
        assert [e.type for e in lobby.events] == [
            "TableHosted",
            "SeatTaken",
            "SeatTaken",
            "SeatTaken",
        ]
        assert [p.player_name for p in lobby.view.players] == ["Host", "Player 1", "Player 2"]
        await service.client.start_table(table.table_id, table.host_token)
        started = await asyncio.wait_for(anext(stream), timeout=5)
        await stream.aclose()
        assert [e.type for e in started.events] == ["GameStarted", "CardsDealt"]
        assert started.view.phase != "lobby" and not started.view.hand


async def test_a_seat_watch_hides_the_cards_other_seats_pass(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        watcher = table.seats[1]
        stream = watcher.watch()
        first = await anext(stream)
        for seat in (table.seats[0], table.seats[1]):
            current = await seat.view()
            await seat.act(current.view.legal_actions[0].id, expected_version=current.version)
        gives: list[play_pb2.PublicEvent] = []
        version = first.version
        while len(gives) < 2:
            update = await asyncio.wait_for(anext(stream), timeout=5)
            gives += [e for e in update.events if e.type == "ActionTaken"]
            version = update.version
        await stream.aclose()
        theirs, mine = gives
        assert theirs.seat == 0 and theirs.action.card == "" and "chose a card" in theirs.text
        assert mine.seat == 1 and mine.action.card != "" and mine.action.card in mine.text
        spectator = service.client.watch(table.table_id, from_version=first.version)
        seen = await anext(spectator)
        await spectator.aclose()
        assert seen.version == version
        assert all(e.action.card == "" for e in seen.events if e.type == "ActionTaken")


async def test_a_watch_ends_when_the_game_is_over(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "crazy8s", 2)
        stream = service.client.watch(table.table_id)
        rng = random.Random(9)
        view = await table.seats[0].view()
        to_act = list(view.view.to_act)
        while to_act:
            seat = table.seats[to_act[0]]
            current = await seat.view()
            choice = rng.choice(current.view.legal_actions)
            to_act = list((await seat.act(choice.id, expected_version=current.version)).view.to_act)
        updates = [update async for update in stream]
        assert updates[-1].view.is_over and updates[-1].events[-1].type == "GameFinished"
        again = [
            update
            async for update in service.client.watch(
                table.table_id, from_version=updates[-1].version
            )
        ]
        assert again == []


async def test_only_an_ai_worker_with_the_worker_token_acts_for_a_bot(sqlite_url: str) -> None:
    async with running_service(sqlite_url, worker_token="s3cret") as service:
        hosted = await service.client.host_table(
            "crazy8s",
            seat_setup=[("person", ""), ("bot", "normal")],
            host_player_name="Ada",
            host_takes_seat=True,
        )
        table_id = hosted.table.table_id
        await service.client.start_table(table_id, hosted.host_token)
        worker = ParlourClient(service.address, worker_token="s3cret")
        impostor = ParlourClient(service.address, worker_token="guess")
        try:
            bot_view = await worker.get_view(table_id, 1)
            assert bot_view.view.seat == 1 and len(bot_view.view.hand) > 0
            with pytest.raises(ParlourError) as caught:
                await impostor.get_view(table_id, 1)
            assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
            # the worker token is no key to a person's seat
            with pytest.raises(ParlourError) as person:
                await worker.get_view(table_id, 0)
            assert person.value.code == grpc.StatusCode.PERMISSION_DENIED
            view = bot_view
            while 1 not in view.view.to_act:
                mine = await service.client.get_view(table_id, 0, hosted.seat_token)
                legal = mine.view.legal_actions[0].id
                await service.client.act(
                    table_id, 0, hosted.seat_token, legal, expected_version=mine.version
                )
                view = await worker.get_view(table_id, 1)
            done = await worker.act(
                table_id, 1, None, view.view.legal_actions[0].id, expected_version=view.version
            )
            assert done.version > view.version and done.view.seat == 1
        finally:
            await worker.close()
            await impostor.close()


def test_the_sync_client_wraps_every_call(sqlite_url: str) -> None:
    async def main() -> None:
        async with running_service(sqlite_url) as service:
            await asyncio.to_thread(use_sync_client, service.address)

    asyncio.run(main())


def use_sync_client(address: str) -> None:
    with SyncParlourClient(address) as client:
        assert [game.id for game in client.list_games()] == [info.id for info in all_games()]
        hosted = client.host_table("crazy8s", 2, host_player_name="Ada", host_takes_seat=True)
        client.join_table(hosted.table.table_id, "Bo")
        client.start_table(hosted.table.table_id, hosted.host_token)
        view = client.get_view(hosted.table.table_id, 0, hosted.seat_token)
        assert len(view.view.hand) > 0
        first = next(iter(client.watch(hosted.table.table_id, 0, hosted.seat_token)))
        assert first.version == view.version
