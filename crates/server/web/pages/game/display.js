// A game's page, part 3 of 7: the status, the board, the controls, the clocks, the players and
// the move list drawn from the game's state.

import { GameLayout } from './layout.js';
import { esc } from '../../common.js';
import { t } from '../../i18n.js';
import { parsePosition } from '../../board.js';
import { notifyTurn } from '../../prefs.js';
import { ratingText, profilePath } from '../../account.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody } from '../../lib/dom.js';
import { titleBadge } from '../../lib/names.js';

export class GameDisplay extends GameLayout {
  statusText(g) {
    const me = this.me();
    const [s, n] = g.stores;
    // Scores are read from the reader's side: their own first, or the winner's for a watcher.
    const store = (side) => (side === 'south' ? s : n);
    const other = (side) => (side === 'south' ? 'north' : 'south');
    if (g.status === 'over') {
      let text;
      const winner = g.result === '1-0' ? 'south' : g.result === '0-1' ? 'north' : null;
      const mine = me.length === 1 ? me[0] : null;
      if (mine && winner) {
        text = t(winner === mine ? 'result_you_win' : 'result_you_lose', { mine: store(mine), theirs: store(other(mine)) });
      } else if (winner) text = t('result_win', { side: t(winner), won: store(winner), lost: store(other(winner)) });
      else if (g.result === '1/2-1/2') text = t('result_draw', { s, n });
      else text = t('game_over');
      if (g.termination === 'resignation' && winner) text += ' ' + t('by_resignation', { side: t(other(winner)) });
      if (g.termination === 'quiet') text += ' ' + t('by_quiet');
      if (g.termination === 'time' && winner) text += ' ' + t('by_time', { side: t(other(winner)) });
      if (g.termination === 'agreement') text += ' ' + t('by_agreement');
      if (g.termination === 'abandoned' && winner) text += ' ' + t('by_abandonment', { side: t(other(winner)) });
      return text;
    }
    if (g.status === 'aborted') return t('aborted');
    if (this.sowing) return t('sowing', { side: t(this.sowing) });
    const side = g.to_move;
    if (g.thinking || (side && g.seats[side].kind === 'computer')) return t('turn_computer');
    if (me.includes(side)) return me.length === 1 ? t('turn_yours') : t('turn_side', { side: t(side) });
    const opponent = me.length === 1 ? other(me[0]) : null;
    if (g.mode === 'friend' && opponent && !g.seats[opponent].taken) return t('waiting_friend');
    return t('turn_side', { side: t(side) });
  }

  /** Redraws everything but the board's running animation. */
  show() {
    const g = this.game;
    if (!g) return;
    const $ = (s) => main.querySelector(s);
    const me = this.me();
    const held = me.length > 0;
    this.orient();
    const animating = this.busy && this.board.el.classList.contains('animating');
    const live = this.viewPly === null;
    const myTurn = g.status === 'playing' && !g.thinking && me.includes(g.to_move);
    const canPlay = live && myTurn && !this.pending && !animating;
    setBody({
      status: g.status,
      turn: g.status !== 'playing' ? 'none' : myTurn ? 'mine' : 'theirs',
      ply: String(g.ply),
      mode: g.mode,
      seat: me.length ? me.join(' ') : 'none',
    });
    const heading = t('game_heading', { mode: t('mode_' + g.mode), rules: t('variant_name_' + g.rules) });
    $('#game-heading').textContent = heading;
    this.showTurn(g, myTurn && me.length === 1);
    let status = this.statusText(g);
    if (held && me.length === 1 && g.status === 'playing') status = t('you_are', { side: t(me[0]) }) + ' ' + status;
    if (!held) status = t('watching') + ' ' + status;
    if (!this.online) status = t('connection_lost') + ' ' + status;
    $('#status').textContent = status;
    $('#status').classList.toggle('offline', !this.online);
    $('#status').classList.toggle('your-turn', myTurn);
    // Invitations.
    const other = me.length === 1 ? (me[0] === 'south' ? 'north' : 'south') : null;
    $('#invite').hidden = !(g.mode === 'friend' && other && !g.seats[other].taken);
    if (!$('#invite').hidden) this.showReach();
    $('#invite-hints').textContent = t(g.hints ? 'hints_on' : 'hints_off');
    // What the rules fix before the first move is shown from the first move (the engine knows it).
    const lastSeeds = $('#last-seeds');
    lastSeeds.hidden = !g.last_seeds_to;
    if (g.last_seeds_to) {
      lastSeeds.textContent = t(g.rules === 'anywoli-lottery' ? 'lottery_draw' : 'last_seeds_fixed', { side: t(g.last_seeds_to) });
    }
    const open = ['south', 'north'].find((s) => g.seats[s].kind === 'human' && !g.seats[s].taken);
    $('#join').hidden = !(g.mode === 'friend' && !held && open && g.status === 'playing' && (this.invite || !g.invite_only));
    if (open) $('#join-button').textContent = t('join_seat', { side: t(open) });
    // The board.
    this.board.el.setAttribute('aria-label', t('board_label'));
    if (!animating) {
      let state = g;
      let last = g.moves.length ? g.moves[g.moves.length - 1] : null;
      if (!live && this.positions) {
        state = parsePosition(this.positions[this.viewPly]);
        last = this.viewPly > 0 ? g.moves[this.viewPly - 1] : null;
      }
      this.board.draw(state, { playable: canPlay ? g.legal : [], last });
      for (const b of this.board.holes) b.classList.toggle('hinted', live && b.dataset.hole === this.hinted);
    }
    $('#history-bar').hidden = live;
    if (!live) $('#history-text').textContent = t('viewing_move', { n: this.viewPly, total: g.ply });
    // Controls.
    const computerOrLocal = g.mode === 'computer' || g.mode === 'local';
    $('#hint').hidden = !(held && g.status === 'playing' && g.hints);
    $('#hint').disabled = !canPlay;
    // Something to take back: a move of one of this browser's sides.
    const myMoves = g.moves.some((mv) => me.includes(mv === mv.toLowerCase() ? 'south' : 'north'));
    // A finished game is final: going back in it is the analysis board's job.
    $('#takeback').hidden = !(held && computerOrLocal && g.status === 'playing');
    $('#takeback').disabled = !myMoves || this.pending || animating || Boolean(this.sowing);
    $('#resign').hidden = !(held && g.status === 'playing');
    $('#abort').hidden = !(held && g.can_abort);
    // An arena's game: half one's clock and no increment, for a point more on a win.
    const mayBerserk = g.berserk && me.length === 1 && g.berserk[me[0] + '_may'];
    $('#berserk').hidden = !(held && mayBerserk);
    this.showTimeAndOffers(g, me);
    this.showPlayers(g);
    const mine = me.length === 1;
    $('#public-toggle').hidden = !(mine && g.mode === 'friend' && g.status === 'playing' && typeof g.public === 'boolean');
    $('#public-note').hidden = $('#public-toggle').hidden;
    if (!$('#public-toggle').hidden && !this.publicBusy) $('#public').checked = g.public;
    // A tournament pairs its own games: no rematch.
    $('#rematch').hidden = !(held && g.status === 'over' && !g.rematch && !g.tournament);
    $('#to-rematch').hidden = !g.rematch;
    if (g.rematch) $('#to-rematch').setAttribute('href', '/g/' + g.rematch);
    $('#flip').hidden = me.length === 1;
    $('#meta').textContent = `${t('variant_name_' + g.rules)} · ${t('mode_' + g.mode)}` +
      (g.seats.south.kind === 'computer' ? ` · ${t('player_computer', { n: g.seats.south.level })}` : '') +
      (g.seats.north.kind === 'computer' ? ` · ${t('player_computer', { n: g.seats.north.level })}` : '') +
      ` · ${t(g.hints ? 'hints_on' : 'hints_off')}` +
      (g.rated ? ` · ${t('rated')}` : '');
    // The move list.
    const list = $('#movelist');
    const shown = this.shownPly();
    const moves = g.moves.join('');
    const had = list.dataset.moves || '';
    if (list.childElementCount !== had.length || had !== moves) {
      const item = (mv, i) => {
        const side = mv === mv.toLowerCase() ? 'south' : 'north';
        return `<li><span class="n" aria-hidden="true">${i + 1}.</span><button type="button" data-ply="${i + 1}" class="mv ${side}" aria-label="${esc(t('move_label', { n: i + 1, side: t(side), m: mv }))}">${esc(mv)}</button></li>`;
      };
      // A new move adds its line; only a take-back or another game rewrites the list (one
      // rewrite per move made a long game's page slower with every move).
      if (list.childElementCount === had.length && moves.startsWith(had)) {
        list.insertAdjacentHTML('beforeend', g.moves.slice(had.length).map((mv, k) => item(mv, had.length + k)).join(''));
      } else {
        list.innerHTML = g.moves.map(item).join('');
      }
      list.dataset.moves = moves;
    }
    this.markCurrent(shown);
    $('#first').disabled = shown === 0;
    $('#prev').disabled = shown === 0;
    $('#next').disabled = live;
    $('#last').disabled = live;
    $('#why').hidden = shown === 0;
    if (this.whyPly !== undefined && this.whyPly !== shown) this.closeWhy();
    // Analysing a game in play is for games where the engine's advice is allowed anyway.
    $('#analyse').hidden = !(g.moves.length && (g.status !== 'playing' || g.hints));
    $('#analyse').setAttribute('href', `/analysis/${g.id}?ply=${shown}`);
  }

  /**
   * The tab's title says when it is the reader's move (always: other tabs' readers see it in
   * the tab strip); a friend's move that makes it the reader's turn also notifies, when the
   * reader switched that on and the tab is hidden. Not for the state the page opened on.
   */
  showTurn(g, yourMove) {
    document.title = yourMove
      ? `● ${t('title_your_move')} — ${t('app_title')}`
      : `${t('app_title')} — ${this.statusText(g)}`;
    if (this.turnSeen === undefined) this.turnSeen = yourMove ? g.ply : -1;
    else if (yourMove && g.mode === 'friend' && this.turnSeen !== g.ply) {
      this.turnSeen = g.ply;
      notifyTurn(t('notify_friend_moved', { m: g.moves[g.moves.length - 1] || '' }));
    }
  }

  /** The clocks, the offer waiting, and whether the opponent left (a claim). */
  showTimeAndOffers(g, me) {
    const $ = (s) => main.querySelector(s);
    const mine = me.length === 1 ? me[0] : null;
    const other = mine ? (mine === 'south' ? 'north' : 'south') : null;
    this.clocks.update(g.status === 'playing' || g.clock ? g.clock : null, this.bottom || 'south', mine);
    const people = g.mode === 'friend' && mine && g.status === 'playing';
    $('#offer-draw').hidden = !people || Boolean(g.offer);
    const myMoves = mine && g.moves.some((mv) => (mv === mv.toLowerCase() ? 'south' : 'north') === mine);
    $('#offer-takeback').hidden = !people || Boolean(g.offer) || !myMoves;
    const bar = $('#offer-bar');
    bar.hidden = !(people && g.offer);
    if (!bar.hidden) {
      const mineOffer = g.offer.by === mine;
      $('#offer-text').textContent = this.offerText(g);
      $('#offer-accept').hidden = mineOffer;
      $('#offer-decline').textContent = t(mineOffer ? 'withdraw' : 'decline');
    }
    // The opponent left: after the grace the win can be claimed (not in correspondence).
    clearTimeout(this.awayTimer);
    const away = people && g.away && g.away[other];
    const note = $('#away-note');
    note.hidden = !(away !== null && away !== undefined && away !== false);
    $('#claim').hidden = true;
    if (!note.hidden) {
      const since = away + (performance.now() - (this.receivedAt || performance.now()));
      const canClaim = g.away.claim_after !== null && since >= g.away.claim_after;
      note.textContent = canClaim ? t('opponent_left_claim', { side: t(other) }) : t('opponent_left', { side: t(other), s: Math.floor(since / 1000) });
      $('#claim').hidden = !canClaim;
      if (!canClaim) this.awayTimer = setTimeout(() => this.show(), 1000);
    }
  }

  /**
   * The players' names (linked to their profiles) beside the clocks, with their ratings as the
   * game began, and each rating's change once a rated game is over. Only in games with an
   * account in them: other games look as they always did.
   */
  showPlayers(g) {
    const $ = (q) => main.querySelector(q);
    const named = ['south', 'north'].some((s) => g.seats[s] && g.seats[s].player);
    const bottom = this.bottom || 'south';
    for (const [pos, side] of [['bottom', bottom], ['top', bottom === 'south' ? 'north' : 'south']]) {
      const el = $('#player-' + pos);
      el.hidden = !named;
      if (!named) continue;
      const seat = g.seats[side] || {};
      const withClock = Boolean(g.clock);
      // Names come from other players: built as elements, never parsed as HTML.
      const who = [];
      if (!withClock) who.push(h('span', { class: 'player-side' }, t(side)), ' ');
      if (seat.player) {
        const badge = titleBadge(g.titles && g.titles[side]);
        if (badge) who.push(badge, ' ');
        who.push(h('a', { href: profilePath(seat.player), 'data-link': true, class: 'player-name' }, seat.player));
        if (seat.rating) who.push(' ', h('span', { class: 'rating' }, ratingText(seat.rating)));
      } else if (seat.kind === 'computer') who.push(h('span', { class: 'player-name' }, t('player_computer', { n: seat.level })));
      else who.push(h('span', { class: 'player-name anon' }, t('anonymous')));
      const change = g.rating_change && g.rating_change[side];
      if (change && typeof change.diff === 'number') {
        // The difference of the ratings as shown (whole points), so that it adds up with them.
        const d = Math.round(change.diff);
        const text = (d > 0 ? '+' : d < 0 ? '\u2212' : '\u00b1') + Math.abs(d);
        const after = ratingText(change.after, change.provisional);
        who.push(' ', h('span', { class: `rating-diff ${d > 0 ? 'up' : d < 0 ? 'down' : ''}`, title: t('rating_now', { r: after }) }, text),
          h('span', { class: 'sr-only' }, ' ' + t('rating_now', { r: after })));
      }
      fill(el, who);
    }
  }

  offerText(g) {
    const o = g.offer;
    if (!o) return '';
    if (this.me().includes(o.by)) return t(o.kind === 'draw' ? 'offer_sent_draw' : 'offer_sent_takeback');
    return t(o.kind === 'draw' ? 'offer_draw_from' : 'offer_takeback_from', { side: t(o.by) });
  }
}
