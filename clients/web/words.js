// The browser's names for what it draws: cards, suits, seats, options and the
// phase, so no contract code ("TH", "N2", "SUIT_HEARTS", "screw_the_dealer")
// reaches the page. Actions and events are not said here: the table shows the
// server's words for them as sent (LegalAction.label, PublicEvent.words, from
// services/parlour/words.py), only saying "seat 2" by the player's name.

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_WORD = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const SUIT_OF_ENUM = { SUIT_CLUBS: "C", SUIT_DIAMONDS: "D", SUIT_HEARTS: "H", SUIT_SPADES: "S" };
const RANK_WORD = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };

/** The suit letter ("H") of the contract's Suit enum value ("SUIT_HEARTS"); "" if none. */
export function suitLetter(value) {
  return SUIT_OF_ENUM[value] || "";
}

/** What a card code is: { special: "wizard" | "jester" | "", rank: "10", suit: "H", red }. */
export function cardParts(code) {
  if (/^W\d$/.test(code)) return { special: "wizard", rank: "W", suit: "", red: false };
  if (/^N\d$/.test(code)) return { special: "jester", rank: "N", suit: "", red: false };
  const suit = code.slice(-1);
  const rank = code.slice(0, -1).replace("T", "10");
  return { special: "", rank, suit, red: suit === "H" || suit === "D" };
}

/** A card as a person writes it: "10♥", "Q♠", "wizard", "jester". */
export function cardName(code) {
  if (!code) return "";
  const parts = cardParts(code);
  return parts.special || parts.rank + (SUIT_SYMBOL[parts.suit] || parts.suit);
}

/** A card read aloud (screen readers, titles): "queen of spades", "10 of hearts", "wizard". */
export function cardWords(code) {
  const parts = cardParts(code);
  if (parts.special) return parts.special;
  const rank = RANK_WORD[code.slice(0, -1)] || parts.rank;
  return `${rank} of ${SUIT_WORD[parts.suit] || parts.suit}`;
}

/** Card codes written anywhere in a server's text, said as cards ("play TH" -> "play 10♥"). */
export function sayCards(text) {
  return String(text || "")
    .replace(/\b([2-9TJQKA])([CDHS])\b/g, (_, rank, suit) => rank.replace("T", "10") + SUIT_SYMBOL[suit])
    .replace(/\bT([♣♦♥♠])/g, "10$1")
    .replace(/\bW[1-4]\b/g, "wizard")
    .replace(/\bN[1-4]\b/g, "jester")
    .replace(/\b(\d+)NT\b/g, "$1 no trump");
}

/** A seat said by its player's name ("Ada"), "you" for the viewer's own seat when asked. */
export function seatName(view, seat, { you = false } = {}) {
  if (you && view && view.seat === seat) return "you";
  const player = ((view && view.players) || []).find((p) => (p.seat || 0) === seat);
  const name = (player && player.playerName) || `Seat ${seat + 1}`;
  // a computer player is called by its name everywhere, without the level the server
  // adds to it ("Bot 2 (normal)"); the seat's tooltip gives the level
  return player && player.kind === "SEAT_KIND_BOT" ? name.replace(/ \([^)]*\)$/, "") : name;
}

/** Server text with card codes said as cards and "seat 2" said by name. */
export function say(text, view) {
  return sayCards(text).replace(/\bseat (\d+)/gi, (_, n) => seatName(view, Number(n)));
}

/** An option's label from its schema name: "screw_the_dealer" -> "Screw the dealer". */
export function optionLabel(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An option's value in words: "true" -> "yes", "no_passing" -> "no passing". */
export function optionValue(value) {
  if (value === "true") return "yes";
  if (value === "false") return "no";
  return String(value).replace(/_/g, " ");
}

/** A bot level as offered in the setup: "normal" -> "computer (normal)". */
export function botLevelLabel(level) {
  return `computer (${level})`;
}

/** What the table is doing now, in words. */
export function phaseWords(view) {
  const words = {
    lobby: "waiting for players", deal: "dealing", pass: "passing cards", trump: "choosing trump",
    bid: "bidding", play: "playing", over: "game over",
  };
  return words[view.phase] || view.phase || "";
}

/** "left", "right", "across" or "keep" as a sentence about the pass. */
export function passWords(direction) {
  if (!direction || direction === "none" || direction === "keep") return "no passing this hand";
  return `pass three cards ${direction}`;
}

/** Names joined for a sentence: "Ada", "Ada and Bo", "Ada, Bo and Cy". */
export function joinNames(names) {
  if (names.length <= 1) return names[0] || "nobody";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
