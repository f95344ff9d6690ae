// The wait before the next game (docs/community.md, "Waits after leaving, stalling or never
// moving"), shown where one starts a game: how long is left and until when. The server refuses
// the seek or challenge anyway (`play_wait`); this says so before anyone tries.

import { api } from '../../api.js';
import { t } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { when } from '../care.js';

/** Time left as the page says it: minutes under two hours, else hours (rounded up). */
function left(ms) {
  const minutes = Math.max(1, Math.ceil(ms / 60000));
  return minutes < 120 ? t('wait_minutes', { n: minutes }) : t('wait_hours', { n: Math.ceil(minutes / 60) });
}

/**
 * Shows the logged-in account's wait in `el` (hidden while there is none), counted down each
 * half minute while `el` stays on the page.
 * @param {HTMLElement | null} el
 */
export async function showWait(el) {
  if (!el) return;
  const r = await api('GET', '/account/wait');
  const until = r.ok ? r.data.until : null;
  // Counted down from the server's `left`, not from this device's clock, which may be wrong.
  const ends = typeof until === 'number' ? Date.now() + r.data.left : 0;
  const draw = () => {
    const now = Date.now();
    if (typeof until !== 'number' || ends <= now || !el.isConnected) {
      el.hidden = true;
      return false;
    }
    el.hidden = false;
    el.dataset.until = String(until);
    fill(el, h('strong', null, t('wait_title')), ' ',
      t('wait_note', { left: left(ends - now), until: when(until) }));
    return true;
  };
  if (!draw()) return;
  const timer = setInterval(() => { if (!draw()) clearInterval(timer); }, 30000);
}
