// The reset view at /reset/TOKEN: a link from `anywoli admin reset-link` (docs/community.md).
// The player sets a new password; the link works once and for 24 hours, and every session of
// the account ends. Built with h(): nothing here is parsed as HTML.

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, fill } from '../lib/h.js';
import { main, setBody, say, errorText } from '../lib/dom.js';

export class ResetView {
  /** @param {string} token what the link carries (the server judges it) */
  constructor(token) {
    this.token = token;
    this.done = null;
    setBody({ view: 'reset' });
    this.render();
  }

  refresh() { this.render(); }

  render() {
    document.title = t('app_title') + ' — ' + t('reset_title');
    if (this.done) {
      fill(main, h('section', { class: 'panel' },
        h('h1', null, t('reset_title')),
        h('p', { class: 'success', role: 'status' }, t('reset_done', { name: this.done })),
        h('p', null, h('a', { href: '/account', 'data-link': true, class: 'button primary' }, t('log_in')))));
      return;
    }
    const field = (id, key, extra) => h('div', { class: 'field' },
      h('label', { for: 'reset-' + id }, t(key)),
      h('input', { id: 'reset-' + id, name: id, type: 'password', autocomplete: 'new-password', maxlength: 256, required: true, ...extra }));
    const error = h('p', { class: 'error', id: 'reset-error', role: 'alert' });
    const form = /** @type {HTMLFormElement} */ (h('form', { id: 'reset-form', novalidate: true },
      field('password', 'password_new', { 'aria-describedby': 'reset-note' }),
      h('p', { class: 'note', id: 'reset-note' }, t('password_rules')),
      field('repeat', 'password_repeat', {}),
      h('button', { type: 'submit', class: 'primary' }, t('reset_title')),
      error));
    fill(main, h('section', { class: 'panel', 'aria-labelledby': 'reset-heading' },
      h('h1', { id: 'reset-heading' }, t('reset_title')),
      h('p', { class: 'note' }, t('reset_intro')),
      form));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit(form, error);
    });
  }

  async submit(form, error) {
    const pw = form.password.value;
    if (pw.length < 8 || pw.length > 256) { error.textContent = t('err_bad_password'); form.password.focus(); return; }
    if (pw !== form.repeat.value) { error.textContent = t('passwords_differ'); form.repeat.focus(); return; }
    for (const b of form.querySelectorAll('button')) b.disabled = true;
    const r = await api('POST', '/account/reset', { token: this.token, password: pw });
    for (const b of form.querySelectorAll('button')) b.disabled = false;
    if (!r.ok) { error.textContent = errorText(r); return; }
    this.done = r.data.name;
    this.render();
    say(t('reset_done', { name: this.done }), true);
  }
}
