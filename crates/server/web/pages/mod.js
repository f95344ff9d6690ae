// The moderators' view at /mod (docs/community.md): the open reports with their evidence, a
// player's dossier with the actions (warn, close, reopen, mute, mark and unmark, lifting a wait
// before the next game), the accounts sharing its addresses and its signals, the players ranked
// by their signals, and the moderation log. Everything shown is what people typed, so it is
// built with h() only: never parsed as HTML.

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, fill } from '../lib/h.js';
import { main, setBody, say, errorText } from '../lib/dom.js';
import { when } from './care.js';

const ACTIONS = ['warn', 'close', 'reopen'];
/** A mute's lengths a moderator picks from, in minutes (0 lifts it). */
const MUTES = [60, 1440, 10080, 0];
/** The marks a moderator gives (docs/community.md, "Marks"). */
const MARKS = ['computer', 'booster'];

function gameLinks(games) {
  return h('ul', { class: 'mod-games' }, games.map((g) =>
    h('li', null, h('a', { href: '/g/' + encodeURIComponent(g.id), 'data-link': true }, g.id),
      ' ', g.result || '', g.rated ? ' · ' + t('mod_rated') : '')));
}

/** What a mark gave back, from its log line's detail; '' for any other line. */
function refunded(l) {
  const d = l.detail;
  if (!d || typeof d.refunds !== 'number') return '';
  return ' (' + t('mod_refunded', { refunds: d.refunds, points: Math.round(d.points) }) + ')';
}

function logList(lines) {
  if (!lines.length) return h('p', { class: 'note' }, t('mod_log_empty'));
  return h('ul', { class: 'mod-log' }, lines.map((l) => h('li', { dataset: { action: l.action } },
    h('time', null, when(l.at)), ' ', h('strong', null, l.moderator), ' ',
    t('mod_act_' + l.action) === 'mod_act_' + l.action ? l.action : t('mod_act_' + l.action),
    ' ', l.target, l.reason ? ': ' + l.reason : '', refunded(l))));
}

/** @param {number | null | undefined} x a share, 0 to 1 */
function percent(x) { return x === null || x === undefined ? '—' : Math.round(x * 100) + '%'; }
/** @param {number | null | undefined} x */
function decimal(x) { return x === null || x === undefined ? '—' : x.toFixed(2); }

/** One player's signals as a line of figures (wraps on a phone; no table to scroll). */
export function signalFigures(s) {
  const figures = [
    ['mod_sig_games', String(s.games)],
    ['mod_sig_first', percent(s.games ? s.first_choice : null)],
    ['mod_sig_loss', decimal(s.games ? s.mean_loss : null)],
    ['mod_sig_spread', decimal(s.time_spread)],
    ['mod_sig_left', percent(s.games ? s.left_lost : null)],
    ['mod_sig_wins', percent(s.games ? s.wins_from_one : null)],
    ['mod_sig_pending', String(s.pending)],
  ];
  return h('p', { class: 'mod-figures' }, figures.map(([key, value]) =>
    h('span', { class: 'mod-figure', dataset: { figure: key } }, t(key), ': ', h('strong', null, value))));
}

/**
 * A player's chat lines, newest first: when, the game and room, the words (as text, never
 * HTML), or the preset's words in the moderator's language.
 */
function chatList(lines) {
  if (!lines || !lines.length) return h('p', { class: 'note' }, t('mod_chat_none'));
  return h('ul', { class: 'mod-chat' }, lines.map((l) => h('li', { dataset: { room: l.room } },
    h('time', null, when(l.at)), ' · ',
    h('a', { href: (l.room === 'tournament' ? '/t/' : '/g/') + encodeURIComponent(l.game), 'data-link': true }, l.game), ' · ',
    t('chat_room_' + l.room), ': ',
    h('q', null, l.preset ? t('chat_preset_' + l.preset) : l.text))));
}

/** The other accounts seen from a player's addresses: name, which address, last seen. */
function sharedList(rows, open) {
  if (!rows || !rows.length) return h('p', { class: 'note' }, t('mod_shared_none'));
  return h('ul', { class: 'mod-shared' }, rows.map((r) => {
    const b = h('button', { type: 'button', class: 'mod-name' }, r.name);
    b.addEventListener('click', () => open(r.name));
    return h('li', { dataset: { player: r.name } }, b, ' · ', h('code', null, r.address), ' · ',
      h('time', null, when(r.last_seen)));
  }));
}

export class ModView {
  constructor() {
    setBody({ view: 'mod' });
    this.player = null;
    this.render();
  }

  refresh() { this.render(); }

  render() {
    document.title = t('app_title') + ' — ' + t('mod_title');
    this.queue = h('div', { id: 'mod-queue' });
    this.dossier = h('div', { id: 'mod-dossier' });
    this.log = h('div', { id: 'mod-log' });
    this.signals = h('div', { id: 'mod-signals' });
    const rank = h('button', { type: 'button', id: 'mod-signals-load' }, t('mod_signals_load'));
    rank.addEventListener('click', () => this.loadSignals());
    this.error = h('p', { class: 'error', role: 'alert', id: 'mod-error' });
    const input = /** @type {HTMLInputElement} */ (h('input', { id: 'mod-name', name: 'player', maxlength: 20, autocapitalize: 'none', spellcheck: 'false' }));
    const look = h('form', { id: 'mod-lookup', class: 'inline-form' },
      h('label', { for: 'mod-name' }, t('mod_player')), ' ', input, ' ',
      h('button', { type: 'submit' }, t('mod_look_up')));
    look.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (name) this.openPlayer(name);
    });
    fill(main,
      h('h1', null, t('mod_title')), this.error,
      h('section', { class: 'panel' }, h('h2', null, t('mod_queue')), this.queue),
      h('section', { class: 'panel' }, h('h2', null, t('mod_player')), look, this.dossier),
      h('section', { class: 'panel' }, h('h2', null, t('mod_signals')),
        h('p', { class: 'note' }, t('mod_signals_note')), rank, this.signals),
      h('section', { class: 'panel' }, h('h2', null, t('mod_log')), this.log));
    this.loadQueue();
    this.loadLog();
    if (this.player) this.openPlayer(this.player);
  }

  failed(r) {
    this.error.textContent = errorText(r);
  }

  async loadQueue() {
    const r = await api('GET', '/mod/reports');
    if (!r.ok) { this.failed(r); return; }
    if (!r.data.reports.length) { fill(this.queue, h('p', { class: 'note' }, t('mod_none'))); return; }
    fill(this.queue, h('ul', { class: 'mod-reports' }, r.data.reports.map((rep) => this.reportItem(rep))));
  }

  reportItem(rep) {
    const close = h('button', { type: 'button', class: 'mod-close-report' }, t('mod_close_report'));
    close.addEventListener('click', () => this.closeReport(rep.id));
    const open = h('button', { type: 'button', class: 'mod-open-player' }, t('mod_look_up'));
    open.addEventListener('click', () => this.openPlayer(rep.target));
    const games = (rep.evidence && rep.evidence.games) || [];
    const shared = (rep.evidence && rep.evidence.addresses) || [];
    const chat = (rep.evidence && rep.evidence.chat) || [];
    return h('li', { class: 'mod-report', dataset: { report: rep.id } },
      h('p', null, h('time', null, when(rep.at)), ' ', h('strong', null, rep.reporter), ' → ',
        h('strong', { class: 'mod-target' }, rep.target), ' · ', t('report_reason_' + rep.reason)),
      rep.text ? h('blockquote', null, rep.text) : null,
      h('p', { class: 'note mod-evidence' }, t('mod_evidence_games', { n: games.length })),
      games.length ? gameLinks(games) : null,
      h('p', { class: 'note mod-evidence-shared' }, t('mod_evidence_shared', { n: shared.length })),
      shared.length ? sharedList(shared, (n) => this.openPlayer(n)) : null,
      h('p', { class: 'note mod-evidence-chat' }, t('mod_evidence_chat', { n: chat.length })),
      chat.length ? chatList(chat) : null,
      h('p', null, open, ' ', close));
  }

  async closeReport(id) {
    const r = await api('POST', `/mod/reports/${encodeURIComponent(id)}/close`, { reason: '' });
    if (!r.ok) { this.failed(r); return; }
    say(t('mod_done'), true);
    this.loadQueue();
    this.loadLog();
  }

  async loadSignals() {
    fill(this.signals, h('p', { class: 'note' }, t('mod_signals_wait')));
    const r = await api('GET', '/mod/signals');
    if (!r.ok) { this.failed(r); fill(this.signals); return; }
    if (!r.data.players.length) { fill(this.signals, h('p', { class: 'note' }, t('mod_sig_none'))); return; }
    fill(this.signals, h('ol', { class: 'mod-ranked' }, r.data.players.map((p) => {
      const b = h('button', { type: 'button', class: 'mod-name' }, p.name);
      b.addEventListener('click', () => this.openPlayer(p.name));
      return h('li', { dataset: { player: p.name } }, h('strong', null, b), signalFigures(p));
    })));
  }

  async loadLog() {
    const r = await api('GET', '/mod/log');
    if (!r.ok) { this.failed(r); return; }
    fill(this.log, logList(r.data.log));
  }

  async openPlayer(name) {
    this.player = name;
    const r = await api('GET', '/mod/players/' + encodeURIComponent(name));
    if (!r.ok) { this.failed(r); return; }
    const d = r.data;
    const reason = h('input', { id: 'mod-reason', maxlength: 500 });
    const buttons = ACTIONS.map((a) => {
      const b = h('button', { type: 'button', dataset: { action: a } }, t('mod_do_' + a));
      b.addEventListener('click', () => this.act(d.name, a, /** @type {HTMLInputElement} */ (reason).value));
      return b;
    });
    const length = h('select', { id: 'mod-mute-minutes', 'aria-label': t('mod_do_mute') },
      MUTES.map((m) => h('option', { value: String(m) }, t('mod_mute_' + m))));
    const mute = h('button', { type: 'button', dataset: { action: 'mute' } }, t('mod_do_mute'));
    mute.addEventListener('click', () => this.act(d.name, 'mute', /** @type {HTMLInputElement} */ (reason).value,
      Number(/** @type {HTMLSelectElement} */ (length).value)));
    buttons.push(mute, length);
    const marks = (d.marks || []).map((m) => m.kind);
    for (const kind of MARKS) {
      const action = (marks.includes(kind) ? 'unmark-' : 'mark-') + kind;
      const b = h('button', { type: 'button', dataset: { action } }, t('mod_do_' + action));
      b.addEventListener('click', () => this.act(d.name, action, /** @type {HTMLInputElement} */ (reason).value));
      buttons.push(b);
    }
    fill(this.dossier, h('article', { class: 'mod-player', dataset: { player: d.name } },
      h('h3', null, h('a', { href: '/@/' + encodeURIComponent(d.name), 'data-link': true }, d.name),
        d.closed ? ' · ' + t('mod_closed_mark') : '', d.moderator ? ' · ' + t('mod_is_moderator') : '',
        marks.map((k) => h('span', { class: 'mod-mark', dataset: { mark: k } }, ' · ' + t('mod_mark_' + k)))),
      h('p', null, t('mod_counts', { games: d.counts.games, about: d.reports_about.length, by: d.reports_by.length })),
      gameLinks(d.games.slice(0, 20)),
      h('div', { class: 'field' }, h('label', { for: 'mod-reason' }, t('mod_reason')), reason),
      h('p', { class: 'account-links' }, buttons),
      h('h4', null, t('mod_shared')), sharedList(d.shared_address, (n) => this.openPlayer(n)),
      h('h4', null, t('mod_chat')), chatList(d.chat),
      h('h4', null, t('mod_signals')), d.signals ? signalFigures(d.signals) : null,
      this.waitPart(d, () => /** @type {HTMLInputElement} */ (reason).value),
      h('h4', null, t('mod_log')), logList(d.log)));
  }

  /** The player's offences and current wait, with the Lift button while it runs. */
  waitPart(d, reason) {
    const lift = h('button', { type: 'button', dataset: { action: 'lift-wait' } }, t('mod_do_lift_wait'));
    lift.addEventListener('click', () => this.act(d.name, 'lift-wait', reason()));
    const offences = d.offences || [];
    return h('div', { class: 'mod-offences' },
      h('h4', null, t('mod_offences')),
      d.wait ? h('p', { class: 'mod-wait', dataset: { until: String(d.wait.until) } },
        t('mod_wait_until', { until: when(d.wait.until) }), ' ', lift) : h('p', { class: 'note' }, t('mod_no_wait')),
      offences.length ? h('ul', null, offences.map((o) => h('li', { dataset: { kind: o.kind } },
        h('time', null, when(o.at)), ' ', t('mod_offence_' + o.kind), ' · ',
        h('a', { href: '/g/' + encodeURIComponent(o.game), 'data-link': true }, o.game))))
        : h('p', { class: 'note' }, t('mod_no_offences')));
  }

  /** @param {string} name @param {string} action @param {string} reason @param {number} [minutes] for a mute */
  async act(name, action, reason, minutes) {
    const body = minutes === undefined ? { reason } : { reason, minutes };
    const r = await api('POST', `/mod/players/${encodeURIComponent(name)}/${action}`, body);
    if (!r.ok) { this.failed(r); return; }
    say(t('mod_done'), true);
    this.openPlayer(name);
    this.loadLog();
  }
}
