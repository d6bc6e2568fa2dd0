"""Accounts for client-library programs: the session sent with every call, and the
AccountService calls (``proto/parlour/v1/accounts.proto``).

A :class:`SessionMetadata` given to :class:`~parlour.client.ParlourClient`
adds ``authorization: Bearer <token>`` to every call once its ``token`` is
set, so the seats a program takes are bound to its account and the session
stands in for their tokens. Clients without one send no such metadata.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Protocol

import grpc

from parlour.v1 import accounts_pb2, accounts_pb2_grpc


class ParlourClient(Protocol):
    """What these calls use of :class:`parlour.client.ParlourClient` (named so here,
    not imported: the client module imports this one)."""

    timeout: float | None

    async def _call(self, call: Callable[[Any], Any], *, idempotent: bool) -> Any: ...


AUTHORIZATION_KEY = "authorization"


def new_device_secret() -> str:
    """A fresh device secret: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


class SessionMetadata(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """A channel interceptor adding the session (when ``token`` is set) to every call."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token

    def _details(self, details: Any) -> Any:
        if not self.token:
            return details
        metadata = [*(details.metadata or ()), (AUTHORIZATION_KEY, f"Bearer {self.token}")]
        return details._replace(metadata=grpc.aio.Metadata(*metadata))

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        return await continuation(self._details(details), request)

    async def intercept_unary_stream(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        return await continuation(self._details(details), request)

    def interceptors(self) -> list[grpc.aio.ClientInterceptor]:
        """The interceptors to give a channel: this one for unary calls and its twin for
        streams (grpc.aio files an interceptor under the first kind it is, so one object
        of both kinds would never see a Watch)."""
        return [self, _SessionStream(self)]


class _SessionStream(grpc.aio.UnaryStreamClientInterceptor):
    """The session's metadata on server-streaming calls (Watch)."""

    def __init__(self, session: SessionMetadata) -> None:
        self.session = session

    async def intercept_unary_stream(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        return await continuation(self.session._details(details), request)


async def _call(client: ParlourClient, method: str, request: Any) -> Any:
    def run(stubs: Any) -> Any:
        stub = accounts_pb2_grpc.AccountServiceStub(stubs.channel)
        return getattr(stub, method)(request, timeout=client.timeout)

    return await client._call(run, idempotent=False)


async def authenticate_device(
    client: ParlourClient, device_secret: str
) -> accounts_pb2.AuthenticateDeviceResponse:
    """The device's (guest) account and a new session; keep the session's token."""
    request = accounts_pb2.AuthenticateDeviceRequest(device_secret=device_secret)
    response: accounts_pb2.AuthenticateDeviceResponse = await _call(
        client, "AuthenticateDevice", request
    )
    return response


async def who_am_i(client: ParlourClient) -> accounts_pb2.WhoAmIResponse:
    """The account and session the client's session metadata names."""
    response: accounts_pb2.WhoAmIResponse = await _call(
        client, "WhoAmI", accounts_pb2.WhoAmIRequest()
    )
    return response


async def claim_name(client: ParlourClient, name: str, password: str) -> accounts_pb2.Account:
    """Give the signed-in guest account a name and a password."""
    request = accounts_pb2.ClaimNameRequest(name=name, password=password)
    response: accounts_pb2.ClaimNameResponse = await _call(client, "ClaimName", request)
    return response.account


async def sign_in(
    client: ParlourClient, name: str, password: str, device_secret: str = ""
) -> accounts_pb2.SignInResponse:
    """A new session on a named account (binding this device to it, if given)."""
    request = accounts_pb2.SignInRequest(name=name, password=password, device_secret=device_secret)
    response: accounts_pb2.SignInResponse = await _call(client, "SignIn", request)
    return response


async def sign_out(client: ParlourClient) -> None:
    """End the client's session."""
    await _call(client, "SignOut", accounts_pb2.SignOutRequest())


async def list_my_seats(client: ParlourClient) -> list[accounts_pb2.MySeat]:
    """The account's seats at open and playing tables."""
    response: accounts_pb2.ListMySeatsResponse = await _call(
        client, "ListMySeats", accounts_pb2.ListMySeatsRequest()
    )
    return list(response.seats)
