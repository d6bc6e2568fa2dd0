// The page's words in the player's language: one catalogue per language
// (i18n/en.js, i18n/pl.js), whole sentences with named placeholders
// ("{name} takes the trick"), plural forms chosen by Intl.PluralRules (CLDR:
// 1 karta, 2 karty, 5 kart). The language comes from the switch in the page
// (remembered in localStorage), else from navigator.languages, else English.
import en from "./i18n/en.js";
import pl, { serverText as plServer } from "./i18n/pl.js";

export const CATALOGUES = { en, pl };
/** Translations of texts the server's catalogue sends in English (game names, options, end rules). */
export const SERVER_TEXT = { en: {}, pl: plServer };
export const LANGUAGES = { en: "English", pl: "Polski" };
const KEY = "parlour.lang";

function stored() {
  try { return globalThis.localStorage ? localStorage.getItem(KEY) : null; } catch { return null; }
}

/** The language chosen: the page's switch, else the browser's first known language, else "en". */
export function chooseLanguage(saved = stored(), preferred = globalThis.navigator ? navigator.languages || [navigator.language] : []) {
  if (saved && CATALOGUES[saved]) return saved;
  for (const tag of preferred || []) {
    const base = String(tag || "").toLowerCase().split("-")[0];
    if (CATALOGUES[base]) return base;
  }
  return "en";
}

let current = chooseLanguage();

export function lang() { return current; }

/** Switches the language (and remembers it); the caller redraws the page. */
export function setLang(code) {
  if (!CATALOGUES[code]) return;
  current = code;
  try { localStorage.setItem(KEY, code); } catch { /* private mode: for this page only */ }
  if (globalThis.document) {
    document.documentElement.lang = code;
    document.dispatchEvent(new Event("parlour:language"));  // e.g. the account header redraws
  }
}

if (globalThis.document) document.documentElement.lang = current;

const rules = {};
function pluralForm(code, count) {
  if (!rules[code]) rules[code] = new Intl.PluralRules(code);
  return rules[code].select(Number(count));
}

/** True if the catalogue of the language has ``key``. */
export function has(key, code = current) {
  return Object.prototype.hasOwnProperty.call(CATALOGUES[code] || {}, key);
}

/**
 * The sentence ``key`` in the language, its {placeholders} filled from ``args``;
 * a plural entry ({ one, few, many, other }) is chosen by ``args.count``.
 * A key missing in the language falls back to English, then to the key itself.
 */
export function t(key, args = {}, code = current) {
  let entry = has(key, code) ? CATALOGUES[code][key] : en[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[pluralForm(code, args.count ?? 0)] ?? entry.other;
  return String(entry).replace(/\{(\w+)\}/g, (whole, name) => (name in args ? String(args[name]) : whole));
}
