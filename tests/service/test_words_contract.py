"""The server's words in the call's language, and refusals' reasons, over real gRPC.

A client asks for its words with the ``accept-language`` metadata
(``ParlourClient(language=...)``): the view's labels and the events' words
come back in Polish; a refusal carries a google.rpc.ErrorInfo (reason, domain
"parlour", its arguments) the client library reads into ``ParlourError``.
"""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from parlour.client import ParlourClient, ParlourError, Seat
from parlour.v1 import play_pb2, play_pb2_grpc
from parlour.words import say_phrase
from tests.service.harness import running_service, seated_table


async def first_words(seat: Seat) -> list[str]:
    """The words of every event so far, from the first message of a Watch."""
    updates = seat.watch()
    try:
        first = await anext(updates)
    finally:
        await updates.aclose()
    return [event.words for event in first.events]


def seat_hand(seen: play_pb2.GetViewResponse) -> list[str]:
    return list(seen.view.hand)


async def test_labels_and_events_are_said_in_the_language_the_call_asks(store_url: str) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        seat = table.seats[0]  # every seat chooses cards to pass
        english = await seat.view()
        async with ParlourClient(service.address, language="pl-PL,pl;q=0.9") as polish:
            polski = await polish.seat(table.table_id, seat.seat, seat.token).view()
            polish_words = await first_words(polish.seat(table.table_id, seat.seat, seat.token))
        english_labels = [legal.label for legal in english.view.legal_actions]
        polish_labels = [legal.label for legal in polski.view.legal_actions]
        assert len(english_labels) == len(polish_labels)
        assert english_labels and all(label.startswith("give ") for label in english_labels)
        assert all(label.startswith("oddaj ") for label in polish_labels)
        queen = [label for label in polish_labels if "♠" in label and "D" in label]
        assert queen == (["oddaj D♠"] if "QS" in seat_hand(english) else [])
        english_words = await first_words(seat)
        assert "The game started" in english_words
        assert "Gra się rozpoczęła" in polish_words
        assert "Host siada do stołu" in polish_words, polish_words


async def test_an_unknown_language_is_answered_in_english(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        seat = table.seats[0]
        async with ParlourClient(service.address, language="de-DE, fr;q=0.5") as other:
            seen = await other.seat(table.table_id, seat.seat, seat.token).view()
        assert all(legal.label.startswith("give ") for legal in seen.view.legal_actions)


async def test_a_refusal_carries_its_reason_and_arguments(store_url: str) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        view = await table.seats[0].view()
        theirs = await table.seats[1].view()
        card = theirs.view.hand[0]  # another seat's card: not in seat 0's hand
        assert card not in view.view.hand
        with pytest.raises(ParlourError) as caught:
            await table.seats[0].act(f"give {card}")
        refusal = caught.value
        assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION
        assert refusal.reason == "CARD_NOT_IN_HAND"
        assert refusal.reason_args == {"seat": "0", "card": card}
        assert "card not in hand" in refusal.message  # the English text is still there
        said = say_phrase(f"reason.{refusal.reason}", "pl", **refusal.reason_args)
        assert said.startswith("Nie masz karty ")


async def test_a_stale_version_names_both_versions(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        seen = await table.seats[0].view()
        legal = seen.view.legal_actions[0]
        with pytest.raises(ParlourError) as caught:
            await table.seats[0].act(legal.id, expected_version=seen.version - 1)
        assert caught.value.reason == "STALE_VERSION"
        assert caught.value.reason_args == {
            "expected": str(seen.version - 1),
            "current": str(seen.version),
        }


async def test_a_request_over_a_limit_says_so(sqlite_url: str) -> None:
    async with running_service(sqlite_url) as service:
        with pytest.raises(ParlourError) as caught:
            await service.client.host_table("hearts", 4, host_player_name="x" * 5000)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.reason == "LIMIT_EXCEEDED"


async def test_the_rules_come_in_the_language_the_call_asks(sqlite_url: str) -> None:
    packaged = Path(__file__).resolve().parents[2] / "services/parlour/engine/rules"
    async with running_service(sqlite_url) as service:
        async with ParlourClient(service.address, language="pl") as polish:
            for game in ("wizard", "crazy8s", "kaiser", "hearts"):
                english = await service.client.get_game(game)
                polski = await polish.get_game(game)
                assert english.rules_text == (packaged / f"{game}.md").read_text("utf-8")
                assert polski.rules_text != english.rules_text
                assert "zasady" in polski.rules_text.lower() or game == "hearts"
                assert polski.options == english.options  # only the words change
        # Hearts in Polish is the Polish original of Kierki, word for word
        async with ParlourClient(service.address, language="pl") as polish:
            kierki = await polish.get_game("hearts")
        assert kierki.rules_text == (packaged / "hearts.pl.md").read_text("utf-8")


async def test_a_refusal_carries_its_words_in_the_calls_language(store_url: str) -> None:
    """Beside its reason, a refusal carries a google.rpc.LocalizedMessage: the
    phrasebook's sentence in the language the call asked for (for a client with
    no catalogue of its own)."""
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        seat = table.seats[0]
        theirs = await table.seats[1].view()
        card = theirs.view.hand[0]
        said: dict[str, str] = {}
        for language in ("pl", "en"):
            async with grpc.aio.insecure_channel(service.address) as channel:
                stub = play_pb2_grpc.PlayServiceStub(channel)
                request = play_pb2.ActRequest(table_id=table.table_id, seat=seat.seat)
                request.action.text = f"give {card}"
                metadata = (("x-parlour-seat-token", seat.token), ("accept-language", language))
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.Act(request, metadata=metadata)
            details = dict(caught.value.trailing_metadata() or ())["grpc-status-details-bin"]
            status = status_pb2.Status.FromString(details)
            for detail in status.details:
                message = error_details_pb2.LocalizedMessage()
                if detail.Unpack(message):
                    said[message.locale] = message.message
        assert said["pl"] == say_phrase("reason.CARD_NOT_IN_HAND", "pl", seat="0", card=card)
        assert said["pl"].startswith("Nie masz karty ")
        assert said["en"] == say_phrase("reason.CARD_NOT_IN_HAND", "en", seat="0", card=card)
