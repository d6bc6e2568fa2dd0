// Who this browser is (AccountService). A guest from the first visit, with no
// form: the gateway makes the device secret and keeps it and the session in
// HttpOnly cookies, so this page never holds a token (nothing of it goes to
// localStorage). A guest may claim a name and a password, sign in to a named
// account (here or in another browser: the account's seats come along), and
// sign out. The header shows who you are.
import { ApiError, forgetSeat, rpc, saveSeat, savedSeats } from "./api.js";
import { t } from "./i18n.js";
import { escape } from "./summary.js";
import { refusalWords } from "./words.js";

let current = null;

/** The account this browser is signed in to (null until ensureAccount answered). */
export function account() { return current; }

/** Signs in as this browser's guest unless a session is live; the account. */
export async function ensureAccount() {
  try {
    current = (await rpc("AccountService/WhoAmI")).account;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "UNAUTHENTICATED") throw error;
    current = (await rpc("AccountService/AuthenticateDevice")).account;
  }
  await adoptSeats();
  return current;
}

/** The account's seats at open and playing tables, kept as this browser's: the session
 *  plays them, so they need no seat token (a seat taken elsewhere resumes here). */
async function adoptSeats() {
  const seats = (await rpc("AccountService/ListMySeats")).seats || [];
  const saved = savedSeats();
  for (const held of seats) {
    if (!saved[held.tableId]) {
      saveSeat(held.tableId, { seat: held.seat || 0, name: current.name || "you", game: held.game, account: current.accountId });
    }
  }
}

/** The seats this browser held only through the account it leaves. */
function forgetAccountSeats(accountId) {
  for (const [tableId, held] of Object.entries(savedSeats())) {
    if (held.account === accountId && !held.token) forgetSeat(tableId);
  }
}

/** The header's "signed in as" line and its buttons; ``onChange`` after any change. */
export function renderAccount(box, { onChange }) {
  const draw = () => {
    if (!current) { box.innerHTML = ""; return; }
    const who = current.guest
      ? `<span class="who">${escape(t("account.guest"))}</span>`
      : `<span class="who">${escape(t("account.signed_in_as", { name: "{name}" }))
        .replace("{name}", `<strong>${escape(current.name)}</strong>`)}</span>`;
    const buttons = current.guest
      ? `<button data-account="claim">${escape(t("account.claim"))}</button><button data-account="signin">${escape(t("account.sign_in"))}</button>`
      : `<button data-account="signout">${escape(t("account.sign_out"))}</button>`;
    box.innerHTML = `${who} ${buttons}`;
    box.querySelectorAll("[data-account]").forEach((button) => {
      button.onclick = () => (button.dataset.account === "signout" ? signOut() : openForm(button.dataset.account));
    });
  };

  const changed = async () => { draw(); if (onChange) onChange(); };

  const signOut = async () => {
    const leaving = current && current.accountId;
    try { await rpc("AccountService/SignOut"); } catch { /* a dead session is signed out anyway */ }
    forgetAccountSeats(leaving);
    current = null;
    await ensureAccount();
    await changed();
  };

  const openForm = (kind) => {
    const claim = kind === "claim";
    const dialog = document.createElement("dialog");
    dialog.className = "account-form";
    dialog.innerHTML = `<form method="dialog"><h2>${escape(t(claim ? "account.claim" : "account.sign_in"))}</h2>` +
      `<p class="muted">${escape(t(claim ? "account.claim_help" : "account.sign_in_help"))}</p>` +
      `<label>${escape(t("account.name"))} <input name="name" autocomplete="username" minlength="3" maxlength="24" required></label>` +
      `<label>${escape(t("account.password"))} <input name="password" type="password" autocomplete="${claim ? "new-password" : "current-password"}" minlength="8" maxlength="256" required></label>` +
      `<div class="buttons"><button class="primary" type="submit">${escape(t(claim ? "account.claim_button" : "account.sign_in"))}</button>` +
      `<button type="button" data-cancel>${escape(t("account.cancel"))}</button></div><p class="refusal" role="alert"></p></form>`;
    document.body.appendChild(dialog);
    const form = dialog.querySelector("form");
    const close = () => { dialog.close(); dialog.remove(); };
    dialog.querySelector("[data-cancel]").onclick = close;
    form.onsubmit = async (event) => {
      event.preventDefault();
      const body = { name: form.elements.name.value, password: form.elements.password.value };
      try {
        current = claim
          ? (await rpc("AccountService/ClaimName", body)).account
          : (await rpc("AccountService/SignIn", body)).account;
        await adoptSeats();
        close();
        await changed();
      } catch (error) {
        dialog.querySelector(".refusal").textContent = refusalWords(error, null);
      }
    };
    dialog.showModal();
    form.elements.name.focus();
  };

  draw();
}
