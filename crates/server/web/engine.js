// The analysis board's engine panel (issue 13): the server's engine over a WebSocket
// (GET /api/analysis, docs/api.md "Analysis"), its three best lines as each depth completes,
// an evaluation bar, and in positions the databases prove, the proven value of every move.
// Scores are shown in seeds from South's side (+ good for South), as on the review's graph.

import { t, currentLang } from './i18n.js';
import { ReconnectingSocket } from './socket.js';

/** How long the engine searches each position (the server allows up to 30 s). */
export const MOVETIME_MS = 10000;
export const MULTIPV = 3;

/**
 * One WebSocket to /api/analysis (reconnecting: socket.js) that asks again, on every
 * reconnection, for the analysis it was running.
 */
export class EngineSocket extends ReconnectingSocket {
  constructor(onMessage, onStatus) {
    super('/api/analysis', onMessage, onStatus);
    this.want = null;
    this.connect();
  }

  opened(ws) {
    if (this.want) ws.send(wire(this.want));
  }

  heard(msg) {
    // What was asked is answered: a reconnection need not ask again.
    if (msg.type === 'done' && this.want && msg.position === this.want.position) this.want = null;
    return true;
  }

  analyse(request) {
    this.want = { type: 'analyse', ...request };
    if (this.open) this.ws.send(wire(this.want));
  }

  stop() {
    this.want = null;
    if (this.open) this.ws.send('{"type":"stop"}');
  }
}

/** A request as JSON; a lottery's seed (digits, which may not fit a JavaScript number) is
 * written as the bare number the server reads. */
function wire(req) {
  const { seed, ...rest } = req;
  return withSeed(rest, seed);
}

/** `obj` as JSON with `seed` (digits, or nothing) added as a bare number. */
export function withSeed(obj, seed) {
  const text = JSON.stringify(obj);
  return /^\d{1,20}$/.test(String(seed)) ? text.slice(0, -1) + `,"seed":${seed}}` : text;
}

/** Seeds with one decimal, in the reader's language ("3.4", "3,4"). */
export function num1(seeds) {
  return new Intl.NumberFormat(currentLang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(seeds);
}

/** Centiseeds as seeds with a sign: "+3.4", "−2.0", "0.0". */
export function seedsText(cs) {
  const v = Math.round(cs / 10) / 10;
  if (v === 0) return num1(0);
  return (v > 0 ? '+' : '\u2212') + num1(Math.abs(v));
}

/** How full the evaluation bar is for South (0..1) at `cs` centiseeds for South. */
function barShare(cs) {
  return 1 / (1 + Math.exp(-cs / 1000));
}

/**
 * The panel. `host` gives it {esc, say, onPlay(move), setBody(attrs)}. It is told the position
 * with `show(node)`, the proof with `proof(answer)`.
 */
export class EnginePanel {
  constructor(el, host) {
    this.el = el;
    this.host = host;
    let on = true;
    try { on = localStorage.getItem('anywoli.analysis.engine') !== 'off'; } catch { /* on */ }
    this.on = on;
    this.pos = null;
    this.lines = [];
    this.proven = null;
    this.state = 'off';
    this.socket = null;
    this.onVisible = () => this.visibility();
    document.addEventListener('visibilitychange', this.onVisible);
    this.render();
  }

  destroy() {
    document.removeEventListener('visibilitychange', this.onVisible);
    clearTimeout(this.retry);
    if (this.socket) this.socket.close();
    this.socket = null;
  }

  ensureSocket() {
    if (!this.socket) {
      this.socket = new EngineSocket((m) => this.receive(m), (up) => this.connection(up));
    }
    return this.socket;
  }

  render() {
    const { esc } = this.host;
    this.el.innerHTML = `
      <div class="engine-head">
        <h2 id="engine-heading">${esc(t('an_engine'))}</h2>
        <button type="button" id="engine-toggle" aria-pressed="${this.on}">${esc(t(this.on ? 'an_engine_on' : 'an_engine_off'))}</button>
      </div>
      <div class="engine-body" id="engine-body">
        <div class="eval-row">
          <span class="eval-score" id="engine-eval" aria-hidden="true"></span>
          <div class="eval-bar" id="eval-bar" role="img" aria-label=""><div class="eval-fill"></div></div>
        </div>
        <p class="engine-stats note"><span id="engine-depth"></span><span id="engine-nodes"></span></p>
        <p class="engine-summary" id="engine-summary" aria-live="polite"></p>
        <ol class="engine-lines" id="engine-lines" aria-label="${esc(t('an_engine_lines'))}"></ol>
        <p class="note">${esc(t('an_score_view'))}</p>
      </div>`;
    this.el.querySelector('#engine-toggle').addEventListener('click', () => this.toggle());
    this.el.querySelector('#engine-lines').addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-move]');
      if (b) this.host.onPlay(b.dataset.move);
    });
    this.draw();
  }

  toggle() {
    this.on = !this.on;
    try { localStorage.setItem('anywoli.analysis.engine', this.on ? 'on' : 'off'); } catch { /* for this page */ }
    const b = this.el.querySelector('#engine-toggle');
    b.setAttribute('aria-pressed', String(this.on));
    b.textContent = t(this.on ? 'an_engine_on' : 'an_engine_off');
    if (this.on) this.start();
    else {
      if (this.socket) this.socket.stop();
      this.setState('off');
    }
    this.draw();
  }

  /** A new position: {position, rules, seed, toMove, over}. */
  show(pos) {
    const same = this.pos && pos && this.pos.position === pos.position;
    this.pos = pos;
    if (same) return;
    this.lines = [];
    this.depth = 0;
    this.proven = null;
    this.summary = '';
    this.draw();
    // Stepping quickly through the moves asks the engine once, for where the steps stop.
    clearTimeout(this.retry);
    this.setState(this.on ? 'waiting' : 'off');
    this.retry = setTimeout(() => this.start(), 150);
  }

  start() {
    clearTimeout(this.retry);
    const p = this.pos;
    if (!this.on) { this.setState('off'); return; }
    if (!p) return;
    if (this.proven) { this.setState('proven'); return; }
    if (p.over) {
      if (this.socket) this.socket.stop();
      this.setState('over');
      return;
    }
    if (document.hidden) { this.setState('paused'); return; }
    const req = { position: p.position, rules: p.rules, multipv: MULTIPV, movetime: MOVETIME_MS };
    if (p.seed !== undefined && p.seed !== null) req.seed = p.seed;
    this.ensureSocket().analyse(req);
    this.setState(this.socket.open ? 'running' : 'connecting');
  }

  /** A hidden tab stops the engine; back in view, it starts again where it was unfinished. */
  visibility() {
    if (document.hidden) {
      if (this.state === 'running' || this.state === 'connecting') {
        if (this.socket) this.socket.stop();
        this.setState('paused');
      }
    } else if (this.state === 'paused') this.start();
  }

  connection(up) {
    if (!up && (this.state === 'running')) this.setState('connecting');
    if (up && this.state === 'connecting') this.setState('running');
    this.draw();
  }

  setState(s) {
    this.state = s;
    this.host.setBody({ engine: s });
  }

  receive(msg) {
    const p = this.pos;
    if (!p || msg.position !== undefined && msg.position !== p.position) return;
    if (msg.type === 'info') {
      if (this.proven || !this.on) return;
      this.lines = msg.lines;
      this.depth = msg.depth;
      this.nodes = msg.nodes;
      this.time = msg.time;
      this.host.setBody({ engineDepth: String(msg.depth) });
      if (this.state !== 'running') this.setState('running');
      this.draw();
    } else if (msg.type === 'done') {
      if (this.proven || !this.on || this.state !== 'running') return;
      this.setState('done');
      const best = this.lines[0];
      if (best && best.pv.length) {
        this.summary = t('an_engine_summary', { m: best.pv[0], score: seedsText(this.south(best.score)), d: this.depth });
        this.draw();
      }
    } else if (msg.type === 'error') {
      if (msg.error === 'busy') {
        this.setState('busy');
        this.draw();
        this.retry = setTimeout(() => { if (this.state === 'busy') this.start(); }, 4000);
      }
    }
  }

  /** A score for the side to move, turned to South's side. */
  south(cs) {
    return this.pos && this.pos.toMove === 'north' ? -cs : cs;
  }

  /** The proof of this position (POST /api/position/proof), when it is proven. */
  proof(answer) {
    if (!answer || !answer.proven) return;
    const first = !this.proven;
    this.proven = answer;
    if (first) {
      clearTimeout(this.retry);
      if (this.socket) this.socket.stop();
      if (this.on) this.setState('proven');
    }
    this.summary = answer.sentence;
    this.draw();
  }

  draw() {
    const $ = (q) => this.el.querySelector(q);
    const { esc } = this.host;
    const body = $('#engine-body');
    if (!body) return;
    body.hidden = !this.on;
    const fill = $('.eval-fill');
    const list = $('#engine-lines');
    const proven = this.proven;
    let score = null;
    if (proven) score = (proven.final ? proven.final[0] - proven.final[1] : 0) * 100;
    else if (this.lines.length) score = this.south(this.lines[0].score);
    $('#engine-eval').textContent = score === null ? '' : seedsText(score);
    fill.style.width = `${(score === null ? 0.5 : barShare(score)) * 100}%`;
    $('#eval-bar').setAttribute('aria-label', score === null ? t('an_eval_none') : t('an_eval_label', { score: seedsText(score) }));
    const status = {
      connecting: t('an_engine_connecting'),
      busy: t('an_engine_busy'),
      paused: t('an_engine_paused'),
      over: t('an_engine_over'),
      proven: t('an_engine_proven'),
    }[this.state];
    $('#engine-depth').textContent = status || (this.depth ? t('an_depth', { d: this.depth }) : t('an_engine_starting'));
    $('#engine-nodes').textContent = !status && this.depth && this.nodes ? ' · ' + (this.nodes < 1000
      ? t('an_nodes_few', { n: this.nodes.toLocaleString(currentLang()), s: num1(this.time / 1000) })
      // Large counts in the language's own short form ("31.4M", "31,4 mil."): "31,397
      // thousand positions" was hard to read (issue 36).
      : t('an_nodes_few', { n: compactCount(this.nodes), s: num1(this.time / 1000) })) : '';
    $('#engine-summary').textContent = this.summary || '';
    if (proven) {
      // Unproven moves (the solver ran out of nodes on them) come last.
      const rank = (m) => (typeof m.margin === 'number' ? m.margin : -1000);
      const moves = [...(proven.moves || [])].sort((a, b) => rank(b) - rank(a));
      list.innerHTML = moves.map((m) => `<li class="engine-line proof-line" data-move="${esc(m.move)}" data-outcome="${esc(m.outcome || 'unproven')}">
        <button type="button" class="engine-move" data-move="${esc(m.move)}" aria-label="${esc(t('an_play_move', { m: m.move }))}">${esc(m.move)}</button>
        <span class="engine-score outcome-${esc(m.outcome || 'unproven')}">${esc(outcomeText(m))}</span></li>`).join('');
      return;
    }
    list.innerHTML = this.lines.map((l) => {
      const m = l.pv[0] || '';
      return `<li class="engine-line" data-move="${esc(m)}">
        <button type="button" class="engine-move" data-move="${esc(m)}" aria-label="${esc(t('an_play_move', { m }))}">${esc(m)}</button>
        <span class="engine-score">${esc(seedsText(this.south(l.score)))}</span>
        <span class="engine-pv">${esc(l.pv.slice(1, 14).join(' '))}</span></li>`;
    }).join('');
  }
}

/** A proven move in words: "wins by 8", "draws", "loses by 4" (for the side that plays it). */
export function outcomeText(m) {
  const n = Math.abs(m.margin || 0);
  if (m.outcome === 'win') return t('an_move_wins_by', { n });
  if (m.outcome === 'loss') return t('an_move_loses_by', { n });
  if (m.outcome === 'draw') return t('an_move_draws');
  return t('an_move_unproven');
}

/** `n` in the page's language's short form: 31,397,000 → "31.4M" in English. */
function compactCount(n) {
  try {
    return new Intl.NumberFormat(currentLang(), { notation: 'compact', maximumFractionDigits: 1 }).format(n);
  } catch {
    return n.toLocaleString();
  }
}
