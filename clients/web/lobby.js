// The lobby: host a table (the form is built from the catalogue's option
// schema and bot levels), join or watch an open table, rejoin a saved seat.
import { forgetSeat, rpc, saveName, saveSeat, savedName, savedSeats } from "./api.js";
import { randomHex } from "./fairdeal.js";
import { lang, t } from "./i18n.js";
import { ratingBadge } from "./home.js";
import { closedToSpectators, inviteOnly, inviteToggle, wireInviteToggles } from "./moderation.js";
import { escape } from "./summary.js";
import { botLevelLabel, gameText, optionDescription, optionLabel, optionValue, refusalWords } from "./words.js";

export class LobbyScreen {
  constructor(root, games, { openTable, openRules }) {
    this.root = root;
    this.games = games;
    this.openTable = openTable;
    this.root.className = "lobby-screen";
    this.root.innerHTML =
      `<section class="panel host"><h2>${escape(t("lobby.host"))}</h2><form id="host-form">` +
      `<label>${escape(t("lobby.your_name"))} <input id="name" autocomplete="nickname" maxlength="40" required></label>` +
      `<label>${escape(t("lobby.game"))} <select id="game">${games.map((g) => `<option value="${escape(g.id)}">${escape(gameText(g, "name"))}</option>`).join("")}</select></label>` +
      `<p id="rules-summary" class="muted"></p><p id="end-rule" class="end-rule"></p>` +
      `<p><button type="button" id="read-rules">${escape(t("lobby.read_rules"))}</button></p>` +
      `<label>${escape(t("lobby.players"))} <select id="seats"></select></label>` +
      `<fieldset id="seat-setup"><legend>${escape(t("lobby.seats"))}</legend></fieldset>` +
      `<fieldset id="options"><legend>${escape(t("lobby.options"))}</legend></fieldset>` +
      `<button class="primary" type="submit" id="host">${escape(t("lobby.host_button"))}</button><p class="refusal" role="alert"></p></form></section>` +
      `<section class="panel tables"><div id="mine"></div><h2>${escape(t("lobby.open_tables"))}</h2><ul id="open-tables" class="table-list"></ul>` +
      `<h2>${escape(t("lobby.in_play"))}</h2><ul id="playing-tables" class="table-list"></ul></section>`;
    const name = this.$("name");
    name.value = savedName() || t("guest");
    this.$("read-rules").onclick = () => openRules && openRules(this.game().id);
    this.$("game").onchange = () => this.renderSetup();
    this.$("seats").onchange = () => this.renderSetup();
    this.$("host-form").onsubmit = (event) => { event.preventDefault(); this.host(); };
    this.renderSetup();
    this.renderMine();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 3000);
  }

  $(id) { return this.root.querySelector(`#${id}`); }

  close() { clearInterval(this.timer); this.closed = true; }

  game() { return this.games.find((g) => g.id === this.$("game").value) || this.games[0]; }

  renderSetup() {
    const game = this.game();
    if (!game) return;
    const keep = Number(this.$("seats").value);
    const counts = [];
    for (let n = game.minSeats; n <= game.maxSeats; n++) counts.push(`<option value="${n}">${n}</option>`);
    this.$("seats").innerHTML = counts.join("");
    if (keep >= game.minSeats && keep <= game.maxSeats) this.$("seats").value = String(keep);
    this.$("rules-summary").textContent = gameText(game, "summary");
    const ends = gameText(game, "end");
    this.$("end-rule").textContent = ends;
    // Only the levels the catalogue lists are offered; "normal" is the default where listed.
    const levels = game.botLevels || [];
    const preferred = levels.includes("normal") ? "normal" : levels[levels.length - 1];
    const choices = levels.map((level) => `<option value="bot:${escape(level)}"${level === preferred ? " selected" : ""}>` +
      `${escape(botLevelLabel(level))}</option>`).join("") +
      `<option value="person">${escape(t("lobby.a_friend"))}</option>`;
    const count = Number(this.$("seats").value);
    let rows = `<div class="seat-row"><span class="seat-no">1</span><span>${escape(t("you"))}</span></div>`;
    for (let seat = 1; seat < count; seat++) {
      rows += `<div class="seat-row"><span class="seat-no">${seat + 1}</span><select data-seat="${seat}" aria-label="${escape(t("seat.numbered", { n: seat + 1 }))}">${choices}</select>` +
        `${inviteToggle(seat)}</div>`;
    }
    this.$("seat-setup").innerHTML = `<legend>${escape(t("lobby.seats"))}</legend>${rows}`;
    wireInviteToggles(this.$("seat-setup"));
    // The rules form is built from the option schema the catalogue publishes.
    this.$("options").innerHTML = `<legend>${escape(t("lobby.options"))}</legend>` + ((game.options || []).map((option) =>
      `<label class="option" title="${escape(optionDescription(option))}"><span>${escape(optionLabel(option.name))}` +
      `<small>${escape(optionDescription(option))}</small></span><select data-option="${escape(option.name)}">` +
      option.allowedValues.map((v) => `<option value="${escape(v)}" ${v === option.defaultValue ? "selected" : ""}>${escape(optionValue(v))}</option>`).join("") +
      `</select></label>`).join("") || `<p class="muted">${escape(t("lobby.no_options"))}</p>`);
  }

  async host() {
    const button = this.$("host");
    const refusal = this.root.querySelector("#host-form .refusal");
    refusal.textContent = "";
    const name = this.$("name").value.trim() || t("guest");
    saveName(name);
    const options = {};
    this.root.querySelectorAll("[data-option]").forEach((el) => { options[el.dataset.option] = el.value; });
    const seatSetup = [{ kind: "SEAT_KIND_PERSON" }];
    this.root.querySelectorAll("[data-seat]").forEach((el) => {
      const [kind, level] = el.value.split(":");
      seatSetup.push(kind === "bot" ? { kind: "SEAT_KIND_BOT", botLevel: level }
        : { kind: "SEAT_KIND_PERSON", inviteOnly: inviteOnly(this.$("seat-setup"), Number(el.dataset.seat)) });
    });
    button.disabled = true;
    try {
      const game = this.game();
      const entropy = randomHex();
      const hosted = await rpc("LobbyService/HostTable", {
        game: game.id, seats: seatSetup.length, options, seatSetup,
        name: t("lobby.table_name", { name, game: gameText(game, "name") }), hostPlayerName: name, hostTakesSeat: true, hostSeat: 0,
        // every table this browser hosts has players' entropy: no single party chooses a deck
        playersEntropy: true, hostEntropy: entropy,
      });
      const tableId = hosted.table.tableId;
      saveSeat(tableId, { seat: hosted.seat || 0, token: hosted.seatToken, hostToken: hosted.hostToken, name, game: game.id, entropy,
        seatCodes: hosted.seatCodes || [] });
      if (seatSetup.slice(1).every((s) => s.kind === "SEAT_KIND_BOT")) {
        await rpc("LobbyService/StartTable", { tableId }, { host: hosted.hostToken });
      }
      this.openTable(tableId);
    } catch (error) {
      refusal.textContent = refusalWords(error, null);
      button.disabled = false;
    }
  }

  renderMine() {
    const mine = Object.entries(savedSeats()).sort((a, b) => (b[1].saved || 0) - (a[1].saved || 0));
    const box = this.$("mine");
    if (!mine.length) { box.innerHTML = ""; return; }
    box.innerHTML = `<h2>${escape(t("lobby.your_tables"))}</h2><ul class="table-list">${mine.map(([id, s]) =>
      `<li><span>${escape(t("lobby.as", { game: this.gameName(s.game), name: s.name || t("you") }))}</span>` +
      `<span class="buttons"><button class="primary" data-rejoin="${escape(id)}">${escape(t("lobby.rejoin"))}</button>` +
      `<button data-forget="${escape(id)}" aria-label="${escape(t("lobby.forget_label"))}">${escape(t("lobby.forget"))}</button></span></li>`).join("")}</ul>`;
    box.querySelectorAll("[data-rejoin]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.rejoin); });
    box.querySelectorAll("[data-forget]").forEach((b) => { b.onclick = () => { forgetSeat(b.dataset.forget); this.renderMine(); }; });
  }

  /** A table's name as listed: the server's default ("Ada's Crazy 8s table", for a table
   *  hosted without a name, e.g. by a program) said in the page's language. */
  tableName(table) {
    const game = this.games.find((g) => g.id === table.game);
    const name = table.name || "";
    if (!game) return name || this.gameName(table.game);
    const suffix = ` ${game.name} table`;
    if (lang() !== "en" && name.endsWith(`'s${suffix}`)) {
      return t("lobby.table_name", { name: name.slice(0, -`'s${suffix}`.length), game: gameText(game, "name") });
    }
    return name || this.gameName(table.game);
  }

  gameName(id) {
    const game = this.games.find((g) => g.id === id);
    return game ? gameText(game, "name") : id || t("lobby.a_table");
  }

  async refresh() {
    try {
      const open = (await rpc("LobbyService/ListTables", { status: "TABLE_STATUS_OPEN", pageSize: 30 })).tables || [];
      const playing = (await rpc("LobbyService/ListTables", { status: "TABLE_STATUS_PLAYING", pageSize: 10 })).tables || [];
      if (this.closed) return;  // the lobby was left while the lists were on their way
      await this.fetchRatings([...open, ...playing]);
      if (this.closed) return;
      this.renderList("open-tables", open, true);
      this.renderList("playing-tables", playing, false);
    } catch (error) {
      if (this.closed) return;
      this.$("open-tables").innerHTML = `<li class="muted">${escape(refusalWords(error, null))}</li>`;
    }
  }

  /**
   * The seats' ratings of the listed tables (HomeService.GetTablesRatings): one call
   * for every table whose seated players changed since the last refresh, none if
   * no table's did. A failed call leaves the names without ratings.
   */
  async fetchRatings(tables) {
    this.ratings = this.ratings || new Map();  // table id -> {who, seats}
    const who = (table) => (table.seats || []).map((s) => (s.occupied ? `${s.kind}:${s.playerName || ""}` : "")).join("|");
    const stale = tables.filter((table) => (this.ratings.get(table.tableId) || {}).who !== who(table));
    if (!stale.length) return;
    try {
      const answer = await rpc("HomeService/GetTablesRatings", { tableIds: stale.map((table) => table.tableId) });
      const found = new Map((answer.tables || []).map((entry) => [entry.tableId, entry.seats || []]));
      for (const table of stale) this.ratings.set(table.tableId, { who: who(table), seats: found.get(table.tableId) || [] });
    } catch { /* shown without ratings; asked again at the next refresh */ }
  }

  /** A seated player as listed: the name (a bot's level in words) and its rating. */
  playerHtml(table, seat) {
    const name = seat.kind === "SEAT_KIND_BOT" ? botLevelLabel(seat.botLevel || "") : seat.playerName || "";
    const rated = (((this.ratings && this.ratings.get(table.tableId)) || {}).seats || []).find((r) => (r.seat || 0) === (seat.seat || 0));
    return `<span class="lobby-player">${escape(name)}${rated && rated.rating ? ` ${ratingBadge(rated.rating)}` : ""}</span>`;
  }

  renderList(id, tables, joinable) {
    const say = t;  // (``t`` is each table below)
    const mine = savedSeats();
    const list = this.$(id);
    list.innerHTML = tables.map((t) => {
      const seats = t.seats || [];
      const taken = seats.filter((s) => s.occupied).length;
      const players = seats.filter((s) => s.occupied && (s.kind === "SEAT_KIND_BOT" || s.playerName)).map((s) => this.playerHtml(t, s));
      const canJoin = joinable && !mine[t.tableId] && taken < seats.length;
      return `<li data-table="${escape(t.tableId)}"><span><strong>${escape(this.tableName(t))}</strong>` +
        `<small>${escape(this.gameName(t.game))} · ${escape(say("lobby.seats_taken", { count: taken, seats: t.seatCount }))}</small>${players.length ? `<small class="lobby-players">${players.join(", ")}</small>` : ""}</span>` +
        `<span class="buttons">${canJoin ? `<button class="primary" data-join="${escape(t.tableId)}">${escape(say("lobby.join"))}</button>` : ""}` +
        `${mine[t.tableId] ? `<button class="primary" data-rejoin="${escape(t.tableId)}">${escape(say("lobby.rejoin"))}</button>`
          : closedToSpectators(t) ? "" : `<button data-watch="${escape(t.tableId)}">${escape(say("lobby.watch"))}</button>`}</span></li>`;
    }).join("") || `<li class="muted">${escape(t("lobby.none"))}</li>`;
    list.querySelectorAll("[data-join]").forEach((b) => { b.onclick = () => this.join(b.dataset.join); });
    list.querySelectorAll("[data-rejoin]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.rejoin); });
    list.querySelectorAll("[data-watch]").forEach((b) => { b.onclick = () => this.openTable(b.dataset.watch, { watch: true }); });
  }

  async join(tableId) {
    const name = this.$("name").value.trim() || t("guest");
    saveName(name);
    try {
      const table = (await rpc("LobbyService/GetTable", { tableId })).table;
      const entropy = randomHex();  // this seat's contribution to the deals
      const joined = await rpc("LobbyService/JoinTable", { tableId, playerName: name, entropy });
      saveSeat(tableId, { seat: joined.seat || 0, token: joined.seatToken, name, game: table.game, entropy });
      this.openTable(tableId);
    } catch (error) {
      this.root.querySelector("#host-form .refusal").textContent = refusalWords(error, null);
    }
  }
}
