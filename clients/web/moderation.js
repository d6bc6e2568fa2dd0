// The host's moderation of an open table (LobbyService.RemoveFromSeat, invite-only
// seats with their seat codes, the "spectators" table option), and what a removed
// player sees. The host form marks person seats invite-only (inviteToggles,
// inviteOnlySeats); HostTable answers each such seat's code once, kept with the
// host token in this browser (api.js saveSeat); the waiting room (table.js calls
// hostControls) shows each invite-only seat's own invitation link, whose address
// (#/join/TABLE/CODE) carries the code, and a Remove button on every seat a
// person took before the start, asked again in a dialog.
import { forgetSeat, rpc } from "./api.js";
import { t } from "./i18n.js";
import { escape } from "./summary.js";
import { refusalWords } from "./words.js";

/** The invitation link of one invite-only seat: the table and the seat's code. */
export function seatInvitation(tableId, code) {
  return `${location.origin}${location.pathname}#/join/${tableId}/${encodeURIComponent(code)}`;
}

/** The seat code an invitation's address carries ("" for a plain #/join/TABLE). */
export function invitationCode(hash = location.hash) {
  const code = hash.split("/")[3] || "";
  try { return decodeURIComponent(code); } catch { return ""; }
}

/** Whether the table's option "spectators" is off (a watcher would be refused). */
export function closedToSpectators(table) {
  return Boolean(table && table.options && table.options.spectators === "off");
}

/** The host form's invite-only switch for person seat ``seat`` (a toggle button). */
export function inviteToggle(seat) {
  return `<button type="button" class="invite-only" data-invite="${seat}" aria-pressed="false" ` +
    `aria-label="${escape(t("moderation.invite_only_label", { n: seat + 1 }))}">${escape(t("moderation.invite_only"))}</button>`;
}

/** Wires the host form's switches: each shows only while its seat is a person's. */
export function wireInviteToggles(form) {
  form.querySelectorAll("[data-invite]").forEach((button) => {
    const choice = form.querySelector(`select[data-seat="${button.dataset.invite}"]`);
    const show = () => { button.hidden = Boolean(choice) && choice.value !== "person"; };
    button.onclick = () => button.setAttribute("aria-pressed", String(button.getAttribute("aria-pressed") !== "true"));
    if (choice) choice.addEventListener("change", show);
    show();
  });
}

/** Whether the host form marks person seat ``seat`` invite-only. */
export function inviteOnly(form, seat) {
  const button = form.querySelector(`[data-invite="${seat}"]`);
  return Boolean(button) && !button.hidden && button.getAttribute("aria-pressed") === "true";
}

/**
 * The waiting room's moderation, drawn into its panel after table.js drew it:
 * ``table`` as GetTable answered, ``held`` this browser's seat (with hostToken and
 * seatCodes for the host) or null; ``redraw`` draws the room again.
 */
export function hostControls(root, { tableId, table, held, redraw }) {
  const panel = root.querySelector(".panel.waiting");
  if (!panel || !table) return;
  const seats = table.seats || [];
  const host = held && held.hostToken;
  const codes = new Map(((held && held.seatCodes) || []).map((c) => [c.seat || 0, c.code]));
  for (const seat of seats) {
    const number = seat.seat || 0;
    const row = panel.querySelector(`.seat-list li[data-seat="${number}"]`);
    if (!row) continue;
    if (seat.inviteOnly && !seat.occupied) {
      row.insertAdjacentHTML("beforeend", `<em class="invited">${escape(t("moderation.kept_for_invited"))}</em>`);
    }
    if (host && seat.occupied && seat.kind !== "SEAT_KIND_BOT" && number !== held.seat) {
      row.insertAdjacentHTML("beforeend",
        `<button class="remove" data-remove="${number}">${escape(t("moderation.remove"))}` +
        `<span class="sr-only"> ${escape(t("seat.numbered", { n: number + 1 }))}</span></button>`);
    }
  }
  // a person the host removed: the seat is open again and this browser's claim on it is gone
  const mine = held && !host ? seats.find((s) => (s.seat || 0) === held.seat) : null;
  if (mine && !mine.occupied) {
    forgetSeat(tableId);
    // the seat is not this browser's any more: no "you" on it
    const row = panel.querySelector(`.seat-list li[data-seat="${held.seat}"]`);
    if (row) row.querySelectorAll("em").forEach((mark) => { if (mark.textContent === t("you")) mark.remove(); });
    panel.insertAdjacentHTML("afterbegin", `<p class="removed-note" role="alert">${escape(t("moderation.you_were_removed"))}</p>`);
    panel.querySelectorAll("[data-start]").forEach((b) => b.remove());
  }
  if (host) {
    const open = seats.filter((s) => s.inviteOnly && !s.occupied && codes.has(s.seat || 0));
    if (open.length) {
      const links = open.map((s) => {
        const n = (s.seat || 0) + 1;
        const link = seatInvitation(tableId, codes.get(s.seat || 0));
        return `<div class="seat-invite"><label>${escape(t("moderation.seat_link", { n }))} <input readonly value="${escape(link)}"></label>` +
          `<button data-copy-seat="${s.seat || 0}">${escape(t("moderation.copy_seat_link", { n }))}</button><span class="copied" role="status"></span></div>`;
      }).join("");
      const after = panel.querySelector(".seat-list");
      after.insertAdjacentHTML("afterend", `<div class="seat-invites"><p class="muted">${escape(t("moderation.invite_only_help"))}</p>${links}</div>`);
      panel.querySelectorAll("[data-copy-seat]").forEach((button) => {
        button.onclick = () => copy(button.parentElement.querySelector("input"), button.parentElement.querySelector(".copied"));
      });
    }
    if (closedToSpectators(table)) {
      panel.querySelector(".seat-list").insertAdjacentHTML("afterend", `<p class="muted no-spectators">${escape(t("moderation.no_spectators"))}</p>`);
    }
  }
  panel.querySelectorAll("[data-remove]").forEach((button) => {
    button.onclick = () => {
      const number = Number(button.dataset.remove);
      const seat = seats.find((s) => (s.seat || 0) === number) || {};
      confirmRemoval(seat.playerName || t("waiting.a_player"), number, async () => {
        await rpc("LobbyService/RemoveFromSeat", { tableId, seat: number }, { host: held.hostToken });
        redraw();
      });
    };
  });
}

async function copy(field, note) {
  try {
    await navigator.clipboard.writeText(field.value);
    note.textContent = t("waiting.copied");
  } catch {
    field.select();
    note.textContent = t("waiting.copy_by_hand");
  }
}

/** Asks the host once more before ``remove()``; a refusal is said in the dialog. */
function confirmRemoval(name, seat, remove) {
  const dialog = document.createElement("dialog");
  dialog.className = "confirm-remove";
  dialog.setAttribute("aria-labelledby", "confirm-remove-title");
  dialog.innerHTML = `<h2 id="confirm-remove-title">${escape(t("moderation.confirm_title", { name }))}</h2>` +
    `<p>${escape(t("moderation.confirm_body", { name, n: seat + 1 }))}</p>` +
    `<div class="buttons"><button class="primary" data-confirm>${escape(t("moderation.remove"))}</button>` +
    `<button data-cancel>${escape(t("account.cancel"))}</button></div><p class="refusal" role="alert"></p>`;
  document.body.appendChild(dialog);
  const close = () => { dialog.close(); dialog.remove(); };
  dialog.querySelector("[data-cancel]").onclick = close;
  dialog.addEventListener("cancel", () => dialog.remove());
  dialog.querySelector("[data-confirm]").onclick = async () => {
    try { await remove(); close(); } catch (error) { dialog.querySelector(".refusal").textContent = refusalWords(error, null); }
  };
  dialog.showModal();
  dialog.querySelector("[data-cancel]").focus();
}
