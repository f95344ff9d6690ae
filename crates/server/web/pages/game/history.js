// A game's page, part 4 of 7: stepping through the moves played, and "Why?" for one of them.

import { GameDisplay } from './display.js';
import { api } from '../../api.js';
import { esc } from '../../common.js';
import { t } from '../../i18n.js';
import { explain } from '../../why.js';
import { main, say, setBody } from '../../lib/dom.js';
import { SPEEDS, speed } from '../../lib/speed.js';

export class GameHistory extends GameDisplay {
  async loadPositions() {
    if (this.positions && this.positions.length === this.game.ply + 1) return true;
    const r = await api('GET', `/games/${this.id}/positions`);
    if (!r.ok) return false;
    this.positions = r.data.positions;
    return true;
  }

  /** Marks move `shown` in the move list, and scrolls the list to it. */
  markCurrent(shown) {
    const list = main.querySelector('#movelist');
    if (!list) return;
    const was = list.querySelector('.current');
    const now = shown > 0 ? list.querySelector(`button[data-ply="${shown}"]`) : null;
    if (was === now) return;
    if (was) { was.classList.remove('current'); was.removeAttribute('aria-current'); }
    if (now) {
      now.classList.add('current');
      now.setAttribute('aria-current', 'step');
      // The list follows the move shown, in the game's history too.
      now.scrollIntoView({ block: 'nearest' });
    }
  }

  /** The ply the next step counts from: the one asked for last, if the board is still on
   * its way there. */
  aimedPly() {
    return this.stepAfter ?? this.shownPly();
  }

  /** Shows the position after `n` moves; one step forward is animated. A step asked for
   * while a move is sown cuts the sowing short and goes straight on: no key press is lost,
   * and holding an arrow key runs through a long game (issue 36: a step took 1.7–12.9 s on
   * long games and presses in between were dropped). */
  async step(n) {
    const g = this.game;
    if (!g) return;
    n = Math.max(0, Math.min(n, g.ply));
    if (this.busy) {
      this.stepAfter = n;
      this.board.skip();
      return;
    }
    const from = this.shownPly();
    if (n === from) return;
    this.busy = true;
    const loaded = await this.loadPositions();
    if (loaded && n === from + 1 && this.stepAfter === undefined) {
      const r = await api('GET', `/games/${this.id}/moves/${n}/trace`);
      if (r.ok && this.stepAfter === undefined) {
        this.viewPly = n === g.ply ? null : n;
        // The list shows the step at once; the board sows it.
        this.markCurrent(n);
        say(t('played', { side: t(r.data.mover), m: r.data.move }));
        await this.board.animate(r.data, SPEEDS[speed()], (text, important) => { if (important) say(text); });
      }
    }
    this.busy = false;
    if (this.stepAfter !== undefined) {
      n = this.stepAfter;
      this.stepAfter = undefined;
    }
    if (loaded) this.viewPly = n === g.ply ? null : n;
    if (this.viewPly !== null && n !== from + 1) say(t('viewing_move', { n, total: g.ply }));
    this.show();
    this.pump();
  }

  /** "Why?": the move on the board told lap by lap, from its trace. */
  async why() {
    const n = this.shownPly();
    if (n === 0) return;
    const r = await api('GET', `/games/${this.id}/moves/${n}/trace`);
    const $ = (s) => main.querySelector(s);
    if (!r.ok || !$('#why-panel')) return;
    this.whyPly = n;
    $('#why-heading').textContent = t('why_title', { n, side: t(r.data.mover), m: r.data.move });
    $('#why-list').innerHTML = explain(r.data).map((s) => `<li>${esc(s)}</li>`).join('');
    $('#why-panel').hidden = false;
    $('#why').setAttribute('aria-expanded', 'true');
    setBody({ why: String(n) });
    $('#why-heading').focus?.();
  }

  closeWhy() {
    const $ = (s) => main.querySelector(s);
    this.whyPly = undefined;
    if (!$('#why-panel')) return;
    $('#why-panel').hidden = true;
    $('#why').setAttribute('aria-expanded', 'false');
    setBody({ why: '' });
  }

  goLive() {
    if (this.viewPly === null) return;
    this.viewPly = null;
    say(t('back_to_game'));
    this.show();
  }
}
