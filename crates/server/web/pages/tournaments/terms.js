// Tournaments' words and reckonings (docs/tournaments.md, "On the site"): systems and states in
// words, countdowns, score sheets, the creation form's body, and whether the page takes the
// player to their game by itself. Pure (the texts aside), so that the unit tests run them.

import { t, tn } from '../../i18n.js';

export const SYSTEMS = ['arena', 'swiss', 'round-robin'];

/** The time controls offered on the creation form, beside a free one. */
export const TOURNAMENT_CLOCKS = ['1+0', '3+2', '5+3', '10+5'];

/** A standings page's length (the API's). */
export const PAGE_SIZE = 20;

/** A real-time control as the API takes it: minutes (maybe a fraction) + seconds per move. */
const CLOCK_RE = /^\d{1,3}(\.\d{1,2})?\+\d{1,3}$/;

/** A system in words ('arena', 'swiss', 'round-robin'). */
export function systemName(system) {
  const key = 'tm_system_' + String(system).replace(/-/g, '_');
  const s = t(key);
  return s === key ? String(system) : s;
}

/** A tournament's state in words ('upcoming', 'running', 'finished', 'cancelled'). */
export function statusName(status) {
  const key = 'tm_status_' + status;
  const s = t(key);
  return s === key ? String(status) : s;
}

/** Whether the tournament's games go by rounds (Swiss, round robin). */
export function byRounds(tour) {
  return tour.system === 'swiss' || tour.system === 'round-robin';
}

/** A span of time as a countdown: `0:05`, `4:05`, `1:02:03`, `2 d 3 h` (whole seconds, up). */
export function countdownText(ms) {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  if (total >= 86400) return t('clock_days', { d: Math.floor(total / 86400), h: Math.floor((total % 86400) / 3600) });
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The line that counts down: to the start, to an arena's end, to the next round; '' when
 * nothing is awaited.
 * @param {any} tour a tournament (`T`)
 * @param {number} now ms, on the server's clock as near as the page knows it
 */
export function timeLine(tour, now) {
  if (tour.status === 'upcoming') {
    return tour.starts_at > now ? t('tm_starts_in', { time: countdownText(tour.starts_at - now) }) : t('tm_starting');
  }
  if (tour.status !== 'running') return '';
  if (tour.system === 'arena') {
    return typeof tour.ends_at === 'number' ? t('tm_ends_in', { time: countdownText(tour.ends_at - now) }) : '';
  }
  if (typeof tour.next_round_at === 'number') {
    return tour.next_round_at > now ? t('tm_next_round_in', { time: countdownText(tour.next_round_at - now) }) : t('tm_next_round_soon');
  }
  return '';
}

/** "Round 2 of 5" for a Swiss or round robin under way; '' otherwise. */
export function roundText(tour) {
  if (!byRounds(tour) || !tour.round) return '';
  return t('tm_round_of', { n: tour.round, total: tour.rounds || '?' });
}

/** A score: whole, or with ½ (1.5 → "1½", 0.5 → "½"). */
export function scoreText(x) {
  const n = Number(x) || 0;
  const whole = Math.floor(n);
  const half = Math.abs(n - whole - 0.5) < 1e-9;
  if (half) return (whole === 0 ? '' : String(whole)) + '½';
  return String(Math.round(n * 100) / 100);
}

/**
 * A player's score sheet as marks, in the order played: in an arena each game's points, in a
 * Swiss or round robin each round's result (W, D, L, bye; – for a round missed); `*` for a game
 * still played. Each mark says its round, result and opponent in `title`.
 * @param {any[]} sheet a standing's `sheet`
 * @param {string} system
 * @returns {{text: string, result: string, title: string, game: string|null, double: boolean, berserk: boolean}[]}
 */
export function sheetMarks(sheet, system) {
  const arena = system === 'arena';
  const rows = Array.isArray(sheet) ? [...sheet] : [];
  if (!arena) rows.sort((a, b) => (a.round || 0) - (b.round || 0));
  return rows.map((e) => {
    const result = e.result || 'playing';
    let text;
    if (!e.result) text = '*';
    else if (arena) text = scoreText(e.points);
    else if (result === 'absent') text = '–';
    else text = t('tm_mark_' + result);
    const word = { win: 'filter_win', draw: 'filter_draw', loss: 'filter_loss', bye: 'tm_result_bye', absent: 'tm_result_absent', playing: 'result_playing' }[result];
    const parts = [];
    if (!arena && e.round) parts.push(t('tm_round_n', { n: e.round }));
    parts.push(word ? t(word) : result);
    if (e.opponent) parts.push(e.opponent);
    if (arena && e.result) parts.push(tn('tm_points_n', e.points, { n: scoreText(e.points) }));
    return {
      text,
      result,
      title: parts.join(' · '),
      game: e.game || null,
      // A win worth double (after two wins in a row): 4, or 5 berserked.
      double: arena && e.result === 'win' && Number(e.points) >= 4,
      berserk: Boolean(e.berserk),
    };
  });
}

/**
 * Whether the page takes the player to `game`, their tournament game, by itself: only a game
 * this tab has not opened yet (so that Back from a game does not bounce into it again), and
 * never the game on screen.
 * @param {string|null|undefined} game
 * @param {string[]} opened the games this tab opened (`openedGames`)
 * @param {string|null} [here] the game shown now
 */
export function shouldOpen(game, opened, here = null) {
  return typeof game === 'string' && game !== '' && game !== here && !opened.includes(game);
}

const OPENED_KEY = 'anywoli.tournamentGames';

/** The tournament games this tab opened (sessionStorage), oldest first. */
export function openedGames(store = globalThis.sessionStorage) {
  try {
    const v = JSON.parse(store.getItem(OPENED_KEY) || '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Notes that this tab opened `game` (the last 100 are kept). */
export function markOpened(game, store = globalThis.sessionStorage) {
  const list = openedGames(store).filter((g) => g !== game);
  list.push(game);
  try { store.setItem(OPENED_KEY, JSON.stringify(list.slice(-100))); } catch { /* no storage: this page only */ }
}

/**
 * `fn` at most once per `ms`: a call sooner after the last run runs once when `ms` has passed.
 * @param {() => void} fn
 * @param {number} ms
 * @param {{now: () => number, set: (f: () => void, ms: number) => any, clear: (id: any) => void}} [clock]
 */
export function throttle(fn, ms, clock = { now: () => Date.now(), set: (f, d) => setTimeout(f, d), clear: (id) => clearTimeout(id) }) {
  let last = -Infinity;
  let timer = null;
  const run = () => {
    timer = null;
    last = clock.now();
    fn();
  };
  return {
    call() {
      if (timer !== null) return;
      const wait = last + ms - clock.now();
      if (wait <= 0) run();
      else timer = clock.set(run, wait);
    },
    cancel() {
      if (timer !== null) clock.clear(timer);
      timer = null;
    },
  };
}

/** A whole number from a field, or null when it is empty or not one. */
function whole(v) {
  const s = String(v ?? '').trim();
  if (s === '' || !/^-?\d+$/.test(s)) return null;
  return Number(s);
}

/**
 * The body of `POST /api/tournaments` from the creation form's values, or `{error}`: the key
 * of the text saying what is wrong.
 * @param {{name: string, system: string, clock: string, clockOther?: string, rated: boolean,
 *   rules?: string, start: string, startsAt?: string, minutes?: string, rounds?: string,
 *   double?: boolean, pace?: string, gap?: string, minRating?: string, minRatedGames?: string,
 *   password?: string, description?: string}} v
 * @param {number} [now] ms
 * @returns {{body?: Record<string, any>, error?: string}}
 */
export function tournamentBody(v, now = Date.now()) {
  const name = String(v.name || '').trim();
  if ([...name].length < 2 || [...name].length > 40) return { error: 'tm_err_name' };
  if (!SYSTEMS.includes(v.system)) return { error: 'tm_err_system' };
  const clock = (v.clock === 'other' ? String(v.clockOther || '') : String(v.clock || '')).trim();
  if (!CLOCK_RE.test(clock)) return { error: 'tm_err_clock' };
  /** @type {Record<string, any>} */
  const body = { name, system: v.system, clock, rated: Boolean(v.rated) };
  if (v.rules) body.rules = v.rules;
  if (v.start === 'later') {
    const ms = new Date(String(v.startsAt || '')).getTime();
    if (!Number.isFinite(ms)) return { error: 'tm_err_start' };
    if (ms < now - 60000) return { error: 'tm_err_start_past' };
    body.starts_at = ms;
  }
  if (v.system === 'arena') {
    const m = whole(v.minutes);
    if (m === null || m < 20 || m > 180) return { error: 'tm_err_minutes' };
    body.minutes = m;
  }
  if (v.system === 'swiss') {
    const r = whole(v.rounds);
    if (r === null || r < 3 || r > 15) return { error: 'tm_err_rounds' };
    body.rounds = r;
  }
  if (v.system === 'round-robin') body.double = Boolean(v.double);
  if (v.system !== 'arena') {
    if (v.pace === 'manual') {
      body.round_gap_s = null;
      body.manual_rounds = true;
    } else if (v.pace === 'gap') {
      const g = whole(v.gap);
      if (g === null || g < 0 || g > 86400) return { error: 'tm_err_gap' };
      body.round_gap_s = g;
    }
  }
  if (String(v.minRating ?? '').trim() !== '') {
    const r = whole(v.minRating);
    if (r === null || r < 0 || r > 4000) return { error: 'tm_err_min_rating' };
    body.min_rating = r;
  }
  if (String(v.minRatedGames ?? '').trim() !== '') {
    const g = whole(v.minRatedGames);
    if (g === null || g < 0 || g > 100000) return { error: 'tm_err_min_games' };
    body.min_rated_games = g;
  }
  if (v.password) body.password = String(v.password);
  const description = String(v.description || '').trim();
  if ([...description].length > 1000) return { error: 'tm_err_description' };
  if (description) body.description = description;
  return { body };
}

/** `ms` as a `datetime-local` field's value, in the reader's time zone, to the minute. */
export function localDateTime(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
