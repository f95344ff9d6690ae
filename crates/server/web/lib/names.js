// Who plays and how a game ended, in words: the names of seats and results in game lists.

import { t } from '../i18n.js';
import { profilePath } from '../account.js';
import { h } from './h.js';

export function playerName(kind) {
  if (kind === 'human') return t('player_human');
  const m = /^level:(\d+)$/.exec(kind);
  return m ? t('player_computer', { n: m[1] }) : kind;
}

export function resultText(result) {
  return { '1-0': t('result_south'), '0-1': t('result_north'), '1/2-1/2': t('result_draw_short'), '*': t('result_playing') }[result] || result;
}

/** A seat's account name in a game summary (lists), or null. */
export function accountName(g, side) {
  const i = side === 'south' ? 0 : 1;
  const v = Array.isArray(g.players) ? g.players[i] : g.players ? g.players[side] : null;
  return typeof v === 'string' && v ? v : null;
}

/** Who holds a seat in a game summary, in words: the account's name, else "Player" or the
 * computer's level. */
export function sideName(g, side) {
  return accountName(g, side) || playerName(g[side]);
}

/** Who holds a seat, as an element (or text): an account's name links to its profile. */
export function playerNode(g, side) {
  const name = accountName(g, side);
  if (!name) return playerName(g[side]);
  return h('a', { href: profilePath(name), 'data-link': true }, name);
}

/** An account's title (`BOT`: a program plays it) as the small badge shown before its name, or
 * null for none, as from a server that sends no titles. */
export function titleBadge(title) {
  if (typeof title !== 'string' || !title) return null;
  return h('span', { class: 'title-badge', title: title === 'BOT' ? t('title_bot') : null }, title);
}
