// What the page's modules expect of a browser, as far as the pure ones touch it at import or in
// the functions tested: texts fetched from web/i18n/, storage, the document's language, media
// queries and event listeners that do nothing. Imported before the modules under test.

import { readFile } from 'node:fs/promises';

const web = new URL('../web/', import.meta.url);

/** Which language files the page fetched, in order. */
export const fetched = [];

globalThis.fetch = async (url) => {
  const path = String(url);
  fetched.push(path);
  const m = /^\/assets\/(i18n\/[a-z]{2}\.json)$/.exec(path);
  if (!m) return { ok: false, status: 404, json: async () => ({}) };
  try {
    const text = await readFile(new URL(m[1], web), 'utf8');
    return { ok: true, status: 200, json: async () => JSON.parse(text) };
  } catch {
    return { ok: false, status: 404, json: async () => ({}) };
  }
};

const store = new Map();
globalThis.localStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => { store.set(k, String(v)); },
  removeItem: (k) => { store.delete(k); },
  clear: () => store.clear(),
};

const noop = () => {};
globalThis.document = {
  documentElement: { lang: 'en', dataset: {} },
  body: { dataset: {} },
  addEventListener: noop,
  querySelectorAll: () => [],
  getElementById: () => null,
};
globalThis.window = globalThis;
globalThis.addEventListener = noop;
globalThis.matchMedia = () => ({ matches: false, addEventListener: noop });
Object.defineProperty(globalThis, 'navigator', {
  value: { languages: ['en-GB'], language: 'en-GB' },
  configurable: true,
  writable: true,
});
