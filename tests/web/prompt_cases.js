// The table's own drawing functions (clients/web/table.js) on views as the contract's
// JSON carries them, in English and in Polish; test_browser_issue32.py evaluates this
// in the page.
async () => {
  const { TableScreen } = await import("/static/table.js");
  const { setLang } = await import("/static/i18n.js");
  // the table's own drawing functions on views as the contract's JSON carries them
  const screen = Object.create(TableScreen.prototype);
  Object.assign(screen, { selected: [], queue: [], log: [], clock: { turn: 0, bank: 0 }, games: [] });
  const players = ["Kai", "Bo", "Cy", "Dee"].map((playerName, seat) => ({ seat, playerName, score: 0, handSize: 8 }));
  const bids = [5, 6, 7].map((n, id) => ({ id, label: `bid ${n}`, action: { kind: "ACTION_KIND_BID", bid: n } }));
  const forced = { game: "kaiser", seat: 0, dealer: 0, phase: "bid", seatCount: 4, players, toAct: [0], legalActions: bids };
  const free = { ...forced, legalActions: [...bids, { id: 9, label: "pass", action: { kind: "ACTION_KIND_PASS" } }] };
  const hearts = { game: "hearts", seat: 0, phase: "play", seatCount: 4, toAct: [1], legalActions: [],
    players: players.map((p) => ({ ...p, pointsThisHand: p.seat === 1 ? 1 : p.seat === 2 ? 5 : 0 })) };
  const said = (view) => { screen.shown = view; return screen.prompt(view).textContent; };
  const facts = () => hearts.players.map((p) => { screen.shown = hearts; return screen.seatBadge(hearts, p).querySelector(".facts").textContent; });
  const out = { forced: said(forced), free: said(free), facts: facts() };
  setLang("pl");
  out.pl = { forced: said(forced), facts: facts() };
  setLang("en");
  return out;
}
