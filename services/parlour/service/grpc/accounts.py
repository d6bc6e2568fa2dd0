"""The gRPC servicer of AccountService (``proto/parlour/v1/accounts.proto``).

Translation only, as in ``servicers.py``: the session comes from the call's
``authorization`` metadata, the use cases are ``app/accounts.py``'s, every
refusal is answered by the guards of ``status.py``. No token, password or
device secret is logged here or anywhere.
"""

from __future__ import annotations

from parlour.service.app.accounts import Accounts, Caller, SignedIn, bearer_token
from parlour.service.domain.statuses import TableStatus
from parlour.service.grpc import convert
from parlour.service.grpc.servicers import authorization
from parlour.service.grpc.status import Context, unary
from parlour.service.store.accounts import AccountRow, AccountStore, SessionRow
from parlour.v1 import accounts_pb2, accounts_pb2_grpc, lobby_pb2


def account_message(row: AccountRow) -> accounts_pb2.Account:
    """An account as its owner sees it."""
    message = accounts_pb2.Account(
        account_id=row.account_id, name=row.name or "", guest=row.name is None
    )
    message.created_at.FromDatetime(row.created_at)
    return message


def session_message(row: SessionRow, current: str = "") -> accounts_pb2.Session:
    """A session without its token."""
    message = accounts_pb2.Session(
        session_id=row.session_id, method=row.method, current=row.session_id == current
    )
    message.created_at.FromDatetime(row.created_at)
    message.expires_at.FromDatetime(row.expires_at)
    return message


class AccountServicer(accounts_pb2_grpc.AccountServiceServicer):
    """AccountService over :class:`Accounts` (and the account store for ListMySeats)."""

    def __init__(self, accounts: Accounts, store: AccountStore) -> None:
        self.accounts = accounts
        self.store = store

    async def _caller(self, context: Context) -> Caller:
        return await self.accounts.caller(bearer_token(authorization(context)))

    @unary
    async def AuthenticateDevice(
        self, request: accounts_pb2.AuthenticateDeviceRequest, context: Context
    ) -> accounts_pb2.AuthenticateDeviceResponse:
        signed = await self.accounts.authenticate_device(request.device_secret)
        return accounts_pb2.AuthenticateDeviceResponse(
            account=account_message(signed.account),
            session_token=signed.token,
            session=_new_session(signed),
            created=signed.created,
        )

    @unary
    async def ClaimName(
        self, request: accounts_pb2.ClaimNameRequest, context: Context
    ) -> accounts_pb2.ClaimNameResponse:
        caller = await self._caller(context)
        named = await self.accounts.claim_name(caller, request.name, request.password)
        return accounts_pb2.ClaimNameResponse(account=account_message(named))

    @unary
    async def SignIn(
        self, request: accounts_pb2.SignInRequest, context: Context
    ) -> accounts_pb2.SignInResponse:
        signed = await self.accounts.sign_in(request.name, request.password, request.device_secret)
        return accounts_pb2.SignInResponse(
            account=account_message(signed.account),
            session_token=signed.token,
            session=_new_session(signed),
        )

    @unary
    async def SignOut(
        self, request: accounts_pb2.SignOutRequest, context: Context
    ) -> accounts_pb2.SignOutResponse:
        await self.accounts.sign_out(await self._caller(context))
        return accounts_pb2.SignOutResponse()

    @unary
    async def ListSessions(
        self, request: accounts_pb2.ListSessionsRequest, context: Context
    ) -> accounts_pb2.ListSessionsResponse:
        caller = await self._caller(context)
        current = caller.session.session_id
        return accounts_pb2.ListSessionsResponse(
            sessions=[session_message(row, current) for row in await self.accounts.sessions(caller)]
        )

    @unary
    async def RevokeSession(
        self, request: accounts_pb2.RevokeSessionRequest, context: Context
    ) -> accounts_pb2.RevokeSessionResponse:
        await self.accounts.revoke(await self._caller(context), request.session_id)
        return accounts_pb2.RevokeSessionResponse()

    @unary
    async def WhoAmI(
        self, request: accounts_pb2.WhoAmIRequest, context: Context
    ) -> accounts_pb2.WhoAmIResponse:
        caller = await self._caller(context)
        return accounts_pb2.WhoAmIResponse(
            account=account_message(caller.account),
            session=session_message(caller.session, caller.session.session_id),
        )

    @unary
    async def ListMySeats(
        self, request: accounts_pb2.ListMySeatsRequest, context: Context
    ) -> accounts_pb2.ListMySeatsResponse:
        caller = await self._caller(context)
        held = await self.store.held_seats(
            caller.account.account_id,
            (TableStatus.OPEN, TableStatus.PLAYING),
        )
        return accounts_pb2.ListMySeatsResponse(
            seats=[
                accounts_pb2.MySeat(
                    table_id=seat.table_id,
                    game=seat.game,
                    table_name=seat.table_name,
                    seat=seat.seat,
                    status=convert.STATUS_TO_PROTO.get(
                        seat.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED
                    ),
                    host=seat.host,
                )
                for seat in held
            ]
        )


def _new_session(signed: SignedIn) -> accounts_pb2.Session:
    return session_message(signed.session, signed.session.session_id)
