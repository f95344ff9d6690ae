// The analysis board (issue 13), part 5 of 5: a position (`/analysis?position=…&rules=…`) or a
// game at a move (`/analysis/<id>?ply=N`) on a board where both sides may move, with a move tree
// of the branches played, the engine's lines streamed as it deepens (engine.js), the proven
// result where the endgame databases reach, and for a game its review (review.js).
//
// Each position's legal moves, the positions they lead to and their traces come from
// POST /api/position; its proof from POST /api/position/proof.

import { AnalysisRecord } from './record.js';
import { api } from '../../api.js';
import { START, VARIANTS } from '../../common.js';
import { t } from '../../i18n.js';
import { MoveTree, loadSaved } from '../../tree.js';
import { withSeed } from '../../engine.js';
import { refusalText } from '../../lib/position.js';
import { postText } from './wire.js';

/** Position answers kept in memory (each is a few kilobytes with its traces). */
const ANSWERS_KEPT = 400;
const BODY_KEYS = ['analysisPosition', 'analysisPly', 'analysisMainline', 'analysisNode', 'analysisReady',
  'engine', 'engineDepth', 'explorer', 'proof', 'review'];

/** A position answer's error in the reader's words (the board editor's), else its message. */
function errorMessage(e) {
  if (!e) return '';
  return e.kind ? refusalText(e) : e.message || '';
}

export class AnalysisView extends AnalysisRecord {
  /**
   * @param ui the page's helpers: {main, esc, say, toast, setBody, errorText, delay}
   * @param gameId the game whose moves are the main line, or null for a position from the URL
   */
  constructor(ui, gameId) {
    super();
    this.ui = ui;
    this.gameId = gameId;
    this.answers = new Map();
    this.pending = new Map();
    this.proofs = new Map();
    this.proofSeq = 0;
    this.navToken = 0;
    this.bottom = 'south';
    this.destroyed = false;
    this.review = null;
    for (const k of BODY_KEYS) delete document.body.dataset[k];
    ui.setBody({ view: 'analysis', analysisReady: '0', busy: '0' });
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    document.title = t('app_title') + ' — ' + t('an_title');
    this.start();
  }

  destroy() {
    this.destroyed = true;
    document.removeEventListener('keydown', this.onKey);
    clearTimeout(this.proofTimer);
    if (this.engine) this.engine.destroy();
    if (this.explorer) this.explorer.destroy();
    if (this.reviewPanel) this.reviewPanel.destroy();
    if (this.board) this.board.skip();
    for (const k of BODY_KEYS) delete document.body.dataset[k];
  }

  /** The language changed: the page again in the new words, at the same node. */
  refresh() {
    document.title = t('app_title') + ' — ' + t(this.game ? 'an_title_game' : 'an_title');
    if (!this.tree || !this.current) return;
    this.build();
    this.show();
  }

  // ----------------------------------------------------------------------------------------
  // Loading
  async start() {
    const q = new URLSearchParams(location.search);
    if (this.gameId) {
      const [g, p] = await Promise.all([api('GET', '/games/' + this.gameId), api('GET', `/games/${this.gameId}/positions`)]);
      if (this.destroyed) return;
      if (!g.ok || !p.ok) {
        const r = g.ok ? p : g;
        this.fail(r.status === 404 ? t('not_found') : this.ui.errorText(r));
        return;
      }
      this.game = g.data;
      this.rules = g.data.rules;
      this.seed = g.data.seed === undefined ? null : g.data.seed;
      this.tree = new MoveTree(p.data.positions[0], p.data.moves, p.data.positions);
      this.storageKey = 'anywoli.analysis.g.' + this.gameId;
      const ply = Number.parseInt(q.get('ply') || '0', 10);
      this.urlNode = this.tree.get(String(Math.max(0, Math.min(Number.isFinite(ply) ? ply : 0, p.data.moves.length))));
    } else {
      const rules = q.get('rules') || 'anywoli';
      if (!VARIANTS.includes(rules)) { this.fail(t('an_bad_rules', { rules })); return; }
      this.rules = rules;
      this.seed = rules === 'anywoli-lottery' && /^\d{1,20}$/.test(q.get('seed') || '') ? q.get('seed') : null;
      const asked = (q.get('position') || START).trim();
      const r = await this.fetchAnswer(asked);
      if (this.destroyed) return;
      if (!r.ok) { this.fail(this.ui.errorText(r)); return; }
      if (!r.data.valid) { this.fail(t('an_bad_position', { msg: errorMessage(r.data.error) }), asked); return; }
      this.tree = new MoveTree(r.data.position);
      this.storageKey = `anywoli.analysis.p.${rules}.${this.seed || ''}.${r.data.position}`;
      this.urlNode = this.tree.root;
    }
    // The branches of this tab's earlier visit; the node it was at if the link is the same.
    const saved = loadSaved(this.storageKey);
    const was = this.tree.restore(saved);
    const current = was && saved.search === location.search ? this.tree.get(was) : this.urlNode;
    document.title = t('app_title') + ' — ' + t(this.game ? 'an_title_game' : 'an_title');
    this.build();
    this.goTo(current);
  }

  fail(message, position) {
    const { main, esc, setBody } = this.ui;
    setBody({ analysisReady: 'error' });
    const editor = position ? `<p><a class="button" data-link id="open-editor" href="/editor?position=${encodeURIComponent(position)}&rules=${encodeURIComponent(this.rules || 'anywoli')}">${esc(t('an_open_editor'))}</a></p>` : '';
    main.innerHTML = `<section class="panel missing"><h1>${esc(t('an_title'))}</h1>
      <p class="error" role="alert" id="analysis-error">${esc(message)}</p>${editor}
      <p><a href="/archive" data-link class="button">${esc(t('nav_archive'))}</a></p></section>`;
  }

  /** POST /api/position, once per position (answers and requests in flight are shared). */
  fetchAnswer(position) {
    if (this.pending.has(position)) return this.pending.get(position);
    const p = postText('/position', this.body(position)).then((r) => {
      this.pending.delete(position);
      if (r.ok && r.data.valid) {
        if (this.answers.size >= ANSWERS_KEPT) this.answers.delete(this.answers.keys().next().value);
        this.answers.set(position, r.data);
      }
      return r;
    });
    this.pending.set(position, p);
    return p;
  }

  /** The body of a position request: the position, the rules and a lottery's seed. */
  body(position) {
    return withSeed({ position, rules: this.rules }, this.seed);
  }

  async answer(position) {
    if (this.answers.has(position)) return this.answers.get(position);
    const r = await this.fetchAnswer(position);
    return r.ok && r.data.valid ? r.data : null;
  }
}
