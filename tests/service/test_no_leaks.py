"""No outgoing message shows a seat a card it cannot know.

Random all-person games are played to the end through the service's own
servicers, and every message they send is searched for card codes (and
card labels such as "Q♠"): every Act answer and GetView, every message of a
Watch stream per seat and for a spectator (views and event texts), GetReplay
logs while the game is on, the lobby's tables, and the messages of refused
moves. Each is checked against the engine's ground truth folded from the
store: the cards other seats hold at that version, and the cards not dealt
(the stock), minus what the seat legitimately knows (the cards it passed).
A card the request itself named may be quoted back in a refusal. No deal's
salt and no server seed (players' entropy, on in half the games) may appear
in any message before the game is over.

Most games run in-process on SQLite (servicers called directly: the
messages are exactly those the gRPC layer would send): 60 in ``make test``,
300 with ``make leak-check``; four more run over real gRPC on Postgres. A
finished game's replay is public by design and is not checked. A planted
leak shows that the check can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from parlour.client import tokens
from parlour.engine.base import GameState
from parlour.service.app.parlour import Parlour
from parlour.service.domain.fold import Folded
from parlour.service.grpc.servicers import LobbyServicer, PlayServicer, ReplayServicer
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head
from parlour.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)
from tests.dblog import DbLog
from tests.replay.hidden import hidden_from, public_cards
from tests.service.harness import running_service

CARD_CODE = re.compile(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][CDHS]|[WN][1-4])(?![0-9A-Za-z])")
HEX_64 = re.compile(r"[0-9a-f]{64}")
CARD_LABEL = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA])([♣♦♥♠])")
#: "W1-W4 for wizards, N1-N4 for jesters" in a refusal explains the notation; it names no card.
NOTATION_HELP = re.compile(r"\b([WN])1-\1?4\b")
#: Examples of the notation quoted in refusals ("must play a card ('play QS')").
NOTATION_EXAMPLES = ("'play QS'", "'play 8S name H'")
SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
ALL_CARDS = [f"{rank}{suit}" for rank in "23456789TJQKA" for suit in "CDHS"]

#: (game, seats, options): short settings, so that a few hundred games stay quick.
SETUPS: list[tuple[str, int, dict[str, str]]] = [
    ("wizard", 3, {"rounds": "5"}),
    ("wizard", 6, {"rounds": "5"}),
    ("crazy8s", 2, {"hand_size": "5"}),
    # a turn clock on: the views also carry each seat's deadline and time left
    ("crazy8s", 4, {"hand_size": "5", "turn_seconds": "300", "bank_seconds": "60"}),
    ("crazy8s", 6, {"hand_size": "5", "draw_until_playable": "false"}),
    ("kaiser", 4, {"target": "32"}),
]


class Refused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


def strings_in(message: Message, *, last_hand: bool = False) -> Iterator[str]:
    """Every string field of ``message``, however deep: outside any ``last_hand`` (the
    result of the hand before, checked on its own), or only inside them."""
    for item, value in message.ListFields():
        if item.name == "last_hand":
            if last_hand:
                yield from strings_in(value)  # everything in it
            continue
        if last_hand and (
            item.type != FieldDescriptor.TYPE_MESSAGE or item.message_type.GetOptions().map_entry
        ):
            continue
        if item.type == FieldDescriptor.TYPE_STRING:
            yield from value if item.is_repeated else (value,)
        elif item.type == FieldDescriptor.TYPE_MESSAGE:
            if item.message_type.GetOptions().map_entry:
                for key, entry in value.items():
                    yield str(key)
                    if isinstance(entry, str):
                        yield entry
            else:
                for sub in value if item.is_repeated else (value,):
                    yield from strings_in(sub, last_hand=last_hand)


def cards_in(texts: Iterator[str] | list[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        text = NOTATION_HELP.sub("", text)
        for example in NOTATION_EXAMPLES:
            text = text.replace(example, "")
        found |= set(CARD_CODE.findall(text))
        found |= {rank + SUIT_LETTER[suit] for rank, suit in CARD_LABEL.findall(text)}
    return found


def undealt(state: GameState) -> set[str]:
    """The cards not yet dealt (Wizard's rest of the pack, the Crazy 8s stock)."""
    # ground truth straight from the engine's state (test code may look inside)
    stock = getattr(state, "stock", None) or getattr(state, "_stock", None) or ()
    return {str(card) for card in stock}


@dataclass
class Checker:
    """Collects the cards each message shows, then checks them against the truth.

    The check is made once the game is over: the log is folded forward once,
    and at each version the cards shown at that version are compared with
    what was hidden from their recipient then.
    """

    store: DbLog  # the ground truth, read straight from the database
    table_id: str
    checked: int = 0
    shown: dict[int, list[tuple[int | None, str, frozenset[str], list[str], bool]]] = field(
        default_factory=dict
    )
    #: every 64-hex-digit value any message showed (commitments, contributions...), by message
    hex_shown: list[tuple[str, str]] = field(default_factory=list)

    def check(
        self,
        what: str,
        texts: Iterator[str] | list[str],
        seat: int | None,
        version: int,
        *,
        allowed: frozenset[str] = frozenset(),
        previous_hand: bool = False,
    ) -> None:
        self.checked += 1
        texts = list(texts)
        for text in texts:
            self.hex_shown += [(what, value) for value in HEX_64.findall(text)]
        cards = cards_in(texts) - allowed
        if cards:
            entry = (seat, what, frozenset(cards), texts, previous_hand)
            self.shown.setdefault(version, []).append(entry)

    def check_message(self, what: str, message: Message, seat: int | None, version: int) -> None:
        """A response: its ``last_hand`` (the hand before) may show what was public then."""
        self.check(what, strings_in(message), seat, version)
        self.check(
            f"{what} last_hand",
            strings_in(message, last_hand=True),
            seat,
            version,
            previous_hand=True,
        )

    def check_replay(self, log: replay_pb2.GetReplayResponse, seat: int | None) -> None:
        if log.finished:
            return  # a finished game's log is public by design
        for event in log.events:
            texts = [event.payload_json, event.text, event.digest]
            self.check(f"replay event {event.seq} {event.type}", texts, seat, event.seq)

    def check_watch(self, update: play_pb2.WatchResponse, seat: int | None) -> None:
        for event in update.events:
            self.check(f"watch event {event.type}", strings_in(event), seat, event.version)
        self.check_message("watch view", update.view, seat, update.version)

    def verify(self) -> None:
        """Fold the log forward once; at each version, nothing hidden may have been shown.

        Hidden from a seat: what other seats hold and what is not dealt, less
        what the seat has seen in this hand (cards it held or passed, cards
        face up at some point: a Crazy 8s pile reshuffled into the stock was
        seen, and the hand's history may still name its cards).
        """
        folded = Folded()
        hand_number = -1
        seen: dict[int | None, set[str]] = {}
        face_up: set[str] = set()
        last_public: set[str] = set()  # face up in the hand before (a hand result names them)
        for event in self.store.read(self.table_id, 0):
            folded.apply(event)
            state = folded.state
            if state is None:
                continue
            if event.type == "CardsDealt" or hand_number < 0:
                number = state.view(None).hand_number
                if number != hand_number:  # a new deal: what was seen is history
                    last_public = face_up
                    hand_number, seen, face_up = number, {}, set()
            action = event.payload.get("action", "") if event.type == "ActionTaken" else ""
            if action.startswith("play "):
                face_up.add(action.split()[1])
            if event.type != "ActionTaken" or action.split()[:1] in (["draw"], ["give"]):
                for seat in range(state.seats):
                    seen.setdefault(seat, set()).update(str(card) for card in state.hand(seat))
            shown = self.shown.pop(event.seq, ())
            if shown:
                face_up |= public_cards(state.view(None))  # the turned card, the top card
            hidden: dict[int | None, set[str]] = {}
            for seat, what, cards, texts, previous_hand in shown:
                if seat not in hidden:
                    hidden[seat] = (hidden_from(state, seat) | undealt(state)) - face_up
                    hidden[seat] -= seen.get(seat, set())
                leaked = cards & hidden[seat]
                if previous_hand:
                    leaked -= last_public
                assert not leaked, (
                    f"{what} to seat {seat} at version {event.seq} shows {sorted(leaked)} in "
                    f"{[text for text in texts if cards_in([text]) & leaked][:5]}"
                )
        assert not self.shown, f"messages at versions the log does not have: {sorted(self.shown)}"
        self.verify_secrets()

    def verify_secrets(self) -> None:
        """No deal's salt and no server seed reached anyone before the game was over.

        (The decks themselves are cards: the check above covers them, the
        stock and undealt cards included.) Only messages sent while the game
        was on are checked; a finished game's replay reveals them by design.
        """
        secret: set[str] = set()
        for event in self.store.read(self.table_id, 0):
            if event.type == "CardsDealt":
                assert len(event.payload["salt"]) == 64
                secret.add(event.payload["salt"])
            if event.type == "TableHosted" and event.payload.get("server_seed"):
                secret.add(event.payload["server_seed"])
        leaked = [(what, value) for what, value in self.hex_shown if value in secret]
        assert not leaked, f"a secret of the deals was sent before it was due: {leaked[:3]}"


# -- two ways to reach the servicers: in-process, or over gRPC ---------------------------------


class Api:
    """unary(service, method, request, metadata) and stream(...) over some transport."""

    async def unary(self, method: str, request: Message, metadata: Any = ()) -> Any:
        raise NotImplementedError

    def stream(self, method: str, request: Message, metadata: Any = ()) -> AsyncIterator[Any]:
        raise NotImplementedError


class FakeContext:
    """What the servicers ask of a call: its metadata, and abort."""

    def __init__(self, metadata: Any) -> None:
        self.metadata = tuple(metadata)

    def invocation_metadata(self) -> Any:
        return self.metadata

    async def abort(self, code: grpc.StatusCode, message: str, trailing_metadata: Any = ()) -> None:
        raise Refused(code, message)

    def time_remaining(self) -> float | None:
        return None


class InProcess(Api):
    def __init__(self, app: Parlour) -> None:
        self.app = app
        self.servicers = {
            "Lobby": LobbyServicer(app),
            "Play": PlayServicer(app),
            "Replay": ReplayServicer(app),
        }

    def _method(self, method: str) -> Callable[..., Any]:
        service, name = method.split(".")
        return getattr(self.servicers[service], name)  # type: ignore[no-any-return]

    async def unary(self, method: str, request: Message, metadata: Any = ()) -> Any:
        answer = await self._method(method)(request, FakeContext(metadata))
        return _as_sent(method, answer)

    async def stream(self, method: str, request: Message, metadata: Any = ()) -> AsyncIterator[Any]:
        async for item in self._method(method)(request, FakeContext(metadata)):
            yield _as_sent(method, item)


def _as_sent(method: str, answer: Any) -> Any:
    """A servicer's answer as the wire brings it: one it serialized itself (a seat's
    view, shared by its Act, GetView and Watch answers) read back as its message."""
    if not isinstance(answer, bytes):
        return answer
    service, name = method.split(".")
    module = {"Lobby": lobby_pb2, "Play": play_pb2, "Replay": replay_pb2}[service]
    rpc = module.DESCRIPTOR.services_by_name[f"{service}Service"].methods_by_name[name]
    return message_factory.GetMessageClass(rpc.output_type).FromString(answer)


class OverGrpc(Api):
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stubs = {
            "Lobby": lobby_pb2_grpc.LobbyServiceStub(channel),
            "Play": play_pb2_grpc.PlayServiceStub(channel),
            "Replay": replay_pb2_grpc.ReplayServiceStub(channel),
        }

    async def unary(self, method: str, request: Message, metadata: Any = ()) -> Any:
        service, name = method.split(".")
        try:
            return await getattr(self.stubs[service], name)(request, metadata=metadata)
        except grpc.aio.AioRpcError as error:
            raise Refused(error.code(), error.details() or "") from None

    async def stream(self, method: str, request: Message, metadata: Any = ()) -> AsyncIterator[Any]:
        service, name = method.split(".")
        try:
            async for item in getattr(self.stubs[service], name)(request, metadata=metadata):
                yield item
        except grpc.aio.AioRpcError as error:
            raise Refused(error.code(), error.details() or "") from None


# -- one game ------------------------------------------------------------------------------------


async def play_and_check(
    api: Api, store: DbLog, rng: random.Random, setup: tuple[str, int, dict[str, str]]
) -> int:
    """Play one random game to the end, checking every message; the number checked."""
    game, seats, options = setup
    hosted = await api.unary(
        "Lobby.HostTable",
        lobby_pb2.HostTableRequest(
            game=game,
            seats=seats,
            options=options,
            host_player_name="Host",
            host_takes_seat=True,
            players_entropy=rng.random() < 0.5,
            host_entropy=rng.randbytes(32).hex(),
        ),
    )
    table_id = hosted.table.table_id
    secrets = {hosted.seat: hosted.seat_token}
    for number in range(1, seats):
        joined = await api.unary(
            "Lobby.JoinTable",
            lobby_pb2.JoinTableRequest(
                table_id=table_id, player_name=f"P{number}", entropy=rng.randbytes(32).hex()
            ),
        )
        secrets[joined.seat] = joined.seat_token
    checker = Checker(store, table_id)

    def metadata(seat: int) -> Any:
        return tokens(seat_token=secrets[seat])

    async def watch(seat: int | None) -> int:
        request = play_pb2.WatchRequest(table_id=table_id)
        if seat is not None:
            request.seat = seat
        last = 0
        async for update in api.stream(
            "Play.Watch", request, () if seat is None else metadata(seat)
        ):
            checker.check_watch(update, seat)
            last = update.version
        return last

    # a spectator and one seat watch (every seat's views are also checked through GetView and Act)
    watchers = [asyncio.create_task(watch(seat)) for seat in (None, rng.randrange(seats))]
    try:
        return await _play(api, rng, checker, table_id, seats, hosted, metadata, watchers, game)
    finally:
        for watcher in watchers:
            watcher.cancel()


async def _play(
    api: Api,
    rng: random.Random,
    checker: Checker,
    table_id: str,
    seats: int,
    hosted: Any,
    metadata: Callable[[int], Any],
    watchers: list[asyncio.Task[int]],
    game: str,
) -> int:
    await api.unary(
        "Lobby.StartTable",
        lobby_pb2.StartTableRequest(table_id=table_id),
        tokens(host_token=hosted.host_token),
    )
    current = await api.unary(
        "Play.GetView", play_pb2.GetViewRequest(table_id=table_id, seat=0), metadata(0)
    )
    to_act = list(current.view.to_act)
    while to_act:
        seat = rng.choice(to_act)
        current = await api.unary(
            "Play.GetView", play_pb2.GetViewRequest(table_id=table_id, seat=seat), metadata(seat)
        )
        checker.check_message("GetView", current, seat, current.version)
        if rng.random() < 0.04:
            applied = await refusals(api, checker, rng, table_id, seat, current, seats, metadata)
            if applied is not None:
                done, to_act = applied, list(applied.view.to_act)
                continue
        if rng.random() < 0.02:
            for viewer in (None, seat):
                request = replay_pb2.GetReplayRequest(table_id=table_id)
                if viewer is not None:
                    request.seat = viewer
                log = await api.unary(
                    "Replay.GetReplay", request, () if viewer is None else metadata(viewer)
                )
                checker.check_replay(log, viewer)
        choice = rng.choice(current.view.legal_actions)
        done = await api.unary(
            "Play.Act",
            play_pb2.ActRequest(
                table_id=table_id,
                seat=seat,
                expected_version=current.version,
                legal_action_id=choice.id,
            ),
            metadata(seat),
        )
        assert done.view.game == game, (done.view.game, game, table_id, done.version)
        checker.check_message("Act", done, seat, done.version)
        to_act = list(done.view.to_act)
    assert done.view.is_over
    finals = await asyncio.wait_for(asyncio.gather(*watchers), 30)
    assert finals == [done.version] * len(watchers), "a watch missed the end of the game"
    for viewer in (None, 0):
        seen = await api.unary("Lobby.GetTable", lobby_pb2.GetTableRequest(table_id=table_id))
        checker.check("GetTable", strings_in(seen), viewer, done.version)
    listed = await api.unary("Lobby.ListTables", lobby_pb2.ListTablesRequest(game=game))
    checker.check("ListTables", strings_in(listed), None, done.version)
    checker.verify()
    return checker.checked


async def refusals(
    api: Api,
    checker: Checker,
    rng: random.Random,
    table_id: str,
    seat: int,
    current: play_pb2.GetViewResponse,
    seats: int,
    metadata: Callable[[int], Any],
) -> play_pb2.ActResponse | None:
    """Refused moves: a card the seat may not hold, and a move out of turn.

    The answer of an attempt that happened to be legal (then the table moved on), else None.
    """
    card = rng.choice(ALL_CARDS)
    attempts = [
        (seat, common_pb2.Action(text=f"{rng.choice(['play', 'give'])} {card}"), frozenset({card})),
        ((seat + 1) % seats, None, frozenset()),
        (seat, common_pb2.Action(text="play ZZ"), frozenset()),
    ]
    for actor, action, allowed in attempts:
        request = play_pb2.ActRequest(
            table_id=table_id, seat=actor, expected_version=current.version
        )
        if action is None:
            request.legal_action_id = 1
        else:
            request.action.CopyFrom(action)
        try:
            done = await api.unary("Play.Act", request, metadata(actor))
        except Refused as refused:
            checker.check(
                f"refusal {refused.code.name}",
                [refused.message],
                actor,
                current.version,
                allowed=allowed,
            )
            continue
        # the attempt happened to be legal (a simultaneous Hearts pass, or a held card)
        assert done.view.seat == actor and done.view.game == current.view.game, (actor, request)
        checker.check("Act", strings_in(done), actor, done.version)
        return done  # type: ignore[no-any-return]
    return None


# -- the tests -----------------------------------------------------------------------------------

#: In-process games in ``make test`` (``make leak-check`` plays 300).
IN_PROCESS_GAMES = int(os.environ.get("LEAK_GAMES", "60"))


@contextlib.asynccontextmanager
async def in_process(url: str, seed: int) -> AsyncIterator[tuple[DbLog, Parlour]]:
    upgrade_head(url)
    store = open_store(url)
    notifier = make_notifier(store)
    await notifier.start()
    app = Parlour(store, notifier, rng=random.Random(seed))
    log = DbLog(url)
    try:
        yield log, app
    finally:
        app.begin_shutdown()
        await notifier.stop()
        await store.close()
        log.close()


async def test_no_message_of_many_random_games_shows_a_hidden_card(sqlite_url: str) -> None:
    seed = int(os.environ.get("LEAK_SEED", "9"))
    rng = random.Random(seed)
    checked = 0
    started = time.monotonic()
    async with in_process(sqlite_url, seed) as (store, app):
        api = InProcess(app)
        hearts = [("hearts", 4, {})] * max(2, IN_PROCESS_GAMES // 30)
        setups = hearts + SETUPS * (IN_PROCESS_GAMES // len(SETUPS) + 1)
        for setup in setups[:IN_PROCESS_GAMES]:
            checked += await play_and_check(api, store, rng, setup)
    print(
        f"leak check: {IN_PROCESS_GAMES} games, {checked} messages checked, "
        f"{time.monotonic() - started:.1f} s"
    )
    assert checked > 100 * IN_PROCESS_GAMES


class LeakyInProcess(InProcess):
    """A service with a leak planted: every GetView names the queen of spades."""

    async def unary(self, method: str, request: Message, metadata: Any = ()) -> Any:
        response = await super().unary(method, request, metadata)
        if method == "Play.GetView":
            response.view.notes.append("seat 1 holds QS")
        return response


async def test_the_check_finds_a_planted_leak(sqlite_url: str) -> None:
    async with in_process(sqlite_url, 1) as (store, app):
        with pytest.raises(
            AssertionError, match=r"GetView to seat \d at version \d+ shows \['QS'\]"
        ):
            for _ in range(5):
                await play_and_check(LeakyInProcess(app), store, random.Random(1), SETUPS[2])


@pytest.mark.postgres
async def test_no_message_over_grpc_on_postgres_shows_a_hidden_card(postgres_url: str) -> None:
    async with running_service(postgres_url) as service:
        channel = grpc.aio.insecure_channel(service.address)
        try:
            api = OverGrpc(channel)
            rng = random.Random(11)
            for setup in [
                ("hearts", 4, {}),
                ("wizard", 4, {"rounds": "5"}),
                ("crazy8s", 3, {"hand_size": "5"}),
                ("kaiser", 4, {"target": "32"}),
            ]:
                await play_and_check(api, service.log, rng, setup)
        finally:
            await channel.close()


class SaltLeakingInProcess(InProcess):
    """A service with a deal's salt planted in every GetView (as a note)."""

    async def unary(self, method: str, request: Message, metadata: Any = ()) -> Any:
        response = await super().unary(method, request, metadata)
        if method == "Play.GetView":
            events = await self.app.store.read(request.table_id)
            salts = [event.payload["salt"] for event in events if event.type == "CardsDealt"]
            response.view.notes.append(f"shuffled with {salts[-1]}")
        return response


async def test_the_check_finds_a_planted_salt(sqlite_url: str) -> None:
    async with in_process(sqlite_url, 2) as (store, app):
        with pytest.raises(
            AssertionError, match=r"a secret of the deals was sent before it was due"
        ):
            await play_and_check(SaltLeakingInProcess(app), store, random.Random(2), SETUPS[5])
