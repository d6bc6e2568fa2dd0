"""Every refusal over real gRPC: its status code, a message naming the rule and
the card, and NO write (the table's event count is unchanged).

Situations (a seat that must follow suit, a lead while hearts are unbroken...)
are reached by random legal play through the contract, with the real hands
read from the store to know when one has arisen.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc
import pytest

from parlour.client import ParlourClient, ParlourError, tokens
from parlour.engine.base import GameState
from parlour.engine.cards import Suit
from parlour.v1 import common_pb2, play_pb2, play_pb2_grpc
from tests.service.harness import Service, Table, Truth, running_service, seated_table

#: Given the real state and the seat to act, the action text to try (or None: keep playing).
Finder = Callable[[GameState, int], str | None]


@dataclass
class Hearts:
    service: Service
    table: Table
    truth: Truth

    @property
    def client(self) -> ParlourClient:
        return self.service.client

    def events(self) -> int:
        return self.service.event_count(self.table.table_id)

    def state(self) -> GameState:
        state = self.truth.at(self.events()).state
        assert state is not None
        return state

    async def advance_until(self, find: Finder, rng: random.Random) -> tuple[int, str]:
        """Play random legal moves until ``find`` offers an action to try; (seat, action)."""
        for _ in range(2000):
            state = self.state()
            seat = state.to_act()[0]
            attempt = find(state, seat)
            if attempt is not None:
                return seat, attempt
            current = await self.table.seats[seat].view()
            choice = rng.choice(current.view.legal_actions)
            await self.table.seats[seat].act(choice.id, expected_version=current.version)
        raise AssertionError("the situation never arose")

    async def refused(self, seat: int, move: str | int, **kwargs: object) -> ParlourError:
        """Act and expect a refusal that writes nothing."""
        before = self.events()
        with pytest.raises(ParlourError) as caught:
            await self.table.seats[seat].act(move, **kwargs)  # type: ignore[arg-type]
        assert self.events() == before, "a refused action wrote an event"
        return caught.value


@asynccontextmanager
async def hearts_table(url: str) -> AsyncIterator[Hearts]:
    async with running_service(url) as service:
        table = await seated_table(service.client, "hearts", 4)
        yield Hearts(service, table, Truth(service.log, table.table_id))


def playing(state: GameState) -> bool:
    return state.view(None).phase == "play"


def must_follow_suit(state: GameState, seat: int) -> str | None:
    """An off-suit card, when the seat holds the led suit."""
    trick = state.view(seat).current_trick
    if not playing(state) or trick is None or not trick.plays:
        return None
    led = trick.plays[0].card.suit
    hand = state.hand(seat)
    off_suit = [card for card in hand if card.suit != led]
    if off_suit and any(card.suit == led for card in hand):
        return f"play {off_suit[0]}"
    return None


def lead_an_unbroken_heart(state: GameState, seat: int) -> str | None:
    """A heart to lead, when hearts are unbroken and the seat holds something else."""
    view = state.view(seat)
    if not playing(state) or not view.tricks or view.hearts_broken:
        return None
    if view.current_trick is not None and view.current_trick.plays:
        return None
    hearts = [card for card in state.hand(seat) if card.suit == Suit.HEARTS]
    if hearts and len(hearts) < len(state.hand(seat)):
        return f"play {hearts[0]}"
    return None


def first_play(state: GameState, seat: int) -> str | None:
    return "ready" if playing(state) else None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("dance QS", "action notation"),
        ("play ZZ", "card notation"),
        ("play", "action notation"),
        ("bid lots", "action notation"),
        ("", "action notation"),
    ],
)
async def test_malformed_action_text_is_invalid_argument(
    store_url: str, text: str, rule: str
) -> None:
    async with hearts_table(store_url) as hearts:
        seat = hearts.state().to_act()[0]
        refusal = await hearts.refused(seat, text)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        assert rule in refusal.message


async def test_unknown_card_code_is_invalid_argument_and_quotes_the_code(sqlite_url: str) -> None:
    async with hearts_table(sqlite_url) as hearts:
        refusal = await hearts.refused(hearts.state().to_act()[0], "give 1X")
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "'1X'" in refusal.message


async def test_a_card_not_in_hand_is_refused_naming_the_card(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat, _ = await hearts.advance_until(first_play, random.Random(1))
        elsewhere = hearts.state().hand((seat + 1) % 4)[0]
        refusal = await hearts.refused(seat, f"play {elsewhere}")
        assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "card not in hand" in refusal.message and str(elsewhere) in refusal.message


async def test_playing_out_of_turn_is_refused(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat, _ = await hearts.advance_until(first_play, random.Random(2))
        other = (seat + 1) % 4
        own_card = hearts.state().hand(other)[0]
        refusal = await hearts.refused(other, f"play {own_card}")
        assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "turn" in refusal.message and f"seat {other}" in refusal.message


async def test_must_follow_suit_is_refused_naming_the_card(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat, attempt = await hearts.advance_until(must_follow_suit, random.Random(3))
        refusal = await hearts.refused(seat, attempt)
        assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "must follow suit" in refusal.message
        assert attempt.split()[1] in refusal.message


async def test_leading_hearts_before_they_are_broken_is_refused(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat, attempt = await hearts.advance_until(lead_an_unbroken_heart, random.Random(4))
        refusal = await hearts.refused(seat, attempt)
        assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "hearts not broken" in refusal.message
        assert attempt.split()[1] in refusal.message


async def test_a_stale_expected_version_is_aborted(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat = hearts.state().to_act()[0]
        current = await hearts.table.seats[seat].view()
        first = current.view.legal_actions[0].id
        refusal = await hearts.refused(seat, first, expected_version=current.version - 1)
        assert refusal.code == grpc.StatusCode.ABORTED
        assert "stale" in refusal.message
        # an action by text is held to the version too
        text = current.view.legal_actions[0].action.text
        refusal = await hearts.refused(seat, text, expected_version=current.version + 5)
        assert refusal.code == grpc.StatusCode.ABORTED


async def test_legal_action_ids_need_a_known_id_and_a_version(sqlite_url: str) -> None:
    async with hearts_table(sqlite_url) as hearts:
        seat = hearts.state().to_act()[0]
        current = await hearts.table.seats[seat].view()
        count = len(current.view.legal_actions)
        refusal = await hearts.refused(seat, count + 1, expected_version=current.version)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        refusal = await hearts.refused(seat, 0, expected_version=current.version)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        refusal = await hearts.refused(seat, 1)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "expected_version" in refusal.message


async def test_a_structured_action_missing_its_card_is_invalid_argument(sqlite_url: str) -> None:
    async with hearts_table(sqlite_url) as hearts:
        seat = hearts.state().to_act()[0]
        refusal = await hearts.refused(seat, common_pb2.Action(kind=common_pb2.ACTION_KIND_GIVE))
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        refusal = await hearts.refused(seat, common_pb2.Action())
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT


async def test_an_unknown_table_is_not_found(store_url: str) -> None:
    async with running_service(store_url) as service:
        client = service.client
        for call in (
            client.get_table("no-such-table"),
            client.get_view("no-such-table"),
            client.act("no-such-table", 0, "token", "play 2C"),
            client.join_table("no-such-table", "Ada"),
            client.start_table("no-such-table", "token"),
        ):
            with pytest.raises(ParlourError) as caught:
                await call
            assert caught.value.code == grpc.StatusCode.NOT_FOUND


async def test_a_missing_seat_token_is_unauthenticated(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat = hearts.state().to_act()[0]
        before = hearts.events()
        for call in (
            hearts.client.act(hearts.table.table_id, seat, None, "give 2C"),
            hearts.client.get_view(hearts.table.table_id, seat, None),
        ):
            with pytest.raises(ParlourError) as caught:
                await call
            assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
        assert hearts.events() == before


async def test_another_seats_token_is_permission_denied(store_url: str) -> None:
    async with hearts_table(store_url) as hearts:
        seat = hearts.state().to_act()[0]
        other_token = hearts.table.seats[(seat + 1) % 4].token
        card = hearts.state().hand(seat)[0]
        before = hearts.events()
        for call in (
            hearts.client.act(hearts.table.table_id, seat, other_token, f"give {card}"),
            hearts.client.get_view(hearts.table.table_id, seat, other_token),
            hearts.client.get_view(hearts.table.table_id, seat, "not-a-token"),
        ):
            with pytest.raises(ParlourError) as caught:
                await call
            assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert hearts.events() == before


async def test_only_the_host_may_start_the_table(store_url: str) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "crazy8s", 3, start=False)
        before = service.event_count(table.table_id)
        seat_token = table.seats[1].token
        assert seat_token is not None
        with pytest.raises(ParlourError) as wrong:
            await service.client.start_table(table.table_id, seat_token)
        assert wrong.value.code == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(ParlourError) as missing:
            await service.client.start_table(table.table_id, "")
        assert missing.value.code == grpc.StatusCode.UNAUTHENTICATED
        assert service.event_count(table.table_id) == before
        await service.client.start_table(table.table_id, table.host_token)
        with pytest.raises(ParlourError) as again:
            await service.client.start_table(table.table_id, table.host_token)
        assert again.value.code == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_table_starts_only_when_every_seat_is_taken(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        hosted = await service.client.host_table("kaiser", 4, host_player_name="Ada")
        table_id = hosted.table.table_id
        joined = await service.client.join_table(table_id, "Bo")
        with pytest.raises(ParlourError) as early:
            await service.client.start_table(table_id, hosted.host_token)
        assert early.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "seat 1 is still free" in early.value.message
        with pytest.raises(ParlourError) as not_started:
            await service.client.act(table_id, joined.seat, joined.seat_token, "pass")
        assert not_started.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "not started" in not_started.value.message
        assert service.event_count(table_id) == 2


@pytest.mark.parametrize(
    ("game", "seats", "options", "words"),
    [
        ("hearts", 4, {"no_such_option": "1"}, "unknown option"),
        ("kaiser", 4, {"floor": "4"}, "floor"),
        ("wizard", 7, {}, "seat count"),
        ("wizard", 2, {}, "seat count"),
        ("hearts", 3, {}, "seat count"),
    ],
)
async def test_invalid_options_and_seat_counts_are_invalid_argument(
    store_url: str, game: str, seats: int, options: dict[str, object], words: str
) -> None:
    async with running_service(store_url) as service:
        with pytest.raises(ParlourError) as caught:
            await service.client.host_table(game, seats, options=options)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert words in caught.value.message
        assert await service.client.list_tables() == []


async def test_an_unknown_game_is_not_found(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        with pytest.raises(ParlourError) as caught:
            await service.client.host_table("poker", 4)
        assert caught.value.code == grpc.StatusCode.NOT_FOUND
        with pytest.raises(ParlourError) as caught:
            await service.client.get_game("poker")
        assert caught.value.code == grpc.StatusCode.NOT_FOUND


async def test_seats_cannot_be_taken_twice_or_beyond_the_table(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        hosted = await service.client.host_table(
            "crazy8s",
            seat_setup=[("person", ""), ("bot", "normal"), ("person", "")],
            host_player_name="Ada",
            host_takes_seat=True,
        )
        table_id = hosted.table.table_id
        for seat, code in (
            (0, grpc.StatusCode.FAILED_PRECONDITION),  # taken by the host
            (1, grpc.StatusCode.FAILED_PRECONDITION),  # kept for a bot
            (3, grpc.StatusCode.INVALID_ARGUMENT),  # no such seat
        ):
            with pytest.raises(ParlourError) as caught:
                await service.client.join_table(table_id, "Bo", seat)
            assert caught.value.code == code
        joined = await service.client.join_table(table_id, "Bo")
        assert joined.seat == 2
        with pytest.raises(ParlourError) as full:
            await service.client.join_table(table_id, "Cy")
        assert full.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert service.event_count(table_id) == 3  # hosted, host seated, Bo seated


async def test_odd_requests_never_get_unknown_or_internal(sqlite_url: str) -> None:
    async with hearts_table(sqlite_url) as hearts:
        channel = grpc.aio.insecure_channel(hearts.service.address)
        play = play_pb2_grpc.PlayServiceStub(channel)
        table_id = hearts.table.table_id
        token = tokens(seat_token=hearts.table.seats[0].token)
        odd = [
            play_pb2.ActRequest(),
            play_pb2.ActRequest(table_id=table_id, seat=0),
            play_pb2.ActRequest(table_id=table_id, seat=-1, legal_action_id=1),
            play_pb2.ActRequest(table_id=table_id, seat=99, legal_action_id=1),
            play_pb2.ActRequest(table_id=table_id, seat=0, legal_action_id=-5, expected_version=-1),
            play_pb2.ActRequest(
                table_id=table_id,
                seat=0,
                action=common_pb2.Action(kind=common_pb2.ACTION_KIND_BID),
            ),
            play_pb2.ActRequest(
                table_id=table_id, seat=0, action=common_pb2.Action(text="play 8S name Q")
            ),
        ]
        before = hearts.events()
        try:
            for request in odd:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await play.Act(request, metadata=token)
                assert caught.value.code() not in (
                    grpc.StatusCode.UNKNOWN,
                    grpc.StatusCode.INTERNAL,
                ), (request, caught.value.details())
            for view_request in (
                play_pb2.GetViewRequest(),
                play_pb2.GetViewRequest(table_id=table_id, seat=-3),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await play.GetView(view_request, metadata=token)
                assert caught.value.code() not in (
                    grpc.StatusCode.UNKNOWN,
                    grpc.StatusCode.INTERNAL,
                )
        finally:
            await channel.close()
        assert hearts.events() == before
