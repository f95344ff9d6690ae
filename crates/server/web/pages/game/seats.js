// A game's page, part 1 of 7: which sides this browser holds, and which is at the bottom.

import { mySeat, rememberSeat } from '../../api.js';
import { post, samePlayer, loadAccount } from '../../account.js';

export class GameSeats {
  // The view's state, shared by its parts: declared where their chain begins, set by the view
  // and its parts.
  /** @type {any} */ awayTimer;
  /** @type {any} */ board;
  /** @type {any} */ bottom;
  /** @type {any} */ busy;
  /** @type {any} */ clocks;
  /** @type {any} */ flipped;
  /** @type {any} */ game;
  /** @type {any} */ hinted;
  /** @type {any} */ id;
  /** @type {any} */ invite;
  /** @type {any} */ onKey;
  /** @type {any} */ online;
  /** @type {any} */ pending;
  /** @type {any} */ positions;
  /** @type {any} */ publicBusy;
  /** @type {any} */ queue;
  /** @type {any} */ receivedAt;
  /** @type {any} */ site;
  /** @type {any} */ socket;
  /** @type {any} */ sowing;
  /** @type {any} */ stepAfter;
  /** @type {any} */ turnSeen;
  /** @type {any} */ viewPly;
  /** @type {any} */ whyPly;

  get seat() { return mySeat(this.id); }

  /** The sides this browser plays. */
  me() {
    const s = this.seat;
    if (!s || !this.game) return [];
    return s.seat === 'both' ? ['south', 'north'] : [s.seat];
  }

  orient() {
    const me = this.me();
    let bottom = me.length === 1 ? me[0] : 'south';
    if (this.flipped) bottom = bottom === 'south' ? 'north' : 'south';
    this.bottom = bottom;
    this.board.orient(bottom, me);
  }

  shownPly() {
    return this.viewPly === null ? (this.game ? this.game.ply : 0) : this.viewPly;
  }

  rememberRematch(id) {
    const s = this.seat;
    if (!s || mySeat(id)) return;
    const swapped = s.seat === 'both' ? 'both' : s.seat === 'south' ? 'north' : 'south';
    rememberSeat(id, swapped, s.secret);
  }

  /** A logged-in reader who plays in this game on another device: their account holds the
   * seat, and gives this browser its secret. */
  async recoverSeat(g) {
    if (this.seat) return;
    const me = await loadAccount();
    if (!me || !['south', 'north'].some((s) => g.seats[s] && samePlayer(g.seats[s].player, me.name))) return;
    const r = await post(`/games/${this.id}/seat`);
    if (!r.ok || !r.data.secret) return;
    rememberSeat(this.id, r.data.seat, r.data.secret);
    this.show();
  }
}
