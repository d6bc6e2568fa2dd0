"""The client library's session reaches server streams too (issue 30): a seat taken
with a session is followed with Watch by the session alone, from a second client
signed in to the same account, on SQLite and Postgres. (grpc.aio files an
interceptor under the first kind it is; one object of both kinds never saw Watch.)"""

from __future__ import annotations

import secrets

from parlour.client import ParlourClient
from parlour.client.accounts import (
    SessionMetadata,
    authenticate_device,
    claim_name,
    new_device_secret,
    sign_in,
)
from tests.service.harness import running_service


async def test_watch_carries_the_session_for_a_seat_taken_elsewhere(store_url: str) -> None:
    name, password = f"Str{secrets.token_hex(3)}", "a long enough password"
    async with running_service(store_url) as service:
        first = ParlourClient(service.address, session=SessionMetadata())
        second = ParlourClient(service.address, session=SessionMetadata())
        async with first, second:
            assert first.session is not None and second.session is not None
            signed = await authenticate_device(first, new_device_secret())
            first.session.token = signed.session_token
            await claim_name(first, name, password)
            hosted = await first.host_table(
                "crazy8s", 2, host_takes_seat=True, host_player_name=name
            )
            second.session.token = (await sign_in(second, name, password)).session_token
            # no seat token: the session stands in for it, on the stream as on GetView
            async for update in second.watch(hosted.table.table_id, hosted.seat, None):
                assert update.view.HasField("seat") and update.view.seat == hosted.seat
                break
            else:
                raise AssertionError("Watch ended without an update")
