"""Accounts and sessions over real gRPC, on SQLite and Postgres (issue 30, point 1).

Guests from a device secret, names and passwords, sessions listed, revoked and
signed out, the seat bound to the account and resumed from another device
with the session alone, the per-account caps; every refusal with its status
and no write.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest

from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.service.harness import Service, running_service


@dataclass
class Stubs:
    """Raw stubs over one channel to a running service."""

    service: Service
    accounts: accounts_pb2_grpc.AccountServiceStub
    lobby: lobby_pb2_grpc.LobbyServiceStub
    play: play_pb2_grpc.PlayServiceStub


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def device() -> str:
    return secrets.token_urlsafe(32)


async def refused(call: object, code: grpc.StatusCode) -> str:
    """Await ``call`` and return the message of its refusal with ``code``."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() is code, caught.value.details()
    return str(caught.value.details())


@pytest.fixture
async def stubs(store_url: str) -> AsyncIterator[Stubs]:
    async with (
        running_service(store_url, max_open_tables_per_account=2) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        yield Stubs(
            service,
            accounts_pb2_grpc.AccountServiceStub(channel),
            lobby_pb2_grpc.LobbyServiceStub(channel),
            play_pb2_grpc.PlayServiceStub(channel),
        )


async def guest(stubs: Stubs, secret: str | None = None) -> accounts_pb2.AuthenticateDeviceResponse:
    request = accounts_pb2.AuthenticateDeviceRequest(device_secret=secret or device())
    response: accounts_pb2.AuthenticateDeviceResponse = await stubs.accounts.AuthenticateDevice(
        request
    )
    return response


async def named(stubs: Stubs, name: str, password: str = "correct horse") -> str:
    """A session of a new account named ``name``."""
    token = (await guest(stubs)).session_token
    await stubs.accounts.ClaimName(
        accounts_pb2.ClaimNameRequest(name=name, password=password), metadata=bearer(token)
    )
    return token


async def test_a_device_gets_one_guest_account_and_a_session_per_sign_in(stubs: Stubs) -> None:
    secret = device()
    first = await guest(stubs, secret)
    assert first.created and first.account.guest and first.account.name == ""
    assert len(first.session_token) >= 43  # 256 bits, URL-safe base64
    again = await guest(stubs, secret)
    assert not again.created and again.account.account_id == first.account.account_id
    assert again.session_token != first.session_token
    who = await stubs.accounts.WhoAmI(
        accounts_pb2.WhoAmIRequest(), metadata=bearer(first.session_token)
    )
    assert who.account.account_id == first.account.account_id and who.session.current
    other = await guest(stubs)
    assert other.account.account_id != first.account.account_id


@pytest.mark.parametrize(
    ("secret", "rule"),
    [("short", "32 to 128 characters"), ("é" * 40, "URL-safe base64 or hex")],
)
async def test_a_malformed_device_secret_is_refused_without_quoting_it(
    stubs: Stubs, secret: str, rule: str
) -> None:
    message = await refused(
        stubs.accounts.AuthenticateDevice(
            accounts_pb2.AuthenticateDeviceRequest(device_secret=secret)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert rule in message and secret not in message


@pytest.mark.parametrize(
    "metadata",
    [(), bearer("not-a-session-anybody-has"), (("authorization", "Basic abc"),)],
)
async def test_a_call_without_a_live_session_is_unauthenticated(
    stubs: Stubs, metadata: tuple[tuple[str, str], ...]
) -> None:
    await refused(
        stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=metadata),
        grpc.StatusCode.UNAUTHENTICATED,
    )


async def test_a_dead_session_is_refused_by_the_other_services_too(stubs: Stubs) -> None:
    await refused(
        stubs.lobby.HostTable(
            lobby_pb2.HostTableRequest(game="crazy8s", seats=2), metadata=bearer("x" * 43)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    assert await stubs.service.store.count_tables() == {}


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("Al", "3 to 24 characters"),
        ("A" * 25, "3 to 24 characters"),
        ("Ada\u200bLovelace", "U+200B"),  # zero-width space: a format character
        ("Ada\u0007", "U+0007"),
        ("Ada  Byron", "single spaces"),
        ("Ada<script>", "U+003C"),
        ("Ada\u202eevil", "U+202E"),  # right-to-left override
    ],
)
async def test_names_break_no_rule(stubs: Stubs, name: str, rule: str) -> None:
    token = (await guest(stubs)).session_token
    message = await refused(
        stubs.accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name=name, password="long enough"),
            metadata=bearer(token),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert rule in message
    who = await stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(token))
    assert who.account.guest  # nothing written


async def test_a_name_is_unique_by_case_and_normal_form(stubs: Stubs) -> None:
    await named(stubs, "Zoë Quinn")  # precomposed ë
    for clash in ("ZOË QUINN", "Zoe\u0308 Quinn", "  zoë quinn "):  # upper, decomposed, spaced
        token = (await guest(stubs)).session_token
        message = await refused(
            stubs.accounts.ClaimName(
                accounts_pb2.ClaimNameRequest(name=clash, password="long enough"),
                metadata=bearer(token),
            ),
            grpc.StatusCode.ALREADY_EXISTS,
        )
        assert "taken" in message


async def test_a_name_is_claimed_once_with_a_long_enough_password(stubs: Stubs) -> None:
    token = (await guest(stubs)).session_token
    message = await refused(
        stubs.accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name="Grace", password="short"), metadata=bearer(token)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert "8 to 256 characters" in message and "short" not in message
    claimed = await stubs.accounts.ClaimName(
        accounts_pb2.ClaimNameRequest(name="Grace", password="long enough"),
        metadata=bearer(token),
    )
    assert claimed.account.name == "Grace" and not claimed.account.guest
    await refused(
        stubs.accounts.ClaimName(
            accounts_pb2.ClaimNameRequest(name="Hopper", password="long enough"),
            metadata=bearer(token),
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )


async def test_sign_in_on_another_device_then_list_revoke_and_sign_out(stubs: Stubs) -> None:
    first = await named(stubs, "Ada", "analytical engine")
    message = await refused(
        stubs.accounts.SignIn(accounts_pb2.SignInRequest(name="Ada", password="wrong password")),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    unknown = await refused(
        stubs.accounts.SignIn(accounts_pb2.SignInRequest(name="Nobody", password="whatever1")),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    assert message == unknown  # the refusal does not tell a wrong password from a wrong name
    laptop = device()
    signed = await stubs.accounts.SignIn(
        accounts_pb2.SignInRequest(name="ada", password="analytical engine", device_secret=laptop)
    )
    assert signed.account.name == "Ada" and signed.session.method == "password"
    # the laptop's device secret now signs in to Ada's account
    again = await guest(stubs, laptop)
    assert again.account.account_id == signed.account.account_id and not again.created
    listed = await stubs.accounts.ListSessions(
        accounts_pb2.ListSessionsRequest(), metadata=bearer(signed.session_token)
    )
    assert len(listed.sessions) == 3
    assert [s.session_id for s in listed.sessions if s.current] == [signed.session.session_id]
    first_id = (
        await stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(first))
    ).session.session_id
    assert first_id in {s.session_id for s in listed.sessions}
    await stubs.accounts.RevokeSession(
        accounts_pb2.RevokeSessionRequest(session_id=first_id),
        metadata=bearer(signed.session_token),
    )
    await refused(
        stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(first)),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    await refused(
        stubs.accounts.RevokeSession(
            accounts_pb2.RevokeSessionRequest(session_id=first_id),
            metadata=bearer(signed.session_token),
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    await stubs.accounts.SignOut(
        accounts_pb2.SignOutRequest(), metadata=bearer(signed.session_token)
    )
    await refused(
        stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(signed.session_token)),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    who = await stubs.accounts.WhoAmI(
        accounts_pb2.WhoAmIRequest(), metadata=bearer(again.session_token)
    )
    assert who.account.name == "Ada"  # the laptop's own session lives on


async def test_a_revoked_device_cannot_sign_itself_back_in(stubs: Stubs) -> None:
    """Revoking a session (or signing it out) unbinds the device that opened it: a copied
    device secret no longer reaches the account, and its next sign-in is a new guest."""
    phone = device()
    first = await guest(stubs, phone)
    await stubs.accounts.ClaimName(
        accounts_pb2.ClaimNameRequest(name="Grace", password="compiler first"),
        metadata=bearer(first.session_token),
    )
    laptop = await stubs.accounts.SignIn(
        accounts_pb2.SignInRequest(name="Grace", password="compiler first", device_secret=device())
    )
    await stubs.accounts.RevokeSession(
        accounts_pb2.RevokeSessionRequest(session_id=first.session.session_id),
        metadata=bearer(laptop.session_token),
    )
    back = await guest(stubs, phone)
    assert back.created and back.account.account_id != first.account.account_id
    assert not back.account.name
    # signing out does the same for the device a password session was opened with
    tablet = device()
    signed = await stubs.accounts.SignIn(
        accounts_pb2.SignInRequest(name="Grace", password="compiler first", device_secret=tablet)
    )
    await stubs.accounts.SignOut(
        accounts_pb2.SignOutRequest(), metadata=bearer(signed.session_token)
    )
    after = await guest(stubs, tablet)
    assert after.created and after.account.account_id != first.account.account_id
    who = await stubs.accounts.WhoAmI(
        accounts_pb2.WhoAmIRequest(), metadata=bearer(laptop.session_token)
    )
    assert who.account.name == "Grace"  # the other sessions live on


async def test_another_account_cannot_revoke_a_session_it_does_not_own(stubs: Stubs) -> None:
    mine = await guest(stubs)
    theirs = await guest(stubs)
    await refused(
        stubs.accounts.RevokeSession(
            accounts_pb2.RevokeSessionRequest(session_id=mine.session.session_id),
            metadata=bearer(theirs.session_token),
        ),
        grpc.StatusCode.NOT_FOUND,
    )
    await stubs.accounts.WhoAmI(accounts_pb2.WhoAmIRequest(), metadata=bearer(mine.session_token))


async def test_a_signed_in_player_resumes_their_seat_from_another_device(stubs: Stubs) -> None:
    ada = await named(stubs, "Ada", "analytical engine")
    bea = (await guest(stubs)).session_token
    hosted = await stubs.lobby.HostTable(
        lobby_pb2.HostTableRequest(
            game="crazy8s", seats=2, host_takes_seat=True, host_player_name="Someone else"
        ),
        metadata=bearer(ada),
    )
    table_id = hosted.table.table_id
    assert hosted.table.seats[0].player_name == "Ada"  # the account's name, not the one given
    assert hosted.table.seats[0].signed_in
    joined = await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Bea"), metadata=bearer(bea)
    )
    assert joined.table.seats[1].signed_in and joined.table.seats[1].player_name == "Bea"
    # the host's session stands in for the host token
    await stubs.lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=table_id), metadata=bearer(ada)
    )
    # Ada signs in on her laptop: the new session alone plays her seat
    laptop = await stubs.accounts.SignIn(
        accounts_pb2.SignInRequest(name="Ada", password="analytical engine")
    )
    mine = await stubs.accounts.ListMySeats(
        accounts_pb2.ListMySeatsRequest(), metadata=bearer(laptop.session_token)
    )
    assert [(s.table_id, s.seat, s.host) for s in mine.seats] == [(table_id, 0, True)]
    assert mine.seats[0].status == lobby_pb2.TABLE_STATUS_PLAYING
    view = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata=bearer(laptop.session_token)
    )
    assert len(view.view.hand) > 0
    to_act = view.view.to_act[0]
    session = {0: laptop.session_token, 1: bea}[to_act]
    current = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=to_act), metadata=bearer(session)
    )
    acted = await stubs.play.Act(
        play_pb2.ActRequest(
            table_id=table_id,
            seat=to_act,
            legal_action_id=current.view.legal_actions[0].id,
            expected_version=current.version,
        ),
        metadata=bearer(session),
    )
    assert acted.version > current.version
    # another account's session opens neither seat; the seat token still does
    stranger = (await guest(stubs)).session_token
    await refused(
        stubs.play.GetView(
            play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata=bearer(stranger)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
    )
    token_view = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=0),
        metadata=(("x-parlour-seat-token", hosted.seat_token),),
    )
    assert token_view.version == acted.version


async def test_seat_tokens_work_without_accounts_and_an_account_sits_once(stubs: Stubs) -> None:
    hosted = await stubs.lobby.HostTable(
        lobby_pb2.HostTableRequest(
            game="hearts", seats=4, host_takes_seat=True, host_player_name="Al"
        )
    )
    table_id = hosted.table.table_id
    assert not hosted.table.seats[0].signed_in
    ada = (await guest(stubs)).session_token
    await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada"), metadata=bearer(ada)
    )
    before = stubs.service.event_count(table_id)
    message = await refused(
        stubs.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada again"),
            metadata=bearer(ada),
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert "already hold seat 1" in message
    assert stubs.service.event_count(table_id) == before


async def test_an_account_hosts_at_most_its_cap_of_open_tables(stubs: Stubs) -> None:
    ada = (await guest(stubs)).session_token
    request = lobby_pb2.HostTableRequest(game="crazy8s", seats=2)
    for _ in range(2):  # the fixture's cap
        await stubs.lobby.HostTable(request, metadata=bearer(ada))
    message = await refused(
        stubs.lobby.HostTable(request, metadata=bearer(ada)), grpc.StatusCode.RESOURCE_EXHAUSTED
    )
    assert "max_open_tables_per_account = 2" in message
    counts = await stubs.service.store.count_tables()
    assert counts == {"open": 2}  # nothing written by the refusal
    # another account, and a caller without one, are not held by Ada's cap
    await stubs.lobby.HostTable(request, metadata=bearer((await guest(stubs)).session_token))
    await stubs.lobby.HostTable(request)


async def test_an_account_sits_at_most_at_its_cap_of_open_tables(store_url: str) -> None:
    async with (
        running_service(store_url, max_open_seats_per_account=1) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        accounts = accounts_pb2_grpc.AccountServiceStub(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        token = (
            await accounts.AuthenticateDevice(
                accounts_pb2.AuthenticateDeviceRequest(device_secret=device())
            )
        ).session_token
        tables = [
            (await lobby.HostTable(lobby_pb2.HostTableRequest(game="crazy8s", seats=2))).table
            for _ in range(2)
        ]
        join = lobby_pb2.JoinTableRequest(table_id=tables[0].table_id, player_name="Ada")
        await lobby.JoinTable(join, metadata=bearer(token))
        join.table_id = tables[1].table_id
        message = await refused(
            lobby.JoinTable(join, metadata=bearer(token)), grpc.StatusCode.RESOURCE_EXHAUSTED
        )
        assert "max_open_seats_per_account = 1" in message
        assert service.event_count(tables[1].table_id) == 1
        # hosting with a seat counts against it too
        await refused(
            lobby.HostTable(
                lobby_pb2.HostTableRequest(
                    game="crazy8s", seats=2, host_takes_seat=True, host_player_name="Ada"
                ),
                metadata=bearer(token),
            ),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )


async def test_nobody_else_sits_under_a_claimed_name(stubs: Stubs) -> None:
    ada = await named(stubs, "Ada Byron")
    hosted = await stubs.lobby.HostTable(lobby_pb2.HostTableRequest(game="hearts", seats=4))
    table_id = hosted.table.table_id
    for impostor, metadata in (
        ("ada byron", ()),
        ("ADA  BYRON", bearer((await guest(stubs)).session_token)),
    ):
        message = await refused(
            stubs.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, player_name=impostor),
                metadata=metadata,
            ),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        assert "belongs to a signed-in player" in message
    await refused(
        stubs.lobby.HostTable(
            lobby_pb2.HostTableRequest(
                game="hearts", seats=4, host_takes_seat=True, host_player_name="Ada Byron"
            )
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert stubs.service.event_count(table_id) == 1
    joined = await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="whatever"), metadata=bearer(ada)
    )
    assert joined.table.seats[joined.seat].player_name == "Ada Byron"
