// The Lobby view, part 2 of 2: open seeks, challenges and live games kept up to date from the
// lobby's connection (docs/api-players.md).

import { LobbyLayout, rulesList } from './layout.js';
import { api } from '../../api.js';
import { esc } from '../../common.js';
import { t, tn } from '../../i18n.js';
import { clockName } from '../../clock.js';
import { account, loadAccount, onAccount, post, ratingText, profilePath, samePlayer } from '../../account.js';
import { h, fill } from '../../lib/h.js';
import { main, say, errorText, setBody } from '../../lib/dom.js';
import { sideName } from '../../lib/names.js';
import { variantName, sideText, loadFilter, passes } from './terms.js';
import { lobby } from './connection.js';
import { challenges, challengeListeners, challengeTerms, loadChallenges, renderToasts, challengesChanged } from './challenges.js';

export class LobbyView extends LobbyLayout {
  constructor() {
    super();
    // The connection may be open already (a logged-in reader keeps it on every view).
    setBody({ view: 'lobby', lobby: lobby.open ? 'open' : 'connecting' });
    this.rules = ['anywoli'];
    this.live = null;
    this.note = '';
    this.unsub = lobby.subscribe((m) => this.receive(m));
    this.unlisten = onAccount(() => this.render());
    this.onChallenges = () => this.showChallenges();
    challengeListeners.add(this.onChallenges);
    lobby.want('view');
    this.render();
    renderToasts();
    rulesList().then((r) => {
      this.rules = r;
      this.fillRules();
    });
    // The account's arrival redraws the view (onAccount above); the challenges come with it.
    loadAccount().then(() => loadChallenges());
    this.loadLive();
    this.liveTimer = setInterval(() => { if (!document.hidden) this.loadLive(); }, 10000);
  }

  destroy() {
    clearInterval(this.liveTimer);
    this.unsub();
    this.unlisten();
    challengeListeners.delete(this.onChallenges);
    // Leaving the lobby withdraws this tab's seeks: nobody should be sent into a game from a
    // page they left (the connection itself may stay, for challenges).
    for (const s of lobby.seeks.values()) if (lobby.isMine(s)) lobby.cancel(s.id);
    lobby.release('view');
    // The toasts come back on other views.
    setTimeout(renderToasts, 0);
  }

  refresh() { this.render(); }

  receive(msg) {
    if (msg.type === 'lobby') {
      setBody({ lobby: 'open' });
      this.showSeeks();
      this.showConnection();
    } else if (msg.type === 'seek' || msg.type === 'unseek' || msg.type === 'seeking') {
      this.showSeeks();
    } else if (msg.type === 'closed') {
      setBody({ lobby: 'connecting' });
      if (msg.hadSeek) this.note = t('seek_dropped');
      this.showNote();
      this.showSeeks();
      this.showConnection();
    } else if (msg.type === 'error') {
      this.note = errorText({ data: msg, status: 0 });
      this.showNote();
      // The button pressed is usable again.
      this.showSeeks();
    } else if (msg.type === 'challenge_gone') {
      this.showChallenges();
    }
  }

  /** My ratings, to tell which seeks' ranges leave me out; loaded once a visit. */
  async loadMyRatings() {
    const me = account();
    if (!me || this.ratingsOf === me.name) return;
    this.ratingsOf = me.name;
    const r = await api('GET', '/players/' + encodeURIComponent(me.name));
    this.myRatings = r.ok && Array.isArray(r.data.ratings) ? r.data.ratings : [];
    this.showSeeks();
  }

  /** My rating for a seek's category and rules as the server judges it (1500 before a game). */
  myRatingFor(seek) {
    const r = (this.myRatings || []).find((x) => x.category === seek.category && x.rules === seek.rules);
    return Math.round(r ? r.rating : 1500);
  }

  showConnection() {
    const el = main.querySelector('#lobby-connection');
    if (el) el.textContent = lobby.open ? '' : t('lobby_connecting');
  }

  showNote() {
    const el = main.querySelector('#lobby-note');
    if (el) el.textContent = this.note;
  }

  /** Redraws a list (HTML, or elements built with h()), keeping the focus on the same button
   * if it is still there. */
  redraw(el, html) {
    const f = /** @type {HTMLElement} */ (document.activeElement);
    const key = f && el.contains(f) && f.dataset ? Object.entries(f.dataset).map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}="${CSS.escape(v)}"]`).join('') : '';
    if (typeof html === 'string') el.innerHTML = html;
    else fill(el, html);
    if (key) {
      const again = el.querySelector(key);
      if (again) again.focus();
    }
  }

  showSeeks() {
    const el = main.querySelector('#seeks');
    if (!el) return;
    const me = account();
    const all = [...lobby.seeks.values()].sort((a, b) => (lobby.isMine(b) ? 1 : 0) - (lobby.isMine(a) ? 1 : 0));
    const f = this.filter || loadFilter();
    const own = (s) => lobby.isMine(s) || (me && s.by && samePlayer(s.by, me.name));
    const seeks = all.filter((s) => own(s) || passes(s, f));
    const hidden = /** @type {HTMLElement} */ (main.querySelector('#filter-hidden'));
    if (hidden) {
      const n = lobby.open ? all.length - seeks.length : 0;
      hidden.hidden = n === 0;
      hidden.querySelector('span').textContent = n ? tn('filter_hidden', n) : '';
    }
    if (!lobby.open) { this.redraw(el, ''); return; }
    if (seeks.length === 0) { this.redraw(el, all.length ? '' : `<p>${esc(t('no_seeks'))}</p>`); return; }
    // Names come from other players: built as elements, never parsed as HTML.
    const rows = seeks.map((s) => {
      const mine = lobby.isMine(s);
      const ownAccount = me && s.by && samePlayer(s.by, me.name);
      const who = s.by
        ? [h('a', { href: profilePath(s.by), 'data-link': true }, s.by),
          s.rating !== null && s.rating !== undefined ? [' ', h('span', { class: 'rating' }, ratingText(s.rating, s.provisional))] : null]
        : t('anonymous');
      let action;
      if (mine) action = h('button', { type: 'button', dataset: { seek: s.id, action: 'cancel' } }, t('cancel'));
      else if (ownAccount) action = h('span', { class: 'note' }, t('seek_yours_elsewhere'));
      else if (s.rated && !me) action = h('span', { class: 'note' }, t('rated_needs_login'));
      else if (Array.isArray(s.range) && s.range.length === 2 && !(me && this.myRatingFor(s) >= s.range[0] && this.myRatingFor(s) <= s.range[1])) {
        // The server would refuse it (out_of_range): say so instead of offering the button.
        action = h('span', { class: 'note' }, t('seek_for_range', { lo: Math.round(s.range[0]), hi: Math.round(s.range[1]) }));
      }
      else action = h('button', { type: 'button', class: 'primary', dataset: { seek: s.id, action: 'accept' } }, t('accept'));
      const range = Array.isArray(s.range) && s.range.length === 2 ? `${Math.round(s.range[0])}–${Math.round(s.range[1])}` : '';
      return h('tr', { class: mine ? 'mine' : '', dataset: { seekRow: s.id } },
        h('td', { 'data-label': t('col_player') }, who),
        h('td', { 'data-label': t('col_rules') }, variantName(s.rules)),
        h('td', { 'data-label': t('clock') }, clockName(s.clock)),
        h('td', { 'data-label': t('col_rated') }, t(s.rated ? 'rated' : 'casual'), range ? [' ', h('span', { class: 'note' }, `(${range})`)] : null),
        h('td', { 'data-label': t('col_side') }, sideText(s.side, mine || ownAccount)),
        h('td', { class: 'action' }, action));
    });
    const col = (key) => h('th', { scope: 'col' }, t(key));
    this.redraw(el, [h('div', { class: 'table-wrap' }, h('table', { class: 'archive seeks' },
      h('caption', { class: 'sr-only' }, t('open_seeks')),
      h('thead', null, h('tr', null, col('col_player'), col('col_rules'), col('clock'), col('col_rated'), col('col_side'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('col_action'))))),
      h('tbody', null, rows)))]);
  }

  createSeek() {
    const f = /** @type {HTMLFormElement} */ (main.querySelector('#seek-form'));
    const err = main.querySelector('#seek-error');
    err.textContent = '';
    const msg = { type: 'seek', rules: f.rules.value, clock: f.clock.value, rated: f.rated.checked && !!account(), side: f.side.value };
    const min = f.min.value.trim();
    const max = f.max.value.trim();
    if (min || max) {
      const lo = min ? Math.round(Number(min)) : 0;
      const hi = max ? Math.round(Number(max)) : 4000;
      if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < 0 || hi > 4000 || lo > hi) { err.textContent = t('range_bad'); return; }
      msg.range = [lo, hi];
    }
    this.note = '';
    this.showNote();
    if (!lobby.send(msg)) err.textContent = t('lobby_connecting');
    else say(t('seek_created'));
  }

  async challenge() {
    const f = /** @type {HTMLFormElement} */ (main.querySelector('#challenge-form'));
    const err = main.querySelector('#challenge-error');
    const to = f.to.value.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{1,19}$/.test(to)) { err.textContent = t('err_unknown_player'); f.to.focus(); return; }
    if (account() && samePlayer(to, account().name)) { err.textContent = t('cannot_challenge_self'); f.to.focus(); return; }
    if (f.rated.checked && !f.clock.value) { err.textContent = t('rated_needs_clock'); return; }
    const body = { to, rules: f.rules.value, rated: f.rated.checked, side: f.chside.value };
    if (f.clock.value) body.clock = f.clock.value;
    const button = /** @type {HTMLButtonElement} */ (f.querySelector('button[type=submit]'));
    button.disabled = true;
    const r = await post('/challenges', body);
    button.disabled = false;
    if (!r.ok) { err.textContent = errorText(r); return; }
    err.textContent = '';
    f.to.value = '';
    const c = r.data.challenge;
    if (c) challenges.outgoing.set(c.id, c);
    challengesChanged();
    say(t('challenge_sent', { name: (c && c.to) || to }), true);
  }


  showChallenges() {
    const el = main.querySelector('#challenges');
    if (!el) return;
    if (!account()) { this.redraw(el, ''); return; }
    const incoming = [...challenges.incoming.values()];
    const outgoing = [...challenges.outgoing.values()];
    if (!incoming.length && !outgoing.length) { this.redraw(el, `<p class="note">${esc(t('no_challenges'))}</p>`); return; }
    // Names come from other players: built as elements, never parsed as HTML.
    const item = (c, mine) => h('li', { class: `challenge ${mine ? 'outgoing' : 'incoming'}` },
      h('p', null, mine ? t('challenge_to', { name: c.to }) : t('challenge_from', { name: c.from }), ' ',
        h('a', { href: profilePath(mine ? c.to : c.from), 'data-link': true, class: 'profile-link' }, t('profile')), h('br'),
        h('span', { class: 'note' }, challengeTerms(c, mine))),
      h('div', { class: 'challenge-actions' }, mine
        ? [h('span', { class: 'note' }, t('challenge_waiting')), ' ', h('button', { type: 'button', dataset: { decline: c.id } }, t('cancel'))]
        : [h('button', { type: 'button', class: 'primary', dataset: { accept: c.id } }, t('accept')), ' ',
          h('button', { type: 'button', dataset: { decline: c.id } }, t('decline'))]));
    this.redraw(el, [h('ul', { class: 'challenge-list' }, incoming.map((c) => item(c, false)), outgoing.map((c) => item(c, true)))]);
  }

  async loadLive() {
    const r = await api('GET', '/games?live=true&limit=30');
    if (r.ok) this.live = r.data.games || [];
    else if (this.live === null) this.live = [];
    this.showLive();
  }

  showLive() {
    const el = main.querySelector('#watch');
    if (!el) return;
    if (this.live === null) { el.innerHTML = `<p>${esc(t('loading'))}</p>`; return; }
    if (this.live.length === 0) { el.innerHTML = `<p class="note">${esc(t('no_live_games'))}</p>`; return; }
    this.redraw(el, [h('ul', { class: 'watch-list' }, this.live.map((g) => h('li', null,
      h('a', { href: '/g/' + g.id, 'data-link': true }, `${sideName(g, 'south')} – ${sideName(g, 'north')}`), ' ',
      h('span', { class: 'note' }, `${[variantName(g.rules), g.clock ? clockName(g.clock) : '', g.rated ? t('rated') : ''].filter(Boolean).join(' · ')} · ${tn('n_moves', g.moves)}`))))]);
  }
}
