// Following players (docs/api-players.md, "Follows"): the button on a player's page and the
// list of the players one follows, each with whether they are online and the game they play.

import { api } from '../../api.js';
import { t } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody, errorText, toast } from '../../lib/dom.js';
import { account, profilePath } from '../../account.js';

/**
 * The names the reader follows, or null (not logged in, or the list did not come). A failed
 * fetch is tried again, 1, 2, 4 and 8 s later: on a bad network or a busy server the button
 * would otherwise never show (CI once saw it stay hidden for a minute).
 */
async function followed() {
  for (let wait = 1000; account(); wait *= 2) {
    const r = await api('GET', '/account/following');
    if (r.ok) return r.data.following;
    if ((r.status >= 400 && r.status < 500 && r.status !== 429) || wait > 8000) return null;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return null;
}

/**
 * A Follow / Unfollow button for the player `name`, which finds out which it is.
 * @param {string} name
 * @returns {HTMLElement}
 */
export function followButton(name) {
  const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'button', id: 'follow', hidden: true }));
  let on = false;
  const show = () => {
    button.textContent = t(on ? 'unfollow' : 'follow');
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    button.hidden = false;
  };
  followed().then((list) => {
    if (!list) return;
    on = list.some((f) => f.name.toLowerCase() === name.toLowerCase());
    show();
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    const r = await api('POST', `/players/${encodeURIComponent(name)}/${on ? 'unfollow' : 'follow'}`);
    button.disabled = false;
    if (!r.ok) { toast(errorText(r)); return; }
    on = r.data.following;
    show();
  });
  return button;
}

/** One followed player as a list item: a dot for online, the name, the game they play. */
function item(f) {
  const state = f.online ? 'online' : 'offline';
  return h('li', { class: 'follow-item', dataset: { online: f.online ? '1' : '0' } },
    h('span', { class: 'dot ' + state, title: t(state), 'aria-label': t(state), role: 'img' }),
    h('a', { href: profilePath(f.name), 'data-link': true }, f.name),
    f.playing ? h('a', { href: '/g/' + f.playing, 'data-link': true, class: 'button small' }, t('watch_game')) : null);
}

/** The page /following: the players the reader follows, refreshed every 20 s. */
export class FollowingView {
  constructor() {
    setBody({ view: 'following' });
    document.title = t('app_title') + ' — ' + t('following_title');
    this.list = h('div', { 'aria-live': 'polite' }, t('loading'));
    fill(main, h('section', { class: 'panel' }, h('h1', null, t('following_title')), this.list));
    this.load();
    this.timer = setInterval(() => this.load(), 20000);
  }

  destroy() { clearInterval(this.timer); }

  refresh() { this.load(); }

  async load() {
    if (!account()) {
      fill(this.list, h('p', null, h('a', { href: '/account', 'data-link': true }, t('following_log_in'))));
      return;
    }
    const r = await api('GET', '/account/following');
    if (!r.ok) { fill(this.list, h('p', { class: 'error', role: 'alert' }, errorText(r))); return; }
    const list = r.data.following;
    fill(this.list, list.length
      ? h('ul', { class: 'follow-list' }, list.map(item))
      : h('p', { class: 'note' }, t('following_none')));
  }
}
