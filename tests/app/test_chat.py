"""Table chat's use case over the in-memory store (issue 32): what a line may hold,
who may say one and when, the host's switch, and that a line changes nothing of
the game (the end-to-end behaviour over gRPC on both backends: tests/service/test_chat.py)."""

from __future__ import annotations

import pytest

from parlour.service.app.chat import MAX_CHAT_CHARS, clean_chat
from parlour.service.app.parlour import Credentials, Parlour
from parlour.service.domain.errors import ChatOff, ChatTextRefused, MissingToken, WrongToken
from parlour.service.domain.fold import CHAT_KEPT, fold
from tests.app.conftest import WORKER_TOKEN, RacingStore, host_full, playing


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("", "empty"),
        (" \t ", "empty"),
        ("x" * (MAX_CHAT_CHARS + 1), "too_long"),
        ("bell\x07", "character"),
        ("zero\u200bwidth", "character"),  # a format character
        ("rtl \u202e override", "character"),
        ("line\u2028break", "character"),
        ("private \ue000 use", "character"),
    ],
)
def test_a_line_that_is_not_one_is_refused_naming_its_rule(text: str, rule: str) -> None:
    with pytest.raises(ChatTextRefused) as refused:
        clean_chat(text)
    assert refused.value.reason_args["rule"] == rule
    assert refused.value.REASON == "CHAT_TEXT_REFUSED"


def test_a_line_is_kept_normalised_and_trimmed() -> None:
    assert clean_chat("  Cze\u015b\u0107!  ") == "Cześć!"
    assert clean_chat("e\u0301" * MAX_CHAT_CHARS) == "\u00e9" * MAX_CHAT_CHARS  # NFC first
    assert clean_chat("gg 👍 ♠♥") == "gg 👍 ♠♥"


async def test_lines_are_kept_and_change_nothing_of_the_game(
    app: Parlour, store: RacingStore
) -> None:
    seated = await playing(app)
    before = await app.view(seated.table_id, 0, seated.seat(0))
    version = await app.say(seated.table_id, 2, seated.seat(2), "hello")
    assert version == before.version + 1
    after = await app.view(seated.table_id, 0, seated.seat(0))
    assert after.view == before.view  # the game as it was
    assert [(line.seat, line.player_name, line.text) for line in after.chat] == [
        (2, "Player 2", "hello")
    ]
    stored = await store.read(seated.table_id)
    assert fold(stored).moved_at == before.version
    # a seat's token says only its own seat's lines; a worker's token none
    with pytest.raises(WrongToken):
        await app.say(seated.table_id, 1, seated.seat(2), "not mine")
    with pytest.raises(WrongToken):
        await app.say(seated.table_id, 1, Credentials(worker_token=WORKER_TOKEN), "beep")


async def test_the_view_carries_the_latest_lines_only(app: Parlour) -> None:
    seated = await playing(app)
    for number in range(CHAT_KEPT + 5):
        await app.say(seated.table_id, number % 4, seated.seat(number % 4), f"line {number}")
    seen = await app.view(seated.table_id, None, Credentials())
    assert len(seen.chat) == CHAT_KEPT
    assert seen.chat[0].text == "line 5" and seen.chat[-1].text == f"line {CHAT_KEPT + 4}"


async def test_the_host_switches_the_chat_and_only_the_host(app: Parlour) -> None:
    seated = await playing(app)
    with pytest.raises(MissingToken):  # a seat's token is not the host's
        await app.set_chat(seated.table_id, False, seated.seat(1))
    with pytest.raises(WrongToken):
        await app.set_chat(seated.table_id, False, Credentials(host_token="x" * 43))
    off = await app.set_chat(seated.table_id, False, seated.host)
    assert await app.set_chat(seated.table_id, False, seated.host) == off  # already off
    with pytest.raises(ChatOff) as refused:
        await app.say(seated.table_id, 1, seated.seat(1), "hello?")
    assert refused.value.reason_args == {"why": "off"}
    seen = await app.view(seated.table_id, 1, seated.seat(1))
    assert not seen.chat_on
    await app.set_chat(seated.table_id, True, seated.host)
    await app.say(seated.table_id, 1, seated.seat(1), "hello!")


async def test_chat_is_closed_before_the_start(app: Parlour) -> None:
    seated = await host_full(app, "hearts", 4)
    with pytest.raises(ChatOff) as refused:
        await app.say(seated.table_id, 0, seated.seat(0), "anyone?")
    assert refused.value.reason_args == {"why": "closed"}
    with pytest.raises(ChatOff):
        await app.set_chat(seated.table_id, False, seated.host)
