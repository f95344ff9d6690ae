// A tournament's chat (docs/tournaments.md): one room on the tournament's events socket, read by
// everyone who watches and written by accounts. Lines are what people typed: built with h()
// only, never parsed as HTML. The game chat's off switch turns this one off too.

import { t } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { profilePath } from '../../account.js';

const OFF_KEY = 'anywoli.chat';
/** Lines kept on the page. */
const KEEP = 100;

function chatOff() {
  try { return localStorage.getItem(OFF_KEY) === 'off'; } catch { return false; }
}

export class TournamentChatPanel {
  /**
   * @param {(msg: object) => boolean} send sends a message on the socket; false when closed
   * @param {boolean} loggedIn whether the reader may write
   */
  constructor(send, loggedIn) {
    this.send = send;
    this.loggedIn = loggedIn;
    /** @type {Array<{id: string, author?: string, text?: string}>} */
    this.lines = [];
    this.waiting = false;
    this.element = h('section', { class: 'panel tm-chat', id: 'tm-chat', 'aria-labelledby': 'tm-chat-heading' });
    this.build();
  }

  build() {
    const off = chatOff();
    const toggle = h('button', { type: 'button', id: 'tm-chat-toggle', 'aria-pressed': off ? 'true' : 'false' },
      t(off ? 'chat_turn_on' : 'chat_turn_off'));
    toggle.addEventListener('click', () => {
      try { localStorage.setItem(OFF_KEY, chatOff() ? 'on' : 'off'); } catch { /* kept for this page only */ }
      this.build();
    });
    this.list = h('ol', { class: 'chat-lines', id: 'tm-chat-lines', 'aria-live': 'polite' });
    this.error = h('p', { class: 'error', role: 'alert', hidden: true });
    let writer = h('p', { class: 'note' }, t('chat_log_in'));
    if (this.loggedIn) {
      const input = /** @type {HTMLInputElement} */ (h('input', { id: 'tm-chat-input', maxlength: 140, autocomplete: 'off',
        'aria-label': t('tm_chat_say'), placeholder: t('tm_chat_say') }));
      const form = h('form', { class: 'chat-form' }, input, h('button', { type: 'submit' }, t('chat_send')));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        if (this.send({ type: 'chat', text })) {
          this.waiting = true;
          input.value = '';
        } else {
          this.showError(t('connection_lost'));
        }
      });
      writer = form;
    }
    fill(this.element, h('div', { class: 'chat-head' }, h('h2', { id: 'tm-chat-heading' }, t('chat_title')), toggle),
      off ? h('p', { class: 'note' }, t('chat_is_off')) : [this.list, writer, this.error]);
    this.showLines();
  }

  /** A line heard on the socket. */
  add(line) {
    if (!line || this.lines.some((l) => l.id === line.id)) return;
    this.lines.push(line);
    if (this.lines.length > KEEP) this.lines.shift();
    if (this.waiting) { this.waiting = false; this.showError(''); }
    this.showLines();
  }

  /** An error heard on the socket: the chat's if it answers a line sent. */
  refused(m) {
    if (!this.waiting) return;
    this.waiting = false;
    this.showError(t('err_' + m.error));
  }

  showError(text) {
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  showLines() {
    if (chatOff()) return;
    fill(this.list, this.lines.map((l) => h('li', null,
      h('a', { href: profilePath(l.author || ''), 'data-link': true }, h('strong', null, l.author || '')), ' ', l.text || '')));
    this.list.scrollTop = this.list.scrollHeight;
  }
}
