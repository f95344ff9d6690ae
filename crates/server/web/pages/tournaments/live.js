// Following a tournament as it changes (docs/tournaments.md, "On the site"): its events socket
// says that something changed, and the watcher fetches what it shows again, at most once a
// second; and the player's next game, whose seat the page takes before going there.

import { mySeat, rememberSeat } from '../../api.js';
import { post } from '../../account.js';
import { navigate } from '../../lib/nav.js';
import { ReconnectingSocket } from '../../socket.js';
import { throttle, markOpened } from './terms.js';

/** One tournament's events: `{"type": "changed", "version": N}`; pings every 15 s. */
class TournamentSocket extends ReconnectingSocket {
  constructor(id, onMessage, onStatus) {
    super(`/api/tournaments/${encodeURIComponent(id)}/events`, onMessage, onStatus);
    this.connect();
  }
}

/**
 * Calls `refresh()` whenever tournament `id` changes, and on every reconnection (a change may
 * have been missed meanwhile): not more than once a second.
 */
export class TournamentFeed {
  /**
   * @param {string} id
   * @param {() => void} refresh
   * @param {(up: boolean) => void} [onStatus]
   * @param {(m: any) => void} [onChat] the chat's messages: `chat` lines and `error`s
   */
  constructor(id, refresh, onStatus = () => {}, onChat = () => {}) {
    this.version = -1;
    this.throttled = throttle(refresh, 1000);
    this.connectedOnce = false;
    this.socket = new TournamentSocket(id, (m) => {
      if (m.type === 'chat' || m.type === 'error') { onChat(m); return; }
      if (m.type !== 'changed') return;
      if (typeof m.version === 'number' && m.version <= this.version) return;
      this.throttled.call();
    }, (up) => {
      onStatus(up);
      // The first connection follows the page's first fetch; a later one may have missed news.
      if (up && this.connectedOnce) this.throttled.call();
      if (up) this.connectedOnce = true;
    });
  }

  /** Sends `msg` on the socket: false when it is not open. */
  send(msg) {
    if (!this.socket.open) return false;
    this.socket.ws.send(JSON.stringify(msg));
    return true;
  }

  /** The version last fetched (`GET /api/tournaments/{id}`): older news are no news. */
  seen(version) {
    if (typeof version === 'number' && version > this.version) this.version = version;
  }

  close() {
    this.throttled.cancel();
    this.socket.close();
  }
}

/**
 * Takes the seat of tournament game `game` (`POST /api/games/{id}/seat`) and goes there; this
 * tab will not be taken there by itself again.
 * @param {string} game
 * @param {() => boolean} [wanted] whether to go still, once the seat is here (the reader may
 *   have left the page that asked meanwhile)
 */
export async function goToTournamentGame(game, wanted = () => true) {
  markOpened(game);
  if (!mySeat(game)) {
    const r = await post(`/games/${encodeURIComponent(game)}/seat`);
    // Without it the game's page asks again for the account's seat (seats.js).
    if (r.ok && r.data && r.data.secret) rememberSeat(game, r.data.seat || r.data.side, r.data.secret);
  }
  if (!wanted()) return;
  const path = '/g/' + game;
  if (location.pathname !== path) navigate(path);
}
