// Analyses as the contract's JSON carries them (a Hearts pass of three cards, a
// Crazy 8s play with penalty points, a Wizard bid), said by the browser's expert
// module (analysis.js) in English and in Polish; test_replay_analysis.py
// evaluates this in the page.
async () => {
  const { Expert, actionCards, points } = await import("/static/analysis.js");
  const { setLang } = await import("/static/i18n.js");
  const legal = (id, kind, label, extra = {}) => ({ id, action: { kind, ...extra }, label });
  const estimate = (p, low, high) => ({ points: p, low, high, playouts: 40 });
  const judged = (seq, seat, played, best, cost, marked) => ({
    seq: String(seq), seat, handNumber: 1, phase: "play", played, best,
    playedEstimate: estimate(4 + cost, 3 + cost, 5 + cost), bestEstimate: estimate(4, 3, 5),
    cost, costLow: Math.max(0, cost - 1), costHigh: cost + 1, marked,
  });
  const pass = judged(7, 2,
    legal(3, "ACTION_KIND_GIVE", "give 2H 3H 4H", { card: "2H", moreCards: ["3H", "4H"] }),
    legal(9, "ACTION_KIND_GIVE", "give QS KH 2C", { card: "QS", moreCards: ["KH", "2C"] }), 13.25, true);
  const play = judged(12, 2, legal(1, "ACTION_KIND_PLAY", "play 8S", { card: "8S" }),
    legal(1, "ACTION_KIND_PLAY", "play 8S", { card: "8S" }), 0, false);
  const analysis = {
    tableId: "t", game: "hearts", state: "ANALYSIS_STATE_DONE", budget: 40, threshold: 3,
    higherIsBetter: false, decisions: [pass, play],
    summaries: [{ seat: 2, decisions: 2, givenAway: 13.25, marked: 1, biggestMistakes: ["7"] }],
  };
  const view = { players: ["Ada", "Bo", "Cy", "Dee"].map((playerName, seat) => ({ seat, playerName })) };
  const text = (html) => { const box = document.createElement("div"); box.innerHTML = html; return box.textContent; };
  const said = {};
  for (const code of ["en", "pl"]) {
    setLang(code);
    const expert = new Expert("t", {}, () => {});
    expert.take(analysis);
    said[code] = {
      passCards: expert.bestAt(7).cards, passSame: expert.bestAt(7).same, passSeat: expert.bestAt(7).seat,
      playSame: expert.bestAt(12).same, unjudged: expert.bestAt(8),
      passNote: text(expert.noteHtml(7, view)), playNote: text(expert.noteHtml(12, view)),
      panel: text(expert.panelHtml(true, view)), points: points(13.25),
    };
    expert.close();
  }
  setLang("en");
  said.bid = actionCards({ kind: "ACTION_KIND_BID", number: 2 });
  return said;
}
