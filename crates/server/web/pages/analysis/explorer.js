// The analysis board's opening explorer: what people played from the board's position, and how
// those games ended (GET /api/explorer, docs/api-bots.md "Opening explorer"), filtered by speed
// and rating band, beside the opening book's moves and the games played here lately. A move of
// its table or of the book is played on the board as the engine's lines are (host.onPlay).
//
// The position is fetched a moment after it stops changing (stepping through a game asks once,
// for where the steps stop), a stale request is aborted, and answers are kept per position and
// filters.

import { t, currentLang } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { seedsText } from '../../engine.js';

/** Steps in a row ask once, this long after the last. */
export const DEBOUNCE_MS = 150;
/** Answers kept in memory (position and filters). */
export const CACHE_MAX = 100;
/** The speeds the explorer takes, as the server names them. */
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'untimed'];
/** The rating bands by their lowest rating; -1 is games without two ratings. */
export const BANDS = [-1, 0, 1200, 1400, 1600, 1800, 2000, 2200, 2500];
/** The plies of each game the explorer counts, until an answer says. */
const PLIES = 24;
const SPEED_KEY = 'anywoli.explorer.speed';
const BAND_KEY = 'anywoli.explorer.rating';

/** A band in words: "Unrated", "1200–1399", "2500+". */
export function bandText(band) {
  if (band === -1) return t('ex_unrated');
  const next = BANDS[BANDS.indexOf(band) + 1];
  return next === undefined ? `${band}+` : `${band}\u2013${next - 1}`;
}

/** The query of GET /api/explorer for a position under `rules`, with the filters ('' is all). */
export function explorerPath(rules, position, speed, band) {
  const q = new URLSearchParams({ rules, position });
  if (speed) q.set('speeds', speed);
  if (band !== '') q.set('ratings', String(band));
  return '/api/explorer?' + q.toString();
}

/** South's wins, the draws and North's wins of `row` in whole percent that add up to 100 (the
 * largest remainders rounded up); all zero for no games. */
export function shares(row) {
  const counts = [row.south || 0, row.draws || 0, row.north || 0];
  const games = counts[0] + counts[1] + counts[2];
  if (!games) return [0, 0, 0];
  const exact = counts.map((c) => (c * 100) / games);
  const out = exact.map(Math.floor);
  const order = [0, 1, 2].sort((a, b) => (exact[b] - out[b]) - (exact[a] - out[a]));
  for (let k = 0, left = 100 - out[0] - out[1] - out[2]; k < left; k++) out[order[k]]++;
  return out;
}

/** A map that keeps its last `max` entries: a read makes an entry the newest. */
export class Kept {
  constructor(max) {
    this.max = max;
    this.map = new Map();
  }

  get(key) {
    if (!this.map.has(key)) return undefined;
    const v = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value);
  }

  get size() {
    return this.map.size;
  }
}

/** A stored choice, if it is one of `allowed` (as text), else ''. */
function stored(key, allowed) {
  let v = null;
  try { v = localStorage.getItem(key); } catch { /* no storage */ }
  return allowed.map(String).includes(v) ? v : '';
}

/** A percentage in the reader's language ("40%", "40 %"). */
function percent(n) {
  return new Intl.NumberFormat(currentLang(), { style: 'percent' }).format(n / 100);
}

/** A count in the reader's language ("1,234"). */
function count(n) {
  return Number(n || 0).toLocaleString(currentLang());
}

/**
 * The panel. `host` gives it {onPlay(move), setBody(attrs), errorText(resp)}. It is told the
 * position with `show({position, rules})`.
 */
export class ExplorerPanel {
  constructor(el, host) {
    this.el = el;
    this.host = host;
    this.cache = new Kept(CACHE_MAX);
    this.pos = null;
    this.speed = stored(SPEED_KEY, SPEEDS);
    this.band = stored(BAND_KEY, BANDS);
    this.answer = null;
    this.error = null;
    this.state = 'waiting';
    this.controller = null;
    this.timer = null;
    this.plies = PLIES;
    this.render();
  }

  destroy() {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    this.controller = null;
  }

  render() {
    const speedOptions = [h('option', { value: '' }, t('filter_all')),
      ...SPEEDS.map((s) => h('option', { value: s }, t(s === 'untimed' ? 'ex_untimed' : 'cat_' + s)))];
    const bandOptions = [h('option', { value: '' }, t('filter_all')),
      ...BANDS.map((b) => h('option', { value: String(b) }, bandText(b)))];
    const speed = h('select', { id: 'explorer-speed', name: 'speed' }, speedOptions);
    const band = h('select', { id: 'explorer-rating', name: 'rating' }, bandOptions);
    /** @type {any} */ (speed).value = this.speed;
    /** @type {any} */ (band).value = this.band;
    this.box = h('div', { id: 'explorer-body', class: 'explorer-body' });
    this.section = h('section', { class: 'panel explorer', id: 'explorer', 'aria-labelledby': 'explorer-heading' },
      h('h2', { id: 'explorer-heading' }, t('ex_title')),
      h('div', { class: 'explorer-filters', role: 'group', 'aria-label': t('ex_filters') },
        h('div', { class: 'field' }, h('label', { for: 'explorer-speed' }, t('ex_speed')), speed),
        h('div', { class: 'field' }, h('label', { for: 'explorer-rating' }, t('ex_rating')), band)),
      this.box);
    fill(this.el, this.section);
    speed.addEventListener('change', () => this.filter(SPEED_KEY, 'speed', /** @type {any} */ (speed).value));
    band.addEventListener('change', () => this.filter(BAND_KEY, 'band', /** @type {any} */ (band).value));
    this.section.addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-move]');
      if (b) this.host.onPlay(b.dataset.move);
    });
    this.draw();
  }

  /** A filter changed: kept for next time, and the position asked again at once. */
  filter(key, field, value) {
    if (field === 'speed') this.speed = value;
    else this.band = value;
    try { localStorage.setItem(key, value); } catch { /* for this page */ }
    if (this.pos) this.load(0);
  }

  /** A new position: {position, rules}. Nothing is asked again for the same one. */
  show(pos) {
    if (!pos || (this.pos && this.pos.position === pos.position && this.pos.rules === pos.rules)) return;
    this.pos = pos;
    this.load(DEBOUNCE_MS);
  }

  key() {
    return explorerPath(this.pos.rules, this.pos.position, this.speed, this.band);
  }

  /** Shows the answer for the position and filters: at once when kept, else fetched after
   * `wait` ms (a later call meanwhile replaces this one). */
  load(wait) {
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    this.controller = null;
    const path = this.key();
    const kept = this.cache.get(path);
    if (kept) {
      this.settle('ready', kept, null);
      return;
    }
    this.setState('loading');
    this.draw();
    this.timer = setTimeout(() => this.request(path), wait);
  }

  async request(path) {
    const controller = new AbortController();
    this.controller = controller;
    let r;
    try {
      const resp = await fetch(path, { signal: controller.signal });
      const data = await resp.json().catch(() => ({}));
      r = { ok: resp.ok, status: resp.status, data };
    } catch (e) {
      if (controller.signal.aborted) return;
      r = { ok: false, status: 0, data: { error: 'network', message: String(e) } };
    }
    // Another position or filter was asked for meanwhile: this answer is not wanted.
    if (controller.signal.aborted || this.controller !== controller) return;
    this.controller = null;
    if (r.ok) {
      this.cache.set(path, r.data);
      this.settle('ready', r.data, null);
    } else this.settle('error', null, r);
  }

  settle(state, answer, error) {
    this.answer = answer;
    this.error = error;
    if (answer && answer.plies) this.plies = answer.plies;
    this.setState(state === 'ready' && answer && !(answer.total && answer.total.games) ? 'empty' : state);
    this.draw();
  }

  setState(s) {
    this.state = s;
    this.host.setBody({ explorer: s });
  }

  /** The side to move in the position: 'south', 'north' or null when the game is over. */
  toMove() {
    const side = this.pos ? this.pos.position.split(' ')[1] : '';
    return side === 's' ? 'south' : side === 'n' ? 'north' : null;
  }

  /** Whether the position is past the plies the explorer counts. */
  pastPlies() {
    const ply = this.pos ? Number(this.pos.position.split(' ')[7]) : 0;
    return Number.isFinite(ply) && ply >= this.plies;
  }

  draw() {
    const box = this.box;
    if (!box) return;
    this.section.dataset.state = this.state;
    const a = this.answer;
    // While the next position loads, the last answer stays, dimmed, so the panel does not jump.
    box.classList.toggle('stale', this.state === 'loading' && !!a);
    box.setAttribute('aria-busy', String(this.state === 'loading'));
    if (this.state === 'error') {
      fill(box, h('p', { class: 'error', id: 'explorer-error', role: 'alert' }, this.host.errorText(this.error)));
      return;
    }
    if (!a) {
      fill(box, h('p', { class: 'note', id: 'explorer-loading' }, t('loading')));
      return;
    }
    this.section.dataset.position = a.position || '';
    const games = a.total ? a.total.games : 0;
    const none = this.pastPlies()
      ? h('p', { class: 'note explorer-empty', id: 'explorer-past' }, t('ex_past_plies', { n: this.plies }))
      : h('p', { class: 'note explorer-empty', id: 'explorer-empty' }, t('ex_no_games'));
    fill(box, games ? this.table(a) : none, this.book(a.book || []), this.recent(a.recent || []));
  }

  table(a) {
    const head = h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, t('ex_col_move')),
      h('th', { scope: 'col', class: 'num' }, t('ex_col_games')),
      h('th', { scope: 'col' }, t('ex_col_results')),
      h('th', { scope: 'col', class: 'num' }, t('ex_col_rating'))));
    const total = a.total.games;
    const rows = (a.moves || []).map((m) => h('tr', { class: 'explorer-row', dataset: { move: m.move } },
      h('td', null, this.moveButton(m.move, 'explorer-move')),
      h('td', { class: 'num explorer-games' }, count(m.games),
        h('span', { class: 'explorer-share' }, percent(Math.round((m.games * 100) / total)))),
      h('td', { class: 'explorer-results' }, bar(m)),
      h('td', { class: 'num explorer-rating' }, m.rating === null || m.rating === undefined ? '\u2013' : String(Math.round(m.rating)))));
    const foot = h('tfoot', null, h('tr', { class: 'explorer-total', id: 'explorer-total' },
      h('th', { scope: 'row' }, t('ex_total')),
      h('td', { class: 'num explorer-games' }, count(total)),
      h('td', { class: 'explorer-results' }, bar(a.total)),
      h('td', null)));
    return h('div', { class: 'table-wrap explorer-wrap' },
      h('table', { class: 'explorer-table', id: 'explorer-moves' },
        h('caption', { class: 'sr-only' }, t('ex_caption')), head, h('tbody', null, rows), foot));
  }

  moveButton(move, cls) {
    const side = move === move.toLowerCase() ? 'south' : 'north';
    return h('button', { type: 'button', class: `${cls} ${side}`, dataset: { move }, 'aria-label': t('an_play_move', { m: move }) }, move);
  }

  /** The book's moves with their scores in seeds from South's side, as the engine shows them. */
  book(moves) {
    if (!moves.length) return null;
    const flip = this.toMove() === 'north' ? -1 : 1;
    return h('div', { class: 'explorer-book-box', id: 'explorer-book' },
      h('h3', null, t('ex_book')),
      h('ul', { class: 'explorer-book' }, moves.map((m) => h('li', { class: 'explorer-book-line', dataset: { move: m.move } },
        this.moveButton(m.move, 'explorer-book-move'),
        h('span', { class: 'explorer-book-score' }, seedsText(flip * m.score))))),
      h('p', { class: 'note' }, t('ex_book_note')));
  }

  recent(games) {
    if (!games.length) return null;
    const fmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium' });
    return h('div', { class: 'explorer-recent-box', id: 'explorer-recent' },
      h('h3', null, t('ex_recent')),
      h('ul', { class: 'explorer-recent' }, games.map((g) => h('li', null,
        h('a', { href: '/g/' + encodeURIComponent(g.id), 'data-link': true, class: 'explorer-game', dataset: { game: g.id } },
          t('ex_recent_game', { m: g.move, date: fmt.format(new Date(g.at)) }))))));
  }
}

/** The stacked bar of South's wins, draws and North's wins of `row`, with the shares written
 * for screen readers (the segments' widths are set through the style object: the page's
 * Content-Security-Policy refuses style attributes). */
function bar(row) {
  const [s, d, n] = shares(row);
  const segment = (cls, p) => {
    const el = h('span', { class: 'explorer-seg ' + cls, 'aria-hidden': 'true' }, p >= 18 ? percent(p) : '');
    el.style.width = p + '%';
    return el;
  };
  const text = t('ex_bar', { south: percent(s), draws: percent(d), north: percent(n) });
  return h('div', { class: 'explorer-bar', title: text },
    segment('explorer-south', s), segment('explorer-draw', d), segment('explorer-north', n),
    h('span', { class: 'sr-only' }, text));
}
