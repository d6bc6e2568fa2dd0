// The card table: seats around the felt, the trick in the middle, your hand
// below. It renders the view the server sends and offers the legal actions it
// lists; it holds no rules. Pacing is presentation only: a completed trick is
// held on the felt for HOLD_MS before it is gathered, and a finished hand shows
// its summary before the next deal, however fast the next update comes.
import { ApiError, forgetSeat, rpc, watch } from "./api.js";
import { card, inlineCard } from "./cards.js";
import { verifyDeals } from "./fairdeal.js";
import { endWords, escape, handResult, playerName, renderSummary } from "./summary.js";
import {
  SUIT_SYMBOL, SUIT_WORD, cardName, cardWords, joinNames, optionLabel, optionValue,
  passWords, phaseWords, say, seatName, suitLetter,
} from "./words.js";

export const HOLD_MS = Number(new URLSearchParams(location.search).get("hold") || 1400);

const KIND = (legal) => (legal.action && legal.action.kind) || "";
const isCardAction = (legal) =>
  Boolean(legal.action && legal.action.card) && ["ACTION_KIND_PLAY", "ACTION_KIND_GIVE"].includes(KIND(legal));

export class TableScreen {
  /** ``held`` is this browser's seat ({ seat, token, hostToken }) or null for a spectator. */
  constructor(root, tableId, held, games, { onLeave }) {
    this.root = root;
    this.tableId = tableId;
    this.held = held;
    this.games = games;
    this.onLeave = onLeave;
    this.queue = [];
    this.pumping = false;
    this.shown = null;       // the view on the felt
    this.version = 0;        // its version
    this.centreTrick = null; // a completed trick held on the felt, or null
    this.selected = [];      // cards picked to pass, not yet sent
    this.log = [];
    this.sheetOpen = false;
    this.sending = false;
    this.commitments = [];   // [version, commitment] of each deal, as Watch announced it
    this.dealCheck = null;   // the finished game's deal check: null (not yet), "checking", or its result
    this.root.innerHTML = "";
    this.root.className = "table-screen";
    this.stop = watch(tableId, held ? held.seat : null, held ? held.token : null, {
      onUpdate: (update) => this.push(update),
      onStatus: (text) => this.status(text),
      onFatal: (error) => this.fatal(error),
    });
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
  }

  close() {
    this.stop();
    document.removeEventListener("keydown", this.keys);
  }

  status(text) {
    const line = document.getElementById("status");
    if (line) line.textContent = text;
  }

  fatal(error) {
    if (this.held && ["UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND"].includes(error.code)) forgetSeat(this.tableId);
    this.root.innerHTML = `<div class="panel notice"><h2>This table cannot be opened</h2><p>${escape(error.message)}</p>` +
      `<button class="primary" data-lobby>Back to the lobby</button></div>`;
    this.root.querySelector("[data-lobby]").onclick = () => this.onLeave();
  }

  // -- pacing ------------------------------------------------------------------------------

  push(update) {
    this.queue.push(update);
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
    this.noteEvents(update.events || [], before || view);
    if (view.phase === "lobby") {
      this.shown = view;
      this.version = Number(update.version);
      await this.renderWaitingRoom(view);
      return;
    }
    const first = !before || before.phase === "lobby";
    const result = first ? null : handResult(before, view);
    const freshTrick = !first && trickKey(view.lastTrick) && trickKey(view.lastTrick) !== trickKey(before.lastTrick);
    if (freshTrick && before.phase === "play") this.noteTrick(view.lastTrick, view);
    this.version = Number(update.version);
    if (Number(update.version) > 0 && (update.events || []).length) this.refusal = "";
    if (view.phase !== "pass") this.selected = [];
    if (result) {
      // The finished hand stays on the felt, its last trick in the middle, under the summary.
      const last = result.lastTrick || (before.phase === "play" ? finalTrick(before, update.events || []) : null);
      this.shown = closingView(before, last, view.lastHand);
      this.centreTrick = last;
      this.render();
      if (last) await sleep(HOLD_MS);
      const firstNew = Math.min(...(update.events || []).map((e) => Number(e.version)), Infinity);
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

  noteEvents(events, view) {
    for (const event of events) {
      if (event.type === "CardsDealt" && !this.commitments.some(([v]) => v === Number(event.version))) {
        this.commitments.push([Number(event.version), event.dealCommitment || ""]);
      }
      // each pass is one line when the cards change hands, not three "chose a card" lines
      if (event.action && event.action.kind === "ACTION_KIND_GIVE") continue;
      // the server's sentence, with its "seat 2" said by the player's name
      const line = say(event.words, view);
      if (line) this.log.unshift(line);
    }
    this.log = this.log.slice(0, 60);
  }

  noteTrick(trick, view) {
    const cards = (trick.plays || []).map((p) => cardName(p.card)).join(" ");
    this.log.unshift(`${seatName(view, trick.winner)} took the trick (${cards})`);
  }

  // -- drawing -----------------------------------------------------------------------------

  gameName(view) {
    const game = this.games.find((g) => g.id === view.game);
    return game ? game.name : view.game;
  }

  me() {
    return this.shown && this.shown.seat !== undefined ? this.shown.seat : null;
  }

  render() {
    const view = this.shown;
    const summary = this.root.querySelector(".overlay.summary");
    this.root.innerHTML = "";
    this.root.appendChild(this.header(view));
    const felt = document.createElement("div");
    felt.className = `felt seats-${view.seatCount}`;
    (view.players || []).forEach((player) => felt.appendChild(this.seatBadge(view, player)));
    felt.appendChild(this.middle(view));
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
    if (this.sheetOpen) this.root.appendChild(this.scoreSheet(view));
    if (view.isOver && !summary) {
      this.root.appendChild(this.gameOver(view));
      if (this.dealCheck === null) this.checkDeals();
      if (this.held) forgetSeat(this.tableId);  // nothing left to rejoin
    }
    if (summary) this.root.appendChild(summary);
  }

  header(view) {
    const bar = document.createElement("div");
    bar.className = "table-bar";
    const chips = [];
    const trump = suitLetter(view.trump);
    if (view.turnedCard) chips.push(chip("turned up", inlineCard(view.turnedCard).outerHTML));
    if (trump) chips.push(chip("trump", suitChip(trump), "trump"));
    else if (view.trumpText && view.game !== "hearts" && view.game !== "crazy8s") chips.push(chip("trump", escape(view.trumpText), "trump"));
    const inForce = suitLetter(view.suitInForce);
    if (inForce && view.game === "crazy8s") chips.push(chip("suit to follow", suitChip(inForce), "in-force"));
    else if (inForce) chips.push(chip("suit led", suitChip(inForce), "in-force"));
    if (view.heartsBroken !== undefined && view.game === "hearts") {
      chips.push(chip("hearts", view.heartsBroken ? `<span class="red">♥</span> broken` : `<span class="red">♥</span> not broken`, view.heartsBroken ? "broken" : ""));
    }
    if (view.contract) chips.push(chip("contract", escape(say(view.contract, view))));
    if (view.passDirection && view.phase === "pass") chips.push(chip("pass", escape(view.passDirection)));
    if (view.stockCount !== undefined && view.game === "crazy8s") chips.push(chip("stock", `${view.stockCount} cards`));
    bar.innerHTML =
      `<div class="title"><strong>${escape(this.gameName(view))}</strong>` +
      `<span>hand ${view.handNumber || 1} · ${escape(phaseWords(view))}</span></div>` +
      `<div class="chips">${chips.join("")}</div>` +
      `<div class="tools"><button data-sheet aria-pressed="${this.sheetOpen}">Scores</button>` +
      `<button data-leave>Lobby</button></div>`;
    bar.querySelector("[data-sheet]").onclick = () => { this.sheetOpen = !this.sheetOpen; this.render(); };
    bar.querySelector("[data-leave]").onclick = () => this.onLeave();
    return bar;
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
    const where = this.place(view, seat, { x: window.innerWidth < 700 ? 33 : 40, y: 38 });
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
    badge.title = bot ? `${name}: a computer player (${bot[2]})` : name;
    const facts = [];
    if (player.bid) facts.push(`bid ${escape(say(player.bid, view))}`);
    if (view.phase === "play" || view.phase === "bid" || view.phase === "trump" || player.tricksTaken) {
      if (view.game !== "crazy8s") facts.push(`${player.tricksTaken || 0} trick${player.tricksTaken === 1 ? "" : "s"}`);
    }
    if (view.game === "hearts" && player.pointsThisHand) facts.push(`${player.pointsThisHand} this hand`);
    if (player.team !== undefined) {
      const partner = (view.players || []).find((p) => p.team === player.team && (p.seat || 0) !== seat);
      if (partner) facts.push(`partner ${escape(seatName(view, partner.seat || 0).replace(/ \(.*\)$/, ""))}`);
    }
    const backs = Math.min(player.handSize || 0, 7);
    const fan = mine ? "" : `<div class="backs" aria-hidden="true">${"<playing-card back></playing-card>".repeat(backs)}</div>`;
    badge.innerHTML =
      `${fan}<div class="nameplate">` +
      `<span class="name">${escape(name)}${mine ? " <em>(you)</em>" : ""}</span>` +
      (seat === view.dealer ? `<span class="dealer" title="dealer">D</span>` : "") +
      `<span class="score" title="score">${player.score || 0}</span></div>` +
      `<div class="facts"><span class="count">${player.handSize || 0} card${player.handSize === 1 ? "" : "s"}</span>` +
      `${facts.map((f) => `<span>${f}</span>`).join("")}</div>` +
      (toAct ? `<div class="turn">${player.away ? "bot playing…" : mine ? "your turn" : "thinking…"}${clockTag(player)}</div>` : "") +
      (player.away ? `<div class="away" title="the turn clock ran out: a computer player plays this seat until its player comes back">away (bot playing)</div>` : "");
    return badge;
  }

  middle(view) {
    const middle = document.createElement("div");
    middle.className = "middle";
    if (view.game === "crazy8s") {
      middle.classList.add("piles");
      const stock = document.createElement("div");
      stock.className = "pile";
      stock.appendChild(card(""));
      stock.insertAdjacentHTML("beforeend", `<span>${view.stockCount ?? 0} in the stock</span>`);
      const discard = document.createElement("div");
      discard.className = "pile";
      if (view.topCard) discard.appendChild(card(view.topCard));
      const inForce = suitLetter(view.suitInForce);
      discard.insertAdjacentHTML("beforeend", `<span>${inForce ? `follow ${SUIT_SYMBOL[inForce]} ${SUIT_WORD[inForce]}` : "top card"}</span>`);
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
    if (holding && trick.winner !== undefined) {
      middle.insertAdjacentHTML("beforeend", `<div class="taker">${escape(seatName(view, trick.winner, { you: true }))} ${trick.winner === this.me() ? "take" : "takes"} the trick</div>`);
      middle.classList.add("gathering");
    }
    if (!plays.length) this.onFelt = new Set();
    if (!plays.length && view.phase !== "play") {
      middle.insertAdjacentHTML("beforeend", `<div class="phase-note">${escape(this.centreWords(view))}</div>`);
    }
    return middle;
  }

  centreWords(view) {
    if (view.isOver) return "game over";
    if (view.phase === "pass") return passWords(view.passDirection);
    if (view.phase === "bid") return "bidding";
    if (view.phase === "trump") return "choosing trump";
    return phaseWords(view);
  }

  prompt(view) {
    const line = document.createElement("p");
    line.className = "prompt";
    line.id = "prompt";
    const me = this.me();
    const legal = view.legalActions || [];
    const waiting = (view.toAct || []).filter((s) => s !== me).map((s) => seatName(view, s));
    let text;
    const myPlayer = (view.players || []).find((p) => (p.seat || 0) === me);
    if (view.endReason === "END_REASON_ABANDONED") text = "Game over: abandoned (nobody played for too long); no winner.";
    else if (view.endReason === "END_REASON_EXPIRED") text = "This table expired: nobody started it in time.";
    else if (view.isOver) text = `Game over: ${joinNames((view.winners || []).map((s) => playerName(view, s)))} ${(view.winners || []).length > 1 ? "win" : "wins"}.`;
    else if (myPlayer && myPlayer.away) {
      text = "Your clock ran out: a computer player is playing for you. ";
      const back = document.createElement("button");
      back.className = "primary";
      back.dataset.back = "";
      back.textContent = "I'm back";
      back.onclick = () => this.takeSeatBack();
      line.textContent = text;
      line.appendChild(back);
      return line;
    }
    else if (me === null) text = `Watching. ${waiting.length ? `Waiting for ${joinNames(waiting)}.` : ""}`;
    else if (legal.length) text = this.yourTurnWords(view, legal);
    else if (waiting.length) text = `Waiting for ${joinNames(waiting)}…`;
    else text = "";
    line.textContent = text;
    if (legal.length && me !== null) line.classList.add("your-turn");
    if (legal.length && myPlayer && myPlayer.timeLeftMs) line.insertAdjacentHTML("beforeend", ` Time left:${clockTag(myPlayer)}`);
    if (view.phase === "play" && !(view.tricks || []).length && (view.receivedCards || []).length && me !== null) {
      line.insertAdjacentHTML("beforeend", ` <span class="hint">(dashed: the cards passed to you)</span>`);
    }
    return line;
  }

  yourTurnWords(view, legal) {
    const kinds = new Set(legal.map(KIND));
    if (kinds.has("ACTION_KIND_GIVE")) {
      const left = 3 - (view.passedCards || []).length;
      return `Your turn: choose ${left} card${left === 1 ? "" : "s"} to pass ${view.passDirection || ""}.`;
    }
    if (kinds.has("ACTION_KIND_BID")) return "Your turn: make your bid.";
    if (kinds.has("ACTION_KIND_NAME_TRUMP")) return "Your turn: name trump.";
    if (kinds.has("ACTION_KIND_PLAY")) {
      const led = suitLetter(view.suitInForce);
      return led && view.game !== "crazy8s" ? `Your turn: play a card (${SUIT_WORD[led]} were led).` : "Your turn: play a card.";
    }
    if (kinds.has("ACTION_KIND_DRAW")) return "Your turn: draw a card.";
    return "Your turn.";
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
          slot.title = `put ${cardWords(code)} back`;
          slot.setAttribute("aria-label", `put ${cardWords(code)} back in your hand`);
          slot.onclick = () => { this.selected = this.selected.filter((c) => c !== code); this.render(); };
        }
      }
      slots.push(slot);
    }
    const label = document.createElement("span");
    label.className = "tray-label";
    label.textContent = given.length === 3 ? `Passed ${view.passDirection}; waiting for the others` : `To pass ${view.passDirection}:`;
    tray.append(label, ...slots);
    if (given.length < 3) {
      const send = document.createElement("button");
      send.className = "primary";
      send.dataset.passSend = "";
      send.textContent = `Pass ${chosen.length === 3 ? "these three" : `${3 - chosen.length} more to choose`}`;
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
    const others = legal.filter((a) => !isCardAction(a) || this.chooser === a.action.card);
    const chosen = this.chooser ? legal.filter((a) => a.action.card === this.chooser) : [];
    const shown = chosen.length > 1 ? chosen : legal.filter((a) => !isCardAction(a));
    if (chosen.length > 1) {
      bar.dataset.chooser = this.chooser;
      bar.insertAdjacentHTML("beforeend", `<span>${escape(cardName(this.chooser))}: name a suit</span>`);
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
    void others;
    return bar;
  }

  suitChoice(action) {
    const letter = suitLetter(action.action.suit);
    return letter ? `${SUIT_SYMBOL[letter]} ${SUIT_WORD[letter]}` : action.label;
  }

  hand(view) {
    const row = document.createElement("div");
    row.className = "hand";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", "your hand");
    const legal = view.legalActions || [];
    const byCard = new Map();
    for (const action of legal.filter(isCardAction)) {
      if (!byCard.has(action.action.card)) byCard.set(action.action.card, []);
      byCard.get(action.action.card).push(action);
    }
    const passing = legal.some((a) => KIND(a) === "ACTION_KIND_GIVE");
    // cards picked or given to pass are shown apart, in the pass tray
    const apart = view.phase === "pass" ? [...this.selected, ...(view.passedCards || [])] : [];
    const cards = (view.hand || []).filter((code) => !apart.includes(code));
    row.style.setProperty("--n", String(Math.max(cards.length, 1)));
    const received = view.phase === "play" && !(view.tricks || []).length ? view.receivedCards || [] : [];
    for (const code of cards) {
      const actions = byCard.get(code) || [];
      const button = document.createElement("button");
      button.className = "hand-card";
      button.dataset.card = code;
      if (received.includes(code)) button.classList.add("received");
      const playable = actions.length > 0 && this.queue.length === 0;
      if (legal.length && !actions.length) button.classList.add("dim");
      if (playable) button.classList.add("legal");
      button.disabled = !playable;
      button.setAttribute("aria-label", `${cardWords(code)}${playable ? (passing ? ", pick to pass" : ", play") : ""}`);
      button.appendChild(card(code));
      button.onclick = () => {
        if (passing) {
          if (this.selected.length + (view.passedCards || []).length < 3) this.selected.push(code);
          this.render();
          this.focusHand();
        } else if (actions.length > 1) {
          this.chooser = code;
          this.render();
        } else {
          this.act(actions[0].id);
        }
      };
      row.appendChild(button);
    }
    return row;
  }

  focusHand() {
    const first = this.root.querySelector(".hand-card.legal");
    if (first) first.focus();
  }

  logPanel() {
    const panel = document.createElement("details");
    panel.className = "log";
    panel.open = this.logOpen ?? window.innerWidth > 900;
    panel.ontoggle = () => { this.logOpen = panel.open; };
    panel.innerHTML = `<summary>Table talk</summary><ol>${this.log.slice(0, 14).map((l) => `<li>${escape(l)}</li>`).join("")}</ol>`;
    return panel;
  }

  scoreSheet(view) {
    const sheet = document.createElement("div");
    sheet.className = "overlay sheet";
    const players = view.players || [];
    const head = players.map((p) => `<th>${escape(seatName(view, p.seat || 0))}</th>`).join("");
    const rows = (view.handScores || []).map((row, i) =>
      `<tr><th scope="row">${i + 1}</th>${players.map((p) => `<td>${(row.points || [])[p.seat || 0] ?? 0}</td>`).join("")}</tr>`).join("");
    const totals = players.map((p) => `<td>${(view.scores || [])[p.seat || 0] ?? p.score ?? 0}</td>`).join("");
    sheet.innerHTML = `<div class="overlay-card"><h2>Score sheet</h2><table class="result"><thead><tr><th>Hand</th>${head}</tr></thead>` +
      `<tbody>${rows || `<tr><td colspan="${players.length + 1}">No hand finished yet</td></tr>`}</tbody>` +
      `<tfoot><tr><th>Total</th>${totals}</tr></tfoot></table><button class="primary" data-close>Close</button></div>`;
    sheet.querySelector("[data-close]").onclick = () => { this.sheetOpen = false; this.render(); };
    return sheet;
  }

  gameOver(view) {
    const panel = document.createElement("div");
    panel.className = "overlay game-over";
    const winners = (view.winners || []).map((s) => playerName(view, s));
    const order = [...(view.players || [])].sort((a, b) => this.rank(view, a) - this.rank(view, b));
    const hands = (view.handScores || []).length;
    const abandoned = view.endReason === "END_REASON_ABANDONED";
    const headline = abandoned ? "Abandoned: no winner" : `${escape(joinNames(winners))} ${winners.length > 1 ? "win" : "wins"}!`;
    panel.innerHTML = `<div class="overlay-card"><h2>${headline}</h2>` +
      `<p class="end-reason">${escape(endWords(view))}</p>` +
      (view.endReason === "END_REASON_ROUNDS_PLAYED" ? "" : `<p class="muted">${escape(this.gameName(view))} is over after ${hands} hand${hands === 1 ? "" : "s"}.</p>`) +
      `<ol class="standings">${order.map((p) => `<li class="${(view.winners || []).includes(p.seat || 0) ? "won" : ""}">` +
        `<span>${escape(playerName(view, p.seat || 0))}${p.seat === this.me() ? " (you)" : ""}</span>` +
        `<strong>${(view.scores || [])[p.seat || 0] ?? p.score ?? 0}</strong></li>`).join("")}</ol>` +
      this.dealCheckHtml() +
      `<div class="buttons"><button data-sheet>Score sheet</button><button class="primary" data-lobby>Back to the lobby</button></div></div>`;
    panel.querySelector("[data-sheet]").onclick = () => { this.sheetOpen = true; this.render(); };
    panel.querySelector("[data-lobby]").onclick = () => this.onLeave();
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
      this.dealCheck = { ok: false, failure: `the replay could not be read (${error.message})`, checks: [] };
    }
    const box = this.root.querySelector(".deal-check");
    if (box) box.outerHTML = this.dealCheckHtml();
  }

  dealCheckHtml() {
    const check = this.dealCheck;
    if (!check || check === "checking") return `<div class="deal-check pending">Checking the deals…</div>`;
    if (!check.ok) {
      return `<div class="deal-check failed" role="alert"><strong>✗ Deal check failed:</strong> ${escape(check.failure || "no committed deal to check")}</div>`;
    }
    const what = check.entropy ? " (dealt from the server's seed and the players' contributions)" : "";
    const count = check.verified === 1 ? "The deal was" : `All ${check.verified} deals were`;
    return `<div class="deal-check verified"><strong>✓ ${count} verified${escape(what)}</strong>` +
      `<ul>${check.checks.map((line) => `<li>${escape(line)}</li>`).join("")}</ul></div>`;
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
      this.flash(say(error.message, this.shown));
    }
  }

  async act(id) {
    if (this.sending) return;
    this.sending = true;
    this.flash("");
    try {
      const answer = await rpc("PlayService/Act", {
        tableId: this.tableId, seat: this.held.seat, expectedVersion: this.version,
        requestId: crypto.randomUUID(), legalActionId: id,
      }, { seat: this.held.token });
      return answer;
    } catch (error) {
      this.flash(say(error.message, this.shown));
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
        if (!action) throw new ApiError("FAILED_PRECONDITION", `${cardName(code)} can no longer be passed`);
        const answer = await rpc("PlayService/Act", {
          tableId: this.tableId, seat: this.held.seat, expectedVersion: version,
          requestId: crypto.randomUUID(), legalActionId: action.id,
        }, { seat: this.held.token });
        view = answer.view;
        version = Number(answer.version);
      }
      this.selected = [];
    } catch (error) {
      this.flash(say(error.message, this.shown));
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
    if (!this.shown || event.target.tagName === "INPUT") return;
    const cards = [...this.root.querySelectorAll(".hand-card")];
    const at = cards.indexOf(document.activeElement);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      const step = event.key === "ArrowRight" ? 1 : -1;
      const enabled = cards.filter((c) => !c.disabled);
      if (!enabled.length) return;
      const from = at < 0 ? -1 : enabled.indexOf(document.activeElement);
      enabled[(from + step + enabled.length) % enabled.length].focus();
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
    this.root.innerHTML =
      `<div class="panel waiting"><h2>${escape(this.gameName(view))}: waiting for players</h2>` +
      `<p class="muted">${filled} of ${seats.length || view.seatCount} seats taken</p>` +
      `<ol class="seat-list">${seats.map((s) =>
        `<li class="${s.occupied ? "taken" : "open"}" data-seat="${s.seat || 0}"><span class="seat-no">${(s.seat || 0) + 1}</span>` +
        `<span>${s.occupied ? escape(s.playerName || "a player") : "open seat: waiting for a friend…"}</span>` +
        `${s.kind === "SEAT_KIND_BOT" ? `<em>computer, ${escape(s.botLevel)}</em>` : ""}` +
        `${this.held && this.held.seat === (s.seat || 0) ? "<em>you</em>" : ""}</li>`).join("")}</ol>` +
      (options.length ? `<p class="muted">${options.map(([k, v]) => `${escape(optionLabel(k))}: ${escape(optionValue(v))}`).join(" · ")}</p>` : "") +
      `<label class="invite">Invite a friend with this link <input readonly value="${escape(invite)}"></label>` +
      `<p class="muted">Table ${escape(this.tableId)}</p>` +
      (host
        ? `<button class="primary" data-start ${filled === seats.length && seats.length ? "" : "disabled"}>Start the game</button>` +
          `<p class="muted">${filled === seats.length ? "Every seat is taken." : "You can start once every seat is taken."}</p>`
        : `<p class="muted">The host starts the game once every seat is taken.</p>`) +
      `<p class="refusal" role="alert"></p><button data-leave>Back to the lobby</button></div>`;
    const start = this.root.querySelector("[data-start]");
    if (start) {
      start.onclick = async () => {
        start.disabled = true;
        try { await rpc("LobbyService/StartTable", { tableId: this.tableId }, { host: this.held.hostToken }); }
        catch (error) { this.flash(say(error.message, view)); start.disabled = false; }
      };
    }
    this.root.querySelector("[data-leave]").onclick = () => this.onLeave();
  }
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
  return `<span class="${red ? "red" : "black"} suit">${SUIT_SYMBOL[letter]}</span> ${SUIT_WORD[letter]}`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// -- turn clocks -----------------------------------------------------------------------------

/** A ticking "12 s" for a seat whose turn clock runs (its end is counted on this
 * browser's clock from the view's time_left_ms, so the two clocks need not agree). */
function clockTag(player) {
  const left = Number(player.timeLeftMs || 0);
  if (!left) return "";
  return ` <span class="clock" data-until="${Date.now() + left}" title="time left for this turn">${Math.ceil(left / 1000)} s</span>`;
}

setInterval(() => {
  for (const tag of document.querySelectorAll(".clock[data-until]")) {
    const left = Math.max(0, Number(tag.dataset.until) - Date.now());
    tag.textContent = `${Math.ceil(left / 1000)} s`;
    tag.classList.toggle("short", left < 5000);
  }
}, 250);
