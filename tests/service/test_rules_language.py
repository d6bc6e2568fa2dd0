"""CatalogueService.GetGame in the caller's language: a call whose
``accept-language`` metadata asks for Polish gets the Polish rules where a
text ships (Hearts: ``hearts.pl.md``, the original; the others the phrasebook's
translations); any other language, or none, gets the English text."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from parlour.engine.registry import get_game
from parlour.service.bootstrap import Settings, assemble
from parlour.service.grpc.convert import rules_in
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store
from parlour.v1 import catalogue_pb2, catalogue_pb2_grpc


@pytest.fixture
async def catalogue() -> AsyncIterator[catalogue_pb2_grpc.CatalogueServiceStub]:
    store = open_store("memory://")
    notifier = make_notifier(store)
    await notifier.start()
    server = (await assemble(Settings(address="127.0.0.1:0"), store, notifier)).server
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield catalogue_pb2_grpc.CatalogueServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(0)
        await notifier.stop()
        await store.close()


async def rules(stub: catalogue_pb2_grpc.CatalogueServiceStub, game: str, language: str) -> str:
    metadata = (("accept-language", language),) if language else ()
    answer = await stub.GetGame(catalogue_pb2.GetGameRequest(game=game), metadata=metadata)
    return answer.game.rules_text


async def test_hearts_in_polish_is_the_polish_original(
    catalogue: catalogue_pb2_grpc.CatalogueServiceStub,
) -> None:
    polish = rules_in(get_game("hearts"), "pl")
    assert polish is not None and polish.startswith("Kierki")
    assert await rules(catalogue, "hearts", "pl-PL,pl;q=0.9,en;q=0.5") == polish
    assert await rules(catalogue, "hearts", "PL") == polish
    english = get_game("hearts").rules_text
    assert await rules(catalogue, "hearts", "en-GB") == english
    assert await rules(catalogue, "hearts", "") == english
    # the cached English answer is not changed by a Polish call
    assert await rules(catalogue, "hearts", "") == english


async def test_a_language_without_a_text_answers_english(
    catalogue: catalogue_pb2_grpc.CatalogueServiceStub,
) -> None:
    english = get_game("kaiser").rules_text
    assert await rules(catalogue, "kaiser", "de") == english
    assert await rules(catalogue, "kaiser", "../hearts") == english  # not a path
    polish = rules_in(get_game("kaiser"), "pl")  # the phrasebook's translation
    assert polish is not None and await rules(catalogue, "kaiser", "pl") == polish
