// The loader of the page's texts (web/i18n.js): one language fetched at a time, plural rules by
// Intl.PluralRules, parameters filled in, a key without a text shown as itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fetched } from './env.js';
import { initLang, setLang, currentLang, t, tn, seeds, missingKeys, wantedLang, LANGS } from '../web/i18n.js';

test('the first load fetches only the reader\'s language', async () => {
  navigator.languages = ['cs-CZ', 'en'];
  fetched.length = 0;
  await initLang();
  assert.equal(currentLang(), 'cs');
  assert.equal(document.documentElement.lang, 'cs');
  assert.deepEqual(fetched, ['/assets/i18n/cs.json']);
});

test('the language asked for: a stored choice, else the browser\'s first supported one', () => {
  localStorage.clear();
  navigator.languages = ['de-DE', 'fil-PH', 'en'];
  assert.equal(wantedLang(), 'tl', 'Filipino is Tagalog');
  navigator.languages = ['de', 'fr'];
  assert.equal(wantedLang(), 'en');
  localStorage.setItem('anywoli.lang', 'hi');
  assert.equal(wantedLang(), 'hi');
  localStorage.setItem('anywoli.lang', 'xx');
  assert.equal(wantedLang(), 'en', 'an unknown stored choice is ignored');
  localStorage.clear();
});

test('Czech plural forms: one, few, many and other', async () => {
  await setLang('cs');
  assert.equal(seeds(1), '1 semínko');
  assert.equal(seeds(3), '3 semínka');
  assert.equal(seeds(1.5), '1.5 semínka');
  assert.equal(seeds(5), '5 semínek');
  assert.equal(seeds(0), '0 semínek');
});

test('English and Hindi plural forms', async () => {
  await setLang('en');
  assert.equal(seeds(1), '1 seed');
  assert.equal(seeds(2), '2 seeds');
  assert.equal(seeds(0), '0 seeds');
  await setLang('hi');
  assert.equal(seeds(1), '1 बीज');
  assert.equal(seeds(7), '7 बीज');
});

test('a counted text takes its other parameters beside n; a missing form falls back to other', async () => {
  await setLang('en');
  assert.equal(tn('ed_err_seed_total_more', 1, { found: 97 }),
    '97 seeds on the board and in the stores: there must be 96 — take one away.');
  assert.equal(tn('ed_err_seed_total_more', 3, { found: 99 }),
    '99 seeds on the board and in the stores: there must be 96 — take 3 away.');
  await setLang('cs');
  assert.equal(tn('ed_valid_turn', 2, { side: 'Jih' }), 'Pozice je platná: na tahu je Jih, 2 možné tahy.');
  // Czech has no "many" form of this text: 1.5 (many) takes the "other" one.
  assert.equal(tn('ed_valid_turn', 1.5, { side: 'Jih' }), 'Pozice je platná: na tahu je Jih, 1.5 možných tahů.');
  assert.equal(tn('no_such_count', 2), 'no_such_count');
});

test('parameters are filled in; one missing stays as written; a key without text is itself', async () => {
  await setLang('en');
  assert.equal(t('ls_lesson_n', { n: 3 }), 'Lesson 3');
  assert.equal(t('ls_lesson_n'), 'Lesson {n}');
  assert.equal(t('no_such_key_anywhere'), 'no_such_key_anywhere');
  await setLang('it');
  assert.equal(t('ls_lesson_n', { n: 3 }), 'Lezione 3');
});

test('a language that cannot be fetched leaves the page as it was', async () => {
  await setLang('nl');
  assert.equal(await setLang('xx'), undefined);
  assert.equal(currentLang(), 'nl');
  const realFetch = globalThis.fetch;
  globalThis.fetch = async () => { throw new Error('offline'); };
  try {
    await setLang('tl');
    assert.equal(currentLang(), 'nl', 'Tagalog was never fetched');
  } finally {
    globalThis.fetch = realFetch;
  }
});

test('every language has every English text', async () => {
  assert.deepEqual(LANGS, ['en', 'tl', 'cs', 'nl', 'hi', 'it']);
  assert.deepEqual(await missingKeys(), []);
});
