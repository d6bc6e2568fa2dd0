"""The gateway gives the statuses issue 13 added a proper HTTP status, not a 500:
a request_id reused for another move (ALREADY_EXISTS, 409)."""

from __future__ import annotations

from tests.gateway.test_gateway import gateway, host_heads_up_crazy8s, post

__all__ = ["gateway"]  # the fixture, used by name below


async def test_a_reused_request_id_is_a_conflict(gateway: str) -> None:
    table_id, token0, token1 = await host_heads_up_crazy8s(gateway)
    tokens = {0: token0, 1: token1}
    view = (
        await post(
            gateway,
            "PlayService/GetView",
            {"tableId": table_id, "seat": 0},
            **{"X-Parlour-Seat-Token": token0},
        )
    ).json()
    seat = view["view"]["toAct"][0]
    mine = (
        await post(
            gateway,
            "PlayService/GetView",
            {"tableId": table_id, "seat": seat},
            **{"X-Parlour-Seat-Token": tokens[seat]},
        )
    ).json()

    async def act(by: int) -> tuple[int, dict[str, str]]:
        response = await post(
            gateway,
            "PlayService/Act",
            {
                "tableId": table_id,
                "seat": by,
                "expectedVersion": mine["version"],
                "requestId": "the-same-id",
                "legalActionId": 1,
            },
            **{"X-Parlour-Seat-Token": tokens[by]},
        )
        return response.status_code, response.json()

    assert (await act(seat))[0] == 200
    status, again = await act(seat)
    assert status == 200 and again["duplicate"] is True
    status, body = await act(1 - seat)  # the other seat with the same id
    assert status == 409 and body["code"] == "ALREADY_EXISTS", body
