// The analysis board, part 3 of 5: moving in the tree: a move played (click or key), a step,
// another branch, the engine's better move, a branch deleted, the tree kept in the browser.

import { AnalysisDisplay } from './display.js';
import { t } from '../../i18n.js';
import { indexOf } from '../../board.js';
import { storeSaved } from '../../tree.js';

export class AnalysisMoves extends AnalysisDisplay {
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
}
