// The course (/learn and /learn/<lesson>): short lessons, each one idea on a small prepared
// board. The learner plays on the real board with the real animation; the server judges each
// move (docs/api.md, "Lessons") and, for a miss, says why as a kind with its data, which this
// page puts in the reader's words. Progress is kept in this browser and, for a logged-in
// reader, with the account too (each gets what the other has), so it follows them to another
// device.

import { api, idle, sendMove } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { loadAccount } from './account.js';
import { explain } from './why.js';

const STORE = 'anywoli.lessons';

/** {done: {"relay#1": true, …}} from localStorage. */
export function loadProgress() {
  let p;
  try { p = JSON.parse(localStorage.getItem(STORE) || 'null'); } catch { p = null; }
  return p && typeof p === 'object' && p.done && typeof p.done === 'object' ? p : { done: {} };
}

function saveProgress(p) {
  try { localStorage.setItem(STORE, JSON.stringify(p)); } catch { /* kept for this page only */ }
}

function markDone(id, n) {
  const p = loadProgress();
  const key = `${id}#${n}`;
  p.done[key] = true;
  saveProgress(p);
  // The account's copy; a failure here is mended by the next sync, which sends everything.
  loadAccount().then((a) => { if (a) api('POST', '/lessons/progress', { done: [key] }); });
}

/** This browser's progress and the account's, merged both ways (when logged in). */
async function syncProgress(lessons) {
  const p = loadProgress();
  const account = await loadAccount();
  if (!account) return p;
  // Only keys the course still has: an old browser's stale key would refuse the whole list.
  const known = new Set(lessons.flatMap((l) => l.exercises.map((_, i) => `${l.id}#${i + 1}`)));
  const r = await api('POST', '/lessons/progress', { done: Object.keys(p.done).filter((k) => known.has(k)) });
  if (!r.ok) return p;
  for (const k of r.data.done) p.done[k] = true;
  saveProgress(p);
  return p;
}

function lessonDone(p, lesson) {
  return lesson.exercises.every((_, i) => p.done[`${lesson.id}#${i + 1}`]);
}

let course = null;
async function loadCourse() {
  if (course) return course;
  const r = await api('GET', '/lessons');
  if (r.ok) course = r.data.lessons;
  return r.ok ? course : null;
}

/** The goal of an exercise as one sentence. */
function goalText(g) {
  switch (g.kind) {
    case 'end_in': return t('ls_goal_end_in', { h: g.hole });
    case 'laps': return t('ls_goal_laps', { n: g.laps });
    case 'midsow_capture': return t('ls_goal_midsow');
    case 'give_nothing': return t('ls_goal_give_nothing');
    case 'last_seed_captures': return g.count === 1 ? t('ls_goal_last_seed_one') : t('ls_goal_last_seed', { n: g.count });
    case 'opponent_passes': return t('ls_goal_pass');
    case 'win_now': return t('ls_goal_win_now');
    case 'no_capture_for_opponent': return t('ls_goal_no_capture');
    case 'force_capture': return t('ls_goal_force');
    default: return g.kind;
  }
}

function endingText(e) {
  if (!e) return '';
  if (e.kind === 'stopped') return t('ls_end_stopped', { h: e.hole });
  if (e.kind === 'extra') return t('ls_end_extra', { h: e.hole });
  return t('ls_end_over');
}

/** Why a move missed, in one or two sentences: where it ended, then what was wanted. */
export function whyText(w) {
  switch (w.kind) {
    case 'ended_elsewhere': return endingText(w.ending) + ' ' + t('ls_why_ended_elsewhere', { h: w.want });
    case 'too_few_laps': return endingText(w.ending) + ' ' + t('ls_why_too_few_laps', { n: w.laps, want: w.want });
    case 'no_midsow_capture': return t('ls_why_no_midsow') + ' ' + endingText(w.ending);
    case 'gave_four': return t('ls_why_gave_four', { h: w.hole });
    case 'no_last_seed_capture': return endingText(w.ending) + ' ' + t('ls_why_no_last_seed');
    // Issue 36: "North still has seeds" was said also when North had none before the move
    // and the move sowed some into its row.
    case 'opponent_plays': return endingText(w.ending) + ' ' + t(w.fed ? 'ls_why_opponent_fed' : 'ls_why_opponent_plays');
    case 'game_goes_on': return endingText(w.ending) + ' ' + t('ls_why_game_goes_on');
    case 'not_ahead': return t('ls_why_not_ahead', { s: w.stores[0], n: w.stores[1] });
    case 'opponent_captures': return t('ls_why_opponent_captures', { m: w.reply, h: w.hole });
    case 'parried': return t('ls_why_parried', { m: w.reply });
    case 'missed_capture': return endingText(w.ending) + ' ' + t('ls_why_missed_capture');
    default: return w.kind;
  }
}

/** The course's overview: every lesson, with what this browser has done. */
export class CourseView {
  constructor(ui) {
    this.ui = ui;
    ui.setBody({ view: 'learn', learn: 'loading' });
    this.render();
  }

  destroy() {}
  refresh() { this.render(); }

  async render() {
    const { main, esc, errorText, setBody } = this.ui;
    document.title = t('app_title') + ' — ' + t('ls_course_title');
    const lessons = await loadCourse();
    if (!lessons) {
      main.innerHTML = `<section class="panel"><h1>${esc(t('ls_course_title'))}</h1><p class="error" role="alert">${esc(errorText({ data: { error: 'network' } }))}</p></section>`;
      setBody({ learn: 'error' });
      return;
    }
    const p = await syncProgress(lessons);
    const items = lessons.map((l, i) => {
      const done = lessonDone(p, l);
      const started = l.exercises.some((_, k) => p.done[`${l.id}#${k + 1}`]);
      return `<li class="lesson-item${done ? ' done' : ''}">
        <a href="/learn/${esc(l.id)}" data-link class="lesson-link" data-lesson="${esc(l.id)}">
          <span class="lesson-n">${esc(t('ls_lesson_n', { n: i + 1 }))}</span>
          <strong>${esc(t('ls_' + l.id + '_title'))}</strong>
          <span class="note">${esc(done ? t('ls_state_done') : started ? t('ls_state_started') : t('ls_exercises', { n: l.exercises.length }))}</span>
        </a></li>`;
    }).join('');
    const next = lessons.find((l) => !lessonDone(p, l));
    main.innerHTML = `
      <section class="panel learn" aria-labelledby="learn-heading">
        <h1 id="learn-heading">${esc(t('ls_course_title'))}</h1>
        <p class="tagline">${esc(t('ls_course_intro'))}</p>
        <p>${next ? `<a class="button primary" id="learn-start" href="/learn/${esc(next.id)}" data-link>${esc(t(Object.keys(p.done).length ? 'ls_continue' : 'ls_start'))}</a>` : `<span id="learn-finished">${esc(t('ls_course_done'))}</span> <a class="button primary" id="learn-play" href="/?level=1" data-link>${esc(t('new_game'))}</a>`}</p>
        <ol class="lesson-list">${items}</ol>
        <p class="note"><a href="/rules" data-link>${esc(t('ls_rules_link'))}</a></p>
      </section>
      <section class="panel story" id="story" aria-labelledby="story-heading">
        <h2 id="story-heading">${esc(t('ls_story_title'))}</h2>
        ${[1, 2, 3, 4, 5].map((i) => `<p>${esc(t('ls_story_' + i))}</p>`).join('')}
      </section>`;
    setBody({ learn: 'course' });
  }
}

/** One lesson: its idea, then its exercises one after the other. */
export class LessonView {
  constructor(ui, id) {
    this.ui = ui;
    this.id = id;
    this.n = 1;
    this.moves = [];
    this.busy = false;
    ui.setBody({ view: 'lesson', lesson: 'loading', busy: '0' });
    this.start();
  }

  destroy() { if (this.board) this.board.skip(); }
  refresh() { if (this.lesson) { this.build(); this.reset(); } }

  async start() {
    const { main, esc } = this.ui;
    const lessons = await loadCourse();
    const i = lessons ? lessons.findIndex((l) => l.id === this.id) : -1;
    if (i < 0) {
      this.ui.setBody({ lesson: 'missing' });
      main.innerHTML = `<section class="panel"><h1>${esc(t('ls_not_found'))}</h1><p><a href="/learn" data-link>${esc(t('ls_back'))}</a></p></section>`;
      return;
    }
    this.index = i;
    this.lesson = lessons[i];
    this.nextLesson = lessons[i + 1] || null;
    // Back where this reader left the lesson: the first exercise not done yet.
    const p = await syncProgress(lessons);
    const open = this.lesson.exercises.findIndex((_, k) => !p.done[`${this.id}#${k + 1}`]);
    this.n = open < 0 ? 1 : open + 1;
    this.build();
    this.reset();
  }

  get exercise() { return this.lesson.exercises[this.n - 1]; }

  build() {
    const { main, esc } = this.ui;
    const title = t('ls_' + this.id + '_title');
    document.title = t('app_title') + ' — ' + title;
    main.innerHTML = `
      <section class="panel lesson" aria-labelledby="lesson-heading">
        <p class="note"><a href="/learn" data-link>${esc(t('ls_back'))}</a> · ${esc(t('ls_lesson_n', { n: this.index + 1 }))}</p>
        <h1 id="lesson-heading">${esc(title)}</h1>
        <p class="lesson-idea">${esc(t('ls_' + this.id + '_intro'))}</p>
        <p class="note" id="lesson-count"></p>
        <p id="lesson-goal" class="lesson-goal"></p>
        <p id="lesson-status" class="status" aria-live="polite"></p>
        <details id="lesson-trace" class="lesson-trace" hidden><summary>${esc(t('ls_what_happened'))}</summary><ol id="lesson-trace-list"></ol></details>
        <div id="board" role="group" aria-label="${esc(title)}"></div>
        <div class="controls">
          <button type="button" id="lesson-retry">${esc(t('ls_retry'))}</button>
          <button type="button" class="primary" id="lesson-next" hidden></button>
        </div>
      </section>`;
    this.board = new Board(main.querySelector('#board'), (l) => this.play(l));
    this.board.orient(this.exercise.side, [this.exercise.side]);
    main.querySelector('#lesson-retry').addEventListener('click', () => this.reset());
    main.querySelector('#lesson-next').addEventListener('click', () => this.next());
  }

  setState(state, text) {
    this.state = state;
    this.ui.setBody({ lesson: state, exercise: String(this.n) });
    const el = this.ui.main.querySelector('#lesson-status');
    el.textContent = text;
    el.classList.toggle('your-turn', state === 'playing');
    el.classList.toggle('error', state === 'wrong');
  }

  reset() {
    const e = this.exercise;
    this.moves = [];
    this.board.skip();
    this.legal = e.legal;
    this.board.draw(e, { playable: this.legal });
    const $ = (q) => this.ui.main.querySelector(q);
    $('#lesson-count').textContent = t('ls_exercise_n', { k: this.n, n: this.lesson.exercises.length });
    $('#lesson-goal').textContent = goalText(e.goal);
    $('#lesson-next').hidden = true;
    $('#lesson-retry').hidden = false;
    $('#lesson-trace').hidden = true;
    this.setState('playing', t('ls_your_move'));
  }

  next() {
    if (this.n < this.lesson.exercises.length) {
      this.n += 1;
      this.reset();
    } else if (this.nextLesson) {
      this.ui.navigate('/learn/' + this.nextLesson.id);
    } else {
      this.ui.navigate('/learn');
    }
  }

  async play(letter) {
    const d = await sendMove(this, `/lessons/${this.id}/${this.n}/moves`, () => ({ moves: [...this.moves, letter] }));
    if (!d) return;
    for (const tr of d.traces) await this.board.animate(tr, this.ui.delay(), (text, show) => this.ui.say(text, show));
    // The line the next request carries: this move, then the opponent's answer to it.
    this.moves.push(letter, ...(d.reply || []));
    this.legal = d.legal;
    const shown = d.reply && d.reply.length ? d.reply[d.reply.length - 1] : letter;
    this.board.draw(d, { playable: this.legal, last: shown });
    const $ = (q) => this.ui.main.querySelector(q);
    // What the move (and the answer to it) did, lap by lap: open by itself after a miss,
    // whose one sentence cannot follow every relay.
    const lines = d.traces.flatMap((tr) => explain(tr));
    $('#lesson-trace-list').innerHTML = lines.map((l) => `<li>${this.ui.esc(l)}</li>`).join('');
    $('#lesson-trace').hidden = lines.length === 0;
    $('#lesson-trace').open = d.step === 'wrong';
    if (d.step === 'continue') {
      this.setState('playing', t('ls_again'));
    } else if (d.step === 'reply') {
      this.setState('playing', t('ls_reply', { m: d.reply.join(' ') }));
    } else if (d.step === 'done') {
      markDone(this.id, this.n);
      const last = this.n === this.lesson.exercises.length;
      this.setState('done', t('ls_done') + ' ' + (last ? t('ls_' + this.id + '_lesson') : ''));
      const next = $('#lesson-next');
      next.textContent = !last ? t('ls_next_exercise') : this.nextLesson ? t('ls_next_lesson') : t('ls_to_course');
      next.hidden = false;
      $('#lesson-retry').hidden = true;
      next.focus();
    } else {
      this.setState('wrong', whyText(d.why) + ' ' + t('ls_try_again'));
    }
    this.ui.say($('#lesson-status').textContent, false);
    idle(this);
  }
}
