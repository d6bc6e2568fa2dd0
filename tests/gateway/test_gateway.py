"""The REST/JSON gateway: the contract over HTTP, for browsers.

A real game service (SQLite) and a real uvicorn gateway in front of it, on
loopback ports; the tests speak HTTP only.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from parlour.gateway.app import contract_rpcs, create_app
from parlour.service.bootstrap import Settings, assemble
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[str]:
    url = f"sqlite:///{tmp_path / 'gateway.sqlite3'}"
    upgrade_head(url)
    store = open_store(url)
    notifier = make_notifier(store)
    await notifier.start()
    game = (await assemble(Settings(address="127.0.0.1:0"), store, notifier)).server
    await game.start()
    config = uvicorn.Config(
        create_app(f"127.0.0.1:{game.port}"), host="127.0.0.1", port=0, log_level="warning"
    )
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve())
    while not web.started:
        await asyncio.sleep(0.01)
    port = web.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        await task
        await game.stop(grace=0)
        await notifier.stop()
        await store.close()


async def post(base: str, method: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.post(f"/api/{method}", json=body, headers=headers)


def test_every_rpc_of_the_contract_is_routed() -> None:
    routed = {f"{service}/{method}" for service, method in contract_rpcs()}
    assert {"CatalogueService/ListGames", "LobbyService/HostTable", "PlayService/Act"} <= routed
    assert contract_rpcs()[("PlayService", "Watch")].streaming
    assert ("ReplayService", "GetReplay") in contract_rpcs()
    assert not any(service == "BotService" for service, _ in contract_rpcs())


async def test_the_catalogue_comes_back_as_canonical_json(gateway: str) -> None:
    response = await post(gateway, "CatalogueService/ListGames", {})
    assert response.status_code == 200
    games = {game["id"]: game for game in response.json()["games"]}
    assert set(games) == {"wizard", "crazy8s", "kaiser", "hearts"}
    assert games["wizard"]["minSeats"] == 3 and games["wizard"]["maxSeats"] == 6


async def host_heads_up_crazy8s(base: str) -> tuple[str, str, str]:
    hosted = (
        await post(
            base,
            "LobbyService/HostTable",
            {
                "game": "crazy8s",
                "seats": 2,
                "hostPlayerName": "Ada",
                "hostTakesSeat": True,
                "hostSeat": 0,
            },
        )
    ).json()
    table_id = hosted["table"]["tableId"]
    joined = (
        await post(base, "LobbyService/JoinTable", {"tableId": table_id, "playerName": "Bo"})
    ).json()
    started = await post(
        base,
        "LobbyService/StartTable",
        {"tableId": table_id},
        **{"X-Parlour-Host-Token": hosted["hostToken"]},
    )
    assert started.status_code == 200, started.text
    return table_id, hosted["seatToken"], joined["seatToken"]


async def test_a_person_plays_through_http_and_a_refusal_names_the_rule(gateway: str) -> None:
    table_id, token0, token1 = await host_heads_up_crazy8s(gateway)
    tokens = {0: token0, 1: token1}
    views = {}
    for seat, token in tokens.items():
        response = await post(
            gateway,
            "PlayService/GetView",
            {"tableId": table_id, "seat": seat},
            **{"X-Parlour-Seat-Token": token},
        )
        assert response.status_code == 200, response.text
        views[seat] = response.json()
    seat = views[0]["view"]["toAct"][0]
    view = views[seat]
    # the hidden hand of the other seat is never in this seat's answer
    other_hand = set(views[1 - seat]["view"]["hand"])
    assert not other_hand & set(json.dumps(view).split('"'))
    legal = view["view"]["legalActions"][0]
    act = await post(
        gateway,
        "PlayService/Act",
        {
            "tableId": table_id,
            "seat": seat,
            "expectedVersion": view["version"],
            "requestId": str(uuid.uuid4()),
            "legalActionId": legal["id"],
        },
        **{"X-Parlour-Seat-Token": tokens[seat]},
    )
    assert act.status_code == 200, act.text
    # a card the refusing seat does not hold: one dealt to the seat that just moved
    card_not_held = sorted(view["view"]["hand"])[0]
    refused = await post(
        gateway,
        "PlayService/Act",
        {
            "tableId": table_id,
            "seat": 1 - seat,
            "requestId": str(uuid.uuid4()),
            "action": {"text": f"play {card_not_held}"},
        },
        **{"X-Parlour-Seat-Token": tokens[1 - seat]},
    )
    assert refused.status_code in (409, 400)
    body = refused.json()
    assert body["code"] in ("FAILED_PRECONDITION", "INVALID_ARGUMENT")
    assert body["message"]


async def test_a_wrong_token_is_forbidden(gateway: str) -> None:
    table_id, _, _ = await host_heads_up_crazy8s(gateway)
    response = await post(
        gateway,
        "PlayService/GetView",
        {"tableId": table_id, "seat": 0},
        **{"X-Parlour-Seat-Token": "not-the-token"},
    )
    assert response.status_code == 403
    assert response.json()["code"] == "PERMISSION_DENIED"


async def test_unknown_rpc_and_bad_json_are_client_errors(gateway: str) -> None:
    assert (await post(gateway, "PlayService/Nope", {})).status_code == 404
    async with httpx.AsyncClient(base_url=gateway) as http:
        bad = await http.post("/api/LobbyService/GetTable", content=b"{not json")
    assert bad.status_code == 400


async def test_watch_is_a_server_sent_event_stream_with_the_token_in_the_query(
    gateway: str,
) -> None:
    table_id, token0, _ = await host_heads_up_crazy8s(gateway)
    query = json.dumps({"tableId": table_id, "seat": 0, "fromVersion": 0})
    async with (
        httpx.AsyncClient(base_url=gateway, timeout=10) as http,
        http.stream(
            "GET", "/api/PlayService/Watch", params={"q": query, "seat_token": token0}
        ) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                update = json.loads(line.removeprefix("data: "))
                assert update["view"]["game"] == "crazy8s"
                assert len(update["view"]["hand"]) == 7
                break


async def test_the_browser_page_is_served(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway) as http:
        page = await http.get("/")
        script = await http.get("/static/table.js")
    assert page.status_code == 200 and "<title>Parlour" in page.text
    assert 'type="module" src="/static/main.js"' in page.text
    # ES modules load only when served as JavaScript
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.status_code == 200 and "PlayService/Act" in script.text


async def test_a_refusal_carries_its_reason_and_words_follow_accept_language(
    gateway: str,
) -> None:
    table_id, token0, token1 = await host_heads_up_crazy8s(gateway)
    tokens = {0: token0, 1: token1}
    polish = {}
    for seat, token in tokens.items():
        response = await post(
            gateway,
            "PlayService/GetView",
            {"tableId": table_id, "seat": seat},
            **{"X-Parlour-Seat-Token": token, "Accept-Language": "pl-PL,pl;q=0.9"},
        )
        polish[seat] = response.json()["view"]
    seat = polish[0]["toAct"][0]
    labels = [legal["label"] for legal in polish[seat]["legalActions"]]
    assert labels and all(label.startswith(("zagraj ", "dobierz")) for label in labels), labels
    card_not_held = sorted(polish[seat]["hand"])[0]  # the other seat does not hold it
    refused = await post(
        gateway,
        "PlayService/Act",
        {
            "tableId": table_id,
            "seat": 1 - seat,
            "requestId": str(uuid.uuid4()),
            "action": {"text": f"play {card_not_held}"},
        },
        **{"X-Parlour-Seat-Token": tokens[1 - seat], "Accept-Language": "pl"},
    )
    body = refused.json()
    assert body["reason"] in ("CARD_NOT_IN_HAND", "NOT_YOUR_TURN"), body
    assert body["args"]["seat"] == str(1 - seat)
    # and the service's own words for it, in the language asked (LocalizedMessage)
    assert body["localized"].startswith(("Nie masz karty ", "To nie twoja kolej")), body
    wrong = await post(
        gateway,
        "PlayService/GetView",
        {"tableId": table_id, "seat": 0},
        **{"X-Parlour-Seat-Token": "not-the-token"},
    )
    assert wrong.json()["reason"] == "WRONG_TOKEN" and wrong.json()["args"] == {}
