// Tournaments' pure helpers (web/pages/tournaments/terms.js): countdowns, score sheets, the
// creation form's body, the once-per-game decision to take the player to their game, and the
// throttle of refetches.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import './env.js';
import { setLang } from '../web/i18n.js';
import {
  countdownText, timeLine, roundText, scoreText, sheetMarks, shouldOpen, openedGames, markOpened,
  throttle, tournamentBody, localDateTime, systemName, statusName,
} from '../web/pages/tournaments/terms.js';

await setLang('en');

/** A sessionStorage of one's own. */
function memoryStore() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => { m.set(k, String(v)); } };
}

test('countdowns: seconds rounded up, hours when there are any, days and hours beyond a day', () => {
  assert.equal(countdownText(0), '0:00');
  assert.equal(countdownText(-5000), '0:00');
  assert.equal(countdownText(4001), '0:05');
  assert.equal(countdownText(245000), '4:05');
  assert.equal(countdownText(3723000), '1:02:03');
  assert.equal(countdownText((2 * 24 + 3) * 3600000 + 59000), '2 d 3 h');
});

test('the line that counts down: start, arena end, next round; nothing once over', () => {
  const now = 1_000_000;
  assert.equal(timeLine({ status: 'upcoming', starts_at: now + 65000 }, now), 'Starts in 1:05');
  assert.equal(timeLine({ status: 'upcoming', starts_at: now - 1 }, now), 'Starting…');
  assert.equal(timeLine({ status: 'running', system: 'arena', ends_at: now + 600000 }, now), 'Ends in 10:00');
  assert.equal(timeLine({ status: 'running', system: 'swiss', next_round_at: now + 20000 }, now), 'Next round in 0:20');
  assert.equal(timeLine({ status: 'running', system: 'swiss', next_round_at: now - 1 }, now), 'Next round starting…');
  assert.equal(timeLine({ status: 'running', system: 'round-robin', next_round_at: null }, now), '');
  assert.equal(timeLine({ status: 'finished', system: 'arena', ends_at: now - 5 }, now), '');
});

test('rounds, systems and states in words', () => {
  assert.equal(roundText({ system: 'swiss', round: 2, rounds: 5 }), 'Round 2 of 5');
  assert.equal(roundText({ system: 'swiss', round: 0, rounds: 5 }), '');
  assert.equal(roundText({ system: 'arena', round: 0, rounds: null }), '');
  assert.equal(systemName('round-robin'), 'Round robin');
  assert.equal(systemName('knockout'), 'knockout', 'a system without words shows as itself');
  assert.equal(statusName('running'), 'Running');
});

test('scores: whole, or with ½', () => {
  assert.equal(scoreText(0), '0');
  assert.equal(scoreText(0.5), '½');
  assert.equal(scoreText(1.5), '1½');
  assert.equal(scoreText(12), '12');
  assert.equal(scoreText(null), '0');
});

test('an arena sheet: the points of each game, a doubled win marked, * for a game in play', () => {
  const marks = sheetMarks([
    { game: 'g1', round: 0, opponent: 'ben', result: 'win', points: 2, berserk: false },
    { game: 'g2', round: 0, opponent: 'eva', result: 'win', points: 4, berserk: false },
    { game: 'g3', round: 0, opponent: 'cai', result: 'loss', points: 0, berserk: true },
    { game: 'g4', round: 0, opponent: 'dan', result: null, points: 0, berserk: false },
  ], 'arena');
  assert.deepEqual(marks.map((m) => m.text), ['2', '4', '0', '*']);
  assert.deepEqual(marks.map((m) => m.double), [false, true, false, false]);
  assert.deepEqual(marks.map((m) => m.berserk), [false, false, true, false]);
  assert.equal(marks[0].game, 'g1');
  assert.equal(marks[0].title, 'Won · ben · 2 points');
  assert.equal(marks[3].title, 'In play · dan');
});

test('a Swiss sheet: W/D/L/bye per round, in round order, – for a round missed', () => {
  const marks = sheetMarks([
    { game: 'c', round: 3, opponent: 'eva', result: 'loss', points: 0 },
    { game: null, round: 2, opponent: null, result: 'bye', points: 1 },
    { game: 'a', round: 1, opponent: 'ben', result: 'win', points: 1 },
    { game: 'd', round: 4, opponent: 'cai', result: 'draw', points: 0.5 },
    { game: null, round: 5, opponent: null, result: 'absent', points: 0 },
  ], 'swiss');
  assert.deepEqual(marks.map((m) => m.text), ['W', 'B', 'L', 'D', '–']);
  assert.equal(marks[0].title, 'Round 1 · Won · ben');
  assert.equal(marks[1].title, 'Round 2 · Bye');
  assert.equal(marks[1].game, null);
  assert.deepEqual(sheetMarks(undefined, 'swiss'), []);
});

test('the marks follow the language', async () => {
  await setLang('cs');
  try {
    const marks = sheetMarks([{ round: 1, result: 'win' }, { round: 2, result: 'draw' }, { round: 3, result: 'loss' }], 'round-robin');
    assert.deepEqual(marks.map((m) => m.text), ['V', 'R', 'P']);
  } finally {
    await setLang('en');
  }
});

test('taken to a game by itself only once per tab, and never to the game on screen', () => {
  assert.equal(shouldOpen('g1', []), true);
  assert.equal(shouldOpen('g1', ['g0', 'g1']), false, 'opened before: Back from it does not bounce');
  assert.equal(shouldOpen('g1', [], 'g1'), false, 'the game shown');
  assert.equal(shouldOpen(null, []), false);
  assert.equal(shouldOpen('', []), false);
});

test('the games opened are kept in order, once each, the last 100', () => {
  const store = memoryStore();
  assert.deepEqual(openedGames(store), []);
  markOpened('a', store);
  markOpened('b', store);
  markOpened('a', store);
  assert.deepEqual(openedGames(store), ['b', 'a']);
  for (let i = 0; i < 150; i++) markOpened('g' + i, store);
  const list = openedGames(store);
  assert.equal(list.length, 100);
  assert.equal(list[99], 'g149');
  store.setItem('anywoli.tournamentGames', '{not json');
  assert.deepEqual(openedGames(store), []);
  assert.deepEqual(openedGames({ getItem: () => { throw new Error('no storage'); } }), []);
});

test('refetches at most once a second: a burst runs once now and once at the end', () => {
  let now = 0;
  const timers = [];
  const clock = {
    now: () => now,
    set: (f, d) => { const id = { f, at: now + d }; timers.push(id); return id; },
    clear: (id) => { const i = timers.indexOf(id); if (i >= 0) timers.splice(i, 1); },
  };
  const advance = (ms) => {
    now += ms;
    for (const tm of [...timers].sort((a, b) => a.at - b.at)) {
      if (tm.at <= now) { timers.splice(timers.indexOf(tm), 1); tm.f(); }
    }
  };
  let runs = 0;
  const th = throttle(() => { runs++; }, 1000, clock);
  th.call();
  assert.equal(runs, 1, 'the first at once');
  advance(200);
  th.call();
  th.call();
  advance(300);
  th.call();
  assert.equal(runs, 1);
  assert.equal(timers.length, 1, 'one run waiting for the whole burst');
  advance(500);
  assert.equal(runs, 2, 'a second after the first');
  advance(5000);
  th.call();
  assert.equal(runs, 3, 'after a quiet second, at once again');
  th.call();
  th.cancel();
  advance(5000);
  assert.equal(runs, 3, 'cancelled');
});

test('the creation form\'s body: only the fields of the system chosen', () => {
  const base = { name: '  Friday arena ', system: 'arena', clock: '3+2', rated: true, start: 'now', minutes: '60', rounds: '5', double: true, pace: 'manual', gap: '30' };
  assert.deepEqual(tournamentBody(base), { body: { name: 'Friday arena', system: 'arena', clock: '3+2', rated: true, minutes: 60 } });
  assert.deepEqual(tournamentBody({ ...base, system: 'swiss', pace: 'auto' }).body,
    { name: 'Friday arena', system: 'swiss', clock: '3+2', rated: true, rounds: 5 });
  assert.deepEqual(tournamentBody({ ...base, system: 'swiss', pace: 'gap' }).body.round_gap_s, 30);
  assert.deepEqual(tournamentBody({ ...base, system: 'round-robin', rated: false }).body,
    { name: 'Friday arena', system: 'round-robin', clock: '3+2', rated: false, double: true, round_gap_s: null, manual_rounds: true });
  const more = tournamentBody({ ...base, rules: 'anywoli-it', minRating: '1500', minRatedGames: '10', password: 'pw', description: ' Hello \n' }).body;
  assert.equal(more.rules, 'anywoli-it');
  assert.equal(more.min_rating, 1500);
  assert.equal(more.min_rated_games, 10);
  assert.equal(more.password, 'pw');
  assert.equal(more.description, 'Hello');
  assert.equal(tournamentBody({ ...base, clock: 'other', clockOther: ' 15+10 ' }).body.clock, '15+10');
  assert.equal(tournamentBody({ ...base, clock: 'other', clockOther: '0.5+0' }).body.clock, '0.5+0');
});

test('the creation form\'s mistakes, each with its words', () => {
  const base = { name: 'Cup', system: 'arena', clock: '3+2', rated: true, start: 'now', minutes: '60', rounds: '5' };
  assert.equal(tournamentBody({ ...base, name: ' a ' }).error, 'tm_err_name');
  assert.equal(tournamentBody({ ...base, name: 'x'.repeat(41) }).error, 'tm_err_name');
  assert.equal(tournamentBody({ ...base, system: 'knockout' }).error, 'tm_err_system');
  assert.equal(tournamentBody({ ...base, clock: 'other', clockOther: '3d' }).error, 'tm_err_clock');
  assert.equal(tournamentBody({ ...base, clock: 'other', clockOther: '' }).error, 'tm_err_clock');
  assert.equal(tournamentBody({ ...base, minutes: '10' }).error, 'tm_err_minutes');
  assert.equal(tournamentBody({ ...base, minutes: '60.5' }).error, 'tm_err_minutes');
  assert.equal(tournamentBody({ ...base, system: 'swiss', rounds: '16' }).error, 'tm_err_rounds');
  assert.equal(tournamentBody({ ...base, system: 'swiss', pace: 'gap', gap: '-1' }).error, 'tm_err_gap');
  assert.equal(tournamentBody({ ...base, minRating: 'lots' }).error, 'tm_err_min_rating');
  assert.equal(tournamentBody({ ...base, minRatedGames: '-3' }).error, 'tm_err_min_games');
  assert.equal(tournamentBody({ ...base, description: 'x'.repeat(1001) }).error, 'tm_err_description');
  assert.equal(tournamentBody({ ...base, start: 'later', startsAt: '' }).error, 'tm_err_start');
});

test('a later start: the field\'s local time as ms; one past is refused', () => {
  const now = new Date(2030, 4, 17, 9, 30).getTime();
  const at = new Date(2030, 4, 17, 18, 5).getTime();
  const value = localDateTime(at);
  assert.equal(value, '2030-05-17T18:05');
  const base = { name: 'Cup', system: 'arena', clock: '3+2', rated: true, minutes: '60' };
  assert.equal(tournamentBody({ ...base, start: 'later', startsAt: value }, now).body.starts_at, at);
  assert.equal(tournamentBody({ ...base, start: 'later', startsAt: localDateTime(now - 3600000) }, now).error, 'tm_err_start_past');
});
