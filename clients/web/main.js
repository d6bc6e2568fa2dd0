// Parlour's browser client. The address says where you are, so a reload
// comes back to the same place: #/ the lobby, #/table/ID your seat at a table
// (found again in localStorage) or a spectator's view, #/join/ID an invitation.
import { ensureAccount, renderAccount } from "./account.js";
import { rpc, saveName, saveSeat, savedName, savedSeats } from "./api.js";
import { LobbyScreen } from "./lobby.js";
import { randomHex } from "./fairdeal.js";
import { escape } from "./summary.js";
import { TableScreen } from "./table.js";

const root = document.getElementById("screen");
let games = [];
let screen = null;

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  if (screen) screen.close();
  screen = null;
  const [, where, tableId] = location.hash.split("/");
  if (where === "table" && tableId) {
    const held = savedSeats()[tableId] || null;
    document.body.dataset.screen = "table";
    screen = new TableScreen(root, tableId, held, games, { onLeave: () => go("#/") });
  } else if (where === "watch" && tableId) {
    document.body.dataset.screen = "table";
    screen = new TableScreen(root, tableId, null, games, { onLeave: () => go("#/") });
  } else if (where === "join" && tableId) {
    document.body.dataset.screen = "join";
    invitation(tableId);
  } else {
    document.body.dataset.screen = "lobby";
    screen = new LobbyScreen(root, games, {
      openTable: (id, { watch = false } = {}) => go(`#/${watch ? "watch" : "table"}/${id}`),
    });
  }
}

async function invitation(tableId) {
  if (savedSeats()[tableId]) { go(`#/table/${tableId}`); return; }
  root.className = "join-screen";
  root.innerHTML = `<div class="panel notice"><h2>You are invited to a table</h2><p class="muted" id="about">…</p>` +
    `<label>Your name <input id="name" maxlength="40" value="${escape(savedName() || "Guest")}"></label>` +
    `<div class="buttons"><button class="primary" id="take">Take a seat</button><button id="watch">Just watch</button></div>` +
    `<p class="refusal" role="alert"></p></div>`;
  const refusal = root.querySelector(".refusal");
  root.querySelector("#watch").onclick = () => go(`#/watch/${tableId}`);
  root.querySelector("#take").onclick = async () => {
    const name = root.querySelector("#name").value.trim() || "Guest";
    saveName(name);
    try {
      const entropy = randomHex();  // this seat's contribution to the deals
      const joined = await rpc("LobbyService/JoinTable", { tableId, playerName: name, entropy });
      saveSeat(tableId, { seat: joined.seat || 0, token: joined.seatToken, name, game: joined.table.game, entropy });
      go(`#/table/${tableId}`);
    } catch (error) { refusal.textContent = error.message; }
  };
  try {  // what the invitation is for, filled in when the service answers
    const table = (await rpc("LobbyService/GetTable", { tableId })).table;
    const game = games.find((g) => g.id === table.game);
    root.querySelector("#about").textContent = `${table.name || ""} · ${game ? game.name : table.game}, ${table.seatCount} players`;
  } catch (error) { refusal.textContent = error.message; }
}

async function start() {
  try {
    games = (await rpc("CatalogueService/ListGames")).games || [];
  } catch (error) {
    root.innerHTML = `<div class="panel notice"><h2>The game service cannot be reached</h2><p>${escape(error.message)}</p></div>`;
    return;
  }
  // who this browser is (a guest unless signed in), shown in the header
  try { await ensureAccount(); } catch { /* the lobby works without an account */ }
  renderAccount(document.getElementById("account"), { onChange: route });
  window.addEventListener("hashchange", route);
  route();
}

document.querySelector("header h1").onclick = () => go("#/");
start();
