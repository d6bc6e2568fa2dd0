"""Every answer of the gateway carries the security headers: the page, its
scripts and styles, the API's answers and its errors (4xx, 500), the event
stream. The page's policy allows no inline script or style."""

from __future__ import annotations

import httpx
import pytest

from parlour.gateway import app as gateway_app
from parlour.gateway.app import SECURITY_HEADERS, create_app
from tests.gateway.test_gateway import gateway

__all__ = ["gateway"]

EXPECTED = dict(SECURITY_HEADERS)


def assert_secured(response: httpx.Response) -> None:
    for name, value in EXPECTED.items():
        assert response.headers.get(name) == value, (response.url, name)
    policy = response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/", None, 200),  # the page
        ("GET", "/static/main.js", None, 200),  # a script
        ("GET", "/static/style.css", None, 200),
        ("GET", "/api", None, 200),
        ("POST", "/api/CatalogueService/ListGames", {}, 200),
        ("POST", "/api/NoService/Nothing", {}, 404),  # an API error
        ("POST", "/api/LobbyService/GetTable", {"tableId": "nope"}, 404),  # the service's
        ("POST", "/api/LobbyService/HostTable", {"seats": "many"}, 400),
        ("GET", "/static/missing.js", None, 404),
        ("GET", "/nowhere", None, 404),
        ("PUT", "/api/CatalogueService/ListGames", None, 405),
    ],
)
async def test_every_answer_carries_the_headers(
    gateway: str, method: str, path: str, body: object, status: int
) -> None:
    async with httpx.AsyncClient(base_url=gateway, timeout=10) as http:
        response = await http.request(method, path, json=body)
    assert response.status_code == status, response.text[:200]
    assert_secured(response)


async def test_the_event_stream_carries_the_headers(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway, timeout=10) as http:
        hosted = await http.post(
            "/api/LobbyService/HostTable", json={"game": "crazy8s", "seats": 2}
        )
        table_id = hosted.json()["table"]["tableId"]
        query = {"q": f'{{"tableId": "{table_id}"}}'}
        async with http.stream("GET", "/api/PlayService/Watch", params=query) as stream:
            assert stream.status_code == 200
            assert_secured(stream)


async def test_an_unexpected_error_carries_the_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault injected by the test")

    monkeypatch.setattr(gateway_app.json_format, "Parse", broken)
    transport = httpx.ASGITransport(app=create_app("127.0.0.1:1"), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
        response = await http.post("/api/CatalogueService/ListGames", json={})
    assert response.status_code == 500 and response.json()["code"] == "INTERNAL"
    assert_secured(response)


def test_the_page_has_no_inline_script_or_style() -> None:
    from importlib import resources

    page = resources.files("parlour.web").joinpath("index.html").read_text(encoding="utf-8")
    lowered = page.lower()
    assert "<style" not in lowered and " style=" not in lowered
    for tag in lowered.split("<script")[1:]:
        assert "src=" in tag.split(">", 1)[0], "an inline <script>"
    assert " onclick=" not in lowered and "javascript:" not in lowered
