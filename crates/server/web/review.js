// A game's review on the analysis board (issue 13): one click asks the server to judge every
// move (POST /api/games/{id}/review), a progress bar follows it (GET every second, the board
// stays usable), and the result is a graph of South's expected score over the plies, the
// marked moves with the seeds and the winning chance they threw away and the better move, and
// each player's accuracy (docs/decisions.md, "Game review").

import { api } from './api.js';
import { t } from './i18n.js';
import { seedsText, num1 } from './engine.js';

const W = 600;
const H = 150;
const PAD = 8;

export class ReviewPanel {
  /**
   * @param el the panel's element
   * @param gameId the game
   * @param {Object} host esc, say, errorText, setBody, goPly(ply)
   */
  constructor(el, gameId, host) {
    this.el = el;
    this.id = gameId;
    this.host = host;
    this.review = null;
    this.progress = null;
    this.error = '';
    this.current = null;
    this.destroyed = false;
    this.host.setBody({ review: 'loading' });
    this.render();
    this.load();
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
  }

  async load() {
    const r = await api('GET', `/games/${this.id}/review`);
    if (this.destroyed) return;
    if (!r.ok) { this.fail(r); return; }
    this.take(r.data);
  }

  async start() {
    const btn = /** @type {HTMLButtonElement} */ (this.el.querySelector('#review-start'));
    if (btn) btn.disabled = true;
    this.error = '';
    const r = await api('POST', `/games/${this.id}/review`);
    if (this.destroyed) return;
    if (!r.ok) { this.fail(r); return; }
    this.host.say(t('rv_started'));
    this.take(r.data);
  }

  fail(r) {
    this.error = this.host.errorText(r);
    this.host.setBody({ review: 'error' });
    this.render();
  }

  /** A status answer: none, running {done, total} or done {review}. */
  take(s) {
    clearTimeout(this.timer);
    if (s.status === 'done') {
      const fresh = !this.review;
      this.review = s.review;
      this.progress = null;
      this.host.setBody({ review: 'done' });
      this.render();
      if (fresh && this.announce) this.host.say(t('rv_done'));
      this.host.reviewed(this.review);
      return;
    }
    if (s.status === 'running') {
      this.progress = { done: s.done, total: s.total };
      this.announce = true;
      this.host.setBody({ review: 'running' });
      this.render();
      this.timer = setTimeout(() => this.poll(), 1000);
      return;
    }
    this.host.setBody({ review: 'none' });
    this.render();
  }

  async poll() {
    const r = await api('GET', `/games/${this.id}/review`);
    if (this.destroyed) return;
    if (!r.ok) {
      // A lost connection is waited out; the review goes on on the server.
      if (r.status === 0) { this.timer = setTimeout(() => this.poll(), 2000); return; }
      this.fail(r);
      return;
    }
    // The review ended without a result (the engine was busy): "none" again, say so.
    if (r.data.status === 'none' && this.progress) this.error = t('rv_failed');
    this.take(r.data);
  }

  /** The judgement of move `ply` (from 1), if the review has it. */
  moveAt(ply) {
    if (!this.review || !ply) return null;
    return this.review.moves.find((m) => m.ply === ply) || null;
  }

  /** ply → mark of every marked move. */
  marks() {
    const out = new Map();
    if (this.review) for (const m of this.review.moves) if (m.mark) out.set(m.ply, m.mark);
    return out;
  }

  /** The main line's ply the board shows (null off the main line): the graph marks it. */
  setCurrent(ply) {
    this.current = ply;
    for (const c of this.el.querySelectorAll('.graph-point')) c.classList.toggle('current', Number(c.dataset.ply) === ply);
    const cursor = this.el.querySelector('.graph-cursor');
    if (cursor) {
      cursor.setAttribute('visibility', ply === null ? 'hidden' : 'visible');
      if (ply !== null) {
        const x = this.x(ply).toFixed(1);
        cursor.setAttribute('x1', x);
        cursor.setAttribute('x2', x);
      }
    }
    for (const li of this.el.querySelectorAll('li.mark')) {
      const here = Number(li.dataset.ply) === ply;
      li.classList.toggle('current', here);
      const b = li.querySelector('button');
      if (here) b.setAttribute('aria-current', 'true');
      else b.removeAttribute('aria-current');
    }
  }

  x(ply) {
    const n = Math.max(1, this.review.evals.length - 1);
    return PAD + (ply / n) * (W - 2 * PAD);
  }

  /** The height of South's expected score `win` (0 to 100): 50 on the middle line. */
  y(win) {
    const v = Math.max(0, Math.min(100, win));
    return H / 2 - ((v - 50) / 50) * (H / 2 - PAD);
  }

  graphHtml() {
    const { esc } = this.host;
    const evals = this.review.evals;
    const wins = this.review.wins || [];
    const win = (i) => (typeof wins[i] === 'number' ? wins[i] : 50);
    const marks = this.marks();
    const pts = evals.map((e, i) => `${this.x(i).toFixed(1)},${this.y(win(i)).toFixed(1)}`);
    const zero = this.y(50).toFixed(1);
    const area = `${this.x(0).toFixed(1)},${zero} ${pts.join(' ')} ${this.x(evals.length - 1).toFixed(1)},${zero}`;
    const points = evals.map((e, i) => {
      const mark = marks.get(i);
      const m = i > 0 ? this.moveAt(i) : null;
      const w = Math.round(win(i));
      const title = i === 0
        ? t('rv_point_start', { score: seedsText(e), win: w })
        : t('rv_point', { n: i, m: m ? m.played : '', score: seedsText(e), win: w }) + (mark ? ' · ' + t('rv_mark_' + mark) : '');
      return `<circle class="graph-point${mark ? ' ' + mark : ''}" data-ply="${i}" cx="${this.x(i).toFixed(1)}" cy="${this.y(win(i)).toFixed(1)}" r="${mark ? 5 : 3}"><title>${esc(title)}</title></circle>`;
    }).join('');
    return `<svg id="eval-graph" class="eval-graph" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="eval-graph-title">
      <title id="eval-graph-title">${esc(t('rv_graph_label'))}</title>
      <rect class="graph-north" x="0" y="${zero}" width="${W}" height="${H - Number(zero)}"/>
      <polygon class="graph-area" points="${area}"/>
      <line class="graph-zero" x1="0" x2="${W}" y1="${zero}" y2="${zero}"/>
      <polyline class="graph-line" points="${pts.join(' ')}"/>
      <line class="graph-cursor" x1="0" x2="0" y1="0" y2="${H}" visibility="hidden"/>
      ${points}
    </svg>`;
  }

  render() {
    const { esc } = this.host;
    const r = this.review;
    let html = `<h2 id="review-heading">${esc(t('rv_title'))}</h2>`;
    if (this.error) html += `<p class="error" role="alert" id="review-error">${esc(this.error)}</p>`;
    if (!r && !this.progress) {
      html += `<p class="note">${esc(t('rv_intro'))}</p>
        <button type="button" class="primary" id="review-start">${esc(t('rv_start'))}</button>`;
    } else if (!r) {
      const { done, total } = this.progress;
      html += `<label for="review-progress">${esc(t('rv_running', { done, total }))}</label>
        <progress id="review-progress" max="${total}" value="${done}">${done}/${total}</progress>
        <p class="note">${esc(t('rv_running_note'))}</p>`;
    } else {
      const acc = (i) => (r.accuracy[i] === null || r.accuracy[i] === undefined ? '—' : `${Math.round(r.accuracy[i])}%`);
      const marked = r.moves.filter((m) => m.mark);
      html += `<div class="graph-box">${this.graphHtml()}</div>
        <p class="note graph-note">${esc(t('rv_graph_note'))}</p>
        <h3>${esc(t('rv_accuracy'))}</h3>
        <dl class="accuracy">
          <div><dt>${esc(t('south'))}</dt><dd id="accuracy-south">${esc(acc(0))}</dd></div>
          <div><dt>${esc(t('north'))}</dt><dd id="accuracy-north">${esc(acc(1))}</dd></div>
        </dl>
        <p class="note">${esc(t('rv_accuracy_note'))}</p>
        <h3 id="review-marks-heading">${esc(t('rv_marks'))}</h3>
        ${marked.length ? '' : `<p class="note">${esc(t('rv_no_marks'))}</p>`}
        <ol class="review-marks" id="review-marks" aria-labelledby="review-marks-heading">
          ${marked.map((m) => `<li class="mark ${m.mark}" data-ply="${m.ply}" data-mark="${m.mark}">
            <button type="button" data-ply="${m.ply}">
              <span class="mark-move">${m.ply}. ${esc(m.played)}</span>
              <span class="mark-name">${esc(t('rv_mark_' + m.mark))}</span>
              <span class="mark-loss">${esc(t('rv_lost', { n: num1(m.loss / 100), p: Math.round(m.win_loss || 0) }))}</span>
              <span class="mark-best">${esc(t('rv_best_was', { m: m.best }))}</span>
            </button></li>`).join('')}
        </ol>`;
    }
    this.el.innerHTML = html;
    const start = this.el.querySelector('#review-start');
    if (start) start.addEventListener('click', () => this.start());
    const graph = this.el.querySelector('#eval-graph');
    if (graph) {
      graph.addEventListener('click', (e) => {
        const c = /** @type {any} */ (e.target).closest('.graph-point');
        if (c) { this.host.goPly(Number(c.dataset.ply)); return; }
        // A click between points goes to the nearest ply.
        const box = graph.getBoundingClientRect();
        const n = this.review.evals.length - 1;
        const ply = Math.round(((e.clientX - box.left) / box.width * W - PAD) / (W - 2 * PAD) * n);
        this.host.goPly(Math.max(0, Math.min(n, ply)));
      });
    }
    const list = this.el.querySelector('#review-marks');
    if (list) {
      list.addEventListener('click', (e) => {
        const b = /** @type {any} */ (e.target).closest('button[data-ply]');
        if (b) this.host.goPly(Number(b.dataset.ply));
      });
    }
    if (r) this.setCurrent(this.current);
  }

  refresh() {
    this.render();
  }
}
