"""A player's home for client-library programs (``proto/parlour/v1/home.proto``, issue
31): their games, a game's leaderboard, the ratings of a table's seats. The session
comes from the client's :class:`~parlour.client.accounts.SessionMetadata`."""

from __future__ import annotations

from typing import Any

from parlour.client.accounts import ParlourClient
from parlour.v1 import home_pb2, home_pb2_grpc


async def _call(client: ParlourClient, method: str, request: Any) -> Any:
    def run(stubs: Any) -> Any:
        stub = home_pb2_grpc.HomeServiceStub(stubs.channel)
        return getattr(stub, method)(request, timeout=client.timeout)

    return await client._call(run, idempotent=True)


async def list_my_games(
    client: ParlourClient, page_size: int = 0, page_token: str = ""
) -> home_pb2.ListMyGamesResponse:
    """A page of the signed-in account's tables, newest first."""
    request = home_pb2.ListMyGamesRequest(page_size=page_size, page_token=page_token)
    response: home_pb2.ListMyGamesResponse = await _call(client, "ListMyGames", request)
    return response


async def get_leaderboard(
    client: ParlourClient,
    game: str,
    *,
    include_bots: bool = False,
    page_size: int = 0,
    page_token: str = "",
) -> home_pb2.GetLeaderboardResponse:
    """A page of ``game``'s ratings, best first."""
    request = home_pb2.GetLeaderboardRequest(
        game=game, include_bots=include_bots, page_size=page_size, page_token=page_token
    )
    response: home_pb2.GetLeaderboardResponse = await _call(client, "GetLeaderboard", request)
    return response


async def get_table_ratings(client: ParlourClient, table_id: str) -> list[home_pb2.SeatRating]:
    """Each seat's rating at the table (a seat without one has no ``rating``)."""
    request = home_pb2.GetTableRatingsRequest(table_id=table_id)
    response: home_pb2.GetTableRatingsResponse = await _call(client, "GetTableRatings", request)
    return list(response.seats)


async def get_tables_ratings(
    client: ParlourClient, table_ids: list[str]
) -> dict[str, list[home_pb2.SeatRating]]:
    """Each table's seats' ratings in one call (at most 50 tables; a table that is gone
    is left out)."""
    request = home_pb2.GetTablesRatingsRequest(table_ids=table_ids)
    response: home_pb2.GetTablesRatingsResponse = await _call(client, "GetTablesRatings", request)
    return {entry.table_id: list(entry.seats) for entry in response.tables}
