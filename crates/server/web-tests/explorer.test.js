// The analysis board's opening explorer (web/pages/analysis/explorer.js): its pure helpers, and
// on a minimal document the panel's requests: one per pause in the steps, a stale one aborted,
// answers kept per position and filters.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import './env.js';
import { setLang } from '../web/i18n.js';

/** Just enough of an element for the panel to build and redraw itself. */
class Element0 {
  constructor(tag) {
    this.tag = tag;
    this.attrs = new Map();
    this.children = [];
    this.dataset = {};
    this.style = {};
    this.classes = new Set();
    this.classList = { toggle: (c, on) => { if (on) this.classes.add(c); else this.classes.delete(c); } };
  }
  setAttribute(k, v) { this.attrs.set(k, v); if (k === 'id') this.id = v; }
  getAttribute(k) { return this.attrs.has(k) ? this.attrs.get(k) : null; }
  appendChild(c) { this.children.push(c); return c; }
  replaceChildren() { this.children = []; }
  addEventListener() {}
  /** The element with `id` in this subtree, if any. */
  find(id) {
    if (this.id === id) return this;
    for (const c of this.children) {
      const f = c instanceof Element0 ? c.find(id) : null;
      if (f) return f;
    }
    return null;
  }
  get text() { return this.children.map((c) => (c instanceof Element0 ? c.text : c.data)).join(''); }
}
document.createElement = (tag) => new Element0(tag);
document.createTextNode = (data) => ({ data });

const { ExplorerPanel, Kept, shares, bandText, explorerPath, DEBOUNCE_MS, CACHE_MAX } = await import('../web/pages/analysis/explorer.js');

await setLang('en');

const START = '4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0';
const AFTER_E = '5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1';
const LATE = '5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 30';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The requests the panel makes, each answered when the test says. */
function server() {
  const asked = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (url, init) => new Promise((resolve, reject) => {
    const req = { url: String(url), signal: init.signal, answer: (data, status = 200) => resolve({ ok: status < 300, status, json: async () => data }) };
    init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    asked.push(req);
  });
  return { asked, restore: () => { globalThis.fetch = realFetch; } };
}

function answer(position, games) {
  return {
    rules: 'anywoli', position, plies: 24,
    total: { games, south: games, draws: 0, north: 0 },
    moves: games ? [{ move: 'e', games, south: games, draws: 0, north: 0, rating: null }] : [],
    recent: [], book: [{ move: 'e', score: 400 }],
  };
}

function panel() {
  const body = {};
  const el = new Element0('div');
  const p = new ExplorerPanel(el, { onPlay: () => {}, setBody: (a) => Object.assign(body, a), errorText: (r) => `error ${r.status}` });
  return { p, el, body };
}

test('shares are whole percents that add up to 100', () => {
  assert.deepEqual(shares({ south: 2, draws: 0, north: 1 }), [67, 0, 33]);
  assert.deepEqual(shares({ south: 1, draws: 1, north: 1 }), [34, 33, 33]);
  assert.deepEqual(shares({ south: 0, draws: 0, north: 0 }), [0, 0, 0]);
  assert.deepEqual(shares({ south: 5, draws: 0, north: 0 }), [100, 0, 0]);
});

test('bands in words; the query with and without filters', () => {
  assert.equal(bandText(-1), 'Unrated');
  assert.equal(bandText(0), '0\u20131199');
  assert.equal(bandText(1600), '1600\u20131799');
  assert.equal(bandText(2500), '2500+');
  assert.equal(explorerPath('anywoli', START, '', ''), '/api/explorer?rules=anywoli&position=' + encodeURIComponent(START).replace(/%20/g, '+'));
  const q = new URL(explorerPath('anywoli', START, 'blitz', '-1'), 'http://x').searchParams;
  assert.equal(q.get('position'), START);
  assert.equal(q.get('speeds'), 'blitz');
  assert.equal(q.get('ratings'), '-1');
});

test('the kept answers: the newest are kept, a read makes one newest', () => {
  const k = new Kept(3);
  for (const x of ['a', 'b', 'c']) k.set(x, x);
  assert.equal(k.get('a'), 'a');
  k.set('d', 'd');
  assert.equal(k.size, 3);
  assert.equal(k.get('b'), undefined, 'the oldest unread went');
  assert.equal(k.get('a'), 'a');
  assert.ok(CACHE_MAX >= 50 && CACHE_MAX <= 200);
});

test('steps in a row ask once, for the last position', async () => {
  const s = server();
  try {
    const { p, body } = panel();
    p.show({ position: START, rules: 'anywoli' });
    p.show({ position: AFTER_E, rules: 'anywoli' });
    assert.equal(s.asked.length, 0, 'nothing asked before the pause');
    assert.equal(body.explorer, 'loading');
    await sleep(DEBOUNCE_MS + 60);
    assert.equal(s.asked.length, 1);
    assert.equal(new URL(s.asked[0].url, 'http://x').searchParams.get('position'), AFTER_E);
    s.asked[0].answer(answer(AFTER_E, 3));
    await sleep(10);
    assert.equal(body.explorer, 'ready');
    assert.ok(p.el.find('explorer-moves'), 'the table is drawn');
    assert.ok(p.el.find('explorer-book'), 'the book is drawn');
    p.destroy();
  } finally {
    s.restore();
  }
});

test('a request overtaken by another position is aborted; an answer kept is shown at once', async () => {
  const s = server();
  try {
    const { p, body } = panel();
    p.show({ position: START, rules: 'anywoli' });
    await sleep(DEBOUNCE_MS + 60);
    assert.equal(s.asked.length, 1);
    p.show({ position: AFTER_E, rules: 'anywoli' });
    assert.ok(s.asked[0].signal.aborted, 'the start\'s request is aborted');
    await sleep(DEBOUNCE_MS + 60);
    s.asked[1].answer(answer(AFTER_E, 0));
    await sleep(10);
    assert.equal(body.explorer, 'empty');
    assert.ok(p.el.find('explorer-empty'), 'no games here yet');
    p.show({ position: START, rules: 'anywoli' });
    await sleep(DEBOUNCE_MS + 60);
    s.asked[2].answer(answer(START, 2));
    await sleep(10);
    p.show({ position: AFTER_E, rules: 'anywoli' });
    assert.equal(body.explorer, 'empty', 'shown from memory');
    await sleep(DEBOUNCE_MS + 60);
    assert.equal(s.asked.length, 3, 'not asked again');
    p.destroy();
  } finally {
    s.restore();
  }
});

test('past the plies counted, an empty answer is a note, not an empty table; errors are shown', async () => {
  const s = server();
  try {
    const { p, body } = panel();
    p.show({ position: LATE, rules: 'anywoli' });
    await sleep(DEBOUNCE_MS + 60);
    s.asked[0].answer(answer(LATE, 0));
    await sleep(10);
    assert.ok(p.el.find('explorer-past'));
    assert.equal(p.el.find('explorer-moves'), null);
    p.show({ position: START, rules: 'anywoli' });
    await sleep(DEBOUNCE_MS + 60);
    s.asked[1].answer({ error: 'malformed', message: 'no' }, 400);
    await sleep(10);
    assert.equal(body.explorer, 'error');
    assert.equal(p.el.find('explorer-error').text, 'error 400');
    p.destroy();
  } finally {
    s.restore();
  }
});
