// The end-of-hand summary and the words of the game-over screen: the ONE place
// that says what a finished hand's result was. It reads the contract's
// structured result of the last finished hand (View.last_hand: points, totals
// and tricks per seat, and the game's own facts) and says it by players' names.
// clients/tui/summary.py says the same in the terminal.
import { t } from "./i18n.js";
import { cardName, joinNames, seatName, suitLetter, suitWord, directionWords } from "./words.js";

/** A seat's player as the summary names them: "Ada", a computer player without its level. */
export function playerName(view, seat) {
  return seatName(view, seat).replace(/ \([^)]*\)$/, "");
}

/** The names of a Kaiser side (seats s and s + 2): "Ada and Cy". */
function sideName(view, team) {
  const seats = (view.players || []).map((p) => p.seat || 0).filter((s) => s % 2 === team);
  return joinNames(seats.map((s) => playerName(view, s)));
}

const at = (list, seat) => (list || [])[seat] ?? 0;

/**
 * The hand ``view`` has just finished, or null when it did not just finish one
 * (``before`` is the view shown before it).
 */
export function handResult(before, view) {
  const last = view.lastHand;
  if (!last || !last.handNumber) return null;
  if (before && before.lastHand && before.lastHand.handNumber === last.handNumber) return null;
  const tricks = [...((before && before.tricks) || [])];
  const final = last.hearts && last.hearts.lastTrick;
  if (final && (final.plays || []).length) tricks.push(final);
  return describeHand(view, last, tricks);
}

/** The seat whose completed trick held ``code``, or undefined. */
function takerOf(tricks, code) {
  const trick = (tricks || []).find((tr) => tr.winner !== undefined && (tr.plays || []).some((p) => p.card === code));
  return trick ? trick.winner || 0 : undefined;
}

/**
 * A finished hand in words: { hand, dealer, columns: [[key, label]], rows: [{ seat,
 * name, ...cells }], lines: [text], lastTrick }. ``last`` is a View.last_hand;
 * ``tricks`` the hand's completed tricks as far as this browser saw them.
 */
export function describeHand(view, last, tricks = []) {
  const seats = (view.players || []).map((p) => p.seat || 0);
  const rows = seats.map((seat) => ({
    seat, name: playerName(view, seat),
    tricks: at(last.tricksTaken, seat), points: signed(at(last.points, seat)), total: at(last.totals, seat),
  }));
  const lines = [];
  let columns = [["tricks", t("col.tricks")]];
  let lastTrick = null;
  if (last.wizard) {
    const w = last.wizard;
    columns = [["bid", t("col.bid")], ["tricks", t("col.took")], ["made", t("col.result")]];
    for (const row of rows) {
      const bid = at(w.bids, row.seat);
      row.bid = bid;
      row.madeBid = bid === row.tricks;
      row.made = row.madeBid ? t("wizard.made") : t("wizard.missed_by", { count: Math.abs(bid - row.tricks) });
    }
    const made = rows.filter((row) => row.madeBid).map((row) => row.name);
    const missed = rows.filter((row) => !row.madeBid).map((row) => row.name);
    if (!missed.length) lines.push(t("wizard.everyone_made"));
    else if (made.length) lines.push(t("wizard.they_made", { names: joinNames(made), count: made.length }));
    if (missed.length) lines.push(t("wizard.they_missed", { names: joinNames(missed), count: missed.length }));
    lines.push(wizardTrumpWords(w));
  } else if (last.kaiser) {
    const k = last.kaiser;
    const bidder = playerName(view, k.bidder || 0);
    const team = k.biddingTeam || 0;
    const taken = at(k.pointsTaken, team);
    const contract = k.noTrump ? t("kaiser.contract_nt", { bid: k.bid }) : t("kaiser.contract", { bid: k.bid, suit: suitWord(suitLetter(k.trump)) || t("none") });
    const side = sideName(view, team);
    lines.push(t(k.made ? "kaiser.made" : "kaiser.set", { bidder, contract, side, count: taken }));
    for (const s of [0, 1]) {
      lines.push(t("kaiser.side_line", { side: sideName(view, s), count: at(k.pointsTaken, s), change: signed(at(k.scoreChange, s)) }));
    }
    // who took the 5♥ (+5) and the 3♠ (−3), from a side's points less its tricks
    // (5, −3, or 2 for both); by the player where this browser saw the trick
    const extra = (s) => at(k.pointsTaken, s) -
      seats.filter((seat) => seat % 2 === s).reduce((n, seat) => n + at(last.tricksTaken, seat), 0);
    const names = (code, s) => {
      const seat = takerOf(tricks, code);
      return seat !== undefined && seat % 2 === s ? playerName(view, seat) : sideName(view, s);
    };
    for (const s of [0, 1]) if (extra(s) === 5 || extra(s) === 2) lines.push(t("kaiser.took_five", { names: names("5H", s) }));
    for (const s of [0, 1]) if (extra(s) === -3 || extra(s) === 2) lines.push(t("kaiser.took_three", { names: names("3S", s) }));
    const me = view.seat;
    const total = (s) => at(last.totals, seats.find((seat) => seat % 2 === s) ?? s);
    if (me !== undefined && me !== null) {
      lines.push(t("kaiser.us_them", { us: total(me % 2), them: total(1 - (me % 2)) }));
    } else {
      lines.push(t("kaiser.totals", { a: sideName(view, 0), b: sideName(view, 1), x: total(0), y: total(1) }));
    }
    for (const row of rows) row.side = row.seat % 2 === team ? "bidders" : "";
  } else if (last.hearts) {
    const h = last.hearts;
    for (const row of rows) row.taken = at(h.pointsTaken, row.seat);
    if (h.moonShooter !== undefined) {
      // the points taken in tricks differ from the score only when the moon was shot
      columns = [["tricks", t("col.tricks")], ["taken", t("col.took")]];
      lines.push(t("hearts.moon", { name: playerName(view, h.moonShooter) }));
    }
    const queen = takerOf(tricks, "QS");
    if (queen !== undefined) lines.push(t("hearts.took_queen", { name: playerName(view, queen) }));
    if (h.lastTrick && (h.lastTrick.plays || []).length) {
      lastTrick = h.lastTrick;
      const taker = h.lastTrick.winner || 0;
      const cards = h.lastTrick.plays.map((p) => cardName(p.card)).join(" ");
      const won = h.lastTrick.plays.find((p) => (p.seat || 0) === taker);
      lines.push(won
        ? t("hearts.last_trick_with", { name: playerName(view, taker), card: cardName(won.card), cards })
        : t("hearts.last_trick", { name: playerName(view, taker), cards }));
    }
    lines.push(h.passDirection && h.passDirection !== "none" ? t("hearts.passed", { direction: directionWords(h.passDirection) }) : t("hearts.not_passed"));
    if (h.tiePlaysOn) lines.push(t("hearts.tie"));
  } else if (last.crazy8s) {
    const c = last.crazy8s;
    columns = [["left", t("col.cards_left")]];
    for (const row of rows) row.left = at(c.cardsLeft, row.seat);
    if (c.outcome === "CRAZY_EIGHTS_OUTCOME_WENT_OUT" && c.wentOut !== undefined) {
      lines.push(t("crazy8s.went_out", { name: playerName(view, c.wentOut) }));
    } else {
      lines.push(t("crazy8s.blocked"));
    }
    if (c.stockRebuilds) lines.push(t("crazy8s.rebuilt", { count: c.stockRebuilds }));
  }
  columns = [...columns, ["points", t("col.this_hand")], ["total", t("col.total")]];
  return { hand: last.handNumber, dealer: playerName(view, last.dealer || 0), columns, rows, lines, lastTrick };
}

function wizardTrumpWords(w) {
  const trump = suitWord(suitLetter(w.trump));
  if (!w.turnedCard) return t("wizard.whole_pack");
  if (/^W/.test(w.turnedCard)) return trump ? t("wizard.turned_wizard", { suit: trump }) : t("wizard.turned_wizard_none");
  if (/^N/.test(w.turnedCard)) return t("wizard.turned_jester");
  return t("wizard.turned", { card: cardName(w.turnedCard), suit: trump });
}

/** Why the game ended, in words, by players' names ("Bo reached 100 or more; the lowest total wins"). */
export function endWords(view) {
  const rule = view.endRule || {};
  const lowest = rule.winner === "WINNER_RULE_LOWEST_TOTAL";
  const wins = lowest ? t("end.lowest_wins") : t("end.highest_wins");
  const scores = (view.players || []).map((p) => ({ seat: p.seat || 0, score: at(view.scores, p.seat || 0) }));
  const who = (list) => rule.partnerships
    ? joinNames([...new Set(list.map((s) => s.seat % 2))].map((team) => `${sideName(view, team)}`))
    : joinNames(list.map((s) => playerName(view, s.seat)));
  switch (view.endReason) {
    case "END_REASON_ROUNDS_PLAYED": {
      const hands = rule.rounds || (view.handScores || []).length;
      return t("end.rounds_played", { count: hands, wins });
    }
    case "END_REASON_TARGET_REACHED": {
      const reached = scores.filter((s) => s.score >= rule.target);
      return t("end.target_reached", { names: who(reached), target: rule.target, wins, count: reached.length });
    }
    case "END_REASON_FELL_TO_MINUS_TARGET": {
      const fell = scores.filter((s) => s.score <= -rule.target);
      return t("end.fell", { names: who(fell), target: rule.target });
    }
    default:
      return rule.text ? `${capital(rule.text)}.` : "";
  }
}

/** The summary as a panel: a heading, a table of the hand by player, the sentences, a button. */
export function renderSummary(result, { last, sealed, onContinue }) {
  const panel = document.createElement("div");
  panel.className = "overlay summary";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-modal", "true");
  panel.setAttribute("aria-labelledby", "summary-title");
  const head = result.columns.map(([, label]) => `<th>${escape(label)}</th>`).join("");
  const rows = result.rows.map((row) =>
    `<tr data-seat="${row.seat}"${row.side ? ` class="${row.side}"` : ""}><th scope="row">${escape(row.name)}</th>` +
    result.columns.map(([key]) => `<td class="${key}${key === "made" ? ` ${row.madeBid ? "made" : "missed"}` : ""}">` +
      `${escape(row[key] ?? "")}</td>`).join("") + "</tr>",
  ).join("");
  panel.innerHTML =
    `<div class="overlay-card"><h2 id="summary-title">${escape(t("summary.title", { n: result.hand }))}</h2><p class="muted dealt">${escape(t("summary.dealt_by", { name: result.dealer }))}</p>` +
    `<div class="result-wrap"><table class="result"><thead><tr><th>${escape(t("col.player"))}</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>` +
    (result.lines.length ? `<ul class="result-lines">${result.lines.map((l) => `<li>${escape(l)}</li>`).join("")}</ul>` : "") +
    (sealed ? `<p class="deal-sealed muted" title="${escape(sealed)}">${escape(t("summary.sealed", { commitment: sealed.slice(0, 12) }))}</p>` : "") +
    `<button class="primary" data-continue>${escape(last ? t("summary.final") : t("summary.next"))}</button></div>`;
  const button = panel.querySelector("[data-continue]");
  button.onclick = () => onContinue();
  setTimeout(() => button.focus(), 0);
  return panel;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
