"""The answers a third-party client meets, over real gRPC with raw stubs: a worker
token on a person's seat, bot levels outside the catalogue, request_id reuse,
Watch from a version the table has not reached, reflection v1 and v1alpha, and
the structured end rule and hand result in the catalogue and the view."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2

from parlour.engine.actions import Action
from parlour.engine.cards import Suit, standard_deck
from parlour.engine.crazy8s import CrazyEights
from parlour.engine.hearts import HeartsState
from parlour.engine.kaiser import KaiserState
from parlour.service.bootstrap import Settings, assemble
from parlour.service.grpc import convert
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.service.store.protocol import SeatRow, TableRow
from parlour.v1 import (
    catalogue_pb2,
    catalogue_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.dblog import DbLog
from tests.engine.test_results import play_first_legal

WORKER_TOKEN = "the-workers-secret"
LEVELS = {"hearts": ("random", "easy", "normal", "hard"), "kaiser": ("random", "normal")}


@dataclass
class Stubs:
    channel: grpc.aio.Channel
    catalogue: catalogue_pb2_grpc.CatalogueServiceAsyncStub
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    play: play_pb2_grpc.PlayServiceAsyncStub
    log: DbLog

    def events(self, table_id: str) -> int:
        return self.log.last_seq(table_id)


@pytest.fixture
async def stubs(sqlite_url: str) -> AsyncIterator[Stubs]:
    upgrade_head(sqlite_url)
    store = open_store(sqlite_url)
    notifier = make_notifier(store)
    await notifier.start()
    settings = Settings(address="127.0.0.1:0", worker_token=WORKER_TOKEN, bot_levels=LEVELS)
    server = (await assemble(settings, store, notifier)).server
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield Stubs(
            channel,
            catalogue_pb2_grpc.CatalogueServiceStub(channel),
            lobby_pb2_grpc.LobbyServiceStub(channel),
            play_pb2_grpc.PlayServiceStub(channel),
            DbLog(sqlite_url),
        )
    finally:
        await channel.close()
        await server.stop(0)
        await notifier.stop()
        await store.close()


def seat_token(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-parlour-seat-token", token),)


def worker(token: str = WORKER_TOKEN) -> tuple[tuple[str, str], ...]:
    return (("x-parlour-worker-token", token), ("x-parlour-worker-id", "w1"))


async def hearts_table(stubs: Stubs, bots: int = 0) -> tuple[str, list[str]]:
    """A started Hearts table: people first, then ``bots`` bot seats; the people's tokens."""
    kinds = [lobby_pb2.SEAT_KIND_PERSON] * (4 - bots) + [lobby_pb2.SEAT_KIND_BOT] * bots
    hosted = await stubs.lobby.HostTable(
        lobby_pb2.HostTableRequest(
            game="hearts",
            seat_setup=[lobby_pb2.SeatSetup(kind=kind) for kind in kinds],
            host_player_name="Ada",
            host_takes_seat=True,
        )
    )
    table_id = hosted.table.table_id
    tokens = [hosted.seat_token]
    for number in range(1, 4 - bots):
        joined = await stubs.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name=f"P{number}")
        )
        tokens.append(joined.seat_token)
    await stubs.lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=table_id),
        metadata=(("x-parlour-host-token", hosted.host_token),),
    )
    return table_id, tokens


async def refused(stubs: Stubs, table_id: str, call: object) -> grpc.aio.AioRpcError:
    """Await ``call``, expecting an error that wrote nothing."""
    before = stubs.events(table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert stubs.events(table_id) == before
    return caught.value


async def test_a_worker_token_on_a_persons_seat_is_permission_denied(stubs: Stubs) -> None:
    table_id, _ = await hearts_table(stubs, bots=1)
    view = play_pb2.GetViewRequest(table_id=table_id, seat=0)
    for call in (
        stubs.play.GetView(view, metadata=worker()),
        stubs.play.Act(
            play_pb2.ActRequest(table_id=table_id, seat=0, action={"text": "give 2C"}),
            metadata=worker(),
        ),
    ):
        error = await refused(stubs, table_id, call)
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "seat 0 is a person's" in (error.details() or "")
    stream = stubs.play.Watch(play_pb2.WatchRequest(table_id=table_id, seat=0), metadata=worker())
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stream.read()
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # the worker token still opens the bot's seat, and a wrong one does not
    assert (
        await stubs.play.GetView(
            play_pb2.GetViewRequest(table_id=table_id, seat=3), metadata=worker()
        )
    ).view.hand
    error = await refused(
        stubs,
        table_id,
        stubs.play.GetView(
            play_pb2.GetViewRequest(table_id=table_id, seat=3), metadata=worker("wrong")
        ),
    )
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_a_bot_level_outside_the_catalogue_is_invalid_argument(stubs: Stubs) -> None:
    def request(level: str) -> lobby_pb2.HostTableRequest:
        return lobby_pb2.HostTableRequest(
            game="kaiser",
            seat_setup=[lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_BOT, bot_level=level)] * 4,
        )

    listed = await stubs.catalogue.GetGame(catalogue_pb2.GetGameRequest(game="kaiser"))
    assert list(listed.game.bot_levels) == ["random", "normal"]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.lobby.HostTable(request("grandmaster"))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'grandmaster'" in (caught.value.details() or "")
    assert "random, normal" in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.lobby.HostTable(request("hard"))  # a Hearts level, not offered for Kaiser
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    listed_tables = await stubs.lobby.ListTables(lobby_pb2.ListTablesRequest(game="kaiser"))
    assert not listed_tables.tables  # nothing was written
    for level in ("normal", ""):
        hosted = await stubs.lobby.HostTable(request(level))
        assert [seat.bot_level for seat in hosted.table.seats] == [level] * 4


async def test_request_id_is_bound_to_its_table_seat_and_move(stubs: Stubs) -> None:
    table_id, tokens = await hearts_table(stubs)
    first = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata=seat_token(tokens[0])
    )
    version = first.version

    def act(seat: int, move: int, expected: int = version) -> object:
        return stubs.play.Act(
            play_pb2.ActRequest(
                table_id=table_id,
                seat=seat,
                legal_action_id=move,
                expected_version=expected,
                request_id="r-1",
            ),
            metadata=seat_token(tokens[seat]),
        )

    applied = await act(0, 1)  # type: ignore[misc]
    assert not applied.duplicate and applied.version == version + 1
    again = await act(0, 1)  # type: ignore[misc]
    assert again.duplicate and again.version == version + 1
    assert list(again.view.passed_cards) == list(applied.view.passed_cards)
    # the same move resent as text is the same request too
    text = await stubs.play.Act(
        play_pb2.ActRequest(
            table_id=table_id,
            seat=0,
            action={"text": f"give {applied.view.passed_cards[0]}"},
            request_id="r-1",
        ),
        metadata=seat_token(tokens[0]),
    )
    assert text.duplicate
    for seat, move in ((0, 2), (1, 1)):  # another move by the same seat; another seat
        error = await refused(stubs, table_id, act(seat, move))
        assert error.code() == grpc.StatusCode.ALREADY_EXISTS
        assert "request_id 'r-1' was already used" in (error.details() or "")
        assert "seat 0" in (error.details() or "")
    # another seat, legal move at the current version: still refused, nothing applied
    error = await refused(stubs, table_id, act(1, 1, expected=version + 1))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS


async def test_watch_from_a_version_the_table_has_not_reached_is_refused(stubs: Stubs) -> None:
    table_id, tokens = await hearts_table(stubs)
    view = await stubs.play.GetView(play_pb2.GetViewRequest(table_id=table_id))
    for from_version, code in (
        (-1, grpc.StatusCode.INVALID_ARGUMENT),
        (view.version + 1, grpc.StatusCode.OUT_OF_RANGE),
    ):
        stream = stubs.play.Watch(
            play_pb2.WatchRequest(table_id=table_id, seat=1, from_version=from_version),
            metadata=seat_token(tokens[1]),
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(stream.read(), 5)
        assert caught.value.code() == code
        if code == grpc.StatusCode.OUT_OF_RANGE:
            assert f"at version {view.version}" in (caught.value.details() or "")
    # the table's own version is fine: the stream waits for the next change
    stream = stubs.play.Watch(play_pb2.WatchRequest(table_id=table_id, from_version=view.version))
    await stubs.play.Act(
        play_pb2.ActRequest(
            table_id=table_id, seat=2, legal_action_id=1, expected_version=view.version
        ),
        metadata=seat_token(tokens[2]),
    )
    update = await asyncio.wait_for(stream.read(), 5)
    assert isinstance(update, play_pb2.WatchResponse)
    assert update.version == view.version + 1 and len(update.events) == 1
    stream.cancel()


async def test_reflection_v1_and_v1alpha_both_answer(stubs: Stubs) -> None:
    for version in ("v1", "v1alpha"):
        call = stubs.channel.stream_stream(
            f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="parlour.v1.PlayService"),
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol=f"grpc.reflection.{version}.ServerReflection"
            ),
        ]
        replies = [reply async for reply in call(iter(requests))]
        names = {service.name for service in replies[0].list_services_response.service}
        assert {
            "parlour.v1.PlayService",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        } <= names
        for reply in replies[1:]:
            assert not reply.HasField("error_response"), reply.error_response
            assert reply.file_descriptor_response.file_descriptor_proto


async def test_the_catalogue_and_the_view_carry_the_end_rule(stubs: Stubs) -> None:
    games = (await stubs.catalogue.ListGames(catalogue_pb2.ListGamesRequest())).games
    rules = {game.id: game.end_rule for game in games}
    assert rules["hearts"].ends_by == catalogue_pb2.GAME_END_TARGET
    assert rules["hearts"].target == 100 and rules["hearts"].ties == catalogue_pb2.TIE_RULE_PLAY_ON
    assert rules["kaiser"].target == 0 and rules["kaiser"].target_option == "target"
    assert rules["kaiser"].loses_at_minus_target and rules["kaiser"].partnerships
    assert rules["wizard"].winner == catalogue_pb2.WINNER_RULE_HIGHEST_TOTAL
    assert rules["wizard"].rounds == 0 and rules["wizard"].rounds_option == "rounds"
    assert rules["crazy8s"].winner == catalogue_pb2.WINNER_RULE_LOWEST_TOTAL
    table_id, _ = await hearts_table(stubs)
    view = (await stubs.play.GetView(play_pb2.GetViewRequest(table_id=table_id))).view
    assert view.end_rule.target == 100 and view.end_reason == play_pb2.END_REASON_UNSPECIFIED
    assert not view.HasField("last_hand")


async def test_hearts_cards_can_be_passed_in_one_act(stubs: Stubs) -> None:
    table_id, tokens = await hearts_table(stubs)
    mine = await stubs.play.GetView(
        play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata=seat_token(tokens[0])
    )
    three = list(mine.view.hand[:3])
    bad = play_pb2.ActRequest(table_id=table_id, seat=0, action={"text": f"give {three[0]} W1"})
    error = await refused(stubs, table_id, stubs.play.Act(bad, metadata=seat_token(tokens[0])))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    done = await stubs.play.Act(
        play_pb2.ActRequest(
            table_id=table_id,
            seat=0,
            action={"kind": "ACTION_KIND_GIVE", "card": three[0], "more_cards": three[1:]},
            expected_version=mine.version,
        ),
        metadata=seat_token(tokens[0]),
    )
    assert done.version == mine.version + 1  # one event for the three cards
    assert list(done.view.passed_cards) == sorted(
        three, key=lambda code: list(mine.view.hand).index(code)
    )
    assert 0 not in done.view.to_act and set(done.view.to_act) == {1, 2, 3}
    other = await stubs.play.Watch(
        play_pb2.WatchRequest(table_id=table_id, seat=1, from_version=mine.version),
        metadata=seat_token(tokens[1]),
    ).read()
    assert isinstance(other, play_pb2.WatchResponse)
    (event,) = other.events
    assert event.text == "seat 0 chose 3 cards to pass" and event.action.text == "give"
    assert not set(three) & {event.action.card, *event.action.more_cards}


def test_built_hand_results_as_the_contract_carries_them() -> None:
    """The Kaiser set contract, the Hearts moon and the blocked Crazy 8s round of
    tests/engine/test_results.py, converted to the contract's View."""

    def row(game: str, seats: int) -> TableRow:
        rows = tuple(SeatRow(s, "person") for s in range(seats))
        return TableRow("t", game, seats, {}, "playing", "", 1, "", rows)

    kaiser = KaiserState.from_position(
        [
            "7C 8C 9C TC JC QC KC AC",
            "7D 8D 9D TD JD QD KD AD",
            "5H 8H 9H TH JH QH KH AH",
            "3S 8S 9S TS JS QS KS AS",
        ],
        scores=(10, -45),
    )
    for seat, call in ((1, "bid 10"), (2, "pass"), (3, "pass"), (0, "pass"), (1, "trump C")):
        kaiser.apply(seat, Action.parse(call))
    play_first_legal(kaiser, until_hand_over=1)
    view = convert.view(kaiser.view(3), row("kaiser", 4))
    result = view.last_hand
    assert result.WhichOneof("game") == "kaiser" and not result.kaiser.made
    assert (result.kaiser.bidder, result.kaiser.bidding_team, result.kaiser.bid) == (1, 1, 10)
    assert list(result.kaiser.score_change) == [10, -10] and list(result.totals) == [20, -55] * 2
    assert view.end_reason == play_pb2.END_REASON_FELL_TO_MINUS_TARGET
    assert list(view.winners) == [0, 2]

    rest = [card for card in standard_deck() if card.suit is not Suit.CLUBS]
    hearts = HeartsState.from_position(
        [
            " ".join(str(c) for c in standard_deck() if c.suit is Suit.CLUBS),
            *(" ".join(str(c) for c in rest[n::3]) for n in range(3)),
        ],
        passing=False,
    )
    play_first_legal(hearts, until_hand_over=1)
    moon = convert.view(hearts.view(None), row("hearts", 4)).last_hand
    assert moon.hearts.HasField("moon_shooter") and moon.hearts.moon_shooter == 0
    assert list(moon.hearts.points_taken) == [26, 0, 0, 0] and list(moon.points) == [0, 26, 26, 26]
    assert len(moon.hearts.last_trick.plays) == 4 and moon.hearts.last_trick.winner == 0

    eights = CrazyEights.from_position(["2H 3H", "4H KD", "5H 9C"], pile="QS", dealer=2, rounds=3)
    for seat in (0, 1, 2):
        eights.apply(seat, Action.pass_())
    blocked = convert.view(eights.view(1), row("crazy8s", 3)).last_hand.crazy8s
    assert blocked.outcome == play_pb2.CRAZY_EIGHTS_OUTCOME_BLOCKED
    assert not blocked.HasField("went_out") and list(blocked.cards_left) == [2, 2, 2]
