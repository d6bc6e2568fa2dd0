"""Each refusal of the host's moderation names its own reason (issue 30, for the
clients to say which): a removed player, a table that seats only signed-in players,
an invite-only seat without its code, a wrong code, only kept seats free, and a
table closed to spectators; over real gRPC on SQLite and Postgres, with the
phrasebook's words for each in the call's language."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from parlour.v1 import lobby_pb2, play_pb2
from parlour.words import say_phrase
from tests.service.test_accounts import bearer
from tests.service.test_moderation import Stubs, host_token, stubs

__all__ = ["stubs"]


async def reason_of(call: object, code: grpc.StatusCode) -> tuple[str, str]:
    """The refusal's ErrorInfo reason and its Polish words (the call asked for pl)."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() is code, caught.value.details()
    details = dict(caught.value.trailing_metadata() or ())["grpc-status-details-bin"]
    reason, words = "", ""
    for detail in status_pb2.Status.FromString(details).details:
        info, said = error_details_pb2.ErrorInfo(), error_details_pb2.LocalizedMessage()
        if detail.Unpack(info):
            reason = info.reason
        elif detail.Unpack(said):
            words = said.message
    return reason, words


POLISH = (("accept-language", "pl"),)


async def test_each_moderation_refusal_names_its_reason(stubs: Stubs) -> None:
    person, invited = lobby_pb2.SeatSetup(), lobby_pb2.SeatSetup(invite_only=True)
    hosted = await stubs.host(
        "crazy8s", seat_setup=[person, person, invited], options={"spectators": "off"}
    )
    table_id = hosted.table.table_id
    said: dict[str, str] = {}

    def join(session: str | None = None, **fields: object) -> object:
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Guest", **fields)
        signed = bearer(session) if session else ()
        return stubs.lobby.JoinTable(request, metadata=(*POLISH, *signed))

    denied = grpc.StatusCode.PERMISSION_DENIED
    for fields, expected in (
        ({"seat": 2}, "SEAT_NEEDS_CODE"),
        ({"seat_code": "not-a-code"}, "WRONG_SEAT_CODE"),
    ):
        reason, words = await reason_of(join(**fields), denied)  # type: ignore[arg-type]
        assert reason == expected
        said[reason] = words
    grabber = await stubs.guest()
    seat = await stubs.join(table_id, grabber)
    reason, said[reason] = await reason_of(join(), grpc.StatusCode.FAILED_PRECONDITION)
    assert reason == "ONLY_INVITED_SEATS_FREE"
    await stubs.lobby.RemoveFromSeat(
        lobby_pb2.RemoveFromSeatRequest(table_id=table_id, seat=seat), metadata=host_token(hosted)
    )
    reason, said[reason] = await reason_of(join(grabber), denied)
    assert reason == "REMOVED_BY_HOST"
    view = stubs.play.GetView(play_pb2.GetViewRequest(table_id=table_id), metadata=POLISH)
    reason, said[reason] = await reason_of(view, denied)
    assert reason == "NO_SPECTATORS"
    for reason, words in said.items():
        assert words == say_phrase(f"reason.{reason}", "pl"), reason
    # someone without an account removed: the table seats only signed-in players
    other = await stubs.host("crazy8s", seats=2)
    stranger = await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=other.table.table_id, player_name="Anon")
    )
    await stubs.lobby.RemoveFromSeat(
        lobby_pb2.RemoveFromSeatRequest(table_id=other.table.table_id, seat=stranger.seat),
        metadata=host_token(other),
    )
    again = lobby_pb2.JoinTableRequest(table_id=other.table.table_id, player_name="Anon")
    reason, words = await reason_of(stubs.lobby.JoinTable(again, metadata=POLISH), denied)
    assert reason == "SIGNED_IN_ONLY" and words == say_phrase("reason.SIGNED_IN_ONLY", "pl")
