"""The terminal client's identity (issue 30): signed in as its device from the start,
the session kept under the state directory with mode 0600, the same account on the
next start, and the seats it takes bound to the account."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

from parlour.client import ParlourClient
from parlour.client.accounts import SessionMetadata, list_my_seats, who_am_i
from parlour.tui.app import ParlourApp
from parlour.tui.identity import FILE_NAME, sign_in
from tests.tui.conftest import Service, wait_until


async def test_the_terminal_signs_in_as_its_device_and_keeps_the_session_private(
    service: Service, make_app: Callable[[], ParlourApp], tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session.signed_in.token is not None, what="sign-in")
        assert app.sub_title == "Playing as a guest"
        token = app.session.signed_in.token
    kept = tmp_path / "state" / FILE_NAME
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    saved = json.loads(kept.read_text())
    assert saved["session_token"] == token and len(saved["device_secret"]) >= 43
    # a second start keeps the same session, hence the same account
    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: again.session.signed_in.token is not None)
        assert again.session.signed_in.token == token
        first = await who_am_i(again.session.client)
    # a session revoked elsewhere: the next start signs in as the device again, same account
    kept.write_text(json.dumps({**saved, "session_token": "revoked-or-unknown-" + "x" * 30}))
    async with ParlourClient(service.address, session=SessionMetadata()) as client:
        account = await sign_in(client, tmp_path / "state")
        assert account.account_id == first.account.account_id
        assert client.session is not None and client.session.token != token
        # a seat taken through the signed-in client is the account's
        hosted = await client.host_table(
            "crazy8s", 2, host_takes_seat=True, host_player_name="Term"
        )
        assert hosted.table.seats[0].signed_in
        seats = await list_my_seats(client)
        assert [seat.table_id for seat in seats] == [hosted.table.table_id]
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
