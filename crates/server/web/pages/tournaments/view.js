// One tournament at /t/{id} (docs/tournaments.md, "On the site"): what it is and when, joining
// and leaving, the organiser's start, the standings a page at a time, the podium once it is
// over, and its games; kept live by its events socket. A player whose next game starts is taken
// there (once per game and tab: Back from a game does not bounce into it again).

import { api } from '../../api.js';
import { t, tn, currentLang } from '../../i18n.js';
import { clockName } from '../../clock.js';
import { account, onAccount, loadAccount, post, profilePath, samePlayer } from '../../account.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody, errorText, say } from '../../lib/dom.js';
import { variantName } from '../lobby/terms.js';
import { standingsTable, podium, gamesTable } from './tables.js';
import { TournamentFeed, goToTournamentGame } from './live.js';
import { TournamentChatPanel } from './chat.js';
import { systemName, statusName, timeLine, roundText, scoreText, byRounds, shouldOpen, openedGames, PAGE_SIZE } from './terms.js';

export class TournamentView {
  /** @param {string} id */
  constructor(id) {
    this.id = id;
    this.data = null;
    this.standings = null;
    this.page = 1;
    this.games = null;
    /** The round whose pairings are shown; null: the one being played. */
    this.round = null;
    this.online = true;
    this.destroyed = false;
    this.seq = 0;
    setBody({ view: 'tournament', tournament: id, tournamentStatus: 'loading' });
    this.render();
    this.start();
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.ticker);
    if (this.feed) this.feed.close();
    if (this.unlisten) this.unlisten();
  }

  refresh() {
    this.render();
    this.show();
  }

  async start() {
    await loadAccount();
    if (this.destroyed) return;
    const ok = await this.load();
    if (!ok || this.destroyed) return;
    this.chat = new TournamentChatPanel((msg) => Boolean(this.feed && this.feed.send(msg)), Boolean(account()));
    this.chatBox.replaceWith(this.chat.element);
    this.feed = new TournamentFeed(this.id, () => this.load(), (up) => {
      this.online = up;
      if (!up) say(t('connection_lost'));
      this.showHead();
    }, (m) => {
      if (m.type === 'chat') this.chat.add(m.line);
      else this.chat.refused(m);
    });
    this.feed.seen(this.data.version);
    this.ticker = setInterval(() => this.showTime(), 1000);
    this.unlisten = onAccount(() => this.load());
  }

  /** Fetches the tournament, the standings page shown and the games shown; false when there
   * is no such tournament. */
  async load() {
    // Only the last load draws: an answer overtaken by a later request is dropped.
    const seq = (this.seq = (this.seq || 0) + 1);
    const stale = () => this.destroyed || seq !== this.seq;
    const path = '/tournaments/' + encodeURIComponent(this.id);
    const r = await api('GET', path);
    if (stale()) return Boolean(this.data);
    if (!r.ok) {
      if (!this.data) {
        setBody({ tournamentStatus: 'missing', view: r.status === 404 ? 'missing' : 'tournament' });
        const title = r.status === 404 ? t('err_unknown_tournament') : errorText(r);
        document.title = t('app_title') + ' — ' + title;
        fill(main, h('section', { class: 'panel missing' }, h('h1', { id: 'missing-heading' }, title),
          h('p', null, h('a', { href: '/tournaments', 'data-link': true, class: 'button primary' }, t('tm_all')))));
        return false;
      }
      // Shown already: the page stays as it was (the socket's state says when the network is
      // gone), and the next change tries again.
      say(errorText(r));
      return true;
    }
    this.data = r.data;
    if (this.feed) this.feed.seen(r.data.version);
    const tour = r.data.tournament;
    if (byRounds(tour) && this.round !== null && this.round > tour.round) this.round = null;
    const [s, g] = await Promise.all([
      api('GET', `${path}/standings?page=${this.page}`),
      this.gamesPath(tour) ? api('GET', path + this.gamesPath(tour)) : Promise.resolve(null),
    ]);
    if (stale()) return true;
    if (s.ok) {
      this.standings = s.data;
      // A page gone (players fewer): the last one.
      if (s.data.pages && this.page > s.data.pages) { this.page = s.data.pages; return this.load(); }
    }
    this.games = g && g.ok ? g.data.games : g ? this.games : [];
    this.show();
    this.goIfPlaying();
    return true;
  }

  /** The games to show: those being played (arena), a round's pairings (Swiss, round robin),
   * none before the first round. */
  gamesPath(tour) {
    if (!byRounds(tour)) return tour.status === 'running' ? '/games' : null;
    const round = this.round || tour.round;
    return round ? `/games?round=${round}` : null;
  }

  /** The player's next game: there by itself, once (this tab remembers the games it opened). */
  goIfPlaying() {
    const me = this.data && this.data.me;
    if (!me || !me.playing || !shouldOpen(me.playing, openedGames())) return;
    say(t('tm_game_started'), true);
    goToTournamentGame(me.playing, () => !this.destroyed);
  }

  render() {
    this.head = h('section', { class: 'panel tm-head', id: 'tm-head', 'aria-labelledby': 'tm-name' }, h('p', null, t('loading')));
    this.podiumBox = h('section', { class: 'panel', id: 'tm-podium', 'aria-labelledby': 'tm-podium-heading', hidden: true });
    this.standingsBox = h('div', { id: 'tm-standings', 'aria-live': 'polite' });
    this.pager = h('nav', { class: 'tm-pager', 'aria-label': t('tm_pages') });
    this.gamesBox = h('div', { id: 'tm-games' });
    this.roundPick = h('div', { class: 'field', hidden: true });
    fill(main, this.head, this.podiumBox, h('div', { class: 'tm-layout' },
      h('section', { class: 'panel', 'aria-labelledby': 'tm-standings-heading' },
        h('h2', { id: 'tm-standings-heading' }, t('tm_standings')), this.standingsBox, this.pager),
      h('section', { class: 'panel', 'aria-labelledby': 'tm-games-heading' },
        h('h2', { id: 'tm-games-heading' }, t('tm_games')), this.roundPick, this.gamesBox),
      this.chatBox = this.chat ? this.chat.element : h('div', { id: 'tm-chat-slot' })));
    this.buildHead();
  }

  /** The head's parts that keep what the reader typed (the password) across redraws. */
  buildHead() {
    this.facts = h('p', { class: 'tm-facts' });
    this.timeEl = h('p', { class: 'tm-time', id: 'tm-time', role: 'timer' });
    this.meEl = h('p', { class: 'tm-me', id: 'tm-me' });
    this.password = /** @type {HTMLInputElement} */ (h('input', { id: 'tm-join-password', type: 'password', autocomplete: 'off', maxlength: 100 }));
    this.passwordField = h('div', { class: 'field tm-password', hidden: true }, h('label', { for: 'tm-join-password' }, t('password')), this.password);
    this.joinButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary', id: 'tm-join' }, t('tm_join')));
    this.withdrawButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'tm-withdraw' }, t('tm_withdraw')));
    this.startButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'tm-start' }, t('tm_start_now_button')));
    this.gameButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary', id: 'tm-to-game' }, t('tm_to_game')));
    this.loginNote = h('p', { class: 'note', hidden: true }, t('tm_join_needs_login'), ' ',
      h('a', { href: '/account?next=' + encodeURIComponent('/t/' + this.id), 'data-link': true }, t('log_in')));
    this.errorEl = h('p', { class: 'error', id: 'tm-error', role: 'alert' });
    this.description = h('div', { class: 'tm-description', id: 'tm-description' });
    this.joinButton.addEventListener('click', () => this.act('join'));
    this.withdrawButton.addEventListener('click', () => this.act('withdraw'));
    this.startButton.addEventListener('click', () => this.act('start'));
    this.gameButton.addEventListener('click', () => {
      const me = this.data && this.data.me;
      if (me && me.playing) goToTournamentGame(me.playing, () => !this.destroyed);
    });
    this.password.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.act('join'); });
    // An invite link carries the password after `#p=` (never sent to the server in the URL):
    // it fills the field, and the page shows the link to pass on.
    const invited = /(?:^#|&)p=([^&]*)/.exec(location.hash);
    this.invite = h('p', { class: 'note tm-invite', id: 'tm-invite', hidden: true });
    if (invited) {
      let given = '';
      try { given = decodeURIComponent(invited[1]); } catch { given = ''; }
      this.password.value = given;
      const link = location.origin + '/t/' + encodeURIComponent(this.id) + '#p=' + encodeURIComponent(given);
      fill(this.invite, t('tm_invite_link'), ' ', h('input', { type: 'text', readonly: true, value: link, id: 'tm-invite-link', 'aria-label': t('tm_invite_link') }));
      this.invite.hidden = !given;
    }
  }

  setError(text) {
    if (this.errorEl) this.errorEl.textContent = text;
  }

  /** Join (with the password of a private one), withdraw (a pause in an arena), start. */
  async act(what) {
    const tour = this.data && this.data.tournament;
    if (!tour) return;
    if (what === 'withdraw' && tour.status === 'running' && tour.system !== 'arena' && !confirm(t('tm_withdraw_confirm'))) return;
    const body = what === 'join' && tour.private && this.password.value ? { password: this.password.value } : {};
    for (const b of [this.joinButton, this.withdrawButton, this.startButton]) b.disabled = true;
    const r = await post(`/tournaments/${encodeURIComponent(this.id)}/${what}`, body);
    for (const b of [this.joinButton, this.withdrawButton, this.startButton]) b.disabled = false;
    if (this.destroyed) return;
    if (!r.ok) {
      this.setError(errorText(r));
      return;
    }
    this.setError('');
    if (what === 'join') this.password.value = '';
    if (r.data && 'me' in r.data) this.data = { ...this.data, me: r.data.me };
    const said = what === 'join' ? 'tm_joined' : what === 'start' ? 'tm_started' : tour.system === 'arena' && tour.status === 'running' ? 'tm_paused' : 'tm_withdrawn';
    say(t(said), true);
    this.showHead();
    this.load();
  }

  show() {
    if (!this.data) return;
    this.showHead();
    this.showPodium();
    this.showStandings();
    this.showGames();
  }

  showHead() {
    const d = this.data;
    if (!d) return;
    const tour = d.tournament;
    const me = d.me;
    const reader = account();
    setBody({ tournamentStatus: tour.status, tournamentMe: me ? me.state : 'none' });
    document.title = t('app_title') + ' — ' + tour.name;
    const facts = [systemName(tour.system)];
    if (tour.system === 'arena' && tour.minutes) facts.push(tn('tm_minutes_n', tour.minutes));
    if (tour.system === 'swiss' && tour.rounds) facts.push(tn('tm_rounds_n', tour.rounds));
    if (tour.system === 'round-robin' && tour.double) facts.push(t('tm_double_short'));
    facts.push(clockName(tour.clock), t(tour.rated ? 'rated' : 'casual'));
    if (tour.rules && tour.rules !== 'anywoli') facts.push(variantName(tour.rules));
    facts.push(tn('tm_players_n', tour.players));
    if (tour.private) facts.push('🔒 ' + t('tm_private'));
    if (tour.min_rating) facts.push(t('tm_needs_rating', { n: tour.min_rating }));
    if (tour.min_rated_games) facts.push(tn('tm_needs_games', tour.min_rated_games));
    fill(this.facts, facts.join(' · '), tour.created_by ? [' · ', t('tm_by'), ' ', h('a', { href: profilePath(tour.created_by), 'data-link': true }, tour.created_by)] : null);
    this.showTime();
    // The reader's place.
    this.meEl.hidden = !me;
    if (me) {
      const parts = [me.rank ? t('tm_me_rank', { n: me.rank }) : null, tn('tm_points_n', me.score, { n: scoreText(me.score) }), tn('tm_games_n', me.games)];
      if (me.state !== 'active') parts.push(t('tm_state_' + me.state));
      this.meEl.textContent = t('tm_you') + ' ' + parts.filter(Boolean).join(' · ');
    }
    // What the reader can do.
    const open = tour.status === 'upcoming' || tour.status === 'running';
    const joined = Boolean(me && me.state === 'active');
    const canJoin = Boolean(reader && d.can_join && open && !joined);
    this.joinButton.hidden = !canJoin;
    this.joinButton.textContent = t(me && me.state === 'paused' ? 'tm_resume' : 'tm_join');
    this.passwordField.hidden = !(canJoin && tour.private);
    this.loginNote.hidden = Boolean(reader) || !open;
    this.withdrawButton.hidden = !(joined && open);
    this.withdrawButton.textContent = t(tour.system === 'arena' && tour.status === 'running' ? 'tm_pause' : 'tm_withdraw');
    const creator = Boolean(reader && samePlayer(tour.created_by, reader.name));
    const manual = byRounds(tour) && tour.round_gap_s === null;
    const roundsLeft = !tour.rounds || tour.round < tour.rounds;
    this.startButton.hidden = !(creator && (tour.status === 'upcoming' || (tour.status === 'running' && manual && roundsLeft)));
    this.startButton.textContent = tour.status === 'upcoming' ? t('tm_start_now_button') : t('tm_start_round', { n: tour.round + 1 });
    this.gameButton.hidden = !(me && me.playing);
    fill(this.description, tour.description ? tour.description : null);
    this.description.hidden = !tour.description;
    if (!this.head.querySelector('#tm-name')) {
      fill(this.head,
        h('h1', { id: 'tm-name' }),
        this.facts, this.timeEl, this.meEl,
        this.invite,
        h('div', { class: 'tm-actions' }, this.passwordField, h('div', { class: 'controls' }, this.gameButton, this.joinButton, this.withdrawButton, this.startButton)),
        this.loginNote, this.errorEl, this.description);
    }
    fill(this.head.querySelector('#tm-name'), tour.name, ' ', h('span', { class: 'badge tm-status', dataset: { status: tour.status } }, statusName(tour.status)));
  }

  /** The countdown (to the start, an arena's end, the next round) and the round; each second. */
  showTime() {
    const d = this.data;
    if (!d || !this.timeEl) return;
    const tour = d.tournament;
    const parts = [roundText(tour), timeLine(tour, Date.now())];
    if (tour.status === 'upcoming' || (tour.status === 'running' && typeof tour.next_round_at === 'number')) {
      const at = tour.status === 'upcoming' ? tour.starts_at : tour.next_round_at;
      parts.push(new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)));
    }
    if (tour.status === 'finished' && tour.winner) parts.push(t('tm_winner', { name: tour.winner }));
    if (!this.online) parts.unshift(t('connection_lost'));
    const text = parts.filter(Boolean).join(' · ');
    if (this.timeEl.textContent !== text) this.timeEl.textContent = text;
    this.timeEl.hidden = !text;
  }

  showPodium() {
    const list = this.data.podium || [];
    this.podiumBox.hidden = !(this.data.tournament.status === 'finished' && list.length);
    if (this.podiumBox.hidden) return;
    const base = '/api/tournaments/' + encodeURIComponent(this.data.tournament.id);
    fill(this.podiumBox, h('h2', { id: 'tm-podium-heading' }, t('tm_podium')), podium(list),
      h('p', { class: 'tm-exports' },
        h('a', { href: base + '/standings.csv', download: '', id: 'tm-export-csv' }, t('tm_export_csv')), ' · ',
        h('a', { href: base + '/games.txt', download: '', id: 'tm-export-games' }, t('tm_export_games'))));
  }

  showStandings() {
    const s = this.standings;
    const tour = this.data.tournament;
    if (!s) { fill(this.standingsBox, h('p', null, t('loading'))); return; }
    const reader = account();
    setBody({ standings: String(s.players.length) });
    fill(this.standingsBox, s.players.length ? standingsTable(s.players, tour, reader ? reader.name : null) : h('p', { class: 'note' }, t('tm_no_players')));
    const me = this.data.me;
    const myPage = me && me.rank ? Math.ceil(me.rank / PAGE_SIZE) : null;
    const go = (p) => { this.page = p; this.load(); };
    const button = (key, page, id) => {
      const b = h('button', { type: 'button', id, disabled: page === null }, t(key));
      if (page !== null) b.addEventListener('click', () => go(page));
      return b;
    };
    const pages = s.pages || 1;
    fill(this.pager, pages > 1 ? [
      button('tm_page_prev', this.page > 1 ? this.page - 1 : null, 'tm-prev'),
      h('span', { class: 'note' }, t('tm_page_of', { n: this.page, total: pages })),
      button('tm_page_next', this.page < pages ? this.page + 1 : null, 'tm-next'),
      myPage && myPage !== this.page ? button('tm_my_page', myPage, 'tm-my-page') : null,
    ] : null);
    this.pager.hidden = pages <= 1;
  }

  showGames() {
    const tour = this.data.tournament;
    const rounds = byRounds(tour);
    this.roundPick.hidden = !(rounds && tour.round > 0);
    if (!this.roundPick.hidden) {
      const shown = this.round || tour.round;
      const select = /** @type {HTMLSelectElement} */ (h('select', { id: 'tm-round' },
        Array.from({ length: tour.round }, (_, i) => h('option', { value: i + 1, selected: i + 1 === shown }, t('tm_round_n', { n: i + 1 })))));
      select.addEventListener('change', () => {
        const n = Number(select.value);
        this.round = n === tour.round ? null : n;
        this.load();
      });
      fill(this.roundPick, h('label', { for: 'tm-round' }, t('tm_round')), select);
    }
    const games = this.games || [];
    const none = rounds ? (tour.round ? 'tm_no_pairings' : 'tm_no_round_yet')
      : tour.status === 'running' ? 'tm_no_games' : tour.status === 'upcoming' ? 'tm_no_games_now' : 'tm_over_note';
    fill(this.gamesBox, games.length ? gamesTable(games) : h('p', { class: 'note' }, t(none)));
  }
}
