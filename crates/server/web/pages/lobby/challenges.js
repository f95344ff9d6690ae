// Challenges between players, on every view: the reader's incoming and outgoing ones, kept up
// to date for the lobby view, and the toasts (and notifications, when the reader switched
// those on) for a challenge or a friend's move arriving anywhere.

import { api, rememberSeat } from '../../api.js';
import { h, fill } from '../../lib/h.js';
import { t } from '../../i18n.js';
import { notify } from '../../prefs.js';
import { clockName } from '../../clock.js';
import { account, onAccount, post, samePlayer } from '../../account.js';
import { say, errorText } from '../../lib/dom.js';
import { navigate } from '../../lib/nav.js';
import { variantName, sideText } from './terms.js';
import { lobby } from './connection.js';

export const challenges = { incoming: new Map(), outgoing: new Map() };
export const challengeListeners = new Set();
/** Incoming challenges already announced (a toast, a notification), by id. */
const announced = new Set();

/** A challenge unanswered this long is gone (the server says so only when it next looks). */
const CHALLENGE_TTL = 10 * 60 * 1000;
let pruner = null;

export function challengesChanged() {
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

export async function loadChallenges() {
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
export function challengeTerms(c, mine) {
  return [variantName(c.rules || 'anywoli'), clockName(c.clock), t(c.rated ? 'rated' : 'casual'), sideText(c.side, mine)].join(' · ');
}

/** Takes the seat of a game that just started for the reader, and goes there. */
export function goToGame(game, seat, secret) {
  if (!game) return;
  if (secret) rememberSeat(game, seat, secret);
  const path = '/g/' + game;
  if (location.pathname !== path) navigate(path);
}

export async function acceptChallenge(id) {
  const r = await post(`/challenges/${encodeURIComponent(id)}/accept`);
  if (!r.ok) {
    say(errorText(r), true);
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
export async function declineChallenge(id) {
  const r = await post(`/challenges/${encodeURIComponent(id)}/decline`);
  if (!r.ok && !(r.data && r.data.error === 'unknown_challenge')) {
    say(errorText(r), true);
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
/** Games waiting for the reader (a correspondence move, a tournament's next game): game id →
 * what the toast says. */
const yourMoves = new Map();

function yourMoveText(opponent) {
  return opponent ? t('your_move_against', { name: opponent }) : t('your_move_game');
}

export function renderToasts() {
  if (!toastBox) return;
  const inLobby = document.body.dataset.view === 'lobby';
  const list = inLobby ? [] : [...challenges.incoming.values()];
  const here = /^\/g\/([a-z0-9]+)$/.exec(location.pathname);
  if (here) yourMoves.delete(here[1]);
  // Names and games come from other players: built as elements, never parsed as HTML.
  const moves = [...yourMoves].map(([game, text]) => h('div', { class: 'challenge-toast your-move', role: 'group', 'aria-labelledby': 'ym-' + game },
    h('p', { id: 'ym-' + game }, h('strong', null, text)),
    h('div', { class: 'challenge-actions' },
      h('a', { href: '/g/' + game, 'data-link': true, class: 'button primary' }, t('open_game')), ' ',
      h('button', { type: 'button', dataset: { dismiss: game } }, t('close')))));
  fill(toastBox, moves, list.map((c) => h('div', { class: 'challenge-toast', role: 'group', 'aria-labelledby': 'ct-' + c.id },
    h('p', { id: 'ct-' + c.id }, h('strong', null, t('challenge_from', { name: c.from })), h('br'),
      h('span', { class: 'note' }, challengeTerms(c, false))),
    h('div', { class: 'challenge-actions' },
      h('button', { type: 'button', class: 'primary', dataset: { accept: c.id } }, t('accept')), ' ',
      h('button', { type: 'button', dataset: { decline: c.id } }, t('decline'))))));
  toastBox.hidden = list.length === 0 && yourMoves.size === 0;
}

/** A new incoming challenge: said to screen readers, and a notification when the tab is
 * hidden (and the reader asked for notifications). */
function announce(c) {
  if (announced.has(c.id)) return;
  announced.add(c.id);
  const text = t('challenge_from', { name: c.from }) + ' ' + challengeTerms(c, false);
  say(text);
  notify(text, 'anywoli-challenge-' + c.id);
}

/** Wires the lobby into the page once: the connection follows the session. */
export function initLobby() {
  toastBox = document.createElement('div');
  toastBox.className = 'challenge-toasts';
  toastBox.hidden = true;
  document.body.appendChild(toastBox);
  toastBox.addEventListener('click', (e) => {
    const a = /** @type {any} */ (e.target).closest('button[data-accept]');
    const d = /** @type {any} */ (e.target).closest('button[data-decline]');
    const x = /** @type {any} */ (e.target).closest('button[data-dismiss]');
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
      if (out && msg.reason === 'declined') say(t('challenge_declined', { name: out.to }), true);
      else if (out && msg.reason === 'expired') say(t('challenge_expired', { name: out.to }), true);
      challenges.incoming.delete(msg.id);
      challenges.outgoing.delete(msg.id);
      challengesChanged();
    } else if (msg.type === 'your_move' && msg.game) {
      // The game's own page says so itself (and notifies, as for any move).
      if (location.pathname === '/g/' + msg.game) return;
      const text = yourMoveText(msg.opponent);
      yourMoves.set(msg.game, text);
      say(text);
      notify(text, 'anywoli-move-' + msg.game);
      renderToasts();
    } else if (msg.type === 'tournament_game' && msg.game) {
      // The tournament's page and its games' pages take the player there themselves.
      if (location.pathname === '/t/' + msg.tournament || location.pathname === '/g/' + msg.game) return;
      const text = t('tm_game_started', { name: msg.name, opponent: msg.opponent });
      yourMoves.set(msg.game, text);
      say(text, true);
      notify(text, 'anywoli-tournament-' + msg.game);
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
