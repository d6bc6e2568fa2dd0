// Parlour's browser client. The address says where you are, so a reload
// comes back to the same place: #/ the lobby, #/table/ID your seat at a table
// (found again in localStorage) or a spectator's view, #/join/ID an invitation,
// #/rules/GAME a game's rules, #/replay/ID a game step by step. The header holds the page's settings: the
// language, the turn sound and the four-colour deck (each remembered here).
import { ensureAccount, renderAccount } from "./account.js";
import { rpc, saveName, saveSeat, savedName, savedSeats } from "./api.js";
import { muted, setMuted } from "./attention.js";
import { LANGUAGES, lang, setLang, t } from "./i18n.js";
import { GamesScreen, LeaderboardScreen, renderHomeLinks } from "./home.js";
import { LobbyScreen } from "./lobby.js";
import { closedToSpectators, invitationCode } from "./moderation.js";
import { ReplayScreen } from "./replay.js";
import { randomHex } from "./fairdeal.js";
import { RulesScreen } from "./rules.js";
import { escape } from "./summary.js";
import { TableScreen } from "./table.js";
import { gameText, refusalWords } from "./words.js";

const root = document.getElementById("screen");
let games = [];
let screen = null;

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

let backFromRules = "#/";

function openRules(game) {
  backFromRules = location.hash || "#/";
  go(`#/rules/${game}`);
}

function route() {
  if (screen) screen.close();
  screen = null;
  const [, where, tableId, at] = location.hash.split("/");
  if (where === "replay" && tableId) {  // a game step by step (replay.js); #/replay/ID/SEQ opens at a step
    document.body.dataset.screen = "replay";
    screen = new ReplayScreen(root, tableId, games, { onLeave: () => go("#/"), onOpenTable: (id) => go(`#/table/${id}`), at });
  } else if (where === "table" && tableId) {
    const held = savedSeats()[tableId] || null;
    document.body.dataset.screen = "table";
    screen = new TableScreen(root, tableId, held, games, { onLeave: () => go("#/"), onRules: openRules });
  } else if (where === "watch" && tableId) {
    document.body.dataset.screen = "table";
    screen = new TableScreen(root, tableId, null, games, { onLeave: () => go("#/"), onRules: openRules });
  } else if (where === "rules" && tableId) {
    document.body.dataset.screen = "rules";
    screen = new RulesScreen(root, tableId, games, { onBack: () => go(backFromRules) });
  } else if (where === "games") {  // a home for players (issue 31): home.js
    document.body.dataset.screen = "games";
    screen = new GamesScreen(root, games);
  } else if (where === "leaderboard") {
    document.body.dataset.screen = "leaderboard";
    screen = new LeaderboardScreen(root, tableId || "", games);
  } else if (where === "join" && tableId) {
    document.body.dataset.screen = "join";
    invitation(tableId);
  } else {
    document.body.dataset.screen = "lobby";
    screen = new LobbyScreen(root, games, {
      openTable: (id, { watch = false } = {}) => go(`#/${watch ? "watch" : "table"}/${id}`),
      openRules,
    });
  }
}

async function invitation(tableId) {
  if (savedSeats()[tableId]) { go(`#/table/${tableId}`); return; }
  root.className = "join-screen";
  root.innerHTML = `<div class="panel notice"><h2>${escape(t("invite.title"))}</h2><p class="muted" id="about">…</p>` +
    `<label>${escape(t("lobby.your_name"))} <input id="name" maxlength="40" value="${escape(savedName() || t("guest"))}"></label>` +
    `<div class="buttons"><button class="primary" id="take">${escape(t("invite.take"))}</button><button id="watch">${escape(t("invite.watch"))}</button></div>` +
    `<p class="refusal" role="alert"></p></div>`;
  const refusal = root.querySelector(".refusal");
  root.querySelector("#watch").onclick = () => go(`#/watch/${tableId}`);
  root.querySelector("#take").onclick = async () => {
    const name = root.querySelector("#name").value.trim() || t("guest");
    saveName(name);
    try {
      const entropy = randomHex();  // this seat's contribution to the deals
      // an invitation to an invite-only seat carries its code (#/join/TABLE/CODE)
      const seatCode = invitationCode();
      const joined = await rpc("LobbyService/JoinTable", { tableId, playerName: name, entropy, ...(seatCode ? { seatCode } : {}) });
      saveSeat(tableId, { seat: joined.seat || 0, token: joined.seatToken, name, game: joined.table.game, entropy });
      go(`#/table/${tableId}`);
    } catch (error) { refusal.textContent = refusalWords(error, null); }
  };
  try {  // what the invitation is for, filled in when the service answers
    const table = (await rpc("LobbyService/GetTable", { tableId })).table;
    if (closedToSpectators(table)) root.querySelector("#watch").remove();  // it would be refused
    const game = games.find((g) => g.id === table.game);
    root.querySelector("#about").textContent = t("invite.about", { name: table.name || "", game: game ? gameText(game, "name") : table.game, count: table.seatCount });
  } catch (error) { refusal.textContent = refusalWords(error, null); }
}

async function start() {
  try {
    games = (await rpc("CatalogueService/ListGames")).games || [];
  } catch (error) {
    root.innerHTML = `<div class="panel notice"><h2>${escape(t("start.unreachable"))}</h2><p>${escape(error.message)}</p></div>`;
    return;
  }
  // who this browser is (a guest unless signed in), shown in the header
  try { await ensureAccount(); } catch { /* the lobby works without an account */ }
  renderAccount(document.getElementById("account"), { onChange: route });
  window.addEventListener("hashchange", route);
  route();
}

const FOUR = "parlour.fourColour";

/** The header's settings: language, turn sound, four-colour deck. */
function settings() {
  const box = document.getElementById("settings");
  const four = localStorage.getItem(FOUR) === "1";
  document.body.classList.toggle("four-colour", four);
  document.getElementById("home").setAttribute("aria-label", t("home.label"));
  renderHomeLinks(document.getElementById("home-links"));
  box.innerHTML =
    `<label class="lang"><span class="sr-only">${escape(t("settings.language"))}</span><select id="language">` +
    Object.entries(LANGUAGES).map(([code, name]) => `<option value="${code}" lang="${code}"${code === lang() ? " selected" : ""}>${name}</option>`).join("") +
    `</select></label>` +
    `<button id="mute" aria-pressed="${muted()}" title="${escape(t("settings.sound"))}" aria-label="${escape(t("settings.sound"))}">${muted() ? "♪̸" : "♪"}</button>` +
    `<button id="four" aria-pressed="${four}" title="${escape(t("settings.four_colour"))}">4♦<span class="sr-only"> ${escape(t("settings.four_colour"))}</span></button>`;
  box.querySelector("#language").onchange = (event) => {
    setLang(event.target.value);
    settings();
    if (screen && screen.redraw) screen.redraw();
    else route();
  };
  box.querySelector("#mute").onclick = () => { setMuted(!muted()); settings(); };
  box.querySelector("#four").onclick = () => { localStorage.setItem(FOUR, four ? "0" : "1"); settings(); };
}

settings();
start();
