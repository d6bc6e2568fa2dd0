"""A rematch's held seats over real gRPC, on SQLite and Postgres (issue 31, point 4):
GetRematch says which seats wait for their old players and until when; a stranger's
JoinTable of a held seat is refused with SEAT_HELD_FOR_REMATCH, in the caller's
language; DeclineRematch frees the seat for anyone."""

from __future__ import annotations

import grpc

from parlour.v1 import home_pb2, lobby_pb2
from parlour.words import say_phrase
from tests.home.test_history import Stubs, bearer, play_to_the_end, signed_in, stubs, two_seat_table
from tests.service.test_moderation_reasons import POLISH, reason_of

__all__ = ["stubs"]


async def test_a_held_seat_is_refused_to_a_stranger_until_its_player_declines(
    stubs: Stubs,
) -> None:
    ada, bea, cyd = [await signed_in(stubs, name) for name in ("Ada", "Bea", "Cyd")]
    ended = await two_seat_table(stubs, ada, bea)
    await play_to_the_end(stubs, ended, [ada, bea])
    asked = home_pb2.PlayAgainRequest(table_id=ended)
    made = (await stubs.home.PlayAgain(asked, metadata=bearer(ada))).rematch
    rematch_id = made.rematch_table_id
    seen = (
        await stubs.home.GetRematch(
            home_pb2.GetRematchRequest(table_id=ended), metadata=bearer(bea)
        )
    ).rematch
    assert [(s.seat, s.accepted, s.held, s.declined) for s in seen.seats] == [
        (0, True, False, False),
        (1, False, True, False),
    ]
    assert seen.my_seat == 1 and seen.HasField("held_until")

    join = stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=rematch_id, player_name="Cyd", seat=1),
        metadata=(*POLISH, *bearer(cyd)),
    )
    reason, words = await reason_of(join, grpc.StatusCode.PERMISSION_DENIED)
    assert reason == "SEAT_HELD_FOR_REMATCH"
    assert words == say_phrase("reason.SEAT_HELD_FOR_REMATCH", "pl")
    # asking for any free seat: the only one is held
    anyone = stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=rematch_id, player_name="Cyd"), metadata=bearer(cyd)
    )
    reason, _ = await reason_of(anyone, grpc.StatusCode.PERMISSION_DENIED)
    assert reason == "SEAT_HELD_FOR_REMATCH"

    declining = home_pb2.DeclineRematchRequest(table_id=ended)
    await reason_of(  # Cyd did not play there
        stubs.home.DeclineRematch(declining, metadata=bearer(cyd)),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    declined = (await stubs.home.DeclineRematch(declining, metadata=bearer(bea))).rematch
    assert [(s.held, s.declined) for s in declined.seats] == [(False, False), (False, True)]
    assert not declined.HasField("held_until")
    joined = await stubs.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=rematch_id, player_name="Cyd"), metadata=bearer(cyd)
    )
    assert joined.seat == 1
