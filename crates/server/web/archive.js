// The Games page (/archive): the public games and the reader's own, and importing a record.

import { api, mySeat, rememberSeat } from './api.js';
import { t, currentLang } from './i18n.js';
import { loadAccount } from './account.js';

/** A table of game summaries (the archive's lists). `mine`: the reader's own games. A live
 * game of somebody else's is to be watched, not continued (issue 36: every live game said
 * "Continue"). */
function gamesTable(ui, games, caption, mine = false) {
  const { esc, playerHtml, resultText } = ui;
  const link = (g) => {
    if (g.status === 'over') return t('replay');
    return mine || mySeat(g.id) ? t('open') : t('watch_game');
  };
  const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' });
  const rows = games.map((g) => `
    <tr>
      <td data-label="${esc(t('col_date'))}">${esc(dateFmt.format(new Date(g.updated)))}</td>
      <td data-label="${esc(t('col_mode'))}">${esc(t('mode_' + g.mode))}${g.rated ? ` · ${esc(t('rated'))}` : ''}</td>
      <td data-label="${esc(t('col_rules'))}">${esc(t('variant_name_' + g.rules))}</td>
      <td data-label="${esc(t('south'))}">${playerHtml(g, 'south')}</td>
      <td data-label="${esc(t('north'))}">${playerHtml(g, 'north')}</td>
      <td data-label="${esc(t('col_result'))}">${esc(resultText(g.result))}</td>
      <td class="num" data-label="${esc(t('col_moves'))}">${g.moves}</td>
      <td><a href="/g/${esc(g.id)}" data-link class="open-game">${esc(link(g))}</a>${g.status === 'over' && g.moves ? ` <a href="/analysis/${esc(g.id)}?ply=0" data-link class="analyse-game">${esc(t('an_analyse'))}</a>` : ''}</td>
    </tr>`).join('');
  return `<div class="table-wrap"><table class="archive">
    <caption class="sr-only">${esc(caption)}</caption>
    <thead><tr><th scope="col">${esc(t('col_date'))}</th><th scope="col">${esc(t('col_mode'))}</th><th scope="col">${esc(t('col_rules'))}</th>
    <th scope="col">${esc(t('south'))}</th><th scope="col">${esc(t('north'))}</th><th scope="col">${esc(t('col_result'))}</th>
    <th scope="col">${esc(t('col_moves'))}</th><th scope="col"><span class="sr-only">${esc(t('open'))}</span></th></tr></thead>
    <tbody>${rows}</tbody></table></div>`;
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
    else box.innerHTML = gamesTable(this.ui, this.games, t('recent'));
    /** @type {HTMLInputElement} */ (main.querySelector('#archive-error')).textContent = this.error || '';
    const mine = main.querySelector('#my-games');
    mine.hidden = this.mine === null;
    if (this.mine !== null) {
      mine.querySelector('.list').innerHTML = (this.mineError ? `<p class="error" role="alert">${esc(this.mineError)}</p>` : '')
        + (this.mine.length ? gamesTable(this.ui, this.mine, t('my_games'), true) : `<p>${esc(t('no_games'))}</p>`);
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
