// The page: a small router over its views (lobby, new game, game, archive, rules, puzzles,
// account, a player's profile).

import { api, GameSocket, mySeat, rememberSeat } from './api.js';
import { VARIANTS, esc } from './common.js';
import { t, seeds, setLang, currentLang, applyStatic, initLang } from './i18n.js';
import { Board, parsePosition, indexOf } from './board.js';
import { renderRules } from './rules.js';
import { PuzzleView } from './puzzle.js';
import { AnalysisView } from './analysis.js';
import { EditorView } from './editor.js';
import { CommunityPuzzlesView } from './community.js';
import { CourseView, LessonView } from './learn.js';
import { explain } from './why.js';
import { initPrefs, showPrefs, notifyTurn, sound } from './prefs.js';
import { Clocks, clockName } from './clock.js';
import { initAccount, AccountView, loadAccount, post, ratingText, profilePath, samePlayer, renderAccountArea } from './account.js';
import { initLobby, LobbyView, refreshToasts } from './lobby.js';
import { initProfile, ProfileView } from './profile.js';
import { ArchiveView } from './archive.js';

const main = document.getElementById('main');
const live = document.getElementById('live');
const toastEl = document.getElementById('toast');
let view = null;
/** The language switch under way (its texts being fetched), or null. */
let switching = null;

/** How this server is reached (GET /api/site), asked once: where invite links point. */
let sitePromise = null;
function site() {
  if (!sitePromise) {
    sitePromise = api('GET', '/site').then((r) => (r.ok ? r.data : { public_url: null, loopback_only: false, network_urls: [] }));
  }
  return sitePromise;
}

/** Whether the browser reached this page through a loopback address (this machine only). */
function loopbackHost(host) {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1';
}

/** The time controls offered on the new-game form (docs/api.md, "Clocks"); '' is none. */
const CLOCKS = ['', '1+0', '3+2', '5+3', '10+5', '15+10', '1d', '3d', '7d'];

/** The level a new player meets first (docs/decisions.md, "Default level"). */
const DEFAULT_LEVEL = 2;
const SPEEDS = { slow: 380, normal: 150, fast: 50, off: 0 };


/** Tells screen readers (and, when `show`, everyone) what happened. */
function say(text, show = false) {
  const p = document.createElement('p');
  p.textContent = text;
  live.appendChild(p);
  while (live.childElementCount > 6) live.firstElementChild.remove();
  if (show) toast(text);
}

let toastTimer = null;
function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastEl.hidden = true; }, 2600);
}

function errorText(resp) {
  const code = resp.data && resp.data.error;
  const key = 'err_' + (code || 'network');
  const text = t(key);
  // An error the page has no words for yet shows its code, never the server's English text.
  return text === key ? t('err_other', { msg: code || resp.status }) : text;
}

function setBody(attrs) {
  for (const [k, v] of Object.entries(attrs)) document.body.dataset[k] = v;
}

// ------------------------------------------------------------------------------------------
// Routing

function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  // A language still being fetched is waited for, so the new view is in the reader's choice.
  if (switching) switching.then(route);
  else route();
}

function route() {
  if (view && view.destroy) view.destroy();
  view = null;
  toastEl.hidden = true;
  let path = location.pathname;
  // A link copied with a trailing slash still opens its page.
  if (path.length > 1 && path.endsWith('/')) {
    path = path.replace(/\/+$/, '') || '/';
    history.replaceState(null, '', path + location.search + location.hash);
  }
  const m = path.match(/^\/g\/([a-z0-9]{1,40})$/);
  const player = path.match(/^\/@\/([^/]{1,60})$/);
  const analysis = path.match(/^\/analysis(?:\/([a-z0-9]{1,40}))?$/);
  for (const a of document.querySelectorAll('header nav a')) {
    const here = a.getAttribute('href') === path || (path === '/new' && a.getAttribute('href') === '/')
      || (path.startsWith('/puzzles/') && a.getAttribute('href') === '/puzzles');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (path === '/' || path === '/new') view = new NewGameView();
  else if (path === '/lobby') view = new LobbyView();
  else if (path === '/account') view = new AccountView();
  else if (player) view = new ProfileView(decodeName(player[1]));
  else if (path === '/archive') view = new ArchiveView(ui);
  else if (path === '/rules') view = new RulesView();
  else if (path === '/editor') view = new EditorView(ui);
  else if (path === '/puzzles') view = new PuzzleView(puzzleUi(), null);
  else if (/^\/puzzles\/\d{1,6}$/.test(path)) view = new PuzzleView(puzzleUi(), path.slice(9));
  else if (path === '/learn') view = new CourseView(ui);
  else if (/^\/learn\/[a-z]{1,20}$/.test(path)) view = new LessonView({ ...puzzleUi(), navigate: ui.navigate }, path.slice(7));
  else if (path === '/puzzles/next') view = new PuzzleView(puzzleUi(), 'next');
  else if (path === '/puzzles/community') view = new CommunityPuzzlesView(ui);
  else if (/^\/puzzles\/community\/[a-z0-9]{12}$/.test(path)) view = new PuzzleView(puzzleUi(), path.slice(19), true);
  else if (m) view = new GameView(m[1]);
  else if (analysis) view = new AnalysisView({ main, esc, say, setBody, errorText, delay: () => SPEEDS[speed()] }, analysis[1] || null);
  else view = new NotFoundView(path.startsWith('/g/') ? 'not_found' : 'page_not_found');
  renderAccountArea();
  refreshToasts();
}

function decodeName(s) {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** A seat's account name in a game summary (lists), or null. */
function accountName(g, side) {
  const i = side === 'south' ? 0 : 1;
  const v = Array.isArray(g.players) ? g.players[i] : g.players ? g.players[side] : null;
  return typeof v === 'string' && v ? v : null;
}

/** Who holds a seat in a game summary, in words: the account's name, else "Player" or the
 * computer's level. */
function sideName(g, side) {
  return accountName(g, side) || playerName(g[side]);
}

/** The same as HTML: an account's name links to its profile. */
function playerHtml(g, side) {
  const name = accountName(g, side);
  if (!name) return esc(playerName(g[side]));
  return `<a href="${esc(profilePath(name))}" data-link>${esc(name)}</a>`;
}

/** What the other modules' views (account, lobby, profile) use of the page. */
const ui = {
  main, esc, say, toast, setBody, errorText, resultText, accountName, sideName, playerHtml,
  navigate: (path, replace) => navigate(path, replace),
};

/** What the puzzle view (puzzle.js) uses of the page. */
function puzzleUi() {
  return { main, esc, say, setBody, errorText, delay: () => SPEEDS[speed()] };
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);

// ------------------------------------------------------------------------------------------
// New game

/** A first visit: no course started, no offer turned down, no game played from here. */
function firstVisit() {
  try {
    return !localStorage.getItem('anywoli.lessons') && !localStorage.getItem('anywoli.course-offer')
      && !localStorage.getItem('anywoli.seats');
  } catch {
    return false;
  }
}

class NewGameView {
  constructor() {
    setBody({ view: 'new' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t('new_title');
    // `/?level=N` preselects a level (the course's end links to level 1).
    const asked = Number(new URLSearchParams(location.search).get('level'));
    const level = Number.isInteger(asked) && asked >= 1 && asked <= 10 ? asked : DEFAULT_LEVEL;
    const levels = Array.from({ length: 10 }, (_, i) => `<option value="${i + 1}"${i + 1 === level ? ' selected' : ''}>${esc(t('level_n', { n: i + 1 }))}</option>`).join('');
    const rules = VARIANTS.map((v) => `<option value="${v}">${esc(t('variant_name_' + v))}</option>`).join('');
    main.innerHTML = `
      <section class="panel new-game">
        <h1>${esc(t('new_title'))}</h1>
        <p class="tagline">${esc(t('tagline'))}</p>
        ${firstVisit() ? `<aside class="offer" id="course-offer" aria-labelledby="offer-heading">
          <h2 id="offer-heading">${esc(t('ls_offer_title'))}</h2>
          <p>${esc(t('ls_offer_text'))}</p>
          <p><a class="button primary" href="/learn" data-link id="offer-start">${esc(t('ls_start'))}</a>
          <button type="button" id="offer-dismiss">${esc(t('ls_offer_dismiss'))}</button></p>
        </aside>` : ''}
        ${firstVisit() ? '' : `<p class="note"><a href="/learn" data-link id="learn-link">${esc(t('ls_learn_link'))}</a></p>`}
        <form id="new-form">
          <fieldset>
            <legend>${esc(t('opponent'))}</legend>
            <label class="choice"><input type="radio" name="mode" value="computer" checked> ${esc(t('opp_computer'))}</label>
            <label class="choice"><input type="radio" name="mode" value="friend"> ${esc(t('opp_friend'))}</label>
            <label class="choice"><input type="radio" name="mode" value="local"> ${esc(t('opp_local'))}</label>
          </fieldset>
          <div class="field" id="level-field"><label for="level">${esc(t('level'))}</label>
            <select id="level" name="level">${levels}</select></div>
          <fieldset id="side-field">
            <legend>${esc(t('your_side'))}</legend>
            <label class="choice"><input type="radio" name="side" value="south" checked> ${esc(t('south'))}</label>
            <label class="choice"><input type="radio" name="side" value="north"> ${esc(t('north'))}</label>
            <p class="note">${esc(t('south_moves_first'))}</p>
          </fieldset>
          <div class="field" id="hints-field">
            <label class="choice"><input type="checkbox" id="hints" name="hints"> ${esc(t('allow_hints'))}</label>
            <p class="note">${esc(t('allow_hints_note'))}</p>
          </div>
          <div class="field" id="clock-field"><label for="clock">${esc(t('clock'))}</label>
            <select id="clock" name="clock">${CLOCKS.map((c) => `<option value="${c}">${esc(clockName(c))}</option>`).join('')}</select>
            <p class="note">${esc(t('clock_note'))}</p></div>
          <div class="field"><label for="rules">${esc(t('rules_variant'))}</label>
            <select id="rules" name="rules">${rules}</select>
            <p class="note" id="rules-desc"></p></div>
          <button type="submit" class="primary" id="start">${esc(t('start'))}</button>
          <p class="error" id="new-error" role="alert"></p>
        </form>
      </section>`;
    const dismiss = main.querySelector('#offer-dismiss');
    if (dismiss) {
      dismiss.addEventListener('click', () => {
        try { localStorage.setItem('anywoli.course-offer', 'dismissed'); } catch { /* shown again next time */ }
        main.querySelector('#course-offer').remove();
      });
    }
    const form = main.querySelector('#new-form');
    const sync = () => {
      const mode = form.mode.value;
      main.querySelector('#level-field').hidden = mode !== 'computer';
      main.querySelector('#side-field').hidden = mode === 'local';
      main.querySelector('#hints-field').hidden = mode !== 'friend';
      main.querySelector('#rules-desc').textContent = t('variant_' + form.rules.value);
    };
    form.addEventListener('change', sync);
    sync();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const mode = form.mode.value;
      const body = { mode, rules: form.rules.value };
      if (mode === 'computer') body.level = Number(form.level.value);
      if (mode !== 'local') body.side = form.side.value;
      if (mode === 'friend') body.hints = form.hints.checked;
      if (form.clock.value) body.clock = form.clock.value;
      const btn = main.querySelector('#start');
      btn.disabled = true;
      const r = await post('/games', body);
      btn.disabled = false;
      if (!r.ok) {
        main.querySelector('#new-error').textContent = errorText(r);
        return;
      }
      rememberSeat(r.data.game.id, r.data.seat, r.data.secret, r.data.invite);
      navigate('/g/' + r.data.game.id);
    });
  }

  refresh() { this.render(); }
}

// ------------------------------------------------------------------------------------------
// Archive

function playerName(kind) {
  if (kind === 'human') return t('player_human');
  const m = /^level:(\d+)$/.exec(kind);
  return m ? t('player_computer', { n: m[1] }) : kind;
}

function resultText(result) {
  return { '1-0': t('result_south'), '0-1': t('result_north'), '1/2-1/2': t('result_draw_short'), '*': t('result_playing') }[result] || result;
}

// ------------------------------------------------------------------------------------------
// Rules

class RulesView {
  constructor() {
    setBody({ view: 'rules' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t('rules_title');
    renderRules(main);
  }

  refresh() { this.render(); }
}

/** A mistyped address: a game link that leads nowhere, or any other page that does not exist. */
class NotFoundView {
  constructor(key = 'page_not_found') {
    this.key = key;
    setBody({ view: 'missing' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t(this.key);
    main.innerHTML = missingHtml(this.key);
  }

  refresh() { this.render(); }
}

/** The "no such game/page" panel, shared by the router and a game that fails to load. */
function missingHtml(key) {
  return `<section class="panel missing"><h1 id="missing-heading">${esc(t(key))}</h1>
    <p>${esc(t('not_found_help'))}</p>
    <p><a href="/" data-link class="button primary">${esc(t('nav_new'))}</a>
    <a href="/archive" data-link class="button">${esc(t('nav_archive'))}</a></p></section>`;
}

// ------------------------------------------------------------------------------------------
// A game

function speed() {
  const s = localStorage.getItem('anywoli.speed');
  if (s && s in SPEEDS) return s;
  return matchMedia('(prefers-reduced-motion: reduce)').matches ? 'off' : 'normal';
}

class GameView {
  constructor(id) {
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
    this.board.skip();
  }

  get seat() { return mySeat(this.id); }

  /**
   * The link a friend opens: the operator's public address behind a proxy, else the address
   * this browser used (so never a loopback address when the page was opened from elsewhere).
   */
  inviteLink(base = (this.site && this.site.public_url) || location.origin) {
    const s = this.seat;
    // The token opens the free seat; the fragment keeps it out of servers' logs.
    return base + '/g/' + this.id + (s && s.invite ? '#invite=' + s.invite : '');
  }

  /** Tells the inviting player when the link cannot reach a friend's device, and what to do. */
  showReach() {
    const $ = (q) => main.querySelector(q);
    const site = this.site || { network_urls: [] };
    $('#share').value = this.inviteLink();
    const warning = $('#invite-warning');
    // Behind a proxy the server listens on loopback on purpose: the public address is the link.
    const unreachable = site.loopback_only && !site.public_url;
    warning.hidden = !unreachable;
    if (unreachable) {
      const cmd = 'anywoli serve --addr 0.0.0.0' + (site.port && site.port !== 8080 ? ' --port ' + site.port : '');
      warning.textContent = t('invite_loopback', { cmd });
    }
    const network = $('#invite-network');
    const others = !site.loopback_only && !site.public_url && loopbackHost(location.host) ? site.network_urls : [];
    network.hidden = others.length === 0;
    if (others.length) {
      $('#invite-network-text').textContent = t('invite_network');
      $('#share-network').value = this.inviteLink(others[0]);
    }
  }

  /** The sides this browser plays. */
  me() {
    const s = this.seat;
    if (!s || !this.game) return [];
    return s.seat === 'both' ? ['south', 'north'] : [s.seat];
  }

  build() {
    main.innerHTML = `
      <div class="game-layout">
        <section class="play" aria-labelledby="game-heading">
          <h1 id="game-heading" class="sr-only"></h1>
          <p id="status" class="status"></p>
          <p id="last-seeds" class="note last-seeds" hidden></p>
          <div id="invite" class="invite" hidden>
            <label for="share">${esc(t('share_link'))}</label>
            <div class="share-row"><input id="share" readonly value="${esc(this.inviteLink())}">
            <button type="button" id="copy">${esc(t('copy'))}</button></div>
            <div id="invite-network" hidden>
              <p class="note" id="invite-network-text"></p>
              <div class="share-row"><input id="share-network" readonly aria-labelledby="invite-network-text">
              <button type="button" id="copy-network">${esc(t('copy'))}</button></div>
            </div>
            <p id="invite-warning" class="warning" hidden></p>
            <p id="invite-hints" class="note"></p>
          </div>
          <div id="join" class="invite" hidden><button type="button" class="primary" id="join-button"></button></div>
          <div class="seat-bar seat-top"><div id="clock-top" class="clock" hidden></div><p id="player-top" class="player" hidden></p></div>
          <div id="board" role="group"></div>
          <div class="seat-bar seat-bottom"><div id="clock-bottom" class="clock" hidden></div><p id="player-bottom" class="player" hidden></p></div>
          <div id="offer-bar" class="offer-bar" hidden role="status"><span id="offer-text"></span>
            <button type="button" id="offer-accept" class="primary">${esc(t('accept'))}</button>
            <button type="button" id="offer-decline">${esc(t('decline'))}</button></div>
          <p id="away-note" class="note away" hidden></p>
          <div id="history-bar" class="history-bar" hidden><span id="history-text"></span>
            <button type="button" id="to-live">${esc(t('back_to_game'))}</button></div>
          <div class="controls">
            <button type="button" id="hint">${esc(t('hint'))}</button>
            <button type="button" id="takeback">${esc(t('takeback'))}</button>
            <button type="button" id="abort">${esc(t('abort'))}</button>
            <button type="button" id="resign">${esc(t('resign'))}</button>
            <button type="button" id="offer-draw">${esc(t('offer_draw'))}</button>
            <button type="button" id="offer-takeback">${esc(t('offer_takeback'))}</button>
            <button type="button" id="claim" class="primary">${esc(t('claim_win'))}</button>
            <button type="button" id="rematch" class="primary" hidden>${esc(t('rematch'))}</button>
            <a id="to-rematch" class="button primary" hidden data-link>${esc(t('go_rematch'))}</a>
            <button type="button" id="flip">${esc(t('flip'))}</button>
          </div>
          <div class="controls anim">
            <label for="speed">${esc(t('speed'))}</label>
            <select id="speed">
              ${Object.keys(SPEEDS).map((s) => `<option value="${s}">${esc(t('speed_' + s))}</option>`).join('')}
            </select>
            <button type="button" id="skip">${esc(t('skip'))}</button>
          </div>
          <p class="note keys">${esc(t('keyboard_help'))} ${esc(t('board_keys'))}</p>
        </section>
        <aside class="side-panel" aria-labelledby="moves-heading">
          <h2 id="moves-heading">${esc(t('moves_title'))}</h2>
          <div class="step" role="group" aria-label="${esc(t('moves_title'))}">
            <button type="button" id="first" aria-label="${esc(t('first'))}" title="${esc(t('first'))}">«</button>
            <button type="button" id="prev" aria-label="${esc(t('prev'))}" title="${esc(t('prev'))}">‹</button>
            <button type="button" id="next" aria-label="${esc(t('next'))}" title="${esc(t('next'))}">›</button>
            <button type="button" id="last" aria-label="${esc(t('last'))}" title="${esc(t('last'))}">»</button>
          </div>
          <ol id="movelist" class="movelist"></ol>
          <button type="button" id="why" hidden aria-controls="why-panel" aria-expanded="false">${esc(t('why_button'))}</button>
          <section id="why-panel" class="why-panel" hidden aria-labelledby="why-heading">
            <h3 id="why-heading"></h3>
            <ol id="why-list"></ol>
            <button type="button" id="why-close">${esc(t('why_close'))}</button>
          </section>
          <p class="meta" id="meta"></p>
          <label class="choice public-toggle" id="public-toggle" hidden><input type="checkbox" id="public" aria-describedby="public-note"> <span>${esc(t('make_public'))}</span></label>
          <p class="note" id="public-note" hidden>${esc(t('make_public_note'))}</p>
          <button type="button" id="export">${esc(t('export'))}</button>
          <a id="analyse" class="button" data-link href="/analysis/${esc(this.id)}" hidden>${esc(t('an_analyse'))}</a>
          <a href="/" data-link class="button">${esc(t('new_game'))}</a>
        </aside>
      </div>`;
    this.board = new Board(main.querySelector('#board'), (l) => this.play(l));
    const $ = (s) => main.querySelector(s);
    $('#copy').addEventListener('click', () => this.copyLink('#share'));
    $('#copy-network').addEventListener('click', () => this.copyLink('#share-network'));
    $('#join-button').addEventListener('click', () => this.join());
    $('#to-live').addEventListener('click', () => this.goLive());
    $('#hint').addEventListener('click', () => this.hint());
    $('#takeback').addEventListener('click', () => this.takeback());
    $('#resign').addEventListener('click', () => this.resign());
    $('#abort').addEventListener('click', () => this.act('abort'));
    $('#offer-draw').addEventListener('click', () => this.act('offer', { offer: 'draw' }));
    $('#offer-takeback').addEventListener('click', () => this.act('offer', { offer: 'takeback' }));
    $('#offer-accept').addEventListener('click', () => this.act('offer/accept'));
    $('#offer-decline').addEventListener('click', () => this.act('offer/decline'));
    $('#claim').addEventListener('click', () => this.act('claim'));
    $('#public').addEventListener('change', (e) => this.setPublic(e.target));
    this.clocks = new Clocks($('#clock-top'), $('#clock-bottom'), () => sound.lowTime());
    $('#rematch').addEventListener('click', () => this.rematch());
    $('#flip').addEventListener('click', () => { this.flipped = !this.flipped; this.show(); });
    $('#speed').value = speed();
    $('#speed').addEventListener('change', (e) => localStorage.setItem('anywoli.speed', e.target.value));
    $('#skip').addEventListener('click', () => this.board.skip());
    $('#first').addEventListener('click', () => this.step(0));
    $('#prev').addEventListener('click', () => this.step(this.shownPly() - 1));
    $('#next').addEventListener('click', () => this.step(this.shownPly() + 1));
    $('#last').addEventListener('click', () => this.goLive());
    $('#export').addEventListener('click', () => this.exportRecord());
    $('#why').addEventListener('click', () => this.why());
    $('#why-close').addEventListener('click', () => this.closeWhy());
    $('#movelist').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-ply]');
      if (b) this.step(Number(b.dataset.ply));
    });
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
    if (msg.type === 'error') return;
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
    this.show();
  }

  rememberRematch(id) {
    const s = this.seat;
    if (!s || mySeat(id)) return;
    const swapped = s.seat === 'both' ? 'both' : s.seat === 'south' ? 'north' : 'south';
    rememberSeat(id, swapped, s.secret);
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
    this.showTimeAndOffers(g, me);
    this.showPlayers(g);
    const mine = me.length === 1;
    $('#public-toggle').hidden = !(mine && g.mode === 'friend' && g.status === 'playing' && typeof g.public === 'boolean');
    $('#public-note').hidden = $('#public-toggle').hidden;
    if (!$('#public-toggle').hidden && !this.publicBusy) $('#public').checked = g.public;
    $('#rematch').hidden = !(held && g.status === 'over' && !g.rematch);
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
    if (list.childElementCount !== g.moves.length || list.dataset.moves !== g.moves.join('')) {
      list.innerHTML = g.moves.map((mv, i) => {
        const side = mv === mv.toLowerCase() ? 'south' : 'north';
        return `<li><span class="n" aria-hidden="true">${i + 1}.</span><button type="button" data-ply="${i + 1}" class="mv ${side}" aria-label="${esc(t('move_label', { n: i + 1, side: t(side), m: mv }))}">${esc(mv)}</button></li>`;
      }).join('');
      list.dataset.moves = g.moves.join('');
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

  async copyLink(which) {
    const input = main.querySelector(which);
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand('copy');
    }
    say(t('copied'), true);
  }

  async join() {
    const r = await post(`/games/${this.id}/join`, this.invite ? { invite: this.invite } : {});
    if (!r.ok) { say(errorText(r), true); return; }
    rememberSeat(this.id, r.data.seat, r.data.secret);
    if (this.socket) this.socket.hello(r.data.secret);
    // The token has done its work: the address bar keeps only the game's own link.
    this.invite = null;
    history.replaceState(null, '', location.pathname);
    say(t('you_are', { side: t(r.data.seat) }), true);
    this.queue.push({ type: 'state', game: r.data.game });
    this.pump();
  }

  async hint() {
    main.querySelector('#hint').disabled = true;
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
      let who;
      if (seat.player) {
        who = `<a href="${esc(profilePath(seat.player))}" data-link class="player-name">${esc(seat.player)}</a>`;
        if (seat.rating) who += ` <span class="rating">${esc(ratingText(seat.rating))}</span>`;
      } else if (seat.kind === 'computer') who = `<span class="player-name">${esc(t('player_computer', { n: seat.level }))}</span>`;
      else who = `<span class="player-name anon">${esc(t('anonymous'))}</span>`;
      const change = g.rating_change && g.rating_change[side];
      if (change && typeof change.diff === 'number') {
        // The difference of the ratings as shown (whole points), so that it adds up with them.
        const d = Math.round(change.diff);
        const text = (d > 0 ? '+' : d < 0 ? '\u2212' : '\u00b1') + Math.abs(d);
        const after = ratingText(change.after, change.provisional);
        who += ` <span class="rating-diff ${d > 0 ? 'up' : d < 0 ? 'down' : ''}" title="${esc(t('rating_now', { r: after }))}">${esc(text)}</span>`
          + `<span class="sr-only"> ${esc(t('rating_now', { r: after }))}</span>`;
      }
      el.innerHTML = (withClock ? '' : `<span class="player-side">${esc(t(side))}</span> `) + who;
    }
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

  /** Lists a friend game for watchers, or takes it off the list. */
  async setPublic(box) {
    const want = box.checked;
    this.publicBusy = true;
    box.disabled = true;
    const r = await api('POST', `/games/${this.id}/public`, { secret: this.seat.secret, public: want });
    box.disabled = false;
    this.publicBusy = false;
    if (!r.ok) {
      box.checked = !want;
      say(errorText(r), true);
      return;
    }
    say(t(want ? 'now_public' : 'now_private'), true);
    if (r.data && r.data.game) this.queue.push({ type: 'state', game: r.data.game });
    else if (this.game) this.game = { ...this.game, public: want };
    this.pump();
  }

  offerText(g) {
    const o = g.offer;
    if (!o) return '';
    if (this.me().includes(o.by)) return t(o.kind === 'draw' ? 'offer_sent_draw' : 'offer_sent_takeback');
    return t(o.kind === 'draw' ? 'offer_draw_from' : 'offer_takeback_from', { side: t(o.by) });
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

  refresh() {
    const state = { viewPly: this.viewPly };
    this.build();
    this.viewPly = state.viewPly;
    this.show();
  }
}

// ------------------------------------------------------------------------------------------

const select = document.getElementById('lang-select');
await initLang();
select.value = currentLang();
applyStatic();
initPrefs();
initAccount(ui);
initLobby(ui);
initProfile(ui);
select.addEventListener('change', async () => {
  switching = setLang(select.value);
  await switching;
  switching = null;
  select.value = currentLang();
  applyStatic();
  showPrefs();
  renderAccountArea();
  refreshToasts();
  if (view && view.refresh) view.refresh();
  say(t('language_changed'));
});
route();

// For people reading the code in the console: the page's own vocabulary.
export { seeds };
