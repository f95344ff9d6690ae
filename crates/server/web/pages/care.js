// Account care on the Account view (docs/community.md): the account's sessions (each ended
// with a click), its data as a JSON download, and closing the account, confirmed by a checkbox
// and the password. Built with h(): nothing here is parsed as HTML.

import { api } from '../api.js';
import { t, currentLang } from '../i18n.js';
import { h, fill } from '../lib/h.js';
import { errorText, say } from '../lib/dom.js';

/** A time in milliseconds as the reader's language writes it. */
export function when(ms) {
  return new Date(ms).toLocaleString(currentLang());
}

/**
 * Draws the account-care panels into `el`.
 * @param {HTMLElement} el
 * @param {() => void} onClosed what to do once the account is closed (read the account again)
 */
export function renderCare(el, onClosed) {
  const list = h('ul', { class: 'session-list', id: 'session-list' });
  const error = h('p', { class: 'error', role: 'alert' });
  fill(el,
    h('section', { class: 'panel', 'aria-labelledby': 'care-sessions-heading' },
      h('h2', { id: 'care-sessions-heading' }, t('care_sessions')),
      list, error,
      h('p', { class: 'account-links' },
        h('a', { href: '/api/account/export', download: '', class: 'button', id: 'export-link' }, t('care_export')))),
    warningsPanel(),
    closePanel(onClosed));
  loadSessions(list, error);
}

/** The warnings moderators gave the account, if any (hidden while there are none). */
function warningsPanel() {
  const list = h('ul', { class: 'session-list', id: 'warning-list' });
  const panel = h('section', { class: 'panel', hidden: true, 'aria-labelledby': 'care-warnings-heading' },
    h('h2', { id: 'care-warnings-heading' }, t('care_warnings')), list);
  api('GET', '/account/warnings').then((r) => {
    if (!r.ok || !r.data.warnings.length) return;
    fill(list, r.data.warnings.map((w) => h('li', null,
      h('time', null, when(w.at)), ': ', w.reason || t('care_no_reason'))));
    panel.hidden = false;
  });
  return panel;
}

async function loadSessions(list, error) {
  const r = await api('GET', '/account/sessions');
  if (!r.ok) { error.textContent = errorText(r); return; }
  fill(list, r.data.sessions.map((s) => h('li', { dataset: { session: s.id } },
    h('span', null, t('care_started', { when: when(s.created) })),
    s.current ? h('strong', null, ' ' + t('care_this_session')) : null,
    ' ',
    h('button', { type: 'button', class: 'small' }, t('care_end')))));
  for (const b of list.querySelectorAll('button')) {
    b.addEventListener('click', async () => {
      const id = /** @type {HTMLElement} */ (b.closest('li')).dataset.session;
      const current = !!b.closest('li').querySelector('strong');
      const e = await api('POST', `/account/sessions/${encodeURIComponent(id)}/end`);
      if (!e.ok) { error.textContent = errorText(e); return; }
      say(t('care_session_ended'), true);
      if (current) location.reload();
      else loadSessions(list, error);
    });
  }
}

function closePanel(onClosed) {
  const error = h('p', { class: 'error', id: 'close-error', role: 'alert' });
  const form = /** @type {HTMLFormElement} */ (h('form', { id: 'close-form', novalidate: true },
    h('p', { class: 'note' }, t('care_close_note')),
    h('div', { class: 'field' },
      h('label', { for: 'close-password' }, t('password')),
      h('input', { id: 'close-password', name: 'password', type: 'password', autocomplete: 'current-password', maxlength: 256, required: true })),
    h('p', null, h('label', null,
      h('input', { type: 'checkbox', name: 'sure', id: 'close-sure' }), ' ', t('care_close_confirm'))),
    h('button', { type: 'submit', class: 'danger' }, t('care_close_title')),
    error));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!form.sure.checked) { error.textContent = t('care_close_unsure'); form.sure.focus(); return; }
    if (!form.password.value) { error.textContent = t('wrong_old_password'); form.password.focus(); return; }
    const r = await api('POST', '/account/close', { password: form.password.value });
    if (!r.ok) {
      error.textContent = r.data && r.data.error === 'bad_login' ? t('wrong_old_password') : errorText(r);
      return;
    }
    say(t('care_closed'), true);
    onClosed();
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'care-close-heading' },
    h('details', null,
      h('summary', null, h('h2', { id: 'care-close-heading', class: 'inline' }, t('care_close_title'))),
      form));
}
