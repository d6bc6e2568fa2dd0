"""The table screen: one seat's view of a game, kept current by the watch stream.

Everything shown comes from the view the server sends; every move offered is
one of the view's legal actions. A card nobody listed may still be tried
(Enter on a dimmed card, or a typed bid): it goes to the server as action
text and the refusal — which names the rule and the card — is shown as is.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

import grpc
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from parlour.client import ParlourError
from parlour.client.home import get_table_ratings
from parlour.v1 import common_pb2, play_pb2
from parlour.words import card_name, cards_text, phrase, say

from . import render
from .cards import action_text, card_text
from .chat import ChatLine, chat_text
from .dialogs import InfoScreen, NameSuitScreen, event_log_text
from .endgame import GameOverScreen
from .history import rating_text
from .keys import speak_keys
from .moves import (
    bid_action,
    card_actions,
    card_move_text,
    other_actions,
    playable_cards,
    shortcut_action,
)
from .saved import SavedSeat
from .session import session
from .speech import t, why_not
from .summary import HandSummaryScreen, hand_result

#: Status codes that mean the connection dropped, not that the server said no.
DROPPED = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    }
)


#: How long a completed trick stays on screen, however fast the next card comes.
HOLD_SECONDS = 1.5
#: Cards passed in Hearts.
PASS_COUNT = 3

#: Key reminders (their words' keys) for the kinds of listed action that have keys.
KEY_HINTS = {
    common_pb2.ACTION_KIND_BID: "hint.bid",
    common_pb2.ACTION_KIND_DRAW: "hint.draw",
    common_pb2.ACTION_KIND_PASS: "hint.pass",
    common_pb2.ACTION_KIND_NAME_TRUMP: "hint.trump",
}


class TableScreen(Screen[None]):
    """Play one seat: the hand, the trick, the seats, the scores, and the moves offered."""

    BINDINGS = [
        Binding("left", "move(-1)", "card ←", show=False),
        Binding("right", "move(1)", "card →", show=False),
        Binding("up", "menu(-1)", show=False),
        Binding("down", "menu(1)", show=False),
        Binding("enter", "choose", "Play/choose"),
        Binding("l", "last_trick", "Last trick"),
        Binding("e", "event_log", "Events"),
        Binding("t", "talk", "Chat"),
        Binding("T", "switch_chat", "Chat on/off", show=False),
        Binding("escape", "leave", "Lobby"),
        Binding("b", "come_back", "I'm back", show=False),
        *(Binding(str(n), f"digit('{n}')", show=False) for n in range(10)),
        Binding("n", "digit('NT')", show=False),
        Binding("backspace", "clear_typed", "Take back", show=False),
        *(Binding(k, f"shortcut('{k}')", show=False) for k in "cdhsp"),
    ]
    #: each action's footer words (keys.py)
    KEY_WORDS = {
        "choose": "key.play",
        "last_trick": "key.last_trick",
        "event_log": "key.events",
        "talk": "key.chat",
        "switch_chat": "key.chat_switch",
        "leave": "key.lobby",
        "come_back": "key.back_seat",
    }

    def __init__(self, seat: SavedSeat) -> None:
        super().__init__()
        self.seat = seat
        #: each seat's rating as shown (history.py's rating_text), asked for at the start
        #: and again once the game is over
        self.ratings: dict[int, str] = {}
        self.rated_at_end = False
        self.view: play_pb2.View | None = None
        self.shown_version = 0  # the version of the view on screen
        self.watched_version = 0  # the last version the watch stream delivered
        self.events: list[play_pb2.PublicEvent] = []
        #: what happened, in words, oldest first: (version, line)
        self.told: list[tuple[int, str]] = []
        self.streamed: play_pb2.View | None = None  # the last view the watch stream delivered
        #: a completed trick kept on screen until the monotonic time given
        self.held: tuple[play_pb2.Trick, float] | None = None
        #: cards picked to pass (Hearts), not yet sent; Backspace takes one back
        self.to_pass: list[str] = []
        self.cursor = 0
        self.menu_index = 0
        self.typed = ""
        self.message = Text("")
        self.connection = Text(t("connecting"), style="yellow")
        self.connection_lost = False
        self.over_shown = False
        self.sending = False  # a move is on its way to the server

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="status-bar"):
            yield Static(id="status")
            yield Static(id="connection")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static(id="seats", classes="panel")
                yield Static(id="facts", classes="panel")
            with Vertical(id="right"):
                yield Static(id="trick", classes="panel")
                yield Static(id="scores", classes="panel")
            yield Static(id="log", classes="panel")
        yield Static(id="hand")
        yield Static(id="actions")
        yield Static(id="message")
        yield Static(id="chat", classes="panel")
        yield ChatLine(id="chat-input")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick_clocks)
        self.title_panels()
        self.load_ratings()

    @work(exclusive=True, group="ratings")
    async def load_ratings(self) -> None:
        """The seats' ratings beside their names (HomeService.GetTableRatings)."""
        try:
            seats = await get_table_ratings(session(self).client, self.seat.table_id)
        except ParlourError:
            return  # no ratings: the names alone
        self.ratings = {
            seat.seat: rating_text(seat.rating) for seat in seats if seat.HasField("rating")
        }
        if self.view is not None and self.query("#seats"):
            self.query_one("#seats", Static).update(render.seats_table(self.view, self.ratings))

    def title_panels(self) -> None:
        """The panels' titles in the client's language; then the table, followed."""
        speak_keys(self)
        self._titles()
        self._fit_to_size()
        self.refresh_all()
        self.follow()

    def _titles(self) -> None:
        for panel, key in (
            ("#seats", "panel.seats"),
            ("#facts", "panel.table"),
            ("#scores", "panel.scores"),
            ("#log", "panel.log"),
            ("#hand", "panel.hand"),
            ("#chat", "panel.chat"),
        ):
            self.query_one(panel).border_title = t(key)

    def on_resize(self) -> None:
        self._fit_to_size()
        # Panels that fit their content to their size draw once the new layout is known.
        self.call_after_refresh(self.refresh_all)

    def _fit_to_size(self) -> None:
        # Textual has no media queries: a roomy terminal also gets the event log.
        self.set_class(self.size.width >= 120 and self.size.height >= 36, "roomy")

    # -- the watch stream --------------------------------------------------------------------

    @work(exclusive=True, group="watch")
    async def follow(self) -> None:
        """Follow the table; on a dropped connection say so and resume from the last version."""
        client = session(self).stream_client
        delay = 0.1
        while True:
            try:
                async for update in client.watch(
                    self.seat.table_id, self.seat.seat, self.seat.token, self.watched_version
                ):
                    delay = 0.1
                    self.take_update(update)
                if self.view is not None and self.view.is_over:
                    return
                raise ParlourError(grpc.StatusCode.UNAVAILABLE, "the stream ended early")
            except ParlourError as error:
                if error.code not in DROPPED:
                    self.show_message(Text(t("cannot_follow", why=error.message), "red"))
                    self.connection = Text(t("conn.not_following"), style="red")
                    self.refresh_all()
                    return
                self.lose_connection(error)
            await self._await_server(delay)
            delay = min(delay * 2, 2.0)

    async def _await_server(self, delay: float) -> None:
        """Wait until the server answers again (or another replica does)."""
        client = session(self).stream_client
        while True:
            await asyncio.sleep(delay)
            try:
                await client.get_view(self.seat.table_id, self.seat.seat, self.seat.token)
            except ParlourError as error:
                if error.code not in DROPPED:
                    return  # the watch will report it
                delay = min(delay * 2, 2.0)
                continue
            self.connection = Text(
                t("conn.reconnected", version=self.watched_version), style="green"
            )
            self.refresh_all()
            return

    def lose_connection(self, error: ParlourError) -> None:
        self.connection_lost = True
        self.connection = Text(t("conn.offline", version=self.watched_version), style="bold red")
        self.refresh_all()

    def take_update(self, update: play_pb2.WatchResponse) -> None:
        """One message of the stream: its events are new, its view the latest."""
        # compared with the stream's own last view: an Act answer may have shown this one already
        before = self.streamed
        self.streamed = update.view
        for event in update.events:
            if event.version > self.watched_version and (
                not self.events or event.version > self.events[-1].version
            ):
                self.events.append(event)
                self._note(event, update.view)
        if update.version > self.watched_version and before is not None:
            self._after(before, update)
        self.watched_version = max(self.watched_version, update.version)
        if self.connection_lost:
            self.connection_lost = False
        self.connection = Text(f"● v{update.version}", style="green")
        self.show_view(update.version, update.view)

    def seat_name_of(self, seat: int) -> str:
        return (
            render.seat_name(self.view, seat)
            if self.view is not None
            else phrase("seat.name", None, number=seat + 1)
        )

    def player_name_of(self, seat: int) -> str:
        """A seat by its player's name, this client's own too (the subject of a sentence)."""
        if self.view is None:
            return phrase("seat.name", None, number=seat + 1)
        return render.player_name(self.view, seat)

    def _note(self, event: play_pb2.PublicEvent, view: play_pb2.View) -> None:
        """Log one event in words; another seat's secret pass is told once, when all are in."""
        mine = view.HasField("seat") and event.seat == view.seat
        if event.action.kind == common_pb2.ACTION_KIND_GIVE and not mine:
            return
        # the server's words for it, in this client's language, seats by name
        said = say(event.words or event.text, partial(render.player_name, view))
        self.told.append((event.version, said))

    def _after(self, before: play_pb2.View, update: play_pb2.WatchResponse) -> None:
        """What changed between two views: a trick taken, the passes made, a hand ended."""
        view = update.view
        if before.phase == "pass" and view.phase != "pass":
            passed = t("cards_passed", direction=before.pass_direction)
            self.told.append((update.version, passed))
        trick = view.last_trick
        if view.HasField("last_trick") and trick.plays and trick != before.last_trick:
            cards = cards_text([play.card for play in trick.plays])
            if view.HasField("seat") and trick.winner == view.seat:
                line = t("you_took_trick", cards=cards)
            else:
                line = t("took_trick", name=render.player_name(view, trick.winner), cards=cards)
            self.told.append((update.version, line))
            self._hold(trick)
        result = hand_result(before, view)
        if result is not None:
            # the hand's last trick, as far as this seat saw it, stays up under the summary
            last = play_pb2.Trick()
            if result.last_trick is not None:  # the result says who took it
                last.CopyFrom(result.last_trick)
            else:
                last.CopyFrom(before.current_trick)
                for event in update.events:
                    if event.action.kind == common_pb2.ACTION_KIND_PLAY and event.action.card:
                        last.plays.add(seat=event.seat, card=event.action.card)
            if last.plays:
                self._hold(last)
            self.told.append((update.version, t("hand_over", number=result.hand)))
            if not view.is_over:  # the game-over screen shows the final hand itself
                me = view.seat if view.HasField("seat") else None
                first_new = min((event.version for event in update.events), default=update.version)
                sealed = [
                    event.deal_commitment
                    for event in self.events
                    if event.type == "CardsDealt" and event.version < first_new
                ]
                commitment = sealed[-1] if sealed else ""
                self.app.push_screen(HandSummaryScreen(result, me, commitment, view))

    def _hold(self, trick: play_pb2.Trick) -> None:
        self.held = (trick, time.monotonic() + HOLD_SECONDS)
        self.set_timer(HOLD_SECONDS + 0.05, self.refresh_all)

    def show_view(self, version: int, view: play_pb2.View) -> None:
        """Put a view on screen unless a newer one is there already."""
        if version < self.shown_version:
            return
        self.shown_version = version
        old_hand = self._hand()
        self.view = view
        if view.phase != "bid":
            self.typed = ""  # a half-typed bid means nothing once the bidding is over
        if view.phase != "pass":
            self.to_pass = []
        self.to_pass = [card for card in self.to_pass if card in view.hand]
        self._place_cursor(old_hand)
        self.refresh_all()
        if view.is_over and not self.over_shown:
            self.over_shown = True
            session(self).seat_book.forget(self.seat.table_id)
            self.app.push_screen(GameOverScreen(self.seat, view, self.events))

    def _tick_clocks(self) -> None:
        """Count the turn clocks down between views (issue 12)."""
        view = self.view
        if view is None or not any(player.time_left_ms for player in view.players):
            return
        for player in view.players:
            if player.time_left_ms:
                player.time_left_ms = max(0, player.time_left_ms - 1000)
        self.refresh_all()

    @work(exclusive=True, group="act")
    async def action_come_back(self) -> None:
        """Take the seat back from the computer player that stood in (PlayService.ReturnToSeat)."""
        view = self.view
        if view is None or not view.HasField("seat") or not view.players[view.seat].away:
            return
        try:
            back = await session(self).client.return_to_seat(
                self.seat.table_id, self.seat.seat, self.seat.token
            )
        except ParlourError as error:
            self.show_refusal(error)
            return
        self.show_view(back.version, back.view)

    def _hand(self) -> list[str]:
        """The hand as shown: without the cards picked to pass (they are shown apart)."""
        if self.view is None:
            return []
        apart = {*self.to_pass, *self.view.passed_cards} if self.view.phase == "pass" else set()
        return [card for card in self.view.hand if card not in apart]

    def _place_cursor(self, old_hand: list[str]) -> None:
        assert self.view is not None
        hand = self._hand()
        if old_hand and 0 <= self.cursor < len(old_hand) and old_hand[self.cursor] in hand:
            self.cursor = hand.index(old_hand[self.cursor])
        self.cursor = min(self.cursor, max(len(hand) - 1, 0))
        playable = playable_cards(self.view.legal_actions)
        if playable and hand and hand[self.cursor] not in playable:
            self.cursor = next(i for i, card in enumerate(hand) if card in playable)
        self.menu_index = min(self.menu_index, max(len(self._menu()) - 1, 0))

    # -- drawing -----------------------------------------------------------------------------

    def refresh_all(self) -> None:
        # an update can arrive while the screen is still composing or already being torn
        # down (the app quitting): with its widgets not there, there is nothing to draw
        if not self.is_mounted or not self.query("#status"):
            return
        view = self.view
        status = Text()
        if view is not None:
            game = view.game.replace("crazy8s", "Crazy 8s").capitalize()
            status.append(f" {game} ", style="bold reverse")
            phase = render.phase_words(view.phase)
            status.append(t("status.hand", number=view.hand_number, phase=phase))
            status.append_text(render.whose_turn(view))
        self.query_one("#status", Static).update(status)
        self.query_one("#connection", Static).update(self.connection)
        self.query_one("#message", Static).update(self.message)
        if view is None:
            return
        if view.is_over and not self.rated_at_end:
            self.rated_at_end = True
            self.load_ratings()
        self.query_one("#seats", Static).update(render.seats_table(view, self.ratings))
        facts = render.table_facts(view)
        table_id = self.seat.table_id  # export, replay and fork all need it
        facts.append("\n" + t("table_id", table_id=table_id), style="bold #9090c0")
        facts.append(f"\n  parlour export {table_id}\n  parlour replay {table_id}", style="dim")
        self.query_one("#facts", Static).update(facts)
        self.query_one("#trick", Static).update(self._trick_text(view))
        scores = self.query_one("#scores", Static)
        rows = max(scores.content_size.height - 2, 0)
        scores.update(render.scores_table(view, last=rows, width=scores.content_size.width))
        log = self.query_one("#log", Static)
        shown = self.told[-log.content_size.height :] if log.content_size.height else []
        log.update(event_log_text(shown[::-1]))  # the newest first
        my_turn = view.HasField("seat") and view.seat in view.to_act
        playable = playable_cards(view.legal_actions)
        # Cards are dimmed only when some are offered: while bidding none is "illegal".
        choosing_card = my_turn and bool(playable)
        hand_panel = self.query_one("#hand", Static)
        cards = self._hand()
        hand = None
        if self.has_class("roomy"):
            hand = render.hand_boxes(
                cards,
                playable,
                self.cursor,
                my_turn=choosing_card,
                width=hand_panel.content_size.width,
            )
        if hand is None:
            hand = render.hand_line(cards, playable, self.cursor, my_turn=choosing_card)
        hand_panel.update(hand if cards else Text(t("no_cards"), "dim"))
        self.query_one("#actions", Static).update(self._actions_text(view, my_turn))
        self._draw_chat(view)

    def _draw_chat(self, view: play_pb2.View) -> None:
        """The chat's latest lines: two in a small terminal, more in a roomy one; the
        panel shows once there is something to read or a line is being typed."""
        talking = self.has_class("talking")
        last = 6 if self.has_class("roomy") else 2
        lines = chat_text(view, last)
        self.set_class(bool(lines.plain) or talking, "has-chat")
        self.query_one("#chat", Static).update(lines)
        line = self.query_one("#chat-input", ChatLine)
        line.placeholder = t("chat.placeholder")

    def _trick_text(self, view: play_pb2.View) -> Text:
        if self.held is not None:
            trick, until = self.held
            if time.monotonic() < until:
                return render.trick_lines(view, trick, t("trick.title_taken"))
            self.held = None
        if view.HasField("current_trick"):
            return render.trick_lines(view, view.current_trick, t("trick.title"))
        if view.top_card:
            return Text(t("discard_pile")).append_text(card_text(view.top_card))
        if view.HasField("last_trick"):
            return render.trick_lines(view, view.last_trick, t("trick.title_last"))
        return Text(t("no_trick"), style="dim")

    def _menu(self) -> list[common_pb2.LegalAction]:
        return other_actions(self.view.legal_actions) if self.view is not None else []

    def _actions_text(self, view: play_pb2.View, my_turn: bool) -> Text:
        text = Text()
        if view.phase == "lobby":
            if self.seat.host_token:
                return Text(t("start_hint"), style="yellow")
            return Text(t("wait_host"), style="yellow")
        menu = self._menu()
        for index, entry in enumerate(menu):
            if index:
                text.append("  ")
            label = action_text(entry.label or entry.action.text)
            if index == self.menu_index:
                label.stylize("reverse")
            text.append_text(label)
        playable = playable_cards(view.legal_actions)
        passing = any(e.action.kind == common_pb2.ACTION_KIND_GIVE for e in view.legal_actions)
        hints: list[str] = []
        if passing:
            text.append_text(self._pass_tray(view))
            if len(self.to_pass) + len(view.passed_cards) < PASS_COUNT:
                hints.append(t("hint.pick"))
            else:
                hints.append(t("hint.pass_these"))
            if self.to_pass:
                hints.append(t("hint.take_back"))
        elif my_turn and playable:
            hints.append(t("hint.play"))
        if menu and not playable:
            hints.append(t("hint.choose"))
        kinds = {entry.action.kind for entry in menu}
        hints += [t(hint) for kind, hint in KEY_HINTS.items() if kind in kinds]
        if self.typed:
            text.append(t("hint.typed", typed=self.typed), style="bold yellow")
        hint = " · ".join(hints)
        if hint:
            text.append(("\n" if text else "") + hint, style="dim")
        return text

    def _pass_tray(self, view: play_pb2.View) -> Text:
        """The cards picked to pass, apart from the hand: "To pass left: 3♣ Q♠ _"."""
        tray = Text(t("to_pass", direction=view.pass_direction), style="bold")
        chosen = [*view.passed_cards, *self.to_pass]
        for index in range(PASS_COUNT):
            if index:
                tray.append(" ")
            if index < len(chosen):
                tray.append_text(card_text(chosen[index]))
            else:
                tray.append("__", style="dim")
        return tray

    def show_message(self, message: Text) -> None:
        self.message = message
        if self.is_mounted:
            self.query_one("#message", Static).update(message)

    # -- keys --------------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        hand = self._hand()
        if hand:
            self.cursor = (self.cursor + step) % len(hand)
            self.refresh_all()

    def action_menu(self, step: int) -> None:
        menu = self._menu()
        if menu:
            self.menu_index = (self.menu_index + step) % len(menu)
            self.refresh_all()

    def action_digit(self, digit: str) -> None:
        self.typed = (self.typed + digit)[-4:]
        found = bid_action(self._menu(), self.typed)
        if found is not None:
            self.menu_index = self._menu().index(found)
        self.refresh_all()

    def action_clear_typed(self) -> None:
        """Backspace: forget a typed bid, or take back the last card picked to pass."""
        if self.typed:
            self.typed = ""
        elif self.to_pass:
            card = self.to_pass.pop()
            hand = self._hand()
            self.cursor = hand.index(card) if card in hand else self.cursor
        self.refresh_all()

    def action_shortcut(self, key: str) -> None:
        if self.view is None:
            return
        found = shortcut_action(self.view.legal_actions, key)
        if found is not None:
            self.send(found.id)

    def action_choose(self) -> None:
        """Enter: start (host, lobby), a typed bid, the card under the cursor, or the menu."""
        view = self.view
        if view is None:
            return
        if view.phase == "lobby":
            self.start_game()
            return
        if self.typed:
            typed, self.typed = self.typed, ""
            found = bid_action(view.legal_actions, typed)
            self.send(found.id if found is not None else f"bid {typed}")
            return
        if any(e.action.kind == common_pb2.ACTION_KIND_GIVE for e in view.legal_actions):
            self.pick_to_pass()
            return
        menu = self._menu()
        hand = self._hand()
        if hand and (playable_cards(view.legal_actions) or not menu):
            self.play_card(hand[min(self.cursor, len(hand) - 1)])
        elif menu:
            self.send(menu[self.menu_index].id)

    def pick_to_pass(self) -> None:
        """Enter while passing: pick the card under the cursor, or send the picked cards."""
        assert self.view is not None
        hand = self._hand()
        if len(self.to_pass) + len(self.view.passed_cards) >= PASS_COUNT or not hand:
            self.send_pass(list(self.to_pass))
            return
        card = hand[min(self.cursor, len(hand) - 1)]
        if card in playable_cards(self.view.legal_actions):
            self.to_pass.append(card)
            self.cursor = min(self.cursor, max(len(self._hand()) - 1, 0))
        else:
            self.show_message(Text(t("cannot_pass_card", card=card_name(card)), style="yellow"))
        self.refresh_all()

    def play_card(self, card: str) -> None:
        assert self.view is not None
        choices = card_actions(self.view.legal_actions, card)
        if len(choices) == 1:
            self.send(choices[0].id)
        elif len(choices) > 1:
            version = self.shown_version

            def chosen(entry: common_pb2.LegalAction | None) -> None:
                if entry is not None and self.shown_version == version:
                    self.send(entry.id)

            self.app.push_screen(NameSuitScreen(card, choices), chosen)
        else:
            self.send(card_move_text(self.view.legal_actions, self.view.phase, card))

    def action_last_trick(self) -> None:
        view = self.view
        if view is None or not view.HasField("last_trick"):
            self.show_message(Text(t("no_last_trick"), style="dim"))
            return
        self.app.push_screen(
            InfoScreen(
                t("trick.title_last"),
                render.trick_lines(view, view.last_trick, t("trick.title_last")),
            )
        )

    def action_event_log(self) -> None:
        # the newest first, so the log opens where the game is
        self.app.push_screen(InfoScreen(t("panel.log"), event_log_text(self.told[::-1])))

    def action_leave(self) -> None:
        self.app.pop_screen()

    # -- the chat ----------------------------------------------------------------------------

    def action_talk(self) -> None:
        """Open the chat's line (a seat only: spectators read)."""
        view = self.view
        if view is None or not view.HasField("seat"):
            return
        if not view.chat_enabled:
            self.show_message(Text(t("chat.off"), style="yellow"))
            return
        self.add_class("talking")
        self._draw_chat(view)
        self.query_one("#chat-input", ChatLine).open()

    def action_close_chat(self) -> None:
        self.remove_class("talking")
        self.query_one("#chat-input", ChatLine).close()
        if self.view is not None:
            self._draw_chat(self.view)

    def on_input_submitted(self, submitted: ChatLine.Submitted) -> None:
        text = submitted.value.strip()
        submitted.input.value = ""
        if text:
            self.say_line(text)

    @work(group="chat")
    async def say_line(self, text: str) -> None:
        try:
            await session(self).client.say(
                self.seat.table_id, self.seat.seat, self.seat.token, text
            )
        except ParlourError as error:
            self.show_refusal(error)

    @work(group="chat")
    async def action_switch_chat(self) -> None:
        """The host switches the table's chat on or off (a seat the host took)."""
        view = self.view
        if view is None or not self.seat.host_token:
            return
        try:
            await session(self).client.set_chat(
                self.seat.table_id, self.seat.host_token, not view.chat_enabled
            )
        except ParlourError as error:
            self.show_refusal(error)
            return
        on = not view.chat_enabled
        self.show_message(Text(t("chat.switched_on" if on else "chat.off"), style="green"))

    # -- talking to the server ---------------------------------------------------------------

    @work(exclusive=True, group="act")
    async def send(self, move: int | str) -> None:
        """Send a listed action (by id) or action text; show the server's answer."""
        client = session(self).client
        self.sending = True
        try:
            done = await client.act(
                self.seat.table_id,
                self.seat.seat,
                self.seat.token,
                move,
                expected_version=self.shown_version,
            )
        except ParlourError as error:
            self.show_refusal(error)
            return
        finally:
            self.sending = False
        self.show_message(Text(""))
        self.show_view(done.version, done.view)

    @work(exclusive=True, group="act")
    async def send_pass(self, cards: list[str]) -> None:
        """Give the picked cards one by one, each against the view the last one left."""
        client = session(self).client
        view, version = self.view, self.shown_version
        self.sending = True
        try:
            for card in cards:
                assert view is not None
                choices = [
                    e
                    for e in view.legal_actions
                    if e.action.kind == common_pb2.ACTION_KIND_GIVE and e.action.card == card
                ]
                move: int | str = choices[0].id if choices else f"give {card}"
                done = await client.act(
                    self.seat.table_id,
                    self.seat.seat,
                    self.seat.token,
                    move,
                    expected_version=version,
                )
                view, version = done.view, done.version
                self.to_pass = [c for c in self.to_pass if c != card]
        except ParlourError as error:
            self.show_refusal(error)
            return
        finally:
            self.sending = False
        self.show_message(Text(""))
        if view is not None:
            self.show_view(version, view)

    def show_refusal(self, error: ParlourError) -> None:
        # one line of "why not", from the refusal's reason in the player's language
        message = why_not(error, self.player_name_of)
        if error.code == grpc.StatusCode.ABORTED:
            line = t("moved_on", why=message)
        elif error.code in DROPPED:
            line = t("not_sent", why=error.message)
        else:
            line = t("refused", why=message)
        self.show_message(Text(line, style="bold red"))
        self.notify(message, title=t("refused.title"), severity="error")

    @work(exclusive=True, group="words")
    async def say_again(self) -> None:
        """After a language switch: this screen's words, and the view again for the
        server's (its labels in the new language)."""
        speak_keys(self)
        self._titles()
        self.refresh_all()
        client = session(self).client
        try:
            seen = await client.get_view(self.seat.table_id, self.seat.seat, self.seat.token)
        except ParlourError as error:
            self.show_refusal(error)
            return
        self.show_view(seen.version, seen.view)

    @work(exclusive=True, group="act")
    async def start_game(self) -> None:
        if not self.seat.host_token:
            self.show_message(Text(t("only_host"), style="yellow"))
            return
        try:
            await session(self).client.start_table(self.seat.table_id, self.seat.host_token)
        except ParlourError as error:
            self.show_refusal(error)
