// What several pages share, written once: the rules variants the server plays (core's
// VARIANTS, `GET /api/rules`; tests/page.rs checks they agree), the start position, and the
// escaping of text put into HTML.

export const VARIANTS = ['anywoli', 'anywoli-first-final', 'anywoli-lottery', 'anywoli-it'];

export const START = '4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0';

/** `s` as text inside HTML (an element's content or a quoted attribute). */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
