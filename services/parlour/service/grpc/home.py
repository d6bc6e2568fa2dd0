"""The gRPC servicer of HomeService (``proto/parlour/v1/home.proto``, issue 31).

Translation only: the session from the call's ``authorization`` metadata, the
use cases ``app/history.py`` and ``app/ratings.py``'s, every refusal answered
by the guards of ``status.py``.
"""

from __future__ import annotations

from parlour.service.app.accounts import bearer_token
from parlour.service.app.history import GameEntry
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.app.ratings import provisional
from parlour.service.app.rematch import RematchState
from parlour.service.domain.errors import TableNotFound
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.grpc import convert
from parlour.service.grpc.servicers import authorization
from parlour.service.grpc.status import Context, unary
from parlour.service.store.home import RatingRow
from parlour.service.store.protocol import TableRow
from parlour.v1 import home_pb2, home_pb2_grpc, lobby_pb2

ENDINGS = {
    "finished": home_pb2.ENDING_FINISHED,
    "abandoned": home_pb2.ENDING_ABANDONED,
    "expired": home_pb2.ENDING_EXPIRED,
}


def rating_message(row: RatingRow) -> home_pb2.Rating:
    """A rating as the contract gives it (a bot level is named by its level)."""
    name = row.subject.rsplit(":", 1)[-1] if row.bot else (row.name or "")
    return home_pb2.Rating(
        subject=row.subject,
        name=name,
        mu=row.mu,
        sigma=row.sigma,
        ordinal=row.ordinal,
        games=row.games,
        provisional=provisional(row),
        bot=row.bot,
    )


def seat_ratings(table: TableRow, found: list[RatingRow | None]) -> list[home_pb2.SeatRating]:
    """A table's seats' ratings, in seat order (a seat without one has no ``rating``)."""
    return [
        home_pb2.SeatRating(seat=seat.seat, rating=rating_message(row) if row else None)
        for seat, row in zip(table.seat_rows, found, strict=True)
    ]


def game_message(entry: GameEntry) -> home_pb2.GameRecord:
    row, result = entry.row, entry.row.result
    winners = set(result.winners) if result else set()
    message = home_pb2.GameRecord(
        table_id=row.table_id,
        game=row.game,
        name=row.name,
        status=convert.STATUS_TO_PROTO.get(row.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
        my_seat=entry.my_seat,
        ending=ENDINGS.get(entry.ending, home_pb2.ENDING_UNSPECIFIED),
        won=entry.won,
        players=[
            home_pb2.GamePlayer(
                seat=seat.seat,
                kind=convert.SEAT_KIND_TO_PROTO.get(seat.kind, lobby_pb2.SEAT_KIND_UNSPECIFIED),
                bot_level=seat.bot_level or "" if seat.kind == SeatKind.BOT else "",
                player_name=seat.player_name or "",
                score=result.scores[seat.seat] if result and seat.seat < len(result.scores) else 0,
                winner=seat.seat in winners,
                mine=seat.seat == entry.my_seat,
            )
            for seat in row.seats
        ],
    )
    message.created_at.FromDatetime(row.created_at)
    message.updated_at.FromDatetime(row.updated_at)
    return message


def rematch_message(state: RematchState) -> home_pb2.Rematch:
    """An ended table's rematch: who accepted (a bot always has)."""
    rematch = state.rematch
    taken = {row.seat for row in rematch.seat_rows if row.occupied} if rematch else set()
    message = home_pb2.Rematch(
        table_id=state.ended.table_id,
        rematch_table_id=rematch.table_id if rematch else "",
        started=rematch is not None and rematch.status != TableStatus.OPEN,
        my_seat=-1 if state.my_seat is None else state.my_seat,
        seats=[
            home_pb2.RematchSeat(
                seat=row.seat,
                kind=convert.SEAT_KIND_TO_PROTO.get(row.kind, lobby_pb2.SEAT_KIND_UNSPECIFIED),
                player_name=row.player_name or "",
                bot_level=row.bot_level or "" if row.kind == SeatKind.BOT else "",
                accepted=row.seat in taken,
                held=row.seat in state.holds,
                declined=row.seat in state.declined,
            )
            for row in state.ended.seat_rows
        ],
    )
    if state.holds:
        message.held_until.FromDatetime(min(hold.until for hold in state.holds.values()))
    return message


class HomeServicer(home_pb2_grpc.HomeServiceServicer):
    """HomeService over the application's history, ratings and leaderboards."""

    def __init__(self, app: Parlour) -> None:
        self.app = app

    @unary
    async def ListMyGames(
        self, request: home_pb2.ListMyGamesRequest, context: Context
    ) -> home_pb2.ListMyGamesResponse:
        caller = await self.app.accounts.caller(bearer_token(authorization(context)))
        entries, token = await self.app.history.my_games(
            caller.account.account_id, request.page_size, request.page_token
        )
        return home_pb2.ListMyGamesResponse(
            games=[game_message(entry) for entry in entries], next_page_token=token
        )

    @unary
    async def GetLeaderboard(
        self, request: home_pb2.GetLeaderboardRequest, context: Context
    ) -> home_pb2.GetLeaderboardResponse:
        rows, first, token = await self.app.leaderboard.page(
            request.game,
            include_bots=request.include_bots,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        return home_pb2.GetLeaderboardResponse(
            ratings=[rating_message(row) for row in rows], first_rank=first, next_page_token=token
        )

    @unary
    async def GetTableRatings(
        self, request: home_pb2.GetTableRatingsRequest, context: Context
    ) -> home_pb2.GetTableRatingsResponse:
        table = await self.app.get_table(request.table_id)
        found = await self.app.leaderboard.of_table(table)
        return home_pb2.GetTableRatingsResponse(seats=seat_ratings(table, found))

    @unary
    async def GetTablesRatings(
        self, request: home_pb2.GetTablesRatingsRequest, context: Context
    ) -> home_pb2.GetTablesRatingsResponse:
        tables = []
        for table_id in dict.fromkeys(request.table_ids):  # each once, in the order asked
            try:
                tables.append(await self.app.get_table(table_id))
            except TableNotFound:  # ended and gone since the lobby listed it: left out
                continue
        found = await self.app.leaderboard.of_tables(tables)
        return home_pb2.GetTablesRatingsResponse(
            tables=[
                home_pb2.TableRatings(table_id=table.table_id, seats=seat_ratings(table, rows))
                for table, rows in zip(tables, found, strict=True)
            ]
        )

    async def _account(self, context: Context) -> Credentials:
        return await self.app.identify(Credentials(), authorization(context))

    @unary
    async def PlayAgain(
        self, request: home_pb2.PlayAgainRequest, context: Context
    ) -> home_pb2.PlayAgainResponse:
        credentials = await self._account(context)
        again = await self.app.rematches.play_again(request.table_id, credentials)
        return home_pb2.PlayAgainResponse(
            rematch=rematch_message(again.state),
            seat=again.seat,
            seat_token=again.seat_token,
            host_token=again.host_token,
        )

    @unary
    async def GetRematch(
        self, request: home_pb2.GetRematchRequest, context: Context
    ) -> home_pb2.GetRematchResponse:
        credentials = await self._account(context)
        state = await self.app.rematches.state(request.table_id, credentials.account_id)
        return home_pb2.GetRematchResponse(rematch=rematch_message(state))

    @unary
    async def DeclineRematch(
        self, request: home_pb2.DeclineRematchRequest, context: Context
    ) -> home_pb2.DeclineRematchResponse:
        credentials = await self._account(context)
        state = await self.app.rematches.decline(request.table_id, credentials)
        return home_pb2.DeclineRematchResponse(rematch=rematch_message(state))
