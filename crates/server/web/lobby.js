// The lobby (docs/api-players.md): open seeks, challenges between players, and live games to
// watch. One WebSocket to /api/lobby serves the whole page: the Lobby view opens it, and a
// logged-in reader keeps it open on every view, so that a challenge arriving anywhere shows
// a toast (and a notification, when the reader switched those on in the settings).
//
// A seek lives as long as the connection that made it: when the connection drops, the
// server takes the seek away, and the page says so instead of quietly making it again.

import { api, rememberSeat } from './api.js';
import { t, tn } from './i18n.js';
import { clockName } from './clock.js';
import { account, loadAccount, onAccount, post, ratingText, profilePath, samePlayer } from './account.js';
import { notify } from './prefs.js';

let ui = null;

/** The time controls offered in the lobby; a seek needs one. */
export const SEEK_CLOCKS = ['1+0', '1+1', '3+0', '3+2', '5+3', '10+5', '15+10', '1d', '3d', '7d'];
const DEFAULT_SEEK_CLOCK = '5+3';

function other(side) {
  return side === 'south' ? 'north' : 'south';
}

function variantName(rules) {
  const key = 'variant_name_' + rules;
  const s = t(key);
  return s === key ? rules : s;
}

/** "You play North" for a seek or challenge whose maker chose `side`; `mine` when the reader
 * made it. */
function sideText(side, mine) {
  if (side !== 'south' && side !== 'north') return t('side_random');
  return t('you_play', { side: t(mine ? side : other(side)) });
}

function categoryName(c) {
  return c ? t('cat_' + c) : t('clock_none');
}

const FILTER_KEY = 'anywoli.lobbyFilter';
const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

/** What the lobby's list shows (issue 36): kept in this browser, like the other settings. */
function loadFilter() {
  const none = { min: '', max: '', speed: '', kind: '' };
  try {
    const f = JSON.parse(localStorage.getItem(FILTER_KEY) || '{}');
    return {
      min: Number.isFinite(f.min) ? f.min : '',
      max: Number.isFinite(f.max) ? f.max : '',
      speed: SPEEDS.includes(f.speed) ? f.speed : '',
      kind: ['rated', 'casual'].includes(f.kind) ? f.kind : '',
    };
  } catch {
    return none;
  }
}

function saveFilter(f) {
  try { localStorage.setItem(FILTER_KEY, JSON.stringify(f)); } catch { /* private mode: kept for this page only */ }
}

/** Whether another player's seek passes the filter `f`. */
export function passes(seek, f) {
  if (f.speed && seek.category !== f.speed) return false;
  if (f.kind && (f.kind === 'rated') !== !!seek.rated) return false;
  if (f.min !== '' || f.max !== '') {
    if (typeof seek.rating !== 'number') return false;
    const r = Math.round(seek.rating);
    if (f.min !== '' && r < f.min) return false;
    if (f.max !== '' && r > f.max) return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------
// The connection

class LobbyConnection {
  constructor() {
    this.reasons = new Set();
    this.ws = null;
    this.delay = 1000;
    this.timer = null;
    this.listeners = new Set();
    this.seeks = new Map();
    /** The ids of this connection's own seeks (the server says `seeking` to their maker). */
    this.mine = new Set();
    /** Those of them still waiting for an opponent, as far as this tab knows: a seek that
     * vanishes with the connection (the server may say `unseek` first) is still counted. */
    this.waiting = new Set();
    this.you = null;
    this.open = false;
    window.addEventListener('online', () => this.reconnectNow());
    // A page left with Back or a typed address may stay alive in the back/forward cache with
    // its socket, and its seeks would stay open for a maker who is gone: whoever accepted one
    // got a game against nobody (issue 36). Put away, the page closes the socket (its seeks
    // go); brought back, it connects again.
    window.addEventListener('pagehide', () => this.close());
    window.addEventListener('pageshow', (e) => { if (e.persisted) this.reconnectNow(); });
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.reconnectNow();
    });
  }

  /** Keeps the connection open for `reason` (the lobby view, a logged-in reader). */
  want(reason) {
    this.reasons.add(reason);
    if (!this.ws) this.connect();
  }

  release(reason) {
    this.reasons.delete(reason);
    if (this.reasons.size === 0) this.close();
  }

  /** Connects anew (the session changed: the server reads who is there on connecting). */
  restart() {
    this.close();
    if (this.reasons.size) this.connect();
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(msg) {
    for (const fn of [...this.listeners]) fn(msg);
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  connect() {
    clearTimeout(this.timer);
    if (this.reasons.size === 0) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${proto}//${location.host}/api/lobby`);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.lastHeard = Date.now();
    ws.onopen = () => {
      ws.send('{"type":"ping"}');
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'pong') return;
      if (msg.type === 'lobby') {
        this.delay = 1000;
        this.open = true;
        this.you = msg.you || null;
        this.seeks = new Map((msg.seeks || []).map((s) => [s.id, s]));
      } else if (msg.type === 'seeking') {
        this.mine.add(msg.id);
        if (this.seeks.has(msg.id)) this.waiting.add(msg.id);
      } else if (msg.type === 'seek' && msg.seek) {
        this.seeks.set(msg.seek.id, msg.seek);
        if (this.mine.has(msg.seek.id)) this.waiting.add(msg.seek.id);
      } else if (msg.type === 'unseek') {
        this.seeks.delete(msg.id);
      } else if (msg.type === 'started') {
        // One of them was accepted; leaving the lobby for the game withdraws the others.
        this.waiting.clear();
      }
      this.emit(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.dropped();
      this.retry();
    };
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this.lastHeard > 60000) { ws.close(); return; }
      ws.send('{"type":"ping"}');
    }, 25000);
  }

  /** Withdraws this tab's seek `id`. */
  cancel(id) {
    this.waiting.delete(id);
    this.send({ type: 'cancel', id });
  }

  /** Whether `seek` was made by this tab. */
  isMine(seek) {
    return Boolean(seek.mine) || this.mine.has(seek.id);
  }

  /** The connection is gone, and with it this tab's seeks. */
  dropped() {
    clearInterval(this.pinger);
    const hadSeek = this.waiting.size > 0;
    this.ws = null;
    this.open = false;
    this.seeks = new Map();
    this.mine = new Set();
    this.waiting = new Set();
    this.emit({ type: 'closed', hadSeek });
  }

  retry() {
    if (this.reasons.size === 0) return;
    clearTimeout(this.timer);
    // Backoff with a little jitter, so that many tabs do not come back all at once.
    const wait = this.delay * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => this.connect(), wait);
    this.delay = Math.min(this.delay * 2, 30000);
  }

  reconnectNow() {
    if (this.reasons.size === 0 || this.ws) return;
    this.delay = 1000;
    this.connect();
  }

  close() {
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    if (ws) {
      this.dropped();
      ws.close();
    }
  }
}

export const lobby = new LobbyConnection();

// ------------------------------------------------------------------------------------------
// Challenges: the reader's incoming and outgoing ones, kept up to date for the lobby view
// and the toasts.

const challenges = { incoming: new Map(), outgoing: new Map() };
const challengeListeners = new Set();
/** Incoming challenges already announced (a toast, a notification), by id. */
const announced = new Set();

/** A challenge unanswered this long is gone (the server says so only when it next looks). */
const CHALLENGE_TTL = 10 * 60 * 1000;
let pruner = null;

function challengesChanged() {
  for (const fn of [...challengeListeners]) fn();
  renderToasts();
  clearInterval(pruner);
  pruner = null;
  if (challenges.incoming.size || challenges.outgoing.size) pruner = setInterval(pruneChallenges, 30000);
}

/** Drops the challenges past their time (by the server's `at`, give or take clock skew). */
function pruneChallenges() {
  const now = Date.now();
  let changed = false;
  for (const list of [challenges.incoming, challenges.outgoing]) {
    for (const [id, c] of list) {
      if (typeof c.at === 'number' && now - c.at > CHALLENGE_TTL + 30000) {
        list.delete(id);
        changed = true;
      }
    }
  }
  if (changed) challengesChanged();
}

async function loadChallenges() {
  if (!account()) {
    challenges.incoming.clear();
    challenges.outgoing.clear();
    challengesChanged();
    return;
  }
  const r = await api('GET', '/challenges');
  if (!r.ok) return;
  challenges.incoming = new Map((r.data.incoming || []).map((c) => [c.id, c]));
  challenges.outgoing = new Map((r.data.outgoing || []).map((c) => [c.id, c]));
  challengesChanged();
}

/** One line on what a challenge is: rules, clock, rated or casual, the reader's side. */
function challengeTerms(c, mine) {
  return [variantName(c.rules || 'anywoli'), clockName(c.clock), t(c.rated ? 'rated' : 'casual'), sideText(c.side, mine)].join(' · ');
}

/** Takes the seat of a game that just started for the reader, and goes there. */
function goToGame(game, seat, secret) {
  if (!game) return;
  if (secret) rememberSeat(game, seat, secret);
  const path = '/g/' + game;
  if (location.pathname !== path) ui.navigate(path);
}

async function acceptChallenge(id) {
  const r = await post(`/challenges/${encodeURIComponent(id)}/accept`);
  if (!r.ok) {
    ui.say(ui.errorText(r), true);
    if (r.data && r.data.error === 'unknown_challenge') challenges.incoming.delete(id);
    // Drawn again: the buttons pressed are usable again.
    challengesChanged();
    return;
  }
  challenges.incoming.delete(id);
  challengesChanged();
  goToGame(r.data.game, r.data.seat, r.data.secret);
}

/** Declines an incoming challenge, or withdraws one of the reader's. */
async function declineChallenge(id) {
  const r = await post(`/challenges/${encodeURIComponent(id)}/decline`);
  if (!r.ok && !(r.data && r.data.error === 'unknown_challenge')) {
    ui.say(ui.errorText(r), true);
    challengesChanged();
    return;
  }
  challenges.incoming.delete(id);
  challenges.outgoing.delete(id);
  challengesChanged();
}

// The toasts: an incoming challenge, wherever the reader is (the lobby lists them itself), and
// a correspondence game where it became the reader's move (unless that game is on screen).

let toastBox = null;
/** Correspondence games waiting for the reader's move: game id → opponent's name or null. */
const yourMoves = new Map();

function yourMoveText(opponent) {
  return opponent ? t('your_move_against', { name: opponent }) : t('your_move_game');
}

function renderToasts() {
  if (!toastBox || !ui) return;
  const inLobby = document.body.dataset.view === 'lobby';
  const list = inLobby ? [] : [...challenges.incoming.values()];
  const here = /^\/g\/([a-z0-9]+)$/.exec(location.pathname);
  if (here) yourMoves.delete(here[1]);
  const esc = ui.esc;
  const moves = [...yourMoves].map(([game, opponent]) => `
    <div class="challenge-toast your-move" role="group" aria-labelledby="ym-${esc(game)}">
      <p id="ym-${esc(game)}"><strong>${esc(yourMoveText(opponent))}</strong></p>
      <div class="challenge-actions">
        <a href="/g/${esc(game)}" data-link class="button primary">${esc(t('open_game'))}</a>
        <button type="button" data-dismiss="${esc(game)}">${esc(t('close'))}</button>
      </div>
    </div>`).join('');
  toastBox.innerHTML = moves + list.map((c) => `
    <div class="challenge-toast" role="group" aria-labelledby="ct-${esc(c.id)}">
      <p id="ct-${esc(c.id)}"><strong>${esc(t('challenge_from', { name: c.from }))}</strong><br>
        <span class="note">${esc(challengeTerms(c, false))}</span></p>
      <div class="challenge-actions">
        <button type="button" class="primary" data-accept="${esc(c.id)}">${esc(t('accept'))}</button>
        <button type="button" data-decline="${esc(c.id)}">${esc(t('decline'))}</button>
      </div>
    </div>`).join('');
  toastBox.hidden = list.length === 0 && yourMoves.size === 0;
}

/** A new incoming challenge: said to screen readers, and a notification when the tab is
 * hidden (and the reader asked for notifications). */
function announce(c) {
  if (announced.has(c.id)) return;
  announced.add(c.id);
  const text = t('challenge_from', { name: c.from }) + ' ' + challengeTerms(c, false);
  ui.say(text);
  notify(text, 'anywoli-challenge-' + c.id);
}

/** Wires the lobby into the page once: the connection follows the session. */
export function initLobby(pageUi) {
  ui = pageUi;
  toastBox = document.createElement('div');
  toastBox.className = 'challenge-toasts';
  toastBox.hidden = true;
  document.body.appendChild(toastBox);
  toastBox.addEventListener('click', (e) => {
    const a = e.target.closest('button[data-accept]');
    const d = e.target.closest('button[data-decline]');
    const x = e.target.closest('button[data-dismiss]');
    if (a) { a.disabled = true; acceptChallenge(a.dataset.accept); }
    if (d) { d.disabled = true; declineChallenge(d.dataset.decline); }
    if (x) { yourMoves.delete(x.dataset.dismiss); renderToasts(); }
  });
  let known;
  onAccount((acc) => {
    const name = acc ? acc.name : null;
    // The server knows the reader by the cookie it saw on connecting: another reader, another
    // connection.
    if (known !== undefined && known !== name) lobby.close();
    if (acc) lobby.want('account');
    else lobby.release('account');
    if (lobby.reasons.size && !lobby.ws) lobby.connect();
    known = name;
    loadChallenges();
  });
  lobby.subscribe((msg) => {
    if (msg.type === 'started') goToGame(msg.game, msg.seat, msg.secret);
    else if (msg.type === 'challenge' && msg.challenge) {
      const c = msg.challenge;
      if (account() && samePlayer(c.from, account().name)) challenges.outgoing.set(c.id, c);
      else {
        challenges.incoming.set(c.id, c);
        announce(c);
      }
      challengesChanged();
    } else if (msg.type === 'challenge_gone') {
      const out = challenges.outgoing.get(msg.id);
      if (out && msg.reason === 'declined') ui.say(t('challenge_declined', { name: out.to }), true);
      else if (out && msg.reason === 'expired') ui.say(t('challenge_expired', { name: out.to }), true);
      challenges.incoming.delete(msg.id);
      challenges.outgoing.delete(msg.id);
      challengesChanged();
    } else if (msg.type === 'your_move' && msg.game) {
      // The game's own page says so itself (and notifies, as for any move).
      if (location.pathname === '/g/' + msg.game) return;
      yourMoves.set(msg.game, msg.opponent || null);
      const text = yourMoveText(msg.opponent);
      ui.say(text);
      notify(text, 'anywoli-move-' + msg.game);
      renderToasts();
    } else if (msg.type === 'lobby') {
      // Anything missed while the connection was down.
      loadChallenges();
    }
  });
}

/** The page changed view or language: the toasts follow. */
export function refreshToasts() {
  renderToasts();
}

// ------------------------------------------------------------------------------------------
// The Lobby view

let rulesPromise = null;
function rulesList() {
  if (!rulesPromise) {
    rulesPromise = api('GET', '/rules').then((r) => {
      if (r.ok && Array.isArray(r.data.rules)) return r.data.rules.map((x) => x.name);
      rulesPromise = null;
      return ['anywoli'];
    });
  }
  return rulesPromise;
}

export class LobbyView {
  constructor() {
    // The connection may be open already (a logged-in reader keeps it on every view).
    ui.setBody({ view: 'lobby', lobby: lobby.open ? 'open' : 'connecting' });
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
      ui.setBody({ lobby: 'open' });
      this.showSeeks();
      this.showConnection();
    } else if (msg.type === 'seek' || msg.type === 'unseek' || msg.type === 'seeking') {
      this.showSeeks();
    } else if (msg.type === 'closed') {
      ui.setBody({ lobby: 'connecting' });
      if (msg.hadSeek) this.note = t('seek_dropped');
      this.showNote();
      this.showSeeks();
      this.showConnection();
    } else if (msg.type === 'error') {
      this.note = ui.errorText({ data: msg, status: 0 });
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

  render() {
    const { main, esc } = ui;
    const me = account();
    if (!this.filter) this.filter = loadFilter();
    this.loadMyRatings();
    document.title = t('app_title') + ' — ' + t('lobby_title');
    const f = this.filter;
    const speeds = ['', ...SPEEDS].map((c) => `<option value="${c}"${c === f.speed ? ' selected' : ''}>${esc(c ? categoryName(c) : t('filter_any'))}</option>`).join('');
    const kinds = ['', 'rated', 'casual'].map((k) => `<option value="${k}"${k === f.kind ? ' selected' : ''}>${esc(k ? t(k) : t('filter_any'))}</option>`).join('');
    const filterOpen = f.min !== '' || f.max !== '' || f.speed || f.kind;
    const clocks = SEEK_CLOCKS.map((c) => `<option value="${c}"${c === DEFAULT_SEEK_CLOCK ? ' selected' : ''}>${esc(clockName(c))}</option>`).join('');
    const sides = (name, def) => ['random', 'south', 'north'].map((s) => `
      <label class="choice"><input type="radio" name="${name}" value="${s}"${s === def ? ' checked' : ''}> ${esc(s === 'random' ? t('side_random_choice') : t(s))}</label>`).join('');
    const loginLink = `<a href="/account?next=/lobby" data-link>${esc(t('log_in'))}</a>`;
    main.innerHTML = `
      <h1 class="sr-only">${esc(t('lobby_title'))}</h1>
      <div class="lobby-layout">
        <div class="lobby-main">
          <section class="panel" aria-labelledby="seeks-heading">
            <h2 id="seeks-heading">${esc(t('open_seeks'))}</h2>
            <p class="note" id="lobby-connection" role="status"></p>
            <p class="error" id="lobby-note" role="alert"></p>
            <details class="lobby-filter" id="seek-filter"${filterOpen ? ' open' : ''}>
              <summary>${esc(t('filter_title'))}</summary>
              <form id="filter-form" class="filter-form" novalidate>
                <fieldset class="range"><legend>${esc(t('filter_rating'))}</legend>
                  <div class="range-row">
                    <label for="filter-min">${esc(t('range_min'))}</label><input id="filter-min" name="min" type="number" inputmode="numeric" min="0" max="4000" step="50" value="${esc(String(f.min))}">
                    <label for="filter-max">${esc(t('range_max'))}</label><input id="filter-max" name="max" type="number" inputmode="numeric" min="0" max="4000" step="50" value="${esc(String(f.max))}">
                  </div>
                </fieldset>
                <div class="field"><label for="filter-speed">${esc(t('filter_speed'))}</label>
                  <select id="filter-speed" name="speed">${speeds}</select></div>
                <div class="field"><label for="filter-kind">${esc(t('filter_kind'))}</label>
                  <select id="filter-kind" name="kind">${kinds}</select></div>
                <p class="note">${esc(t('filter_note'))}</p>
              </form>
            </details>
            <p class="note" id="filter-hidden" hidden><span></span> <button type="button" id="filter-clear">${esc(t('filter_clear'))}</button></p>
            <div id="seeks"></div>
          </section>
          <section class="panel" aria-labelledby="seek-heading">
            <h2 id="seek-heading">${esc(t('create_seek'))}</h2>
            <form id="seek-form" class="lobby-form" novalidate>
              <div class="field"><label for="seek-rules">${esc(t('rules_variant'))}</label>
                <select id="seek-rules" name="rules"></select></div>
              <div class="field"><label for="seek-clock">${esc(t('clock'))}</label>
                <select id="seek-clock" name="clock">${clocks}</select></div>
              <fieldset><legend>${esc(t('your_side'))}</legend>${sides('side', 'random')}</fieldset>
              <div class="field">
                <label class="choice"><input type="checkbox" id="seek-rated" name="rated"${me ? '' : ' disabled'} aria-describedby="seek-rated-note"> ${esc(t('rated'))}</label>
                <p class="note" id="seek-rated-note">${me ? esc(t('rated_note')) : `${esc(t('rated_needs_login'))} ${loginLink}`}</p>
              </div>
              <fieldset class="range"><legend>${esc(t('rating_range'))}</legend>
                <div class="range-row">
                  <label for="seek-min">${esc(t('range_min'))}</label><input id="seek-min" name="min" type="number" inputmode="numeric" min="0" max="4000" step="50">
                  <label for="seek-max">${esc(t('range_max'))}</label><input id="seek-max" name="max" type="number" inputmode="numeric" min="0" max="4000" step="50">
                </div>
                <p class="note">${esc(t('range_note'))}</p>
              </fieldset>
              <button type="submit" class="primary" id="seek-submit">${esc(t('create_seek_button'))}</button>
              <p class="error" id="seek-error" role="alert"></p>
            </form>
          </section>
        </div>
        <div class="lobby-side">
          <section class="panel" aria-labelledby="challenges-heading">
            <h2 id="challenges-heading">${esc(t('challenges'))}</h2>
            <div id="challenges"></div>
            <h3>${esc(t('challenge_player'))}</h3>
            ${me ? `
            <form id="challenge-form" class="lobby-form" novalidate>
              <div class="field"><label for="ch-to">${esc(t('player_name'))}</label>
                <input id="ch-to" name="to" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="20" required></div>
              <div class="field"><label for="ch-rules">${esc(t('rules_variant'))}</label>
                <select id="ch-rules" name="rules"></select></div>
              <div class="field"><label for="ch-clock">${esc(t('clock'))}</label>
                <select id="ch-clock" name="clock"><option value="">${esc(clockName(''))}</option>${clocks}</select></div>
              <fieldset><legend>${esc(t('your_side'))}</legend>${sides('chside', 'random')}</fieldset>
              <div class="field">
                <label class="choice"><input type="checkbox" id="ch-rated" name="rated" aria-describedby="ch-rated-note"> ${esc(t('rated'))}</label>
                <p class="note" id="ch-rated-note" hidden>${esc(t('rated_needs_clock'))}</p>
              </div>
              <button type="submit" class="primary">${esc(t('challenge_button'))}</button>
              <p class="error" id="challenge-error" role="alert"></p>
            </form>` : `<p class="note">${esc(t('challenge_needs_login'))} ${loginLink}</p>`}
          </section>
          <section class="panel" aria-labelledby="watch-heading">
            <h2 id="watch-heading">${esc(t('watch'))}</h2>
            <div id="watch"></div>
          </section>
        </div>
      </div>`;
    this.fillRules();
    this.showSeeks();
    this.showChallenges();
    this.showLive();
    this.showConnection();
    this.showNote();
    main.querySelector('#seek-form').addEventListener('submit', (e) => { e.preventDefault(); this.createSeek(); });
    const ff = main.querySelector('#filter-form');
    const readFilter = () => {
      const num = (v) => {
        const n = Math.round(Number(v.trim()));
        return v.trim() !== '' && Number.isFinite(n) ? Math.min(4000, Math.max(0, n)) : '';
      };
      this.filter = { min: num(ff.min.value), max: num(ff.max.value), speed: ff.speed.value, kind: ff.kind.value };
      saveFilter(this.filter);
      this.showSeeks();
    };
    ff.addEventListener('input', readFilter);
    ff.addEventListener('change', readFilter);
    ff.addEventListener('submit', (e) => e.preventDefault());
    main.querySelector('#filter-clear').addEventListener('click', () => {
      ff.reset();
      for (const el of [ff.min, ff.max]) el.value = '';
      ff.speed.value = '';
      ff.kind.value = '';
      readFilter();
      main.querySelector('#seek-filter summary').focus();
    });
    const cf = main.querySelector('#challenge-form');
    if (cf) {
      cf.addEventListener('submit', (e) => { e.preventDefault(); this.challenge(); });
      // A rated game needs a clock: its rating category comes from it.
      const syncRated = () => {
        const untimed = !cf.clock.value;
        cf.rated.disabled = untimed;
        if (untimed) cf.rated.checked = false;
        main.querySelector('#ch-rated-note').hidden = !untimed;
      };
      cf.clock.addEventListener('change', syncRated);
      syncRated();
      // A profile's "Challenge" button comes here with the name filled in.
      const pre = new URLSearchParams(location.search).get('challenge');
      if (pre && !this.prefilled) {
        this.prefilled = true;
        cf.to.value = pre;
        cf.to.focus();
      }
    }
    main.querySelector('#seeks').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-seek]');
      if (!b) return;
      this.note = '';
      this.showNote();
      if (b.dataset.action === 'cancel') lobby.cancel(b.dataset.seek);
      else lobby.send({ type: 'accept', id: b.dataset.seek });
      b.disabled = true;
    });
    main.querySelector('#challenges').addEventListener('click', (e) => {
      const a = e.target.closest('button[data-accept]');
      const d = e.target.closest('button[data-decline]');
      if (a) { a.disabled = true; acceptChallenge(a.dataset.accept); }
      if (d) { d.disabled = true; declineChallenge(d.dataset.decline); }
    });
  }

  fillRules() {
    const { main, esc } = ui;
    for (const sel of main.querySelectorAll('#seek-rules, #ch-rules')) {
      const value = sel.value || 'anywoli';
      sel.innerHTML = this.rules.map((r) => `<option value="${esc(r)}">${esc(variantName(r))}</option>`).join('');
      if (this.rules.includes(value)) sel.value = value;
    }
  }

  showConnection() {
    const el = ui.main.querySelector('#lobby-connection');
    if (el) el.textContent = lobby.open ? '' : t('lobby_connecting');
  }

  showNote() {
    const el = ui.main.querySelector('#lobby-note');
    if (el) el.textContent = this.note;
  }

  /** Redraws a list, keeping the focus on the same button if it is still there. */
  redraw(el, html) {
    const f = document.activeElement;
    const key = f && el.contains(f) && f.dataset ? Object.entries(f.dataset).map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}="${CSS.escape(v)}"]`).join('') : '';
    el.innerHTML = html;
    if (key) {
      const again = el.querySelector(key);
      if (again) again.focus();
    }
  }

  showSeeks() {
    const { main, esc } = ui;
    const el = main.querySelector('#seeks');
    if (!el) return;
    const me = account();
    const all = [...lobby.seeks.values()].sort((a, b) => (lobby.isMine(b) ? 1 : 0) - (lobby.isMine(a) ? 1 : 0));
    const f = this.filter || loadFilter();
    const own = (s) => lobby.isMine(s) || (me && s.by && samePlayer(s.by, me.name));
    const seeks = all.filter((s) => own(s) || passes(s, f));
    const hidden = main.querySelector('#filter-hidden');
    if (hidden) {
      const n = lobby.open ? all.length - seeks.length : 0;
      hidden.hidden = n === 0;
      hidden.querySelector('span').textContent = n ? tn('filter_hidden', n) : '';
    }
    if (!lobby.open) { this.redraw(el, ''); return; }
    if (seeks.length === 0) { this.redraw(el, all.length ? '' : `<p>${esc(t('no_seeks'))}</p>`); return; }
    const rows = seeks.map((s) => {
      const mine = lobby.isMine(s);
      const ownAccount = me && s.by && samePlayer(s.by, me.name);
      const who = s.by
        ? `<a href="${esc(profilePath(s.by))}" data-link>${esc(s.by)}</a>${s.rating !== null && s.rating !== undefined ? ` <span class="rating">${esc(ratingText(s.rating, s.provisional))}</span>` : ''}`
        : esc(t('anonymous'));
      let action;
      if (mine) action = `<button type="button" data-seek="${esc(s.id)}" data-action="cancel">${esc(t('cancel'))}</button>`;
      else if (ownAccount) action = `<span class="note">${esc(t('seek_yours_elsewhere'))}</span>`;
      else if (s.rated && !me) action = `<span class="note">${esc(t('rated_needs_login'))}</span>`;
      else if (Array.isArray(s.range) && s.range.length === 2 && !(me && this.myRatingFor(s) >= s.range[0] && this.myRatingFor(s) <= s.range[1])) {
        // The server would refuse it (out_of_range): say so instead of offering the button.
        action = `<span class="note">${esc(t('seek_for_range', { lo: Math.round(s.range[0]), hi: Math.round(s.range[1]) }))}</span>`;
      }
      else action = `<button type="button" class="primary" data-seek="${esc(s.id)}" data-action="accept">${esc(t('accept'))}</button>`;
      const range = Array.isArray(s.range) && s.range.length === 2 ? `${Math.round(s.range[0])}–${Math.round(s.range[1])}` : '';
      return `<tr class="${mine ? 'mine' : ''}" data-seek-row="${esc(s.id)}">
        <td data-label="${esc(t('col_player'))}">${who}</td>
        <td data-label="${esc(t('col_rules'))}">${esc(variantName(s.rules))}</td>
        <td data-label="${esc(t('clock'))}">${esc(clockName(s.clock))}</td>
        <td data-label="${esc(t('col_rated'))}">${esc(t(s.rated ? 'rated' : 'casual'))}${range ? ` <span class="note">(${esc(range)})</span>` : ''}</td>
        <td data-label="${esc(t('col_side'))}">${esc(sideText(s.side, mine || ownAccount))}</td>
        <td class="action">${action}</td></tr>`;
    }).join('');
    this.redraw(el, `<div class="table-wrap"><table class="archive seeks">
      <caption class="sr-only">${esc(t('open_seeks'))}</caption>
      <thead><tr><th scope="col">${esc(t('col_player'))}</th><th scope="col">${esc(t('col_rules'))}</th><th scope="col">${esc(t('clock'))}</th>
      <th scope="col">${esc(t('col_rated'))}</th><th scope="col">${esc(t('col_side'))}</th><th scope="col"><span class="sr-only">${esc(t('col_action'))}</span></th></tr></thead>
      <tbody>${rows}</tbody></table></div>`);
  }

  createSeek() {
    const { main } = ui;
    const f = main.querySelector('#seek-form');
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
    else ui.say(t('seek_created'));
  }

  async challenge() {
    const { main } = ui;
    const f = main.querySelector('#challenge-form');
    const err = main.querySelector('#challenge-error');
    const to = f.to.value.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{1,19}$/.test(to)) { err.textContent = t('err_unknown_player'); f.to.focus(); return; }
    if (account() && samePlayer(to, account().name)) { err.textContent = t('cannot_challenge_self'); f.to.focus(); return; }
    if (f.rated.checked && !f.clock.value) { err.textContent = t('rated_needs_clock'); return; }
    const body = { to, rules: f.rules.value, rated: f.rated.checked, side: f.chside.value };
    if (f.clock.value) body.clock = f.clock.value;
    const button = f.querySelector('button[type=submit]');
    button.disabled = true;
    const r = await post('/challenges', body);
    button.disabled = false;
    if (!r.ok) { err.textContent = ui.errorText(r); return; }
    err.textContent = '';
    f.to.value = '';
    const c = r.data.challenge;
    if (c) challenges.outgoing.set(c.id, c);
    challengesChanged();
    ui.say(t('challenge_sent', { name: (c && c.to) || to }), true);
  }

  showChallenges() {
    const { main, esc } = ui;
    const el = main.querySelector('#challenges');
    if (!el) return;
    if (!account()) { this.redraw(el, ''); return; }
    const incoming = [...challenges.incoming.values()];
    const outgoing = [...challenges.outgoing.values()];
    if (!incoming.length && !outgoing.length) { this.redraw(el, `<p class="note">${esc(t('no_challenges'))}</p>`); return; }
    const item = (c, mine) => `<li class="challenge ${mine ? 'outgoing' : 'incoming'}">
      <p>${mine ? esc(t('challenge_to', { name: c.to })) : esc(t('challenge_from', { name: c.from }))}
        <a href="${esc(profilePath(mine ? c.to : c.from))}" data-link class="profile-link">${esc(t('profile'))}</a><br>
        <span class="note">${esc(challengeTerms(c, mine))}</span></p>
      <div class="challenge-actions">${mine
        ? `<span class="note">${esc(t('challenge_waiting'))}</span> <button type="button" data-decline="${esc(c.id)}">${esc(t('cancel'))}</button>`
        : `<button type="button" class="primary" data-accept="${esc(c.id)}">${esc(t('accept'))}</button> <button type="button" data-decline="${esc(c.id)}">${esc(t('decline'))}</button>`}</div></li>`;
    this.redraw(el, `<ul class="challenge-list">${incoming.map((c) => item(c, false)).join('')}${outgoing.map((c) => item(c, true)).join('')}</ul>`);
  }

  async loadLive() {
    const r = await api('GET', '/games?live=true&limit=30');
    if (r.ok) this.live = r.data.games || [];
    else if (this.live === null) this.live = [];
    this.showLive();
  }

  showLive() {
    const { main, esc } = ui;
    const el = main.querySelector('#watch');
    if (!el) return;
    if (this.live === null) { el.innerHTML = `<p>${esc(t('loading'))}</p>`; return; }
    if (this.live.length === 0) { el.innerHTML = `<p class="note">${esc(t('no_live_games'))}</p>`; return; }
    this.redraw(el, `<ul class="watch-list">${this.live.map((g) => `<li>
      <a href="/g/${esc(g.id)}" data-link>${esc(ui.sideName(g, 'south'))} – ${esc(ui.sideName(g, 'north'))}</a>
      <span class="note">${esc([variantName(g.rules), g.clock ? clockName(g.clock) : '', g.rated ? t('rated') : ''].filter(Boolean).join(' · '))} · ${esc(tn('n_moves', g.moves))}</span></li>`).join('')}</ul>`);
  }
}
