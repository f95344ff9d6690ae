// Reporting a player, from their profile (docs/community.md): a reason, a few words, sent to
// the moderators; the server attaches the evidence itself. Built with h().

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, fill } from '../lib/h.js';
import { errorText, say } from '../lib/dom.js';

const REASONS = ['abusive_chat', 'computer_assistance', 'rating_manipulation', 'leaving_games', 'other'];

/**
 * Draws the report form for `player` into `el` (folded until opened).
 * @param {HTMLElement} el
 * @param {string} player
 */
export function renderReport(el, player) {
  const reason = h('select', { id: 'report-reason', name: 'reason' },
    REASONS.map((r) => h('option', { value: r }, t('report_reason_' + r))));
  const text = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: 'report-text', name: 'text', maxlength: 1000, rows: 3 }));
  const error = h('p', { class: 'error', role: 'alert', id: 'report-error' });
  const form = h('form', { id: 'report-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'report-reason' }, t('report_reason')), reason),
    h('div', { class: 'field' }, h('label', { for: 'report-text' }, t('report_text')), text),
    h('button', { type: 'submit' }, t('report_send')), error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const r = await api('POST', '/reports', {
      player, reason: /** @type {HTMLSelectElement} */ (reason).value, text: text.value,
    });
    if (!r.ok) { error.textContent = errorText(r); return; }
    fill(el, h('p', { class: 'success', role: 'status', id: 'report-sent' }, t('report_sent')));
    say(t('report_sent'), true);
  });
  fill(el, h('details', { class: 'report-box' }, h('summary', null, t('report_title')), form));
}
