// Every text of the page, in English, Tagalog, Czech, Dutch, Hindi and Italian: one file per
// language (web/i18n/<lang>.json), of which the page fetches only the reader's. Every language
// has every key (tests/words.rs and the browser tests check it), so English is not fetched as a
// fallback beside another language: a key missing everywhere shows as the key itself. The
// language comes from the browser's list of languages until the reader picks one with the switch.

export const LANGS = ['en', 'tl', 'cs', 'nl', 'hi', 'it'];

/** The languages fetched so far, by code. */
const DICTS = {};
let lang = 'en';

/** Fetches language `l`'s texts once; null when they cannot be had. */
async function load(l) {
  if (!DICTS[l]) {
    try {
      const r = await fetch(`/assets/i18n/${l}.json`);
      if (r.ok) DICTS[l] = await r.json();
    } catch { /* offline: the caller falls back */ }
  }
  return DICTS[l] || null;
}

/** The language this reader asked for: a stored choice, else the browser's first supported one. */
export function wantedLang() {
  let chosen = null;
  try { chosen = localStorage.getItem('anywoli.lang'); } catch { /* no storage */ }
  if (LANGS.includes(chosen)) return chosen;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).toLowerCase().split('-')[0];
    const code = base === 'fil' ? 'tl' : base;
    if (LANGS.includes(code)) return code;
  }
  return 'en';
}

/** Fetches and takes the reader's language (English when it cannot be fetched). */
export async function initLang() {
  const wanted = wantedLang();
  lang = (await load(wanted)) ? wanted : 'en';
  if (lang !== wanted) await load('en');
  document.documentElement.lang = lang;
}

/** Switches to language `l` once its texts are here; the page is unchanged when they are not. */
export async function setLang(l) {
  if (!LANGS.includes(l) || !(await load(l))) return;
  lang = l;
  try { localStorage.setItem('anywoli.lang', l); } catch { /* the choice lasts this page */ }
  document.documentElement.lang = l;
}

export function currentLang() {
  return lang;
}

/** The texts of the current language (none while it is being fetched). */
function dict() {
  return DICTS[lang] || {};
}

/** `template` with `{name}` replaced from `params`. */
function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}

/** The text for `key` with `{name}` replaced from `params`. */
export function t(key, params = {}) {
  const s = dict()[key];
  return s === undefined ? key : fill(s, params);
}

/** The text for `key` counted by `n`: `key_one`, `key_few`, `key_other`… by the language's
 * plural rules (the `other` form when the language has no word for the rule's category). */
export function tn(key, n, params = {}) {
  const cat = new Intl.PluralRules(lang).select(n);
  const d = dict();
  const s = d[key + '_' + cat] || d[key + '_other'];
  return s === undefined ? key : fill(s, { n, ...params });
}

/** "5 seeds" in the current language, with its plural rules. */
export function seeds(n) {
  return tn('seeds', n);
}

/** Translates the parts of the page outside the views (header, skip link). */
export function applyStatic() {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n]'))) el.textContent = t(el.dataset.i18n);
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n-attr]'))) {
    const [attr, key] = el.dataset.i18nAttr.split(':');
    el.setAttribute(attr, t(key));
  }
}

/** Every key of English missing from another language, for the test that no translation is
 * missing (fetches every language). */
export async function missingKeys() {
  const out = [];
  const en = await load('en');
  for (const l of LANGS) {
    const d = (await load(l)) || {};
    for (const k of Object.keys(en)) {
      if (k.startsWith('seeds_')) continue;
      if (d[k] === undefined) out.push(`${l}:${k}`);
    }
  }
  return out;
}
