"""``make fuzz``: hypothesis-generated requests against a real ``parlour serve`` and gateway.

The campaign starts ``parlour serve`` on a scratch Postgres database (created
and dropped here) and ``parlour gateway`` in front of it, sets up a few real
tables (open, playing, with bots) and then sends requests one at a time:
every RPC of the contract, each request drawn from a strategy built from the
request message's descriptor (``strategies.py``), with no token, a valid
token or a wrong one, with field values at and past each limit, as protobuf
over gRPC, as raw bytes over gRPC, and as JSON (or junk bytes) through the
gateway. Names the server hands out (table ids, tokens) join the pools the
strategies draw from, so requests reach the rules engine and the database.

After each request it asks Postgres whether any transaction id was used
(``pg_current_snapshot``; the counter is the whole server's, so other
databases' writes count too, but no write to ours can go unseen); when one
was, it compares the event log and every projection with what they held
before. A refused request (any status but OK,
any HTTP status but 200) that changed them is a write from a refused request.

It prints the number of requests sent, a count by status code, every UNKNOWN
/ INTERNAL answer and HTTP 5xx, and every write caused by a refused request,
and exits 1 if there was any. ``python -m tests.fuzz.campaign --requests N``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import pkgutil
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import psycopg
import sqlalchemy as sa
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from psycopg import sql

import parlour.v1
from parlour.v1 import (
    accounts_pb2,
    accounts_pb2_grpc,
    bots_pb2,
    catalogue_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from tests.fuzz.strategies import ACTION_TEXT, Known, MessageStrategies

WORKER_TOKEN = "fuzz-worker-token"
DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
BAD_CODES = {"UNKNOWN", "INTERNAL"}
#: Tokens a client may send: none, real ones (drawn from the pools), wrong and junk ones.
JUNK_TOKENS = ["", "x", "wrong-token", "A" * 43, "t" * 101, "t" * 5000, "~!@#$%^&*()"]
#: Authorization values a client may send that are not a session's: wrong schemes, junk.
JUNK_AUTHORIZATION = ["Bearer", "Bearer ", "Bearer x", "Basic dXNlcjpwYXNz", "bearer " + "A" * 43]
#: The metadata keys a token is sent under.
TOKEN_KEYS = ["x-parlour-seat-token", "x-parlour-host-token", "x-parlour-worker-id"]
#: The accounts the campaign makes in its setup (names and passwords join the pools).
ACCOUNT_NAMES = ["Fuzzer", "Zażółć"]
PASSWORD = "correct horse battery staple"
#: Header values only HTTP can carry (gRPC clients refuse to send them): for the gateway.
HTTP_ONLY_TOKENS = ["tab\there", "caf\u00e9", "two words"]


# -- processes --------------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_database(admin_url: str) -> Iterator[str]:
    """A new Postgres database (its SQLAlchemy URL), dropped afterwards."""
    name = f"parlour_fuzz_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = sa.make_url(admin_url).set(drivername="postgresql+psycopg", database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@contextlib.contextmanager
def process(command: list[str], log: Path, announce: str) -> Iterator[tuple[str, int]]:
    """Run ``command``; yield the rest of its first stdout line containing ``announce``
    (up to a space) and the child's pid."""
    with log.open("w") as errors:
        # the worker token is a secret: the service reads it from the environment, never argv
        env = {**os.environ, "PARLOUR_WORKER_TOKEN": WORKER_TOKEN}
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, env=env)
    found: list[str] = []

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if announce in line and not found:
                found.append(line.split(announce, 1)[1].split()[0])

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while not found and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        if not found:
            raise RuntimeError(f"{command[3]} did not start; see {log}")
        yield found[0], child.pid
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running(database_url: str, logs: Path) -> Iterator[tuple[str, str]]:
    """``parlour serve`` and ``parlour gateway``: (gRPC address, HTTP base URL)."""
    cli = [sys.executable, "-m", "parlour.cli"]
    serve = [*cli, "serve", "--address", "127.0.0.1:0", "--database-url", database_url]
    serve += ["--lease-seconds", "1"]
    # 100,000 requests from one address: the rates raised on purpose (the rates
    # themselves are tested in tests/service/test_rates.py and by make abuse)
    serve += ["--host-per-minute", "1000000", "--join-per-minute", "1000000"]
    serve += ["--act-per-second", "1000000", "--view-per-second", "1000000"]
    serve += ["--watch-per-minute", "1000000", "--watch-streams", "100000"]
    serve += ["--spectators-per-table", "100000"]
    serve += ["--sign-in-per-minute", "1000000", "--devices-per-minute", "1000000"]
    serve += ["--spectators-per-table", "100000", "--chat-per-ten-seconds", "1000000"]
    serve += ["--analysis-per-minute", "1000000"]
    # no table ends by the clock while the campaign runs (about half an hour at 100,000
    # requests): an abandonment or expiry written then, between a refused request and
    # the look at the tables after it, would be counted as that request's write
    serve += ["--abandon-seconds", "0", "--open-table-seconds", "0"]
    with process(serve, logs / "serve.log", "serving on") as (address, _):
        # port 0: the gateway binds, then says where (no port picked here for another to take)
        gateway = [*cli, "gateway", "--server", address, "--port", "0"]
        with process(gateway, logs / "gateway.log", "browser client on ") as (url, _):
            base = url.rstrip("/")
            for _ in range(100):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/api", timeout=1).status_code == 200:
                        break
                time.sleep(0.1)
            yield address, base


# -- the database, before and after ----------------------------------------------------------


class Writes:
    """Notices writes: a transaction id used, then what the tables hold."""

    def __init__(self, database_url: str) -> None:
        self.engine = sa.create_engine(database_url, isolation_level="AUTOCOMMIT")
        self.conn = self.engine.connect()
        self.mark = self._xid()
        self.held = self._fingerprint()

    def _xid(self) -> int:
        return int(
            self.conn.execute(
                sa.text("SELECT pg_snapshot_xmax(pg_current_snapshot())")
            ).scalar_one()
        )

    def _fingerprint(self) -> tuple[Any, ...]:
        parts = []
        for table, order in (
            ("events", "game_id, seq"),
            ("tables", "table_id"),
            ("seats", "table_id, seat"),
            ("bot_leases", "table_id, seat"),
            ("accounts", "account_id"),
            ("devices", "device_hash"),
            ("sessions", "session_id"),
        ):
            rows = f"string_agg(t::text, '|' ORDER BY {order})"
            query = f"SELECT count(*), md5(coalesce({rows}, '')) FROM {table} t"
            parts.append(tuple(self.conn.execute(sa.text(query)).one()))
        return tuple(parts)

    def changed(self) -> tuple[bool, bool]:
        """(a transaction id was used, the stored rows changed) since the last call."""
        mark = self._xid()
        if mark == self.mark:
            return False, False
        self.mark = mark
        held = self._fingerprint()
        moved = held != self.held
        self.held = held
        self.mark = self._xid()
        return True, moved

    def close(self) -> None:
        self.conn.close()
        self.engine.dispose()


# -- the campaign -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rpc:
    service: str
    method: str
    request: type[Message]
    response: type[Message]
    streaming: bool

    @property
    def path(self) -> str:
        return f"/parlour.v1.{self.service}/{self.method}"


def contract() -> list[Rpc]:
    """Every RPC of every service in the generated contract (a new service is fuzzed
    without a line here)."""
    rpcs = []
    for found in sorted(pkgutil.iter_modules(parlour.v1.__path__), key=lambda m: m.name):
        if not found.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"parlour.v1.{found.name}")
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                rpcs.append(_rpc(service.name, method))
    return rpcs


def _rpc(service: str, method: MethodDescriptor) -> Rpc:
    return Rpc(
        service,
        method.name,
        message_factory.GetMessageClass(method.input_type),
        message_factory.GetMessageClass(method.output_type),
        method.server_streaming,
    )


@dataclass
class Report:
    sent: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_rpc: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    bad: list[str] = field(default_factory=list)
    refused_writes: list[str] = field(default_factory=list)
    refused_rolled_back: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return not self.bad and not self.refused_writes

    def lines(self) -> list[str]:
        out = [
            f"requests sent: {self.sent} in {self.seconds:.0f} s "
            f"({self.sent / max(self.seconds, 1e-9):.0f}/s)",
            "by status code:",
        ]
        out += [f"  {status:32} {count:8}" for status, count in sorted(self.by_status.items())]
        out.append(f"RPCs covered: {len(self.by_rpc)} (requests sent, of which accepted)")
        out += [
            f"  {rpc:40} {count:8} {self.accepted[rpc]:8}"
            for rpc, count in sorted(self.by_rpc.items())
        ]
        out.append("most frequent gRPC refusals (the service's own words, numbers as N):")
        out += [f"  {count:8}  {reason}" for reason, count in self.reasons.most_common(15)]
        out.append(f"UNKNOWN / INTERNAL / HTTP 5xx: {len(self.bad)}")
        out += [f"  {line}" for line in self.bad[:50]]
        out.append(f"writes caused by refused requests: {len(self.refused_writes)}")
        out += [f"  {line}" for line in self.refused_writes[:50]]
        out.append(
            "refused requests after which the tables were compared (a transaction id was "
            "used somewhere on the Postgres server meanwhile), found unchanged: "
            f"{self.refused_rolled_back}"
        )
        return out


class Campaign:
    """Sends one drawn request at a time and records what came back."""

    def __init__(self, address: str, http_base: str, database_url: str) -> None:
        self.channel = grpc.insecure_channel(
            address, options=[("grpc.max_send_message_length", 8 * 1024 * 1024)]
        )
        self.http = httpx.Client(base_url=http_base, timeout=10)
        self.writes = Writes(database_url)
        self.rpcs = contract()
        self.known = Known()
        self.tokens: list[tuple[str, str]] = []  # (metadata key, token) handed out
        self.report = Report()
        #: per RPC path: requests (and their metadata) the service accepted, or made valid
        self.valid: dict[str, list[tuple[Message, tuple[tuple[str, str], ...]]]] = {}
        self.last_details = ""
        self.strategies = MessageStrategies(self.known)
        for text in ACTION_TEXT:
            self.known.add("action_text", text)

    def close(self) -> None:
        self.writes.close()
        self.http.close()
        self.channel.close()

    # -- setting up real tables, through the contract -----------------------------------------

    def setup(self) -> None:
        lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        games = catalogue_pb2.ListGamesResponse.FromString(
            self.channel.unary_unary("/parlour.v1.CatalogueService/ListGames")(
                catalogue_pb2.ListGamesRequest().SerializeToString()
            )
        )
        for game in games.games:
            self.known.add("game", game.id)
            self.known.add("games", game.id)
            for option in game.options:
                self.known.add("option", option.name)
                for value in option.allowed_values:
                    self.known.add("option_value", value)
            for level in game.bot_levels:
                self.known.add("bot_level", level)
            seats = game.min_seats
            for start in (False, True):
                host_request = lobby_pb2.HostTableRequest(
                    game=game.id, seats=seats, host_player_name="Host", host_takes_seat=True
                )
                self.remember("/parlour.v1.LobbyService/HostTable", host_request, ())
                hosted = lobby.HostTable(host_request)
                self._harvest(hosted)
                table_id = hosted.table.table_id
                for number in range(1, seats):
                    self._harvest(
                        lobby.JoinTable(
                            lobby_pb2.JoinTableRequest(table_id=table_id, player_name=f"P{number}")
                        )
                    )
                if start:
                    lobby.StartTable(
                        lobby_pb2.StartTableRequest(table_id=table_id),
                        metadata=(("x-parlour-host-token", hosted.host_token),),
                    )
            bots = lobby.HostTable(
                lobby_pb2.HostTableRequest(
                    game=game.id,
                    seat_setup=[
                        lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_PERSON),
                        *[lobby_pb2.SeatSetup(kind=lobby_pb2.SEAT_KIND_BOT)] * (seats - 1),
                    ],
                    host_player_name="Host",
                    host_takes_seat=True,
                )
            )
            self._harvest(bots)
            lobby.StartTable(
                lobby_pb2.StartTableRequest(table_id=bots.table.table_id),
                metadata=(("x-parlour-host-token", bots.host_token),),
            )
        self._accounts()
        play = play_pb2_grpc.PlayServiceStub(self.channel)
        for table_id in self.known.pool("table_id"):
            for key, token in self.tokens:
                if key != "x-parlour-seat-token":
                    continue
                for seat in range(6):
                    request = play_pb2.GetViewRequest(table_id=table_id, seat=seat)
                    with contextlib.suppress(grpc.RpcError):
                        view = play.GetView(request, metadata=((key, token),))
                        self.remember("/parlour.v1.PlayService/GetView", request, ((key, token),))
                        self._act_template(request, view, ((key, token),))
                        self._say_template(request, view, ((key, token),))
                        for legal in view.view.legal_actions:
                            self.known.add("action_text", legal.action.text)
        self.writes.changed()

    def _accounts(self) -> None:
        """Guests on a few devices, two of them with names: sessions to send, and names,
        passwords, device secrets and session ids for the pools."""
        accounts = accounts_pb2_grpc.AccountServiceStub(self.channel)
        for number in range(4):
            secret = f"fuzz-device-{number}-" + "d" * 32
            self.known.add("device_secret", secret)
            request = accounts_pb2.AuthenticateDeviceRequest(device_secret=secret)
            self.remember("/parlour.v1.AccountService/AuthenticateDevice", request, ())
            guest = accounts.AuthenticateDevice(request)
            self._harvest(guest)
            bearer = (("authorization", f"Bearer {guest.session_token}"),)
            if number < len(ACCOUNT_NAMES):
                claim = accounts_pb2.ClaimNameRequest(name=ACCOUNT_NAMES[number], password=PASSWORD)
                accounts.ClaimName(claim, metadata=bearer)
                self.known.add("name", ACCOUNT_NAMES[number])
                self.known.add("password", PASSWORD)
                sign_in = accounts_pb2.SignInRequest(name=ACCOUNT_NAMES[number], password=PASSWORD)
                self.remember("/parlour.v1.AccountService/SignIn", sign_in, ())
            self._harvest(
                accounts.ListSessions(accounts_pb2.ListSessionsRequest(), metadata=bearer)
            )

    def remember(self, path: str, request: Message, metadata: tuple[tuple[str, str], ...]) -> None:
        pool = self.valid.setdefault(path, [])
        pool.append((request, metadata))
        del pool[:-60]

    def _act_template(
        self, request: Any, response: Any, metadata: tuple[tuple[str, str], ...]
    ) -> None:
        """From a seat's view that lists legal actions, a valid Act for that seat."""
        view = getattr(response, "view", None)
        table_id = getattr(request, "table_id", "")
        if not table_id or view is None or not view.HasField("seat") or not view.legal_actions:
            return
        act = play_pb2.ActRequest(
            table_id=table_id,
            seat=view.seat,
            expected_version=response.version,
            legal_action_id=view.legal_actions[-1].id,
            request_id=uuid.uuid4().hex,
        )
        self.remember("/parlour.v1.PlayService/Act", act, metadata)

    def _say_template(
        self, request: Any, response: Any, metadata: tuple[tuple[str, str], ...]
    ) -> None:
        """From a seat's view of a game being played, a valid chat line for that seat
        (Say and SetChat are fuzzed as every RPC; this lets the drawn ones reach the
        chat's own checks with a real seat's token)."""
        view = getattr(response, "view", None)
        table_id = getattr(request, "table_id", "")
        if not table_id or view is None or not view.HasField("seat") or not view.chat_enabled:
            return
        say = play_pb2.SayRequest(table_id=table_id, seat=view.seat, text="good luck")
        self.remember("/parlour.v1.PlayService/Say", say, metadata)

    def _harvest(self, response: Message) -> None:
        """Remember the names and tokens an accepted response hands out."""
        table = getattr(response, "table", None)
        if isinstance(table, lobby_pb2.Table) and table.table_id:
            self.known.add("table_id", table.table_id)
        for name, key in (
            ("host_token", "x-parlour-host-token"),
            ("seat_token", "x-parlour-seat-token"),
            ("session_token", "authorization"),
        ):
            value = getattr(response, name, "")
            if value and key == "authorization":
                value = f"Bearer {value}"
            if value and (key, value) not in self.tokens:
                self.tokens.append((key, value))
                del self.tokens[:-400]
        for session in getattr(response, "sessions", ()):
            self.known.add("session_id", session.session_id)
        if isinstance(response, bots_pb2.ClaimTurnResponse) and response.claimed:
            self.known.add("table_id", response.table_id)

    # -- what one request is ------------------------------------------------------------------

    def metadata(self) -> st.SearchStrategy[tuple[tuple[str, str], ...]]:
        @st.composite
        def draw_metadata(draw: st.DrawFn) -> tuple[tuple[str, str], ...]:
            found: list[tuple[str, str]] = []
            for _ in range(draw(st.integers(0, 2))):
                kind = draw(st.sampled_from(["real", "real", "junk", "worker"]))
                index = draw(st.integers(0, 2**16))  # see strategies.text: pools grow
                if kind == "real" and self.tokens:
                    found.append(self.tokens[index % len(self.tokens)])
                elif kind == "worker":
                    found.append(
                        ("x-parlour-worker-token", draw(st.sampled_from([WORKER_TOKEN, "nope"])))
                    )
                    found.append(
                        (
                            "x-parlour-worker-id",
                            draw(st.sampled_from(["fuzz-1", "fuzz-1", "fuzz-2", "w" * 101])),
                        )
                    )
                else:
                    key = draw(st.sampled_from([*TOKEN_KEYS, "authorization"]))
                    junk = JUNK_TOKENS + HTTP_ONLY_TOKENS
                    if key == "authorization":
                        junk = junk + JUNK_AUTHORIZATION
                    found.append((key, draw(st.sampled_from(junk))))
            return tuple(found)

        return draw_metadata()

    def one_request(
        self, only: Rpc | None = None
    ) -> st.SearchStrategy[tuple[Rpc, str, Any, tuple[tuple[str, str], ...]]]:
        """(rpc, how it is sent, the request or raw bytes, metadata); ``only``: of that RPC."""
        metadata = self.metadata()

        @st.composite
        def draw_request(draw: st.DrawFn) -> tuple[Rpc, str, Any, tuple[tuple[str, str], ...]]:
            rpc = draw(st.sampled_from(self.rpcs if only is None else [only]))
            how = draw(
                st.sampled_from(
                    ["grpc", "grpc", "grpc", "grpc-bytes", "http", "http", "http-bytes"]
                )
            )
            if rpc.service == "BotService" and how.startswith("http"):
                how = "grpc"
            if how.endswith("bytes"):
                body: Any = draw(st.binary(max_size=300))
            else:
                body = draw(self.strategies.for_message(rpc.request.DESCRIPTOR))
            sent_metadata = draw(metadata)
            # Half the time, start instead from a request the service accepted (or one
            # made to be valid) and send it as it is or with one field, or the metadata,
            # taken from the drawn request: refusals one step away from a real write.
            # (Every draw is made whatever the pool holds: hypothesis needs that.)
            mutant, index, field_index, swap = draw(
                st.tuples(
                    st.booleans(), st.integers(0, 2**16), st.integers(-1, 2**8), st.booleans()
                )
            )
            pool = self.valid.get(rpc.path, [])
            if mutant and pool and not how.endswith("bytes"):
                template, template_metadata = pool[index % len(pool)]
                fields = rpc.request.DESCRIPTOR.fields
                if field_index >= 0 and fields:
                    body = one_field_from(template, body, fields[field_index % len(fields)])
                else:
                    body = template
                sent_metadata = sent_metadata if swap and field_index < 0 else template_metadata
            return rpc, how, body, sent_metadata

        return draw_request()

    # -- sending ---------------------------------------------------------------------------------

    def send(self, rpc: Rpc, how: str, body: Any, metadata: tuple[tuple[str, str], ...]) -> None:
        self.report.sent += 1
        self.report.by_rpc[f"{rpc.service}/{rpc.method}"] += 1
        if how.startswith("grpc"):
            # a gRPC client cannot send these header values at all; only HTTP can
            metadata = tuple((k, v) for k, v in metadata if v not in HTTP_ONLY_TOKENS)
            status, response = self._grpc(rpc, how, body, metadata)
            refused = status != "grpc OK" and status != "grpc OK (stream open)"
        else:
            status, response = self._http(rpc, how, body, metadata)
            refused = status not in ("http 200", "http 200 (stream open)")
        self.report.by_status[status] += 1
        code = status.split()[1]
        what = f"{rpc.service}/{rpc.method} via {how}: {_summary(body)}"
        if code in BAD_CODES or (status.startswith("http") and code.isdigit() and int(code) >= 500):
            self.report.bad.append(f"{status} ({self.last_details}): {what}")
        if not refused:
            self.report.accepted[f"{rpc.service}/{rpc.method}"] += 1
        if response is not None and not refused:
            self._harvest(response)
            self._act_template(body, response, metadata)
        if not refused and isinstance(body, Message) and rpc.method != "Act":
            self.remember(rpc.path, body, metadata)
        used, moved = self.writes.changed()
        if refused and moved:
            self.report.refused_writes.append(f"{status}: {what}")
        elif refused and used:
            self.report.refused_rolled_back += 1

    def _grpc(
        self, rpc: Rpc, how: str, body: Any, metadata: tuple[tuple[str, str], ...]
    ) -> tuple[str, Message | None]:
        serialize = (lambda raw: raw) if how == "grpc-bytes" else rpc.request.SerializeToString
        try:
            if rpc.streaming:
                call = self.channel.unary_stream(rpc.path, request_serializer=serialize)
                stream = call(body, metadata=metadata, timeout=0.05)
                try:
                    first = next(stream)
                    return "grpc OK", rpc.response.FromString(first)
                except StopIteration:
                    return "grpc OK", None
                finally:
                    stream.cancel()
            call = self.channel.unary_unary(rpc.path, request_serializer=serialize)
            raw = call(body, metadata=metadata, timeout=10)
            return "grpc OK", rpc.response.FromString(raw)
        except grpc.RpcError as error:
            code = error.code()  # type: ignore[attr-defined]
            if rpc.streaming and code == grpc.StatusCode.DEADLINE_EXCEEDED:
                return "grpc OK (stream open)", None  # our own short wait for a first message
            details = str(error.details())  # type: ignore[attr-defined]
            if code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
                self.last_details = details[:200]
            self.report.reasons[f"{code.name}: {_gist(details)}"] += 1
            return f"grpc {code.name}", None

    def _http(
        self, rpc: Rpc, how: str, body: Any, metadata: tuple[tuple[str, str], ...]
    ) -> tuple[str, Message | None]:
        # the page's own header, which a state-changing call with the cookies needs
        headers = {"x-parlour-csrf": "1"}
        for key, value in metadata:
            if key in ("x-parlour-seat-token", "x-parlour-host-token", "authorization"):
                headers[key] = value
        content = body if how == "http-bytes" else json_format.MessageToJson(body).encode()
        path = f"/api/{rpc.service}/{rpc.method}"
        try:
            if rpc.streaming:
                query = {"q": content.decode("utf-8", "replace")}
                with self.http.stream(
                    "GET", path, params=query, headers=headers, timeout=0.2
                ) as reply:
                    if reply.status_code != 200:
                        reply.read()
                        return f"http {reply.status_code}", None
                    try:
                        for _ in reply.iter_raw():
                            break
                    except httpx.ReadTimeout:
                        return "http 200 (stream open)", None
                    return "http 200", None
            reply = self.http.post(path, content=content, headers=headers)
        except httpx.ReadTimeout:
            return "http 200 (stream open)", None
        except (httpx.LocalProtocolError, UnicodeEncodeError):
            return "http not sent (the HTTP library refused the header)", None
        if reply.status_code == 200:
            return "http 200", json_format.Parse(
                reply.text, rpc.response(), ignore_unknown_fields=True
            )
        if reply.status_code >= 500:
            self.last_details = reply.text[:200]
        if "application/json" not in reply.headers.get("content-type", ""):
            return f"http {reply.status_code} (not JSON)", None
        return f"http {reply.status_code}", None


def one_field_from(template: Message, source: Message, field: Any) -> Message:
    """``template`` with ``field`` as ``source`` has it (set, or cleared)."""
    out = type(template)()
    out.CopyFrom(template)
    out.ClearField(field.name)
    if field.is_repeated:
        getattr(out, field.name).MergeFrom(getattr(source, field.name))
        return out
    try:
        present = source.HasField(field.name)
    except ValueError:  # a proto3 scalar without presence
        present = True
    if not present:
        return out
    if field.message_type is not None:
        getattr(out, field.name).CopyFrom(getattr(source, field.name))
    else:
        setattr(out, field.name, getattr(source, field.name))
    return out


def _gist(details: str) -> str:
    """A refusal's message with its particulars blurred, to count refusals by kind."""
    blurred = re.sub(r"'[^']*'(\.\.\. \(\d+ characters\))?", "'…'", details)
    return re.sub(r"\d+", "N", blurred)[:70]


def _summary(body: Any) -> str:
    text = repr(body) if isinstance(body, bytes) else json.dumps(json_format.MessageToDict(body))
    return text if len(text) <= 160 else f"{text[:160]}... ({len(text)} chars)"


def run(address: str, http_base: str, database_url: str, requests: int, seed_value: int) -> Report:
    """Send ``requests`` drawn requests; the report."""
    campaign = Campaign(address, http_base, database_url)
    started = time.monotonic()
    try:
        campaign.setup()

        def campaign_of(examples: int, rpc: Rpc | None = None) -> Callable[[], None]:
            @seed(seed_value)
            @settings(
                max_examples=examples,
                phases=[Phase.generate],
                database=None,
                deadline=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(campaign.one_request(rpc))
            def one(drawn: tuple[Rpc, str, Any, tuple[tuple[str, str], ...]]) -> None:
                campaign.send(*drawn)
                if campaign.report.sent % 5000 == 0:
                    print(f"  ... {campaign.report.sent} requests", flush=True)

            return one

        # One request of each RPC first, then the rest drawn freely: a short campaign
        # calls the whole contract by construction. (Which RPCs a free draw picks
        # depends on what the service answered before, as the pools its strategies
        # draw from grow with it: in a loaded run of 1,000 requests an RPC drawn 6
        # times in a quiet one was once not drawn at all.)
        first = campaign.rpcs if requests >= len(campaign.rpcs) else []
        for rpc in first:
            campaign_of(1, rpc)()
        campaign_of(requests - len(first))()
    finally:
        campaign.report.seconds = time.monotonic() - started
        campaign.close()
    return campaign.report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--postgres",
        default=os.environ.get("PARLOUR_FUZZ_POSTGRES_URL", DEFAULT_ADMIN_URL),
        help="a Postgres server's maintenance database to create the scratch database on",
    )
    parser.add_argument("--logs", type=Path, default=Path("build/fuzz"))
    args = parser.parse_args(argv)
    args.logs.mkdir(parents=True, exist_ok=True)
    admin = (
        sa.make_url(args.postgres)
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )
    with scratch_database(admin) as url, running(url, args.logs) as (address, base):
        print(f"fuzzing parlour serve at {address} and the gateway at {base} (seed {args.seed})")
        report = run(address, base, url, args.requests, args.seed)
    print("\n".join(report.lines()))
    return 0 if report.clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
