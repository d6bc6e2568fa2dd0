// Who this browser is (AccountService). A guest from the first visit, with no
// form: the gateway makes the device secret and keeps it and the session in
// HttpOnly cookies, so this page never holds a token (nothing of it goes to
// localStorage). A guest may claim a name and a password, sign in to a named
// account (here or in another browser: the account's seats come along), and
// sign out. The header shows who you are.
import { ApiError, forgetSeat, onSessionLost, rpc, saveSeat, savedSeats } from "./api.js";
import { lang, t } from "./i18n.js";
import { escape } from "./summary.js";
import { refusalWords } from "./words.js";

let current = null;
/** How often a named account's session is checked while the page is shown. */
const CHECK_MS = 10_000;

/** The account this browser is signed in to (null until ensureAccount answered). */
export function account() { return current; }

/** The named account this browser was last signed in to (its id, not a secret), so a
 *  session found dead on a later visit (revoked from another device) signs out. */
const NAMED = "parlour.namedAccount";
let endedElsewhere = false;

function remember() {
  try {
    if (current && !current.guest) localStorage.setItem(NAMED, current.accountId);
    else localStorage.removeItem(NAMED);
  } catch { /* private mode */ }
}

/** Signs in as this browser's guest unless a session is live; the account. A named
 *  account's dead session signs this browser out (a new guest), never in again from the
 *  device cookie: a session ended from another device stays ended. */
export async function ensureAccount() {
  try {
    current = (await rpc("AccountService/WhoAmI")).account;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "UNAUTHENTICATED") throw error;
    const named = localStorage.getItem(NAMED);
    if (named) {
      try { await rpc("AccountService/SignOut"); } catch { /* dead already: the cookies go anyway */ }
      forgetAccountSeats(named);
      endedElsewhere = true;
    }
    current = (await rpc("AccountService/AuthenticateDevice")).account;
  }
  remember();
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
      saveSeat(held.tableId, { seat: held.seat || 0, name: current.name || "", game: held.game, account: current.accountId });
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
  let notice = "";  // said once: the session was ended from another device
  const draw = () => {
    if (endedElsewhere) { notice = t("account.signed_out_elsewhere"); endedElsewhere = false; }
    if (!current) { box.innerHTML = ""; return; }
    const who = current.guest
      ? `<span class="who">${escape(t("account.guest"))}</span>`
      : `<span class="who">${escape(t("account.signed_in_as", { name: "{name}" }))
        .replace("{name}", `<strong>${escape(current.name)}</strong>`)}</span>`;
    const buttons = current.guest
      ? `<button data-account="claim">${escape(t("account.claim"))}</button><button data-account="signin">${escape(t("account.sign_in"))}</button>`
      : `<button data-account="sessions">${escape(t("sessions.open"))}</button><button data-account="signout">${escape(t("account.sign_out"))}</button>`;
    const said = notice ? `<span class="ended" role="status">${escape(notice)}` +
      `<button data-account="dismiss" aria-label="${escape(t("sessions.close"))}">×</button></span>` : "";
    box.innerHTML = `${said}${who} ${buttons}`;
    box.querySelectorAll("[data-account]").forEach((button) => {
      const kind = button.dataset.account;
      button.onclick = () => {
        notice = "";
        if (kind === "dismiss") draw();
        else if (kind === "signout") signOut();
        else if (kind === "sessions") openSessions();
        else openForm(kind);
      };
    });
  };

  // a session revoked from another device: a named account signs out here too (the
  // device cookie goes, so this browser is a new guest), a guest's device signs in again
  let losing = false;
  const lost = async () => {
    if (losing) return;
    losing = true;
    try {
      current = null;
      await ensureAccount();
      await changed();
    } finally { losing = false; }
  };
  onSessionLost(lost);

  // a session ended elsewhere is noticed within CHECK_MS, or as the page is shown again
  const check = async () => {
    if (losing || document.hidden || !current || current.guest) return;
    try { await rpc("AccountService/WhoAmI"); } catch (error) {
      if (error instanceof ApiError && error.code === "UNAUTHENTICATED") await lost();
    }
  };
  setInterval(check, CHECK_MS);
  document.addEventListener("visibilitychange", check);

  const when = (stamp) => {
    const date = new Date(stamp || 0);
    return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
  };

  const openSessions = async () => {
    const dialog = document.createElement("dialog");
    dialog.className = "sessions";
    dialog.setAttribute("aria-labelledby", "sessions-title");
    dialog.innerHTML = `<h2 id="sessions-title">${escape(t("sessions.title"))}</h2><p class="muted">${escape(t("sessions.help"))}</p>` +
      `<ul></ul><p class="done" role="status"></p><p class="refusal" role="alert"></p>` +
      `<div class="buttons"><button data-close>${escape(t("sessions.close"))}</button></div>`;
    document.body.appendChild(dialog);
    const close = () => { dialog.close(); dialog.remove(); };
    dialog.querySelector("[data-close]").onclick = close;
    dialog.addEventListener("cancel", () => dialog.remove());
    const list = async () => {
      const sessions = (await rpc("AccountService/ListSessions")).sessions || [];
      const ul = dialog.querySelector("ul");
      ul.innerHTML = sessions.map((s) => {
        const method = s.method === "password" ? t("sessions.method.password") : t("sessions.method.device");
        return `<li data-session="${escape(s.sessionId)}"${s.current ? " data-current" : ""}><span>${escape(method)}` +
          `${s.current ? ` · <span class="this-one">${escape(t("sessions.this_one"))}</span>` : ""}` +
          `<small>${escape(t("sessions.started", { when: when(s.createdAt) }))} · ${escape(t("sessions.ends", { when: when(s.expiresAt) }))}</small></span>` +
          (s.current ? "" : `<button data-revoke="${escape(s.sessionId)}">${escape(t("sessions.revoke"))}</button>`) + "</li>";
      }).join("");
      ul.querySelectorAll("[data-revoke]").forEach((button) => {
        button.onclick = async () => {
          try {
            await rpc("AccountService/RevokeSession", { sessionId: button.dataset.revoke });
            await list();
            dialog.querySelector(".done").textContent = t("sessions.ended");
          } catch (error) { dialog.querySelector(".refusal").textContent = refusalWords(error, null); }
        };
      });
    };
    try { await list(); } catch (error) { dialog.querySelector(".refusal").textContent = refusalWords(error, null); }
    dialog.showModal();
    dialog.querySelector("[data-close]").focus();
  };

  const changed = async () => { draw(); if (onChange) onChange(); };

  const signOut = async () => {
    const leaving = current && current.accountId;
    try { await rpc("AccountService/SignOut"); } catch { /* a dead session is signed out anyway */ }
    forgetAccountSeats(leaving);
    current = null;
    localStorage.removeItem(NAMED);
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
        remember();
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

  // the header's words follow the language (setLang says when it changes)
  document.addEventListener("parlour:language", draw);
  draw();
}
