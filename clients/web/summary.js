// The end-of-hand summary and the words of the game-over screen: the ONE place
// that says what a finished hand's result was. It reads the contract's
// structured result of the last finished hand (View.last_hand: points, totals
// and tricks per seat, and the game's own facts) and says it by players' names.
// clients/tui/summary.py says the same in the terminal.
import { SUIT_WORD, cardName, joinNames, seatName, suitLetter } from "./words.js";

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
  return describeHand(view, last);
}

/**
 * A finished hand in words: { hand, dealer, columns: [[key, label]], rows: [{ seat,
 * name, ...cells }], lines: [text], lastTrick }. ``last`` is a View.last_hand.
 */
export function describeHand(view, last) {
  const seats = (view.players || []).map((p) => p.seat || 0);
  const rows = seats.map((seat) => ({
    seat, name: playerName(view, seat),
    tricks: at(last.tricksTaken, seat), points: signed(at(last.points, seat)), total: at(last.totals, seat),
  }));
  const lines = [];
  let columns = [["tricks", "Tricks"]];
  let lastTrick = null;
  if (last.wizard) {
    const w = last.wizard;
    columns = [["bid", "Bid"], ["tricks", "Took"], ["made", "Result"]];
    for (const row of rows) {
      const bid = at(w.bids, row.seat);
      row.bid = bid;
      row.made = bid === row.tricks ? "made" : `missed by ${Math.abs(bid - row.tricks)}`;
    }
    const made = rows.filter((row) => row.made === "made").map((row) => row.name);
    const missed = rows.filter((row) => row.made !== "made").map((row) => row.name);
    if (!missed.length) lines.push("Everyone made their bid");
    else if (made.length) lines.push(`${joinNames(made)} made ${made.length === 1 ? "their bid" : "their bids"}`);
    if (missed.length) lines.push(`${joinNames(missed)} missed`);
    lines.push(wizardTrumpWords(w));
  } else if (last.kaiser) {
    const k = last.kaiser;
    const bidder = playerName(view, k.bidder || 0);
    const team = k.biddingTeam || 0;
    const taken = at(k.pointsTaken, team);
    const contract = `${k.bid} ${k.noTrump ? "no trump" : `with ${SUIT_WORD[suitLetter(k.trump)] || "no"} trump`}`;
    lines.push(k.made
      ? `${bidder} bid ${contract}: made, ${sideName(view, team)} took ${taken} points`
      : `${bidder} bid ${contract}: set, ${sideName(view, team)} took only ${taken} points`);
    for (const side of [0, 1]) {
      lines.push(`${sideName(view, side)}: ${at(k.pointsTaken, side)} points in tricks, ${signed(at(k.scoreChange, side))} to the score`);
    }
    for (const row of rows) row.side = row.seat % 2 === team ? "bidders" : "";
  } else if (last.hearts) {
    const h = last.hearts;
    for (const row of rows) row.taken = at(h.pointsTaken, row.seat);
    if (h.moonShooter !== undefined) {
      // the points taken in tricks differ from the score only when the moon was shot
      columns = [["tricks", "Tricks"], ["taken", "Took"]];
      lines.push(`${playerName(view, h.moonShooter)} shot the moon: 0 for them, 26 for everyone else`);
    }
    if (h.lastTrick && (h.lastTrick.plays || []).length) {
      lastTrick = h.lastTrick;
      const taker = h.lastTrick.winner || 0;
      const cards = h.lastTrick.plays.map((p) => cardName(p.card)).join(" ");
      const won = h.lastTrick.plays.find((p) => (p.seat || 0) === taker);
      lines.push(`${playerName(view, taker)} took the last trick${won ? ` with the ${cardName(won.card)}` : ""} (${cards})`);
    }
    lines.push(h.passDirection && h.passDirection !== "none" ? `Cards were passed ${h.passDirection}` : "No cards were passed");
    if (h.tiePlaysOn) lines.push("The lowest total is tied, so another hand is played");
  } else if (last.crazy8s) {
    const c = last.crazy8s;
    columns = [["left", "Cards left"]];
    for (const row of rows) row.left = at(c.cardsLeft, row.seat);
    if (c.outcome === "CRAZY_EIGHTS_OUTCOME_WENT_OUT" && c.wentOut !== undefined) {
      lines.push(`${playerName(view, c.wentOut)} went out`);
    } else {
      lines.push("The round was blocked: nobody could play or draw");
    }
    if (c.stockRebuilds) lines.push(`The stock was rebuilt from the discards ${times(c.stockRebuilds)}`);
  }
  columns = [...columns, ["points", "This hand"], ["total", "Total"]];
  return { hand: last.handNumber, dealer: playerName(view, last.dealer || 0), columns, rows, lines, lastTrick };
}

function wizardTrumpWords(w) {
  const trump = SUIT_WORD[suitLetter(w.trump)];
  if (!w.turnedCard) return "The whole pack was dealt: no trump";
  if (/^W/.test(w.turnedCard)) return `A wizard was turned up; the dealer named ${trump || "no"} trump`;
  if (/^N/.test(w.turnedCard)) return "A jester was turned up: no trump";
  return `The ${cardName(w.turnedCard)} was turned up: ${trump} trump`;
}

/** Why the game ended, in words, by players' names ("Bo reached 100 or more; the lowest total wins"). */
export function endWords(view) {
  const rule = view.endRule || {};
  const lowest = rule.winner === "WINNER_RULE_LOWEST_TOTAL";
  const wins = lowest ? "the lowest total wins" : "the highest total wins";
  const scores = (view.players || []).map((p) => ({ seat: p.seat || 0, score: at(view.scores, p.seat || 0) }));
  const who = (list) => rule.partnerships
    ? joinNames([...new Set(list.map((s) => s.seat % 2))].map((team) => `${sideName(view, team)}`))
    : joinNames(list.map((s) => playerName(view, s.seat)));
  switch (view.endReason) {
    case "END_REASON_ROUNDS_PLAYED": {
      const hands = rule.rounds || (view.handScores || []).length;
      return `${hands === 1 ? "The game's one round was" : `All ${hands} rounds were`} played; ${wins}.`;
    }
    case "END_REASON_TARGET_REACHED": {
      const reached = scores.filter((s) => s.score >= rule.target);
      return `${who(reached)} reached ${rule.target} or more; ${wins}.`;
    }
    case "END_REASON_FELL_TO_MINUS_TARGET": {
      const fell = scores.filter((s) => s.score <= -rule.target);
      return `${who(fell)} fell to −${rule.target} or below, so the other side wins.`;
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
  panel.setAttribute("aria-label", `Hand ${result.hand} result`);
  const head = result.columns.map(([, label]) => `<th>${escape(label)}</th>`).join("");
  const rows = result.rows.map((row) =>
    `<tr data-seat="${row.seat}"${row.side ? ` class="${row.side}"` : ""}><th scope="row">${escape(row.name)}</th>` +
    result.columns.map(([key]) => `<td class="${key}${key === "made" ? ` ${row.made === "made" ? "made" : "missed"}` : ""}">` +
      `${escape(row[key] ?? "")}</td>`).join("") + "</tr>",
  ).join("");
  panel.innerHTML =
    `<div class="overlay-card"><h2>Hand ${result.hand} is over</h2><p class="muted dealt">dealt by ${escape(result.dealer)}</p>` +
    `<table class="result"><thead><tr><th>Player</th>${head}</tr></thead><tbody>${rows}</tbody></table>` +
    (result.lines.length ? `<ul class="result-lines">${result.lines.map((l) => `<li>${escape(l)}</li>`).join("")}</ul>` : "") +
    (sealed ? `<p class="deal-sealed muted" title="${escape(sealed)}">This deal was sealed before play (commitment ${escape(sealed.slice(0, 12))}…); ` +
      "the deck is revealed and checked when the game ends.</p>" : "") +
    `<button class="primary" data-continue>${last ? "See the final result" : "Next hand"}</button></div>`;
  const button = panel.querySelector("[data-continue]");
  button.onclick = () => onContinue();
  setTimeout(() => button.focus(), 0);
  return panel;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function times(n) {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
