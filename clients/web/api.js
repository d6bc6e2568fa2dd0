// The REST/JSON gateway (POST /api/<Service>/<Method>) and the seats this
// browser holds. A seat token is kept in localStorage under the table id, so a
// reload (or a new tab) finds its seat again. Every call says the page's
// language (Accept-Language; a stream, which cannot set headers, as ``lang``),
// so the server's own words come back in it.
import { lang } from "./i18n.js";

export class ApiError extends Error {
  /** ``reason`` and ``args``: the refusal's code and arguments, when the service sends them;
   * ``localized``: the service's words for it in the page's language. */
  constructor(code, message, reason = "", args = {}, localized = "") {
    super(message);
    this.code = code;
    this.reason = reason;
    this.args = args;
    this.localized = localized;
  }
}

let sessionLost = null;

/** ``handler()`` runs when a call other than AccountService's finds this browser's
 *  session dead (revoked from another device, or expired): account.js signs out. */
export function onSessionLost(handler) { sessionLost = handler; }

/** One unary call; ``tokens`` is { seat, host } (either may be missing); ``language`` overrides the page's. */
export async function rpc(method, body, tokens = {}, language = lang()) {
  // X-Parlour-CSRF: the gateway refuses a POST with the session cookie without it
  const headers = {
    "Content-Type": "application/json",
    "Accept-Language": language,
    "X-Parlour-CSRF": "1",
  };
  if (tokens.seat) headers["X-Parlour-Seat-Token"] = tokens.seat;
  if (tokens.host) headers["X-Parlour-Host-Token"] = tokens.host;
  const response = await fetch(`/api/${method}`, { method: "POST", headers, body: JSON.stringify(body || {}) });
  let data = {};
  try { data = await response.json(); } catch { /* an empty or non-JSON body */ }
  if (!response.ok && data.code === "UNAUTHENTICATED" && data.reason === "NOT_SIGNED_IN" &&
      !method.startsWith("AccountService/") && sessionLost) sessionLost();
  if (!response.ok) throw new ApiError(data.code || String(response.status), data.message || response.statusText, data.reason || "", data.args || {}, data.localized || "");
  return data;
}

/**
 * Follows a table: calls ``onUpdate({version, view, events})`` for each change,
 * resuming from the last version after a dropped connection.
 * Returns a function that stops watching.
 */
export function watch(tableId, seat, token, { onUpdate, onStatus, onFatal }) {
  let version = 0;
  let source = null;
  let stopped = false;
  let retry = null;
  const open = () => {
    const request = { tableId, fromVersion: version };
    if (seat !== null && seat !== undefined) request.seat = seat;
    let url = `/api/PlayService/Watch?q=${encodeURIComponent(JSON.stringify(request))}&lang=${lang()}`;
    if (token) url += `&seat_token=${encodeURIComponent(token)}`;
    source = new EventSource(url);
    source.onopen = () => onStatus && onStatus("status.connected");
    source.onmessage = (event) => {
      const update = JSON.parse(event.data);
      version = Number(update.version);
      onUpdate(update);
    };
    source.addEventListener("end", () => { source.close(); onStatus && onStatus("status.over"); });
    source.addEventListener("error", (event) => {
      if (event.data) {  // the service refused: a bad token, an unknown table
        const problem = JSON.parse(event.data);
        source.close();
        stopped = true;
        onFatal && onFatal(new ApiError(problem.code, problem.message, problem.reason || "", problem.args || {}, problem.localized || ""));
        return;
      }
      if (stopped) return;
      source.close();
      onStatus && onStatus("status.reconnecting");
      retry = setTimeout(probe, 1000);
    });
  };
  // A stream the gateway refused at once (an HTTP error: no spectators, a bad token)
  // reaches EventSource as a bare error; the same view asked once says whether it
  // is a refusal for good (then onFatal) or a connection to open again.
  const probe = async () => {
    const request = { tableId };
    if (seat !== null && seat !== undefined) request.seat = seat;
    try {
      await rpc("PlayService/GetView", request, { seat: token });
    } catch (error) {
      if (error instanceof ApiError && FOR_GOOD.includes(error.code)) {
        stopped = true;
        onFatal && onFatal(error);
        return;
      }
    }
    if (!stopped) open();
  };
  open();
  return () => { stopped = true; clearTimeout(retry); if (source) source.close(); };
}

/** Refusals a stream does not outlive by reconnecting. */
const FOR_GOOD = ["PERMISSION_DENIED", "NOT_FOUND", "UNAUTHENTICATED", "INVALID_ARGUMENT"];

const KEY = "parlour.seats";

/** Every seat this browser holds: { [tableId]: { seat, token, hostToken, name, game } }. */
export function savedSeats() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { return {}; }
}

export function saveSeat(tableId, entry) {
  const seats = savedSeats();
  seats[tableId] = { ...(seats[tableId] || {}), ...entry, saved: Date.now() };
  localStorage.setItem(KEY, JSON.stringify(seats));
}

export function forgetSeat(tableId) {
  const seats = savedSeats();
  delete seats[tableId];
  localStorage.setItem(KEY, JSON.stringify(seats));
}

export function savedName() {
  return localStorage.getItem("parlour.name") || "";
}

export function saveName(name) {
  localStorage.setItem("parlour.name", name);
}
