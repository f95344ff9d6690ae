// The Lobby view, part 1 of 2: its HTML (open seeks with their filter, a seek's form,
// challenges, live games) and what each control does.

import { api } from '../../api.js';
import { esc } from '../../common.js';
import { t } from '../../i18n.js';
import { clockName } from '../../clock.js';
import { account } from '../../account.js';
import { main } from '../../lib/dom.js';
import { SEEK_CLOCKS, DEFAULT_SEEK_CLOCK, variantName, categoryName, SPEEDS, loadFilter, saveFilter } from './terms.js';
import { lobby } from './connection.js';
import { acceptChallenge, declineChallenge } from './challenges.js';
import { showWait } from './wait.js';

let rulesPromise = null;
export function rulesList() {
  if (!rulesPromise) {
    rulesPromise = api('GET', '/rules').then((r) => {
      if (r.ok && Array.isArray(r.data.rules)) return r.data.rules.map((x) => x.name);
      rulesPromise = null;
      return ['anywoli'];
    });
  }
  return rulesPromise;
}

export class LobbyLayout {
  // The view's state, shared by its parts: declared where their chain begins, set by the view
  // and its parts.
  /** @type {any} */ filter;
  /** @type {any} */ live;
  /** @type {any} */ liveTimer;
  /** @type {any} */ myRatings;
  /** @type {any} */ note;
  /** @type {any} */ onChallenges;
  /** @type {any} */ prefilled;
  /** @type {any} */ ratingsOf;
  /** @type {any} */ rules;
  /** @type {any} */ unlisten;
  /** @type {any} */ unsub;

  render() {
    const me = account();
    if (!this.filter) this.filter = loadFilter();
    this.loadMyRatings();
    document.title = t('app_title') + ' — ' + t('lobby_title');
    const f = this.filter;
    const speeds = ['', ...SPEEDS].map((c) => `<option value="${c}"${c === f.speed ? ' selected' : ''}>${esc(c ? categoryName(c) : t('filter_any'))}</option>`).join('');
    const kinds = ['', 'rated', 'casual'].map((k) => `<option value="${k}"${k === f.kind ? ' selected' : ''}>${esc(k ? t(k) : t('filter_any'))}</option>`).join('');
    const filterOpen = f.min !== '' || f.max !== '' || f.speed || f.kind;
    const clocks = SEEK_CLOCKS.map((c) => `<option value="${c}"${c === DEFAULT_SEEK_CLOCK ? ' selected' : ''}>${esc(clockName(c))}</option>`).join('');
    const sides = (name, def) => ['random', 'south', 'north'].map((s) => `
      <label class="choice"><input type="radio" name="${name}" value="${s}"${s === def ? ' checked' : ''}> ${esc(s === 'random' ? t('side_random_choice') : t(s))}</label>`).join('');
    const loginLink = `<a href="/account?next=/lobby" data-link>${esc(t('log_in'))}</a>`;
    main.innerHTML = `
      <h1 class="sr-only">${esc(t('lobby_title'))}</h1>
      <p class="note play-wait" id="play-wait" role="status" hidden></p>
      <div class="lobby-layout">
        <div class="lobby-main">
          <section class="panel" aria-labelledby="seeks-heading">
            <h2 id="seeks-heading">${esc(t('open_seeks'))}</h2>
            <p class="note" id="lobby-connection" role="status"></p>
            <p class="error" id="lobby-note" role="alert"></p>
            <details class="lobby-filter" id="seek-filter"${filterOpen ? ' open' : ''}>
              <summary>${esc(t('filter_title'))}</summary>
              <form id="filter-form" class="filter-form" novalidate>
                <fieldset class="range"><legend>${esc(t('filter_rating'))}</legend>
                  <div class="range-row">
                    <label for="filter-min">${esc(t('range_min'))}</label><input id="filter-min" name="min" type="number" inputmode="numeric" min="0" max="4000" step="50" value="${esc(String(f.min))}">
                    <label for="filter-max">${esc(t('range_max'))}</label><input id="filter-max" name="max" type="number" inputmode="numeric" min="0" max="4000" step="50" value="${esc(String(f.max))}">
                  </div>
                </fieldset>
                <div class="field"><label for="filter-speed">${esc(t('filter_speed'))}</label>
                  <select id="filter-speed" name="speed">${speeds}</select></div>
                <div class="field"><label for="filter-kind">${esc(t('filter_kind'))}</label>
                  <select id="filter-kind" name="kind">${kinds}</select></div>
                <p class="note">${esc(t('filter_note'))}</p>
              </form>
            </details>
            <p class="note" id="filter-hidden" hidden><span></span> <button type="button" id="filter-clear">${esc(t('filter_clear'))}</button></p>
            <div id="seeks"></div>
          </section>
          <section class="panel" aria-labelledby="seek-heading">
            <h2 id="seek-heading">${esc(t('create_seek'))}</h2>
            <form id="seek-form" class="lobby-form" novalidate>
              <div class="field"><label for="seek-rules">${esc(t('rules_variant'))}</label>
                <select id="seek-rules" name="rules"></select></div>
              <div class="field"><label for="seek-clock">${esc(t('clock'))}</label>
                <select id="seek-clock" name="clock">${clocks}</select></div>
              <fieldset><legend>${esc(t('your_side'))}</legend>${sides('side', 'random')}</fieldset>
              <div class="field">
                <label class="choice"><input type="checkbox" id="seek-rated" name="rated"${me ? '' : ' disabled'} aria-describedby="seek-rated-note"> ${esc(t('rated'))}</label>
                <p class="note" id="seek-rated-note">${me ? esc(t('rated_note')) : `${esc(t('rated_needs_login'))} ${loginLink}`}</p>
              </div>
              <fieldset class="range"><legend>${esc(t('rating_range'))}</legend>
                <div class="range-row">
                  <label for="seek-min">${esc(t('range_min'))}</label><input id="seek-min" name="min" type="number" inputmode="numeric" min="0" max="4000" step="50">
                  <label for="seek-max">${esc(t('range_max'))}</label><input id="seek-max" name="max" type="number" inputmode="numeric" min="0" max="4000" step="50">
                </div>
                <p class="note">${esc(t('range_note'))}</p>
              </fieldset>
              <button type="submit" class="primary" id="seek-submit">${esc(t('create_seek_button'))}</button>
              <p class="error" id="seek-error" role="alert"></p>
            </form>
          </section>
        </div>
        <div class="lobby-side">
          <section class="panel" aria-labelledby="challenges-heading">
            <h2 id="challenges-heading">${esc(t('challenges'))}</h2>
            <div id="challenges"></div>
            <h3>${esc(t('challenge_player'))}</h3>
            ${me ? `
            <form id="challenge-form" class="lobby-form" novalidate>
              <div class="field"><label for="ch-to">${esc(t('player_name'))}</label>
                <input id="ch-to" name="to" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="20" required></div>
              <div class="field"><label for="ch-rules">${esc(t('rules_variant'))}</label>
                <select id="ch-rules" name="rules"></select></div>
              <div class="field"><label for="ch-clock">${esc(t('clock'))}</label>
                <select id="ch-clock" name="clock"><option value="">${esc(clockName(''))}</option>${clocks}</select></div>
              <fieldset><legend>${esc(t('your_side'))}</legend>${sides('chside', 'random')}</fieldset>
              <div class="field">
                <label class="choice"><input type="checkbox" id="ch-rated" name="rated" aria-describedby="ch-rated-note"> ${esc(t('rated'))}</label>
                <p class="note" id="ch-rated-note" hidden>${esc(t('rated_needs_clock'))}</p>
              </div>
              <button type="submit" class="primary">${esc(t('challenge_button'))}</button>
              <p class="error" id="challenge-error" role="alert"></p>
            </form>` : `<p class="note">${esc(t('challenge_needs_login'))} ${loginLink}</p>`}
          </section>
          <section class="panel" aria-labelledby="watch-heading">
            <h2 id="watch-heading">${esc(t('watch'))}</h2>
            <div id="watch"></div>
          </section>
        </div>
      </div>`;
    this.fillRules();
    this.showSeeks();
    this.showChallenges();
    this.showLive();
    this.showConnection();
    this.showNote();
    if (me) showWait(main.querySelector('#play-wait'));
    main.querySelector('#seek-form').addEventListener('submit', (e) => { e.preventDefault(); this.createSeek(); });
    const ff = /** @type {HTMLFormElement} */ (main.querySelector('#filter-form'));
    const readFilter = () => {
      const num = (v) => {
        const n = Math.round(Number(v.trim()));
        return v.trim() !== '' && Number.isFinite(n) ? Math.min(4000, Math.max(0, n)) : '';
      };
      this.filter = { min: num(ff.min.value), max: num(ff.max.value), speed: ff.speed.value, kind: ff.kind.value };
      saveFilter(this.filter);
      this.showSeeks();
    };
    ff.addEventListener('input', readFilter);
    ff.addEventListener('change', readFilter);
    ff.addEventListener('submit', (e) => e.preventDefault());
    main.querySelector('#filter-clear').addEventListener('click', () => {
      ff.reset();
      for (const el of [ff.min, ff.max]) el.value = '';
      ff.speed.value = '';
      ff.kind.value = '';
      readFilter();
      /** @type {HTMLInputElement} */ (main.querySelector('#seek-filter summary')).focus();
    });
    const cf = /** @type {HTMLFormElement} */ (main.querySelector('#challenge-form'));
    if (cf) {
      cf.addEventListener('submit', (e) => { e.preventDefault(); this.challenge(); });
      // A rated game needs a clock: its rating category comes from it.
      const syncRated = () => {
        const untimed = !cf.clock.value;
        cf.rated.disabled = untimed;
        if (untimed) cf.rated.checked = false;
        /** @type {HTMLInputElement} */ (main.querySelector('#ch-rated-note')).hidden = !untimed;
      };
      cf.clock.addEventListener('change', syncRated);
      syncRated();
      // A profile's "Challenge" button comes here with the name filled in.
      const pre = new URLSearchParams(location.search).get('challenge');
      if (pre && !this.prefilled) {
        this.prefilled = true;
        cf.to.value = pre;
        cf.to.focus();
      }
    }
    main.querySelector('#seeks').addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-seek]');
      if (!b) return;
      this.note = '';
      this.showNote();
      if (b.dataset.action === 'cancel') lobby.cancel(b.dataset.seek);
      else lobby.send({ type: 'accept', id: b.dataset.seek });
      b.disabled = true;
    });
    main.querySelector('#challenges').addEventListener('click', (e) => {
      const a = /** @type {any} */ (e.target).closest('button[data-accept]');
      const d = /** @type {any} */ (e.target).closest('button[data-decline]');
      if (a) { a.disabled = true; acceptChallenge(a.dataset.accept); }
      if (d) { d.disabled = true; declineChallenge(d.dataset.decline); }
    });
  }

  fillRules() {
    for (const sel of /** @type {NodeListOf<HTMLSelectElement>} */ (main.querySelectorAll('#seek-rules, #ch-rules'))) {
      const value = sel.value || 'anywoli';
      sel.innerHTML = this.rules.map((r) => `<option value="${esc(r)}">${esc(variantName(r))}</option>`).join('');
      if (this.rules.includes(value)) sel.value = value;
    }
  }
}
