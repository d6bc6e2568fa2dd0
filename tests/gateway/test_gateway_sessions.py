"""The browser's session at the gateway (issue 30): HttpOnly cookies, a CSRF header,
and a seat resumed from a second browser; a real service (SQLite and Postgres) and a
real uvicorn gateway, spoken to over HTTP only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn
from starlette.requests import Request

from parlour.gateway import sessions
from parlour.gateway.app import create_app
from parlour.service.bootstrap import Settings, assemble
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head

CSRF = {"X-Parlour-CSRF": "1"}


@pytest.fixture
async def gateway(store_url: str) -> AsyncIterator[str]:
    upgrade_head(store_url)
    store = open_store(store_url)
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


def browser(base: str) -> httpx.AsyncClient:
    """A browser: its own cookie jar, and the page's CSRF header on every call."""
    return httpx.AsyncClient(base_url=base, timeout=30, headers=CSRF)


async def call(http: httpx.AsyncClient, method: str, body: dict[str, object]) -> httpx.Response:
    return await http.post(f"/api/{method}", json=body)


async def test_a_guest_session_lives_in_httponly_cookies_not_in_the_page(gateway: str) -> None:
    async with browser(gateway) as http:
        answer = await call(http, "AccountService/AuthenticateDevice", {})
        assert answer.status_code == 200, answer.text
        assert answer.json()["account"]["guest"] is True
        assert "sessionToken" not in answer.json() and "deviceSecret" not in answer.text
        cookies = answer.headers.get_list("set-cookie")
        assert len(cookies) == 2
        for cookie in cookies:
            lowered = cookie.lower()
            assert "httponly" in lowered and "samesite=strict" in lowered and "path=/api" in lowered
            assert "secure" not in lowered  # plain HTTP here; see the TLS test below
        token = http.cookies[sessions.SESSION_COOKIE]
        assert len(token) >= 43 and token not in answer.text
        who = await call(http, "AccountService/WhoAmI", {})
        assert who.json()["account"] == answer.json()["account"]
        # the same browser comes back to the same guest (its device cookie)
        again = await call(http, "AccountService/AuthenticateDevice", {})
        assert again.json()["account"]["accountId"] == answer.json()["account"]["accountId"]
        assert not again.json()["created"]


async def test_a_post_with_the_session_cookie_needs_the_csrf_header(gateway: str) -> None:
    async with browser(gateway) as http:
        await call(http, "AccountService/AuthenticateDevice", {})
        forged = await http.post(
            "/api/LobbyService/HostTable",
            json={"game": "crazy8s", "seats": 2},
            headers={"X-Parlour-CSRF": ""},
        )
        assert forged.status_code == 403 and "X-Parlour-CSRF".lower() in forged.text
        listed = await call(http, "LobbyService/ListTables", {})
        assert listed.json()["tables"] == []  # the forged request wrote nothing
        assert (
            await call(http, "LobbyService/HostTable", {"game": "crazy8s", "seats": 2})
        ).is_success
    # a REST client without cookies needs no header (it has no ambient authority)
    async with httpx.AsyncClient(base_url=gateway, timeout=30) as rest:
        hosted = await rest.post(
            "/api/LobbyService/HostTable", json={"game": "crazy8s", "seats": 2}
        )
        assert hosted.status_code == 200


async def test_a_named_player_resumes_a_seat_in_a_second_browser_and_signs_out(
    gateway: str,
) -> None:
    async with browser(gateway) as first, browser(gateway) as second:
        await call(first, "AccountService/AuthenticateDevice", {})
        claimed = await call(
            first, "AccountService/ClaimName", {"name": "Ada", "password": "analytical engine"}
        )
        assert claimed.status_code == 200 and claimed.json()["account"]["name"] == "Ada"
        hosted = (
            await call(
                first,
                "LobbyService/HostTable",
                {"game": "crazy8s", "seats": 2, "hostTakesSeat": True, "hostPlayerName": "x"},
            )
        ).json()
        table_id = hosted["table"]["tableId"]
        assert hosted["table"]["seats"][0]["playerName"] == "Ada"
        await call(second, "AccountService/AuthenticateDevice", {})  # a guest at first
        joined = await call(
            second, "LobbyService/JoinTable", {"tableId": table_id, "playerName": "Bo"}
        )
        assert joined.is_success
        # the host's session starts the game; no host token is needed
        assert (await call(first, "LobbyService/StartTable", {"tableId": table_id})).is_success
        wrong = await call(
            second, "AccountService/SignIn", {"name": "Ada", "password": "wrong password"}
        )
        assert wrong.status_code == 401
        async with browser(gateway) as laptop:
            signed = await call(
                laptop, "AccountService/SignIn", {"name": "Ada", "password": "analytical engine"}
            )
            assert signed.status_code == 200 and "sessionToken" not in signed.json()
            seats = (await call(laptop, "AccountService/ListMySeats", {})).json()["seats"]
            assert [(s["tableId"], s["seat"]) for s in seats] == [(table_id, 0)]
            view = await call(laptop, "PlayService/GetView", {"tableId": table_id, "seat": 0})
            assert view.status_code == 200 and view.json()["view"]["hand"]
            old = laptop.cookies[sessions.SESSION_COOKIE]
            out = await call(laptop, "AccountService/SignOut", {})
            assert out.status_code == 200
            assert sessions.SESSION_COOKIE not in laptop.cookies
            # the token the cookie held is revoked, not only forgotten by the browser
            async with httpx.AsyncClient(base_url=gateway, timeout=30) as rest:
                dead = await rest.post(
                    "/api/PlayService/GetView",
                    json={"tableId": table_id, "seat": 0},
                    headers={"Authorization": f"Bearer {old}"},
                )
                assert dead.status_code == 401
        # the first browser's session is its own and lives on
        assert (
            await call(first, "PlayService/GetView", {"tableId": table_id, "seat": 0})
        ).is_success


def _request(scheme: str) -> Request:
    return Request(
        {"type": "http", "scheme": scheme, "headers": [], "path": "/api/x", "server": ("h", 443)}
    )


def test_the_cookies_are_secure_under_tls() -> None:
    body = {"sessionToken": "t" * 43, "session": {"expiresAt": "2999-01-01T00:00:00Z"}}
    answer = sessions.answer("AccountService", "SignIn", dict(body), _request("https"), "d" * 43)
    cookies = [value.decode() for name, value in answer.raw_headers if name == b"set-cookie"]
    assert len(cookies) == 2 and all("Secure" in cookie for cookie in cookies)
    assert b"t" * 43 not in answer.body
    plain = sessions.answer("AccountService", "SignIn", dict(body), _request("http"), None)
    assert all(b"Secure" not in value for name, value in plain.raw_headers if name == b"set-cookie")
