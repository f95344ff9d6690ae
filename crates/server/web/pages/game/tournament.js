// A game's page, beside its parts: a tournament game's bar (docs/tournaments.md, "On the
// site"). It links back to the tournament; once the reader's own game is over it follows the
// tournament and goes on to their next game by itself (taking its seat), saying meanwhile that
// the next game is awaited, with a pause for an arena.

import { api } from '../../api.js';
import { t } from '../../i18n.js';
import { post } from '../../account.js';
import { h, fill } from '../../lib/h.js';
import { main, say, errorText } from '../../lib/dom.js';
import { TournamentFeed, goToTournamentGame } from '../tournaments/live.js';
import { shouldOpen, openedGames, markOpened, timeLine } from '../tournaments/terms.js';

export class TournamentBar {
  constructor() {
    /** The game shown, and its tournament ({id, name}) or null. */
    this.gameId = null;
    this.tour = null;
    /** The tournament as last fetched (`GET /api/tournaments/{id}`) while following it. */
    this.data = null;
    this.feed = null;
    this.ticker = null;
    this.error = '';
    this.busy = false;
  }

  /**
   * The game's state changed: the bar is drawn again, and the tournament followed while the
   * reader's game (`seated`) is over.
   * @param {string|null} gameId
   * @param {any} g the game
   * @param {boolean} seated whether this browser plays one side of it
   */
  update(gameId, g, seated) {
    const tour = (g && g.tournament) || null;
    if (gameId !== this.gameId || !tour || (this.tour && this.tour.id !== tour.id)) {
      this.stop();
      this.data = null;
      this.error = '';
    }
    // The reader's game itself: never a game to be taken to again from the tournament's page.
    if (tour && seated && gameId && !openedGames().includes(gameId)) markOpened(gameId);
    this.gameId = gameId;
    this.tour = tour;
    const follow = Boolean(tour && seated && g.status !== 'playing');
    if (follow && !this.feed) {
      this.feed = new TournamentFeed(tour.id, () => this.load());
      this.ticker = setInterval(() => this.tick(), 1000);
      this.load();
    } else if (!follow) this.stop();
    this.draw();
  }

  async load() {
    const tour = this.tour;
    const game = this.gameId;
    if (!tour || !this.feed) return;
    const r = await api('GET', '/tournaments/' + encodeURIComponent(tour.id));
    const still = () => Boolean(this.feed) && this.tour === tour && this.gameId === game;
    if (!still()) return;
    if (!r.ok) return;
    this.data = r.data;
    this.feed.seen(r.data.version);
    this.draw();
    const me = r.data.me;
    if (me && me.playing && shouldOpen(me.playing, openedGames(), game)) {
      say(t('tm_game_started'), true);
      goToTournamentGame(me.playing, still);
    }
  }

  /** Pause (an arena) or come back. */
  async act(what) {
    if (!this.tour || this.busy) return;
    this.busy = true;
    this.draw();
    const r = await post(`/tournaments/${encodeURIComponent(this.tour.id)}/${what}`);
    this.busy = false;
    this.error = r.ok ? '' : errorText(r);
    if (r.ok && this.data && r.data && 'me' in r.data) this.data = { ...this.data, me: r.data.me };
    if (r.ok) say(t(what === 'join' ? 'tm_joined' : 'tm_paused'), true);
    this.draw();
    if (r.ok) this.load();
  }

  /** The bar: the link back, and while following, what is awaited. */
  draw() {
    const el = /** @type {HTMLElement} */ (main.querySelector('#tournament-bar'));
    if (!el) return;
    el.hidden = !this.tour;
    if (!this.tour) { fill(el); return; }
    const link = h('a', { href: '/t/' + encodeURIComponent(this.tour.id), 'data-link': true, id: 'tournament-link' }, t('tm_back_to', { name: this.tour.name }));
    const d = this.feed ? this.data : null;
    const parts = [];
    if (d) {
      const tour = d.tournament;
      const me = d.me;
      const button = (id, key, onClick, primary = false) => {
        const b = h('button', { type: 'button', id, class: primary ? 'primary' : null, disabled: this.busy }, t(key));
        b.addEventListener('click', onClick);
        return b;
      };
      if (tour.status === 'finished' || tour.status === 'cancelled') {
        parts.push(h('p', { class: 'note', id: 'tournament-note' }, t(tour.status === 'finished' ? 'tm_over_note' : 'tm_cancelled_note')));
      } else if (me && me.state === 'active') {
        if (me.playing && me.playing !== this.gameId) {
          // Opened from here once already (the reader came back): a button, not a bounce.
          parts.push(h('p', { id: 'tournament-note' }, t('tm_next_game_on'), ' ',
            button('tournament-next', 'tm_to_game', () => goToTournamentGame(me.playing), true)));
        } else {
          parts.push(h('p', { class: 'tm-waiting', id: 'tournament-note', role: 'status' }, t('tm_waiting_next'), ' ',
            h('span', { id: 'tournament-time' }, timeLine(tour, Date.now()))));
          if (tour.system === 'arena') parts.push(button('tournament-pause', 'tm_pause', () => this.act('withdraw')));
        }
      } else if (me && me.state === 'paused') {
        parts.push(h('p', { class: 'note', id: 'tournament-note' }, t('tm_paused_note'), ' ',
          button('tournament-resume', 'tm_resume', () => this.act('join'), true)));
      }
    }
    if (this.error) parts.push(h('p', { class: 'error', role: 'alert' }, this.error));
    fill(el, h('p', { class: 'tournament-link' }, '🏆 ', link), parts);
  }

  /** The countdown in the waiting note, each second. */
  tick() {
    const span = main.querySelector('#tournament-time');
    if (!span || !this.data) return;
    const text = timeLine(this.data.tournament, Date.now());
    if (span.textContent !== text) span.textContent = text;
  }

  stop() {
    if (this.feed) this.feed.close();
    this.feed = null;
    clearInterval(this.ticker);
    this.ticker = null;
  }

  close() {
    this.stop();
  }
}
