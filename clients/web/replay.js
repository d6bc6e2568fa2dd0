// The replay viewer: #/replay/ID (or #/replay/ID/SEQ, opened at that step).
// It steps through a table's game move by move, trick by trick and hand by
// hand, or plays it at a pace. It holds no rules: every position is the View
// the server's own engine folded the log to (ReplayService.GetReplayHand),
// one hand at a time; once the game is over every seat's cards come with it,
// while it is on only what this browser's seat (or a spectator) saw. The hand
// summaries are summary.js's, the deal check fairdeal.js's, as at the table.
// "Play on from here" forks the position into a new table (ForkTable). Once
// the game is over the expert's look (analysis.js) can be asked for: its note
// beside each judged move, its choice of card marked in the seat's hand.
import { Expert } from "./analysis.js";
import { rpc, saveSeat, savedSeats } from "./api.js";
import { card, inlineCard } from "./cards.js";
import { verifyDeals } from "./fairdeal.js";
import { lang, t } from "./i18n.js";
import { describeHand, endWords, escape, playerName } from "./summary.js";
import { SUIT_SYMBOL, gameText, joinNames, phaseWords, refusalWords, say, seatName, suitLetter, suitWord } from "./words.js";

/** The paces a replay plays at: milliseconds a step. */
export const PACES = [2000, 1000, 500];

function stylesheet() {
  if (document.querySelector("link[data-replay-css]")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/static/replay.css";
  link.dataset.replayCss = "";
  document.head.appendChild(link);
}

export class ReplayScreen {
  constructor(root, tableId, games, { onLeave, onOpenTable, at = 0 }) {
    stylesheet();
    this.root = root;
    this.tableId = tableId;
    this.games = games;
    this.onLeave = onLeave;
    this.onOpenTable = onOpenTable;
    this.held = savedSeats()[tableId] || null;  // this browser's seat there, if it kept one
    this.hands = new Map();  // hand number -> GetReplayHand's answer
    this.index = [];         // every hand: { hand, firstSeq, lastSeq, steps }
    this.hand = 1;
    this.step = 0;
    this.timer = null;
    this.pace = PACES[1];
    this.dealCheck = null;
    this.message = "";
    this.expert = new Expert(tableId, { seat: this.held && this.held.token }, () => this.redraw());
    this.root.className = "replay-screen";
    this.root.innerHTML = `<div class="panel notice"><p class="muted">${escape(t("replay.loading"))}</p></div>`;
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
    this.open(Number(at) || 0);
  }

  close() {
    this.pause();
    this.expert.close();
    document.removeEventListener("keydown", this.keys);
  }

  redraw() {
    if (this.current()) this.render();
    this.expert.relabel();
  }

  // -- reading the log ---------------------------------------------------------------------

  async fetchHand(hand) {
    if (this.hands.has(hand)) return this.hands.get(hand);
    const request = { tableId: this.tableId, hand };
    if (this.held && this.held.seat !== undefined) request.seat = this.held.seat;
    const answer = await rpc("ReplayService/GetReplayHand", request, { seat: this.held && this.held.token });
    answer.steps = answer.steps || [];
    this.index = (answer.hands || []).map((h) => ({ hand: h.hand, firstSeq: Number(h.firstSeq), lastSeq: Number(h.lastSeq), steps: h.steps }));
    this.finished = answer.finished;
    this.public = answer.public;
    this.game = answer.game;
    this.name = answer.name;
    this.hands.set(answer.hand, answer);
    return answer;
  }

  async open(at) {
    try {
      const answer = await this.fetchHand(0);
      this.hand = answer.hand;
      if (at) await this.seek(at);
      this.render();
      if (this.finished) { this.checkDeals(); this.expert.load(); }
    } catch (error) {
      this.fatal(error);
    }
  }

  /** Moves to the step whose event is ``seq`` (if a hand holds it), without drawing. */
  async seek(seq) {
    const holding = this.index.find((h) => seq >= h.firstSeq && seq <= h.lastSeq);
    if (!holding) return;
    const answer = await this.fetchHand(holding.hand);
    this.hand = holding.hand;
    this.step = Math.max(0, answer.steps.findIndex((s) => Number(s.seq) === seq));
  }

  /** Goes to the step whose event is ``seq`` (a judged move) and draws it. */
  async goToSeq(seq) {
    this.pause();
    try {
      await this.seek(seq);
      this.message = "";
    } catch (error) {
      this.message = refusalWords(error, null);
    }
    this.render();
    const note = this.root.querySelector(".expert-note");
    if (note) { note.tabIndex = -1; note.focus(); note.scrollIntoView({ block: "center" }); }
  }

  fatal(error) {
    this.root.innerHTML = `<div class="panel notice"><h2>${escape(t("replay.cannot_open"))}</h2><p>${escape(refusalWords(error, null))}</p>` +
      `<button class="primary" data-lobby>${escape(t("back_to_lobby"))}</button></div>`;
    this.root.querySelector("[data-lobby]").onclick = () => this.onLeave();
  }

  async checkDeals() {
    this.dealCheck = "checking";
    try {
      const replay = await rpc("ReplayService/GetReplay", { tableId: this.tableId }, { seat: this.held && this.held.token });
      this.dealCheck = verifyDeals(replay);
    } catch (error) {
      this.dealCheck = { ok: false, failure: { key: "deal.unreadable", args: { why: refusalWords(error, null) } }, checks: [] };
    }
    const box = this.root.querySelector(".deal-check");
    if (box) box.outerHTML = this.dealCheckHtml();
  }

  current() {
    const answer = this.hands.get(this.hand);
    return answer ? answer.steps[this.step] : null;
  }

  // -- moving ------------------------------------------------------------------------------

  /** Goes to step ``step`` of hand ``hand`` (the last step when ``step`` is -1). */
  async goTo(hand, step) {
    try {
      const answer = await this.fetchHand(hand);
      this.hand = hand;
      this.step = step < 0 ? answer.steps.length - 1 : Math.min(step, answer.steps.length - 1);
      this.message = "";
      this.render();
    } catch (error) {
      this.message = refusalWords(error, null);
      this.render();
    }
  }

  steps() { return (this.hands.get(this.hand) || { steps: [] }).steps; }

  lastHand() { return this.index.length ? this.index[this.index.length - 1].hand : 1; }

  atEnd() { return this.hand === this.lastHand() && this.step >= this.steps().length - 1; }

  forward() {
    if (this.step < this.steps().length - 1) return this.goTo(this.hand, this.step + 1);
    if (this.hand < this.lastHand()) return this.goTo(this.hand + 1, 0);
    this.pause();
    return null;
  }

  back() {
    if (this.step > 0) return this.goTo(this.hand, this.step - 1);
    if (this.hand > 1) return this.goTo(this.hand - 1, -1);
    return null;
  }

  /** The steps of this hand at which a trick was just completed. */
  trickEnds() {
    const steps = this.steps();
    return steps.map((s, i) => [i, tricksDone(s.view) > (i ? tricksDone(steps[i - 1].view) : 0)]).filter(([, done]) => done).map(([i]) => i);
  }

  nextTrick() {
    const next = this.trickEnds().find((i) => i > this.step);
    if (next !== undefined) return this.goTo(this.hand, next);
    if (this.step < this.steps().length - 1) return this.goTo(this.hand, this.steps().length - 1);
    return this.forward();
  }

  previousTrick() {
    const before = this.trickEnds().filter((i) => i < this.step);
    if (before.length) return this.goTo(this.hand, before[before.length - 1]);
    if (this.step > 0) return this.goTo(this.hand, 0);
    return this.back();
  }

  play() {
    if (this.timer) return;
    if (this.atEnd()) this.goTo(1, 0);
    this.timer = setInterval(() => { this.forward(); }, this.pace);
    this.render();
  }

  pause() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    const button = this.root.querySelector("[data-play]");
    if (button) { button.textContent = t("replay.play"); button.setAttribute("aria-pressed", "false"); }
  }

  key(event) {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    const moves = { ArrowRight: () => this.forward(), ArrowLeft: () => this.back(), ArrowUp: () => this.previousTrick(), ArrowDown: () => this.nextTrick() };
    if (moves[event.key]) { event.preventDefault(); moves[event.key](); }
    else if (event.key === " ") { event.preventDefault(); if (this.timer) this.pause(); else this.play(); }
  }

  async fork() {
    const step = this.current();
    const choice = this.root.querySelector("#fork-seat");
    const seat = choice ? Number(choice.value) : 0;
    try {
      const made = await rpc("ReplayService/ForkTable", { tableId: this.tableId, at: step.seq, seat }, { seat: this.held && this.held.token });
      const name = playerName(step.view, seat);
      saveSeat(made.table.tableId, { seat: made.seat || 0, token: made.seatToken, hostToken: made.hostToken, name, game: made.table.game });
      this.onOpenTable(made.table.tableId);
    } catch (error) {
      this.message = refusalWords(error, step.view);
      this.render();
    }
  }

  // -- drawing -----------------------------------------------------------------------------

  gameName() {
    const game = this.games.find((g) => g.id === this.game);
    return game ? gameText(game, "name") : this.game;
  }

  render() {
    const step = this.current();
    if (!step) return;
    const view = step.view;
    const focused = document.activeElement && document.activeElement.dataset ? Object.keys(document.activeElement.dataset)[0] : null;
    const link = `${location.origin}${location.pathname}#/replay/${this.tableId}`;
    const steps = this.steps();
    history.replaceState(null, "", `#/replay/${this.tableId}/${step.seq}`);
    this.root.innerHTML =
      `<div class="replay-bar"><div class="title"><h2>${escape(t("replay.title", { game: this.gameName() }))}</h2>` +
      `<span class="muted">${escape(this.name || "")}</span></div>` +
      `<p class="where" aria-live="polite">${escape(t("replay.where", { hand: this.hand, hands: this.lastHand(), step: this.step + 1, steps: steps.length }))}</p></div>` +
      this.controls() +
      `<div class="replay-move"><p class="said" data-said>${escape(say(step.event.words || step.event.text || "", view))}</p>` +
      `${this.expert.noteHtml(step.seq, view)}</div>` +
      `<div class="replay-felt seats-${view.seatCount || 4}"></div>` +
      `<p class="refusal" role="alert">${escape(this.message)}</p>` +
      this.summaryHtml(step) +
      this.overHtml(step) +
      this.expert.panelHtml(this.finished, view) +
      this.forkHtml(step) +
      this.shareHtml(link);
    this.root.querySelector(".replay-felt").append(this.middle(view, step), this.seats(step));
    this.wire();
    if (focused) {
      const again = this.root.querySelector(`[data-${focused.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`);
      if (again && !again.disabled) again.focus();
    }
  }

  controls() {
    const first = this.hand === 1 && this.step === 0;
    const last = this.atEnd();
    const hands = this.index.map((h) => `<option value="${h.hand}"${h.hand === this.hand ? " selected" : ""}>${escape(t("replay.hand_n", { n: h.hand }))}</option>`).join("");
    const paces = PACES.map((ms) => `<option value="${ms}"${ms === this.pace ? " selected" : ""}>${escape(t("replay.pace_s", { s: (ms / 1000).toLocaleString(lang()) }))}</option>`).join("");
    const button = (data, label, words, disabled) => `<button data-${data} aria-label="${escape(words)}" title="${escape(words)}"${disabled ? " disabled" : ""}>${label}</button>`;
    return `<div class="replay-controls" role="toolbar" aria-label="${escape(t("replay.controls"))}">` +
      `<div class="steps">` +
      button("first", "|◀", t("replay.first_label"), first) +
      button("trick-back", "◀◀", t("replay.trick_back_label"), first) +
      button("back", "◀", t("replay.back_label"), first) +
      `<button class="primary" data-play aria-pressed="${Boolean(this.timer)}">${escape(this.timer ? t("replay.pause") : t("replay.play"))}</button>` +
      button("forward", "▶", t("replay.forward_label"), last) +
      button("trick-forward", "▶▶", t("replay.trick_forward_label"), last) +
      button("last", "▶|", t("replay.last_label"), last) +
      `</div><div class="jumps">` +
      `<label>${escape(t("replay.jump"))} <select data-hand>${hands}</select></label>` +
      `<label>${escape(t("replay.pace"))} <select data-pace>${paces}</select></label></div>` +
      `<p class="muted keys">${escape(t("replay.keys"))}</p></div>`;
  }

  wire() {
    const on = (name, action) => { const el = this.root.querySelector(`[data-${name}]`); if (el) el.onclick = action; };
    on("first", () => this.goTo(1, 0));
    on("back", () => this.back());
    on("forward", () => this.forward());
    on("trick-back", () => this.previousTrick());
    on("trick-forward", () => this.nextTrick());
    on("last", () => this.goTo(this.lastHand(), -1));
    on("play", () => (this.timer ? this.pause() : this.play()));
    on("fork", () => this.fork());
    on("lobby", () => this.onLeave());
    on("expert-ask", () => this.expert.ask());
    this.root.querySelectorAll("[data-expert-jump]").forEach((button) => {
      button.onclick = () => this.goToSeq(Number(button.dataset.expertJump));
    });
    on("copy", async () => {
      const field = this.root.querySelector(".share input");
      const note = this.root.querySelector(".copied");
      try { await navigator.clipboard.writeText(field.value); note.textContent = t("waiting.copied"); }
      catch { field.select(); note.textContent = t("waiting.copy_by_hand"); }
    });
    this.root.querySelector("[data-hand]").onchange = (event) => this.goTo(Number(event.target.value), 0);
    this.root.querySelector("[data-pace]").onchange = (event) => {
      this.pace = Number(event.target.value);
      if (this.timer) { this.pause(); this.play(); }
    };
  }

  middle(view, step) {
    const middle = document.createElement("div");
    middle.className = "replay-middle";
    if (view.game === "crazy8s") {
      if (view.topCard) middle.appendChild(card(view.topCard));
      const inForce = suitLetter(view.suitInForce);
      middle.insertAdjacentHTML("beforeend", `<p>${escape(inForce ? t("crazy8s.follow", { symbol: SUIT_SYMBOL[inForce], suit: suitWord(inForce) }) : t("crazy8s.top_card"))}</p>` +
        `<p class="muted">${escape(t("crazy8s.in_stock", { count: view.stockCount ?? 0 }))}</p>`);
      return middle;
    }
    const facts = [];
    if (view.turnedCard) facts.push(`${escape(t("chip.turned_up"))} ${inlineCard(view.turnedCard).outerHTML}`);
    const trump = suitLetter(view.trump);
    if (trump) facts.push(`${escape(t("chip.trump"))} <span class="suit-${trump}">${SUIT_SYMBOL[trump]}</span> ${escape(suitWord(trump))}`);
    // (the Kaiser contract is the bidders' bid beside their name and the trump here)
    if (facts.length) middle.insertAdjacentHTML("beforeend", `<p class="replay-facts">${facts.map((f) => `<span class="chip">${f}</span>`).join(" ")}</p>`);
    const justDone = step.event.type === "ActionTaken" && !(view.currentTrick && (view.currentTrick.plays || []).length) && view.lastTrick;
    const trick = justDone ? view.lastTrick : view.currentTrick;
    const plays = (trick && trick.plays) || [];
    if (!plays.length) {
      middle.insertAdjacentHTML("beforeend", `<p class="phase-note">${escape(view.isOver ? t("phase.over") : phaseWords(view))}</p>`);
      return middle;
    }
    const row = document.createElement("ol");
    row.className = "trick";
    row.setAttribute("aria-label", t("replay.trick"));
    for (const play of plays) {
      const cell = document.createElement("li");
      const won = justDone && trick.winner === (play.seat || 0);
      if (won) cell.className = "winner";
      cell.appendChild(card(play.card));
      cell.insertAdjacentHTML("beforeend", `<small>${escape(seatName(view, play.seat || 0))}</small>`);
      row.appendChild(cell);
    }
    middle.appendChild(row);
    if (justDone && trick.winner !== undefined) middle.insertAdjacentHTML("beforeend", `<p class="taker">${escape(t("trick.takes", { name: seatName(view, trick.winner) }))}</p>`);
    return middle;
  }

  seats(step) {
    const view = step.view;
    const list = document.createElement("ul");
    list.className = "replay-seats";
    const toAct = new Set(view.toAct || []);
    const best = this.expert.bestAt(step.seq);
    for (const player of view.players || []) {
      const seat = player.seat || 0;
      const cards = step.hands.length ? (step.hands[seat] || {}).cards || [] : seat === view.seat ? view.hand || [] : [];
      const item = document.createElement("li");
      item.className = `replay-seat${toAct.has(seat) ? " to-act" : ""}`;
      item.dataset.seat = seat;
      const facts = [t("seat.score") + ": " + (player.score || 0)];
      if (view.game !== "crazy8s") facts.push(t("facts.tricks", { count: player.tricksTaken || 0 }));
      if (player.bid === "pass") facts.push(t("facts.passed"));
      else if (player.bid) facts.push(t("facts.bid", { bid: say(player.bid, view) }));
      item.innerHTML = `<div class="who"><strong>${escape(seatName(view, seat))}</strong>` +
        (seat === view.dealer ? ` <span class="dealer" title="${escape(t("seat.dealer"))}">${escape(t("seat.dealer_mark"))}</span>` : "") +
        (player.away ? ` <em>${escape(t("seat.away"))}</em>` : "") +
        `<span class="muted"> ${facts.map(escape).join(" · ")}</span></div>`;
      const fan = document.createElement("div");
      fan.className = "fan";
      const marked = best && !best.same && best.seat === seat ? best.cards : [];
      if (cards.length) cards.forEach((code) => fan.appendChild(marked.includes(code) ? expertCard(code) : card(code)));
      else fan.insertAdjacentHTML("beforeend", `<span class="muted">${escape(t("cards.count", { count: player.handSize || 0 }))}</span>`);
      item.appendChild(fan);
      list.appendChild(item);
    }
    return list;
  }

  /** The hand's summary at the step that ended it (summary.js says it, as at the table). */
  summaryHtml(step) {
    const view = step.view;
    const last = view.lastHand;
    // the hand's last step (its last trick taken; the game's last hand: the end)
    if (!last || last.handNumber !== this.hand || this.step !== this.steps().length - 1) return "";
    const result = describeHand(view, last, [...(view.tricks || [])]);
    const head = result.columns.map(([, label]) => `<th scope="col">${escape(label)}</th>`).join("");
    const rows = result.rows.map((row) => `<tr><th scope="row">${escape(row.name)}</th>` +
      result.columns.map(([key]) => `<td>${escape(row[key] ?? "")}</td>`).join("") + "</tr>").join("");
    return `<section class="panel replay-summary" aria-labelledby="replay-summary-title"><h3 id="replay-summary-title">${escape(t("summary.title", { n: result.hand }))}</h3>` +
      `<p class="muted">${escape(t("summary.dealt_by", { name: result.dealer }))}</p>` +
      `<div class="result-wrap"><table class="result"><thead><tr><th scope="col">${escape(t("col.player"))}</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>` +
      (result.lines.length ? `<ul class="result-lines">${result.lines.map((l) => `<li>${escape(l)}</li>`).join("")}</ul>` : "") + "</section>";
  }

  overHtml(step) {
    const view = step.view;
    if (!view.isOver) return "";
    const winners = (view.winners || []).map((s) => playerName(view, s));
    const headline = view.endReason === "END_REASON_ABANDONED" ? t("over.abandoned") : t("over.wins", { names: joinNames(winners), count: winners.length });
    return `<section class="panel replay-over" aria-labelledby="replay-over-title"><h3 id="replay-over-title">${escape(headline)}</h3>` +
      `<p>${escape(endWords(view))}</p>${this.dealCheckHtml()}</section>`;
  }

  dealCheckHtml() {
    const check = this.dealCheck;
    if (!this.finished) return "";
    if (!check || check === "checking") return `<div class="deal-check pending">${escape(t("deal.checking"))}</div>`;
    const words = (item) => t(item.key, item.args);
    if (!check.ok) {
      const why = check.failure ? words(check.failure) : t("deal.none");
      return `<div class="deal-check failed" role="alert"><strong>${escape(t("deal.failed"))}</strong> ${escape(why)}</div>`;
    }
    const headline = check.entropy ? t("deal.verified_entropy", { count: check.verified }) : t("deal.verified", { count: check.verified });
    return `<div class="deal-check verified"><strong>${escape(headline)}</strong><ul>${check.checks.map((line) => `<li>${escape(words(line))}</li>`).join("")}</ul></div>`;
  }

  forkHtml(step) {
    if (!this.finished) return `<p class="muted fork-note">${escape(t("replay.fork_after_end"))}</p>`;
    const view = step.view;
    const mine = this.held && this.held.seat !== undefined ? this.held.seat : 0;
    const seats = (view.players || []).map((p) => `<option value="${p.seat || 0}"${(p.seat || 0) === mine ? " selected" : ""}>${escape(seatName(view, p.seat || 0))}</option>`).join("");
    const over = view.isOver;
    return `<section class="panel replay-fork" aria-labelledby="replay-fork-title"><h3 id="replay-fork-title">${escape(t("replay.fork_title"))}</h3>` +
      `<p class="muted">${escape(over ? t("replay.fork_over") : t("replay.fork_about"))}</p>` +
      `<div class="buttons"><label>${escape(t("replay.fork_as"))} <select id="fork-seat">${seats}</select></label>` +
      `<button class="primary" data-fork${over ? " disabled" : ""}>${escape(t("replay.fork"))}</button></div></section>`;
  }

  shareHtml(link) {
    const words = this.public ? t("replay.share_public") : t("replay.share_private");
    return `<section class="panel replay-share"><label class="share">${escape(t("replay.share"))} <input readonly value="${escape(link)}"></label>` +
      `<p class="muted">${escape(words)}</p>` +
      `<div class="buttons"><button data-copy>${escape(t("waiting.copy"))}</button><span class="copied" role="status"></span>` +
      `<button data-lobby>${escape(t("back_to_lobby"))}</button></div></section>`;
  }
}

/** A card of the hand that the expert would have played (or passed): outlined and labelled. */
function expertCard(code) {
  const mark = document.createElement("span");
  mark.className = "expert-best";
  mark.appendChild(card(code));
  mark.insertAdjacentHTML("beforeend", `<small>${escape(t("expert.best_card"))}</small>`);
  return mark;
}

/** How many tricks of the hand are complete in ``view``. */
function tricksDone(view) {
  return (view.tricks || []).length;
}
