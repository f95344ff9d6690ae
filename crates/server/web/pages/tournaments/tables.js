// A tournament's tables (docs/tournaments.md, "On the site"): the standings with each player's
// score sheet, the podium, the games being played and a round's pairings. Names come from
// other players: built as elements, never parsed as HTML.

import { t, tn } from '../../i18n.js';
import { profilePath, ratingText, samePlayer } from '../../account.js';
import { h } from '../../lib/h.js';
import { sheetMarks, scoreText, byRounds } from './terms.js';

/** A player's name linked to their profile (or a word when there is none: a bye). */
function who(name) {
  return name ? h('a', { href: profilePath(name), 'data-link': true }, name) : h('span', { class: 'note' }, t('tm_result_bye'));
}

/** A score sheet, compact: one mark per game (arena) or round (Swiss, round robin), each
 * linked to its game. */
function sheet(s, system) {
  const marks = sheetMarks(s.sheet, system);
  return h('span', { class: 'tm-sheet' }, marks.map((m) => {
    const cls = `tm-mark ${m.result}${m.double ? ' double' : ''}${m.berserk ? ' berserk' : ''}`;
    const attrs = { class: cls, title: m.title, 'aria-label': m.title };
    return m.game ? h('a', { ...attrs, href: '/g/' + m.game, 'data-link': true }, m.text) : h('span', attrs, m.text);
  }));
}

/**
 * The standings as a table: rank, name (🔥 for an arena player on a streak, a mark for one
 * paused or out), rating, score, games, the score sheet; Buchholz and Sonneborn–Berger in a
 * Swiss or round robin, performance in an arena. On a phone the rating and tie-breaks hide
 * and the sheet goes under the name. The reader's own row stands out.
 * @param {any[]} players a page of standings (`S`)
 * @param {any} tour the tournament (`T`)
 * @param {string|null} me the reader's name
 */
export function standingsTable(players, tour, me) {
  const rounds = byRounds(tour);
  const th = (key, cls) => h('th', { scope: 'col', class: cls }, t(key));
  const td = (value, cls) => h('td', { class: cls }, value);
  return h('div', { class: 'tm-scroll' }, h('table', { class: 'standings', id: 'tm-standings-table' },
    h('caption', { class: 'sr-only' }, t('tm_standings')),
    h('thead', null, h('tr', null,
      th('col_rank', 'num'), th('col_player'), th('col_rating', 'num tm-wide'), th('tm_col_score', 'num'),
      th('col_games', 'num'), th('tm_col_sheet', 'tm-sheet-col'),
      rounds ? [th('tm_col_buchholz', 'num tm-wide'), th('tm_col_sb', 'num tm-wide')] : th('tm_col_performance', 'num tm-wide'))),
    h('tbody', null, players.map((s) => {
      const mine = Boolean(me) && samePlayer(s.name, me);
      const state = s.state === 'paused' ? h('span', { class: 'tm-state', title: t('tm_state_paused'), 'aria-label': t('tm_state_paused'), role: 'img' }, ' ⏸')
        : s.state === 'withdrawn' ? h('span', { class: 'tm-state', title: t('tm_state_withdrawn'), 'aria-label': t('tm_state_withdrawn'), role: 'img' }, ' ✕') : null;
      return h('tr', { class: mine ? 'mine' : null, 'aria-current': mine ? 'true' : null, dataset: { player: s.name } },
        td(String(s.rank), 'num'),
        td([
          who(s.name),
          tour.system === 'arena' && s.streak ? h('span', { class: 'tm-streak', title: t('tm_streak'), 'aria-label': t('tm_streak'), role: 'img' }, ' 🔥') : null,
          state,
          s.playing ? [' ', h('a', { href: '/g/' + s.playing, 'data-link': true, class: 'tm-live', title: t('watch_game') }, t('tm_live'))] : null,
          // On a phone the sheet goes under the name (its column is hidden there).
          h('div', { class: 'tm-sheet-inline' }, sheet(s, tour.system)),
        ], 'tm-player'),
        td(ratingText(s.rating), 'num tm-wide'),
        td(h('strong', null, scoreText(s.score)), 'num'),
        td(String(s.games), 'num'),
        td(sheet(s, tour.system), 'tm-sheet-col'),
        rounds ? [td(scoreText(s.buchholz), 'num tm-wide'), td(scoreText(s.sonneborn_berger), 'num tm-wide')]
          : td(s.performance ? String(Math.round(s.performance)) : '', 'num tm-wide'));
    }))));
}

/** The first three once it is finished: medal, name, score. */
export function podium(list) {
  const medals = ['🥇', '🥈', '🥉'];
  return h('ol', { class: 'tm-podium' }, list.slice(0, 3).map((s, i) => h('li', { class: 'tm-place-' + (i + 1) },
    h('span', { class: 'tm-medal', 'aria-hidden': 'true' }, medals[i]),
    h('span', { class: 'tm-podium-name' }, who(s.name)),
    h('span', { class: 'tm-podium-score' }, tn('tm_points_n', s.score, { n: scoreText(s.score) })),
    h('span', { class: 'note' }, tn('tm_games_n', s.games)))));
}

/** A game's result in a pairing: 1–0, 0–1, ½–½, called off, or in play. */
function resultMark(result) {
  if (result === '1-0') return '1–0';
  if (result === '0-1') return '0–1';
  if (result === '1/2-1/2') return '½–½';
  if (result === 'aborted') return t('aborted_short');
  return t('result_playing');
}

/**
 * Games as a table: South, North, the result linked to the game (the games being played, or
 * a round's pairings).
 * @param {any[]} games
 */
export function gamesTable(games) {
  const th = (key, cls) => h('th', { scope: 'col', class: cls }, t(key));
  const td = (key, value, cls) => h('td', { 'data-label': t(key), class: cls }, value);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'archive tm-games' },
    h('thead', null, h('tr', null, th('south'), th('north'), th('col_result'))),
    h('tbody', null, games.map((g) => {
      const bye = !g.south || !g.north;
      return h('tr', { class: g.result || bye ? null : 'playing', dataset: { game: g.game || '' } },
        td('south', who(g.south)),
        td('north', who(g.north)),
        td('col_result', bye ? '' : g.game ? h('a', { href: '/g/' + g.game, 'data-link': true }, resultMark(g.result)) : resultMark(g.result)));
    }))));
}
