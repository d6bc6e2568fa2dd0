"""The gateway answers every bad request with a 4xx and a JSON error, never a 500.

Each case reproduces a crash once found (a body that is not UTF-8, a token
header with a tab or a non-ASCII byte, a body over the gRPC message limit, a
NUL in the JSON), plus the mapping of every gRPC status code.
"""

from __future__ import annotations

import grpc
import httpx
import pytest

from parlour.gateway.app import HTTP_STATUS, MAX_BODY_BYTES, _http_status
from tests.gateway.test_gateway import gateway, post

__all__ = ["gateway"]


async def raw_post(
    base: str, path: str, content: bytes, headers: dict[str, str] | None = None
) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.post(path, content=content, headers=headers or {})


def assert_json_error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text[:300]
    body = response.json()
    assert body["code"] == code
    assert "Traceback" not in response.text
    return str(body["message"])


async def test_a_body_that_is_not_utf8_is_400(gateway: str) -> None:
    response = await raw_post(gateway, "/api/LobbyService/HostTable", b'{"game": "\xff\xfe"}')
    assert "not UTF-8" in assert_json_error(response, 400, "INVALID_ARGUMENT")


@pytest.mark.parametrize(
    "body",
    [
        b'{"game": "hea',  # cut short
        b"[" * 50_000,  # nested too deep
        b'{"name": "\\ud800"}',  # a lone surrogate
        b'{"seats": "many"}',
        b'{"seats": 1e400}',
    ],
)
async def test_json_that_is_not_the_request_is_400(gateway: str, body: bytes) -> None:
    response = await raw_post(gateway, "/api/LobbyService/HostTable", body)
    assert_json_error(response, 400, "INVALID_ARGUMENT")


async def test_a_nul_in_the_json_is_400_naming_the_field(gateway: str) -> None:
    response = await post(
        gateway, "LobbyService/HostTable", {"game": "hearts", "seats": 4, "name": "a\u0000b"}
    )
    message = assert_json_error(response, 400, "INVALID_ARGUMENT")
    assert "HostTableRequest.name" in message and "U+0000" in message


@pytest.mark.parametrize("token", ["with\ttab", "caf\u00e9", "x" * 5000, "two words"])
async def test_a_bad_token_header_is_400(gateway: str, token: str) -> None:
    async with httpx.AsyncClient(base_url=gateway, timeout=10) as http:
        response = await http.post(
            "/api/PlayService/GetView",
            json={"tableId": "t", "seat": 0},
            headers={"X-Parlour-Seat-Token": token.encode("latin-1")},  # type: ignore[dict-item]
        )
    assert "X-Parlour-Seat-Token".lower() in assert_json_error(response, 400, "INVALID_ARGUMENT")


async def test_a_body_over_the_cap_is_413_and_a_big_message_too(gateway: str) -> None:
    huge = b'{"name": "' + b"n" * (MAX_BODY_BYTES + 10) + b'"}'
    response = await raw_post(gateway, "/api/LobbyService/HostTable", huge)
    assert_json_error(response, 413, "RESOURCE_EXHAUSTED")
    # under the body cap, but over the service's message limit: the service's 413
    big = await post(gateway, "LobbyService/HostTable", {"game": "hearts", "name": "n" * 100_000})
    message = assert_json_error(big, 413, "RESOURCE_EXHAUSTED")
    assert "larger than max" in message


async def test_the_lobby_lists_after_hostile_hosting_through_the_gateway(gateway: str) -> None:
    for _ in range(2):
        response = await post(
            gateway, "LobbyService/HostTable", {"game": "hearts", "name": "n" * 200_000}
        )
        assert response.status_code == 413
    listed = await post(gateway, "LobbyService/ListTables", {"pageSize": 5})
    assert listed.status_code == 200 and "tables" in listed.json()


async def test_unknown_paths_and_methods_answer_json(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway, timeout=10) as http:
        missing = await http.get("/no/such/page")
        assert_json_error(missing, 404, "NOT_FOUND")
        wrong = await http.put("/api/LobbyService/HostTable", content=b"{}")
        assert wrong.status_code == 405 and wrong.json()["code"] == "UNIMPLEMENTED"


def test_every_grpc_status_has_an_http_status() -> None:
    assert set(HTTP_STATUS) == set(grpc.StatusCode)
    assert (
        _http_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "Received message larger than max") == 413
    )
    assert _http_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many requests") == 429
    refusals = [code for code in grpc.StatusCode if code is not grpc.StatusCode.OK]
    assert all(400 <= HTTP_STATUS[code] < 600 for code in refusals)
