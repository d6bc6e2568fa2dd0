// The lobby: host a table (the form is built from the catalogue's option
// schema and bot levels), join or watch an open table, rejoin a saved seat.
import { forgetSeat, rpc, saveName, saveSeat, savedName, savedSeats } from "./api.js";
import { randomHex } from "./fairdeal.js";
import { escape } from "./summary.js";
import { botLevelLabel, optionLabel, optionValue } from "./words.js";

export class LobbyScreen {
  constructor(root, games, { openTable }) {
    this.root = root;
    this.games = games;
    this.openTable = openTable;
    this.root.className = "lobby-screen";
    this.root.innerHTML =
      `<section class="panel host"><h2>Host a table</h2><form id="host-form">` +
      `<label>Your name <input id="name" autocomplete="nickname" maxlength="40" required></label>` +
      `<label>Game <select id="game">${games.map((g) => `<option value="${escape(g.id)}">${escape(g.name)}</option>`).join("")}</select></label>` +
      `<p id="rules-summary" class="muted"></p><p id="end-rule" class="end-rule"></p>` +
      `<label>Players <select id="seats"></select></label>` +
      `<fieldset id="seat-setup"><legend>Seats</legend></fieldset>` +
      `<fieldset id="options"><legend>Rules</legend></fieldset>` +
      `<button class="primary" type="submit" id="host">Host the table</button><p class="refusal" role="alert"></p></form></section>` +
      `<section class="panel tables"><div id="mine"></div><h2>Open tables</h2><ul id="open-tables" class="table-list"></ul>` +
      `<h2>Games in play</h2><ul id="playing-tables" class="table-list"></ul></section>`;
    const name = this.$("name");
    name.value = savedName() || "Guest";
    this.$("game").onchange = () => this.renderSetup();
    this.$("seats").onchange = () => this.renderSetup();
    this.$("host-form").onsubmit = (event) => { event.preventDefault(); this.host(); };
    this.renderSetup();
    this.renderMine();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 3000);
  }

  $(id) { return this.root.querySelector(`#${id}`); }

  close() { clearInterval(this.timer); }

  game() { return this.games.find((g) => g.id === this.$("game").value) || this.games[0]; }

  renderSetup() {
    const game = this.game();
    if (!game) return;
    const keep = Number(this.$("seats").value);
    const counts = [];
    for (let n = game.minSeats; n <= game.maxSeats; n++) counts.push(`<option value="${n}">${n}</option>`);
    this.$("seats").innerHTML = counts.join("");
    if (keep >= game.minSeats && keep <= game.maxSeats) this.$("seats").value = String(keep);
    this.$("rules-summary").textContent = game.summary || "";
    const ends = (game.endRule && game.endRule.text) || "";
    this.$("end-rule").textContent = ends ? `${ends.charAt(0).toUpperCase()}${ends.slice(1)}.` : "";
    // Only the levels the catalogue lists are offered; "normal" is the default where listed.
    const levels = game.botLevels || [];
    const preferred = levels.includes("normal") ? "normal" : levels[levels.length - 1];
    const choices = levels.map((level) => `<option value="bot:${escape(level)}"${level === preferred ? " selected" : ""}>` +
      `${escape(botLevelLabel(level))}</option>`).join("") +
      `<option value="person">a friend (open seat)</option>`;
    const count = Number(this.$("seats").value);
    let rows = `<div class="seat-row"><span class="seat-no">1</span><span>you</span></div>`;
    for (let seat = 1; seat < count; seat++) {
      rows += `<label class="seat-row"><span class="seat-no">${seat + 1}</span><select data-seat="${seat}" aria-label="seat ${seat + 1}">${choices}</select></label>`;
    }
    this.$("seat-setup").innerHTML = `<legend>Seats</legend>${rows}`;
    // The rules form is built from the option schema the catalogue publishes.
    this.$("options").innerHTML = `<legend>Rules</legend>` + ((game.options || []).map((option) =>
      `<label class="option" title="${escape(option.description)}"><span>${escape(optionLabel(option.name))}` +
      `<small>${escape(option.description)}</small></span><select data-option="${escape(option.name)}">` +
      option.allowedValues.map((v) => `<option value="${escape(v)}" ${v === option.defaultValue ? "selected" : ""}>${escape(optionValue(v))}</option>`).join("") +
      `</select></label>`).join("") || `<p class="muted">No options.</p>`);
  }

  async host() {
    const button = this.$("host");
    const refusal = this.root.querySelector("#host-form .refusal");
    refusal.textContent = "";
    const name = this.$("name").value.trim() || "Guest";
    saveName(name);
    const options = {};
    this.root.querySelectorAll("[data-option]").forEach((el) => { options[el.dataset.option] = el.value; });
    const seatSetup = [{ kind: "SEAT_KIND_PERSON" }];
    this.root.querySelectorAll("[data-seat]").forEach((el) => {
      const [kind, level] = el.value.split(":");
      seatSetup.push(kind === "bot" ? { kind: "SEAT_KIND_BOT", botLevel: level } : { kind: "SEAT_KIND_PERSON" });
    });
    button.disabled = true;
    try {
      const game = this.game();
      const entropy = randomHex();
      const hosted = await rpc("LobbyService/HostTable", {
        game: game.id, seats: seatSetup.length, options, seatSetup,
        name: `${name}'s ${game.name}`, hostPlayerName: name, hostTakesSeat: true, hostSeat: 0,
        // every table this browser hosts has players' entropy: no single party chooses a deck
        playersEntropy: true, hostEntropy: entropy,
      });
      const tableId = hosted.table.tableId;
      saveSeat(tableId, { seat: hosted.seat || 0, token: hosted.seatToken, hostToken: hosted.hostToken, name, game: game.id, entropy });
      if (seatSetup.slice(1).every((s) => s.kind === "SEAT_KIND_BOT")) {
        await rpc("LobbyService/StartTable", { tableId }, { host: hosted.hostToken });
      }
      this.openTable(tableId);
    } catch (error) {
      refusal.textContent = error.message;
      button.disabled = false;
    }
  }

  renderMine() {
    const mine = Object.entries(savedSeats()).sort((a, b) => (b[1].saved || 0) - (a[1].saved || 0));
    const box = this.$("mine");
    if (!mine.length) { box.innerHTML = ""; return; }
    box.innerHTML = `<h2>Your tables</h2><ul class="table-list">${mine.map(([id, s]) =>
      `<li><span><strong>${escape(this.gameName(s.game))}</strong> as ${escape(s.name || "you")}</span>` +
      `<span class="buttons"><button class="primary" data-rejoin="${escape(id)}">Rejoin</button>` +
      `<button data-forget="${escape(id)}" aria-label="forget this table">Forget</button></span></li>`).join("")}</ul>`;
    box.querySelectorAll("[data-rejoin]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.rejoin); });
    box.querySelectorAll("[data-forget]").forEach((b) => { b.onclick = () => { forgetSeat(b.dataset.forget); this.renderMine(); }; });
  }

  gameName(id) {
    const game = this.games.find((g) => g.id === id);
    return game ? game.name : id || "a table";
  }

  async refresh() {
    try {
      const open = (await rpc("LobbyService/ListTables", { status: "TABLE_STATUS_OPEN", pageSize: 30 })).tables || [];
      const playing = (await rpc("LobbyService/ListTables", { status: "TABLE_STATUS_PLAYING", pageSize: 10 })).tables || [];
      this.renderList("open-tables", open, true);
      this.renderList("playing-tables", playing, false);
    } catch (error) {
      this.$("open-tables").innerHTML = `<li class="muted">${escape(error.message)}</li>`;
    }
  }

  renderList(id, tables, joinable) {
    const mine = savedSeats();
    const list = this.$(id);
    list.innerHTML = tables.map((t) => {
      const seats = t.seats || [];
      const taken = seats.filter((s) => s.occupied).length;
      const people = seats.filter((s) => s.occupied && s.kind !== "SEAT_KIND_BOT").map((s) => s.playerName).filter(Boolean);
      const canJoin = joinable && !mine[t.tableId] && taken < seats.length;
      return `<li data-table="${escape(t.tableId)}"><span><strong>${escape(t.name || this.gameName(t.game))}</strong>` +
        `<small>${escape(this.gameName(t.game))} · ${taken} of ${t.seatCount} seats${people.length ? ` · ${escape(people.join(", "))}` : ""}</small></span>` +
        `<span class="buttons">${canJoin ? `<button class="primary" data-join="${escape(t.tableId)}">Join</button>` : ""}` +
        `${mine[t.tableId] ? `<button class="primary" data-rejoin="${escape(t.tableId)}">Rejoin</button>` : `<button data-watch="${escape(t.tableId)}">Watch</button>`}</span></li>`;
    }).join("") || `<li class="muted">none right now</li>`;
    list.querySelectorAll("[data-join]").forEach((b) => { b.onclick = () => this.join(b.dataset.join); });
    list.querySelectorAll("[data-rejoin]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.rejoin); });
    list.querySelectorAll("[data-watch]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.watch, { watch: true }); });
  }

  async join(tableId) {
    const name = this.$("name").value.trim() || "Guest";
    saveName(name);
    try {
      const table = (await rpc("LobbyService/GetTable", { tableId })).table;
      const entropy = randomHex();  // this seat's contribution to the deals
      const joined = await rpc("LobbyService/JoinTable", { tableId, playerName: name, entropy });
      saveSeat(tableId, { seat: joined.seat || 0, token: joined.seatToken, name, game: table.game, entropy });
      this.openTable(tableId);
    } catch (error) {
      this.root.querySelector("#host-form .refusal").textContent = error.message;
    }
  }
}
