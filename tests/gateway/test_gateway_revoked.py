"""A browser whose session was revoked from another browser (issue 30): its SignOut,
refused as UNAUTHENTICATED, still clears both cookies, so the device cookie (bound to
the named account by SignIn) cannot sign it in again; a real service (SQLite and
Postgres) behind a real uvicorn gateway."""

from __future__ import annotations

import secrets

from parlour.gateway import sessions
from tests.gateway.test_gateway_sessions import browser, call, gateway

__all__ = ["gateway"]


async def test_a_revoked_browser_forgets_its_account_on_sign_out(gateway: str) -> None:
    name, password = f"Rev{secrets.token_hex(3)}", "a long enough password"
    async with browser(gateway) as first, browser(gateway) as second:
        await call(first, "AccountService/AuthenticateDevice", {})
        claimed = await call(
            first, "AccountService/ClaimName", {"name": name, "password": password}
        )
        assert claimed.status_code == 200, claimed.text
        await call(second, "AccountService/AuthenticateDevice", {})
        signed = await call(second, "AccountService/SignIn", {"name": name, "password": password})
        assert signed.status_code == 200, signed.text
        account = signed.json()["account"]["accountId"]
        # the first browser ends the second one's session
        listed = (await call(first, "AccountService/ListSessions", {})).json()["sessions"]
        other = [s for s in listed if not s["current"] and s["method"] == "password"]
        assert len(other) == 1
        revoked = await call(
            first, "AccountService/RevokeSession", {"sessionId": other[0]["sessionId"]}
        )
        assert revoked.status_code == 200, revoked.text
        dead = await call(second, "AccountService/WhoAmI", {})
        assert dead.status_code == 401 and dead.json()["reason"] == "NOT_SIGNED_IN"
        out = await call(second, "AccountService/SignOut", {})
        assert out.status_code == 401
        assert sessions.SESSION_COOKIE not in second.cookies
        assert sessions.DEVICE_COOKIE not in second.cookies
        # its next visit is a new guest, not the named account again
        again = await call(second, "AccountService/AuthenticateDevice", {})
        assert again.json()["account"]["guest"] is True
        assert again.json()["account"]["accountId"] != account
        # the first browser is still signed in
        who = await call(first, "AccountService/WhoAmI", {})
        assert who.json()["account"]["accountId"] == account
