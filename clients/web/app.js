// Parlour's browser client: renders the view the server sends and offers the
// legal actions it lists. It holds no rules. It speaks to the REST/JSON
// gateway, which maps POST /api/<Service>/<Method> to the gRPC contract.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const $ = (id) => document.getElementById(id);
let games = [];
let seat = null;          // { tableId, seat, token }
let version = 0;
let source = null;

async function rpc(method, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Parlour-Seat-Token"] = token.seat || "";
  if (token && token.host) headers["X-Parlour-Host-Token"] = token.host;
  const response = await fetch(`/api/${method}`, { method: "POST", headers, body: JSON.stringify(body || {}) });
  const data = await response.json();
  if (!response.ok) throw new Error(`${data.code}: ${data.message}`);
  return data;
}

function cardHtml(code, cls = "") {
  if (!code) return "";
  const suit = code.slice(-1);
  const red = suit === "H" || suit === "D" ? " red" : "";
  const label = SUITS[suit] ? code.slice(0, -1).replace("T", "10") + SUITS[suit] : code;
  return `<span class="card${red} ${cls}" data-card="${code}">${label}</span>`;
}

async function loadLobby() {
  games = (await rpc("CatalogueService/ListGames")).games || [];
  $("game").innerHTML = games.map((g) => `<option value="${g.id}">${g.name}</option>`).join("");
  renderSetup();
  const tables = (await rpc("LobbyService/ListTables", { status: "TABLE_STATUS_OPEN" })).tables || [];
  $("tables").innerHTML = tables.map((t) =>
    `<li>${t.name || t.tableId} — ${t.game}, ${t.seatCount} seats <button data-join="${t.tableId}">Join</button></li>`
  ).join("") || "<li>none</li>";
}

function renderSetup() {
  const game = games.find((g) => g.id === $("game").value);
  if (!game) return;
  const seats = [];
  for (let n = game.minSeats; n <= game.maxSeats; n++) seats.push(`<option>${n}</option>`);
  const keep = $("seats").value;
  $("seats").innerHTML = seats.join("");
  if (keep >= game.minSeats && keep <= game.maxSeats) $("seats").value = keep;
  // The setup form is built from the option schema the catalogue publishes.
  $("options").innerHTML = (game.options || []).map((o) =>
    `<label title="${o.description}">${o.name} <select data-option="${o.name}">` +
    o.allowedValues.map((v) => `<option ${v === o.defaultValue ? "selected" : ""}>${v}</option>`).join("") +
    `</select></label>`
  ).join("");
  const count = Number($("seats").value);
  let rows = "";
  for (let s = 1; s < count; s++) {
    rows += `<label>Seat ${s} <select data-seat="${s}"><option value="bot:normal">bot (normal)</option>` +
      `<option value="bot:easy">bot (easy)</option><option value="bot:hard">bot (hard)</option>` +
      `<option value="bot:random">bot (random)</option><option value="person">person</option></select></label>`;
  }
  $("seat-setup").innerHTML = `<label>Seat 0: you</label>${rows}`;
  $("rules-summary").textContent = game.summary;
}

async function host(event) {
  event.preventDefault();
  const options = {};
  document.querySelectorAll("[data-option]").forEach((el) => { options[el.dataset.option] = el.value; });
  const seatSetup = [{ kind: "SEAT_KIND_PERSON" }];
  document.querySelectorAll("[data-seat]").forEach((el) => {
    const [kind, level] = el.value.split(":");
    seatSetup.push(kind === "bot" ? { kind: "SEAT_KIND_BOT", botLevel: level } : { kind: "SEAT_KIND_PERSON" });
  });
  try {
    const hosted = await rpc("LobbyService/HostTable", {
      game: $("game").value, seats: Number($("seats").value), options, seatSetup,
      hostPlayerName: $("name").value, hostTakesSeat: true, hostSeat: 0,
    });
    seat = { tableId: hosted.table.tableId, seat: hosted.seat || 0, token: hosted.seatToken };
    if (seatSetup.every((s) => s.kind === "SEAT_KIND_BOT" || s === seatSetup[0])) {
      await rpc("LobbyService/StartTable", { tableId: seat.tableId }, { host: hosted.hostToken });
    } else {
      $("status").textContent = `Waiting for players; host token ${hosted.hostToken}`;
    }
    openTable();
  } catch (err) { $("status").textContent = err.message; }
}

async function join(tableId) {
  try {
    const joined = await rpc("LobbyService/JoinTable", { tableId, playerName: $("name").value });
    seat = { tableId, seat: joined.seat || 0, token: joined.seatToken };
    openTable();
  } catch (err) { $("status").textContent = err.message; }
}

function openTable() {
  $("lobby").hidden = true;
  $("table").hidden = false;
  watch();
}

function watch() {
  // Resumable: after a drop, reconnect from the last version seen.
  if (source) source.close();
  const q = JSON.stringify({ tableId: seat.tableId, seat: seat.seat, fromVersion: version });
  source = new EventSource(`/api/PlayService/Watch?q=${encodeURIComponent(q)}&seat_token=${encodeURIComponent(seat.token)}`);
  source.onmessage = (event) => {
    const update = JSON.parse(event.data);
    version = Number(update.version);
    render(update.view);
    $("status").textContent = "connected";
  };
  source.addEventListener("end", () => source.close());
  source.onerror = () => {
    $("status").textContent = "connection lost: reconnecting…";
    source.close();
    setTimeout(watch, 1000);
  };
}

function trickHtml(trick) {
  if (!trick) return "";
  return (trick.plays || []).map((p) => `<span class="play">seat ${p.seat || 0}: ${cardHtml(p.card)}</span>`).join("") +
    (trick.winner !== undefined ? ` → seat ${trick.winner} takes it` : "");
}

function render(view) {
  const toAct = view.toAct || [];
  const facts = [`${view.game}`, `hand ${view.handNumber}`, `phase: ${view.phase}`];
  if (view.trumpText) facts.push(`trump: ${view.trumpText}`);
  if (view.turnedCard) facts.push(`turned: ${view.turnedCard}`);
  if (view.suitInForceText) facts.push(`suit in force: ${view.suitInForceText}`);
  if (view.topCard) facts.push(`top card: ${view.topCard}`);
  if (view.stockCount !== undefined) facts.push(`stock: ${view.stockCount}`);
  if (view.contract) facts.push(view.contract);
  if (view.passDirection) facts.push(`pass: ${view.passDirection}`);
  facts.push(toAct.length ? `to act: seat ${toAct.join(", ")}` : "");
  if (view.isOver) facts.push(`game over — winners: seat ${(view.winners || []).join(", ")}`);
  $("info").textContent = facts.filter(Boolean).join(" · ");
  $("players").innerHTML = "<tr><th>seat</th><th>name</th><th>cards</th><th>bid</th><th>tricks</th><th>score</th></tr>" +
    (view.players || []).map((p) => `<tr class="${toAct.includes(p.seat || 0) ? "to-act" : ""}">` +
      `<td>${p.seat || 0}${(p.seat || 0) === seat.seat ? " (you)" : ""}</td><td>${p.playerName || p.kind}</td>` +
      `<td>${p.handSize}</td><td>${p.bid}</td><td>${p.tricksTaken}</td><td>${p.score}</td></tr>`).join("");
  $("trick").innerHTML = view.currentTrick ? `Trick: ${trickHtml(view.currentTrick)}` : "";
  const legal = view.legalActions || [];
  // A plain card action (play or give) is chosen by clicking the card; an
  // eight's "name a suit" variants and bids stay buttons.
  const plain = (a) => a.action.card && (!a.action.suit || a.action.suit === "SUIT_UNSPECIFIED");
  const playable = new Map(legal.filter(plain).map((a) => [a.action.card, a.id]));
  $("hand").innerHTML = (view.hand || []).map((c) => cardHtml(c, playable.has(c) ? "legal" : (legal.length ? "dim" : ""))).join("");
  $("hand").querySelectorAll(".legal").forEach((el) => { el.onclick = () => act(playable.get(el.dataset.card)); });
  const others = legal.filter((a) => !plain(a));
  $("actions").innerHTML = others.map((a) => `<button data-action="${a.id}">${a.label}</button>`).join("");
  $("actions").querySelectorAll("button").forEach((el) => { el.onclick = () => act(Number(el.dataset.action)); });
  $("history").innerHTML = `<p>Last trick: ${trickHtml(view.lastTrick)}</p>` +
    (view.history || []).map((m) => `<div>seat ${m.seat || 0}: ${m.text}</div>`).join("") +
    (view.notes || []).map((n) => `<div>${n}</div>`).join("");
}

async function act(id) {
  $("error").textContent = "";
  try {
    await rpc("PlayService/Act", {
      tableId: seat.tableId, seat: seat.seat, expectedVersion: version,
      requestId: crypto.randomUUID(), legalActionId: id,
    }, { seat: seat.token });
  } catch (err) { $("error").textContent = err.message; }
}

$("game").onchange = renderSetup;
$("seats").onchange = renderSetup;
$("host-form").onsubmit = host;
$("tables").onclick = (event) => { if (event.target.dataset.join) join(event.target.dataset.join); };
loadLobby().catch((err) => { $("status").textContent = err.message; });
