// A game's rules as a page, in the player's language: the rules document the
// catalogue serves (CatalogueService/GetGame's rules_text; the service answers
// in the language the call asks for where a translation ships, such as the
// Polish original of Hearts, Kierki). Where there is no translation the
// English text is shown with a note saying so.
import { rpc } from "./api.js";
import { lang, t } from "./i18n.js";
import { escape } from "./summary.js";
import { gameText } from "./words.js";

export class RulesScreen {
  constructor(root, gameId, games, { onBack }) {
    this.root = root;
    this.root.className = "rules-screen";
    const game = games.find((g) => g.id === gameId) || { id: gameId, name: gameId };
    this.root.innerHTML = `<article class="panel rules" lang="${lang()}"><p class="muted">${escape(t("rules.loading"))}</p></article>`;
    this.show(game, onBack);
  }

  close() {}

  async show(game, onBack) {
    const box = this.root.querySelector(".rules");
    let text = "";
    let note = "";
    try {
      text = (await rpc("CatalogueService/GetGame", { game: game.id })).game.rulesText || "";
      if (lang() !== "en") {
        const english = (await rpc("CatalogueService/GetGame", { game: game.id }, {}, "en")).game.rulesText || "";
        if (english === text) { note = t("rules.english_only"); box.lang = "en"; }
      }
    } catch (error) {
      text = "";
      note = error.message;
    }
    box.innerHTML =
      `<div class="buttons"><button class="primary" data-back>${escape(t("rules.back"))}</button></div>` +
      `<p class="muted">${escape(t("rules.title", { game: gameText(game, "name") }))}</p>` +
      (note ? `<p class="rules-note" role="note">${escape(note)}</p>` : "") + renderRules(text);
    box.querySelector("[data-back]").onclick = () => onBack();
    box.querySelector("[data-back]").focus();
  }
}

function inline(text) {
  return escape(text).replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>").replace(/`([^`]+)`/g, "<code>$1</code>");
}

/**
 * The rules document as HTML: Markdown headings, lists, tables and paragraphs,
 * or the plain-text layout of hearts.pl.md (a first line as the title, a short
 * line standing alone as a section heading, "•" and "1." lists).
 */
export function renderRules(text) {
  const blocks = String(text).replace(/\r/g, "").split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  const html = [];
  blocks.forEach((block, index) => {
    const lines = block.split("\n");
    const heading = /^(#{1,4})\s+(.*)$/.exec(lines[0]);
    if (heading && lines.length === 1) {
      const level = Math.min(heading[1].length + 1, 4);
      html.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (lines.every((l) => /^\s*\|/.test(l))) {
      const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
      const rows = lines.filter((l) => !/^\s*\|[\s|:-]+\|?\s*$/.test(l));
      html.push(`<table class="result"><thead><tr>${cells(rows[0]).map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead>` +
        `<tbody>${rows.slice(1).map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`);
    } else if (lines.every((l) => /^\s*([-*•]|\d+\.)\s+/.test(l) || /^\s{2,}\S/.test(l))) {
      const ordered = /^\s*\d+\./.test(lines[0]);
      const items = [];
      for (const line of lines) {
        if (/^\s*([-*•]|\d+\.)\s+/.test(line)) items.push(line.replace(/^\s*([-*•]|\d+\.)\s+/, ""));
        else items[items.length - 1] += ` ${line.trim()}`;
      }
      const tag = ordered ? "ol" : "ul";
      html.push(`<${tag}>${items.map((i) => `<li>${inline(i)}</li>`).join("")}</${tag}>`);
    } else if (lines.length === 1 && index === 0) {
      html.push(`<h2>${inline(lines[0])}</h2>`);
    } else if (lines.length === 1 && lines[0].length < 50 && !/[.:;,]$/.test(lines[0])) {
      html.push(`<h3>${inline(lines[0])}</h3>`);
    } else {
      html.push(`<p>${inline(lines.join(" "))}</p>`);
    }
  });
  return html.join("");
}
