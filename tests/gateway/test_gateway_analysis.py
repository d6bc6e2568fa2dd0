"""The expert's analysis (issue 35) through the REST/JSON gateway: a real service
(SQLite) and a real gateway in front of it; the browser's calls are HTTP only.
A game in progress is refused with its reason and words; a finished game's
analysis is queued and read back as canonical JSON."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from parlour.gateway.app import contract_rpcs, create_app
from tests.service.harness import Service, running_service
from tests.service.test_analysis import TOKEN, finished_game, host, play


@pytest.fixture
async def served(sqlite_url: str) -> AsyncIterator[tuple[Service, str]]:
    async with running_service(sqlite_url, worker_token=TOKEN) as service:
        config = uvicorn.Config(create_app(service.address), host="127.0.0.1", port=0)
        config.log_level = "warning"
        web = uvicorn.Server(config)
        task = asyncio.create_task(web.serve())
        while not web.started:
            await asyncio.sleep(0.01)
        port = web.servers[0].sockets[0].getsockname()[1]
        try:
            yield service, f"http://127.0.0.1:{port}"
        finally:
            web.should_exit = True
            await task


async def post(base: str, method: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.post(f"/api/AnalysisService/{method}", json=body, headers=headers)


def test_the_analysis_rpcs_are_routed_and_the_workers_are_not() -> None:
    routed = contract_rpcs()
    assert ("AnalysisService", "RequestAnalysis") in routed
    assert ("AnalysisService", "GetAnalysis") in routed
    assert ("BotService", "ClaimAnalysis") not in routed


async def test_a_game_in_progress_is_refused_over_http(served: tuple[Service, str]) -> None:
    service, base = served
    table_id, seats = await host(service)
    await play(service, table_id, seats, moves=2)
    refused = await post(
        base,
        "RequestAnalysis",
        {"tableId": table_id},
        **{"X-Parlour-Seat-Token": seats[0].token or "", "Accept-Language": "pl"},
    )
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["code"] == "FAILED_PRECONDITION" and body["reason"] == "ANALYSIS_GAME_NOT_OVER"
    assert body["localized"].startswith("Ta gra wciąż trwa"), body
    assert await service.store.analyses.get(table_id) is None


async def test_a_finished_games_analysis_is_queued_and_read_over_http(
    served: tuple[Service, str],
) -> None:
    service, base = served
    game = await finished_game(service)
    token = {"X-Parlour-Seat-Token": game.seats[1].token or ""}
    queued = await post(base, "RequestAnalysis", {"tableId": game.table_id}, **token)
    assert queued.status_code == 200, queued.text
    assert queued.json()["created"] is True
    analysis = queued.json()["analysis"]
    assert analysis["state"] == "ANALYSIS_STATE_QUEUED" and analysis["game"] == "wizard"
    assert analysis["decisions"] == [] and analysis["tableId"] == game.table_id
    again = await post(base, "RequestAnalysis", {"tableId": game.table_id}, **token)
    assert again.status_code == 200 and again.json()["created"] is False
    read = await post(base, "GetAnalysis", {"tableId": game.table_id}, **token)
    assert read.status_code == 200 and read.json()["analysis"]["state"] == "ANALYSIS_STATE_QUEUED"
    unknown = await post(base, "GetAnalysis", {"tableId": "no-such-table"})
    assert unknown.status_code == 404 and unknown.json()["code"] == "NOT_FOUND"
