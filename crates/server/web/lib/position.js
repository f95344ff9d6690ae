// A position string (docs/rules.md, "Position strings") and the board editor's fields: read
// one into the fields, write the fields back, and say in the reader's language what the server
// found wrong with one (a kind with its numbers).

import { t, tn } from '../i18n.js';

/** The seeds on a board: every variant plays with 96. */
export const TOTAL = 96;

const SIDE_OF = { s: 'south', n: 'north', x: 'none', '-': 'none' };
const LETTER_OF = { south: 's', north: 'n' };

/** A count as the fields hold it: the digits, or '' when it is not a whole number. */
function count(text) {
  return /^\d{1,9}$/.test(text) ? String(Number(text)) : '';
}

/**
 * Reads a position string into the editor's fields as far as its shape allows: null when it
 * does not have 8 fields and two rows of 12 (the server says what is wrong).
 */
export function readPosition(text) {
  const parts = String(text).trim().split(' ');
  if (parts.length !== 8) return null;
  const rows = parts[0].split('/');
  if (rows.length !== 2) return null;
  const a = rows[0].split(',');
  const b = rows[1].split(',');
  if (a.length !== 12 || b.length !== 12) return null;
  return {
    holes: a.concat(b).map(count),
    stores: [count(parts[2]), count(parts[3])],
    toMove: SIDE_OF[parts[1]] && parts[1] !== '-' ? SIDE_OF[parts[1]] : null,
    last: parts[4] === 'x' ? null : SIDE_OF[parts[4]] || null,
    first: parts[5] === 'x' ? null : SIDE_OF[parts[5]] || null,
    quiet: count(parts[6]),
    ply: count(parts[7]),
  };
}

/** The position string of the fields (an empty count stays empty, and the server names it). */
export function writePosition(f) {
  const side = (s) => LETTER_OF[s] || '-';
  const move = f.toMove === 'none' ? 'x' : side(f.toMove);
  return `${f.holes.slice(0, 12).join(',')}/${f.holes.slice(12).join(',')} ${move} ${f.stores[0]} ${f.stores[1]} `
    + `${side(f.last)} ${side(f.first)} ${f.quiet} ${f.ply}`;
}

/** The words for a field named by the server. */
function fieldWords(field) {
  return t({
    position: 'ed_position',
    'south-row': 'ed_south_row',
    'north-row': 'ed_north_row',
    'to-move': 'ed_to_move',
    'south-store': 'ed_store_south',
    'north-store': 'ed_store_north',
    'last-capturer': 'ed_last_capturer',
    'first-final-capturer': 'ed_first_final',
    'quiet-plies': 'ed_quiet',
    ply: 'ed_ply',
  }[field] || 'ed_position');
}

/** What is wrong with a position, in the reader's language, from the server's kind. */
export function refusalText(e) {
  const field = fieldWords(e.field);
  const text = e.text === undefined ? '' : e.text;
  switch (e.kind) {
    case 'seed_total': {
      const diff = e.found - TOTAL;
      return diff > 0
        ? tn('ed_err_seed_total_more', diff, { found: e.found })
        : tn('ed_err_seed_total_less', -diff, { found: e.found });
    }
    case 'in_play_not_multiple_of_4': {
      const lo = e.in_play - (e.in_play % 4);
      return t('ed_err_multiple_of_4', { n: e.in_play, lo, hi: lo + 4 });
    }
    case 'too_few_in_play':
      return t('ed_err_too_few', { n: e.in_play, threshold: e.threshold, min: e.threshold + 4 });
    case 'over_with_seeds':
      return t('ed_err_over_with_seeds', { n: e.in_play });
    case 'no_seeds_to_move':
      return t('ed_err_no_seeds', { side: t(e.side) });
    case 'quiet_above_ply':
      return t('ed_err_quiet_above_ply', { quiet: e.found, ply: e.ply });
    case 'quiet_at_limit':
      return t('ed_err_quiet_at_limit', { quiet: e.found });
    case 'quiet_above_limit':
      return t('ed_err_quiet_above_limit', { quiet: e.found });
    case 'not_a_number':
      if (text === '') return e.hole ? t('ed_err_hole_empty', { h: e.hole }) : t('ed_err_field_empty', { field });
      return e.hole ? t('ed_err_hole_nan', { h: e.hole, text }) : t('ed_err_field_nan', { field, text });
    case 'count_too_large':
      return e.hole ? t('ed_err_hole_too_large', { h: e.hole, text }) : t('ed_err_store_too_large', { field, text });
    case 'number_too_large':
      return t('ed_err_number_too_large', { field });
    case 'row_length':
      return t('ed_err_row_length', { row: field, found: e.found });
    case 'no_slash':
      return t('ed_err_no_slash');
    case 'field_count':
      return t('ed_err_field_count', { found: e.found });
    case 'too_long':
      return t('ed_err_too_long', { max: e.max });
    case 'bad_to_move':
      return t('ed_err_bad_to_move', { text });
    case 'bad_side':
      return t('ed_err_bad_side', { field, text });
    default:
      return t('err_other', { msg: e.kind });
  }
}
