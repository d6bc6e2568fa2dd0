// The end-of-hand summary: the ONE place that decides what a finished hand's
// result was. Today it is built from what the view already carries (the new
// row of hand_scores, the totals, the players' bids as last seen,
// and the engine's notes: "seat 2 shot the moon", Kaiser's contract result).
// When the contract carries a structured result of the last finished hand,
// only handResult() below needs to read it instead.
import { say, seatName } from "./words.js";

/**
 * The finished hand's result, or null when ``view`` did not just finish one.
 * ``before`` is the last view shown before the hand ended (its bids and tricks);
 * ``view`` the first view after it.
 * Returns { hand, rows: [{ seat, name, bid, points, total }], lines: [text] }.
 * (Tricks taken are left out: the view after a hand has ended no longer says who
 * took its last trick.)
 */
export function handResult(before, view) {
  const scores = view.handScores || [];
  const earlier = (before && before.handScores) || [];
  if (scores.length <= earlier.length) return null;
  const points = scores[scores.length - 1].points || [];
  const rows = (view.players || []).map((player) => {
    const seat = player.seat || 0;
    const seen = ((before && before.players) || []).find((p) => (p.seat || 0) === seat) || {};
    return {
      seat, name: seatName(view, seat), bid: seen.bid || "",
      points: points[seat] || 0, total: (view.scores || [])[seat] ?? player.score ?? 0,
    };
  });
  const lines = (view.notes || [])
    .filter((note) => /moon|made|set|contract|tied|wins|win\b|lose|bid/i.test(note) && !/^pass /.test(note))
    .map((note) => say(note, view));
  if (view.game === "wizard") {
    // In Wizard a hand scores above zero exactly when the bid was made.
    for (const row of rows) if (row.bid) lines.push(`${row.name} bid ${row.bid}: ${row.points > 0 ? "made it" : "missed"}`);
  }
  return { hand: scores.length, rows, lines };
}

/** The summary as a panel: a heading, a table of points, the sentences, a button. */
export function renderSummary(result, { last, onContinue }) {
  const panel = document.createElement("div");
  panel.className = "overlay summary";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", `Hand ${result.hand} result`);
  const showBid = result.rows.some((row) => row.bid);
  const rows = result.rows.map((row) =>
    `<tr><th scope="row">${escape(row.name)}</th>${showBid ? `<td>${escape(row.bid || "–")}</td>` : ""}` +
    `<td class="points">${signed(row.points)}</td><td class="total">${row.total}</td></tr>`,
  ).join("");
  panel.innerHTML =
    `<div class="overlay-card"><h2>Hand ${result.hand} is over</h2>` +
    `<table class="result"><thead><tr><th>Player</th>${showBid ? "<th>Bid</th>" : ""}` +
    `<th>This hand</th><th>Total</th></tr></thead><tbody>${rows}</tbody></table>` +
    (result.lines.length ? `<ul class="result-lines">${result.lines.map((l) => `<li>${escape(l)}</li>`).join("")}</ul>` : "") +
    `<button class="primary" data-continue>${last ? "See the final result" : "Next hand"}</button></div>`;
  const button = panel.querySelector("[data-continue]");
  button.onclick = () => onContinue();
  setTimeout(() => button.focus(), 0);
  return panel;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

export function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
