"""The limits of a public server: rates and caps per caller, at the gRPC edge.

Every caller is known by its address (the peer's IP; an IPv6 peer by its /64,
the block one subscriber holds; behind a trusted proxy such as the gateway, the
address the proxy names in ``x-parlour-client-address``) and, when it has a
session, by that session (:func:`caller_account`). :class:`RatesInterceptor`
holds each key to the rates of :class:`Rates` on HostTable, JoinTable, Act,
GetView and Watch, on the account calls that cost a password hash or make an
account (SignIn and ClaimName share one rate; AuthenticateDevice has its own),
RequestAnalysis (each may queue minutes of the workers' play-outs), and each
seat of a table to its chat rate on Say: moving windows from the
``limits`` library (a burst of N, then N per period, like a token bucket of N
refilled over the period); and it caps the Watch streams one caller holds open
and the spectators watching one table. A call past one is RESOURCE_EXHAUSTED
with the wait in the trailing metadata key
``retry-after`` (seconds, a decimal string). A call with the right worker token
(an AI worker plays many tables) is exempt.

The counts live in this process's memory: each replica limits what it serves
(with two replicas a caller gets up to twice the rate; see ARCHITECTURE.md).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import ipaddress
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import grpc
from google.protobuf.message import Message
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage
from limits.aio.storage.memory import Entry
from limits.aio.strategies import MovingWindowRateLimiter

from parlour.service.app.accounts import AUTHORIZATION_KEY
from parlour.service.grpc.status import details
from parlour.service.grpc.wrapping import Handler, WrappingInterceptor

#: trailing metadata key of a refusal: how many seconds to wait (a decimal string)
RETRY_AFTER_KEY = "retry-after"
#: the caller's address, as a trusted proxy (the gateway) saw it
CLIENT_ADDRESS_KEY = "x-parlour-client-address"
_WORKER_TOKEN_KEY = "x-parlour-worker-token"
#: the wait a cap's refusal suggests (a stream or a spectator's place must end first)
CAP_RETRY_SECONDS = 5.0
#: the longest a refusal pauses, however many of its caller's refusals are pausing
MAX_REFUSAL_PAUSE_SECONDS = 10.0


@dataclass(frozen=True)
class Rates:
    """The limits, per caller (address, and account once there are accounts) and per
    replica; 0 turns one off. The defaults let people play at any pace a person plays."""

    #: HostTable (and ForkTable: a fork makes a table) calls a minute
    host_per_minute: int = 10
    #: JoinTable calls a minute
    join_per_minute: int = 30
    #: Act calls a second
    act_per_second: int = 20
    #: GetView (and GetReplayHand) calls a second
    view_per_second: int = 20
    #: Watch calls started a minute
    watch_per_minute: int = 60
    #: Watch streams open at once
    watch_streams: int = 16
    #: spectator Watch streams on one table at once (from every caller together)
    spectators_per_table: int = 32
    #: SignIn and ClaimName calls a minute (each hashes a password with argon2id)
    sign_in_per_minute: int = 10
    #: AuthenticateDevice calls a minute (a new device is a new guest account)
    devices_per_minute: int = 30
    #: milliseconds a refusal waits before it is answered (never more than the wait
    #: it names): a caller that retries at once is slowed, not served faster. Each
    #: waits a random part of it, half or more, so that a burst of refused calls
    #: is answered spread out, not all in one turn of the server's loop; and a
    #: caller with N refusals pausing already waits N + 1 times as long (at most
    #: MAX_REFUSAL_PAUSE_SECONDS), so that a flood of calls on its connections
    #: (100 in flight each: limits.py) comes in as slowly as the flood is answered
    refusal_delay_ms: int = 1000
    #: chat lines (PlayService.Say) in 10 seconds per seat of a table (issue 32)
    chat_per_ten_seconds: int = 5
    #: AnalysisService.RequestAnalysis calls a minute (issue 35: each may queue a job
    #: that costs the workers minutes)
    analysis_per_minute: int = 10


class WindowStorage(MemoryStorage):
    """``limits``' in-memory storage for moving windows, kept as the windows are used.

    The library's own storage sweeps every key it holds after any hit, a thread
    hop per key (``asyncio.to_thread``): with a few thousand callers a refused
    flood cost the server more in sweeping than in refusing. Here a hit trims its
    own window to the entries its limit can still count (newest first, as the
    library keeps them) and whole keys whose windows have passed are dropped at
    most once a ``SWEEP_SECONDS``, on the event loop, without a thread. Only the
    moving window's two operations are used (:class:`MovingWindowRateLimiter`).
    """

    SWEEP_SECONDS = 60.0

    def __init__(self) -> None:
        super().__init__()
        #: key -> the period of its window (seconds): a key past it holds nothing
        self._periods: dict[str, int] = {}
        self._swept = time.monotonic()

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        self._sweep()
        now = time.time()
        events = self.events.setdefault(key, [])
        self._periods[key] = expiry
        if len(events) > limit - amount and events[limit - amount].atime >= now - expiry:
            return False
        events[:0] = [Entry(expiry)] * amount
        del events[limit:]  # what is past the limit is never counted again
        return True

    def _sweep(self) -> None:
        moment = time.monotonic()
        if moment - self._swept < self.SWEEP_SECONDS:
            return
        self._swept = moment
        now = time.time()
        for key, events in list(self.events.items()):
            if not events or events[0].atime < now - self._periods.get(key, 0):
                del self.events[key]
                self._periods.pop(key, None)
                self.locks.pop(key, None)


@dataclass(frozen=True)
class Knob:
    """How one field of :class:`Rates` is set: its flag and environment variable."""

    name: str
    flag: str
    env: str
    default: int


#: one knob per limit, in the order of the README's table
KNOBS: tuple[Knob, ...] = tuple(
    Knob(
        item.name,
        "--" + item.name.replace("_", "-"),
        "PARLOUR_" + item.name.upper(),
        int(getattr(Rates(), item.name)),
    )
    for item in fields(Rates)
)


def rates_from(values: dict[str, int | None], environ: dict[str, str]) -> Rates:
    """The rates from flags (``values``, None where not given), else the environment,
    else the defaults; ValueError naming the knob for a negative or non-number."""
    chosen: dict[str, int] = {}
    for knob in KNOBS:
        value: int | str | None = values.get(knob.name)
        if value is None:
            value = environ.get(knob.env) or knob.default
        try:
            number = int(value)
        except ValueError:
            message = f"{knob.flag} (${knob.env}) must be a whole number, not {value!r}"
            raise ValueError(message) from None
        if number < 0:
            raise ValueError(f"{knob.flag} (${knob.env}) must be 0 (no limit) or more")
        chosen[knob.name] = number
    return Rates(**chosen)


async def caller_account(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The key of the session the call is made in (one account's), or None for a
    caller without one.

    The session stands for its account without a store read on every call: an
    account holds the rates of each of its sessions, and a new session costs a
    sign-in (an argon2id hash) or a new guest account, both bound by the address's
    rates. The key is a hash of the token, so the token itself is never kept here.
    """
    for key, value in context.invocation_metadata() or ():
        if key == AUTHORIZATION_KEY:
            token = value if isinstance(value, str) else value.decode(errors="replace")
            return hashlib.sha256(token.encode()).hexdigest()[:32]
    return None


def peer_address(peer: str) -> str | None:
    """The IP of a gRPC peer string ("ipv4:1.2.3.4:5", "ipv6:[::1]:5"), None if none."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or None
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]") or None
    return None


@functools.lru_cache(maxsize=4096)
def address_key(address: str) -> str:
    """The key an address is limited by: an IPv4 address, or an IPv6 address's /64
    (remembered: every call parses its caller's address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


class Refusal(Exception):
    """A call past a rate or a cap: the message, and the seconds to wait."""

    def __init__(self, message: str, wait: float) -> None:
        super().__init__(message)
        self.message = message
        self.wait = wait


#: method -> (its rate's field in Rates, per second?)
_RATED: dict[str, tuple[str, bool]] = {
    "/parlour.v1.LobbyService/HostTable": ("host_per_minute", False),
    "/parlour.v1.LobbyService/JoinTable": ("join_per_minute", False),
    "/parlour.v1.PlayService/Act": ("act_per_second", True),
    "/parlour.v1.PlayService/GetView": ("view_per_second", True),
    "/parlour.v1.PlayService/Watch": ("watch_per_minute", False),
    "/parlour.v1.AccountService/SignIn": ("sign_in_per_minute", False),
    "/parlour.v1.AccountService/ClaimName": ("sign_in_per_minute", False),
    "/parlour.v1.AccountService/AuthenticateDevice": ("devices_per_minute", False),
    # a fork makes a table (counted with HostTable); a replay's hand is read like a view
    "/parlour.v1.ReplayService/ForkTable": ("host_per_minute", False),
    "/parlour.v1.ReplayService/GetReplayHand": ("view_per_second", True),
    "/parlour.v1.AnalysisService/RequestAnalysis": ("analysis_per_minute", False),
}
_WATCH = "/parlour.v1.PlayService/Watch"
#: chat is held per seat of a table (the key a seat's lines are counted by), over 10 s
_SAY = "/parlour.v1.PlayService/Say"
_SAY_PERIOD_SECONDS = 10


class RatesInterceptor(WrappingInterceptor):
    """Holds every caller to :class:`Rates` (see the module's docstring)."""

    def __init__(
        self,
        rates: Rates,
        *,
        worker_token: str | None = None,
        trusted_proxies: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.rates = rates
        self._worker_hash = hashlib.sha256(worker_token.encode()).digest() if worker_token else None
        self._trusted = tuple(ipaddress.ip_network(net, strict=False) for net in trusted_proxies)
        self._limiter = MovingWindowRateLimiter(WindowStorage())
        #: method -> its rate, and the period's name
        self._items: dict[str, tuple[RateLimitItem, str]] = {}
        for method, (name, per_second) in _RATED.items():
            amount = getattr(rates, name)
            if amount > 0:
                kind = RateLimitItemPerSecond if per_second else RateLimitItemPerMinute
                per = "a second" if per_second else "a minute"
                self._items[method] = (kind(amount, 1, namespace=name), per)
        if rates.chat_per_ten_seconds > 0:
            chat = RateLimitItemPerSecond(
                rates.chat_per_ten_seconds, _SAY_PERIOD_SECONDS, namespace="chat_per_ten_seconds"
            )
            self._items[_SAY] = (chat, f"in {_SAY_PERIOD_SECONDS} seconds")
        #: caller key -> Watch streams it holds open here
        self.streams: Counter[str] = Counter()
        #: table id -> spectator streams open on it here
        self.spectators: Counter[str] = Counter()
        #: how a refusal pauses (asyncio.sleep; a test may record the pauses instead)
        self.pause: Callable[[float], Awaitable[None]] = asyncio.sleep
        #: the part of its pause a refusal waits: 0.5 to 1 (a test may fix it)
        self.spread: Callable[[], float] = lambda: 0.5 + random.random() / 2
        #: caller key -> its refusals pausing now
        self.refusing: Counter[str] = Counter()

    # -- who is calling ---------------------------------------------------------------

    async def caller_keys(self, context: grpc.aio.ServicerContext[Any, Any]) -> list[str]:
        """The keys the call is limited by: its address, and its account if it has one."""
        address = peer_address(context.peer() or "") or "unknown"
        if self._trusted and _in(address, self._trusted):
            named = _metadata_value(context, CLIENT_ADDRESS_KEY)
            if named and _is_ip(named):
                address = named
        keys = [f"address {address_key(address)}"]
        account = await caller_account(context)
        if account is not None:
            keys.append(f"account {account}")
        return keys

    def is_worker(self, context: grpc.aio.ServicerContext[Any, Any]) -> bool:
        """True for a call with the right worker token (checked, not merely present)."""
        if self._worker_hash is None:
            return False
        given = _metadata_value(context, _WORKER_TOKEN_KEY)
        if not given:
            return False
        return hmac.compare_digest(hashlib.sha256(given.encode()).digest(), self._worker_hash)

    # -- the checks ---------------------------------------------------------------------

    async def check_rate(self, method: str, keys: Sequence[str]) -> None:
        """Count one call of ``method`` for every key; Refusal if one is over its rate."""
        rated = self._items.get(method)
        if rated is None:
            return
        item, per = rated
        for key in keys:
            if not await self._limiter.hit(item, key):
                stats = await self._limiter.get_window_stats(item, key)
                wait = max(stats.reset_time - time.time(), 0.001)
                what = method.rsplit("/", 1)[-1]
                raise Refusal(
                    f"too many {what} calls: at most {item.amount} {per} per "
                    f"{key.split(' ', 1)[0]}; retry in {wait:.1f} s",
                    wait,
                )

    def open_stream(self, keys: Sequence[str], spectated: str | None) -> None:
        """Take a Watch stream's places (Refusal past a cap); :meth:`close_stream` gives
        them back."""
        cap = self.rates.watch_streams
        for key in keys:
            if cap and self.streams[key] >= cap:
                raise Refusal(
                    f"too many Watch streams open: at most {cap} per {key.split(' ', 1)[0]}; "
                    "close one first",
                    CAP_RETRY_SECONDS,
                )
        spectators = self.rates.spectators_per_table
        if spectated is not None and spectators and self.spectators[spectated] >= spectators:
            raise Refusal(
                f"table {spectated} has {spectators} spectators already, the most it takes",
                CAP_RETRY_SECONDS,
            )
        for key in keys:
            self.streams[key] += 1
        if spectated is not None:
            self.spectators[spectated] += 1

    def close_stream(self, keys: Sequence[str], spectated: str | None) -> None:
        for key in keys:
            _release(self.streams, key)
        if spectated is not None:
            _release(self.spectators, spectated)

    # -- wrapping the handlers ----------------------------------------------------------

    def wrap(self, handler: Handler, method: str) -> Handler:
        if method not in _RATED and method != _SAY:
            return handler
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    def _unary(self, behaviour: Callable[..., Any], method: str) -> Callable[..., Awaitable[Any]]:
        async def rated(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not self.is_worker(context):
                try:
                    keys = (
                        _seat_keys(request) if method == _SAY else await self.caller_keys(context)
                    )
                    await self.check_rate(method, keys)
                except Refusal as refused:
                    await self.refuse(context, refused, keys[0])
            return await behaviour(request, context)

        return rated

    def _stream(
        self, behaviour: Callable[..., Any], method: str
    ) -> Callable[..., AsyncIterator[Any]]:
        async def rated(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            if self.is_worker(context):
                async for item in behaviour(request, context):
                    yield item
                return
            keys = await self.caller_keys(context)
            spectated = _spectated_table(request) if method == _WATCH else None
            try:
                await self.check_rate(method, keys)
                self.open_stream(keys, spectated)
            except Refusal as refused:
                await self.refuse(context, refused, keys[0])
            try:
                async for item in behaviour(request, context):
                    yield item
            finally:
                self.close_stream(keys, spectated)

        return rated

    async def refuse(
        self, context: grpc.aio.ServicerContext[Any, Any], refused: Refusal, key: str
    ) -> None:
        """Answer RESOURCE_EXHAUSTED after the refusal's pause; the wait it names is what
        is left of the caller's wait once the pause is over.

        A flood refused together would be answered together, every answer in one
        turn of the loop, and a call that came in meanwhile would wait behind them
        all (make abuse's 2,000 Watch attempts: the victim's p95 x1.5 to x3.8 of
        alone); a pause of a random part of the delay spreads them out. The pause
        grows with the refusals of the caller (``key``) pausing already: a refused
        call holds its place on its connection while it pauses, so a flood on a
        connection comes in no faster than it is answered."""
        base = min(self.rates.refusal_delay_ms / 1000, refused.wait)
        held = self.refusing[key]
        pause = min(base * (1 + held), max(base, MAX_REFUSAL_PAUSE_SECONDS)) * self.spread()
        if pause > 0:
            self.refusing[key] += 1
            try:
                await self.pause(pause)
            finally:
                _release(self.refusing, key)
        await _abort(context, Refusal(refused.message, max(refused.wait - pause, 0.001)))


async def _abort(context: grpc.aio.ServicerContext[Any, Any], refused: Refusal) -> None:
    code, wait = grpc.StatusCode.RESOURCE_EXHAUSTED, f"{refused.wait:.3f}"
    said = details(code, refused.message, "RATE_LIMITED", {"wait_seconds": wait})
    await context.abort(code, refused.message, trailing_metadata=((RETRY_AFTER_KEY, wait), *said))


def _seat_keys(request: Any) -> list[str]:
    """The key a chat line is counted by: its table's seat (whoever sends it)."""
    return [f"seat {getattr(request, 'table_id', '')}/{getattr(request, 'seat', 0)}"]


def _spectated_table(request: Any) -> str | None:
    """The table a Watch request follows as a spectator (no seat), else None."""
    if isinstance(request, Message) and not request.HasField("seat"):
        return str(getattr(request, "table_id", "")) or None
    return None


def _release(counts: Counter[str], key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]


def _metadata_value(context: grpc.aio.ServicerContext[Any, Any], wanted: str) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == wanted:
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _in(address: str, networks: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)
