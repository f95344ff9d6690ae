// A game's page, part 5 of 7: a friend game's invite link (and whether it can reach a friend's
// device), joining by it, and listing the game for watchers.

import { GameHistory } from './history.js';
import { api, rememberSeat } from '../../api.js';
import { t } from '../../i18n.js';
import { post } from '../../account.js';
import { main, say, errorText } from '../../lib/dom.js';

/** How this server is reached (GET /api/site), asked once: where invite links point. */
let sitePromise = null;

export function site() {
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

export class GameInvite extends GameHistory {
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
    /** @type {any} */
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
}
