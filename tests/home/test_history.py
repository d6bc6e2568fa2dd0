"""History (issue 31, point 1) over real gRPC, on SQLite and Postgres: HomeService.ListMyGames
answers the tables an account sat at, newest first, in pages, open, playing and ended
alike, each with its players, result and how it ended; and GetTableRatings gives the
ratings to show beside the names."""

from __future__ import annotations

import random
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest

from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    home_pb2,
    home_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.service.harness import Service, running_service


@dataclass
class Stubs:
    service: Service
    accounts: accounts_pb2_grpc.AccountServiceStub
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub
    home: home_pb2_grpc.HomeServiceStub


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
async def stubs(store_url: str) -> AsyncIterator[Stubs]:
    async with (
        running_service(store_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        yield Stubs(
            service,
            accounts_pb2_grpc.AccountServiceStub(channel),
            lobby_pb2_grpc.LobbyServiceStub(channel),
            play_pb2_grpc.PlayServiceStub(channel),
            home_pb2_grpc.HomeServiceStub(channel),
        )


async def signed_in(stubs: Stubs, name: str) -> str:
    device = accounts_pb2.AuthenticateDeviceRequest(device_secret=secrets.token_urlsafe(32))
    token: str = (await stubs.accounts.AuthenticateDevice(device)).session_token
    claim = accounts_pb2.ClaimNameRequest(name=name, password="correct horse")
    await stubs.accounts.ClaimName(claim, metadata=bearer(token))
    return token


async def two_seat_table(stubs: Stubs, host: str, guest: str, *, start: bool = True) -> str:
    """Crazy 8s for two: ``host`` in seat 0, ``guest`` in seat 1 (by their sessions)."""
    hosted = await stubs.lobby.HostTable(
        lobby_pb2.HostTableRequest(
            game="crazy8s",
            seats=2,
            options={"rounds": "1"},
            host_player_name="Ada",
            host_takes_seat=True,
        ),
        metadata=bearer(host),
    )
    table_id: str = hosted.table.table_id
    await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Bea"), metadata=bearer(guest)
    )
    if start:
        await stubs.lobby.StartTable(
            lobby_pb2.StartTableRequest(table_id=table_id),
            metadata=(("x-parlour-host-token", hosted.host_token),),
        )
    return table_id


async def play_to_the_end(stubs: Stubs, table_id: str, sessions: list[str]) -> play_pb2.View:
    rng = random.Random(table_id)
    for _ in range(2000):
        view = (
            await stubs.play.GetView(
                play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata=bearer(sessions[0])
            )
        ).view
        if view.is_over:
            return view
        seat = rng.choice(list(view.to_act))
        mine = await stubs.play.GetView(
            play_pb2.GetViewRequest(table_id=table_id, seat=seat), metadata=bearer(sessions[seat])
        )
        pick = rng.randrange(len(mine.view.legal_actions)) + 1
        await stubs.play.Act(
            play_pb2.ActRequest(
                table_id=table_id, seat=seat, expected_version=mine.version, legal_action_id=pick
            ),
            metadata=bearer(sessions[seat]),
        )
    raise AssertionError("the game did not end")


async def my_games(stubs: Stubs, token: str, **request: object) -> home_pb2.ListMyGamesResponse:
    answer: home_pb2.ListMyGamesResponse = await stubs.home.ListMyGames(
        home_pb2.ListMyGamesRequest(**request),
        metadata=bearer(token),  # type: ignore[arg-type]
    )
    return answer


async def test_my_games_lists_every_table_i_sat_at_newest_first_with_its_result(
    stubs: Stubs,
) -> None:
    ada, bea, cy = [await signed_in(stubs, name) for name in ("Ada", "Bea", "Cyd")]
    finished = await two_seat_table(stubs, ada, bea)
    final = await play_to_the_end(stubs, finished, [ada, bea])
    playing = await two_seat_table(stubs, ada, cy)
    waiting = await two_seat_table(stubs, bea, ada, start=False)

    games = (await my_games(stubs, ada)).games
    assert [game.table_id for game in games] == [waiting, playing, finished]
    assert [game.status for game in games] == [
        lobby_pb2.TABLE_STATUS_OPEN,
        lobby_pb2.TABLE_STATUS_PLAYING,
        lobby_pb2.TABLE_STATUS_FINISHED,
    ]
    assert [game.ending for game in games] == [
        home_pb2.ENDING_UNSPECIFIED,
        home_pb2.ENDING_UNSPECIFIED,
        home_pb2.ENDING_FINISHED,
    ]
    assert [game.my_seat for game in games] == [1, 0, 0]
    done = games[2]
    assert done.game == "crazy8s" and done.created_at.seconds > 0
    assert [(p.seat, p.player_name, p.mine) for p in done.players] == [
        (0, "Ada", True),
        (1, "Bea", False),
    ]
    assert [p.score for p in done.players] == list(final.scores)
    assert [p.seat for p in done.players if p.winner] == list(final.winners)
    assert done.won == (0 in final.winners)
    # Bea sees the finished table and her open one, not Ada and Cyd's
    assert [game.table_id for game in (await my_games(stubs, bea)).games] == [waiting, finished]
    assert [game.table_id for game in (await my_games(stubs, cy)).games] == [playing]

    # the table's ratings, to show beside the names: both accounts rated once
    ratings = await stubs.home.GetTableRatings(home_pb2.GetTableRatingsRequest(table_id=finished))
    assert [seat.seat for seat in ratings.seats] == [0, 1]
    assert [seat.rating.name for seat in ratings.seats] == ["Ada", "Bea"]
    assert all(s.rating.games == 1 and s.rating.provisional for s in ratings.seats)
    winner = final.winners[0]
    assert ratings.seats[winner].rating.ordinal > ratings.seats[1 - winner].rating.ordinal
    board = await stubs.home.GetLeaderboard(home_pb2.GetLeaderboardRequest(game="crazy8s"))
    # Cyd has no rated game: not on the board
    names = [seat.rating.name for seat in ratings.seats]
    assert [r.name for r in board.ratings] == [names[winner], names[1 - winner]]
    assert board.first_rank == 1 and board.next_page_token == ""


async def test_my_games_pages_never_repeat_and_belong_to_their_account(stubs: Stubs) -> None:
    ada, bea = await signed_in(stubs, "Ada"), await signed_in(stubs, "Bea")
    made = [await two_seat_table(stubs, ada, bea, start=False) for _ in range(5)]
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page = await my_games(stubs, ada, page_size=2, page_token=token)
        seen += [game.table_id for game in page.games]
        pages += 1
        token = page.next_page_token
        if not token:
            break
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # Bea cannot use Ada's token
            await my_games(stubs, bea, page_size=2, page_token=token)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert seen == made[::-1] and pages == 3
    # a seat left before the start leaves the history too (the seats' trigger keeps it)
    assert len((await my_games(stubs, bea, page_size=10)).games) == 5
    await stubs.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=made[0], seat=1), metadata=bearer(bea)
    )
    left = [game.table_id for game in (await my_games(stubs, bea, page_size=10)).games]
    assert left == made[:0:-1]


async def test_my_games_needs_a_live_session_and_a_page_size_in_range(stubs: Stubs) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stubs.home.ListMyGames(home_pb2.ListMyGamesRequest())
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    ada = await signed_in(stubs, "Ada")
    for size in (-1, 101):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await my_games(stubs, ada, page_size=size)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "page_size must be 0 to 100" in str(refused.value.details())
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stubs.home.GetTableRatings(home_pb2.GetTableRatingsRequest(table_id="nosuchtable"))
    assert refused.value.code() is grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stubs.home.GetLeaderboard(home_pb2.GetLeaderboardRequest(game="chess"))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_many_tables_ratings_in_one_call_as_each_tables_own(stubs: Stubs) -> None:
    """GetTablesRatings: the lobby's list in one call, each table as GetTableRatings
    answers it; a table that is gone is left out, more than 50 ids refused."""
    ada, bea, cy = [await signed_in(stubs, name) for name in ("Ada", "Bea", "Cyd")]
    await play_to_the_end(stubs, await two_seat_table(stubs, ada, bea), [ada, bea])
    rated = await two_seat_table(stubs, ada, bea, start=False)  # both rated once
    unrated = await two_seat_table(stubs, cy, ada, start=False)  # Cyd never played
    asked = [unrated, "nosuchtable", rated, unrated]
    answer = await stubs.home.GetTablesRatings(home_pb2.GetTablesRatingsRequest(table_ids=asked))
    assert [entry.table_id for entry in answer.tables] == [unrated, rated]
    for entry in answer.tables:
        alone = await stubs.home.GetTableRatings(
            home_pb2.GetTableRatingsRequest(table_id=entry.table_id)
        )
        assert list(entry.seats) == list(alone.seats)
    by_table = {entry.table_id: entry.seats for entry in answer.tables}
    assert [s.rating.name for s in by_table[rated]] == ["Ada", "Bea"]
    assert all(s.rating.games == 1 and s.rating.provisional for s in by_table[rated])
    assert [s.HasField("rating") for s in by_table[unrated]] == [False, True]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stubs.home.GetTablesRatings(home_pb2.GetTablesRatingsRequest(table_ids=[rated] * 51))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
