// Talks to the server: JSON requests, and a game's events over a WebSocket that reconnects
// by itself (socket.js).

import { ReconnectingSocket } from './socket.js';

/** The session's CSRF token while logged in (account.js sets it), sent with every POST. */
let csrf = null;

export function setCsrf(token) {
  csrf = token || null;
}

/**
 * The last request that failed, on the body (`data-api-failed`), so that a browser test that
 * waits in vain says which request it was waiting on.
 */
function noteFailure(method, path, status, code) {
  if (typeof document === 'undefined' || !document.body) return;
  document.body.dataset.apiFailed = `${method} ${path} ${status}${code ? ' ' + code : ''}`;
}

/** Calls the API. Resolves to {ok, status, data}; a network failure is status 0. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  // Every POST is JSON, even one that says nothing.
  if (body === undefined && method === 'POST') body = {};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (csrf && method !== 'GET') init.headers['X-CSRF-Token'] = csrf;
  let resp;
  try {
    resp = await fetch('/api' + path, init);
  } catch (e) {
    noteFailure(method, path, 0);
    return { ok: false, status: 0, data: { error: 'network', message: String(e) } };
  }
  const type = resp.headers.get('content-type') || '';
  const data = type.includes('json') ? await resp.json().catch(() => ({})) : await resp.text();
  if (!resp.ok) noteFailure(method, path, resp.status, data && data.error);
  return { ok: resp.ok, status: resp.status, data };
}

/**
 * Sends a move to the server that judges it (a lesson's, a puzzle's): none while one is on its
 * way or `view` is not playing. `view` is busy from then until `idle(view)`, which an error
 * does at once, saying it. `body` is called only for a move sent. Resolves to the answer's
 * data, or null when nothing came of it.
 * @param {{busy?: boolean, state: string, ui: any, setState: (state: string, text: string) => void}} view
 * @param {string} path
 * @param {() => object} body
 */
export async function sendMove(view, path, body) {
  if (view.busy || view.state !== 'playing') return null;
  view.busy = true;
  view.ui.setBody({ busy: '1' });
  const r = await api('POST', path, body());
  if (!r.ok) {
    idle(view);
    view.setState('playing', view.ui.errorText(r));
    return null;
  }
  return r.data;
}

/**
 * The end of a move's busy time (`sendMove`).
 * @param {{busy?: boolean, ui: any}} view
 */
export function idle(view) {
  view.busy = false;
  view.ui.setBody({ busy: '0' });
}

/**
 * Follows one game's events. On every (re)connection the server first sends the whole state,
 * so a reload or a lost network resumes where the game is.
 */
export class GameSocket extends ReconnectingSocket {
  constructor(id, onMessage, onStatus) {
    super(`/api/games/${id}/events`, onMessage, onStatus);
    this.id = id;
    this.connect();
  }

  opened(ws) {
    this.ping(ws);
    // A player's connection says whose it is, so the opponent sees them come and go.
    if (this.secret) ws.send(JSON.stringify({ type: 'hello', secret: this.secret }));
  }

  heard(msg) {
    return msg.type !== 'hello';
  }

  /** Sends `msg` (a chat line) if connected: whether it went. */
  say(msg) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** From now on (and on every reconnection) this connection is the player's with `secret`. */
  hello(secret) {
    this.secret = secret;
    if (this.open) this.ws.send(JSON.stringify({ type: 'hello', secret }));
  }

  ping(ws) {
    this.pingSent = performance.now();
    super.ping(ws);
  }

  ponged() {
    if (this.pingSent) this.rtts = [...(this.rtts || []), performance.now() - this.pingSent].slice(-5);
    this.pingSent = null;
  }

  /** The connection's round trip in milliseconds (the median of the last five pings), which
   * a move on a clock sends as its lag: the server gives it back, up to half a second. */
  get lag() {
    const r = [...(this.rtts || [])].sort((a, b) => a - b);
    return r.length ? Math.round(r[Math.floor(r.length / 2)]) : 0;
  }
}

/** The seats this browser holds: {gameId: {secret, seat}} in localStorage. */
const SEATS_KEY = 'anywoli.seats';

export function seatsHeld() {
  try { return JSON.parse(localStorage.getItem(SEATS_KEY)) || {}; } catch { return {}; }
}

export function mySeat(id) {
  return seatsHeld()[id] || null;
}

/** Keeps a seat; `invite` (a friend game's join token) only for the player who made it. */
export function rememberSeat(id, seat, secret, invite) {
  const all = seatsHeld();
  all[id] = invite ? { seat, secret, invite } : { seat, secret };
  try { localStorage.setItem(SEATS_KEY, JSON.stringify(all)); } catch { /* private mode: the seat lasts this page only */ }
}
