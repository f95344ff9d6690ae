// A game's page, part 7 of 7: the view itself, which loads the game, follows it over the
// WebSocket and applies its events one by one.

import { GameActions } from './actions.js';
import { TournamentBar } from './tournament.js';
import { site } from './invite.js';
import { api, GameSocket } from '../../api.js';
import { esc } from '../../common.js';
import { t } from '../../i18n.js';
import { main, say, errorText, setBody } from '../../lib/dom.js';
import { SPEEDS, speed } from '../../lib/speed.js';
import { missingHtml } from '../missing.js';

export class GameView extends GameActions {
  constructor(id) {
    super();
    this.id = id;
    this.game = null;
    this.queue = [];
    this.busy = false;
    this.pending = false;
    this.viewPly = null;
    this.positions = null;
    this.flipped = false;
    this.online = true;
    this.hinted = null;
    this.tournamentBar = new TournamentBar();
    // An invite link carries the free seat's token after '#invite='.
    const m = /(?:^#|&)invite=([0-9a-f]{32})/.exec(location.hash);
    this.invite = m ? m[1] : null;
    setBody({ view: 'game', status: 'loading', turn: 'none', busy: '0', online: '1' });
    this.build();
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.start();
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    if (this.socket) this.socket.close();
    this.tournamentBar.close();
    this.board.skip();
  }

  async start() {
    const r = await api('GET', '/games/' + this.id);
    if (!r.ok) {
      setBody({ status: 'missing', view: r.status === 404 ? 'missing' : 'game' });
      if (r.status === 404) {
        document.title = t('app_title') + ' — ' + t('not_found');
        main.innerHTML = missingHtml('not_found');
      } else {
        main.innerHTML = `<section class="panel"><h1>${esc(errorText(r))}</h1>
          <p><a href="/" data-link>${esc(t('nav_new'))}</a></p></section>`;
      }
      return;
    }
    this.site = await site();
    this.setGame(r.data);
    await this.recoverSeat(r.data);
    this.tournamentBar.update(this.id, this.game, this.me().length === 1);
    this.socket = new GameSocket(this.id, (m) => this.receive(m), (on) => this.connection(on));
    if (this.seat && this.me().length === 1) this.socket.hello(this.seat.secret);
  }

  connection(on) {
    if (on === this.online) return;
    this.online = on;
    setBody({ online: on ? '1' : '0' });
    if (!on) say(t('connection_lost'));
    this.show();
  }

  receive(msg) {
    if (msg.type === 'chat') { this.chat.add(msg); return; }
    if (msg.type === 'error') { this.chat.refused(msg); return; }
    this.queue.push(msg);
    this.pump();
  }

  /** Applies events one by one, animating moves; a backlog is shown without animation. */
  async pump() {
    if (this.busy) return;
    this.busy = true;
    setBody({ busy: '1' });
    this.show();
    while (this.queue.length) {
      const m = this.queue.shift();
      if (!m.game) continue;
      const fresh = !this.game || m.game.version > this.game.version;
      if (m.type === 'state') {
        if (fresh || m.game.version !== this.game.version) this.setGame(m.game);
        continue;
      }
      if (!fresh) continue;
      if (m.type === 'move' && m.trace && this.game && m.game.ply === this.game.ply + 1) {
        const mover = m.trace.mover;
        say(t('played', { side: t(mover), m: m.trace.move }));
        if (this.viewPly === null) {
          this.game = { ...this.game, legal: [], thinking: false };
          this.orient();
          const delay = this.queue.length > 2 ? 0 : SPEEDS[speed()];
          this.sowing = mover;
          this.show();
          await this.board.animate(m.trace, delay, (text, important, show) => { if (important) say(text, show); });
          this.sowing = null;
        }
        if (m.game.status === 'over') say(this.statusText(m.game));
      }
      if (m.type === 'rematch' && m.rematch) this.rememberRematch(m.rematch);
      if (m.type === 'resign') say(this.statusText(m.game), true);
      if (m.type === 'takeback') say(t('taken_back'));
      if (m.type === 'berserk') say(t('berserk_by', { side: t(m.side) }), !this.me().includes(m.side));
      if (['flag', 'aborted', 'drawn', 'claimed'].includes(m.type)) say(this.statusText(m.game), true);
      if (m.type === 'offer' && !this.me().includes(m.side)) say(this.offerText(m.game), true);
      if (m.type === 'declined' && !this.me().includes(m.side)) say(t('offer_declined', { side: t(m.side) }), true);
      if (m.type === 'left' && !this.me().includes(m.side)) say(t('opponent_left', { side: t(m.side), s: 0 }));
      if (m.type === 'back' && !this.me().includes(m.side)) say(t('opponent_back', { side: t(m.side) }));
      this.setGame(m.game);
    }
    this.busy = false;
    setBody({ busy: this.pending ? '1' : '0' });
    this.show();
    // A step asked for while a live move was sown.
    if (this.stepAfter !== undefined) {
      const n = this.stepAfter;
      this.stepAfter = undefined;
      this.step(n);
    }
  }

  setGame(g) {
    this.receivedAt = performance.now();
    const plyChanged = !this.game || g.ply !== this.game.ply || g.moves.join() !== this.game.moves.join();
    this.game = g;
    if (plyChanged) {
      this.positions = null;
      this.hinted = null;
      if (this.viewPly !== null && this.viewPly > g.ply) this.viewPly = null;
    }
    if (g.rematch) this.rememberRematch(g.rematch);
    this.chatRole(g);
    this.show();
    // A tournament's game: the way back to it, and on to the reader's next game.
    this.tournamentBar.update(this.id, g, this.me().length === 1);
  }

  /** The chat as this reader's seat and the game's end let it read; a player's page reads
   * the spectators' room once the game is over, which the server sends on connecting. */
  chatRole(g) {
    const seated = this.me().length > 0;
    const over = g.status !== 'playing';
    const opened = seated && over && this.chat.seated && !this.chat.over;
    this.chat.setRole(seated, over);
    if (opened && this.socket) {
      this.socket.suspend();
      this.socket.reconnectNow();
    }
  }

  refresh() {
    const state = { viewPly: this.viewPly };
    this.build();
    this.viewPly = state.viewPly;
    this.show();
    this.tournamentBar.draw();
  }
}
