// The card table: seats around the felt, the trick in the middle, your hand
// below. It renders the view the server sends and offers the legal actions it
// lists; it holds no rules (a card nobody listed is sent as a move anyway, so
// the server's refusal says why not). Pacing is presentation only: a completed
// trick is held on the felt for HOLD_MS before it is gathered, and a finished
// hand shows its summary before the next deal, however fast the next update comes.
import { ApiError, forgetSeat, rpc, watch } from "./api.js";
import { attention, announce } from "./attention.js";
import { card, inlineCard } from "./cards.js";
import { CHAT_EVENTS, ChatPanel } from "./chat.js";
import { verifyDeals } from "./fairdeal.js";
import { hostControls } from "./moderation.js";
import { t } from "./i18n.js";
import { endWords, escape, handResult, playerName, renderSummary } from "./summary.js";
import { decorateRatings, rematchPanel } from "./home.js";
import {
  SUIT_SYMBOL, cardName, cardWords, directionWords, gameText, joinNames, optionLabel, optionValue,
  levelWord, localName, passWords, phaseWords, refusalWords, say, seatName, suitLetter, suitWord,
} from "./words.js";

export const HOLD_MS = Number(new URLSearchParams(location.search).get("hold") || 1400);

const KIND = (legal) => (legal.action && legal.action.kind) || "";
const isCardAction = (legal) =>
  Boolean(legal.action && legal.action.card) && ["ACTION_KIND_PLAY", "ACTION_KIND_GIVE"].includes(KIND(legal));
/** A phone-width page (style.css's phone layout). */
const narrow = () => window.innerWidth < 700;

/**
 * How many of ``n`` cards go in one row of the hand: as many as fit with at least
 * 44 px of each card showing (the card widths of style.css), the rows balanced;
 * a phone splits a hand of more than 7 so its cards stay readable.
 */
function cardsPerRow(n) {
  const width = window.innerWidth;
  const card = narrow() ? Math.min(Math.max(44, width * 0.14), 60) : Math.min(Math.max(46, width * 0.072), 78);
  const fit = Math.max(1, Math.floor((width - 24 - card) / 44) + 1);
  const most = narrow() ? Math.min(fit, 7) : fit;
  return Math.ceil(n / Math.ceil(n / Math.max(most, 1))) || 1;
}

export class TableScreen {
  /** ``held`` is this browser's seat ({ seat, token, hostToken }) or null for a spectator. */
  constructor(root, tableId, held, games, { onLeave, onRules }) {
    this.root = root;
    this.tableId = tableId;
    this.held = held;
    this.games = games;
    this.onLeave = onLeave;
    this.onRules = onRules;
    this.queue = [];
    this.pumping = false;
    this.shown = null;       // the view on the felt
    this.version = 0;        // its version
    this.centreTrick = null; // a completed trick held on the felt, or null
    this.selected = [];      // cards picked to pass, not yet sent
    this.log = [];
    this.sheetOpen = false;
    this.peek = false;       // the last trick shown over the felt
    this.sending = false;
    this.clock = null;       // the table's clock options: { turn, bank } seconds, once read
    this.commitments = [];   // [version, commitment] of each deal, as Watch announced it
    this.dealCheck = null;   // the finished game's deal check: null (not yet), "checking", or its result
    this.chat = new ChatPanel(tableId, held);
    this.root.innerHTML = "";
    this.root.className = "table-screen";
    this.stop = watch(tableId, held ? held.seat : null, held ? held.token : null, {
      onUpdate: (update) => this.push(update),
      onStatus: (key) => this.status(t(key)),
      onFatal: (error) => this.fatal(error),
    });
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
    // a phone turned (or a window resized) across the phone width lays the hand out again
    this.wasNarrow = narrow();
    this.resized = () => {
      if (narrow() !== this.wasNarrow && this.shown && this.shown.phase !== "lobby") this.render();
      this.wasNarrow = narrow();
    };
    window.addEventListener("resize", this.resized);
    // While a panel (a hand's summary, the scores, game over) covers the table, what it
    // covers is inert: out of the tab order and of what assistive technology reads,
    // as behind any modal dialog.
    this.modal = new MutationObserver(() => {
      const open = this.root.querySelector(":scope > .overlay") !== null;
      for (const child of this.root.children) {
        if (!child.classList.contains("overlay")) child.inert = open;
      }
    });
    this.modal.observe(this.root, { childList: true });
    this.readClock();
  }

  close() {
    this.stop();
    this.modal.disconnect();
    document.removeEventListener("keydown", this.keys);
    window.removeEventListener("resize", this.resized);
    attention(false);
  }

  async readClock() {
    try {
      const options = (await rpc("LobbyService/GetTable", { tableId: this.tableId })).table.options || {};
      this.clock = { turn: Number(options.turn_seconds || 0), bank: Number(options.bank_seconds || 0) };
    } catch { this.clock = { turn: 0, bank: 0 }; }
    // A view drawn before the options came showed no clock: draw it again, now knowing what it counts.
    if (this.shown && this.shown.phase !== "lobby") this.render();
  }

  status(text) {
    const line = document.getElementById("status");
    if (line) line.textContent = text;
  }

  fatal(error) {
    if (this.held && ["UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND"].includes(error.code)) forgetSeat(this.tableId);
    this.root.innerHTML = `<div class="panel notice"><h2>${escape(t("table.cannot_open"))}</h2><p>${escape(refusalWords(error, null))}</p>` +
      `<button class="primary" data-lobby>${escape(t("back_to_lobby"))}</button></div>`;
    this.root.querySelector("[data-lobby]").onclick = () => this.onLeave();
  }

  /** Draws the table again in the language just chosen. */
  redraw() {
    this.chat.words();
    if (!this.shown) return;
    if (this.shown.phase === "lobby") this.renderWaitingRoom(this.shown);
    else this.render();
  }

  // -- pacing ------------------------------------------------------------------------------

  push(update) {
    // chat shows at once, outside the pacing; an update of chat lines only leaves the felt be
    this.chat.update(update.view, update.version);
    const events = update.events || [];
    const game = events.filter((event) => !CHAT_EVENTS.has(event.type));
    if (events.length && !game.length) return;
    this.queue.push({ ...update, events: game });
    this.pump();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length) await this.show(this.queue.shift());
    } finally {
      this.pumping = false;
    }
  }

  /** Puts one update on the felt; resolves when the next one may follow. */
  async show(update) {
    const before = this.shown;
    const view = update.view;
    const events = update.events || [];
    if (view.phase === "lobby") {
      this.noteEvents(events, view);
      this.shown = view;
      this.version = Number(update.version);
      await this.renderWaitingRoom(view);
      return;
    }
    const first = !before || before.phase === "lobby";
    const result = first ? null : handResult(before, view);
    const freshTrick = !first && trickKey(view.lastTrick) && trickKey(view.lastTrick) !== trickKey(before.lastTrick);
    // the log in order: the plays, the trick they completed, the hand's end, then what follows
    const lastPlay = events.map((e) => e.type).lastIndexOf("ActionTaken");
    this.noteEvents(events.slice(0, lastPlay + 1), before || view);
    let last = null;
    if (result) {
      last = result.lastTrick || (before.phase === "play" ? finalTrick(before, events) : null);
      if (last && before.phase === "play" && view.game !== "crazy8s") this.noteTrick(last, view);
      this.note(t("log.hand_over", { n: result.hand }));
    } else if (freshTrick && before.phase === "play") {
      this.noteTrick(view.lastTrick, view);
    }
    this.noteEvents(events.slice(lastPlay + 1), view);
    this.version = Number(update.version);
    if (Number(update.version) > 0 && events.length) this.refusal = "";
    if (view.phase !== "pass") this.selected = [];
    // a suit picker (a Crazy 8s eight) closes as soon as the table moves on (the clock ran
    // out, a bot played the seat): its choices were for the view it was opened on
    if (this.chooser && (events.length || !(view.legalActions || []).some((a) => isCardAction(a) && a.action.card === this.chooser))) {
      this.chooser = null;
      if (this.me() !== null) this.flash(t("refusal.picker_closed"));
    }
    if (result) {
      // The finished hand stays on the felt, its last trick in the middle, under the summary.
      this.shown = closingView(before, last, view.lastHand);
      this.centreTrick = last;
      this.render();
      if (last) await sleep(HOLD_MS);
      const firstNew = Math.min(...events.map((e) => Number(e.version)), Infinity);
      const sealed = this.commitments.filter(([version]) => version < firstNew).pop();
      await this.summary(result, view.isOver, sealed ? sealed[1] : "");
      this.centreTrick = null;
    } else if (freshTrick) {
      this.shown = view;
      this.centreTrick = view.lastTrick;
      this.render();
      await sleep(HOLD_MS);
      this.centreTrick = null;
    }
    this.shown = view;
    this.render();
    const mine = this.me() !== null && (view.legalActions || []).length > 0;
    attention(mine, t("title.your_turn"));
  }

  summary(result, last, sealed) {
    return new Promise((resolve) => {
      const panel = renderSummary(result, {
        last,
        sealed,
        onContinue: () => { panel.remove(); resolve(); },
      });
      this.root.appendChild(panel);
    });
  }

  // -- the event log -----------------------------------------------------------------------

  note(line) {
    if (!line) return;
    this.log.unshift(line);
    this.log = this.log.slice(0, 60);
    announce(line);
  }

  noteEvents(events, view) {
    for (const event of events) {
      if (event.type === "CardsDealt" && !this.commitments.some(([v]) => v === Number(event.version))) {
        this.commitments.push([Number(event.version), event.dealCommitment || ""]);
      }
      // each pass is one line when the cards change hands, not three "chose a card" lines
      if (event.action && event.action.kind === "ACTION_KIND_GIVE") continue;
      // the server's sentence, with its "seat 2" said by the player's name
      this.note(say(event.words, view));
    }
  }

  noteTrick(trick, view) {
    const cards = (trick.plays || []).map((p) => cardName(p.card)).join(" ");
    if (trick.winner === undefined) this.note(t("log.last_trick", { cards }));
    else this.note(t("log.took_trick", { name: seatName(view, trick.winner), cards }));
  }

  // -- drawing -----------------------------------------------------------------------------

  gameName(view) {
    const game = this.games.find((g) => g.id === view.game);
    return game ? gameText(game, "name") : view.game;
  }

  me() {
    return this.shown && this.shown.seat !== undefined ? this.shown.seat : null;
  }

  render() {
    const view = this.shown;
    const summary = this.root.querySelector(".overlay.summary");
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.card : null;
    const chatFocus = this.chat.capture();
    this.root.innerHTML = "";
    this.root.appendChild(this.header(view));
    const felt = document.createElement("div");
    felt.className = `felt seats-${view.seatCount}`;
    (view.players || []).forEach((player) => felt.appendChild(this.seatBadge(view, player)));
    // ratings beside the names (home.js, issue 31): asked again once the game is over
    decorateRatings(felt, this.tableId, { fresh: view.isOver && !this.ratedAtEnd && (this.ratedAtEnd = true) });
    felt.appendChild(this.middle(view));
    if (this.peek) felt.appendChild(this.peekPanel(view));
    this.root.appendChild(felt);
    this.root.appendChild(this.prompt(view));
    const refusal = document.createElement("p");
    refusal.className = "refusal";
    refusal.setAttribute("role", "alert");
    refusal.textContent = this.refusal || "";
    this.root.appendChild(refusal);
    if (view.phase === "pass" && this.me() !== null) this.root.appendChild(this.passTray(view));
    this.root.appendChild(this.actionBar(view));
    this.root.appendChild(this.hand(view));
    this.root.appendChild(this.logPanel());
    this.chat.placeIn(this.root, chatFocus);
    if (this.sheetOpen) this.root.appendChild(this.scoreSheet(view));
    if (view.isOver && !summary) {
      this.root.appendChild(this.gameOver(view));
      if (this.dealCheck === null) this.checkDeals();
      if (this.held) forgetSeat(this.tableId);  // nothing left to rejoin
    }
    if (summary) this.root.appendChild(summary);
    // keyboard focus stays on the card it was on (a pass pick redraws the hand)
    if (focused && !summary && !view.isOver) {
      const again = this.root.querySelector(`.hand-card[data-card="${focused}"]`);
      if (again) again.focus();
    }
  }

  header(view) {
    const bar = document.createElement("div");
    bar.className = "table-bar";
    const chips = [];
    const trump = suitLetter(view.trump);
    if (view.turnedCard) chips.push(chip(t("chip.turned_up"), inlineCard(view.turnedCard).outerHTML));
    if (trump) chips.push(chip(t("chip.trump"), suitChip(trump), "trump"));
    else if (view.trumpText && view.game !== "hearts" && view.game !== "crazy8s") chips.push(chip(t("chip.trump"), escape(trumpWords(view.trumpText)), "trump"));
    const inForce = suitLetter(view.suitInForce);
    if (inForce && view.game === "crazy8s") chips.push(chip(t("chip.suit_to_follow"), suitChip(inForce), "in-force"));
    else if (inForce) chips.push(chip(t("chip.suit_led"), suitChip(inForce), "in-force"));
    if (view.heartsBroken !== undefined && view.game === "hearts") {
      chips.push(chip(t("chip.hearts"), `<span class="red">♥</span> ${escape(view.heartsBroken ? t("hearts.broken") : t("hearts.not_broken"))}`, view.heartsBroken ? "broken" : ""));
    }
    if (view.contract) chips.push(chip(t("chip.contract"), escape(say(view.contract, view))));
    if (view.passDirection && view.phase === "pass") chips.push(chip(t("chip.pass"), escape(directionWords(view.passDirection))));
    if (view.stockCount !== undefined && view.game === "crazy8s") chips.push(chip(t("chip.stock"), escape(t("cards.count", { count: view.stockCount }))));
    const peekable = Boolean(view.lastTrick && (view.lastTrick.plays || []).length) && view.game !== "crazy8s";
    bar.innerHTML =
      `<div class="title"><strong>${escape(this.gameName(view))}</strong>` +
      `<span>${escape(t("table.hand_phase", { n: view.handNumber || 1, phase: phaseWords(view) }))}</span></div>` +
      `<div class="chips">${chips.join("")}</div>` +
      `<div class="tools">` +
      (peekable ? `<button data-peek aria-pressed="${this.peek}">${escape(t("tool.last_trick"))}</button>` : "") +
      `<button data-rules>${escape(t("tool.rules"))}</button>` +
      `<button data-sheet aria-pressed="${this.sheetOpen}">${escape(t("tool.scores"))}</button>` +
      `<button data-leave>${escape(t("tool.lobby"))}</button></div>`;
    bar.querySelector("[data-sheet]").onclick = () => { this.sheetOpen = !this.sheetOpen; this.render(); };
    bar.querySelector("[data-leave]").onclick = () => this.onLeave();
    bar.querySelector("[data-rules]").onclick = () => this.onRules && this.onRules(view.game);
    const peek = bar.querySelector("[data-peek]");
    if (peek) peek.onclick = () => { this.peek = !this.peek; this.render(); };
    return bar;
  }

  peekPanel(view) {
    const panel = document.createElement("div");
    panel.className = "peek";
    const trick = view.lastTrick;
    if (!trick) return panel;
    panel.setAttribute("role", "region");
    panel.setAttribute("aria-label", t("tool.last_trick"));
    panel.innerHTML = `<strong>${escape(t("peek.title", { name: seatName(view, trick.winner || 0, { you: true }) }))}</strong>`;
    const row = document.createElement("div");
    row.className = "peek-cards";
    for (const play of trick.plays || []) {
      const cell = document.createElement("span");
      cell.appendChild(card(play.card));
      cell.insertAdjacentHTML("beforeend", `<small>${escape(seatName(view, play.seat || 0, { you: true }))}</small>`);
      row.appendChild(cell);
    }
    panel.appendChild(row);
    return panel;
  }

  place(view, seat, radius) {
    const n = view.seatCount || (view.players || []).length || 4;
    const me = this.me() ?? 0;
    const k = (seat - me + n) % n;
    const angle = ((90 + (k * 360) / n) * Math.PI) / 180;
    return { x: 50 + radius.x * Math.cos(angle), y: 50 + radius.y * Math.sin(angle), k };
  }

  seatBadge(view, player) {
    const seat = player.seat || 0;
    const where = this.place(view, seat, { x: narrow() ? 33 : 40, y: 38 });
    const badge = document.createElement("div");
    const toAct = (view.toAct || []).includes(seat);
    const mine = seat === this.me();
    badge.className = `seat${toAct ? " to-act" : ""}${mine ? " mine" : ""}${where.k === 0 ? " bottom" : ""}`;
    badge.style.left = `${where.x}%`;
    badge.style.top = `${where.y}%`;
    badge.dataset.seat = seat;
    // a computer player's level goes to the tooltip, so the nameplate stays short
    const bot = player.kind === "SEAT_KIND_BOT" && /^(.*) \(([^)]*)\)$/.exec(player.playerName || "");
    const name = bot ? bot[1] : seatName(view, seat);
    badge.title = bot ? t("seat.bot_title", { name, level: levelWord(bot[2]) }) : name;
    const facts = [];
    if (player.bid === "pass") facts.push(escape(t("facts.passed")));
    else if (player.bid) facts.push(escape(t("facts.bid", { bid: say(player.bid, view) })));
    if (view.phase === "play" || view.phase === "bid" || view.phase === "trump" || player.tricksTaken) {
      if (view.game !== "crazy8s") facts.push(escape(t("facts.tricks", { count: player.tricksTaken || 0 })));
    }
    if (view.game === "hearts" && player.pointsThisHand) facts.push(escape(t("facts.points_this_hand", { count: player.pointsThisHand })));
    if (player.team !== undefined) {
      const partner = (view.players || []).find((p) => p.team === player.team && (p.seat || 0) !== seat);
      if (partner) facts.push(escape(t("facts.partner", { name: seatName(view, partner.seat || 0).replace(/ \(.*\)$/, "") })));
    }
    const backs = Math.min(player.handSize || 0, 7);
    const fan = mine ? "" : `<div class="backs" aria-hidden="true">${"<playing-card back></playing-card>".repeat(backs)}</div>`;
    badge.innerHTML =
      `${fan}<div class="nameplate">` +
      `<span class="name">${escape(name)}${mine ? ` <em>${escape(t("seat.you_mark"))}</em>` : ""}</span>` +
      (seat === view.dealer ? `<span class="dealer" title="${escape(t("seat.dealer"))}">${escape(t("seat.dealer_mark"))}</span>` : "") +
      `<span class="score" title="${escape(t("seat.score"))}">${player.score || 0}</span></div>` +
      `<div class="facts"><span class="count">${escape(t("cards.count", { count: player.handSize || 0 }))}</span>` +
      `${facts.map((f) => `<span>${f}</span>`).join("")}</div>` +
      (toAct ? `<div class="turn">${escape(player.away ? t("seat.bot_playing") : mine ? t("seat.your_turn") : t("seat.thinking"))}${this.clockTag(player)}</div>` : "") +
      (player.away ? `<div class="away" title="${escape(t("seat.away_title"))}">${escape(t("seat.away"))}</div>` : "");
    return badge;
  }

  /** A ticking clock for a seat whose turn clock runs, saying what it counts (the turn, or turn and bank). */
  clockTag(player) {
    const left = Number(player.timeLeftMs || 0);
    if (!left || !this.clock) return "";  // no chip until the options say whether it counts a bank
    const bank = this.clock.bank;
    const what = bank ? t("clock.turn_and_bank") : t("clock.turn");
    const title = bank ? t("clock.turn_and_bank_title", { turn: this.clock.turn, bank }) : t("clock.turn_title");
    return ` <span class="clock" data-until="${Date.now() + left}" title="${escape(title)}"><small>${escape(what)}</small> <b>${Math.ceil(left / 1000)} s</b></span>`;
  }

  middle(view) {
    const middle = document.createElement("div");
    middle.className = "middle";
    if (view.game === "crazy8s") {
      middle.classList.add("piles");
      const stock = document.createElement("div");
      stock.className = "pile";
      stock.appendChild(card(""));
      stock.insertAdjacentHTML("beforeend", `<span>${escape(t("crazy8s.in_stock", { count: view.stockCount ?? 0 }))}</span>`);
      const discard = document.createElement("div");
      discard.className = "pile";
      if (view.topCard) discard.appendChild(card(view.topCard));
      const inForce = suitLetter(view.suitInForce);
      discard.insertAdjacentHTML("beforeend", `<span>${escape(inForce ? t("crazy8s.follow", { symbol: SUIT_SYMBOL[inForce], suit: suitWord(inForce) }) : t("crazy8s.top_card"))}</span>`);
      middle.append(stock, discard);
      return middle;
    }
    const holding = Boolean(this.centreTrick);
    const trick = this.centreTrick || view.currentTrick;
    const plays = (trick && trick.plays) || [];
    const before = this.onFelt || new Set();
    this.onFelt = new Set(plays.map((play) => play.card));
    plays.forEach((play, index) => {
      const spread = (view.seatCount || 4) > 4 ? { x: 30, y: 30 } : { x: 22, y: 26 };
      const where = this.place(view, play.seat || 0, spread);
      const placed = card(play.card);
      placed.classList.add("in-trick");
      if (!before.has(play.card)) placed.classList.add("landing");  // only the card just played moves
      if (holding && trick.winner === (play.seat || 0)) placed.classList.add("winner");
      placed.style.left = `${where.x}%`;
      placed.style.top = `${where.y}%`;
      placed.style.zIndex = String(index + 1);
      placed.dataset.seat = play.seat || 0;
      middle.appendChild(placed);
    });
    if (holding && trick.winner !== undefined) middle.classList.add("gathering");
    if (!plays.length) this.onFelt = new Set();
    if (!plays.length && view.phase !== "play") {
      middle.insertAdjacentHTML("beforeend", `<div class="phase-note">${escape(this.centreWords(view))}</div>`);
    }
    return middle;
  }

  centreWords(view) {
    if (view.isOver) return t("phase.over");
    if (view.phase === "pass") return passWords(view.passDirection);
    return phaseWords(view);
  }

  prompt(view) {
    const line = this.promptLine(view);
    const trick = this.centreTrick;
    if (trick && trick.winner !== undefined) {
      // who takes the trick is said here, under the felt, so it covers no card
      const you = trick.winner === this.me();
      line.insertAdjacentHTML("afterbegin", `<span class="taker">${escape(you ? t("trick.you_take") : t("trick.takes", { name: seatName(view, trick.winner) }))}</span> `);
    }
    return line;
  }

  promptLine(view) {
    const line = document.createElement("p");
    line.className = "prompt";
    line.id = "prompt";
    const me = this.me();
    const legal = view.legalActions || [];
    const waiting = (view.toAct || []).filter((s) => s !== me).map((s) => seatName(view, s));
    let text;
    const myPlayer = (view.players || []).find((p) => (p.seat || 0) === me);
    if (view.endReason === "END_REASON_ABANDONED") text = t("prompt.abandoned");
    else if (view.endReason === "END_REASON_EXPIRED") text = t("prompt.expired");
    else if (view.isOver) {
      const winners = (view.winners || []).map((s) => playerName(view, s));
      text = t("prompt.game_over", { names: joinNames(winners), count: winners.length });
    } else if (myPlayer && myPlayer.away) {
      const back = document.createElement("button");
      back.className = "primary";
      back.dataset.back = "";
      back.textContent = t("prompt.im_back");
      back.onclick = () => this.takeSeatBack();
      line.textContent = `${t("prompt.away")} `;
      line.appendChild(back);
      return line;
    } else if (me === null) text = waiting.length ? t("prompt.watching_waiting", { names: joinNames(waiting) }) : t("prompt.watching");
    else if (legal.length) text = this.yourTurnWords(view, legal);
    else if (waiting.length) text = t("prompt.waiting", { names: joinNames(waiting) });
    else text = "";
    line.textContent = text;
    if (legal.length && me !== null) line.classList.add("your-turn");
    if (legal.length && myPlayer && Number(myPlayer.timeLeftMs || 0)) line.insertAdjacentHTML("beforeend", this.clockTag(myPlayer));
    if (legal.length && view.game === "kaiser" && view.phase === "bid" && !legal.some((a) => KIND(a) === "ACTION_KIND_PASS") && view.dealer === me) {
      line.insertAdjacentHTML("beforeend", ` <span class="hint forced">${escape(t("kaiser.dealer_must_bid"))}</span>`);
    }
    if (view.phase === "play" && !(view.tricks || []).length && (view.receivedCards || []).length && me !== null) {
      line.insertAdjacentHTML("beforeend", ` <span class="hint">${escape(t("prompt.received_hint"))}</span>`);
    }
    return line;
  }

  yourTurnWords(view, legal) {
    const kinds = new Set(legal.map(KIND));
    if (kinds.has("ACTION_KIND_GIVE")) {
      const left = 3 - (view.passedCards || []).length;
      return t("prompt.choose_pass", { count: left, direction: directionWords(view.passDirection) });
    }
    if (kinds.has("ACTION_KIND_BID")) return t("prompt.bid");
    if (kinds.has("ACTION_KIND_NAME_TRUMP")) return t("prompt.name_trump");
    if (kinds.has("ACTION_KIND_PLAY")) {
      const led = suitLetter(view.suitInForce || (view.currentTrick && view.currentTrick.ledSuit));
      return led && view.game !== "crazy8s" ? t("prompt.play_led", { suit: suitWord(led) }) : t("prompt.play");
    }
    if (kinds.has("ACTION_KIND_DRAW")) return t("prompt.draw");
    return t("prompt.your_turn");
  }

  passTray(view) {
    const tray = document.createElement("div");
    tray.className = "pass-tray";
    const given = view.passedCards || [];
    const chosen = [...given, ...this.selected];
    const slots = [];
    for (let i = 0; i < 3; i++) {
      const code = chosen[i];
      const slot = document.createElement(code && i >= given.length ? "button" : "div");
      slot.className = "slot";
      if (code) {
        slot.appendChild(card(code));
        if (i >= given.length) {
          slot.title = t("pass.put_back", { card: cardWords(code) });
          slot.setAttribute("aria-label", t("pass.put_back", { card: cardWords(code) }));
          slot.onclick = () => { this.selected = this.selected.filter((c) => c !== code); this.render(); };
        }
      }
      slots.push(slot);
    }
    const label = document.createElement("span");
    label.className = "tray-label";
    const direction = directionWords(view.passDirection);
    label.textContent = given.length === 3 ? t("pass.sent", { direction }) : t("pass.tray", { direction });
    tray.append(label, ...slots);
    if (given.length < 3) {
      const send = document.createElement("button");
      send.className = "primary";
      send.dataset.passSend = "";
      send.textContent = chosen.length === 3 ? t("pass.send") : t("pass.more", { count: 3 - chosen.length });
      send.disabled = chosen.length !== 3 || this.sending;
      send.onclick = () => this.sendPass();
      tray.appendChild(send);
    }
    return tray;
  }

  actionBar(view) {
    const bar = document.createElement("div");
    bar.className = "actions";
    const legal = view.legalActions || [];
    const chosen = this.chooser ? legal.filter((a) => isCardAction(a) && a.action.card === this.chooser) : [];
    const shown = chosen.length > 1 ? chosen : legal.filter((a) => !isCardAction(a));
    if (chosen.length > 1) {
      bar.dataset.chooser = this.chooser;
      bar.insertAdjacentHTML("beforeend", `<span>${escape(t("crazy8s.name_suit", { card: cardName(this.chooser) }))}</span>`);
    }
    for (const action of shown) {
      const button = document.createElement("button");
      button.dataset.action = action.id;
      button.className = KIND(action) === "ACTION_KIND_BID" ? "bid" : "";
      button.textContent = chosen.length > 1 ? this.suitChoice(action) : action.label;
      button.disabled = this.queue.length > 0;
      button.onclick = () => { this.chooser = null; this.act(action.id); };
      bar.appendChild(button);
    }
    if (chosen.length > 1) {
      const cancel = document.createElement("button");
      cancel.dataset.cancel = "";
      cancel.textContent = t("cancel");
      cancel.onclick = () => { this.chooser = null; this.render(); };
      bar.appendChild(cancel);
    }
    return bar;
  }

  suitChoice(action) {
    const letter = suitLetter(action.action.suit);
    return letter ? `${SUIT_SYMBOL[letter]} ${suitWord(letter)}` : action.label;
  }

  hand(view) {
    const hand = document.createElement("div");
    hand.className = "hand";
    hand.setAttribute("role", "group");
    hand.setAttribute("aria-label", t("hand.label"));
    const legal = view.legalActions || [];
    const byCard = new Map();
    for (const action of legal.filter(isCardAction)) {
      if (!byCard.has(action.action.card)) byCard.set(action.action.card, []);
      byCard.get(action.action.card).push(action);
    }
    const passing = legal.some((a) => KIND(a) === "ACTION_KIND_GIVE");
    // cards picked to pass stay in their place (marked), so the hand does not re-spread
    // under the finger; cards already given are gone to the tray
    const given = view.phase === "pass" ? view.passedCards || [] : [];
    const cards = (view.hand || []).filter((code) => !given.includes(code));
    const received = view.phase === "play" && !(view.tricks || []).length ? view.receivedCards || [] : [];
    const perRow = cardsPerRow(cards.length);
    let row = null;
    cards.forEach((code, index) => {
      if (index % Math.max(perRow, 1) === 0) {
        row = document.createElement("div");
        row.className = "hand-row";
        row.style.setProperty("--n", String(Math.max(Math.min(perRow, cards.length - index), 1)));
        hand.appendChild(row);
      }
      const actions = byCard.get(code) || [];
      const picked = this.selected.includes(code);
      const button = document.createElement("button");
      button.className = "hand-card";
      button.dataset.card = code;
      if (received.includes(code)) button.classList.add("received");
      const playable = actions.length > 0 && this.queue.length === 0 && !picked;
      if ((legal.length && !actions.length) || picked) button.classList.add("dim");
      if (picked) button.classList.add("picked");
      if (playable) button.classList.add("legal");
      // a dimmed card stays focusable and tappable: the tap says why not
      if (!playable && !picked) button.setAttribute("aria-disabled", "true");
      const label = picked ? t("hand.picked", { card: cardWords(code) })
        : playable ? (passing ? t("hand.pick", { card: cardWords(code) }) : t("hand.play", { card: cardWords(code) })) : cardWords(code);
      button.setAttribute("aria-label", label);
      const face = card(code);
      face.setAttribute("aria-hidden", "true");  // the button's label says the card
      button.appendChild(face);
      button.onclick = () => this.tap(view, code, actions, passing, picked);
      row.appendChild(button);
    });
    return hand;
  }

  /** A tap on a card of the hand: pick it to pass, play it, open the suit picker, or say why not. */
  tap(view, code, actions, passing, picked) {
    if (picked) {
      this.selected = this.selected.filter((c) => c !== code);
      this.render();
    } else if (this.queue.length) {
      this.flash(t("refusal.wait"));
    } else if (!actions.length) {
      this.whyNot(view, code);
    } else if (passing) {
      if (this.selected.length + (view.passedCards || []).length < 3) this.selected.push(code);
      else this.flash(t("refusal.three_chosen"));
      this.render();
    } else if (actions.length > 1) {
      this.chooser = code;
      this.render();
    } else {
      this.act(actions[0].id);
    }
  }

  /** A card nobody listed: the server's refusal in one line, or why nothing can be done now. */
  async whyNot(view, code) {
    if (this.me() === null) return;
    const legal = view.legalActions || [];
    if (!legal.length) {
      const waiting = (view.toAct || []).filter((s) => s !== this.me()).map((s) => seatName(view, s));
      this.flash(waiting.length ? t("refusal.not_your_turn", { names: joinNames(waiting) }) : t("refusal.not_now"));
      return;
    }
    if (!legal.some(isCardAction)) {
      this.flash(t("refusal.no_card_now"));
      return;
    }
    const verb = view.phase === "pass" ? "give" : "play";
    try {
      await rpc("PlayService/Act", {
        tableId: this.tableId, seat: this.held.seat, requestId: crypto.randomUUID(),
        action: { text: `${verb} ${code}` },
      }, { seat: this.held.token });
    } catch (error) {
      this.flash(refusalWords(error, view));
    }
  }

  logPanel() {
    const panel = document.createElement("details");
    panel.className = "log";
    panel.open = this.logOpen ?? window.innerWidth > 900;
    panel.ontoggle = () => { this.logOpen = panel.open; };
    panel.innerHTML = `<summary>${escape(t("log.title"))}</summary><ol>${this.log.slice(0, 14).map((l) => `<li>${escape(l)}</li>`).join("")}</ol>`;
    return panel;
  }

  scoreSheet(view) {
    const sheet = document.createElement("div");
    sheet.className = "overlay sheet";
    sheet.setAttribute("role", "dialog");
    sheet.setAttribute("aria-label", t("sheet.title"));
    const players = view.players || [];
    const head = players.map((p) => `<th>${escape(seatName(view, p.seat || 0))}</th>`).join("");
    const rows = (view.handScores || []).map((row, i) =>
      `<tr><th scope="row">${i + 1}</th>${players.map((p) => `<td>${(row.points || [])[p.seat || 0] ?? 0}</td>`).join("")}</tr>`).join("");
    const totals = players.map((p) => `<td>${(view.scores || [])[p.seat || 0] ?? p.score ?? 0}</td>`).join("");
    sheet.innerHTML = `<div class="overlay-card"><h2>${escape(t("sheet.title"))}</h2><table class="result"><thead><tr><th>${escape(t("sheet.hand"))}</th>${head}</tr></thead>` +
      `<tbody>${rows || `<tr><td colspan="${players.length + 1}">${escape(t("sheet.none"))}</td></tr>`}</tbody>` +
      `<tfoot><tr><th>${escape(t("col.total"))}</th>${totals}</tr></tfoot></table><button class="primary" data-close>${escape(t("close"))}</button></div>`;
    sheet.querySelector("[data-close]").onclick = () => { this.sheetOpen = false; this.render(); };
    return sheet;
  }

  gameOver(view) {
    const panel = document.createElement("div");
    panel.className = "overlay game-over";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-labelledby", "game-over-title");
    const winners = (view.winners || []).map((s) => playerName(view, s));
    const order = [...(view.players || [])].sort((a, b) => this.rank(view, a) - this.rank(view, b));
    const hands = (view.handScores || []).length;
    const abandoned = view.endReason === "END_REASON_ABANDONED";
    const headline = abandoned ? t("over.abandoned") : t("over.wins", { names: joinNames(winners), count: winners.length });
    panel.innerHTML = `<div class="overlay-card"><h2 id="game-over-title">${escape(headline)}</h2>` +
      `<p class="end-reason">${escape(endWords(view))}</p>` +
      (view.endReason === "END_REASON_ROUNDS_PLAYED" ? "" : `<p class="muted">${escape(t("over.after_hands", { game: this.gameName(view), count: hands }))}</p>`) +
      `<ol class="standings">${order.map((p) => `<li class="${(view.winners || []).includes(p.seat || 0) ? "won" : ""}">` +
        `<span>${escape(playerName(view, p.seat || 0))}${p.seat === this.me() ? ` ${escape(t("seat.you_mark"))}` : ""}</span>` +
        `<strong>${(view.scores || [])[p.seat || 0] ?? p.score ?? 0}</strong></li>`).join("")}</ol>` +
      this.dealCheckHtml() +
      `<div class="rematch" data-rematch></div>` +
      `<div class="buttons"><button data-sheet>${escape(t("sheet.title"))}</button><button class="primary" data-lobby>${escape(t("back_to_lobby"))}</button></div></div>`;
    panel.querySelector("[data-sheet]").onclick = () => { this.sheetOpen = true; this.render(); };
    panel.querySelector("[data-lobby]").onclick = () => this.onLeave();
    rematchPanel(panel.querySelector("[data-rematch]"), this.tableId);  // "play again": home.js
    return panel;
  }

  /** Fetch the finished game's replay and check its deals here, in the browser. */
  async checkDeals() {
    this.dealCheck = "checking";
    try {
      const replay = await rpc("ReplayService/GetReplay", { tableId: this.tableId });
      const announced = new Map(this.commitments.map(([, commitment], n) => [n, commitment]));
      const mine = this.held && this.held.entropy ? { seat: this.held.seat, entropy: this.held.entropy } : null;
      this.dealCheck = verifyDeals(replay, announced, mine);
    } catch (error) {
      this.dealCheck = { ok: false, failure: { key: "deal.unreadable", args: { why: refusalWords(error, null) } }, checks: [] };
    }
    const box = this.root.querySelector(".deal-check");
    if (box) box.outerHTML = this.dealCheckHtml();
  }

  dealCheckHtml() {
    const check = this.dealCheck;
    if (!check || check === "checking") return `<div class="deal-check pending">${escape(t("deal.checking"))}</div>`;
    const say = (item) => t(item.key, item.args);
    if (!check.ok) {
      const why = check.failure ? say(check.failure) : t("deal.none");
      return `<div class="deal-check failed" role="alert"><strong>${escape(t("deal.failed"))}</strong> ${escape(why)}</div>`;
    }
    const headline = check.entropy ? t("deal.verified_entropy", { count: check.verified }) : t("deal.verified", { count: check.verified });
    return `<div class="deal-check verified"><strong>${escape(headline)}</strong>` +
      `<ul>${check.checks.map((line) => `<li>${escape(say(line))}</li>`).join("")}</ul></div>`;
  }

  rank(view, player) {
    const seat = player.seat || 0;
    if ((view.winners || []).includes(seat)) return -1e9;
    const score = (view.scores || [])[seat] ?? player.score ?? 0;
    const lowest = (view.endRule || {}).winner === "WINNER_RULE_LOWEST_TOTAL";  // Hearts, Crazy 8s
    return lowest ? score : -score;
  }

  // -- acting ------------------------------------------------------------------------------

  async takeSeatBack() {
    try {
      await rpc("PlayService/ReturnToSeat", { tableId: this.tableId, seat: this.held.seat }, { seat: this.held.token });
    } catch (error) {
      this.flash(refusalWords(error, this.shown));
    }
  }

  async act(id) {
    if (this.sending) { this.flash(t("refusal.sending")); return null; }
    this.sending = true;
    this.flash("");
    try {
      const answer = await rpc("PlayService/Act", {
        tableId: this.tableId, seat: this.held.seat, expectedVersion: this.version,
        requestId: crypto.randomUUID(), legalActionId: id,
      }, { seat: this.held.token });
      return answer;
    } catch (error) {
      this.flash(refusalWords(error, this.shown));
      if (this.shown) this.render();  // a picker left open on a stale view closes
      return null;
    } finally {
      this.sending = false;
    }
  }

  async sendPass() {
    const cards = [...this.selected];
    let view = this.shown;
    let version = this.version;
    this.sending = true;
    this.render();
    try {
      for (const code of cards) {
        const action = (view.legalActions || []).find((a) => KIND(a) === "ACTION_KIND_GIVE" && a.action.card === code);
        if (!action) throw new ApiError("FAILED_PRECONDITION", t("pass.gone", { card: cardName(code) }));
        const answer = await rpc("PlayService/Act", {
          tableId: this.tableId, seat: this.held.seat, expectedVersion: version,
          requestId: crypto.randomUUID(), legalActionId: action.id,
        }, { seat: this.held.token });
        view = answer.view;
        version = Number(answer.version);
      }
      this.selected = [];
    } catch (error) {
      this.flash(refusalWords(error, this.shown));
      this.selected = [];
    } finally {
      this.sending = false;
      if (this.shown) this.render();
    }
  }

  /** A refusal from the service, in words, shown until the next move. */
  flash(text) {
    this.refusal = text;
    const line = this.root.querySelector(".refusal");
    if (line) line.textContent = text;
  }

  key(event) {
    if (!this.shown || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    const cards = [...this.root.querySelectorAll(".hand-card")];
    const at = cards.indexOf(document.activeElement);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      const step = event.key === "ArrowRight" ? 1 : -1;
      if (!cards.length) return;
      cards[(at + step + cards.length) % cards.length].focus();
      event.preventDefault();
    } else if (event.key === "s" || event.key === "S") {
      this.sheetOpen = !this.sheetOpen;
      this.render();
    }
  }

  // -- before the game starts ----------------------------------------------------------------

  async renderWaitingRoom(view) {
    let table = null;
    try { table = (await rpc("LobbyService/GetTable", { tableId: this.tableId })).table; } catch { /* shown below */ }
    const seats = (table && table.seats) || [];
    const filled = seats.filter((s) => s.occupied).length;
    const invite = `${location.origin}${location.pathname}#/join/${this.tableId}`;
    const options = Object.entries((table && table.options) || {});
    const host = this.held && this.held.hostToken;
    const all = filled === seats.length && seats.length;
    this.root.innerHTML =
      `<div class="panel waiting"><h2>${escape(t("waiting.title", { game: this.gameName(view) }))}</h2>` +
      `<p class="muted">${escape(t("waiting.taken", { count: filled, seats: seats.length || view.seatCount }))}</p>` +
      `<ol class="seat-list">${seats.map((s) =>
        `<li class="${s.occupied ? "taken" : "open"}" data-seat="${s.seat || 0}"><span class="seat-no">${(s.seat || 0) + 1}</span>` +
        `<span>${escape(s.occupied ? localName(s.playerName) || t("waiting.a_player") : t("waiting.open_seat"))}</span>` +
        `${s.kind === "SEAT_KIND_BOT" ? `<em>${escape(t("waiting.computer", { level: levelWord(s.botLevel) }))}</em>` : ""}` +
        `${this.held && this.held.seat === (s.seat || 0) ? `<em>${escape(t("you"))}</em>` : ""}</li>`).join("")}</ol>` +
      (options.length ? `<p class="muted">${options.map(([k, v]) => `${escape(optionLabel(k))}: ${escape(optionValue(v))}`).join(" · ")}</p>` : "") +
      `<label class="invite">${escape(t("waiting.invite"))} <input readonly value="${escape(invite)}"></label>` +
      `<div class="buttons"><button data-copy>${escape(t("waiting.copy"))}</button><span class="copied" role="status"></span></div>` +
      `<p class="muted">${escape(t("waiting.table", { id: this.tableId }))}</p>` +
      (host
        ? `<button class="primary" data-start ${all ? "" : "disabled"}>${escape(t("waiting.start"))}</button>` +
          `<p class="muted">${escape(all ? t("waiting.all_taken") : t("waiting.start_when_full"))}</p>`
        : `<p class="muted">${escape(t("waiting.host_starts"))}</p>`) +
      `<p class="refusal" role="alert"></p><div class="buttons"><button data-rules>${escape(t("tool.rules"))}</button><button data-leave>${escape(t("back_to_lobby"))}</button></div></div>`;
    const start = this.root.querySelector("[data-start]");
    if (start) {
      start.onclick = async () => {
        start.disabled = true;
        try { await rpc("LobbyService/StartTable", { tableId: this.tableId }, { host: this.held.hostToken }); }
        catch (error) { this.flash(refusalWords(error, view)); start.disabled = false; }
      };
    }
    this.root.querySelector("[data-copy]").onclick = () => copyInvitation(invite, this.root.querySelector(".copied"), this.root.querySelector(".invite input"));
    this.root.querySelector("[data-rules]").onclick = () => this.onRules && this.onRules(view.game);
    this.root.querySelector("[data-leave]").onclick = () => this.onLeave();
    hostControls(this.root, { tableId: this.tableId, table, held: this.held, redraw: () => this.renderWaitingRoom(view) });
  }
}

/** Copies the invitation link (the clipboard where the page may write it, else the field selected). */
async function copyInvitation(link, note, field) {
  try {
    await navigator.clipboard.writeText(link);
    note.textContent = t("waiting.copied");
  } catch {
    field.select();
    note.textContent = t("waiting.copy_by_hand");
  }
}

/** The server's trump text in the page's language where the catalogue has it. */
function trumpWords(text) {
  const known = { "no trump": "trump.none", "not yet named": "trump.not_named", "dealer to name trump": "trump.dealer_names" };
  return known[text] ? t(known[text]) : text;
}

/**
 * The finished hand as it ended: nobody to act, the last trick's cards out of the
 * hands (a Crazy 8s round: the cards each seat was caught with), the new totals.
 */
function closingView(before, last, result) {
  const played = new Set(((last && last.plays) || []).map((p) => p.card));
  const left = (result && result.crazy8s && result.crazy8s.cardsLeft) || [];
  const totals = (result && result.totals) || [];
  return {
    ...before, hand: (before.hand || []).filter((c) => !played.has(c)), legalActions: [], toAct: [],
    currentTrick: null,
    players: (before.players || []).map((p) => ({
      ...p, handSize: left[p.seat || 0] ?? 0, score: totals[p.seat || 0] ?? p.score,
    })),
  };
}

/** The last trick of a hand that ended within one update: the cards seen so far and the plays since. */
function finalTrick(before, events) {
  const plays = [...((before.currentTrick && before.currentTrick.plays) || [])];
  for (const event of events) {
    if (event.action && event.action.kind === "ACTION_KIND_PLAY" && event.action.card) plays.push({ seat: event.seat || 0, card: event.action.card });
  }
  return plays.length ? { plays } : null;
}

function trickKey(trick) {
  if (!trick || !trick.plays || !trick.plays.length) return "";
  return `${trick.leader || 0}:${trick.plays.map((p) => `${p.seat || 0}${p.card}`).join(",")}`;
}

function chip(label, value, cls = "") {
  return `<span class="chip ${cls}"><small>${escape(label)}</small> ${value}</span>`;
}

function suitChip(letter) {
  const red = letter === "H" || letter === "D";
  return `<span class="${red ? "red" : "black"} suit suit-${letter}">${SUIT_SYMBOL[letter]}</span> ${escape(suitWord(letter))}`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// -- turn clocks -----------------------------------------------------------------------------

setInterval(() => {
  for (const tag of document.querySelectorAll(".clock[data-until]")) {
    const left = Math.max(0, Number(tag.dataset.until) - Date.now());
    const number = tag.querySelector("b");
    if (number) number.textContent = `${Math.ceil(left / 1000)} s`;
    tag.classList.toggle("short", left < 5000);
  }
}, 250);
