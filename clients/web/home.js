// A home for players (issue 31): "Your games" (#/games: the signed-in account's
// tables, newest first, in pages, each opening its replay at #/replay/ID), a
// game's leaderboard (#/leaderboard/GAME) and the ratings beside the names at a
// table (HomeService.GetTableRatings). Ratings are OpenSkill ordinals; one of
// fewer than ten games is provisional (marked "?"). See docs/ratings.md.
import { rpc, saveSeat } from "./api.js";
import { lang, t } from "./i18n.js";
import { escape } from "./summary.js";
import { botLevelLabel, gameText, localName, refusalWords } from "./words.js";

const PAGE = 20;

function dateText(value) {
  if (!value) return "";
  const when = new Date(value);
  try {
    return new Intl.DateTimeFormat(lang(), { dateStyle: "medium", timeStyle: "short" }).format(when);
  } catch {
    return when.toISOString();
  }
}

function gameName(games, id) {
  const game = games.find((g) => g.id === id);
  return game ? gameText(game, "name") : id;
}

/** An ordinal as shown: one decimal, "?" while provisional. */
export function ratingText(rating) {
  if (!rating) return "";
  const ordinal = Number(rating.ordinal || 0).toFixed(1);
  return rating.provisional ? `${ordinal}?` : ordinal;
}

/** A rating's badge as HTML: the ordinal, its title saying how many games. */
export function ratingBadge(rating) {
  return `<span class="rating${rating.provisional ? " provisional" : ""}" title="${escape(ratingTitle(rating))}">${escape(ratingText(rating))}</span>`;
}

function ratingTitle(rating) {
  return t(rating.provisional ? "home.rating_provisional_title" : "home.rating_title", {
    ordinal: Number(rating.ordinal || 0).toFixed(1),
    count: rating.games || 0,
  });
}

const ENDINGS = {
  ENDING_FINISHED: "home.ending_finished",
  ENDING_ABANDONED: "home.ending_abandoned",
  ENDING_EXPIRED: "home.ending_expired",
};
const STATUSES = { TABLE_STATUS_OPEN: "home.status_open", TABLE_STATUS_PLAYING: "home.status_playing" };

function endingText(game) {
  if (ENDINGS[game.ending]) return t(ENDINGS[game.ending]);
  return t(STATUSES[game.status] || "home.status_playing");
}

function resultText(game) {
  if (game.ending !== "ENDING_FINISHED" && game.ending !== "ENDING_ABANDONED") return "—";
  const mine = (game.players || []).find((p) => p.mine) || {};
  const score = mine.score || 0;
  if (game.ending === "ENDING_ABANDONED") return t("home.result_stood", { score });
  return t(game.won ? "home.result_won" : "home.result_lost", { score });
}

function playerText(player) {
  const name = player.playerName || t("home.open_seat");
  if (player.kind === "SEAT_KIND_BOT") return localName(name);
  return player.mine ? `${name} ${t("seat.you_mark")}` : name;
}

/** #/games: the account's tables, newest first, twenty at a time. */
export class GamesScreen {
  constructor(root, games) {
    this.root = root;
    this.games = games;
    this.token = "";
    this.rows = [];
    root.className = "home-screen";
    this.redraw();
    this.more();
  }

  close() { this.closed = true; }

  redraw() {
    this.root.innerHTML =
      `<section class="panel home"><h2>${escape(t("home.games_title"))}</h2>` +
      `<p class="muted">${escape(t("home.games_help"))}</p>` +
      `<table class="games"><thead><tr><th scope="col">${escape(t("home.col_game"))}</th><th scope="col">${escape(t("home.col_date"))}</th>` +
      `<th scope="col">${escape(t("home.col_players"))}</th><th scope="col">${escape(t("home.col_result"))}</th><th scope="col">${escape(t("home.col_ending"))}</th></tr></thead>` +
      `<tbody id="game-rows"></tbody></table>` +
      `<p class="muted" id="no-games" hidden>${escape(t("home.no_games"))}</p>` +
      `<p><button id="more-games" hidden>${escape(t("home.more"))}</button></p><p class="refusal" role="alert"></p></section>`;
    this.root.querySelector("#more-games").onclick = () => this.more();
    this.show();
  }

  async more() {
    try {
      const page = await rpc("HomeService/ListMyGames", { pageSize: PAGE, pageToken: this.token });
      if (this.closed) return;
      this.rows.push(...(page.games || []));
      this.token = page.nextPageToken || "";
      this.loaded = true;
      this.show();
    } catch (error) {
      if (!this.closed) this.root.querySelector(".refusal").textContent = refusalWords(error, null);
    }
  }

  show() {
    const body = this.root.querySelector("#game-rows");
    body.innerHTML = this.rows.map((game) => {
      const id = escape(game.tableId);
      const players = (game.players || []).map((p) => `<li class="${p.winner ? "winner" : ""}">${escape(playerText(p))}</li>`).join("");
      const back = game.status === "TABLE_STATUS_OPEN" || game.status === "TABLE_STATUS_PLAYING"
        ? ` <a class="back-to-table" href="#/table/${id}">${escape(t("home.back_to_table"))}</a>` : "";
      return `<tr data-table="${id}" class="${game.won ? "won" : ""}">` +
        `<td data-label="${escape(t("home.col_game"))}"><a class="replay-link" href="#/replay/${id}">${escape(gameName(this.games, game.game))}</a>${back}</td>` +
        `<td data-label="${escape(t("home.col_date"))}"><time datetime="${escape(game.createdAt || "")}">${escape(dateText(game.createdAt))}</time></td>` +
        `<td data-label="${escape(t("home.col_players"))}"><ul class="players">${players}</ul></td>` +
        `<td data-label="${escape(t("home.col_result"))}" class="result">${escape(resultText(game))}</td>` +
        `<td data-label="${escape(t("home.col_ending"))}" class="ending">${escape(endingText(game))}</td></tr>`;
    }).join("");
    this.root.querySelector("#no-games").hidden = !this.loaded || this.rows.length > 0;
    this.root.querySelector("#more-games").hidden = !this.token;
  }
}

/** #/leaderboard/GAME: a game's ratings, best first, a page at a time. */
export class LeaderboardScreen {
  constructor(root, game, games) {
    this.root = root;
    this.games = games;
    this.game = games.some((g) => g.id === game) ? game : (games[0] || {}).id || game;
    this.bots = false;
    this.tokens = [""];  // the token of each page seen so far: back goes one down
    this.page = 0;
    root.className = "home-screen";
    this.redraw();
  }

  close() { this.closed = true; }

  redraw() {
    const tabs = this.games.map((g) => `<a href="#/leaderboard/${escape(g.id)}"${g.id === this.game ? ' aria-current="page"' : ""}>${escape(gameText(g, "name"))}</a>`).join("");
    this.root.innerHTML =
      `<section class="panel home"><h2>${escape(t("home.board_title", { game: gameName(this.games, this.game) }))}</h2>` +
      `<nav class="board-games" aria-label="${escape(t("home.board_games"))}">${tabs}</nav>` +
      `<label class="with-bots"><input type="checkbox" id="with-bots"${this.bots ? " checked" : ""}> ${escape(t("home.with_bots"))}</label>` +
      `<table class="board"><thead><tr><th scope="col">${escape(t("home.col_rank"))}</th><th scope="col">${escape(t("home.col_player"))}</th>` +
      `<th scope="col">${escape(t("home.col_rating"))}</th><th scope="col">${escape(t("home.col_games"))}</th></tr></thead><tbody id="board-rows"></tbody></table>` +
      `<p class="muted" id="board-empty" hidden>${escape(t("home.board_empty"))}</p>` +
      `<p class="buttons"><button id="board-back" hidden>${escape(t("home.previous"))}</button> <button id="board-next" hidden>${escape(t("home.next"))}</button></p>` +
      `<p class="muted">${escape(t("home.board_help"))}</p><p class="refusal" role="alert"></p></section>`;
    this.root.querySelector("#with-bots").onchange = (event) => { this.bots = event.target.checked; this.tokens = [""]; this.page = 0; this.load(); };
    this.root.querySelector("#board-next").onclick = () => { this.page += 1; this.load(); };
    this.root.querySelector("#board-back").onclick = () => { this.page -= 1; this.load(); };
    this.load();
  }

  async load() {
    try {
      const answer = await rpc("HomeService/GetLeaderboard", { game: this.game, pageSize: PAGE, pageToken: this.tokens[this.page], includeBots: this.bots });
      if (this.closed) return;
      this.tokens[this.page + 1] = answer.nextPageToken || "";
      const first = answer.firstRank || 1;
      const rows = answer.ratings || [];
      this.root.querySelector("#board-rows").innerHTML = rows.map((rating, index) => {
        const name = rating.bot ? botLevelLabel(rating.name) : rating.name || t("home.a_guest");
        return `<tr data-subject="${escape(rating.subject)}" class="${rating.bot ? "bot" : ""}"><td>${first + index}</td><td>${escape(name)}</td>` +
          `<td><span class="rating${rating.provisional ? " provisional" : ""}" title="${escape(ratingTitle(rating))}">${escape(ratingText(rating))}</span></td>` +
          `<td>${rating.games || 0}</td></tr>`;
      }).join("");
      this.root.querySelector("#board-empty").hidden = rows.length > 0;
      this.root.querySelector("#board-next").hidden = !answer.nextPageToken;
      this.root.querySelector("#board-back").hidden = this.page === 0;
    } catch (error) {
      if (!this.closed) this.root.querySelector(".refusal").textContent = refusalWords(error, null);
    }
  }
}

/** The header's links to these pages (redrawn with the language). */
export function renderHomeLinks(box) {
  if (!box) return;
  box.innerHTML = `<a href="#/games" id="my-games">${escape(t("home.games_link"))}</a> ` +
    `<a href="#/leaderboard/" id="leaderboards">${escape(t("home.board_link"))}</a>`;
}

const cached = new Map();

/**
 * Puts each seat's rating beside its name at a table: ``felt`` holds the
 * ``.seat[data-seat] .nameplate`` elements the table drew. The ratings are
 * asked for once per table (again with ``fresh``, e.g. when the game is over).
 */
export async function decorateRatings(felt, tableId, { fresh = false } = {}) {
  if (!felt || !tableId) return;
  if (fresh || !cached.has(tableId)) {
    cached.set(tableId, rpc("HomeService/GetTableRatings", { tableId }).then((a) => a.seats || []).catch(() => []));
  }
  const seats = await cached.get(tableId);
  for (const entry of seats) {
    if (!entry.rating) continue;
    const plate = felt.querySelector(`.seat[data-seat="${entry.seat || 0}"] .nameplate`);
    if (!plate || plate.querySelector(".rating")) continue;
    const badge = document.createElement("span");
    badge.className = `rating${entry.rating.provisional ? " provisional" : ""}`;
    badge.title = ratingTitle(entry.rating);
    badge.textContent = ratingText(entry.rating);
    plate.querySelector(".name")?.after(badge);
  }
}

// -- "play again" (HomeService.PlayAgain / GetRematch) on the game-over panel -------

const rematches = new Map();  // ended table id -> the last GetRematch answer
const polling = new Set();

function drawRematch(box, tableId) {
  const state = rematches.get(tableId);
  if (!box || !state) return;
  const mine = state.mySeat ?? 0;  // proto3 JSON leaves out 0; -1 is "not a player here"
  if (mine < 0) { box.innerHTML = ""; return; }
  const seats = state.seats || [];
  const people = seats.filter((s) => s.kind !== "SEAT_KIND_BOT");
  const accepted = people.filter((s) => s.accepted).map((s) => s.playerName || "");
  const waiting = people.filter((s) => !s.accepted).map((s) => s.playerName || "");
  const me = seats.find((s) => (s.seat || 0) === mine) || {};
  const bots = seats.some((s) => s.kind === "SEAT_KIND_BOT") ? ` ${t("home.rematch_bots")}` : "";
  let html;
  if (!state.rematchTableId) {
    html = `<button class="primary" data-play-again>${escape(t("home.play_again"))}</button><span class="muted">${escape(bots)}</span>`;
  } else if (!me.accepted) {
    // a seat held for its old player until they accept or decline (or the hold times out)
    const note = me.declined ? t("home.rematch_declined") : me.held ? t("home.rematch_held") : "";
    html = `<p>${escape(t("home.rematch_offer", { names: accepted.join(", "), count: accepted.length }))}${escape(bots)}</p>` +
      (note ? `<p class="muted rematch-note">${escape(note)}</p>` : "") +
      `<button class="primary" data-play-again>${escape(t("home.rematch_accept"))}</button>` +
      (me.declined ? "" : `<button data-decline-rematch>${escape(t("home.rematch_decline"))}</button>`);
  } else {
    html = state.started ? "" : `<p class="muted">${escape(t("home.rematch_waiting", { names: waiting.join(", ") }))}</p>`;
    html += `<button class="primary" data-play-again>${escape(t("home.rematch_go"))}</button>`;
  }
  box.innerHTML = html + `<p class="refusal" role="alert"></p>`;
  const decline = box.querySelector("[data-decline-rematch]");
  if (decline) {
    decline.onclick = async () => {
      try {
        rematches.set(tableId, (await rpc("HomeService/DeclineRematch", { tableId })).rematch || {});
        drawRematch(box, tableId);
      } catch (error) {
        box.querySelector(".refusal").textContent = refusalWords(error, null);
      }
    };
  }
  box.querySelector("[data-play-again]").onclick = async () => {
    try {
      const answer = await rpc("HomeService/PlayAgain", { tableId });
      const made = answer.rematch || {};
      const id = made.rematchTableId;
      const seat = answer.seat || 0;
      const entry = { seat, name: me.playerName || "", game: "" };
      if (answer.seatToken) entry.token = answer.seatToken;
      if (answer.hostToken) entry.hostToken = answer.hostToken;
      saveSeat(id, entry);
      rematches.set(tableId, made);
      location.hash = `#/table/${id}`;
    } catch (error) {
      box.querySelector(".refusal").textContent = refusalWords(error, null);
    }
  };
}

/**
 * Fills ``box`` (in the game-over panel of the table ``tableId``) with "play again":
 * the button, or who asked and "accept", or who is still awaited. Asks the server
 * every two seconds while the ended table is on screen.
 */
export function rematchPanel(box, tableId) {
  if (!box || !tableId) return;
  box.dataset.rematchTable = tableId;
  drawRematch(box, tableId);
  if (polling.has(tableId)) return;
  polling.add(tableId);
  const tick = async () => {
    const shown = document.querySelector(`[data-rematch-table="${tableId}"]`);
    if (!shown) { polling.delete(tableId); return; }
    try {
      rematches.set(tableId, (await rpc("HomeService/GetRematch", { tableId })).rematch || {});
      drawRematch(shown, tableId);
    } catch { /* the next tick tries again */ }
    setTimeout(tick, 2000);
  };
  setTimeout(tick, 0);  // once the panel is on the page (the table draws it first)
}
