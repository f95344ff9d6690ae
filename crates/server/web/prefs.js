// The reader's preferences, kept in this browser: the colours (like the device, light or
// dark), sounds, and a notification when it is their move. Also what they switch: the sounds
// themselves (Web Audio oscillators, no sound files) and the notifications.
//
// For other parts of the page:
//   sound.move()      one short "tok" per move, as it is sown (board.js calls it)
//   sound.lap()       a softer click when a sowing goes on from a relay hole
//   sound.lowTime()   a distinct warning, for clocks running low
//   notifyTurn(text)  a notification, only when it is switched on, allowed and the tab hidden
//   notify(text, tag) the same for other news (a challenge)
// None of them ever throws: without audio or notifications they do nothing.

import { t } from './i18n.js';

const KEYS = { theme: 'anywoli.theme', sound: 'anywoli.sound', notify: 'anywoli.notify' };
const THEMES = ['system', 'light', 'dark'];

function load(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* the choice lasts this page */ }
}

// ------------------------------------------------------------------------------------------
// Colours. theme.js set them before the first paint; this keeps them right afterwards.

const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

/** 'system' (follow the device), 'light' or 'dark'. */
export function themeChoice() {
  const c = load(KEYS.theme);
  return THEMES.includes(c) ? c : 'system';
}

function applyTheme() {
  const c = themeChoice();
  const dark = c === 'dark' || (c === 'system' && !!darkQuery && darkQuery.matches);
  document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
}

export function setTheme(choice) {
  if (!THEMES.includes(choice)) return;
  store(KEYS.theme, choice === 'system' ? null : choice);
  applyTheme();
}

// ------------------------------------------------------------------------------------------
// Sounds. On by default, as on most game sites: a move heard is a move noticed when the eyes
// are elsewhere, and browsers keep every page silent until the reader first clicks or types
// anyway. The audio starts on that first gesture (the autoplay rule); before it, and wherever
// there is no audio at all, a sound is simply not played.

/** What was asked for and played, for tests and the curious. */
const counts = { move: 0, lap: 0, lowTime: 0, played: 0, failed: 0 };
/** @type {any} */ (window).__anywoliSounds = counts;

export function soundOn() {
  return load(KEYS.sound) !== 'off';
}

export function setSound(on) {
  store(KEYS.sound, on ? 'on' : 'off');
  if (on) {
    unlock();
    sound.move();
  }
}

let ctx = null;
let out = null;

/** Creates or wakes the audio on a gesture of the reader's (the only time browsers allow it). */
function unlock() {
  if (!soundOn() || (ctx && ctx.state === 'running')) return;
  try {
    if (!ctx) {
      const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
      if (!Ctx) return;
      ctx = new Ctx();
      out = ctx.createGain();
      out.gain.value = 0.7;
      out.connect(ctx.destination);
    }
    if (ctx.state !== 'running') ctx.resume().catch(() => {});
  } catch {
    ctx = null;
    counts.failed += 1;
  }
}

for (const type of ['pointerdown', 'keydown', 'touchend']) {
  window.addEventListener(type, unlock, { capture: true, passive: true });
}

/** One note: frequency `f` gliding to `to`, starting `at` seconds from now, `dur` long. */
function tone({ f, to = f, at = 0, dur, gain, type = 'sine' }) {
  const t0 = ctx.currentTime + at;
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(f, t0);
  if (to !== f) o.frequency.exponentialRampToValueAtTime(to, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.005);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  o.connect(g);
  g.connect(out);
  o.start(t0);
  o.stop(t0 + dur + 0.02);
}

const last = {};

/** Plays `notes` as the sound `kind`, at most once every `gap` ms (a backlog of moves shown
 * at once makes one sound, not a burst). */
function play(kind, notes, gap) {
  if (!soundOn()) return false;
  counts[kind] += 1;
  const now = performance.now();
  if (last[kind] !== undefined && now - last[kind] < gap) return false;
  last[kind] = now;
  if (!ctx || ctx.state !== 'running') return false;
  try {
    for (const n of notes) tone(n);
    counts.played += 1;
    return true;
  } catch {
    counts.failed += 1;
    return false;
  }
}

export const sound = {
  /** A seed-on-wood "tok": a low glide with a short click on top. */
  move: () => play('move', [
    { f: 320, to: 150, dur: 0.12, gain: 0.4 },
    { f: 1400, to: 900, dur: 0.035, gain: 0.08, type: 'triangle' },
  ], 90),
  /** A softer, higher click: the sowing goes on with the seeds of another hole. */
  lap: () => play('lap', [{ f: 760, to: 560, dur: 0.05, gain: 0.1 }], 60),
  /** Three rising beeps, unlike any move sound: the clock is running low. */
  lowTime: () => play('lowTime', [
    { f: 880, dur: 0.11, gain: 0.22, type: 'triangle' },
    { f: 880, at: 0.17, dur: 0.11, gain: 0.22, type: 'triangle' },
    { f: 1175, at: 0.34, dur: 0.2, gain: 0.25, type: 'triangle' },
  ], 500),
};

// ------------------------------------------------------------------------------------------
// Notifications: asked for only when the reader switches them on, never on load.

let notifyBroken = false;
let shown = null;

// Back on the page, the reader needs the notification no more.
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && shown) {
    try { shown.close(); } catch { /* gone already */ }
    shown = null;
  }
});

function notifySupported() {
  return 'Notification' in window && !notifyBroken;
}

/** Whether a notification would be shown now if the tab were hidden. */
export function notifyOn() {
  return load(KEYS.notify) === 'on' && notifySupported() && window.Notification.permission === 'granted';
}

/** Switches notifications on (asking the browser's permission first) or off; true when on. */
export async function setNotify(on) {
  if (!on || !notifySupported()) {
    store(KEYS.notify, 'off');
    return false;
  }
  let p = window.Notification.permission;
  if (p === 'default') {
    try { p = await window.Notification.requestPermission(); } catch { p = 'denied'; }
  }
  store(KEYS.notify, p === 'granted' ? 'on' : 'off');
  return p === 'granted';
}

/**
 * Shows `text` as a notification when the reader switched them on, the browser allows them
 * and this tab is hidden (a reader looking at the page needs none). Returns the notification,
 * or null. One at a time: a newer one replaces the older.
 */
export function notifyTurn(text) {
  return notify(text, 'anywoli-turn');
}

/** The same for anything else worth a notification (a challenge: its own `tag`, so that it
 * does not replace a move's). */
export function notify(text, tag) {
  if (!document.hidden || !notifyOn()) return null;
  try {
    const n = new window.Notification(t('app_title'), { body: text, tag, icon: '/assets/icon.svg' });
    n.onclick = () => {
      window.focus();
      n.close();
    };
    shown = n;
    return n;
  } catch {
    // Chrome on Android shows notifications only through a service worker, which this page
    // does not have: the switch then says that this browser cannot show them.
    notifyBroken = true;
    showPrefs();
    return null;
  }
}

// ------------------------------------------------------------------------------------------
// The settings menu in the page's header.

function $(id) {
  return /** @type {any} */ (document.getElementById(id));
}

/** Shows the stored choices in the menu, in the page's language. */
export function showPrefs() {
  const menu = $('prefs');
  if (!menu) return;
  for (const r of menu.querySelectorAll('input[name=theme]')) r.checked = r.value === themeChoice();
  $('pref-sound').checked = soundOn();
  const box = $('pref-notify');
  const note = $('notify-note');
  box.checked = notifyOn();
  box.disabled = !notifySupported();
  let key = 'notify_note';
  if (!notifySupported()) key = 'notify_unsupported';
  else if (window.Notification.permission === 'denied') key = 'notify_denied';
  note.textContent = t(key);
  note.dataset.state = key;
}

/** Wires the settings menu; called once when the page starts. */
export function initPrefs() {
  applyTheme();
  if (darkQuery) {
    const follow = () => { if (themeChoice() === 'system') applyTheme(); };
    if (darkQuery.addEventListener) darkQuery.addEventListener('change', follow);
    else if (darkQuery.addListener) darkQuery.addListener(follow);
  }
  const menu = $('prefs');
  if (!menu) return;
  showPrefs();
  menu.addEventListener('change', async (e) => {
    const el = /** @type {HTMLInputElement} */ (e.target);
    if (el.name === 'theme') setTheme(el.value);
    else if (el.id === 'pref-sound') setSound(el.checked);
    else if (el.id === 'pref-notify') {
      el.disabled = true;
      await setNotify(el.checked);
    }
    showPrefs();
  });
  // The menu closes like a menu: a click elsewhere, or Escape (focus back on its button).
  document.addEventListener('click', (e) => {
    if (menu.open && !menu.contains(/** @type {Node} */ (e.target))) menu.open = false;
  });
  menu.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
}
