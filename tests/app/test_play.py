"""Acting for a seat, called directly over the memory store (``app/play.py``): by
legal-action id or by text, the refusals that append nothing, the repeated
request, and whole games of each kind played by random legal moves."""

from __future__ import annotations

import random

import pytest

from parlour.engine.base import GameState
from parlour.engine.cards import Card
from parlour.engine.errors import EngineError, GameOver, IllegalAction, NotYourTurn
from parlour.service.app.parlour import Credentials, Parlour, SeatChoice
from parlour.service.domain.errors import (
    BadRequest,
    MissingToken,
    RequestIdReused,
    StaleVersion,
    TurnLeased,
    WrongTableState,
    WrongToken,
)
from parlour.service.domain.fold import Folded, fold
from parlour.service.domain.statuses import SeatKind, TableStatus
from parlour.service.store.memory import MemoryEventStore
from parlour.service.store.protocol import utcnow
from tests.app.conftest import WORKER_TOKEN, Seated, log, playing, truth


async def pass_all(app: Parlour, seated: Seated) -> None:
    """Every seat gives its first legal cards (hearts' first hand) until play begins."""
    while (state := await truth(app.store, seated.table_id)).view(None).phase == "pass":
        seat = state.to_act()[0]
        version = (await app.get_table(seated.table_id)).version
        await app.act(seated.table_id, seat, seated.seat(seat), 1, expected_version=version)


async def to_lead(app: Parlour, seated: Seated) -> int:
    """The seat that leads the first trick, once the passes are in."""
    await pass_all(app, seated)
    state = await truth(app.store, seated.table_id)
    (seat,) = state.to_act()
    return seat


async def test_acting_by_legal_action_id(app: Parlour, store: MemoryEventStore) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 2, seated.seat(2))
    assert seen.view is not None
    chosen = seen.view.legal_actions[2]
    after = await app.act(seated.table_id, 2, seated.seat(2), 3, expected_version=seen.version)
    assert after.version == seen.version + 1 and not after.duplicate
    (last,) = await store.read(seated.table_id, seen.version)
    assert last.type == "ActionTaken" and last.payload["seat"] == 2
    assert last.payload["action"] == str(chosen)
    assert after.view is not None and str(chosen) == f"give {after.view.passed_cards[0]}"


async def test_acting_by_action_text(app: Parlour, store: MemoryEventStore) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 1, seated.seat(1))
    assert seen.view is not None
    text = str(seen.view.legal_actions[-1])
    after = await app.act(seated.table_id, 1, seated.seat(1), text)
    assert after.version == seen.version + 1
    assert (await store.read(seated.table_id, seen.version))[0].payload["action"] == text


async def test_a_legal_action_id_needs_its_version_and_a_listed_id(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    before = await store.read(seated.table_id)
    version = before[-1].seq
    with pytest.raises(BadRequest, match="expected_version"):
        await app.act(seated.table_id, 0, seated.seat(0), 1)
    with pytest.raises(BadRequest, match="no legal action 0"):
        await app.act(seated.table_id, 0, seated.seat(0), 0, expected_version=version)
    with pytest.raises(BadRequest, match="no legal action 9999"):
        await app.act(seated.table_id, 0, seated.seat(0), 9999, expected_version=version)
    assert await store.read(seated.table_id) == before


async def test_a_card_not_in_hand_is_refused_naming_the_rule_and_the_card(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seat = await to_lead(app, seated)
    state = await truth(store, seated.table_id)
    elsewhere = state.hand((seat + 1) % 4)[0]
    before = await store.read(seated.table_id)
    with pytest.raises(IllegalAction) as refused:
        await app.act(seated.table_id, seat, seated.seat(seat), f"play {elsewhere}")
    assert refused.value.rule == "card not in hand" and str(elsewhere) in str(refused.value)
    assert await store.read(seated.table_id) == before
    # the cached game was left as it was: the seat still holds its turn and its cards
    seen = await app.view(seated.table_id, seat, seated.seat(seat))
    assert seen.version == before[-1].seq and seen.view is not None
    assert seen.view.to_act == (seat,) and seen.view.hand == state.hand(seat)


async def test_a_card_the_rules_forbid_is_refused_naming_the_card(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seat = await to_lead(app, seated)
    state = await truth(store, seated.table_id)
    legal = {str(action) for action in state.legal_actions(seat)}
    forbidden = next(card for card in state.hand(seat) if f"play {card}" not in legal)
    before = await store.read(seated.table_id)
    with pytest.raises(IllegalAction) as refused:
        await app.act(seated.table_id, seat, seated.seat(seat), f"play {forbidden}")
    assert refused.value.rule and str(forbidden) in refused.value.detail
    assert await store.read(seated.table_id) == before


async def test_malformed_text_and_playing_out_of_turn_append_nothing(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seat = await to_lead(app, seated)
    other = (seat + 1) % 4
    own = (await truth(store, seated.table_id)).hand(other)[0]
    before = await store.read(seated.table_id)
    with pytest.raises(NotYourTurn, match=f"not seat {other}'s turn"):
        await app.act(seated.table_id, other, seated.seat(other), f"play {own}")
    with pytest.raises(NotYourTurn):  # by id too, whatever the id
        await app.act(
            seated.table_id, other, seated.seat(other), 1, expected_version=before[-1].seq
        )
    with pytest.raises(EngineError, match="cannot read"):
        await app.act(seated.table_id, seat, seated.seat(seat), "play the best card")
    assert await store.read(seated.table_id) == before


async def test_the_wrong_token_is_refused(app: Parlour, store: MemoryEventStore) -> None:
    seated = await playing(app)
    before = await store.read(seated.table_id)
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    assert seen.view is not None
    move = str(seen.view.legal_actions[0])
    with pytest.raises(WrongToken, match="seat 0"):
        await app.act(seated.table_id, 0, seated.seat(1), move)
    with pytest.raises(MissingToken):
        await app.act(seated.table_id, 0, seated.host, move)
    with pytest.raises(WrongToken, match="only for bot seats"):
        await app.act(seated.table_id, 0, Credentials(worker_token="worker-secret"), move)
    assert await store.read(seated.table_id) == before


async def test_a_stale_expected_version_is_refused(app: Parlour, store: MemoryEventStore) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 0, seated.seat(0))
    assert seen.view is not None
    await app.act(seated.table_id, 1, seated.seat(1), 1, expected_version=seen.version)
    before = await store.read(seated.table_id)
    with pytest.raises(StaleVersion, match=f"version {seen.version} is stale"):
        await app.act(seated.table_id, 0, seated.seat(0), 1, expected_version=seen.version)
    with pytest.raises(StaleVersion):  # an action by text is held to the version too
        await app.act(
            seated.table_id,
            0,
            seated.seat(0),
            str(seen.view.legal_actions[0]),
            expected_version=seen.version + 5,
        )
    assert await store.read(seated.table_id) == before


async def test_a_repeated_request_answers_the_first_result_and_appends_nothing(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 3, seated.seat(3))
    first = await app.act(
        seated.table_id, 3, seated.seat(3), 1, expected_version=seen.version, request_id="r-1"
    )
    after_first = await store.read(seated.table_id)
    again = await app.act(
        seated.table_id, 3, seated.seat(3), 1, expected_version=seen.version, request_id="r-1"
    )
    assert again.duplicate and again.version == first.version
    assert again.view is not None and first.view is not None
    assert again.view.hand == first.view.hand
    assert await store.read(seated.table_id) == after_first
    # the same request resent after the table moved on still answers its first result
    await app.act(seated.table_id, 0, seated.seat(0), 1, expected_version=first.version)
    late = await app.act(
        seated.table_id, 3, seated.seat(3), 1, expected_version=seen.version, request_id="r-1"
    )
    assert late.duplicate and late.version == first.version


async def test_a_request_id_used_for_another_move_is_refused(
    app: Parlour, store: MemoryEventStore
) -> None:
    seated = await playing(app)
    seen = await app.view(seated.table_id, 3, seated.seat(3))
    assert seen.view is not None
    await app.act(
        seated.table_id, 3, seated.seat(3), 1, expected_version=seen.version, request_id="r-2"
    )
    after_first = await store.read(seated.table_id)
    with pytest.raises(RequestIdReused, match="'r-2' was already used"):
        await app.act(
            seated.table_id, 3, seated.seat(3), 2, expected_version=seen.version, request_id="r-2"
        )
    other = await app.view(seated.table_id, 2, seated.seat(2))
    assert other.view is not None
    with pytest.raises(RequestIdReused, match="by seat 3"):  # another seat's move
        await app.act(
            seated.table_id, 2, seated.seat(2), str(other.view.legal_actions[0]), request_id="r-2"
        )
    assert await store.read(seated.table_id) == after_first


async def test_a_worker_acts_for_a_bot_seat_unless_another_holds_its_turn(
    app: Parlour, store: MemoryEventStore
) -> None:
    setup = [SeatChoice(), SeatChoice(SeatKind.BOT), SeatChoice(), SeatChoice()]
    hosted = await app.host_table(
        "hearts", 4, {}, setup, host_player_name="Ada", host_takes_seat=True
    )
    table_id = hosted.table.table_id
    for name in ("Bea", "Cy"):
        await app.join(table_id, name)
    await app.start(table_id, Credentials(host_token=hosted.host_token))
    (turn,) = [turn for turn in await store.bot_turns(utcnow()) if turn[0] == table_id]
    assert turn == (table_id, 1, 6)  # the bot's seat was filled when hosted
    assert await store.claim_bot_turn("w2", 60, [turn]) == turn
    before = await store.read(table_id)
    w1 = Credentials(worker_token=WORKER_TOKEN, worker_id="w1")
    with pytest.raises(TurnLeased, match="leased to worker 'w2'"):
        await app.act(table_id, 1, w1, 1, expected_version=6)
    guess = Credentials(worker_token="guess", worker_id="w2")
    with pytest.raises(WrongToken, match="worker"):
        await app.act(table_id, 1, guess, 1, expected_version=6)
    assert await store.read(table_id) == before
    w2 = Credentials(worker_token=WORKER_TOKEN, worker_id="w2")
    played = await app.act(table_id, 1, w2, 1, expected_version=6)
    assert played.version == 7


# -- whole games -----------------------------------------------------------------------


def hidden(state: GameState, seat: int) -> set[Card]:
    """The cards the other seats hold."""
    return {card for other in range(state.seats) if other != seat for card in state.hand(other)}


GAMES = [("wizard", 4), ("crazy8s", 3), ("kaiser", 4), ("hearts", 4)]


@pytest.mark.parametrize(("game", "seats"), GAMES)
async def test_a_game_played_to_the_end_finishes_and_hides_every_other_hand(
    app: Parlour, store: MemoryEventStore, game: str, seats: int
) -> None:
    seated = await playing(app, game, seats)
    chooser = random.Random(f"{game}-{seats}")
    mirror, moves = Folded(), 0  # the log folded as it grows: the truth to check views by
    while True:
        fold(await store.read(seated.table_id, mirror.version), mirror)
        state = mirror.state
        assert state is not None
        if state.is_over:
            break
        seat = chooser.choice(state.to_act())
        # the acting seat's view every move, every seat's every fourth move
        for viewer in range(seats) if moves % 4 == 0 else (seat,):
            seen = await app.view(seated.table_id, viewer, seated.seat(viewer))
            assert seen.view is not None and seen.view.seat == viewer
            assert seen.view.hand == state.hand(viewer)
            assert not hidden(state, viewer) & set(seen.view.hand)
        watcher = await app.view(seated.table_id, None, Credentials())
        assert watcher.view is not None and watcher.view.hand == ()
        seen = await app.view(seated.table_id, seat, seated.seat(seat))
        assert seen.view is not None
        pick = chooser.randrange(len(seen.view.legal_actions)) + 1
        await app.act(seated.table_id, seat, seated.seat(seat), pick, expected_version=seen.version)
        moves += 1
        assert moves < 5000, "the game did not end"
    events = await log(store, seated.table_id)
    assert events[-1][1] == "GameFinished"
    assert [kind for _, kind in events].count("GameFinished") == 1
    assert (await app.get_table(seated.table_id)).status == TableStatus.FINISHED
    final = await app.view(seated.table_id, 0, seated.seat(0))
    assert final.view is not None and final.view.is_over and final.view.winners
    with pytest.raises((GameOver, WrongTableState)):
        await app.act(seated.table_id, 0, seated.seat(0), "pass")
    assert await log(store, seated.table_id) == events
