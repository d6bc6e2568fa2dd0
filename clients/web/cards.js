// Cards drawn with HTML and CSS: <playing-card code="QS"> is a card face,
// <playing-card back> a card back. No images, so they stay sharp at any size.
import { t } from "./i18n.js";
import { SUIT_SYMBOL, cardName, cardParts, cardWords } from "./words.js";

const FACE = { J: "J", Q: "Q", K: "K" };

class PlayingCard extends HTMLElement {
  static get observedAttributes() { return ["code", "back"]; }

  connectedCallback() { this.render(); }

  attributeChangedCallback() { if (this.isConnected) this.render(); }

  /** Sets the card's own classes, keeping any its container added ("in-trick", "winner"). */
  look(classes) {
    const own = new Set(["card", "face", "back", "red", "special", "wizard", "jester"]);
    const kept = [...this.classList].filter((name) => !own.has(name));
    this.className = [classes, ...kept].join(" ");
  }

  render() {
    const code = this.getAttribute("code") || "";
    if (this.hasAttribute("back") || !code) {
      this.look("card back");
      this.setAttribute("aria-label", t("card.back"));
      this.innerHTML = "";
      return;
    }
    const parts = cardParts(code);
    this.setAttribute("role", "img");
    this.setAttribute("aria-label", cardWords(code));
    this.title = cardWords(code);
    if (parts.special) {
      this.look(`card face special ${parts.special}`);
      const mark = parts.special === "wizard" ? "✦" : "☾";
      this.innerHTML =
        `<span class="corner tl" data-text="${mark}"></span><span class="special-mark" data-text="${mark}"></span>` +
        `<span class="special-word" data-text="${t(`card.${parts.special}`)}"></span><span class="corner br" data-text="${mark}"></span>`;
      return;
    }
    const symbol = SUIT_SYMBOL[parts.suit] || parts.suit;
    this.look(`card face${parts.red ? " red" : ""}`);
    this.dataset.suit = parts.suit;  // the four-colour deck colours by suit
    // the face is drawn by CSS from data-text (no text in the DOM): the card's name is its
    // aria-label, so a button holding it is named by its own label alone
    const centre = FACE[parts.rank]
      ? `<span class="court" data-text="${FACE[parts.rank]}"><small data-text="${symbol}"></small></span>`
      : `<span class="pip" data-text="${symbol}"></span>`;
    this.innerHTML =
      `<span class="corner tl" data-text="${parts.rank}\n${symbol}"></span>${centre}` +
      `<span class="corner br" data-text="${parts.rank}\n${symbol}"></span>`;
  }
}

if (!customElements.get("playing-card")) customElements.define("playing-card", PlayingCard);

/** A card face element for ``code`` (a card back when code is empty). */
export function card(code) {
  const element = document.createElement("playing-card");
  if (code) element.setAttribute("code", code);
  else element.setAttribute("back", "");
  return element;
}

/** A short inline card for sentences: "10♥" in the suit's colour. */
export function inlineCard(code) {
  const span = document.createElement("span");
  const parts = cardParts(code);
  span.className = `inline-card${parts.red ? " red" : ""}${parts.special ? " special" : ""}`;
  if (parts.suit) span.dataset.suit = parts.suit;
  span.textContent = cardName(code);
  return span;
}
