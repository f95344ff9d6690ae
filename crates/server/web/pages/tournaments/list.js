// The tournaments at /tournaments (docs/tournaments.md, "On the site"): those running, those to
// come and those finished, and for a logged-in reader the form that creates one.

import { api } from '../../api.js';
import { t, tn, currentLang } from '../../i18n.js';
import { clockName } from '../../clock.js';
import { onAccount, loadAccount, post, profilePath } from '../../account.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody, errorText } from '../../lib/dom.js';
import { navigate } from '../../lib/nav.js';
import { rulesList } from '../lobby/layout.js';
import { variantName } from '../lobby/terms.js';
import { SYSTEMS, TOURNAMENT_CLOCKS, systemName, statusName, roundText, tournamentBody, localDateTime } from './terms.js';

/** What the system cell says: the system, and an arena's length or a Swiss's rounds. */
function systemText(tour) {
  const extra = tour.system === 'arena' && tour.minutes ? tn('tm_minutes_n', tour.minutes)
    : tour.system === 'swiss' && tour.rounds ? tn('tm_rounds_n', tour.rounds)
      : tour.system === 'round-robin' && tour.double ? t('tm_double_short') : '';
  return extra ? `${systemName(tour.system)} · ${extra}` : systemName(tour.system);
}

/** The "when" cell: the start to come, the round or state under way, the end and winner. */
function whenCell(tour, dateFmt) {
  if (tour.status === 'upcoming') return dateFmt.format(new Date(tour.starts_at));
  if (tour.status === 'running') {
    const until = tour.system === 'arena' && typeof tour.ends_at === 'number'
      ? t('tm_until', { time: new Intl.DateTimeFormat(currentLang(), { timeStyle: 'short' }).format(new Date(tour.ends_at)) }) : '';
    return [statusName('running'), roundText(tour), until].filter(Boolean).join(' · ');
  }
  const when = typeof tour.ends_at === 'number' ? dateFmt.format(new Date(tour.ends_at)) : '';
  return [
    tour.status === 'cancelled' ? statusName('cancelled') + (when ? ' · ' : '') : null,
    when,
    tour.winner ? [' · 🏆 ', h('a', { href: profilePath(tour.winner), 'data-link': true }, tour.winner)] : null,
  ];
}

/** A list of tournaments as a table (one card per tournament on a phone). */
function table(list, whenKey) {
  const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' });
  const th = (key, cls) => h('th', { scope: 'col', class: cls }, t(key));
  const td = (key, value, cls) => h('td', { 'data-label': t(key), class: cls }, value);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'archive tournaments' },
    h('thead', null, h('tr', null, th('tm_col_name'), th('tm_col_system'), th('clock'), th('tm_col_players', 'num'), th(whenKey))),
    h('tbody', null, list.map((tour) => h('tr', { dataset: { tournament: tour.id } },
      td('tm_col_name', [
        h('a', { href: '/t/' + encodeURIComponent(tour.id), 'data-link': true, class: 'tm-name' }, tour.name),
        tour.private ? h('span', { class: 'tm-lock', title: t('tm_private'), 'aria-label': t('tm_private'), role: 'img' }, ' 🔒') : null,
      ]),
      td('tm_col_system', systemText(tour)),
      td('clock', [clockName(tour.clock), ' · ', t(tour.rated ? 'rated' : 'casual'),
        tour.rules && tour.rules !== 'anywoli' ? ' · ' + variantName(tour.rules) : '']),
      td('tm_col_players', String(tour.players), 'num'),
      td(whenKey, whenCell(tour, dateFmt)))))));
}

/** A labelled field: `<div class="field"><label for=id>…</label>control…</div>`. */
function field(id, key, control, ...rest) {
  return h('div', { class: 'field', id: id + '-field' }, h('label', { for: id }, t(key)), control, ...rest);
}

/** A radio button with its words. */
function radio(name, value, key, checked = false) {
  return h('label', { class: 'choice' }, h('input', { type: 'radio', name, value, checked }), ' ', t(key));
}

export class TournamentsView {
  constructor() {
    setBody({ view: 'tournaments' });
    this.data = null;
    this.error = null;
    this.render();
    this.load();
    this.timer = setInterval(() => this.load(), 30000);
    this.unlisten = onAccount(() => this.showForm());
  }

  destroy() {
    clearInterval(this.timer);
    this.unlisten();
  }

  refresh() {
    this.render();
    this.showLists();
  }

  render() {
    document.title = t('app_title') + ' — ' + t('tm_title');
    this.lists = h('div', { id: 'tm-lists', 'aria-live': 'polite' }, t('loading'));
    this.formBox = h('section', { class: 'panel tm-create', 'aria-labelledby': 'tm-create-heading', id: 'tm-create' });
    fill(main, h('section', { class: 'panel' },
      h('h1', null, t('tm_title')),
      h('p', { class: 'note' }, t('tm_intro')),
      this.lists), this.formBox);
    this.showForm();
  }

  async load() {
    const r = await api('GET', '/tournaments');
    if (!r.ok) {
      this.error = errorText(r);
      if (!this.data) fill(this.lists, h('p', { class: 'error', role: 'alert' }, this.error));
      return;
    }
    this.data = r.data;
    this.showLists();
  }

  showLists() {
    const d = this.data;
    if (!d) return;
    const part = (key, list, whenKey, id) => h('section', { 'aria-labelledby': id },
      h('h2', { id }, t(key)),
      list && list.length ? table(list, whenKey) : h('p', { class: 'note' }, t('tm_none')));
    setBody({ tournaments: String((d.running || []).length + (d.upcoming || []).length + (d.finished || []).length) });
    fill(this.lists,
      part('tm_running', d.running, 'tm_col_now', 'tm-running'),
      part('tm_upcoming', d.upcoming, 'tm_col_starts', 'tm-upcoming'),
      part('tm_finished', d.finished, 'tm_col_ended', 'tm-finished'));
  }

  /** The creation form for a logged-in reader; a link to log in for others. */
  async showForm() {
    const me = await loadAccount();
    const box = this.formBox;
    if (!box.isConnected) return;
    if (!me) {
      fill(box, h('h2', { id: 'tm-create-heading' }, t('tm_create')),
        h('p', { class: 'note' }, t('tm_create_needs_login'), ' ',
          h('a', { href: '/account?next=/tournaments', 'data-link': true }, t('log_in'))));
      return;
    }
    if (box.querySelector('form')) return;
    const input = (attrs) => /** @type {HTMLInputElement} */ (h('input', attrs));
    const name = input({ id: 'tm-name', name: 'name', type: 'text', maxlength: 40, required: true, autocomplete: 'off' });
    const clock = /** @type {HTMLSelectElement} */ (h('select', { id: 'tm-clock', name: 'clock' },
      TOURNAMENT_CLOCKS.map((c) => h('option', { value: c, selected: c === '3+2' }, clockName(c))),
      h('option', { value: 'other' }, t('tm_clock_other'))));
    const clockOther = input({ id: 'tm-clock-other', name: 'clockOther', type: 'text', inputmode: 'decimal', placeholder: '15+10', maxlength: 10, 'aria-label': t('tm_clock_other'), hidden: true });
    const rules = /** @type {HTMLSelectElement} */ (h('select', { id: 'tm-rules', name: 'rules' }, h('option', { value: 'anywoli' }, variantName('anywoli'))));
    rulesList().then((list) => {
      fill(rules, list.map((r) => h('option', { value: r, selected: r === 'anywoli' }, variantName(r))));
    });
    const rated = input({ id: 'tm-rated', name: 'rated', type: 'checkbox', checked: true });
    const startsAt = input({ id: 'tm-starts-at', name: 'startsAt', type: 'datetime-local', 'aria-label': t('tm_start_at'),
      value: localDateTime(Math.ceil((Date.now() + 3600000) / 300000) * 300000), hidden: true });
    const minutes = input({ id: 'tm-minutes', name: 'minutes', type: 'number', inputmode: 'numeric', min: 20, max: 180, step: 5, value: 60 });
    const rounds = input({ id: 'tm-rounds', name: 'rounds', type: 'number', inputmode: 'numeric', min: 3, max: 15, value: 5 });
    const double = input({ id: 'tm-double', name: 'double', type: 'checkbox' });
    const gap = input({ id: 'tm-gap', name: 'gap', type: 'number', inputmode: 'numeric', min: 0, max: 86400, value: 60, 'aria-label': t('tm_pace_gap_seconds'), hidden: true });
    const minRating = input({ id: 'tm-min-rating', name: 'minRating', type: 'number', inputmode: 'numeric', min: 0, max: 4000, step: 50 });
    const minGames = input({ id: 'tm-min-games', name: 'minRatedGames', type: 'number', inputmode: 'numeric', min: 0 });
    const password = input({ id: 'tm-password', name: 'password', type: 'text', autocomplete: 'off', maxlength: 100, 'aria-describedby': 'tm-password-note' });
    const description = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: 'tm-description', name: 'description', rows: 4, maxlength: 1000 }));
    const about = h('p', { class: 'note', id: 'tm-system-note' });
    const error = h('p', { class: 'error', id: 'tm-error', role: 'alert' });
    const submit = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary', id: 'tm-submit' }, t('tm_create_button')));
    const form = /** @type {HTMLFormElement} */ (h('form', { id: 'tm-form', class: 'tm-form', novalidate: true },
      field('tm-name', 'tm_name', name),
      h('fieldset', { id: 'tm-system-field' }, h('legend', null, t('tm_col_system')),
        SYSTEMS.map((s) => radio('system', s, 'tm_system_' + s.replace('-', '_'), s === 'arena')), about),
      field('tm-clock', 'clock', h('div', { class: 'tm-clock-row' }, clock, clockOther), h('p', { class: 'note' }, t('tm_clock_note'))),
      field('tm-rules', 'rules_variant', rules),
      h('div', { class: 'field' }, h('label', { class: 'choice' }, rated, ' ', t('rated'))),
      h('fieldset', { id: 'tm-start-field' }, h('legend', null, t('tm_start')),
        radio('start', 'now', 'tm_start_now', true), radio('start', 'later', 'tm_start_later'), startsAt),
      field('tm-minutes', 'tm_minutes', minutes, h('p', { class: 'note' }, t('tm_minutes_note'))),
      field('tm-rounds', 'tm_rounds', rounds, h('p', { class: 'note' }, t('tm_rounds_note'))),
      h('div', { class: 'field', id: 'tm-double-field' }, h('label', { class: 'choice' }, double, ' ', t('tm_double')),
        h('p', { class: 'note' }, t('tm_rr_note'))),
      h('fieldset', { id: 'tm-pace-field' }, h('legend', null, t('tm_pace')),
        radio('pace', 'auto', 'tm_pace_auto', true), radio('pace', 'gap', 'tm_pace_gap'), gap, radio('pace', 'manual', 'tm_pace_manual')),
      h('details', { class: 'tm-more' }, h('summary', null, t('tm_more')),
        field('tm-min-rating', 'tm_min_rating', minRating),
        field('tm-min-games', 'tm_min_rated_games', minGames),
        field('tm-password', 'password', password, h('p', { class: 'note', id: 'tm-password-note' }, t('tm_password_note'))),
        h('div', { class: 'field tm-description-field' }, h('label', { for: 'tm-description' }, t('tm_description')), description)),
      submit, error));
    const sync = () => {
      const system = form.elements['system'].value;
      const later = form.elements['start'].value === 'later';
      const pace = form.elements['pace'].value;
      about.textContent = t('tm_about_' + system.replace('-', '_'));
      clockOther.hidden = clock.value !== 'other';
      startsAt.hidden = !later;
      main.querySelector('#tm-minutes-field').toggleAttribute('hidden', system !== 'arena');
      main.querySelector('#tm-rounds-field').toggleAttribute('hidden', system !== 'swiss');
      main.querySelector('#tm-double-field').toggleAttribute('hidden', system !== 'round-robin');
      main.querySelector('#tm-pace-field').toggleAttribute('hidden', system === 'arena');
      gap.hidden = pace !== 'gap';
    };
    form.addEventListener('change', sync);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const { body, error: bad } = tournamentBody({
        name: name.value, system: form.elements['system'].value, clock: clock.value, clockOther: clockOther.value,
        rated: rated.checked, rules: rules.value, start: form.elements['start'].value, startsAt: startsAt.value,
        minutes: minutes.value, rounds: rounds.value, double: double.checked, pace: form.elements['pace'].value,
        gap: gap.value, minRating: minRating.value, minRatedGames: minGames.value, password: password.value,
        description: description.value,
      });
      if (bad) { error.textContent = t(bad); return; }
      error.textContent = '';
      submit.disabled = true;
      const r = await post('/tournaments', body);
      submit.disabled = false;
      if (!r.ok) { error.textContent = errorText(r); return; }
      // A private tournament's page opens with its invite link (the password after `#p=`).
      const invite = password.value ? '#p=' + encodeURIComponent(password.value) : '';
      navigate('/t/' + encodeURIComponent(r.data.tournament.id) + invite);
    });
    fill(box, h('h2', { id: 'tm-create-heading' }, t('tm_create')), form);
    sync();
  }
}
