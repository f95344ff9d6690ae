// Puzzle mode: the side to move plays and forces the win (South in the collection, either
// side in the community's puzzles). The server judges each move from the puzzle's proven
// solution and answers with the opponent's best defence; the streak of puzzles solved without
// a mistake is kept in this browser.

import { api, idle, sendMove } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { themesText } from './composer.js';

const STORE = 'anywoli.puzzles';

/** {streak, best, solved: [ids], failed: [ids]} from localStorage (a fresh one if none). */
export function loadProgress() {
  let p;
  try { p = JSON.parse(localStorage.getItem(STORE) || 'null'); } catch { p = null; }
  if (!p || typeof p !== 'object') p = {};
  return {
    streak: Number.isInteger(p.streak) ? p.streak : 0,
    best: Number.isInteger(p.best) ? p.best : 0,
    solved: Array.isArray(p.solved) ? p.solved : [],
    failed: Array.isArray(p.failed) ? p.failed : [],
  };
}

function saveProgress(p) {
  try { localStorage.setItem(STORE, JSON.stringify(p)); } catch { /* kept for this page only */ }
}

/**
 * This browser's puzzle-solver token: 32 random hexadecimal digits, made once and kept. The
 * server rates the browser by it (keeping only its hash) when nobody is logged in.
 */
export function solverToken() {
  try {
    let tok = localStorage.getItem('anywoli.solver');
    if (!/^[0-9a-f]{32}$/.test(tok || '')) {
      const b = new Uint8Array(16);
      crypto.getRandomValues(b);
      tok = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      localStorage.setItem('anywoli.solver', tok);
    }
    return tok;
  } catch {
    return undefined; // no storage: solved unrated
  }
}

/** Today in the reader's own time zone, YYYY-MM-DD: the puzzle of the day follows it. */
function localDate() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export class PuzzleView {
  /**
   * @param ui the page's helpers: {main, esc, say, setBody, errorText, delay}
   * @param id the puzzle's number, or null for the puzzle of the day; a community puzzle's id
   * @param community whether `id` is a community puzzle's
   */
  constructor(ui, id, community = false) {
    this.ui = ui;
    this.id = id;
    this.community = community;
    this.base = community ? `/puzzles/community/${id}` : `/puzzles/${id}`;
    this.moves = [];
    this.state = 'loading';
    this.mistake = false;
    this.legal = [];
    ui.setBody({ view: 'puzzle', puzzle: 'loading', busy: '0' });
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.start();
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    if (this.board) this.board.skip();
  }

  /** The same keys as a game: a hole's letter plays it (the solver's row, whatever the case). */
  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target.tagName || '').toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return;
    if (e.key === 'Escape') { if (this.board) this.board.skip(); return; }
    if (e.key.length !== 1 || !/[a-lA-L]/.test(e.key) || this.state !== 'playing' || !this.board) return;
    e.preventDefault();
    const letter = this.side === 'north' ? e.key.toUpperCase() : e.key.toLowerCase();
    if (this.legal.includes(letter)) this.play(letter);
    else this.ui.say(t('cannot_play', { h: letter }), true);
  }

  async start() {
    const { main, esc, errorText, setBody } = this.ui;
    if (this.id === 'next') {
      // The puzzle chosen near the solver's rating; the address then names it, so that a
      // reload shows the same one.
      const n = await api('POST', '/puzzles/next', { solver: solverToken() });
      if (n.ok) {
        history.replaceState(null, '', n.data.path);
        const c = n.data.path.match(/^\/puzzles\/community\/([a-z0-9]{12})$/);
        this.community = !!c;
        this.id = c ? c[1] : n.data.puzzle;
        this.base = c ? `/puzzles/community/${this.id}` : `/puzzles/${this.id}`;
      } else {
        this.id = null;
      }
    }
    const r = await api('GET', this.id ? this.base : '/puzzles/daily?date=' + localDate());
    if (!r.ok) {
      setBody({ puzzle: 'missing' });
      main.innerHTML = `<section class="panel"><h1>${esc(r.status === 404 ? t('puzzle_not_found') : errorText(r))}</h1>
        <p><a href="/puzzles" data-link>${esc(t('puzzle_daily_link'))}</a></p></section>`;
      return;
    }
    this.p = r.data;
    this.side = r.data.side || 'south';
    this.key_id = this.community ? 'c:' + r.data.id : r.data.id;
    if (!this.community) this.base = `/puzzles/${r.data.id}`;
    this.build();
    this.reset();
  }

  build() {
    const { main, esc } = this.ui;
    const p = this.p;
    const title = this.community ? t('pz_c_title')
      : p.daily ? t('puzzle_title_daily') + ' — ' + t('puzzle_title', { n: p.id }) : t('puzzle_title', { n: p.id });
    document.title = t('app_title') + ' — ' + title;
    const next = '/puzzles/next';
    const rated = p.rating ? t('pz_puzzle_rating', { r: p.rating.rating }) : null;
    const meta = this.community
      ? [t('pz_c_meta', { g: p.grade, m: p.solver_moves, s: this.sideName() }),
        p.author ? t('pz_c_by', { name: p.author }) : null, p.themes.length ? themesText(p.themes) : null, rated].filter(Boolean).join(' · ')
      : [t('puzzle_meta', { g: p.grade, m: p.south_moves }), rated].filter(Boolean).join(' · ');
    const task = this.community ? t('pz_c_task', { s: this.sideName(), o: this.otherName() }) : t('puzzle_task');
    main.innerHTML = `
      <section class="panel puzzle" aria-labelledby="puzzle-heading">
        <h1 id="puzzle-heading">${esc(title)}</h1>
        <p class="note" id="puzzle-meta">${esc(meta)}</p>
        <p class="tagline">${esc(task)}</p>
        <p id="puzzle-status" class="status" aria-live="polite"></p>
        <div id="board" role="group" aria-label="${esc(title)}"></div>
        <div class="controls">
          <button type="button" id="puzzle-retry">${esc(t('puzzle_retry'))}</button>
          <button type="button" id="puzzle-show">${esc(t('puzzle_show_solution'))}</button>
          <a id="puzzle-next" class="button primary" href="${next}" data-link>${esc(t('puzzle_next'))}</a>
          <a class="button" href="/puzzles" data-link>${esc(t('puzzle_daily_link'))}</a>
          <a class="button" id="puzzle-community" href="/puzzles/community" data-link>${esc(t('pz_community'))}</a>
        </div>
        <p id="puzzle-solution" class="note" hidden></p>
        <p class="note keys">${esc(t('puzzle_keys'))} ${esc(t('board_keys'))}</p>
        <p id="puzzle-streak" class="streak"></p>
        <p id="puzzle-rating" class="streak" aria-live="polite"></p>
      </section>`;
    this.board = new Board(main.querySelector('#board'), (l) => this.play(l));
    this.board.orient(this.side, [this.side]);
    main.querySelector('#puzzle-retry').addEventListener('click', () => this.reset());
    main.querySelector('#puzzle-show').addEventListener('click', () => this.showSolution());
    this.showStreak();
    this.showRating();
  }

  /** The solver's puzzle rating, as the server keeps it. */
  async showRating() {
    const r = await api('POST', '/puzzles/rating', { solver: solverToken() });
    const el = this.ui.main.querySelector('#puzzle-rating');
    if (!r.ok || !el || el.dataset.changed) return;
    const s = r.data.solver;
    el.textContent = t(s.provisional ? 'pz_your_rating_provisional' : 'pz_your_rating', { r: s.rating });
  }

  /** A rated attempt's change, when the server rated this one. */
  showChange(change) {
    const el = this.ui.main.querySelector('#puzzle-rating');
    if (!change || !el) return;
    const { before, after } = change.solver;
    const diff = after - before;
    el.dataset.changed = '1';
    el.textContent = t('pz_rating_change', { before, after, diff: (diff >= 0 ? '+' : '−') + Math.abs(diff) });
    this.ui.setBody({ puzzleRating: String(after) });
  }

  setState(state, text) {
    this.state = state;
    this.ui.setBody({ puzzle: state });
    const el = this.ui.main.querySelector('#puzzle-status');
    el.textContent = text;
    el.classList.toggle('your-turn', state === 'playing');
  }

  reset() {
    this.moves = [];
    this.board.skip();
    this.legal = this.p.legal;
    this.board.draw(this.p, { playable: this.legal });
    /** @type {HTMLInputElement} */ (this.ui.main.querySelector('#puzzle-solution')).hidden = true;
    this.setState('playing', this.says('your_move'));
  }

  sideName() { return t(this.side); }
  otherName() { return t(this.side === 'north' ? 'south' : 'north'); }

  /** The collection's words (South against North), or the community's for either side. */
  says(what, args = {}) {
    if (!this.community) return t('puzzle_' + what, args);
    return t('pz_c_' + what, { ...args, s: this.sideName(), o: this.otherName() });
  }

  showStreak() {
    const pr = loadProgress();
    /** @type {HTMLInputElement} */ (this.ui.main.querySelector('#puzzle-streak')).textContent = t('puzzle_streak', { n: pr.streak, b: pr.best });
  }

  /** A mistake (or asking for the solution) ends the streak, unless this one was solved before. */
  record(solved) {
    const pr = loadProgress();
    const id = this.key_id;
    if (solved) {
      if (!this.mistake && !pr.solved.includes(id) && !pr.failed.includes(id)) {
        pr.streak += 1;
        pr.best = Math.max(pr.best, pr.streak);
      }
      if (!pr.solved.includes(id)) pr.solved.push(id);
    } else {
      this.mistake = true;
      if (!pr.solved.includes(id)) {
        pr.streak = 0;
        if (!pr.failed.includes(id)) pr.failed.push(id);
      }
    }
    saveProgress(pr);
    this.showStreak();
  }

  async showSolution() {
    const r = await api('POST', `${this.base}/solution`, { solver: solverToken() });
    if (!r.ok) return;
    this.showChange(r.data.rating);
    const el = this.ui.main.querySelector('#puzzle-solution');
    el.textContent = t('puzzle_solution', { line: r.data.solution.join(' ') });
    el.hidden = false;
    if (this.state === 'playing') this.record(false);
  }

  async play(letter) {
    const d = await sendMove(this, `${this.base}/moves`, () => ({ moves: [...this.moves, letter], solver: solverToken() }));
    if (!d) return;
    const say = (text, show) => this.ui.say(text, show);
    for (const tr of d.traces) {
      await this.board.animate(tr, this.ui.delay(), say);
    }
    this.moves.push(letter, ...d.replies);
    this.legal = d.result === 'right' ? d.legal : [];
    this.board.draw(d, { playable: this.legal, last: this.moves[this.moves.length - 1] });
    this.showChange(d.rating);
    if (d.result === 'right') {
      this.setState('playing', d.replies.length
        ? this.says('right', { m: d.replies.join(' ') })
        : this.says('right_pass'));
    } else if (d.result === 'solved') {
      this.record(true);
      this.setState('solved', this.says('solved'));
    } else {
      this.record(false);
      this.setState('failed', this.says('wrong', { m: letter, x: d.expected }));
      const el = this.ui.main.querySelector('#puzzle-solution');
      el.textContent = t('puzzle_solution', { line: d.solution.join(' ') });
      el.hidden = false;
    }
    this.ui.say(/** @type {HTMLInputElement} */ (this.ui.main.querySelector('#puzzle-status')).textContent, false);
    idle(this);
  }
}
