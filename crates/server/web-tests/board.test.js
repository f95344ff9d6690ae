// The pure parts of the board, the clock, the move tree, positions and the lobby's filter.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import './env.js';
import { setLang } from '../web/i18n.js';
import { letterOf, indexOf, ownerOf, parsePosition } from '../web/board.js';
import { clockName, formatClock } from '../web/clock.js';
import { MoveTree } from '../web/tree.js';
import { readPosition, writePosition, refusalText, TOTAL } from '../web/lib/position.js';
import { passes } from '../web/pages/lobby/terms.js';
import { START, esc } from '../web/common.js';

test('holes: letters a-l are South\'s, A-L North\'s, both ways', () => {
  for (let i = 0; i < 24; i++) assert.equal(indexOf(letterOf(i)), i);
  assert.equal(letterOf(0), 'a');
  assert.equal(letterOf(11), 'l');
  assert.equal(letterOf(12), 'A');
  assert.equal(letterOf(23), 'L');
  assert.equal(indexOf('m'), -1);
  assert.equal(indexOf('M'), -1);
  assert.equal(ownerOf(11), 'south');
  assert.equal(ownerOf(12), 'north');
});

test('a position string read for the board', () => {
  const p = parsePosition(START);
  assert.equal(p.holes.length, 24);
  assert.ok(p.holes.every((h) => h === 4));
  assert.deepEqual(p.stores, [0, 0]);
  assert.equal(p.toMove, 'south');
  const q = parsePosition('0,0,0,0,0,0,0,0,0,0,0,3/1,0,0,0,0,0,0,0,0,0,0,0 n 40 52 s s 7 80');
  assert.equal(q.holes[11], 3);
  assert.equal(q.holes[12], 1);
  assert.deepEqual(q.stores, [40, 52]);
  assert.equal(q.toMove, 'north');
  assert.equal(parsePosition('0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 s s 0 90').toMove, null);
});

test('the editor\'s fields and the position string, both ways', () => {
  const f = readPosition(START);
  assert.equal(f.holes.length, 24);
  assert.equal(f.toMove, 'south');
  assert.equal(f.last, 'none', '"-": nobody has captured yet');
  assert.equal(writePosition(f), START);
  const text = '1,2,3,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,2 n 40 48 s n 12 71';
  const g = readPosition(text);
  assert.deepEqual(g.stores, ['40', '48']);
  assert.equal(g.last, 'south');
  assert.equal(g.first, 'north');
  assert.equal(writePosition(g), text);
  assert.equal(readPosition('4,4 s 0 0 - - 0 0'), null);
  assert.equal(readPosition(START.replace(' 0 0 - -', ' 0 - -')), null);
  // A count that is not a whole number is an empty field, which the server then names.
  assert.equal(readPosition(START.replace('s 0 0', 's x 0')).stores[0], '');
});

test('what is wrong with a position, in words', async () => {
  await setLang('en');
  assert.equal(TOTAL, 96);
  assert.equal(refusalText({ kind: 'seed_total', found: 97 }),
    '97 seeds on the board and in the stores: there must be 96 — take one away.');
  assert.notEqual(refusalText({ kind: 'seed_total', found: 90 }), refusalText({ kind: 'seed_total', found: 91 }));
});

test('clocks: names of time controls and the time left', async () => {
  await setLang('en');
  assert.equal(clockName('5+3'), '5 min + 3 s per move');
  assert.notEqual(clockName(''), clockName('1d'));
  assert.notEqual(clockName('1d'), clockName('3d'));
  assert.equal(formatClock(9500), '9.5');
  assert.equal(formatClock(-20), '0.0');
  assert.equal(formatClock(65000), '1:05');
  assert.equal(formatClock(600000), '10:00');
  assert.equal(formatClock(3723000), '1:02:03');
  assert.ok(formatClock(2 * 86400000 + 5 * 3600000).includes('2'));
});

test('the move tree: the main line, a branch, following a known move, taking back', () => {
  const tree = new MoveTree('p0', ['e', 'F'], ['p0', 'p1', 'p2']);
  const root = tree.get('0');
  assert.equal(root.position, 'p0');
  assert.equal(tree.childBy(root, 'e').id, '1');
  assert.equal(tree.mainEnd.id, '2');
  assert.equal(tree.get('2').position, 'p2');
  assert.equal(tree.get('2').depth, 2);
  const known = tree.follow(root, 'e', 'p1');
  assert.deepEqual([known.node.id, known.added], ['1', false], 'a move the tree has is not a new branch');
  const branch = tree.follow(root, 'a', 'q1');
  assert.deepEqual([branch.node.id, branch.added], ['b1', true]);
  assert.equal(tree.parentOf(branch.node).id, '0');
  const deeper = tree.follow(branch.node, 'B', 'q2').node;
  assert.equal(deeper.id, 'b2');
  assert.equal(tree.removable(tree.get('1')), false, 'the game\'s own moves stay');
  assert.equal(tree.remove(branch.node).id, '0');
  assert.equal(tree.get('b2'), null, 'what followed the branch went with it');
  assert.equal(tree.childBy(root, 'a'), null);
});

test('the lobby\'s filter of open seeks', () => {
  const any = { speed: '', kind: '', min: '', max: '' };
  const seek = { category: 'blitz', rated: true, rating: 1512.4 };
  assert.ok(passes(seek, any));
  assert.ok(passes(seek, { ...any, speed: 'blitz', kind: 'rated', min: 1500, max: 1512 }));
  assert.ok(!passes(seek, { ...any, speed: 'rapid' }));
  assert.ok(!passes(seek, { ...any, kind: 'casual' }));
  assert.ok(!passes(seek, { ...any, min: 1513 }));
  assert.ok(!passes({ category: 'blitz' }, { ...any, max: 2000 }), 'no rating: out of any range');
});

test('text in HTML is escaped', () => {
  assert.equal(esc('<a href="x">Tom & Jerry\'s</a>'), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
  assert.equal(esc(5), '5');
});
