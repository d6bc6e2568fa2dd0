// Checking a finished game's deals in the browser (docs/fair-deals.md), from
// the public replay alone. SHA-256 is computed here in plain JavaScript
// (crypto.subtle exists only on https and localhost, and is asynchronous).

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of a Uint8Array, as a Uint8Array of 32 bytes. */
export function sha256(bytes) {
  const length = bytes.length;
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((value, i) => { h[i] = (h[i] + value) >>> 0; });
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((value, i) => outView.setUint32(i * 4, value));
  return out;
}

const utf8 = (text) => new TextEncoder().encode(text);
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
export const sha256Hex = (text) => hex(sha256(utf8(text)));

export function dealCommitment(cards, salt) {
  return sha256Hex(`parlour-deal-v1\n${salt}\n${cards.join(" ")}`);
}

/** The documented shuffle: sorted codes, Fisher-Yates over a SHA-256 counter stream. */
export function derivedDeck(cards, seed, contributions, n) {
  const key = sha256(utf8(`parlour-shuffle-v1\n${seed}\n${contributions.join(",")}\n${n}`));
  let counter = 0;
  let words = [];
  const nextWord = () => {
    if (!words.length) {
      const block = new Uint8Array(36);
      block.set(key);
      new DataView(block.buffer).setUint32(32, counter++);
      const digest = new DataView(sha256(block).buffer);
      words = Array.from({ length: 8 }, (_, i) => digest.getUint32(i * 4));
    }
    return words.shift();
  };
  const deck = [...cards].sort();
  for (let i = deck.length - 1; i > 0; i--) {
    const limit = 2 ** 32 - (2 ** 32 % (i + 1));
    let u = nextWord();
    while (u >= limit) u = nextWord();
    const r = u % (i + 1);
    [deck[i], deck[r]] = [deck[r], deck[i]];
  }
  return deck;
}

/**
 * Checks every deal of a finished game's replay (GetReplay as the gateway
 * gives it). ``announced``: deal number -> the commitment seen during play;
 * ``mine``: { seat, entropy } this browser contributed. Returns
 * { ok, verified, entropy, failure, checks }: the failure and each check as a
 * catalogue key and its arguments ({ key, args }), for the page to say.
 */
export function verifyDeals(replay, announced = new Map(), mine = null) {
  const result = { ok: false, verified: 0, entropy: false, failure: null, checks: [] };
  const fail = (key, args = {}) => ({ ...result, failure: { key, args } });
  if (!replay.finished) return fail("deal.not_over");
  let seed = "";
  let contributions = [];
  let deal = 0;
  for (const event of replay.events || []) {
    const payload = JSON.parse(event.payloadJson || "{}");
    const where = event.seq;
    if (event.type === "TableHosted" && payload.players_entropy) {
      result.entropy = true;
      seed = payload.server_seed || "";
      if (sha256Hex(`parlour-seed-v1\n${seed}`) !== payload.server_seed_commitment) return fail("deal.bad_seed", { where });
    } else if (event.type === "GameStarted" && result.entropy) {
      contributions = payload.contributions || [];
      if (mine && mine.entropy && contributions[mine.seat] !== mine.entropy) return fail("deal.not_yours", { where });
    } else if (event.type === "CardsDealt") {
      const number = deal++;
      if (!payload.commitment) continue;
      if (dealCommitment(payload.cards, payload.salt) !== payload.commitment) return fail("deal.bad_deck", { where, n: number + 1 });
      if (announced.has(number) && announced.get(number) !== payload.commitment) return fail("deal.not_announced", { where, n: number + 1 });
      if (new Set(payload.cards).size !== payload.cards.length) return fail("deal.repeats", { where, n: number + 1 });
      if (result.entropy && derivedDeck(payload.cards, seed, contributions, number).join(" ") !== payload.cards.join(" ")) {
        return fail("deal.not_shuffle", { where, n: number + 1 });
      }
      result.verified += 1;
    }
  }
  result.ok = result.verified > 0;
  result.checks = [{ key: "deal.check_hash" }, { key: "deal.check_once" }];
  if (announced.size) result.checks.push({ key: "deal.check_announced" });
  if (result.entropy) {
    result.checks.push({ key: "deal.check_seed" });
    result.checks.push({ key: mine && mine.entropy ? "deal.check_shuffle_yours" : "deal.check_shuffle" });
  }
  return result;
}

/** 32 random bytes as hex: this browser's contribution to a table's deals. */
export function randomHex() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}
