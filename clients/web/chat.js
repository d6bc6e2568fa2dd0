// The table's chat (issue 32): the latest lines the view carries (View.chat),
// a line input for a seat, and the host's switch. One panel per table screen,
// made once and moved (never redrawn) when the table redraws, so a line being
// typed keeps its text and its focus. Chat updates skip the table's pacing:
// a line shows at once, even while a trick is held or a summary is up.
// Every text a player wrote is set as textContent, never as markup.
import { rpc } from "./api.js";
import { t } from "./i18n.js";
import { refusalWords, seatName } from "./words.js";

/** The event types that change nothing of the game (the table need not redraw for them). */
export const CHAT_EVENTS = new Set(["ChatSaid", "ChatSwitched"]);
/** The longest line the server keeps (PlayService.Say). */
export const MAX_CHAT = 200;

let panels = 0;

export class ChatPanel {
  /** ``held``: the seat this browser holds ({ seat, token, hostToken }) or null. */
  constructor(tableId, held) {
    this.tableId = tableId;
    this.held = held;
    this.version = -1;
    this.view = null;
    this.sending = false;
    const id = `chat-${++panels}`;
    this.el = document.createElement("section");
    this.el.className = "chat";
    this.el.setAttribute("aria-labelledby", `${id}-title`);
    this.title = document.createElement("h2");
    this.title.id = `${id}-title`;
    // the log region holds the list (a list's own role stays a list, for its items)
    this.log = document.createElement("div");
    this.log.className = "chat-log";
    this.log.setAttribute("role", "log");
    this.log.setAttribute("aria-live", "polite");
    this.log.setAttribute("aria-labelledby", `${id}-title`);
    this.log.tabIndex = 0;  // scrollable: reachable by keyboard
    this.lines = document.createElement("ol");
    this.lines.className = "chat-lines";
    this.log.append(this.lines);
    this.note = document.createElement("p");
    this.note.className = "chat-note";
    this.note.setAttribute("role", "status");
    this.form = document.createElement("form");
    this.form.className = "chat-form";
    this.label = document.createElement("label");
    this.label.htmlFor = `${id}-input`;
    this.label.className = "sr-only";
    this.input = document.createElement("input");
    this.input.id = `${id}-input`;
    this.input.type = "text";
    this.input.maxLength = MAX_CHAT;
    this.input.autocomplete = "off";
    this.send = document.createElement("button");
    this.send.type = "submit";
    this.form.append(this.label, this.input, this.send);
    this.form.onsubmit = (event) => { event.preventDefault(); this.say(); };
    this.toggle = document.createElement("button");
    this.toggle.type = "button";
    this.toggle.className = "chat-switch";
    this.toggle.onclick = () => this.switchChat();
    this.el.append(this.title, this.log, this.note, this.form);
    if (held && held.hostToken) this.el.append(this.toggle);
    // keys typed into the line are the line's, not the table's shortcuts
    this.input.addEventListener("keydown", (event) => event.stopPropagation());
    this.problem = "";
    this.words();
  }

  /** The latest view (from the Watch stream, ahead of the table's pacing). */
  update(view, version) {
    if (Number(version) < this.version) return;
    this.version = Number(version);
    this.view = view;
    this.draw();
  }

  /** The panel's fixed words again, in the language just chosen. */
  words() {
    this.title.textContent = t("chat.title");
    this.label.textContent = t("chat.label");
    this.input.placeholder = t("chat.placeholder");
    this.send.textContent = t("chat.send");
    this.draw();
  }

  enabled() {
    return Boolean(this.view && this.view.chatEnabled);
  }

  draw() {
    const view = this.view;
    const chat = (view && view.chat) || [];
    const atEnd = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    this.lines.replaceChildren(...chat.map((line) => {
      const item = document.createElement("li");
      const who = document.createElement("strong");
      who.textContent = line.playerName || seatName(view, Number(line.seat || 0));
      const text = document.createElement("span");
      text.textContent = line.text || "";
      item.append(who, ": ", text);
      return item;
    }));
    if (!chat.length) {
      const empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = t("chat.empty");
      this.lines.append(empty);
    }
    if (atEnd) this.log.scrollTop = this.log.scrollHeight;
    const seated = Boolean(this.held);
    const open = this.enabled();
    this.form.hidden = !seated;
    this.input.disabled = !open || this.sending;
    this.send.disabled = !open || this.sending;
    let note = this.problem;
    if (!note && !open && view && view.phase !== "lobby" && !view.isOver) note = t("chat.off");
    if (!note && view && view.phase === "lobby") note = t("chat.not_yet");
    if (!note && !seated) note = t("chat.spectator");
    this.note.textContent = note;
    this.toggle.textContent = open ? t("chat.switch_off") : t("chat.switch_on");
    this.toggle.hidden = !view || view.phase === "lobby" || Boolean(view.isOver);
  }

  async say() {
    const text = this.input.value.trim();
    if (!text || !this.held || this.sending) return;
    this.sending = true;
    this.problem = "";
    this.draw();
    try {
      await rpc("PlayService/Say", { tableId: this.tableId, seat: this.held.seat, text }, { seat: this.held.token });
      this.input.value = "";
    } catch (error) {
      this.problem = refusalWords(error, this.view);
    } finally {
      this.sending = false;
      this.draw();
      this.input.focus();
    }
  }

  async switchChat() {
    try {
      await rpc("PlayService/SetChat", { tableId: this.tableId, on: !this.enabled() }, { host: this.held.hostToken });
      this.problem = "";
    } catch (error) {
      this.problem = refusalWords(error, this.view);
    }
    this.draw();
  }

  /** What has the focus in the panel, before the table clears itself to redraw. */
  capture() {
    const typing = this.el.contains(document.activeElement) ? document.activeElement : null;
    return { typing, start: this.input.selectionStart, end: this.input.selectionEnd };
  }

  /** Puts the panel into ``parent`` (a redraw of the table), keeping what is typed and the focus. */
  placeIn(parent, { typing, start, end } = {}) {
    parent.appendChild(this.el);
    if (typing) {
      typing.focus();
      if (typing === this.input && start !== null && start !== undefined) this.input.setSelectionRange(start, end);
    }
  }
}
