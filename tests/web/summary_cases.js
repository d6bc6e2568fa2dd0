// Results as the contract's JSON carries them (the Kaiser set contract, the Hearts
// moon and the blocked Crazy 8s round of tests/engine/test_results.py), said by
// the browser's summary module in English and in Polish; test_browser_table.py
// evaluates this in the page.
async () => {
  const { describeHand, endWords } = await import("/static/summary.js");
  const { setLang } = await import("/static/i18n.js");
  const players = ["Ada", "Bo", "Cy", "Dee (normal)"].map((playerName, seat) => ({ seat, playerName }));
  const kaiser = {
    players, scores: [20, -55, 20, -55], endReason: "END_REASON_FELL_TO_MINUS_TARGET",
    endRule: { target: 52, partnerships: true, winner: "WINNER_RULE_HIGHEST_TOTAL" },
  };
  const kaiserHand = {
    handNumber: 4, dealer: 0, points: [10, -10, 10, -10], totals: [20, -55, 20, -55], tricksTaken: [8, 0, 0, 0],
    kaiser: {
      bidder: 1, biddingTeam: 1, bid: 10, noTrump: false, trump: "SUIT_CLUBS", made: false,
      pointsTaken: [10, 0], scoreChange: [10, -10],
    },
  };
  // a made contract seen from seat 1 (Bo): Bo and Dee took the 5♥ (Dee's trick), Ada and Cy the 3♠
  const made = {
    handNumber: 2, dealer: 3, points: [-3, 8, -3, 8], totals: [-3, 8, -3, 8], tricksTaken: [2, 3, 1, 2],
    kaiser: { bidder: 1, biddingTeam: 1, bid: 7, noTrump: false, trump: "SUIT_HEARTS", made: true, pointsTaken: [0, 10], scoreChange: [0, 10] },
  };
  const madeTricks = [{ leader: 3, winner: 3, plays: ["5H", "7H", "8H", "9H"].map((card, i) => ({ seat: (3 + i) % 4, card })) }];
  const trick = { leader: 0, winner: 0, plays: ["AC", "KH", "QS", "TD"].map((card, seat) => ({ seat, card })) };
  const moonHand = {
    handNumber: 1, dealer: 3, points: [0, 26, 26, 26], totals: [0, 26, 26, 26], tricksTaken: [13, 0, 0, 0],
    hearts: { moonShooter: 0, pointsTaken: [26, 0, 0, 0], passDirection: "none", lastTrick: trick, tiePlaysOn: false },
  };
  const blockedHand = {
    handNumber: 3, dealer: 2, points: [5, 17, 14], totals: [12, 30, 14], tricksTaken: [],
    crazy8s: { outcome: "CRAZY_EIGHTS_OUTCOME_BLOCKED", cardsLeft: [2, 2, 2], stockRebuilds: 2 },
  };
  const say = () => {
    const set = describeHand(kaiser, kaiserHand);
    const moon = describeHand({ players }, moonHand, [trick]);
    const blocked = describeHand({ players: players.slice(0, 3) }, blockedHand);
    return {
      set: set.lines, end: endWords(kaiser), moon: moon.lines, moonRow: moon.rows[0],
      columns: moon.columns.map((c) => c[0]), blocked: blocked.lines, left: blocked.rows.map((r) => r.left),
      made: describeHand({ players, seat: 1 }, made, madeTricks).lines,
    };
  };
  const en = say();
  setLang("pl");
  const pl = say();
  setLang("en");
  return { ...en, pl };
}
