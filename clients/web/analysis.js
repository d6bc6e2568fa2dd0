// The expert's look over a finished game (issue 35), for the replay viewer:
// the panel that asks for it (AnalysisService.RequestAnalysis) and follows it
// while the AI workers judge (GetAnalysis every two seconds while it is queued
// or running), then each person's summary with its biggest mistakes (buttons
// that take the viewer to that move), the note beside each judged move (the
// move played and the expert's, their expected points with intervals, the
// points given away, a mark on a mistake) and the expert's cards to draw on
// the table. The judging is the workers'; this module only says it.
import { ApiError, rpc } from "./api.js";
import { escape } from "./summary.js";
import { lang, t } from "./i18n.js";
import { refusalWords, say, seatName } from "./words.js";

/** How often a queued or running analysis is asked after, in milliseconds. */
export const POLL_MS = 2000;

/** Refusals that asking again will not change. */
const FOR_GOOD = ["PERMISSION_DENIED", "NOT_FOUND", "UNAUTHENTICATED", "INVALID_ARGUMENT", "FAILED_PRECONDITION"];

const STATE = {
  ANALYSIS_STATE_QUEUED: "queued",
  ANALYSIS_STATE_RUNNING: "running",
  ANALYSIS_STATE_DONE: "done",
  ANALYSIS_STATE_FAILED: "failed",
};

/** A number of points in the page's language, to one decimal ("2.5", "2,5"). */
export function points(value) {
  return Number(value || 0).toLocaleString(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** The cards an action names ("play QS": QS; a Hearts pass: its three). */
export function actionCards(action) {
  if (!action) return [];
  return [action.card, ...(action.moreCards || [])].filter(Boolean);
}

export class Expert {
  /** ``tokens``: the replay's ({ seat }); ``onChange()``: redraw the viewer. */
  constructor(tableId, tokens, onChange) {
    this.tableId = tableId;
    this.tokens = tokens;
    this.onChange = onChange;
    this.state = "unknown";  // unknown | none | asking | queued | running | done | failed
    this.analysis = null;
    this.problem = "";
    this.language = lang();
    this.timer = null;
    this.closed = false;
    this.bySeq = new Map();
  }

  /** Reads what there is (once the game is over): an analysis asked for before, or none. */
  async load() {
    try {
      const answer = await rpc("AnalysisService/GetAnalysis", { tableId: this.tableId }, this.tokens);
      this.take(answer.analysis);
    } catch (error) {
      this.state = "none";  // nobody asked yet (NO_ANALYSIS), or it cannot be read: the button
      if (!(error instanceof ApiError && error.reason === "NO_ANALYSIS")) this.problem = refusalWords(error, null);
      this.changed();
    }
  }

  async ask() {
    this.state = "asking";
    this.problem = "";
    this.changed();
    try {
      const answer = await rpc("AnalysisService/RequestAnalysis", { tableId: this.tableId }, this.tokens);
      this.take(answer.analysis);
    } catch (error) {
      this.state = "none";
      this.problem = refusalWords(error, null);
      this.changed();
    }
  }

  take(analysis) {
    if (this.closed) return;
    const before = this.state;
    this.analysis = analysis || {};
    this.language = lang();
    this.state = STATE[this.analysis.state] || "queued";
    this.bySeq = new Map((this.analysis.decisions || []).map((d) => [Number(d.seq), d]));
    // a poll that finds it still queued (or still running) leaves the page alone
    if (this.state !== before || this.state === "done" || this.problem) { this.problem = ""; this.changed(); }
    clearTimeout(this.timer);
    if (this.state === "queued" || this.state === "running") this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  async poll() {
    if (this.closed) return;
    try {
      const answer = await rpc("AnalysisService/GetAnalysis", { tableId: this.tableId }, this.tokens);
      this.take(answer.analysis);
    } catch (error) {
      this.problem = refusalWords(error, null);
      this.changed();
      // a lost connection is asked again; a refusal for good (the replay closed to us) is not
      if (!this.closed && !FOR_GOOD.includes(error.code)) this.timer = setTimeout(() => this.poll(), POLL_MS);
    }
  }

  /** The viewer closed: no more asking. */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** The page's language changed: the moves' labels (the server's words) are read again. */
  relabel() {
    if (this.state === "done" && this.language !== lang()) this.poll();
  }

  changed() { if (!this.closed) this.onChange(); }

  /** The judged decision whose ActionTaken event is ``seq``, if any. */
  decision(seq) { return this.state === "done" ? this.bySeq.get(Number(seq)) || null : null; }

  /** { seat, cards } of the expert's choice at the step ``seq`` (cards: none for a bid or a suit). */
  bestAt(seq) {
    const decision = this.decision(seq);
    if (!decision || !decision.best) return null;
    return { seat: decision.seat || 0, cards: actionCards(decision.best.action), same: sameMove(decision) };
  }

  // -- drawing -----------------------------------------------------------------------------

  /** The panel: the button, the state, and once done each person's summary. */
  panelHtml(finished, view) {
    const head = `<section class="panel replay-expert" aria-labelledby="replay-expert-title" aria-busy="${this.state === "queued" || this.state === "running" || this.state === "asking"}">` +
      `<h3 id="replay-expert-title">${escape(t("expert.title"))}</h3>`;
    if (!finished) return `${head}<p class="muted">${escape(t("expert.after_end"))}</p></section>`;
    const problem = this.problem ? `<p class="refusal" role="alert">${escape(this.problem)}</p>` : "";
    const status = (key, args) => `<p class="expert-state" role="status">${escape(t(key, args))}</p>`;
    let body = "";
    if (this.state === "unknown") body = status("expert.reading");
    else if (this.state === "none") {
      body = `<p class="muted">${escape(t("expert.about"))}</p>` +
        `<div class="buttons"><button class="primary" data-expert-ask>${escape(t("expert.ask"))}</button></div>`;
    } else if (this.state === "asking") body = status("expert.asking");
    else if (this.state === "queued") body = status("expert.queued");
    else if (this.state === "running") body = status("expert.running");
    else if (this.state === "failed") {
      // asking again queues a failed analysis afresh
      body = `<p class="expert-state failed" role="alert">${escape(t("expert.failed", { why: this.analysis.error || t("expert.no_reason") }))}</p>` +
        `<div class="buttons"><button data-expert-ask>${escape(t("expert.ask_again"))}</button></div>`;
    } else body = this.summaryHtml(view);
    return `${head}${body}${problem}</section>`;
  }

  summaryHtml(view) {
    const analysis = this.analysis;
    const way = analysis.higherIsBetter ? t("expert.more_is_better") : t("expert.fewer_is_better");
    const facts = t("expert.facts", { budget: Number(analysis.budget || 0).toLocaleString(lang()), threshold: points(analysis.threshold) });
    const summaries = analysis.summaries || [];
    if (!summaries.length) return `<p class="expert-state" role="status">${escape(t("expert.nothing"))}</p>`;
    const count = (n) => escape(Number(n || 0).toLocaleString(lang()));
    const rows = summaries.map((s) => `<tr><th scope="row">${escape(seatName(view, s.seat || 0))}</th>` +
      `<td>${count(s.decisions)}</td><td>${escape(points(s.givenAway))}</td><td>${count(s.marked)}</td></tr>`).join("");
    // each person's costliest moves below the table, as buttons to their step (a column
    // of buttons would squeeze the table at phone width)
    const biggest = summaries.map((s) => {
      const name = seatName(view, s.seat || 0);
      const buttons = (s.biggestMistakes || []).map((seq) => this.mistakeButton(view, Number(seq))).join("");
      return `<div class="expert-biggest" role="group" aria-label="${escape(t("expert.biggest_of", { name }))}">` +
        `<h4>${escape(t("expert.biggest_of", { name }))}</h4>` +
        (buttons ? `<div class="expert-jumps">${buttons}</div>` : `<p class="muted">${escape(t("expert.no_mistakes"))}</p>`) + "</div>";
    }).join("");
    return `<p class="expert-state done" role="status">${escape(t("expert.done"))}</p>` +
      `<p class="muted">${escape(way)} ${escape(facts)}</p>` +
      `<div class="result-wrap"><table class="result expert-summary"><thead><tr>` +
      `<th scope="col">${escape(t("col.player"))}</th><th scope="col">${escape(t("expert.col_decisions"))}</th>` +
      `<th scope="col">${escape(t("expert.col_given_away"))}</th><th scope="col">${escape(t("expert.col_marked"))}</th>` +
      `</tr></thead><tbody>${rows}</tbody></table></div>${biggest}`;
  }

  mistakeButton(view, seq) {
    const decision = this.bySeq.get(seq);
    if (!decision) return "";
    const move = say(label(decision.played), view);
    const words = t("expert.jump_label", { hand: decision.handNumber || 1, move, points: points(decision.cost) });
    // the long words as its title: an aria-label that is not the visible text confuses speech input
    return `<button data-expert-jump="${seq}" title="${escape(words)}">` +
      `${escape(t("expert.jump", { hand: decision.handNumber || 1, move }))} <span class="cost">−${escape(points(decision.cost))}</span></button>`;
  }

  /** The note beside the move at step ``seq`` (empty where that move was not judged). */
  noteHtml(seq, view) {
    const decision = this.decision(seq);
    if (!decision) return "";
    const who = seatName(view, decision.seat || 0);
    const estimate = (e) => t("expert.estimate", { points: points(e && e.points), low: points(e && e.low), high: points(e && e.high) });
    const played = say(label(decision.played), view);
    const best = say(label(decision.best), view);
    const mark = decision.marked ? `<p class="expert-mark"><strong>${escape(t("expert.mistake"))}</strong></p>` : "";
    const lines = sameMove(decision)
      ? `<p class="expert-agrees">${escape(t("expert.agrees", { move: played }))}</p>` +
        `<dl><dt>${escape(t("expert.expected"))}</dt><dd>${escape(estimate(decision.playedEstimate))}</dd></dl>`
      : `<dl><dt>${escape(t("expert.played", { name: who }))}</dt><dd><strong>${escape(played)}</strong> · ${escape(estimate(decision.playedEstimate))}</dd>` +
        `<dt>${escape(t("expert.choice"))}</dt><dd><strong>${escape(best)}</strong> · ${escape(estimate(decision.bestEstimate))}</dd>` +
        `<dt>${escape(t("expert.given_away"))}</dt><dd>${escape(t("expert.cost", { points: points(decision.cost), low: points(decision.costLow), high: points(decision.costHigh) }))}</dd></dl>`;
    const way = this.analysis.higherIsBetter ? t("expert.more_is_better") : t("expert.fewer_is_better");
    return `<aside class="expert-note${decision.marked ? " marked" : ""}" aria-labelledby="expert-note-title">` +
      `<h3 id="expert-note-title">${escape(t("expert.note_title"))}</h3>${mark}${lines}<p class="muted">${escape(way)}</p></aside>`;
  }
}

function label(legal) {
  if (!legal) return "";
  return legal.label || (legal.action && legal.action.text) || "";
}

function sameMove(decision) {
  const played = decision.played || {};
  const best = decision.best || {};
  return (played.id || 0) === (best.id || 0);
}
