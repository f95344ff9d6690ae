// The Games page (/archive): the public games and the reader's own, and importing a record.

import { api, mySeat, rememberSeat } from './api.js';
import { t, currentLang } from './i18n.js';
import { loadAccount } from './account.js';
import { h, fill } from './lib/h.js';
import { playerNode } from './lib/names.js';

/** A table of game summaries (the archive's lists). `mine`: the reader's own games. A live
 * game of somebody else's is to be watched, not continued (issue 36: every live game said
 * "Continue"). */
function gamesTable(ui, games, caption, mine = false) {
  const { resultText } = ui;
  const link = (g) => {
    if (g.status === 'over') return t('replay');
    return mine || mySeat(g.id) ? t('open') : t('watch_game');
  };
  const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' });
  // Names come from other players: built as elements, never parsed as HTML.
  const rows = games.map((g) => h('tr', null,
    h('td', { 'data-label': t('col_date') }, dateFmt.format(new Date(g.updated))),
    h('td', { 'data-label': t('col_mode') }, t('mode_' + g.mode), g.rated ? ` · ${t('rated')}` : null),
    h('td', { 'data-label': t('col_rules') }, t('variant_name_' + g.rules)),
    h('td', { 'data-label': t('south') }, playerNode(g, 'south')),
    h('td', { 'data-label': t('north') }, playerNode(g, 'north')),
    h('td', { 'data-label': t('col_result') }, resultText(g.result)),
    h('td', { class: 'num', 'data-label': t('col_moves') }, g.moves),
    h('td', null, h('a', { href: '/g/' + g.id, 'data-link': true, class: 'open-game' }, link(g)),
      g.status === 'over' && g.moves ? [' ', h('a', { href: `/analysis/${g.id}?ply=0`, 'data-link': true, class: 'analyse-game' }, t('an_analyse'))] : null)));
  const col = (key) => h('th', { scope: 'col' }, t(key));
  return h('div', { class: 'table-wrap' }, h('table', { class: 'archive' },
    h('caption', { class: 'sr-only' }, caption),
    h('thead', null, h('tr', null, col('col_date'), col('col_mode'), col('col_rules'), col('south'), col('north'), col('col_result'),
      col('col_moves'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('open'))))),
    h('tbody', null, rows)));
}

export class ArchiveView {
  /** `ui`: what the page lends its views (app.js). */
  constructor(ui) {
    this.ui = ui;
    ui.setBody({ view: 'archive' });
    this.games = null;
    this.mine = null;
    this.render();
    this.load();
    this.loadMine();
  }

  async load() {
    const r = await api('GET', '/games?limit=50');
    this.games = r.ok ? r.data.games : [];
    this.error = r.ok ? '' : this.ui.errorText(r);
    this.showLists();
  }

  /** A logged-in reader's own games, live ones too, above the public list. */
  async loadMine() {
    const me = await loadAccount();
    if (!me) return;
    const r = await api('GET', '/games?mine=true&limit=50');
    this.mine = r.ok ? r.data.games : [];
    this.mineError = r.ok ? '' : this.ui.errorText(r);
    this.showLists();
  }

  showLists() {
    const { main, esc } = this.ui;
    const box = main.querySelector('#public-games');
    if (!box) return;
    if (this.games === null) box.innerHTML = `<p>${esc(t('loading'))}</p>`;
    else if (this.games.length === 0) box.innerHTML = `<p>${esc(t('no_games'))}</p>`;
    else fill(box, gamesTable(this.ui, this.games, t('recent')));
    /** @type {HTMLInputElement} */ (main.querySelector('#archive-error')).textContent = this.error || '';
    const mine = main.querySelector('#my-games');
    mine.hidden = this.mine === null;
    if (this.mine !== null) {
      fill(mine.querySelector('.list'), this.mineError ? h('p', { class: 'error', role: 'alert' }, this.mineError) : null,
        this.mine.length ? gamesTable(this.ui, this.mine, t('my_games'), true) : h('p', null, t('no_games')));
    }
  }

  render() {
    const { main, esc, errorText, navigate } = this.ui;
    document.title = t('app_title') + ' — ' + t('archive_title');
    main.innerHTML = `
      <h1 class="page-title">${esc(t('archive_title'))}</h1>
      <section class="panel" id="my-games" aria-labelledby="my-games-heading" hidden>
        <h2 id="my-games-heading">${esc(t('my_games'))}</h2>
        <div class="list"></div>
      </section>
      <section class="panel" aria-labelledby="public-games-heading">
        <h2 id="public-games-heading">${esc(t('recent'))}</h2>
        <p class="error" id="archive-error" role="alert"></p>
        <div id="public-games"></div>
      </section>
      <section class="panel">
        <h2>${esc(t('import_title'))}</h2>
        <p class="note">${esc(t('import_help'))}</p>
        <form id="import-form">
          <label for="record-text" class="sr-only">${esc(t('import_title'))}</label>
          <textarea id="record-text" rows="7" spellcheck="false" placeholder='[Rules "anywoli"]&#10;&#10;e F a C *'></textarea>
          <div class="field"><label for="record-file">${esc(t('import_file'))}</label>
            <input type="file" id="record-file" accept=".txt,.awr,text/plain"></div>
          <button type="submit" class="primary" id="import-button">${esc(t('import_button'))}</button>
          <p class="error" id="import-error" role="alert"></p>
        </form>
      </section>`;
    const form = /** @type {HTMLFormElement} */ (main.querySelector('#import-form'));
    main.querySelector('#record-file').addEventListener('change', async (e) => {
      const f = e.target.files[0];
      if (f) /** @type {HTMLInputElement} */ (main.querySelector('#record-text')).value = await f.text();
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const r = await api('POST', '/import', { record: /** @type {HTMLInputElement} */ (main.querySelector('#record-text')).value });
      if (!r.ok) {
        const msg = r.data && r.data.error === 'bad_record' ? t('err_bad_record', { msg: r.data.message }) : errorText(r);
        /** @type {HTMLInputElement} */ (main.querySelector('#import-error')).textContent = msg;
        return;
      }
      rememberSeat(r.data.game.id, r.data.seat, r.data.secret);
      navigate('/g/' + r.data.game.id);
    });
    this.showLists();
  }

  refresh() { this.render(); }
}
