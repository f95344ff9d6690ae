// The lobby's terms: the time controls a seek offers, the words for a seek's rules, side and
// speed, and the reader's filter of open seeks (kept in the browser).

import { t } from '../../i18n.js';

/** The time controls offered in the lobby; a seek needs one. */
export const SEEK_CLOCKS = ['1+0', '1+1', '3+0', '3+2', '5+3', '10+5', '15+10', '1d', '3d', '7d'];
export const DEFAULT_SEEK_CLOCK = '5+3';

export function other(side) {
  return side === 'south' ? 'north' : 'south';
}

export function variantName(rules) {
  const key = 'variant_name_' + rules;
  const s = t(key);
  return s === key ? rules : s;
}

/** "You play North" for a seek or challenge whose maker chose `side`; `mine` when the reader
 * made it. */
export function sideText(side, mine) {
  if (side !== 'south' && side !== 'north') return t('side_random');
  return t('you_play', { side: t(mine ? side : other(side)) });
}

export function categoryName(c) {
  return c ? t('cat_' + c) : t('clock_none');
}

const FILTER_KEY = 'anywoli.lobbyFilter';
export const SPEEDS = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

/** What the lobby's list shows (issue 36): kept in this browser, like the other settings. */
export function loadFilter() {
  const none = { min: '', max: '', speed: '', kind: '' };
  try {
    const f = JSON.parse(localStorage.getItem(FILTER_KEY) || '{}');
    return {
      min: Number.isFinite(f.min) ? f.min : '',
      max: Number.isFinite(f.max) ? f.max : '',
      speed: SPEEDS.includes(f.speed) ? f.speed : '',
      kind: ['rated', 'casual'].includes(f.kind) ? f.kind : '',
    };
  } catch {
    return none;
  }
}

export function saveFilter(f) {
  try { localStorage.setItem(FILTER_KEY, JSON.stringify(f)); } catch { /* private mode: kept for this page only */ }
}

/** Whether another player's seek passes the filter `f`. */
export function passes(seek, f) {
  if (f.speed && seek.category !== f.speed) return false;
  if (f.kind && (f.kind === 'rated') !== !!seek.rated) return false;
  if (f.min !== '' || f.max !== '') {
    if (typeof seek.rating !== 'number') return false;
    const r = Math.round(seek.rating);
    if (f.min !== '' && r < f.min) return false;
    if (f.max !== '' && r > f.max) return false;
  }
  return true;
}
