// The DOM helper (web/lib/h.js) on a minimal document: text stays text, attributes are set, not
// parsed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import './env.js';

/** Just enough of a document to see what h() builds, written out as HTML would be. */
class Node0 {
  constructor(text) { this.text = text; }
  get outer() { return this.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'); }
}
class Element0 {
  constructor(tag) { this.tag = tag; this.attrs = new Map(); this.children = []; this.dataset = {}; }
  setAttribute(k, v) { this.attrs.set(k, v); }
  appendChild(c) { this.children.push(c); return c; }
  replaceChildren() { this.children = []; }
  get outer() {
    const data = Object.entries(this.dataset).map(([k, v]) => [`data-${k}`, v]);
    const attrs = [...this.attrs, ...data].map(([k, v]) => ` ${k}="${String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join('');
    return `<${this.tag}${attrs}>${this.children.map((c) => c.outer).join('')}</${this.tag}>`;
  }
}
document.createElement = (tag) => new Element0(tag);
document.createTextNode = (text) => new Node0(text);

const { h, fill } = await import('../web/lib/h.js');

test('text is text, whatever it holds', () => {
  const name = '<img src=x onerror=alert(1)>&amp;';
  const el = h('p', { class: 'who' }, 'From ', h('strong', null, name), '!');
  assert.equal(el.outer, '<p class="who">From <strong>&lt;img src=x onerror=alert(1)&gt;&amp;amp;</strong>!</p>');
});

test('attributes: values set as given, true empty, false and null left out; data-* from dataset', () => {
  const el = h('button', { type: 'button', title: 'a "b"', disabled: true, hidden: false, 'aria-label': null, dataset: { ply: 3 } });
  assert.equal(el.outer, '<button type="button" title="a &quot;b&quot;" disabled="" data-ply="3"></button>');
});

test('children: numbers, nested arrays, and nothing for null, undefined and false', () => {
  const el = h('ol', null, [1, [h('li', null, 'a'), null], false, undefined, 0]);
  assert.equal(el.outer, '<ol>1<li>a</li>0</ol>');
});

test('fill replaces what an element holds', () => {
  const el = h('div', null, 'old');
  fill(el, h('span', null, 'new'), ' ', 'text');
  assert.equal(el.outer, '<div><span>new</span> text</div>');
});
