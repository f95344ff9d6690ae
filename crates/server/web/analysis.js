// The analysis board (issue 13): a position (`/analysis?position=…&rules=…`) or a game at a
// move (`/analysis/<id>?ply=N`) on a board where both sides may move, with a move tree of the
// branches played, the engine's lines streamed as it deepens (engine.js), the proven result
// where the endgame databases reach, and for a game its review (review.js).
//
// Each position's legal moves, the positions they lead to and their traces come from
// POST /api/position; its proof from POST /api/position/proof.

import { api } from './api.js';
import { START, VARIANTS } from './common.js';
import { t } from './i18n.js';
import { Board, parsePosition, indexOf } from './board.js';
import { MoveTree, treeHtml, loadSaved, storeSaved } from './tree.js';
import { EnginePanel, outcomeText, withSeed, num1 } from './engine.js';
import { ReviewPanel } from './review.js';
import { refusalText } from './editor.js';

/** Position answers kept in memory (each is a few kilobytes with its traces). */
const ANSWERS_KEPT = 400;
const PROOF_DEBOUNCE_MS = 250;
const BODY_KEYS = ['analysisPosition', 'analysisPly', 'analysisMainline', 'analysisNode', 'analysisReady',
  'engine', 'engineDepth', 'proof', 'review'];

export class AnalysisView {
  /**
   * @param ui the page's helpers: {main, esc, say, toast, setBody, errorText, delay}
   * @param gameId the game whose moves are the main line, or null for a position from the URL
   */
  constructor(ui, gameId) {
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

  // ----------------------------------------------------------------------------------------
  // The page

  build() {
    const { main, esc } = this.ui;
    const g = this.game;
    const game = g ? `<p class="note analysis-game" id="analysis-game">${esc(this.gameText(g))}
        · <a href="/g/${esc(g.id)}" data-link id="to-game">${esc(t('an_to_game'))}</a></p>` : '';
    main.innerHTML = `
      <div class="analysis-layout">
        <section class="analysis-main" aria-labelledby="analysis-heading">
          <h1 id="analysis-heading" class="analysis-heading">${esc(t(g ? 'an_title_game' : 'an_title'))} <span class="note">${esc(t('variant_name_' + this.rules))}</span></h1>
          ${game}
          <p id="analysis-status" class="status"></p>
          <p id="analysis-line" class="note analysis-line"></p>
          <div id="analysis-board" role="group"></div>
          <ul id="proof-legend" class="proof-legend" hidden aria-label="${esc(t('an_legend'))}">
            <li><span class="swatch proof-win" aria-hidden="true"></span>${esc(t('an_legend_win'))}</li>
            <li><span class="swatch proof-draw" aria-hidden="true"></span>${esc(t('an_legend_draw'))}</li>
            <li><span class="swatch proof-loss" aria-hidden="true"></span>${esc(t('an_legend_loss'))}</li>
          </ul>
          <div class="step tree-nav" role="group" aria-label="${esc(t('an_tree_nav'))}">
            <button type="button" id="tree-start" aria-label="${esc(t('first'))}" title="${esc(t('first'))}">«</button>
            <button type="button" id="tree-prev" aria-label="${esc(t('prev'))}" title="${esc(t('prev'))}">‹</button>
            <button type="button" id="tree-next" aria-label="${esc(t('next'))}" title="${esc(t('next'))}">›</button>
            <button type="button" id="tree-end" aria-label="${esc(t('an_line_end'))}" title="${esc(t('an_line_end'))}">»</button>
            <button type="button" id="tree-delete" aria-label="${esc(t('an_delete'))}" title="${esc(t('an_delete'))}">${esc(t('an_delete_short'))}</button>
          </div>
          <div id="analysis-moveinfo" class="moveinfo">
            <p id="analysis-played" hidden></p>
            <div id="analysis-better" hidden><span id="analysis-better-text"></span>
              <button type="button" id="play-better"></button></div>
          </div>
          <div class="controls">
            <button type="button" id="analysis-flip">${esc(t('flip'))}</button>
            <button type="button" id="copy-position">${esc(t('an_copy_position'))}</button>
            <button type="button" id="copy-record">${esc(t('an_copy_record'))}</button>
            <a id="open-editor" class="button" data-link href="/editor">${esc(t('an_open_editor'))}</a>
            <a id="share-link" class="button" href="/analysis">${esc(t('an_share_link'))}</a>
          </div>
        </section>
        <aside class="analysis-side">
          <section id="proven" class="proven" hidden aria-labelledby="proven-heading">
            <h2 id="proven-heading">${esc(t('an_proven_title'))}</h2>
            <p id="proven-text"></p>
          </section>
          <section class="side-box engine-panel" id="engine-panel" aria-labelledby="engine-heading"></section>
          <section class="side-box tree-panel" aria-labelledby="tree-heading">
            <h2 id="tree-heading">${esc(t('an_tree_title'))}</h2>
            <div id="move-tree" class="move-tree" role="group" aria-labelledby="tree-heading"></div>
          </section>
        </aside>
        <div class="analysis-extra">
          ${g ? '<section class="side-box review-panel" id="review-panel" aria-labelledby="review-heading"></section>' : ''}
          <p class="note position-text"><span>${esc(t('an_position'))}</span> <code id="analysis-position-text"></code></p>
          <p class="note keys">${esc(t('an_keyboard_help'))} ${esc(t('board_keys'))}</p>
        </div>
      </div>`;
    const $ = (q) => main.querySelector(q);
    this.board = new Board($('#analysis-board'), (l) => this.play(l));
    this.board.orient(this.bottom, []);
    $('#analysis-board').setAttribute('aria-label', t('board_label'));
    $('#tree-start').addEventListener('click', () => this.goTo(this.tree.root));
    $('#tree-prev').addEventListener('click', () => this.prev());
    $('#tree-next').addEventListener('click', () => this.next());
    $('#tree-end').addEventListener('click', () => this.goTo(this.tree.lineEnd(this.current)));
    $('#tree-delete').addEventListener('click', () => this.deleteBranch());
    $('#analysis-flip').addEventListener('click', () => {
      this.bottom = this.bottom === 'south' ? 'north' : 'south';
      this.board.orient(this.bottom, []);
      this.show();
    });
    $('#copy-position').addEventListener('click', () => this.copy(this.current.position, t('an_position_copied')));
    $('#copy-record').addEventListener('click', async () => this.copy(await this.recordText(), t('an_record_copied')));
    $('#play-better').addEventListener('click', () => this.playBetter());
    $('#move-tree').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-node]');
      const node = b && this.tree.get(b.dataset.node);
      if (node) this.goTo(node, { animate: this.current && node.parent === this.current.id });
    });
    const host = {
      esc: this.ui.esc,
      say: (text) => this.ui.say(text),
      setBody: (attrs) => this.ui.setBody(attrs),
      onPlay: (m) => this.play(m),
    };
    if (this.engine) {
      this.engine.el = $('#engine-panel');
      this.engine.render();
    } else this.engine = new EnginePanel($('#engine-panel'), host);
    if (g) {
      const reviewHost = {
        ...host,
        errorText: this.ui.errorText,
        goPly: (ply) => { const n = this.tree.get(String(ply)); if (n) this.goTo(n); },
        reviewed: (review) => { this.review = review; this.show(); },
      };
      if (this.reviewPanel) {
        this.reviewPanel.el = $('#review-panel');
        this.reviewPanel.render();
      } else if (g.moves.length) this.reviewPanel = new ReviewPanel($('#review-panel'), g.id, reviewHost);
      else $('#review-panel').hidden = true;
    }
  }

  gameText(g) {
    const who = (side) => {
      const s = g.seats[side] || {};
      if (s.player) return s.player;
      return s.kind === 'computer' ? t('player_computer', { n: s.level }) : t('player_human');
    };
    const result = { '1-0': t('result_south'), '0-1': t('result_north'), '1/2-1/2': t('result_draw_short') }[g.result] || t('result_playing');
    return `${t('south')}: ${who('south')} · ${t('north')}: ${who('north')} · ${result} · ${t('an_game_moves', { n: g.moves.length })}`;
  }

  // ----------------------------------------------------------------------------------------
  // Moving about the tree

  /** Shows `node`; a step to a child is sown on the board from its trace. */
  async goTo(node, { animate = false } = {}) {
    if (!node || this.destroyed) return;
    const token = ++this.navToken;
    if (this.animation) { this.board.skip(); await this.animation; }
    if (token !== this.navToken || this.destroyed) return;
    const from = this.current;
    this.current = node;
    this.save();
    if (animate && from && node.parent === from.id) {
      const before = this.answers.get(from.position);
      const mv = before && before.moves.find((m) => m.move === node.move);
      const side = node.move === node.move.toLowerCase() ? 'south' : 'north';
      this.ui.say(t('played', { side: t(side), m: node.move }));
      if (mv && mv.trace) {
        this.ui.setBody({ busy: '1' });
        this.animation = this.board.animate(mv.trace, this.ui.delay(), (text, important) => { if (important) this.ui.say(text); });
        await this.animation;
        this.animation = null;
        this.ui.setBody({ busy: '0' });
        if (token !== this.navToken || this.destroyed) return;
      }
    } else {
      this.ui.say(node.depth ? t('an_at_move', { n: node.depth, m: node.move }) : t('an_at_start'));
    }
    this.show();
    if (!this.answers.has(node.position)) {
      await this.answer(node.position);
      if (token !== this.navToken || this.destroyed) return;
      this.show();
    }
  }

  prev() {
    const p = this.tree.parentOf(this.current);
    if (p) this.goTo(p);
  }

  next() {
    const c = this.current.children[0];
    if (c) this.goTo(this.tree.get(c), { animate: true });
  }

  sibling(step) {
    const all = this.tree.siblings(this.current);
    const i = all.indexOf(this.current) + step;
    if (i >= 0 && i < all.length) this.goTo(all[i]);
  }

  /** Plays `letter` from the current position: follows the tree's move, or starts a branch. */
  async play(letter) {
    const node = this.current;
    if (!node || this.animation) return;
    const ans = await this.answer(node.position);
    if (!ans || this.current !== node) return;
    const mv = ans.moves.find((m) => m.move === letter);
    if (!mv) { this.ui.say(t('cannot_play', { h: letter }), true); return; }
    const { node: child, added } = this.tree.follow(node, letter, mv.position);
    if (added && node.main && !child.main) this.ui.say(t('an_branch_started'));
    await this.goTo(child, { animate: true });
  }

  /** The review's better move, played from the position the game's move was played in. */
  async playBetter() {
    const m = this.reviewed(this.current);
    const parent = this.tree.parentOf(this.current);
    if (!m || !parent) return;
    await this.goTo(parent);
    await this.play(m.best);
  }

  deleteBranch() {
    const node = this.current;
    if (!this.tree.removable(node)) return;
    const parent = this.tree.remove(node);
    this.ui.say(t('an_deleted'), true);
    this.goTo(parent);
  }

  save() {
    if (!this.tree) return;
    storeSaved(this.storageKey, { ...this.tree.save(this.current.id), search: location.search });
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !this.current) return;
    const tag = (e.target.tagName || '').toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return;
    const keys = {
      ArrowLeft: () => this.prev(),
      ArrowRight: () => this.next(),
      ArrowUp: () => this.sibling(-1),
      ArrowDown: () => this.sibling(1),
      Home: () => this.goTo(this.tree.root),
      End: () => this.goTo(this.tree.lineEnd(this.current)),
      Escape: () => this.board.skip(),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
      return;
    }
    const ans = this.answers.get(this.current.position);
    if (e.key.length === 1 && /[a-lA-L]/.test(e.key) && ans && ans.to_move) {
      // Only the side to move can sow, so the letter's case does not matter.
      const letter = ans.to_move === 'south' ? e.key.toLowerCase() : e.key.toUpperCase();
      if (indexOf(letter) < 0) return;
      e.preventDefault();
      this.play(letter);
    }
  }

  // ----------------------------------------------------------------------------------------
  // Drawing

  /** The review's judgement of the current node, when it is a game move the review judged. */
  reviewed(node) {
    return node && node.main && node.depth > 0 && this.reviewPanel ? this.reviewPanel.moveAt(node.depth) : null;
  }

  show() {
    const node = this.current;
    if (!node || !this.board) return;
    const { main, esc } = this.ui;
    const $ = (q) => main.querySelector(q);
    const ans = this.answers.get(node.position) || null;
    const state = parsePosition(node.position);
    const over = state.toMove === null;
    const playable = ans && !this.animation ? ans.moves.map((m) => m.move) : [];
    if (!this.animation) this.board.draw(state, { playable, last: node.move });
    this.ui.setBody({
      analysisPosition: node.position,
      analysisPly: String(node.depth),
      analysisMainline: node.main ? '1' : '0',
      analysisNode: node.id,
      analysisReady: ans ? '1' : '0',
    });
    // What the position is.
    const [s, n] = state.stores;
    let status;
    if (over) {
      status = s === n ? t('result_draw', { s, n })
        : t('result_win', { side: t(s > n ? 'south' : 'north'), won: Math.max(s, n), lost: Math.min(s, n) });
    } else status = t('turn_side', { side: t(state.toMove) });
    $('#analysis-status').textContent = status;
    $('#analysis-line').textContent = this.lineText(node);
    $('#analysis-position-text').textContent = node.position;
    // The tree and its buttons.
    const tree = $('#move-tree');
    const focused = tree.contains(document.activeElement);
    tree.innerHTML = treeHtml(this.tree, { current: node.id, marks: this.marks(), esc, t });
    const cur = tree.querySelector('[aria-current="true"]');
    if (cur) {
      if (focused) cur.focus({ preventScroll: true });
      scrollInto(tree, cur);
    }
    $('#tree-start').disabled = node.parent === null;
    $('#tree-prev').disabled = node.parent === null;
    $('#tree-next').disabled = node.children.length === 0;
    $('#tree-end').disabled = node.children.length === 0;
    $('#tree-delete').disabled = !this.tree.removable(node);
    // Links.
    const q = `position=${encodeURIComponent(node.position)}&rules=${encodeURIComponent(this.rules)}`;
    $('#open-editor').setAttribute('href', '/editor?' + q);
    const seed = this.seed !== null && this.seed !== undefined ? '&seed=' + this.seed : '';
    $('#share-link').setAttribute('href', location.origin + (this.game && node.main
      ? `/analysis/${this.game.id}?ply=${node.depth}` : '/analysis?' + q + seed));
    if (this.game && node.main) {
      const url = `/analysis/${this.game.id}?ply=${node.depth}`;
      if (location.pathname + location.search !== url) {
        history.replaceState(null, '', url);
        this.save();
      }
    }
    this.showReviewed(node);
    if (this.reviewPanel) this.reviewPanel.setCurrent(node.main ? node.depth : null);
    this.engine.show({ position: node.position, rules: this.rules, seed: this.seed, toMove: state.toMove, over });
    this.showProof(node.position, over);
  }

  lineText(node) {
    if (!this.game) return node.depth ? t('an_plies_from_start', { n: node.depth }) : '';
    if (node.main) return t('an_on_line', { n: node.depth, total: this.tree.mainEnd.depth });
    let b = node;
    while (!b.main) b = this.tree.parentOf(b);
    return b.depth ? t('an_off_line', { n: b.depth }) : t('an_off_line_start');
  }

  marks() {
    return this.reviewPanel ? this.reviewPanel.marks() : new Map();
  }

  /** The move played and the review's better one, for a game move the review judged. */
  showReviewed(node) {
    const $ = (q) => this.ui.main.querySelector(q);
    const m = this.reviewed(node);
    const played = $('#analysis-played');
    const better = $('#analysis-better');
    // A move within a twentieth of a seed of the best is as good as the engine's choice.
    const equal = m && (m.best === m.played || Math.round(m.loss / 10) === 0);
    played.hidden = !m;
    better.hidden = !m || equal;
    for (const b of this.board.holes) b.classList.remove('better');
    if (!m) return;
    played.className = 'played' + (m.mark ? ' ' + m.mark : '');
    played.dataset.mark = m.mark || '';
    const mover = t(m.mover);
    played.textContent = m.mark
      ? t('an_played_marked', { n: m.ply, side: mover, m: m.played, mark: t('rv_mark_' + m.mark), lost: num1(m.loss / 100) })
      : equal ? t('an_played_best', { n: m.ply, side: mover, m: m.played })
        : t('an_played', { n: m.ply, side: mover, m: m.played, lost: num1(m.loss / 100) });
    if (!equal) {
      $('#analysis-better-text').textContent = t('an_better', { m: m.best, side: mover, gain: num1(m.loss / 100) });
      $('#play-better').textContent = t('an_play_better', { m: m.best });
      const hole = this.board.holes[indexOf(m.best)];
      if (hole) {
        hole.classList.add('better');
        hole.setAttribute('aria-label', hole.getAttribute('aria-label') + ', ' + t('an_better_hole'));
      }
    }
  }

  /** Asks for the proof of `position` (after a pause, so that stepping quickly asks once). */
  showProof(position, over) {
    clearTimeout(this.proofTimer);
    if (over) { this.applyProof(position, null); this.ui.setBody({ proof: 'over' }); return; }
    if (this.proofs.has(position)) {
      const known = this.proofs.get(position);
      this.applyProof(position, known);
      this.ui.setBody({ proof: known.proven ? 'proven' : 'unproven' });
      return;
    }
    this.applyProof(position, null);
    this.ui.setBody({ proof: 'pending' });
    const seq = ++this.proofSeq;
    this.proofTimer = setTimeout(async () => {
      const r = await postText('/position/proof', this.body(position));
      // A later position asked meanwhile: this answer is stale.
      if (this.destroyed || seq !== this.proofSeq) return;
      if (r.status === 429 || r.status === 503) {
        // Proofs share the hints' budget: ask again when the server says, if still here.
        const wait = Math.min(30, Math.max(1, Number(r.data && r.data.retry_after) || 5));
        this.ui.setBody({ proof: 'waiting' });
        this.proofTimer = setTimeout(() => { if (this.current.position === position) this.showProof(position, false); }, wait * 1000);
        return;
      }
      if (r.ok) this.proofs.set(position, r.data);
      if (this.current.position !== position) return;
      this.applyProof(position, r.ok ? r.data : null);
      this.ui.setBody({ proof: r.ok ? (r.data.proven ? 'proven' : 'unproven') : 'error' });
    }, PROOF_DEBOUNCE_MS);
  }

  applyProof(position, proof) {
    const $ = (q) => this.ui.main.querySelector(q);
    const box = $('#proven');
    const proven = proof && proof.proven ? proof : null;
    box.hidden = !proven;
    $('#proof-legend').hidden = !proven;
    for (const b of this.board.holes) b.classList.remove('proof-win', 'proof-draw', 'proof-loss');
    if (!proven) {
      box.removeAttribute('data-outcome');
      return;
    }
    this.ui.setBody({ proof: 'proven' });
    const sentence = provenSentence(proven);
    box.dataset.outcome = proven.outcome;
    $('#proven-text').textContent = sentence;
    this.engine.proof({ ...proven, sentence });
    for (const m of proven.moves || []) {
      const hole = this.board.holes[indexOf(m.move)];
      if (!hole || this.animation || !m.outcome) continue;
      hole.classList.add('proof-' + m.outcome);
      hole.setAttribute('aria-label', hole.getAttribute('aria-label') + ', ' + outcomeText(m));
    }
  }

  // ----------------------------------------------------------------------------------------
  // Copying

  async copy(text, done) {
    if (text === null) return;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'sr-only';
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    this.ui.say(done, true);
  }

  /** The record of the line from the start to the current node (docs/record-format.md): the
   * game's own record up to here on its line, else one made from the start and the moves. */
  async recordText() {
    const node = this.current;
    const moves = this.tree.path(node).map((n) => n.move);
    if (this.game && node.main) {
      if (!this.recordCache) {
        const r = await api('GET', `/games/${this.game.id}/record`);
        if (!r.ok) { this.ui.say(this.ui.errorText(r), true); return null; }
        this.recordCache = String(r.data);
      }
      if (node.depth === this.tree.mainEnd.depth) return this.recordCache;
      const tags = this.recordCache.split('\n').filter((l) => l.startsWith('[') && !/^\[(Result|Termination) /.test(l));
      return writeRecord(tags, moves, '*');
    }
    const tags = [`[Rules "${this.rules}"]`];
    if (this.seed !== null && this.seed !== undefined) tags.push(`[Seed "${this.seed}"]`);
    if (this.tree.root.position !== START) tags.push(`[Position "${this.tree.root.position}"]`);
    const st = parsePosition(node.position);
    const [s, n] = st.stores;
    const result = st.toMove !== null ? '*' : s > n ? '1-0' : s < n ? '0-1' : '1/2-1/2';
    return writeRecord(tags, moves, result);
  }
}

/** A POST of a JSON text, answered as api() answers: {ok, status, data}. The position
 * endpoints need no session, so no CSRF token. */
async function postText(path, text) {
  let resp;
  try {
    resp = await fetch('/api' + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'network', message: String(e) } };
  }
  const data = await resp.json().catch(() => ({}));
  if (!data.retry_after && resp.headers.get('retry-after')) data.retry_after = Number(resp.headers.get('retry-after'));
  return { ok: resp.ok, status: resp.status, data };
}

/** Tags (lines), the Result tag, a blank line, the moves wrapped at 80 columns, the result. */
export function writeRecord(tags, moves, result) {
  const lines = [...tags.filter((l) => !l.startsWith('[Result ')), `[Result "${result}"]`, ''];
  let line = '';
  for (const m of [...moves, result]) {
    if (line.length + 1 + m.length > 79) { lines.push(line); line = m; } else line = line ? line + ' ' + m : m;
  }
  lines.push(line);
  return lines.join('\n') + '\n';
}

/** "South wins by 8, capture in 23 plies" from a proof. */
function provenSentence(p) {
  const [s, n] = p.final || [0, 0];
  if (!p.winner || s === n) return t('an_proven_draw', { s, n, k: p.plies });
  const by = Math.abs(s - n) || Math.abs(p.margin || 0);
  const side = t(p.winner);
  if (p.capture_in !== null && p.capture_in !== undefined) return t('an_proven_win_capture', { side, n: by, k: p.capture_in });
  return t('an_proven_win', { side, n: by, k: p.plies });
}

/** A position answer's error in the reader's words (the board editor's), else its message. */
function errorMessage(e) {
  if (!e) return '';
  return e.kind ? refusalText(e) : e.message || '';
}

/** Scrolls the tree's box (not the page) so that `el` is in view. */
function scrollInto(box, el) {
  const top = el.offsetTop;
  if (top < box.scrollTop) box.scrollTop = top - 8;
  else if (top + el.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + el.offsetHeight - box.clientHeight + 8;
}
