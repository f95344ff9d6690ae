// The leaderboards at /leaderboards (docs/api-players.md, "Leaderboards"): the best established
// ratings of one time control, chosen with ?category=.

import { api } from '../../api.js';
import { t } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody, errorText } from '../../lib/dom.js';
import { profilePath } from '../../account.js';

const CATEGORIES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

/** A leaderboard as a table: rank, player, rating, games. */
function table(players) {
  const th = (key, cls) => h('th', { scope: 'col', class: cls }, t(key));
  const td = (key, value, cls) => h('td', { 'data-label': t(key), class: cls }, value);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'archive leaders' },
    h('thead', null, h('tr', null, th('col_rank', 'num'), th('col_player'), th('col_rating', 'num'), th('col_games', 'num'))),
    h('tbody', null, players.map((p) => h('tr', null,
      td('col_rank', String(p.rank), 'num'),
      td('col_player', h('a', { href: profilePath(p.name), 'data-link': true }, p.name)),
      td('col_rating', String(Math.round(p.rating)), 'num'),
      td('col_games', String(p.games), 'num'))))));
}

export class LeadersView {
  constructor() {
    const q = new URLSearchParams(location.search).get('category');
    this.category = CATEGORIES.includes(q) ? q : 'blitz';
    setBody({ view: 'leaders' });
    document.title = t('app_title') + ' — ' + t('leaders_title');
    this.render();
  }

  refresh() { this.render(); }

  render() {
    const select = /** @type {HTMLSelectElement} */ (h('select', { id: 'leaders-category' },
      CATEGORIES.map((c) => h('option', { value: c, selected: c === this.category }, t('cat_' + c)))));
    select.addEventListener('change', () => {
      this.category = select.value;
      history.replaceState(null, '', '/leaderboards?category=' + this.category);
      this.load();
    });
    this.board = h('div', { id: 'leaders', 'aria-live': 'polite' }, t('loading'));
    fill(main, h('section', { class: 'panel' },
      h('h1', null, t('leaders_title')),
      h('div', { class: 'field' }, h('label', { for: 'leaders-category' }, t('col_category')), select),
      this.board,
      h('p', { class: 'note' }, t('leaders_note'))));
    this.load();
  }

  async load() {
    const category = this.category;
    const r = await api('GET', '/leaderboards?category=' + category);
    if (category !== this.category) return;
    if (!r.ok) { fill(this.board, h('p', { class: 'error', role: 'alert' }, errorText(r))); return; }
    setBody({ leaders: String(r.data.players.length) });
    fill(this.board, r.data.players.length ? table(r.data.players) : h('p', { class: 'note' }, t('leaders_none')));
  }
}
