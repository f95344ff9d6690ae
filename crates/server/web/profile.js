// A player's page at /@/{name} (docs/api-players.md, "Players and ratings"): wins, draws and
// losses, the ratings by category and rules, their history as a graph (inline SVG, drawn
// for the width it has), and the player's games with filters.

import { api } from './api.js';
import { t, tn, currentLang } from './i18n.js';
import { renderReport } from './pages/report.js';
import { clockName } from './clock.js';
import { account, onAccount, post, ratingText, samePlayer } from './account.js';
import { h, fill } from './lib/h.js';
import { playerNode, titleBadge } from './lib/names.js';
import { followButton } from './pages/community/follow.js';

const CATEGORIES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
/** Line styles beside the colours, so that the lines are told apart without colour too. */
const DASHES = ['', '7 4', '2 4', '10 4 2 4', '4 3', '1 3'];
const PAGE = 30;

let ui = null;

export function initProfile(pageUi) {
  ui = pageUi;
}

function variantName(rules) {
  const key = 'variant_name_' + rules;
  const s = t(key);
  return s === key ? rules : s;
}

function seriesName(s) {
  return `${t('cat_' + s.category)} · ${variantName(s.rules)}`;
}

/** Steps for an axis from `lo` to `hi` with about `count` ticks: 1, 2, 2.5 or 5 times a power of ten. */
function niceStep(lo, hi, count) {
  const raw = Math.max((hi - lo) / count, 1e-9);
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

/** The rating history as SVG for a box `width` wide: one line per category and rules. */
export function graphSvg(series, width, ids) {
  const esc = ui.esc;
  const phone = width < 480;
  const H = phone ? 210 : 250;
  const m = { l: 46, r: 14, t: 14, b: 30 };
  const W = Math.max(260, Math.round(width));
  const pts = series.flatMap((s) => s.points);
  let yLo = Math.min(...pts.map((p) => p.rating));
  let yHi = Math.max(...pts.map((p) => p.rating));
  if (yHi - yLo < 40) { yLo -= 20; yHi += 20; }
  const yStep = niceStep(yLo, yHi, phone ? 4 : 5);
  yLo = Math.floor(yLo / yStep) * yStep;
  yHi = Math.ceil(yHi / yStep) * yStep;
  let xLo = Math.min(...pts.map((p) => p.at));
  let xHi = Math.max(...pts.map((p) => p.at));
  // One point (or all at once): one date under it says it all.
  const oneTime = xHi - xLo < 60000;
  if (oneTime) { xLo -= 43200000; xHi += 43200000; }
  const x = (v) => m.l + ((v - xLo) / (xHi - xLo)) * (W - m.l - m.r);
  const y = (v) => m.t + (1 - (v - yLo) / (yHi - yLo)) * (H - m.t - m.b);
  const r1 = (v) => Math.round(v * 10) / 10;
  let grid = '';
  for (let v = yLo; v <= yHi + 1e-9; v += yStep) {
    grid += `<line class="g-grid" x1="${m.l}" x2="${W - m.r}" y1="${r1(y(v))}" y2="${r1(y(v))}"/>`;
    grid += `<text class="g-label" x="${m.l - 6}" y="${r1(y(v)) + 4}" text-anchor="end">${Math.round(v)}</text>`;
  }
  const span = xHi - xLo;
  const withYear = span > 300 * 86400000 || new Date(xLo).getFullYear() !== new Date().getFullYear();
  const fmt = new Intl.DateTimeFormat(currentLang(), span < 2 * 86400000 && !oneTime
    ? { hour: '2-digit', minute: '2-digit' }
    : withYear ? { month: 'short', year: 'numeric' } : { month: 'short', day: 'numeric' });
  const xTicks = oneTime ? 1 : phone ? 3 : 5;
  for (let i = 0; i < xTicks; i++) {
    const v = xTicks === 1 ? (xLo + xHi) / 2 : xLo + (span * i) / (xTicks - 1);
    const anchor = xTicks === 1 ? 'middle' : i === 0 ? 'start' : i === xTicks - 1 ? 'end' : 'middle';
    grid += `<line class="g-tick" x1="${r1(x(v))}" x2="${r1(x(v))}" y1="${H - m.b}" y2="${H - m.b + 4}"/>`;
    grid += `<text class="g-label" x="${r1(x(v))}" y="${H - m.b + 18}" text-anchor="${anchor}">${esc(fmt.format(new Date(v)))}</text>`;
  }
  const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' });
  const lines = series.map((s, i) => {
    const coords = s.points.map((p) => `${r1(x(p.at))},${r1(y(p.rating))}`).join(' ');
    const dots = s.points.length <= 60 || s.points.length === 1
      ? s.points.map((p) => `<circle class="g-dot" cx="${r1(x(p.at))}" cy="${r1(y(p.rating))}" r="${s.points.length === 1 ? 4 : 2.6}"><title>${esc(`${seriesName(s)}: ${ratingText(p.rating)} (${dateFmt.format(new Date(p.at))})`)}</title></circle>`).join('')
      : '';
    return `<g class="g-series s${i % 6}"><polyline points="${coords}" fill="none" stroke-dasharray="${DASHES[i % DASHES.length]}"/>${dots}</g>`;
  });
  const desc = series.map((s) => {
    const r = s.points.map((p) => p.rating);
    return t('graph_series_desc', {
      series: seriesName(s),
      from: ratingText(r[0]), to: ratingText(r[r.length - 1]),
      lo: ratingText(Math.min(...r)), hi: ratingText(Math.max(...r)),
    });
  }).join(' ');
  return `<svg class="rating-graph" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${ids}-title ${ids}-desc">
    <title id="${ids}-title">${esc(t('rating_history'))}</title>
    <desc id="${ids}-desc">${esc(desc)}</desc>
    <line class="g-axis" x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${H - m.b}"/>
    <line class="g-axis" x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}"/>
    ${grid}${lines.join('')}</svg>`;
}

/** The history's points grouped into series, the most played first. */
function seriesOf(history) {
  const by = new Map();
  for (const h of history || []) {
    if (typeof h.rating !== 'number' || typeof h.at !== 'number') continue;
    const key = h.category + '|' + h.rules;
    if (!by.has(key)) by.set(key, { category: h.category, rules: h.rules, points: [] });
    by.get(key).points.push({ at: h.at, rating: h.rating, game: h.game });
  }
  const list = [...by.values()];
  for (const s of list) s.points.sort((a, b) => a.at - b.at);
  list.sort((a, b) => b.points.length - a.points.length);
  return list;
}

/** The player's side in a game summary, or null. */
function sideOf(g, name) {
  for (const side of ['south', 'north']) if (samePlayer(ui.accountName(g, side), name)) return side;
  return null;
}

export class ProfileView {
  constructor(name) {
    this.name = name;
    this.profile = null;
    this.missing = false;
    this.games = null;
    this.more = false;
    const q = new URLSearchParams(location.search);
    this.filters = {
      result: ['win', 'draw', 'loss'].includes(q.get('result')) ? q.get('result') : '',
      category: CATEGORIES.includes(q.get('category')) ? q.get('category') : '',
      rated: ['true', 'false'].includes(q.get('rated')) ? q.get('rated') : '',
    };
    ui.setBody({ view: 'profile' });
    // The session may be known only after the profile: a logged-in visitor's buttons
    // (challenge, follow, block, report) then appear when it is, not never.
    this.unlisten = onAccount(() => {
      this.blocked = undefined;
      this.render();
    });
    this.render();
    this.load();
    this.onResize = () => {
      clearTimeout(this.resizeTimer);
      this.resizeTimer = setTimeout(() => this.drawGraph(), 150);
    };
    window.addEventListener('resize', this.onResize);
  }

  destroy() {
    this.unlisten();
    window.removeEventListener('resize', this.onResize);
    clearTimeout(this.resizeTimer);
  }

  refresh() { this.render(); }

  async load() {
    const r = await api('GET', '/players/' + encodeURIComponent(this.name));
    if (!r.ok) {
      this.missing = r.status === 404;
      this.error = this.missing ? '' : ui.errorText(r);
      this.render();
      return;
    }
    this.profile = r.data;
    this.render();
    this.loadGames(false);
  }

  /** Block or unblock this player (issue 38), as the logged-in account. */
  async showBlock() {
    const area = ui.main.querySelector('#block-area');
    if (!area || !this.profile) return;
    if (this.blocked === undefined) {
      const r = await api('GET', '/account/blocks');
      const names = r.ok ? (r.data.blocks || []).map((b) => b.name) : [];
      this.blocked = names.some((n) => samePlayer(n, this.profile.name));
    }
    const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'block-toggle' }, t(this.blocked ? 'unblock_player' : 'block_player')));
    const error = h('p', { class: 'error', role: 'alert', hidden: true });
    button.addEventListener('click', async () => {
      button.disabled = true;
      const r = await post(`/players/${encodeURIComponent(this.profile.name)}/${this.blocked ? 'unblock' : 'block'}`);
      if (r.ok) {
        this.blocked = !this.blocked;
        this.showBlock();
        return;
      }
      button.disabled = false;
      error.textContent = ui.errorText(r);
      error.hidden = false;
    });
    fill(area, this.blocked ? h('p', { class: 'note', id: 'blocked-note' }, t('blocked_note')) : null, h('p', null, button), error);
  }

  async loadGames(more) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(this.filters)) if (v) q.set(k, v);
    q.set('limit', String(PAGE));
    if (more && this.games && this.games.length) q.set('before', String(this.games[this.games.length - 1].updated));
    const seq = (this.seq = (this.seq || 0) + 1);
    const r = await api('GET', `/players/${encodeURIComponent(this.name)}/games?${q}`);
    if (seq !== this.seq) return;
    if (!r.ok) {
      this.gamesError = ui.errorText(r);
      if (!more) this.games = [];
    } else {
      const got = r.data.games || [];
      this.gamesError = '';
      this.games = more ? [...(this.games || []), ...got] : got;
      this.more = got.length === PAGE;
    }
    this.showGames();
  }

  render() {
    const { main, esc } = ui;
    if (this.missing) {
      document.title = t('app_title') + ' — ' + t('no_such_player');
      ui.setBody({ view: 'missing' });
      main.innerHTML = `<section class="panel missing"><h1>${esc(t('no_such_player'))}</h1>
        <p>${esc(t('no_such_player_help', { name: this.name }))}</p>
        <p><a href="/lobby" data-link class="button primary">${esc(t('nav_lobby'))}</a></p></section>`;
      return;
    }
    const p = this.profile;
    document.title = t('app_title') + ' — ' + (p ? p.name : this.name);
    if (!p) {
      main.innerHTML = `<section class="panel"><h1>${esc(this.name)}</h1>
        ${this.error ? `<p class="error" role="alert">${esc(this.error)}</p>` : `<p>${esc(t('loading'))}</p>`}</section>`;
      return;
    }
    const me = account();
    const self = me && samePlayer(me.name, p.name);
    const c = p.counts || {};
    const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'long' });
    const stat = (n, key) => `<div class="stat"><span class="stat-n">${Number(n) || 0}</span><span class="stat-label">${esc(t(key))}</span></div>`;
    const ratings = (p.ratings || []).slice().sort((a, b) => CATEGORIES.indexOf(a.category) - CATEGORIES.indexOf(b.category) || String(a.rules).localeCompare(b.rules));
    const ratingRows = ratings.map((r) => `<tr>
      <td data-label="${esc(t('col_category'))}">${esc(t('cat_' + r.category))}</td>
      <td data-label="${esc(t('col_rules'))}">${esc(variantName(r.rules))}</td>
      <td class="num rating-cell" data-label="${esc(t('col_rating'))}"><strong>${esc(ratingText(r))}</strong> <span class="note">±${Math.round(r.deviation)}</span></td>
      <td class="num" data-label="${esc(t('col_games'))}">${Number(r.games) || 0}</td></tr>`).join('');
    const opt = (v, key, cur) => `<option value="${v}"${v === cur ? ' selected' : ''}>${esc(t(key))}</option>`;
    main.innerHTML = `
      <section class="panel profile-head">
        <h1>${esc(p.name)}${self ? ` <span class="badge">${esc(t('you'))}</span>` : ''}</h1>
        ${p.created ? `<p class="note">${esc(t('member_since', { date: dateFmt.format(new Date(p.created)) }))}</p>` : ''}
        <div class="stats" role="group" aria-label="${esc(t('results'))}">
          ${stat(c.games, 'stat_games')}${stat(c.wins, 'stat_wins')}${stat(c.draws, 'stat_draws')}${stat(c.losses, 'stat_losses')}
        </div>
        ${p.closed ? `<p class="note" id="profile-closed">${esc(t('profile_closed'))}</p>` : ''}
        ${p.marked ? `<p class="note" id="profile-marked">${esc(t('profile_marked'))}</p>` : ''}
        ${me && !self ? `<p><a href="/lobby?challenge=${encodeURIComponent(p.name)}" data-link class="button primary">${esc(t('challenge_button'))}</a></p>` : ''}
        ${me && !self ? '<div id="block-area" class="block-area"></div>' : ''}
        ${me && !self && !p.closed ? '<div id="report-box"></div>' : ''}
      </section>
      <section class="panel" aria-labelledby="ratings-heading">
        <h2 id="ratings-heading">${esc(t('ratings'))}</h2>
        ${ratings.length ? `<div class="table-wrap"><table class="archive ratings">
          <caption class="sr-only">${esc(t('ratings'))}</caption>
          <thead><tr><th scope="col">${esc(t('col_category'))}</th><th scope="col">${esc(t('col_rules'))}</th>
          <th scope="col" class="num">${esc(t('col_rating'))}</th><th scope="col" class="num">${esc(t('col_games'))}</th></tr></thead>
          <tbody>${ratingRows}</tbody></table></div>
          ${ratings.some((r) => r.provisional) ? `<p class="note">${esc(t('provisional_note'))}</p>` : ''}` : `<p class="note">${esc(t('no_ratings'))}</p>`}
        ${p.puzzles ? `<p id="profile-puzzles">${esc(t(p.puzzles.provisional ? 'pz_profile_rating_provisional' : 'pz_profile_rating', { r: Math.round(p.puzzles.rating), n: p.puzzles.attempts }))}</p>` : ''}
        <h3>${esc(t('rating_history'))}</h3>
        <figure class="graph-box" id="graph-box"></figure>
      </section>
      <section class="panel" aria-labelledby="pgames-heading">
        <h2 id="pgames-heading">${esc(t('player_games'))}</h2>
        <form id="game-filters" class="filters">
          <div class="field"><label for="f-result">${esc(t('col_result'))}</label>
            <select id="f-result" name="result">${opt('', 'filter_all', this.filters.result)}${opt('win', 'filter_win', this.filters.result)}${opt('draw', 'filter_draw', this.filters.result)}${opt('loss', 'filter_loss', this.filters.result)}</select></div>
          <div class="field"><label for="f-category">${esc(t('col_category'))}</label>
            <select id="f-category" name="category">${opt('', 'filter_all', this.filters.category)}${CATEGORIES.map((k) => opt(k, 'cat_' + k, this.filters.category)).join('')}</select></div>
          <div class="field"><label for="f-rated">${esc(t('col_rated'))}</label>
            <select id="f-rated" name="rated">${opt('', 'filter_all', this.filters.rated)}${opt('true', 'rated', this.filters.rated)}${opt('false', 'casual', this.filters.rated)}</select></div>
        </form>
        <div id="player-games" aria-live="polite"></div>
        <p class="downloads">
          <a id="download-games" class="button" href="/api/games/user/${encodeURIComponent(p.name)}" download>${esc(t('download_games'))}</a>
          <a id="download-games-ndjson" href="/api/games/user/${encodeURIComponent(p.name)}?format=ndjson" download>${esc(t('download_games_ndjson'))}</a>
        </p>
        <p class="note">${esc(t('download_games_note'))}</p>
      </section>`;
    const head = main.querySelector('.profile-head');
    const badge = titleBadge(p.title);
    if (badge) head.querySelector('h1').prepend(badge, ' ');
    if (me && !self) head.append(followButton(p.name));
    if (self) head.append(h('p', null, h('a', { href: '/following', 'data-link': true }, t('following_title'))));
    const reportBox = main.querySelector('#report-box');
    if (reportBox) renderReport(/** @type {HTMLElement} */ (reportBox), p.name);
    this.drawGraph(true);
    this.showGames();
    this.showBlock();
    main.querySelector('#game-filters').addEventListener('change', (e) => {
      const el = e.target;
      if (!(el.name in this.filters)) return;
      this.filters[el.name] = el.value;
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(this.filters)) if (v) q.set(k, v);
      history.replaceState(null, '', location.pathname + (q.toString() ? '?' + q : ''));
      this.games = null;
      this.showGames();
      this.loadGames(false);
    });
    main.querySelector('#player-games').addEventListener('click', (e) => {
      if (/** @type {any} */ (e.target).closest('#more-games')) {
        e.target.disabled = true;
        this.loadGames(true);
      }
    });
  }

  drawGraph(force = false) {
    const box = ui.main.querySelector('#graph-box');
    if (!box || !this.profile) return;
    const width = box.clientWidth;
    if (!force && Math.abs(width - (this.graphWidth || 0)) < 8) return;
    this.graphWidth = width;
    const esc = ui.esc;
    const series = seriesOf(this.profile.history);
    if (!series.length) {
      box.innerHTML = `<p class="note">${esc(t('no_history'))}</p>`;
      return;
    }
    const legend = series.map((s, i) => `<li class="s${i % 6}"><svg width="28" height="10" aria-hidden="true" focusable="false"><line x1="1" x2="27" y1="5" y2="5" stroke-dasharray="${DASHES[i % DASHES.length]}"/></svg>${esc(seriesName(s))}</li>`).join('');
    box.innerHTML = graphSvg(series, width, 'rating-graph') + `<figcaption><ul class="legend">${legend}</ul></figcaption>`;
  }

  showGames() {
    const { main, esc } = ui;
    const el = main.querySelector('#player-games');
    if (!el) return;
    if (this.games === null) { el.innerHTML = `<p>${esc(t('loading'))}</p>`; return; }
    const err = this.gamesError ? h('p', { class: 'error', role: 'alert' }, this.gamesError) : null;
    if (this.games.length === 0) { fill(el, err, h('p', { class: 'note' }, t('no_games_found'))); return; }
    const dateFmt = new Intl.DateTimeFormat(currentLang(), { dateStyle: 'medium', timeStyle: 'short' });
    const viewer = account();
    // Names come from other players: built as elements, never parsed as HTML.
    const rows = this.games.map((g) => {
      const side = sideOf(g, this.name);
      const opp = side ? (side === 'south' ? 'north' : 'south') : null;
      let result = t('result_playing');
      let cls = '';
      if (g.status === 'aborted') result = t('aborted_short');
      else if (g.result === '1/2-1/2') { result = t('filter_draw'); cls = 'draw'; }
      else if (side && (g.result === '1-0' || g.result === '0-1')) {
        const won = (g.result === '1-0') === (side === 'south');
        result = t(won ? 'filter_win' : 'filter_loss');
        cls = won ? 'win' : 'loss';
      } else if (g.result !== '*') result = ui.resultText(g.result);
      return h('tr', null,
        h('td', { 'data-label': t('col_date') }, dateFmt.format(new Date(g.updated))),
        h('td', { 'data-label': t('col_opponent') }, opp ? playerNode(g, opp) : ui.sideName(g, 'south') + ' – ' + ui.sideName(g, 'north')),
        h('td', { 'data-label': t('col_side') }, side ? t(side) : null),
        h('td', { 'data-label': t('col_result'), class: `result ${cls}` }, result),
        h('td', { 'data-label': t('col_rules') }, variantName(g.rules)),
        h('td', { 'data-label': t('clock') }, g.clock ? clockName(g.clock) : t('clock_none'), g.rated ? ` · ${t('rated')}` : null),
        h('td', { class: 'num', 'data-label': t('col_moves') }, Number(g.moves) || 0),
        h('td', null, h('a', { href: '/g/' + g.id, 'data-link': true, class: 'open-game' },
          g.status !== 'playing' ? t('replay') : viewer && sideOf(g, viewer.name) ? t('open') : t('watch_game'))));
    });
    const col = (key) => h('th', { scope: 'col' }, t(key));
    fill(el, err, h('div', { class: 'table-wrap' }, h('table', { class: 'archive player-games' },
      h('caption', { class: 'sr-only' }, t('player_games')),
      h('thead', null, h('tr', null, col('col_date'), col('col_opponent'), col('col_side'), col('col_result'), col('col_rules'),
        col('clock'), col('col_moves'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('open'))))),
      h('tbody', null, rows))),
      this.more ? h('p', null, h('button', { type: 'button', id: 'more-games' }, t('more_games'))) : null,
      h('p', { class: 'note' }, tn('games_shown', this.games.length)));
  }
}
