"""REST/JSON over the gRPC contract, for browsers.

Generic: every RPC of every service in ``parlour.v1`` is reachable as
``POST /api/<Service>/<Method>`` with the request message in protobuf's
canonical JSON mapping as the body, and answers the response the same way.
Server-streaming RPCs (``PlayService/Watch``) answer a server-sent-event
stream, one ``data:`` line of JSON per message; the browser's EventSource
uses ``GET`` with the request JSON in the ``q`` query parameter. A new RPC in
the contract needs no change here.

The workers' ``BotService`` is left out: browsers never act for bots.
Tokens travel as the headers ``X-Parlour-Seat-Token`` and
``X-Parlour-Host-Token`` and are passed on as gRPC metadata. gRPC status codes
become HTTP status codes; the body is ``{"code": "FAILED_PRECONDITION",
"message": "..."}`` so the rule and card the service named reach the page.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import pkgutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import parlour.v1

FORWARDED_HEADERS = ("x-parlour-seat-token", "x-parlour-host-token")
#: Services for AI workers only (worker token): never offered to browsers.
NOT_FOR_BROWSERS = frozenset({"BotService"})

HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.ALREADY_EXISTS: 409,  # a request_id reused for another move
    grpc.StatusCode.OUT_OF_RANGE: 400,  # Watch from a version the table has not reached
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


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


def _error(code: grpc.StatusCode, message: str) -> JSONResponse:
    return JSONResponse(
        {"code": code.name, "message": message}, status_code=HTTP_STATUS.get(code, 500)
    )


def create_app(
    server_address: str, credentials: grpc.ChannelCredentials | None = None
) -> Starlette:
    """The gateway in front of the game service at ``server_address`` (over TLS with
    ``credentials``, see :func:`parlour.client.tls_credentials`; else plaintext)."""
    rpcs = contract_rpcs()
    state: dict[str, grpc.aio.Channel] = {}

    def channel() -> grpc.aio.Channel:
        if "channel" not in state:
            state["channel"] = (
                grpc.aio.insecure_channel(server_address)
                if credentials is None
                else grpc.aio.secure_channel(server_address, credentials)
            )
        return state["channel"]

    async def parse(request: Request, rpc: Rpc) -> Message:
        if request.method == "GET":
            raw = request.query_params.get("q", "{}")
        else:
            raw = (await request.body()).decode() or "{}"
        return json_format.Parse(raw, rpc.request())

    def metadata(request: Request) -> tuple[tuple[str, str], ...]:
        # EventSource cannot set headers, so a stream may carry its token in the query.
        found = []
        for name in FORWARDED_HEADERS:
            query_name = name.removeprefix("x-parlour-").replace("-", "_")
            value = request.headers.get(name) or request.query_params.get(query_name)
            if value:
                found.append((name, value))
        return tuple(found)

    async def call(request: Request) -> Response:
        key = (request.path_params["service"], request.path_params["method"])
        rpc = rpcs.get(key)
        if rpc is None:
            return _error(grpc.StatusCode.NOT_FOUND, f"no RPC {key[0]}/{key[1]} in the contract")
        try:
            message = await parse(request, rpc)
        except json_format.ParseError as exc:
            return _error(grpc.StatusCode.INVALID_ARGUMENT, f"request body: {exc}")
        if rpc.streaming:
            return StreamingResponse(
                _stream(channel(), rpc, message, metadata(request)),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        if request.method != "POST":
            return _error(grpc.StatusCode.INVALID_ARGUMENT, "unary RPCs are called with POST")
        method = channel().unary_unary(
            rpc.path,
            request_serializer=rpc.request.SerializeToString,
            response_deserializer=rpc.response.FromString,
        )
        try:
            response = await method(message, metadata=metadata(request), timeout=30)
        except grpc.aio.AioRpcError as exc:
            return _error(exc.code(), exc.details() or "")
        return JSONResponse(_to_json(response))

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
        if "channel" in state:
            await state.pop("channel").close()

    static = StaticFiles(directory=str(resources.files("parlour.web")))
    return Starlette(
        routes=[
            Route("/", index),
            Route("/api", contract),
            Route("/api/{service}/{method}", call, methods=["GET", "POST"]),
            Mount("/static", static),
        ],
        lifespan=lifespan,
    )


async def _stream(
    channel: grpc.aio.Channel, rpc: Rpc, message: Message, metadata: tuple[tuple[str, str], ...]
) -> AsyncIterator[str]:
    method = channel.unary_stream(
        rpc.path,
        request_serializer=rpc.request.SerializeToString,
        response_deserializer=rpc.response.FromString,
    )
    call = method(message, metadata=metadata)
    try:
        async for response in call:
            yield f"data: {json.dumps(_to_json(response))}\n\n"
        yield "event: end\ndata: {}\n\n"
    except grpc.aio.AioRpcError as exc:
        error = {"code": exc.code().name, "message": exc.details() or ""}
        yield f"event: error\ndata: {json.dumps(error)}\n\n"
    finally:
        call.cancel()
