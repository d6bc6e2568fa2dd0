"""The host's moderation over real gRPC, on SQLite and Postgres (issue 30, point 3).

Removing a person before the start (the seat reopens, the account is barred,
a table that removed someone without an account seats only signed-in
players), invite-only seats by seat code, and tables closed to spectators;
the log replays with the new events.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest

from parlour.replay.check import replay
from parlour.service.domain.fold import fold
from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)
from tests.service.harness import Service, running_service
from tests.service.test_accounts import bearer, refused


@dataclass
class Stubs:
    service: Service
    accounts: accounts_pb2_grpc.AccountServiceStub
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub
    replay: replay_pb2_grpc.ReplayServiceStub

    async def guest(self) -> str:
        request = accounts_pb2.AuthenticateDeviceRequest(device_secret=secrets.token_urlsafe(32))
        return str((await self.accounts.AuthenticateDevice(request)).session_token)

    async def host(self, game: str = "hearts", **fields: object) -> lobby_pb2.HostTableResponse:
        request = lobby_pb2.HostTableRequest(
            game=game, host_takes_seat=True, host_player_name="Host", **fields
        )
        if not request.seats and not request.seat_setup:
            request.seats = 4
        response: lobby_pb2.HostTableResponse = await self.lobby.HostTable(request)
        return response

    async def join(self, table_id: str, session: str | None = None, **fields: object) -> int:
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Guest", **fields)
        metadata = bearer(session) if session else ()
        return int((await self.lobby.JoinTable(request, metadata=metadata)).seat)


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
            replay_pb2_grpc.ReplayServiceStub(channel),
        )


def host_token(hosted: lobby_pb2.HostTableResponse) -> tuple[tuple[str, str], ...]:
    return (("x-parlour-host-token", hosted.host_token),)


async def test_the_host_removes_a_signed_in_player_who_may_not_come_back(stubs: Stubs) -> None:
    hosted = await stubs.host()
    table_id = hosted.table.table_id
    grabber = await stubs.guest()
    seat = await stubs.join(table_id, grabber)
    removed = await stubs.lobby.RemoveFromSeat(
        lobby_pb2.RemoveFromSeatRequest(table_id=table_id, seat=seat), metadata=host_token(hosted)
    )
    freed = removed.table.seats[seat]
    assert (freed.occupied, freed.player_name, freed.signed_in) == (False, "", False)
    before = stubs.service.event_count(table_id)
    message = await refused(
        stubs.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Again"),
            metadata=bearer(grabber),
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert "removed you" in message
    assert stubs.service.event_count(table_id) == before
    # the reopened seat is anyone else's, and a table without anonymous removals seats
    # callers without an account too
    assert await stubs.join(table_id, await stubs.guest()) == seat
    await stubs.join(table_id)
    stored = stubs.service.log.read(table_id)
    assert [e.type for e in stored].count("SeatRemoved") == 1
    removal = next(e for e in stored if e.type == "SeatRemoved")
    assert removal.payload["seat"] == seat and removal.payload["account_id"]
    assert fold(stored).barred_accounts == {removal.payload["account_id"]}


async def test_removing_someone_without_an_account_seats_only_signed_in_players(
    stubs: Stubs,
) -> None:
    hosted = await stubs.host()
    table_id = hosted.table.table_id
    joined = await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Stranger")
    )
    await stubs.lobby.RemoveFromSeat(
        lobby_pb2.RemoveFromSeatRequest(table_id=table_id, seat=joined.seat),
        metadata=host_token(hosted),
    )
    # the removed seat's token no longer works
    await refused(
        stubs.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table_id, seat=joined.seat),
            metadata=(("x-parlour-seat-token", joined.seat_token),),
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    message = await refused(
        stubs.lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Back")),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert "only signed-in players" in message
    assert await stubs.join(table_id, await stubs.guest()) == joined.seat


@pytest.mark.parametrize(
    ("case", "code", "words"),
    [
        ("no token", grpc.StatusCode.UNAUTHENTICATED, "host token missing"),
        ("wrong token", grpc.StatusCode.PERMISSION_DENIED, "not the host token"),
        ("a bot's seat", grpc.StatusCode.FAILED_PRECONDITION, "holds no person"),
        ("a free seat", grpc.StatusCode.FAILED_PRECONDITION, "holds no person"),
        ("out of range", grpc.StatusCode.INVALID_ARGUMENT, "seats 0 to 3"),
        ("after the start", grpc.StatusCode.FAILED_PRECONDITION, "is playing, not open"),
    ],
)
async def test_a_removal_against_the_rules_is_refused_and_writes_nothing(
    stubs: Stubs, case: str, code: grpc.StatusCode, words: str
) -> None:
    setup = [lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON) for _ in range(3)]
    setup.append(lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_BOT))
    hosted = await stubs.host(seat_setup=setup)
    table_id = hosted.table.table_id
    seat = await stubs.join(table_id)
    metadata = host_token(hosted)
    if case == "no token":
        metadata = ()
    elif case == "wrong token":
        metadata = (("x-parlour-host-token", "x" * 43),)
    elif case == "a bot's seat":
        seat = 3
    elif case == "a free seat":
        seat = 2
    elif case == "out of range":
        seat = 4
    elif case == "after the start":
        await stubs.join(table_id)
        await stubs.lobby.StartTable(
            lobby_pb2.StartTableRequest(table_id=table_id), metadata=host_token(hosted)
        )
    before = stubs.service.event_count(table_id)
    message = await refused(
        stubs.lobby.RemoveFromSeat(
            lobby_pb2.RemoveFromSeatRequest(table_id=table_id, seat=seat), metadata=metadata
        ),
        code,
    )
    assert words in message
    assert stubs.service.event_count(table_id) == before


async def test_invite_only_seats_open_with_their_code_only(stubs: Stubs) -> None:
    setup = [
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON),
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON, invite_only=True),
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON),
        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON, invite_only=True),
    ]
    hosted = await stubs.host(seat_setup=setup)
    table_id = hosted.table.table_id
    assert [seat.invite_only for seat in hosted.table.seats] == [False, True, False, True]
    codes = {code.seat: code.code for code in hosted.seat_codes}
    assert sorted(codes) == [1, 3] and all(len(code) >= 22 for code in codes.values())
    before = stubs.service.event_count(table_id)
    for fields, code, words in [
        ({"seat": 1}, grpc.StatusCode.PERMISSION_DENIED, "kept for an invited player"),
        ({"seat_code": "not-a-code"}, grpc.StatusCode.PERMISSION_DENIED, "opens no seat"),
        ({"seat": 1, "seat_code": codes[3]}, grpc.StatusCode.PERMISSION_DENIED, "for seat 3"),
    ]:
        message = await refused(
            stubs.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, player_name="X", **fields)
            ),
            code,
        )
        assert words in message
    assert stubs.service.event_count(table_id) == before
    assert await stubs.join(table_id) == 2  # the seat open to anyone, not an invitee's
    message = await refused(
        stubs.lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id, player_name="X")),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert "kept for invited players" in message
    assert await stubs.join(table_id, seat_code=codes[3]) == 3
    assert await stubs.join(table_id, seat=1, seat_code=codes[1]) == 1
    await refused(  # a code opens its seat once
        stubs.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="X", seat_code=codes[1])
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    hosted_event = stubs.service.log.read(table_id)[0]
    hashes = hosted_event.payload["seat_code_hashes"]
    assert [bool(h) for h in hashes] == [False, True, False, True]
    assert all(code not in str(hosted_event.payload) for code in codes.values())


async def test_a_table_closed_to_spectators_shows_nothing_without_a_seat(stubs: Stubs) -> None:
    hosted = await stubs.host("crazy8s", seats=2, options={"spectators": "off"})
    table_id = hosted.table.table_id
    assert hosted.table.options["spectators"] == "off"
    await stubs.join(table_id)
    await stubs.lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=table_id), metadata=host_token(hosted)
    )
    for call in (
        stubs.play.GetView(play_pb2.GetViewRequest(table_id=table_id)),
        stubs.replay.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id)),
    ):
        assert "no spectators" in await refused(call, grpc.StatusCode.PERMISSION_DENIED)
    stream = stubs.play.Watch(play_pb2.WatchRequest(table_id=table_id))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for _ in stream:
            pass
    assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
    seated = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=0),
        metadata=(("x-parlour-seat-token", hosted.seat_token),),
    )
    assert seated.view.hand
    # an open table (the default) still shows spectators its public view
    other = await stubs.host("crazy8s", seats=2)
    assert "spectators" not in other.table.options
    await stubs.play.GetView(play_pb2.GetViewRequest(table_id=other.table.table_id))
    await refused(
        stubs.lobby.HostTable(
            lobby_pb2.HostTableRequest(game="crazy8s", seats=2, options={"spectators": "maybe"})
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )


async def test_a_log_with_removals_and_invitations_replays_and_verifies(stubs: Stubs) -> None:
    setup = [lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON) for _ in range(2)]
    setup[1].invite_only = True
    hosted = await stubs.host("crazy8s", seat_setup=setup)
    table_id = hosted.table.table_id
    code = hosted.seat_codes[0].code
    first = await stubs.join(table_id, await stubs.guest(), seat_code=code)
    await stubs.lobby.RemoveFromSeat(
        lobby_pb2.RemoveFromSeatRequest(table_id=table_id, seat=first),
        metadata=host_token(hosted),
    )
    await stubs.join(table_id, await stubs.guest(), seat_code=code)
    await stubs.lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=table_id), metadata=host_token(hosted)
    )
    stored = stubs.service.log.read(table_id)
    assert "SeatRemoved" in [event.type for event in stored]
    steps = list(replay(stored))  # every digest and deal checked
    assert steps[-1].state is not None
    assert len(fold(stored).barred_accounts) == 1
    texts = (await stubs.replay.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id))).events
    assert any("the host removed the player from seat 1" in event.text for event in texts)
