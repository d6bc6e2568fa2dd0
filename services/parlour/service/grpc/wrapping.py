"""The shape both server interceptors share: each method's handler wrapped once.

The server's handlers are fixed once it runs, so the wrapped handler is built
on a method's first call and reused while the inner handler is the same object.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    """Answers each call with ``wrap(handler, method)``, built once per method."""

    def __init__(self) -> None:
        # method ("/parlour.v1.PlayService/Act") -> (the inner handler, its wrapper)
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self.wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    @abstractmethod
    def wrap(self, handler: Handler, method: str) -> Handler:
        """The handler that answers ``method`` in place of ``handler``."""


class Serialized(bytes):
    """A response its servicer serialized itself (a seat's view is serialized once and
    shared by its Act, GetView and Watch answers), with the game it is of: what the
    observer labels an Act's metrics with, which it can no longer read from a message."""

    game: str = ""

    @classmethod
    def of(cls, game: str, *parts: bytes) -> Serialized:
        answer = cls(b"".join(parts))
        answer.game = game
        return answer


def sent_as_is(serialize: Callable[[Any], bytes] | None) -> Callable[[Any], bytes] | None:
    """``serialize``, except that a response the servicer serialized itself (bytes, or
    :class:`Serialized`) is sent as it is."""
    if serialize is None:
        return None
    inner = serialize

    def serialized(response: Any) -> bytes:
        if type(response) is bytes:
            return response
        if isinstance(response, bytes):
            return bytes(response)
        return inner(response)

    return serialized
