// The browser's names for what it draws: cards, suits, seats, options and the
// phase, so no contract code ("TH", "N2", "SUIT_HEARTS", "screw_the_dealer")
// reaches the page; the words themselves are in the catalogues (i18n.js).
// Actions and events are not said here: the table shows the server's words
// for them as sent (LegalAction.label, PublicEvent.words, from
// services/parlour/words.py, in the language the gateway asked for), only
// saying "seat 2" by the player's name.
import { SERVER_TEXT, has, lang, t } from "./i18n.js";

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
/** A suit's name in the page's language ("hearts", "kier"), from its letter. */
export const suitWord = (letter) => (letter ? t(`suit.${letter}`) : "");
const SUIT_OF_ENUM = { SUIT_CLUBS: "C", SUIT_DIAMONDS: "D", SUIT_HEARTS: "H", SUIT_SPADES: "S" };

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
  return parts.special ? t(`card.${parts.special}`) : parts.rank + (SUIT_SYMBOL[parts.suit] || parts.suit);
}

/** A card read aloud (screen readers, titles): "queen of spades", "10 of hearts", "wizard". */
export function cardWords(code) {
  const parts = cardParts(code);
  if (parts.special) return t(`card.${parts.special}`);
  const letter = code.slice(0, -1);
  const rank = "AKQJ".includes(letter) ? t(`rank.${letter}`) : parts.rank;
  return t("card.words", { rank, suit: suitWord(parts.suit) || parts.suit });
}

/** Card codes written anywhere in a server's text, said as cards ("play TH" -> "play 10♥"). */
export function sayCards(text) {
  return String(text || "")
    .replace(/\b([2-9TJQKA])([CDHS])\b/g, (_, rank, suit) => rank.replace("T", "10") + SUIT_SYMBOL[suit])
    .replace(/\bT([♣♦♥♠])/g, "10$1")
    .replace(/\bW[1-4]\b/g, () => t("card.wizard"))
    .replace(/\bN[1-4]\b/g, () => t("card.jester"))
    .replace(/\b(\d+)NT\b/g, (_, n) => t("bid.no_trump", { n }));
}

/** A seat said by its player's name ("Ada"), "you" for the viewer's own seat when asked. */
export function seatName(view, seat, { you = false } = {}) {
  if (you && view && view.seat === seat) return t("you");
  const player = ((view && view.players) || []).find((p) => (p.seat || 0) === seat);
  const name = (player && player.playerName) || t("seat.numbered", { n: seat + 1 });
  // a computer player is called by its name everywhere, without the level the server
  // adds to it ("Bot 2 (normal)"); the seat's tooltip gives the level
  return player && player.kind === "SEAT_KIND_BOT" ? name.replace(/ \([^)]*\)$/, "") : name;
}

/** Server text with card codes said as cards and "seat 2" said by name. */
export function say(text, view) {
  // "seat 2" in the server's English, "miejsce 2" in its Polish
  return sayCards(text).replace(/\b(?:seat|miejsce) (\d+)/gi, (_, n) => seatName(view, Number(n)));
}

/** An option's label from its schema name: "screw_the_dealer" -> "Screw the dealer" (or its translation). */
export function optionLabel(name) {
  const kept = (SERVER_TEXT[lang()] || {})[`option.${name}`];
  if (kept) return kept;
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An option's description, translated where the catalogue has it, else the server's sentence. */
export function optionDescription(option) {
  return (SERVER_TEXT[lang()] || {})[`option.${option.name}.about`] || option.description || "";
}

/** An option's value in words: "true" -> "yes", "no_passing" -> "no passing". */
export function optionValue(value) {
  if (value === "true") return t("yes");
  if (value === "false") return t("no");
  const kept = (SERVER_TEXT[lang()] || {})[`value.${value}`];
  if (kept) return kept;
  if (has(`level.${value}`)) return t(`level.${value}`);  // away_bot_level's values
  return String(value).replace(/_/g, " ");
}

/** A bot level as offered in the setup: "normal" -> "computer (normal)". */
export function botLevelLabel(level) {
  return t("bot.level", { level: levelWord(level) });
}

/** A bot level in the page's language ("losowy" for "random"; an unknown one as it is). */
export function levelWord(level) {
  return has(`level.${level}`) ? t(`level.${level}`) : level || "";
}

/** A player's name as shown: the level the server puts in a computer player's name
 *  ("Bot 2 (random)", data in English) said in the page's language ("Bot 2 (losowy)"). */
export function localName(name) {
  return (name || "").replace(/ \(([a-z]+)\)$/, (all, level) => (has(`level.${level}`) ? ` (${t(`level.${level}`)})` : all));
}

/** What the table is doing now, in words. */
export function phaseWords(view) {
  return has(`phase.${view.phase}`) ? t(`phase.${view.phase}`) : view.phase || "";
}

/** Where the cards go this hand ("left" -> "left", "w lewo"). */
export function directionWords(direction) {
  return has(`direction.${direction}`) ? t(`direction.${direction}`) : direction || "";
}

/** "left", "right", "across" or "keep" as a sentence about the pass. */
export function passWords(direction) {
  if (!direction || direction === "none" || direction === "keep") return t("pass.none");
  return t("pass.three", { direction: directionWords(direction) });
}

/** Names joined for a sentence: "Ada", "Ada and Bo", "Ada, Bo and Cy" ("Ada i Bo"). */
export function joinNames(names) {
  if (names.length <= 1) return names[0] || t("nobody");
  return t("names.and", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

/**
 * A refusal from the service in the page's language: its reason code and
 * arguments through the catalogue ("reason.<code>") when the gateway's error
 * body carries them, else the service's English message; cards and seats said
 * as the page says them.
 */
export function refusalWords(error, view) {
  if (error && error.reason && has(`reason.${error.reason}`)) {
    const args = {};
    for (const [name, value] of Object.entries(error.args || {})) args[name] = say(String(value), view);
    return t(`reason.${error.reason}`, args);
  }
  // the service's own words in the page's language, else its English message
  return say((error && (error.localized || error.message)) || "", view);
}

/**
 * A catalogue text the server sends in English (a game's name, summary or
 * end rule): its translation for the page's language where one is kept
 * (i18n/pl.js's serverText), else the server's words.
 */
export function gameText(game, field) {
  const kept = (SERVER_TEXT[lang()] || {})[`game.${game.id}.${field}`];
  if (kept) return kept;
  if (field === "end") {
    const ends = (game.endRule && game.endRule.text) || "";
    return ends ? `${ends.charAt(0).toUpperCase()}${ends.slice(1)}.` : "";
  }
  return game[field] || "";
}
