// The community's puzzles (/puzzles/community): those players composed in the board editor
// and the solver proved, newest first, searchable by theme. The theme and the page are in the
// address, so a filtered list can be shared and survives a reload.

import { api } from './api.js';
import { t } from './i18n.js';
import { themeName } from './composer.js';

const THEMES = ['chain', 'sacrifice', 'pass', 'race', 'short'];

export class CommunityPuzzlesView {
  /** @param ui the page's helpers: {main, esc, setBody, errorText, navigate} */
  constructor(ui) {
    this.ui = ui;
    const q = new URLSearchParams(location.search);
    this.theme = THEMES.includes(q.get('theme')) ? q.get('theme') : '';
    this.page = Math.max(1, parseInt(q.get('page') || '1', 10) || 1);
    ui.setBody({ view: 'community', community: 'loading' });
    document.title = t('app_title') + ' — ' + t('pz_community');
    this.render();
    this.load();
  }

  destroy() {}

  render() {
    const { main, esc } = this.ui;
    const options = THEMES.map((th) => `<option value="${th}"${th === this.theme ? ' selected' : ''}>${esc(themeName(th))}</option>`).join('');
    main.innerHTML = `
      <section class="panel" aria-labelledby="community-heading">
        <h1 id="community-heading">${esc(t('pz_community'))}</h1>
        <p class="tagline">${esc(t('pz_community_note'))}</p>
        <div class="controls">
          <label>${esc(t('pz_theme_filter'))}
            <select id="community-theme"><option value="">${esc(t('pz_all_themes'))}</option>${options}</select>
          </label>
          <a class="button" href="/editor" data-link>${esc(t('pz_compose_link'))}</a>
          <a class="button" href="/puzzles" data-link>${esc(t('puzzle_daily_link'))}</a>
        </div>
        <p id="community-error" class="error" role="alert"></p>
        <div id="community-list" aria-live="polite"><p>${esc(t('loading'))}</p></div>
        <div class="controls" id="community-pages"></div>
      </section>`;
    main.querySelector('#community-theme').addEventListener('change', (e) => {
      this.theme = e.target.value;
      this.page = 1;
      this.go();
    });
  }

  /** Puts the filter in the address (replaced: a filter is not a step back) and reloads. */
  go() {
    const q = new URLSearchParams();
    if (this.theme) q.set('theme', this.theme);
    if (this.page > 1) q.set('page', String(this.page));
    const s = q.toString();
    history.replaceState(null, '', '/puzzles/community' + (s ? '?' + s : ''));
    this.load();
  }

  async load() {
    const { main, esc, errorText, setBody } = this.ui;
    const q = new URLSearchParams();
    if (this.theme) q.set('theme', this.theme);
    q.set('page', String(this.page));
    const asked = q.toString();
    this.asked = asked;
    const r = await api('GET', '/puzzles/community?' + asked);
    if (this.asked !== asked || !main.querySelector('#community-list')) return;
    const list = main.querySelector('#community-list');
    /** @type {HTMLInputElement} */ (main.querySelector('#community-error')).textContent = r.ok ? '' : errorText(r);
    if (!r.ok) { list.innerHTML = ''; setBody({ community: 'error' }); return; }
    const d = r.data;
    if (!d.puzzles.length) {
      list.innerHTML = `<p id="community-none">${esc(t('pz_c_none'))}</p>`;
    } else {
      const rows = d.puzzles.map((p, i) => `<tr>
          <td data-label="${esc(t('pz_c_col_puzzle'))}"><a href="/puzzles/community/${esc(p.id)}" data-link class="community-puzzle">${esc(t('pz_c_number', { n: (d.page - 1) * d.per_page + i + 1 }))}</a></td>
          <td data-label="${esc(t('pz_c_col_side'))}">${esc(t(p.side))}</td>
          <td class="num" data-label="${esc(t('pz_c_col_grade'))}">${p.grade}</td>
          <td class="num" data-label="${esc(t('pz_c_col_plies'))}">${p.plies}</td>
          <td data-label="${esc(t('pz_c_col_themes'))}">${esc(p.themes.map(themeName).join(', ') || '—')}</td>
          <td data-label="${esc(t('pz_c_col_author'))}">${esc(p.author || t('pz_c_anonymous'))}</td>
        </tr>`).join('');
      list.innerHTML = `<div class="table-wrap"><table class="archive">
          <caption class="sr-only">${esc(t('pz_community'))}</caption>
          <thead><tr><th>${esc(t('pz_c_col_puzzle'))}</th><th>${esc(t('pz_c_col_side'))}</th><th>${esc(t('pz_c_col_grade'))}</th>
          <th>${esc(t('pz_c_col_plies'))}</th><th>${esc(t('pz_c_col_themes'))}</th><th>${esc(t('pz_c_col_author'))}</th></tr></thead>
          <tbody>${rows}</tbody></table></div>`;
    }
    const pages = Math.max(1, Math.ceil(d.total / d.per_page));
    const nav = main.querySelector('#community-pages');
    nav.innerHTML = pages > 1 ? `
        <button type="button" id="community-prev"${this.page <= 1 ? ' disabled' : ''}>${esc(t('pz_c_prev'))}</button>
        <span>${esc(t('pz_c_page', { n: this.page, total: pages }))}</span>
        <button type="button" id="community-next"${this.page >= pages ? ' disabled' : ''}>${esc(t('pz_c_next'))}</button>` : '';
    if (pages > 1) {
      nav.querySelector('#community-prev').addEventListener('click', () => { this.page -= 1; this.go(); });
      nav.querySelector('#community-next').addEventListener('click', () => { this.page += 1; this.go(); });
    }
    setBody({ community: 'ready', communityCount: String(d.total) });
  }
}
