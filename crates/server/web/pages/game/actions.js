// A game's page, part 6 of 7: what the reader does: a move (click or key), a hint, a take-back,
// an offer, resigning, a rematch, the record's download.

import { GameInvite } from './invite.js';
import { api, rememberSeat } from '../../api.js';
import { t } from '../../i18n.js';
import { indexOf } from '../../board.js';
import { main, say, errorText, setBody } from '../../lib/dom.js';
import { navigate } from '../../lib/nav.js';

export class GameActions extends GameInvite {
  async play(letter) {
    const g = this.game;
    if (!g || this.pending || this.viewPly !== null || this.busy) return;
    if (!g.legal.includes(letter)) return;
    this.pending = true;
    setBody({ busy: '1' });
    this.show();
    const lag = this.socket ? this.socket.lag : 0;
    const r = await api('POST', `/games/${this.id}/moves`, { move: letter, secret: this.seat.secret, ply: g.ply, lag });
    this.pending = false;
    if (!r.ok) {
      say(errorText(r), true);
      setBody({ busy: '0' });
      // The server may know something newer; its state is the truth.
      const s = await api('GET', '/games/' + this.id);
      if (s.ok) this.queue.push({ type: 'state', game: s.data });
    } else {
      // The same event comes over the WebSocket; whichever arrives first is shown.
      this.queue.push({ type: 'move', game: r.data.game, trace: r.data.trace });
    }
    this.pump();
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target.tagName || '').toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') return;
    const g = this.game;
    if (!g) return;
    if (e.key === 'Escape') { this.board.skip(); return; }
    if (e.key === 'ArrowLeft') { e.preventDefault(); this.step(this.aimedPly() - 1); return; }
    if (e.key === 'ArrowRight') { e.preventDefault(); this.step(this.aimedPly() + 1); return; }
    if (e.key === 'Home') { e.preventDefault(); this.step(0); return; }
    if (e.key === 'End') { e.preventDefault(); this.goLive(); return; }
    if (e.key.length === 1 && /[a-lA-L]/.test(e.key) && g.to_move) {
      // A player can only move from their own row, so the letter's case does not matter.
      const letter = g.to_move === 'south' ? e.key.toLowerCase() : e.key.toUpperCase();
      if (this.me().includes(g.to_move) && indexOf(letter) >= 0) {
        e.preventDefault();
        if (g.legal.includes(letter)) this.play(letter);
        else say(t('cannot_play', { h: letter }));
      }
    }
  }

  async hint() {
    /** @type {HTMLInputElement} */ (main.querySelector('#hint')).disabled = true;
    const r = await api('POST', `/games/${this.id}/hint`, { secret: this.seat.secret });
    if (!r.ok) { say(errorText(r), true); this.show(); return; }
    if (r.data.ply !== this.game.ply) { this.show(); return; }
    this.hinted = r.data.move;
    say(t('hint_is', { m: r.data.move }), true);
    this.show();
  }

  async takeback() {
    const r = await api('POST', `/games/${this.id}/takeback`, { secret: this.seat.secret });
    if (!r.ok) { say(errorText(r), true); return; }
    this.queue.push({ type: 'takeback', game: r.data.game });
    this.pump();
  }

  /** A game action with the seat's secret (`abort`, `offer`, `offer/accept`, `claim`...). */
  async act(path, extra = {}) {
    const r = await api('POST', `/games/${this.id}/${path}`, { secret: this.seat.secret, ...extra });
    if (!r.ok) {
      say(errorText(r), true);
      const s = await api('GET', '/games/' + this.id);
      if (s.ok) this.queue.push({ type: 'state', game: s.data });
    } else {
      this.queue.push({ type: 'state', game: r.data.game });
    }
    this.pump();
  }

  async resign() {
    if (!confirm(t('resign_confirm'))) return;
    const r = await api('POST', `/games/${this.id}/resign`, { secret: this.seat.secret });
    if (!r.ok) { say(errorText(r), true); return; }
    this.queue.push({ type: 'resign', game: r.data.game });
    this.pump();
  }

  async rematch() {
    const r = await api('POST', `/games/${this.id}/rematch`, { secret: this.seat.secret });
    if (!r.ok) { say(errorText(r), true); return; }
    rememberSeat(r.data.game.id, r.data.seat, r.data.secret);
    navigate('/g/' + r.data.game.id);
  }

  async exportRecord() {
    const r = await api('GET', `/games/${this.id}/record`);
    if (!r.ok) { say(errorText(r), true); return; }
    const url = URL.createObjectURL(new Blob([r.data], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `anywoli-${this.id}.txt`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}
