// Turn attention and announcements: a short chime made with the Web Audio API
// when it becomes your turn (muted with the header's switch, remembered in
// localStorage), the tab title while it is your turn, and an ARIA live region
// that reads each move aloud to a screen reader.
const MUTE = "parlour.muted";
let audio = null;
let yourTurn = false;
let plainTitle = "";

export function muted() {
  try { return localStorage.getItem(MUTE) === "1"; } catch { return false; }
}

export function setMuted(value) {
  try { localStorage.setItem(MUTE, value ? "1" : "0"); } catch { /* for this page only */ }
}

/** Two soft notes; nothing when muted or when the browser has no audio. */
export function chime() {
  if (muted()) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const now = audio.currentTime;
    [660, 880].forEach((hz, i) => {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.15, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.25);
      tone.connect(gain).connect(audio.destination);
      tone.start(now + i * 0.12);
      tone.stop(now + i * 0.12 + 0.3);
    });
    document.body.dataset.chimed = String(Number(document.body.dataset.chimed || 0) + 1);
  } catch { /* no audio here */ }
}

/** Marks whether it is this browser's turn: a chime when it becomes so, and the tab title. */
export function attention(on, title = "") {
  if (!plainTitle) plainTitle = document.title;
  if (on && !yourTurn) chime();
  yourTurn = on;
  document.title = on ? `${title} · ${plainTitle}` : plainTitle;
}

/** Says ``text`` in the page's live region (screen readers read it once). */
export function announce(text) {
  const region = document.getElementById("announce");
  if (region && text) region.textContent = text;
}
