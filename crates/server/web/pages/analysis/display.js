// The analysis board, part 2 of 5: the position, the move tree, the proven result and the
// review's marks drawn from where the reader is in the tree.

import { AnalysisLayout } from './layout.js';
import { t } from '../../i18n.js';
import { parsePosition, indexOf } from '../../board.js';
import { treeHtml } from '../../tree.js';
import { outcomeText, num1 } from '../../engine.js';
import { postText } from './wire.js';

/** Edits of the tree in a row ask for one proof, this long after the last. */
const PROOF_DEBOUNCE_MS = 250;

/** "South wins by 8, capture in 23 plies" from a proof. */
function provenSentence(p) {
  const [s, n] = p.final || [0, 0];
  if (!p.winner || s === n) return t('an_proven_draw', { s, n, k: p.plies });
  const by = Math.abs(s - n) || Math.abs(p.margin || 0);
  const side = t(p.winner);
  if (p.capture_in !== null && p.capture_in !== undefined) return t('an_proven_win_capture', { side, n: by, k: p.capture_in });
  return t('an_proven_win', { side, n: by, k: p.plies });
}

/** Scrolls the tree's box (not the page) so that `el` is in view. */
function scrollInto(box, el) {
  const top = el.offsetTop;
  if (top < box.scrollTop) box.scrollTop = top - 8;
  else if (top + el.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + el.offsetHeight - box.clientHeight + 8;
}

export class AnalysisDisplay extends AnalysisLayout {
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
    this.explorer.show({ position: node.position, rules: this.rules });
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
}
