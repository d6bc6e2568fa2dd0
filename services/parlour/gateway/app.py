"""REST/JSON over the gRPC contract, for browsers.

Generic: every RPC of every service in ``parlour.v1`` is reachable as
``POST /api/<Service>/<Method>`` with the request message in protobuf's
canonical JSON mapping as the body, and answers the response the same way.
Server-streaming RPCs (``PlayService/Watch``) answer a server-sent-event
stream, one ``data:`` line of JSON per message; the browser's EventSource
uses ``GET`` with the request JSON in the ``q`` query parameter. A new RPC in
the contract needs no change here.

The workers' ``BotService`` is left out: browsers never act for bots.
``AccountService`` keeps the session in HttpOnly cookies and needs a CSRF
header with them (``sessions.py``).
Tokens travel as the headers ``X-Parlour-Seat-Token`` and
``X-Parlour-Host-Token`` and are passed on as gRPC metadata, and so is the
page's language (``Accept-Language``, or ``lang`` in a stream's query) as
``accept-language``, for the service to answer in it. gRPC status codes
become HTTP status codes (``HTTP_STATUS``, every code); the body is
``{"code": "FAILED_PRECONDITION", "message": "..."}`` so the rule and card the
service named reach the page.

Whatever arrives, the answer is JSON with a 4xx status, never a traceback: a
body over ``MAX_BODY_BYTES`` is 413, a body that is not UTF-8 JSON for the
request message is 400, and so is a token header that is not printable ASCII
or is too long (the field limits themselves are the service's to enforce).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import math
import pkgutil
import re
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as Message_

import parlour.v1
from parlour.gateway import sessions
from parlour.gateway.channels import ChannelPool

FORWARDED_HEADERS = ("x-parlour-seat-token", "x-parlour-host-token")
#: the metadata key naming the browser's address (the service trusts it from a
#: gateway in its --trusted-proxies only)
CLIENT_ADDRESS_KEY = "x-parlour-client-address"
#: the service's trailing metadata key for the seconds to wait after a refusal
RETRY_AFTER_KEY = "retry-after"
#: The page's language, passed on as ``accept-language`` metadata (a stream, whose
#: EventSource cannot set headers, sends it as the ``lang`` query parameter).
LANGUAGE_HEADER = "accept-language"
#: An Accept-Language value as passed on: tags, weights and commas only, this long at most.
LANGUAGE_VALUE = re.compile(r"[A-Za-z0-9*,;=. -]{1,100}")
#: Services for AI workers only (worker token): never offered to browsers.
NOT_FOR_BROWSERS = frozenset({"BotService"})

log = logging.getLogger("parlour.gateway")

#: The largest request body read (JSON is bigger than the service's 64 KiB of protobuf).
MAX_BODY_BYTES = 256 * 1024
#: How long a request body may take to arrive (a slow sender is answered 408).
BODY_SECONDS = 10.0
#: The largest response message taken from the service (its own send limit).
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
#: How long a stream's answer waits for its first message (or refusal) before it starts:
#: longer than the service's pause before a refusal (``--refusal-delay-ms``, 1 s).
FIRST_MESSAGE_SECONDS = 2.5
#: The longest token header passed on (tokens are 43 characters).
MAX_TOKEN_CHARS = 200

#: Every gRPC status code and the HTTP status it becomes (RESOURCE_EXHAUSTED: see _http_status).
HTTP_STATUS = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


#: Sent with every answer. The page loads only its own files (no inline script or
#: style: the browser client has none), may not be framed, and sends no referrer
#: (an invitation link holds a table id).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)
_RAW_SECURITY_HEADERS = [
    (name.lower().encode(), value.encode()) for name, value in SECURITY_HEADERS
]


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message_) -> None:
            if message["type"] == "http.response.start":
                given = {name for name, _ in message.get("headers", [])}
                extra = [item for item in _RAW_SECURITY_HEADERS if item[0] not in given]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BadInput(Exception):
    """A request the gateway refuses itself, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Rpc:
    path: str  # "/parlour.v1.PlayService/Act"
    request: type[Message]
    response: type[Message]
    streaming: bool


def contract_rpcs() -> dict[tuple[str, str], Rpc]:
    """Every RPC in the contract, keyed by (service short name, method name)."""
    rpcs: dict[tuple[str, str], Rpc] = {}
    for info in pkgutil.iter_modules(parlour.v1.__path__):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"parlour.v1.{info.name}")
        for service in module.DESCRIPTOR.services_by_name.values():
            if service.name in NOT_FOR_BROWSERS:
                continue
            for method in service.methods:
                rpcs[(service.name, method.name)] = _rpc(service.full_name, method)
    return rpcs


def _rpc(service_full_name: str, method: MethodDescriptor) -> Rpc:
    return Rpc(
        path=f"/{service_full_name}/{method.name}",
        request=message_factory.GetMessageClass(method.input_type),
        response=message_factory.GetMessageClass(method.output_type),
        streaming=method.server_streaming,
    )


def _to_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _http_status(code: grpc.StatusCode, message: str) -> int:
    # A message over the size limit is 413 (too large); any other exhaustion is 429 (slow down).
    if code is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in message:
        return 413
    return HTTP_STATUS.get(code, 500)


def _error(
    code: grpc.StatusCode, message: str, exc: grpc.aio.AioRpcError | None = None
) -> JSONResponse:
    return JSONResponse(_error_body(code, message, exc), status_code=_http_status(code, message))


def _error_body(
    code: grpc.StatusCode, message: str, exc: grpc.aio.AioRpcError | None
) -> dict[str, Any]:
    """A refusal as JSON: its code and English message, and (when the server sent
    one) its ``reason`` and ``args`` from the google.rpc.ErrorInfo in the
    ``grpc-status-details-bin`` trailer, for the browser to say in its language, and
    ``localized``, the service's own words for it in the call's language."""
    body: dict[str, Any] = {"code": code.name, "message": message}
    for key, value in (exc.trailing_metadata() or ()) if exc is not None else ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                said = error_details_pb2.LocalizedMessage()
                if detail.Unpack(info) and info.domain == "parlour":
                    body["reason"], body["args"] = info.reason, dict(info.metadata)
                elif detail.Unpack(said):
                    body["localized"] = said.message
    return body


def _rpc_error(exc: grpc.aio.AioRpcError) -> JSONResponse:
    """The answer for a refused call: its status, and Retry-After when the service
    said how long to wait (its ``retry-after`` trailing metadata; whole seconds here)."""
    response = _error(exc.code(), exc.details() or "", exc)
    for key, value in exc.trailing_metadata() or ():
        if key == RETRY_AFTER_KEY:
            with contextlib.suppress(ValueError):
                wait = float(value if isinstance(value, str) else value.decode())
                response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
    return response


def _refusal(status: int, message: str) -> JSONResponse:
    code = {
        413: "RESOURCE_EXHAUSTED",
        404: "NOT_FOUND",
        405: "UNIMPLEMENTED",
        408: "DEADLINE_EXCEEDED",
        403: "PERMISSION_DENIED",
    }.get(status, "INVALID_ARGUMENT")
    return JSONResponse({"code": code, "message": message}, status_code=status)


async def _body(request: Request) -> bytes:
    """The request body, refused (413) past MAX_BODY_BYTES without reading the rest."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BadInput(413, f"the request body is over {MAX_BODY_BYTES} bytes")
    chunks, size = [], 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise BadInput(413, f"the request body is over {MAX_BODY_BYTES} bytes")
                chunks.append(chunk)
    except TimeoutError:
        raise BadInput(408, f"the request body took over {BODY_SECONDS:g} s to arrive") from None
    return b"".join(chunks)


def _token(name: str, value: str) -> str:
    """A token header's value, if it can be passed on as gRPC metadata (printable ASCII)."""
    if len(value) > MAX_TOKEN_CHARS:
        raise BadInput(400, f"{name} is longer than {MAX_TOKEN_CHARS} characters")
    if not all("!" <= char <= "~" for char in value):
        raise BadInput(400, f"{name} may hold only printable ASCII characters (no spaces)")
    return value


def create_app(
    server_address: str, credentials: grpc.ChannelCredentials | None = None
) -> Starlette:
    """The gateway in front of the game service at ``server_address`` (over TLS with
    ``credentials``, see :func:`parlour.client.tls_credentials`; else plaintext)."""
    rpcs = contract_rpcs()

    def open_channel(options: Sequence[tuple[str, Any]]) -> grpc.aio.Channel:
        if credentials is None:
            return grpc.aio.insecure_channel(server_address, options=options)
        return grpc.aio.secure_channel(server_address, credentials, options=options)

    pool = ChannelPool(open_channel, [("grpc.max_receive_message_length", MAX_RESPONSE_BYTES)])

    async def parse(request: Request, rpc: Rpc) -> Message:
        if request.method == "GET":
            raw = request.query_params.get("q", "{}")
        else:
            body = await _body(request)
            try:
                raw = body.decode("utf-8") or "{}"
            except UnicodeDecodeError as exc:
                raise BadInput(400, f"the request body is not UTF-8 (byte {exc.start})") from None
        try:
            return json_format.Parse(raw, rpc.request())
        except json_format.ParseError as exc:
            raise BadInput(400, f"request body: {str(exc)[:200]}") from None
        except (ValueError, TypeError, RecursionError) as exc:
            # e.g. a lone surrogate ("\\ud800") in a string, or JSON nested too deep
            message = f"the request body is not a {rpc.request.DESCRIPTOR.name}: {str(exc)[:200]}"
            raise BadInput(400, message) from None

    def metadata(request: Request) -> tuple[tuple[str, str], ...]:
        # EventSource cannot set headers, so a stream may carry its token in the query.
        found = []
        for name in FORWARDED_HEADERS:
            query_name = name.removeprefix("x-parlour-").replace("-", "_")
            given = request.headers.getlist(name) + request.query_params.getlist(query_name)
            if len(given) > 1:
                # which of two tokens counts is no guess the gateway makes
                raise BadInput(400, f"{name} was sent more than once; send it once")
            value = given[0] if given else ""
            if value:
                found.append((name, _token(name, value)))
        if request.client is not None and request.client.host:
            found.append((CLIENT_ADDRESS_KEY, request.client.host))
        spoken = request.query_params.get("lang") or request.headers.get(LANGUAGE_HEADER, "")
        if LANGUAGE_VALUE.fullmatch(spoken):  # anything else is not passed on (nor refused)
            found.append((LANGUAGE_HEADER, spoken.strip()))
        return tuple(found)

    async def call(request: Request) -> Response:
        key = (request.path_params["service"], request.path_params["method"])
        rpc = rpcs.get(key)
        if rpc is None:
            return _error(grpc.StatusCode.NOT_FOUND, f"no RPC {key[0]}/{key[1]} in the contract")
        try:
            sessions.check_csrf(request)
            message = await parse(request, rpc)
            sent_metadata = metadata(request) + sessions.session_metadata(request)
            new_device = sessions.prepare(*key, message, request)
        except (BadInput, sessions.Refused) as refused:
            return _refusal(refused.status, refused.message)
        except ClientDisconnect:
            return _refusal(400, "the client went away before sending its request")
        if rpc.streaming:
            number, channel = pool.take()
            given = pool.once(number)
            stream = channel.unary_stream(
                rpc.path,
                request_serializer=rpc.request.SerializeToString,
                response_deserializer=rpc.response.FromString,
            )
            watch = stream(message, metadata=sent_metadata)
            # the first message (or the refusal) before the 200, if it comes at once: a
            # stream refused on the spot (a rate, a cap, a bad token) is an HTTP error
            first = asyncio.ensure_future(watch.read())
            try:
                await asyncio.wait({first}, timeout=FIRST_MESSAGE_SECONDS)
            except BaseException:
                watch.cancel()
                given()
                raise
            if first.done() and isinstance(first.exception(), grpc.aio.AioRpcError):
                watch.cancel()
                given()
                return _rpc_error(first.exception())  # type: ignore[arg-type]
            return StreamingResponse(
                _stream(watch, first, given),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
                # also when the browser left before the stream's first byte
                background=BackgroundTask(given),
            )
        if request.method != "POST":
            return _error(grpc.StatusCode.INVALID_ARGUMENT, "unary RPCs are called with POST")
        try:
            with pool.borrowed() as channel:
                method = channel.unary_unary(
                    rpc.path,
                    request_serializer=rpc.request.SerializeToString,
                    response_deserializer=rpc.response.FromString,
                )
                response = await method(message, metadata=sent_metadata, timeout=30)
        except grpc.aio.AioRpcError as exc:
            # issue 30 (browser): a refused SignOut still clears the session's cookies
            return sessions.refused(*key, _rpc_error(exc))
        return sessions.answer(*key, _to_json(response), request, new_device)

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 400
        detail = exc.detail if isinstance(exc, HTTPException) else "bad request"
        return _refusal(status, str(detail))

    async def unexpected(request: Request, exc: Exception) -> Response:
        incident = secrets.token_hex(4)
        log.error("unexpected gateway error (incident %s)", incident, exc_info=exc)
        # answered outside the middleware (by Starlette's outermost error handler)
        return JSONResponse(
            {"code": "INTERNAL", "message": f"gateway error, logged as incident {incident}"},
            status_code=500,
            headers=dict(SECURITY_HEADERS),
        )

    async def contract(request: Request) -> Response:
        return JSONResponse(
            {
                f"{service}/{method}": {"streaming": rpc.streaming}
                for (service, method), rpc in rpcs.items()
            }
        )

    async def index(request: Request) -> Response:
        page = resources.files("parlour.web").joinpath("index.html").read_text(encoding="utf-8")
        return Response(page, media_type="text/html")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await pool.close()

    static = StaticFiles(directory=str(resources.files("parlour.web")))
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api", contract),
            Route("/api/{service}/{method}", call, methods=["GET", "POST"]),
            Mount("/static", static),
        ],
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error, Exception: unexpected},
        middleware=[Middleware(SecurityHeaders)],
    )
    app.state.channels = pool  # for the tests, and a look from a debugger
    return app


async def _stream(
    call: Any, first: asyncio.Future[Any], ended: Callable[[], None]
) -> AsyncIterator[str]:
    """The server-sent events of a stream whose first read is under way (``ended``
    is called once the stream is over)."""
    try:
        message = await first
        while message is not grpc.aio.EOF:
            yield f"data: {json.dumps(_to_json(message))}\n\n"
            message = await call.read()
        yield "event: end\ndata: {}\n\n"
    except grpc.aio.AioRpcError as exc:
        error = _error_body(exc.code(), exc.details() or "", exc)
        yield f"event: error\ndata: {json.dumps(error)}\n\n"
    finally:
        call.cancel()
        ended()
