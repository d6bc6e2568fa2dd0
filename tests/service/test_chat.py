"""Table chat over real gRPC, on SQLite and Postgres (issue 32).

A seat says a line; every seat and spectator reads it in the view and on the
Watch stream; it is kept in the log (and the replay, whose redaction of the
cards stays as it was); the limits (length after NFC, characters, rate per
seat); the host's switch; a spectator cannot write; a line never makes a move
stale.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import grpc
import pytest

from parlour.client.client import ParlourError, refusal_reason
from parlour.replay.check import replay
from parlour.service.domain.fold import fold
from parlour.v1 import play_pb2, play_pb2_grpc, replay_pb2, replay_pb2_grpc
from tests.service.harness import HAMMER_RATES, Service, Table, running_service, seated_table


@dataclass
class Rig:
    service: Service
    play: play_pb2_grpc.PlayServiceStub
    replay: replay_pb2_grpc.ReplayServiceStub
    table: Table

    def seat_md(self, seat: int) -> tuple[tuple[str, str], ...]:
        token = self.table.seats[seat].token
        assert token is not None
        return (("x-parlour-seat-token", token),)

    def host_md(self) -> tuple[tuple[str, str], ...]:
        return (("x-parlour-host-token", self.table.host_token),)

    async def say(self, seat: int, text: str) -> int:
        request = play_pb2.SayRequest(table_id=self.table.table_id, seat=seat, text=text)
        return int((await self.play.Say(request, metadata=self.seat_md(seat))).version)

    async def spectator_view(self) -> play_pb2.View:
        request = play_pb2.GetViewRequest(table_id=self.table.table_id)
        return (await self.play.GetView(request)).view

    def events(self) -> int:
        return self.service.event_count(self.table.table_id)


@pytest.fixture
async def rig(store_url: str) -> AsyncIterator[Rig]:
    async with (
        running_service(store_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        table = await seated_table(service.client, "crazy8s", 2)
        yield Rig(
            service,
            play_pb2_grpc.PlayServiceStub(channel),
            replay_pb2_grpc.ReplayServiceStub(channel),
            table,
        )


@dataclass
class Refusal:
    code: grpc.StatusCode
    reason: str
    args: dict[str, str]
    message: str


async def refused(call: object, code: grpc.StatusCode) -> Refusal:
    """Await ``call`` (a stub's or the client library's) and return its refusal."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        why, args = refusal_reason(error)
        got = Refusal(error.code(), why, args, error.details() or "")
    except ParlourError as error:
        got = Refusal(error.code, error.reason, error.reason_args, error.message)
    else:
        raise AssertionError("the call was not refused")
    assert got.code is code, got.message
    return got


async def test_a_line_reaches_every_seat_and_spectator_and_stays_in_the_log(rig: Rig) -> None:
    table_id = rig.table.table_id
    watch = rig.play.Watch(play_pb2.WatchRequest(table_id=table_id, from_version=0))
    first = await watch.read()
    assert isinstance(first, play_pb2.WatchResponse)
    assert first.view.chat_enabled and not first.view.chat
    version = await rig.say(0, "  good luck, all  ")
    assert version == first.version + 1
    said = await watch.read()
    assert isinstance(said, play_pb2.WatchResponse)
    watch.cancel()
    (event,) = said.events
    assert (event.type, event.seat, event.chat.text) == ("ChatSaid", 0, "good luck, all")
    assert event.chat.player_name == "Host" and event.chat.seat == 0
    assert "good luck, all" in event.words
    await rig.say(1, "thanks")
    for view in (
        await rig.spectator_view(),
        (await rig.table.seats[0].view()).view,
        (await rig.table.seats[1].view()).view,
    ):
        assert [(line.seat, line.player_name, line.text) for line in view.chat] == [
            (0, "Host", "good luck, all"),
            (1, "Player 1", "thanks"),
        ]
        assert view.chat[0].said_at.seconds > 0
    stored = rig.service.log.read(table_id)
    chat = [event for event in stored if event.type == "ChatSaid"]
    assert [event.payload["text"] for event in chat] == ["good luck, all", "thanks"]
    assert all(not event.digest for event in chat)
    steps = list(replay(stored))  # every digest and deal checked, the chat folded in
    assert steps[-1].state is not None
    assert [line.text for line in fold(stored).chat] == ["good luck, all", "thanks"]


async def test_the_replay_keeps_the_lines_and_still_hides_the_cards(rig: Rig) -> None:
    table_id = rig.table.table_id
    await rig.say(1, "hello")
    spectator = await rig.replay.GetReplay(replay_pb2.GetReplayRequest(table_id=table_id))
    said = [event for event in spectator.events if event.type == "ChatSaid"]
    assert [json.loads(event.payload_json)["text"] for event in said] == ["hello"]
    assert not said[0].redacted
    dealt = [event for event in spectator.events if event.type == "CardsDealt"]
    assert dealt and all(event.redacted for event in dealt)
    assert all("cards" not in json.loads(event.payload_json) for event in dealt)
    assert all(not event.digest for event in spectator.events)


async def test_the_limits_refuse_a_line_and_write_nothing(rig: Rig) -> None:
    before = rig.events()
    for text, rule in (
        ("a" * 201, "too_long"),
        ("   ", "empty"),
        ("look \u202eright", "character"),
    ):
        error = await refused(rig.say(0, text), grpc.StatusCode.INVALID_ARGUMENT)
        assert error.reason == "CHAT_TEXT_REFUSED"
        assert error.args["rule"] == rule and error.args["max"] == "200"
    # a control character never reaches the chat: the edge refuses it in any field
    await refused(rig.say(0, "two\nlines"), grpc.StatusCode.INVALID_ARGUMENT)
    assert rig.events() == before
    # 200 characters after NFC are a line, though 400 code points were sent
    composed = "e\u0301" * 200
    await rig.say(0, composed)
    line = (await rig.spectator_view()).chat[-1].text
    assert line == "\u00e9" * 200


async def test_a_spectator_reads_but_does_not_write(rig: Rig) -> None:
    request = play_pb2.SayRequest(table_id=rig.table.table_id, seat=0, text="hi")
    await refused(rig.play.Say(request), grpc.StatusCode.UNAUTHENTICATED)
    await refused(rig.play.Say(request, metadata=rig.seat_md(1)), grpc.StatusCode.PERMISSION_DENIED)


async def test_the_host_switches_the_chat_off_and_on(rig: Rig) -> None:
    table_id = rig.table.table_id
    switch = play_pb2.SetChatRequest(table_id=table_id, on=False)
    await refused(rig.play.SetChat(switch), grpc.StatusCode.UNAUTHENTICATED)
    await refused(
        rig.play.SetChat(switch, metadata=rig.seat_md(0)), grpc.StatusCode.UNAUTHENTICATED
    )
    off = (await rig.play.SetChat(switch, metadata=rig.host_md())).version
    assert not (await rig.spectator_view()).chat_enabled
    error = await refused(rig.say(1, "hello?"), grpc.StatusCode.FAILED_PRECONDITION)
    assert (error.reason, error.args) == ("CHAT_OFF", {"why": "off"})
    assert rig.events() == off
    again = await rig.play.SetChat(switch, metadata=rig.host_md())  # already off: no event
    assert again.version == off
    switch.on = True
    await rig.play.SetChat(switch, metadata=rig.host_md())
    await rig.say(1, "back")
    types = [event.type for event in rig.service.log.read(table_id)]
    assert types.count("ChatSwitched") == 2 and types[-1] == "ChatSaid"


async def test_a_line_never_makes_a_move_stale(rig: Rig) -> None:
    seen = await rig.spectator_view()
    mover = rig.table.seats[seen.to_act[0]]
    decided = await mover.view()
    await rig.say(1 - mover.seat, "hurry up")
    await rig.say(mover.seat, "thinking")
    acted = await mover.act(1, expected_version=decided.version)
    assert acted.version == decided.version + 3
    # a real move since still makes it stale
    other = rig.table.seats[acted.view.to_act[0]] if acted.view.to_act else mover
    await refused(other.act(1, expected_version=decided.version), grpc.StatusCode.ABORTED)


async def test_chat_is_closed_before_the_start_and_off_by_the_table_option(
    store_url: str,
) -> None:
    async with (
        running_service(store_url) as service,
        grpc.aio.insecure_channel(service.address) as channel,
    ):
        play = play_pb2_grpc.PlayServiceStub(channel)
        waiting = await seated_table(service.client, "crazy8s", 2, start=False)
        error = await refused(waiting.seats[0].say("hi"), grpc.StatusCode.FAILED_PRECONDITION)
        assert (error.reason, error.args) == ("CHAT_OFF", {"why": "closed"})
        quiet = await seated_table(service.client, "crazy8s", 2, {"chat": "off"})
        view = (await quiet.seats[0].view()).view
        assert not view.chat_enabled
        await refused(quiet.seats[1].say("hi"), grpc.StatusCode.FAILED_PRECONDITION)
        request = play_pb2.SetChatRequest(table_id=quiet.table_id, on=True)
        md = (("x-parlour-host-token", quiet.host_token),)
        await play.SetChat(request, metadata=md)
        await quiet.seats[1].say("now we talk")
        assert [line.text for line in (await quiet.seats[0].view()).view.chat] == ["now we talk"]


async def test_five_lines_in_ten_seconds_a_seat(store_url: str) -> None:
    rates = replace(HAMMER_RATES, chat_per_ten_seconds=5)
    async with running_service(store_url, rates=rates) as service:
        table = await seated_table(service.client, "crazy8s", 2)
        for number in range(5):
            await table.seats[0].say(f"line {number}")
        error = await refused(table.seats[0].say("one more"), grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert error.reason == "RATE_LIMITED"
        assert "in 10 seconds per seat" in error.message
        await table.seats[1].say("my own five")  # the rate is the seat's
        assert sum(1 for e in service.log.read(table.table_id) if e.type == "ChatSaid") == 6
