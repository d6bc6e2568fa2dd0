"""The gRPC servicers: typed grpc.aio handlers over the application layer.

Servicers only translate: request message -> application call -> response
message; every exception is answered with its status by the guards of
``status.py``. One class per service of ``proto/parlour/v1``.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from parlour.contract.view import seat_part_to_proto
from parlour.engine.registry import GameInfo, all_games, get_game
from parlour.service.app import auth
from parlour.service.app.accounts import AUTHORIZATION_KEY
from parlour.service.app.analysis import Analyses
from parlour.service.app.bots import BotTurns
from parlour.service.app.forking import Fork, fork_table
from parlour.service.app.parlour import Credentials, MoveSpec, Parlour, SeatChoice, SeatView
from parlour.service.app.replay_log import ReplayLog, get_replay
from parlour.service.app.replay_steps import ReplayHand, get_replay_hand
from parlour.service.domain import errors
from parlour.service.domain.statuses import TableStatus
from parlour.service.grpc import convert
from parlour.service.grpc.convert_analysis import analysis_message, claim_message, part_from
from parlour.service.grpc.status import Context, streaming, unary
from parlour.service.grpc.wrapping import Serialized
from parlour.service.store.protocol import StoredEvent
from parlour.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalogue_pb2,
    catalogue_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)
from parlour.words import current as current_language


def credentials(context: Context) -> Credentials:
    """The tokens in the call's metadata."""
    found: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        if key in (
            auth.SEAT_TOKEN_KEY,
            auth.HOST_TOKEN_KEY,
            auth.WORKER_TOKEN_KEY,
            auth.WORKER_ID_KEY,
        ):
            found[key] = value if isinstance(value, str) else value.decode()
    return Credentials(
        seat_token=found.get(auth.SEAT_TOKEN_KEY),
        host_token=found.get(auth.HOST_TOKEN_KEY),
        worker_token=found.get(auth.WORKER_TOKEN_KEY),
        worker_id=found.get(auth.WORKER_ID_KEY),
    )


class _OverApp:
    """A servicer over the application layer."""

    def __init__(self, app: Parlour) -> None:
        self.app = app

    async def _who(self, context: Context) -> Credentials:
        """The call's tokens, with the account of its session (if it carries one)."""
        return await self.app.identify(credentials(context), authorization(context))


def authorization(context: Context) -> str | None:
    """The call's ``authorization`` metadata (the session: accounts.proto), if any."""
    for key, value in context.invocation_metadata() or ():
        if key == AUTHORIZATION_KEY:
            return value if isinstance(value, str) else value.decode()
    return None


def _optional_seat(request: Any) -> int | None:
    """The request's seat, or None for a spectator (the field is not set)."""
    return int(request.seat) if request.HasField("seat") else None


class CatalogueServicer(catalogue_pb2_grpc.CatalogueServiceServicer):
    """CatalogueService: the games and their option schemas (straight from the registry).

    ``bot_levels`` (game id -> levels) is injected by whoever knows the bots
    (the CLI); the service layer itself never imports them.
    """

    def __init__(self, bot_levels: Mapping[str, Sequence[str]] | None = None) -> None:
        self.bot_levels = dict(bot_levels or {})
        # static data: built once (the rules text is read from the package here, not per call)
        self._list = catalogue_pb2.ListGamesResponse(
            games=[self._info(info, with_rules=False) for info in all_games()]
        )
        self._games = {
            info.id: catalogue_pb2.GetGameResponse(game=self._info(info, with_rules=True))
            for info in all_games()
        }

    @unary
    async def ListGames(
        self, request: catalogue_pb2.ListGamesRequest, context: Context
    ) -> catalogue_pb2.ListGamesResponse:
        return self._list

    @unary
    async def GetGame(
        self, request: catalogue_pb2.GetGameRequest, context: Context
    ) -> catalogue_pb2.GetGameResponse:
        if not request.game:
            raise errors.BadRequest("game is required")
        info = get_game(request.game)  # get_game names an unknown game
        said = convert.rules_in(info, current_language())  # the rules in the call's language
        if said is None:
            return self._games[info.id]
        answer = catalogue_pb2.GetGameResponse()
        answer.CopyFrom(self._games[info.id])
        answer.game.rules_text = said
        return answer

    def _info(self, info: GameInfo, *, with_rules: bool) -> catalogue_pb2.GameInfo:
        message = convert.game_info(info, with_rules=with_rules)
        message.bot_levels.extend(self.bot_levels.get(info.id, ()))
        return message


class LobbyServicer(_OverApp, lobby_pb2_grpc.LobbyServiceServicer):
    """LobbyService over :class:`Parlour`."""

    @unary
    async def HostTable(
        self, request: lobby_pb2.HostTableRequest, context: Context
    ) -> lobby_pb2.HostTableResponse:
        setup = [
            SeatChoice(
                convert.SEAT_KIND_FROM_PROTO.get(seat.kind, "?"), seat.bot_level, seat.invite_only
            )
            for seat in request.seat_setup
        ]
        hosted = await self.app.host_table(
            request.game,
            request.seats,
            dict(request.options),
            setup,
            name=request.name,
            host_player_name=request.host_player_name,
            host_takes_seat=request.host_takes_seat,
            host_seat=request.host_seat if request.HasField("host_seat") else None,
            players_entropy=request.players_entropy,
            host_entropy=request.host_entropy,
            credentials=await self._who(context),
        )
        response = lobby_pb2.HostTableResponse(
            table=convert.table(hosted.table),
            host_token=hosted.host_token,
            seat_token=hosted.seat_token,
            seat_codes=[
                lobby_pb2.SeatCode(seat=seat, code=code)
                for seat, code in sorted(hosted.seat_codes.items())
            ],
        )
        if hosted.seat is not None:
            response.seat = hosted.seat
        return response

    @unary
    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        status = convert.STATUS_FROM_PROTO.get(request.status, TableStatus.OPEN)
        rows, next_token = await self.app.list_tables(
            status, request.game, request.page_size, request.page_token
        )
        return lobby_pb2.ListTablesResponse(
            tables=[convert.table(row) for row in rows], next_page_token=next_token
        )

    @unary
    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        row = await self.app.get_table(request.table_id)
        return lobby_pb2.GetTableResponse(table=convert.table(row))

    @unary
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        seat = _optional_seat(request)
        joined = await self.app.join(
            request.table_id,
            request.player_name,
            seat,
            entropy=request.entropy,
            seat_code=request.seat_code,
            credentials=await self._who(context),
        )
        return lobby_pb2.JoinTableResponse(
            seat=joined.seat, seat_token=joined.seat_token, table=convert.table(joined.table)
        )

    @unary
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        row = await self.app.leave(request.table_id, request.seat, await self._who(context))
        return lobby_pb2.LeaveTableResponse(table=convert.table(row))

    @unary
    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Context
    ) -> lobby_pb2.StartTableResponse:
        row = await self.app.start(request.table_id, await self._who(context))
        return lobby_pb2.StartTableResponse(table=convert.table(row))

    @unary
    async def RemoveFromSeat(
        self, request: lobby_pb2.RemoveFromSeatRequest, context: Context
    ) -> lobby_pb2.RemoveFromSeatResponse:
        row = await self.app.remove_from_seat(
            request.table_id, request.seat, await self._who(context)
        )
        return lobby_pb2.RemoveFromSeatResponse(table=convert.table(row))


class PlayServicer(_OverApp, play_pb2_grpc.PlayServiceServicer):
    """PlayService over :class:`Parlour`."""

    def __init__(self, app: Parlour) -> None:
        super().__init__(app)
        self._sent = ViewMessages()

    @unary
    async def GetView(  # type: ignore[override]  # a GetViewResponse, serialized
        self, request: play_pb2.GetViewRequest, context: Context
    ) -> Serialized:
        seat = _optional_seat(request)
        least = request.min_version if request.HasField("min_version") else None
        seen = await self.app.view(request.table_id, seat, await self._who(context), least)
        head = play_pb2.GetViewResponse(version=seen.version).SerializeToString()
        return Serialized.of(seen.table.game, head, self._sent.view(seen, seat))

    @unary
    async def Act(  # type: ignore[override]  # an ActResponse, serialized
        self, request: play_pb2.ActRequest, context: Context
    ) -> Serialized:
        which = request.WhichOneof("move")
        move: MoveSpec
        if which == "legal_action_id":
            move = request.legal_action_id
        elif which == "action":
            move = convert.action_from_proto(request.action)
        else:
            raise errors.BadRequest("set legal_action_id or action")
        seen = await self.app.act(
            request.table_id,
            request.seat,
            await self._who(context),
            move,
            expected_version=(
                request.expected_version if request.HasField("expected_version") else None
            ),
            request_id=request.request_id,
        )
        head = play_pb2.ActResponse(version=seen.version, duplicate=seen.duplicate)
        return Serialized.of(
            seen.table.game, head.SerializeToString(), self._sent.view(seen, request.seat)
        )

    @unary
    async def ReturnToSeat(
        self, request: play_pb2.ReturnToSeatRequest, context: Context
    ) -> play_pb2.ReturnToSeatResponse:
        seen = await self.app.return_to_seat(
            request.table_id, request.seat, await self._who(context)
        )
        return play_pb2.ReturnToSeatResponse(
            version=seen.version,
            view=convert.any_view(seen.view, seen.table, request.seat, seen),
        )

    @unary
    async def Say(self, request: play_pb2.SayRequest, context: Context) -> play_pb2.SayResponse:
        version = await self.app.say(
            request.table_id, request.seat, await self._who(context), request.text
        )
        return play_pb2.SayResponse(version=version)

    @unary
    async def SetChat(
        self, request: play_pb2.SetChatRequest, context: Context
    ) -> play_pb2.SetChatResponse:
        version = await self.app.set_chat(request.table_id, request.on, await self._who(context))
        return play_pb2.SetChatResponse(version=version)

    @streaming
    async def Watch(  # type: ignore[override]  # WatchResponses, serialized
        self, request: play_pb2.WatchRequest, context: Context
    ) -> AsyncIterator[bytes]:
        seat = _optional_seat(request)
        updates = self.app.watch(
            request.table_id, seat, await self._who(context), request.from_version
        )
        async for seen in updates:
            yield self._sent.message(seen, seat)


class ViewMessages:
    """A seat's view serialized once per version and sent by every answer that carries it.

    The application answers every reader of one seat (or every spectator) at one
    version with the same engine view (``app/views.shared_view``): the Act that
    made the version, its seat's Watch streams and GetViews. Its ``View``, in one
    language, is built and serialized once and its bytes reused for a moment
    (``MAX_AGE`` seconds: the clocks' ``time_left_ms`` is counted when a view is
    built), each answer laying its own fields beside them. An entry holds the
    engine view it was built from, so an id is never reused while its entry is
    kept, and a seat's bytes are only ever found by that seat's view.

    Most of a View is the same for every seat at a version (the tricks, the
    players, the scores, the clocks): that part is built once per version from
    the spectator's view (``SeatView.public``), which holds no hidden card, and
    each seat's bytes are those shared bytes and the seat's own fields
    (``contract.view.SEAT_FIELDS``: its hand, its choices) built from its own view.

    A Watch message is kept whole too, for every stream of one seat at one
    version, and its events serialized once per table, version, language and
    reader (:func:`convert.event_reader`): every seat reads another seat's move
    alike, so a move's event is built once for the seat that made it and once
    for everyone else, not once per stream.
    """

    MAX_AGE = 0.5
    KEPT = 512
    #: views are shared between answers a moment apart (an Act's and its seat's
    #: streams'): a few per table in play is enough, and each one kept holds a whole
    #: engine view for the collector to walk
    VIEWS_KEPT = 128
    EVENTS_KEPT = 4096

    def __init__(self) -> None:
        self._views: OrderedDict[int, tuple[SeatView, int | None, str, float, bytes]] = (
            OrderedDict()
        )
        self._built: OrderedDict[int, tuple[SeatView, str, float, bytes]] = OrderedDict()
        self._shared: OrderedDict[int, tuple[SeatView, str, float, bytes]] = OrderedDict()
        self._events: OrderedDict[tuple[str, int, str, int | None], bytes] = OrderedDict()

    def view(self, seen: SeatView, seat: int | None) -> bytes:
        """The ``view`` field (number 2 of every answer that has one) of ``seen`` for
        ``seat``, serialized."""
        if seen.view is None:  # a table not started: no engine view to key it by
            message = convert.any_view(None, seen.table, seat, seen).SerializeToString()
            return convert.length_delimited(VIEW_FIELD, message)
        language = current_language()
        now = time.monotonic()
        entry = self._views.get(id(seen.view))
        if (
            entry is not None
            and entry[0].view is seen.view
            and entry[1] == seat
            and entry[2] == language
            and now - entry[3] < self.MAX_AGE
            and _same_facts(entry[0], seen)
        ):
            return entry[4]
        if seen.public is None or seen.ended:  # built whole
            message = convert.any_view(seen.view, seen.table, seat, seen).SerializeToString()
        else:  # the part every seat shares, and this seat's own
            message = self._public(seen, language, now)
            message += seat_part_to_proto(seen.view).SerializeToString()
        found = convert.length_delimited(VIEW_FIELD, message)
        _keep(self._views, id(seen.view), (seen, seat, language, now, found), self.VIEWS_KEPT)
        return found

    def _public(self, seen: SeatView, language: str, now: float) -> bytes:
        """The serialized public part of every seat's View at ``seen``'s version, built
        from the spectator's view (``seen.public``), which holds no hidden card."""
        public = seen.public
        assert public is not None
        entry = self._shared.get(id(public))
        if (
            entry is not None
            and entry[0].public is public
            and entry[1] == language
            and now - entry[2] < self.MAX_AGE
            and _same_facts(entry[0], seen)
        ):
            return entry[3]
        found = convert.public_view(public, seen.table, seen).SerializeToString()
        _keep(self._shared, id(public), (seen, language, now, found), self.VIEWS_KEPT)
        return found

    def message(self, seen: SeatView, seat: int | None) -> bytes:
        """The serialized ``WatchResponse`` of ``seen`` for ``seat`` (None: a spectator)."""
        language = current_language()
        now = time.monotonic()
        entry = self._built.get(id(seen))
        if (
            entry is not None
            and entry[0] is seen
            and entry[1] == language
            and now - entry[2] < self.MAX_AGE
        ):
            return entry[3]
        parts = [
            play_pb2.WatchResponse(version=seen.version).SerializeToString(),
            self.view(seen, seat),
        ]
        parts += [self._event(event, seat, language) for event in seen.events]
        message = b"".join(parts)
        _keep(self._built, id(seen), (seen, language, now, message), self.KEPT)
        return message

    def _event(self, event: StoredEvent, seat: int | None, language: str) -> bytes:
        """One ``events`` entry of a WatchResponse, as ``seat`` reads it, serialized."""
        key = (event.table_id, event.seq, language, convert.event_reader(event, seat))
        found = self._events.get(key)
        if found is None:
            found = convert.length_delimited(
                WATCH_EVENTS_FIELD, convert.public_event(event, seat).SerializeToString()
            )
            _keep(self._events, key, found, self.EVENTS_KEPT)
        return found


def _keep(cache: OrderedDict[Any, Any], key: Any, value: Any, kept: int) -> None:
    """Put ``value`` in ``cache`` as its newest entry, dropping the oldest past ``kept``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > kept:
        cache.popitem(last=False)


def _same_facts(built: SeatView, seen: SeatView) -> bool:
    """Whether two snapshots of one engine view carry the same facts beside it (the
    table's row, the clocks, the ending, the chat), which the View message shows."""
    return (
        built.table is seen.table
        and built.version == seen.version
        and built.away == seen.away
        and built.deadlines == seen.deadlines
        and built.ended == seen.ended
        and built.away_bot_level == seen.away_bot_level
        and built.chat_on == seen.chat_on
        and (built.chat is seen.chat or built.chat == seen.chat)
    )


#: the field number of ``view`` in WatchResponse, the same in GetViewResponse,
#: ActResponse and ReturnToSeatResponse (checked by a test)
VIEW_FIELD = play_pb2.WatchResponse.DESCRIPTOR.fields_by_name["view"].number
WATCH_EVENTS_FIELD = play_pb2.WatchResponse.DESCRIPTOR.fields_by_name["events"].number


class BotServicer(bots_pb2_grpc.BotServiceServicer):
    """BotService over :class:`BotTurns` and the analysis jobs (:class:`Analyses`)."""

    def __init__(self, turns: BotTurns, analyses: Analyses) -> None:
        self.turns = turns
        self.analyses = analyses

    @unary
    async def ClaimTurn(
        self, request: bots_pb2.ClaimTurnRequest, context: Context
    ) -> bots_pb2.ClaimTurnResponse:
        self.turns.check_worker(credentials(context))
        claim = await self.turns.claim(
            request.worker_id,
            request.wait_seconds,
            frozenset(request.games),
            time_left=context.time_remaining(),
        )
        if claim is None:
            return bots_pb2.ClaimTurnResponse(claimed=False)
        response = bots_pb2.ClaimTurnResponse(
            claimed=True,
            table_id=claim.table.table_id,
            seat=claim.seat,
            game=claim.table.game,
            bot_level=claim.bot_level,
            version=claim.version,
            view=convert.view(claim.view, claim.table),
            options={
                name: convert.option_text(value) for name, value in claim.table.options.items()
            },
        )
        response.lease_expires_at.FromDatetime(claim.expires_at)
        return response

    @unary
    async def ReleaseTurn(
        self, request: bots_pb2.ReleaseTurnRequest, context: Context
    ) -> bots_pb2.ReleaseTurnResponse:
        self.turns.check_worker(credentials(context))
        released = await self.turns.release(request.worker_id, request.table_id, request.seat)
        return bots_pb2.ReleaseTurnResponse(released=released)

    @unary
    async def ClaimAnalysis(
        self, request: bots_pb2.ClaimAnalysisRequest, context: Context
    ) -> bots_pb2.ClaimAnalysisResponse:
        self.analyses.check_worker(credentials(context))
        job = await self.analyses.claim(
            request.worker_id,
            request.wait_seconds,
            list(request.games),
            time_left=context.time_remaining(),
        )
        if job is None:
            return bots_pb2.ClaimAnalysisResponse(claimed=False)
        return claim_message(job)

    @unary
    async def SubmitAnalysis(
        self, request: bots_pb2.SubmitAnalysisRequest, context: Context
    ) -> bots_pb2.SubmitAnalysisResponse:
        self.analyses.check_worker(credentials(context))
        row, accepted = await self.analyses.submit(
            request.worker_id, request.table_id, part_from(request)
        )
        answer = bots_pb2.SubmitAnalysisResponse(accepted=accepted, analysis=analysis_message(row))
        if row.lease_expires_at is not None and row.state == "running":
            answer.lease_expires_at.FromDatetime(row.lease_expires_at)
        return answer


def replay_response(log: ReplayLog) -> replay_pb2.GetReplayResponse:
    """The GetReplay message for ``log``."""
    table = log.table
    return replay_pb2.GetReplayResponse(
        table_id=table.table_id,
        game=table.game,
        seat_count=table.seats,
        status=convert.STATUS_TO_PROTO.get(table.status, lobby_pb2.TABLE_STATUS_UNSPECIFIED),
        version=log.events[-1].event.seq if log.events else 0,
        finished=log.finished,
        complete=log.complete,
        events=[
            replay_pb2.ReplayEvent(
                seq=item.event.seq,
                type=item.event.type,
                schema_version=item.event.schema_version,
                payload_json=json.dumps(item.event.payload, ensure_ascii=False),
                digest=item.event.digest,
                redacted=item.redacted,
                text=item.text,
            )
            for item in log.events
        ],
    )


class ReplayServicer(_OverApp, replay_pb2_grpc.ReplayServiceServicer):
    """ReplayService over :class:`Parlour` and the store."""

    @unary
    async def GetReplay(
        self, request: replay_pb2.GetReplayRequest, context: Context
    ) -> replay_pb2.GetReplayResponse:
        seat = _optional_seat(request)
        log = await get_replay(self.app, request.table_id, seat, await self._who(context))
        return replay_response(log)

    @unary
    async def GetReplayHand(
        self, request: replay_pb2.GetReplayHandRequest, context: Context
    ) -> replay_pb2.GetReplayHandResponse:
        seat = _optional_seat(request)
        who = await self._who(context)
        hand = await get_replay_hand(self.app, request.table_id, seat, request.hand, who)
        return replay_hand_response(hand)

    @unary
    async def ForkTable(
        self, request: replay_pb2.ForkTableRequest, context: Context
    ) -> replay_pb2.ForkTableResponse:
        seat = _optional_seat(request)
        who = await self._who(context)
        return fork_response(await fork_table(self.app, request.table_id, request.at, seat, who))


def replay_hand_response(hand: ReplayHand) -> replay_pb2.GetReplayHandResponse:
    """The GetReplayHand message for ``hand``: each step's view as Watch would draw it."""
    table = hand.table
    answer = replay_pb2.GetReplayHandResponse(
        table_id=table.table_id,
        game=table.game,
        seat_count=table.seats,
        name=table.name or "",
        finished=hand.finished,
        version=hand.version,
        hand=hand.hand,
        public=hand.public,
        hands=[
            replay_pb2.ReplayHand(
                hand=item.hand, first_seq=item.first_seq, last_seq=item.last_seq, steps=item.steps
            )
            for item in hand.hands
        ],
    )
    for step in hand.steps:
        view = convert.view(step.view, table)
        del view.legal_actions[:]  # a replay is not played
        for player in view.players:
            player.away = player.seat in step.away
        if step.event.type == "GameAbandoned":
            view.is_over = True
            view.phase = "over"
            view.end_reason = play_pb2.END_REASON_ABANDONED
            del view.winners[:]
            del view.to_act[:]
        answer.steps.add(
            seq=step.event.seq,
            event=convert.public_event(step.event, step.viewer),
            view=view,
            hands=[
                replay_pb2.SeatCards(seat=number, cards=cards)
                for number, cards in enumerate(step.hands)
            ],
        )
    return answer


def fork_response(fork: Fork) -> replay_pb2.ForkTableResponse:
    """The ForkTable message for ``fork``."""
    return replay_pb2.ForkTableResponse(
        table=convert.table(fork.table),
        host_token=fork.host_token,
        seat=fork.seat,
        seat_token=fork.seat_token,
        source_table_id=fork.source,
        at=fork.at,
        dealt_afresh=fork.dealt_afresh,
    )
