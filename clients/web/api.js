// The REST/JSON gateway (POST /api/<Service>/<Method>) and the seats this
// browser holds. A seat token is kept in localStorage under the table id, so a
// reload (or a new tab) finds its seat again.

export class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** One unary call; ``tokens`` is { seat, host } (either may be missing). */
export async function rpc(method, body, tokens = {}) {
  // X-Parlour-CSRF: the gateway refuses a POST with the session cookie without it
  const headers = { "Content-Type": "application/json", "X-Parlour-CSRF": "1" };
  if (tokens.seat) headers["X-Parlour-Seat-Token"] = tokens.seat;
  if (tokens.host) headers["X-Parlour-Host-Token"] = tokens.host;
  const response = await fetch(`/api/${method}`, { method: "POST", headers, body: JSON.stringify(body || {}) });
  let data = {};
  try { data = await response.json(); } catch { /* an empty or non-JSON body */ }
  if (!response.ok) throw new ApiError(data.code || String(response.status), data.message || response.statusText);
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
    let url = `/api/PlayService/Watch?q=${encodeURIComponent(JSON.stringify(request))}`;
    if (token) url += `&seat_token=${encodeURIComponent(token)}`;
    source = new EventSource(url);
    source.onopen = () => onStatus && onStatus("connected");
    source.onmessage = (event) => {
      const update = JSON.parse(event.data);
      version = Number(update.version);
      onUpdate(update);
    };
    source.addEventListener("end", () => { source.close(); onStatus && onStatus("the game is over"); });
    source.addEventListener("error", (event) => {
      if (event.data) {  // the service refused: a bad token, an unknown table
        const problem = JSON.parse(event.data);
        source.close();
        stopped = true;
        onFatal && onFatal(new ApiError(problem.code, problem.message));
        return;
      }
      if (stopped) return;
      source.close();
      onStatus && onStatus("connection lost: reconnecting…");
      retry = setTimeout(open, 1000);
    });
  };
  open();
  return () => { stopped = true; clearTimeout(retry); if (source) source.close(); };
}

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
