// A game's chat panel (issue 38): the players' room and, for spectators, the spectators' room
// (players read it once the game is over). Lines are built with lib/h.js: what people typed
// goes in as text, never as HTML. Chat can be turned off in this browser: then no line shows.

import { h, fill } from '../../lib/h.js';
import { t } from '../../i18n.js';
import { account, loadAccount } from '../../account.js';

const PRESETS = ['good_luck', 'well_played', 'thank_you', 'rematch'];
/** Lines kept per room on the page (the server sends the last 100 on connecting). */
const KEEP = 200;
const OFF_KEY = 'anywoli.chat';

function chatOff() {
  try { return localStorage.getItem(OFF_KEY) === 'off'; } catch { return false; }
}

export class ChatPanel {
  /** `el`: the panel's element; `send(msg)` sends on the game's socket (false when it cannot);
   * `previous`: the panel this one replaces (a new language), whose lines it keeps. */
  constructor(el, send, previous) {
    this.el = el;
    this.send = send;
    this.lines = previous ? previous.lines : { players: [], spectators: [] };
    this.seated = previous ? previous.seated : false;
    this.over = previous ? previous.over : false;
    this.waiting = false;
    this.build();
    // Who writes is known once the account is (asked of the server once per page).
    loadAccount().then(() => this.build());
  }

  /** Where this reader stands: in a seat or not, the game over or not. */
  setRole(seated, over) {
    if (seated === this.seated && over === this.over) return;
    this.seated = seated;
    this.over = over;
    this.build();
  }

  /** A line heard on the socket. */
  add(m) {
    const list = this.lines[m.room];
    if (!list || list.some((l) => l.id === m.id)) return;
    list.push(m);
    if (list.length > KEEP) list.shift();
    this.waiting = false;
    this.showError('');
    this.showLines();
  }

  /** An error heard on the socket: the chat's if it answers a line sent. */
  refused(m) {
    if (!this.waiting) return false;
    this.waiting = false;
    this.showError(t('err_' + m.error));
    return true;
  }

  rooms() {
    return this.seated && !this.over ? ['players'] : ['players', 'spectators'];
  }

  build() {
    const off = chatOff();
    const toggle = h('button', { type: 'button', id: 'chat-toggle', 'aria-pressed': off ? 'true' : 'false' },
      t(off ? 'chat_turn_on' : 'chat_turn_off'));
    toggle.addEventListener('click', () => {
      try { localStorage.setItem(OFF_KEY, off ? 'on' : 'off'); } catch { /* kept for this page only */ }
      this.build();
    });
    this.list = h('div', { class: 'chat-rooms' });
    this.error = h('p', { class: 'error', role: 'alert', hidden: true });
    fill(this.el,
      h('div', { class: 'chat-head' }, h('h2', { id: 'chat-heading' }, t('chat_title')), toggle),
      off ? h('p', { class: 'note', id: 'chat-off' }, t('chat_is_off')) : [
        this.list,
        this.seated && !this.over ? h('p', { class: 'note' }, t('chat_spectators_later')) : null,
        this.form(),
        this.error,
      ]);
    if (!off) this.showLines();
  }

  /** What this reader may write with: a line, the presets, or a word on why neither. */
  form() {
    const room = this.seated ? 'players' : 'spectators';
    if (!account()) {
      if (!this.seated) return h('p', { class: 'note' }, t('chat_log_in'));
      return h('div', { class: 'chat-presets', role: 'group', 'aria-label': t('chat_title') },
        PRESETS.map((p) => {
          const b = h('button', { type: 'button', dataset: { preset: p } }, t('chat_preset_' + p));
          b.addEventListener('click', () => this.say({ type: 'chat', room, preset: p }));
          return b;
        }));
    }
    const input = /** @type {HTMLInputElement} */ (h('input', { id: 'chat-input', maxlength: 140, autocomplete: 'off',
      'aria-label': t(room === 'players' ? 'chat_say_players' : 'chat_say_spectators'),
      placeholder: t(room === 'players' ? 'chat_say_players' : 'chat_say_spectators') }));
    const form = h('form', { class: 'chat-form' }, input, h('button', { type: 'submit' }, t('chat_send')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (text && this.say({ type: 'chat', room, text })) input.value = '';
    });
    return form;
  }

  say(msg) {
    this.waiting = true;
    const sent = this.send(msg);
    if (!sent) {
      this.waiting = false;
      this.showError(t('connection_lost'));
    }
    return sent;
  }

  showError(text) {
    if (!this.error) return;
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  showLines() {
    if (!this.list || chatOff()) return;
    fill(this.list, this.rooms().map((room) => h('section', { class: 'chat-room', dataset: { room } },
      h('h3', null, t('chat_room_' + room)),
      h('ol', { class: 'chat-lines', 'aria-live': 'polite' },
        this.lines[room].map((l) => h('li', null,
          h('strong', null, l.author || (l.side ? t(l.side) : '')), ' ',
          l.text !== undefined ? l.text : t('chat_preset_' + l.preset)))))));
    for (const ol of this.list.querySelectorAll('ol')) ol.scrollTop = ol.scrollHeight;
  }
}
