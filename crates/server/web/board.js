// The board: 24 hole buttons and two stores, drawn from the viewer's side, and the animation
// of a move from the server's trace (docs/trace.md), lap by lap and seed by seed.

import { t, seeds } from './i18n.js';
import { sound } from './prefs.js';

export const SIDES = ['south', 'north'];

export function letterOf(i) {
  return i < 12 ? String.fromCharCode(97 + i) : String.fromCharCode(65 + i - 12);
}

export function indexOf(letter) {
  const c = letter.charCodeAt(0);
  if (c >= 97 && c <= 108) return c - 97;
  if (c >= 65 && c <= 76) return c - 65 + 12;
  return -1;
}

export function ownerOf(i) {
  return i < 12 ? 'south' : 'north';
}

/** Reads a position string (docs/rules.md) into holes, stores and the side to move. */
export function parsePosition(text) {
  const [rows, side, s, n] = text.split(' ');
  const [a, b] = rows.split('/');
  const holes = a.split(',').concat(b.split(',')).map(Number);
  const toMove = side === 's' ? 'south' : side === 'n' ? 'north' : null;
  return { holes, stores: [Number(s), Number(n)], toMove };
}

// Seeds lie on a sunflower spiral so that any count up to 24 looks like a heap, not a grid.
const SPOTS = Array.from({ length: 24 }, (_, k) => {
  const r = 3.1 * Math.sqrt(k + 0.6);
  const a = k * 2.39996;
  return [20 + r * Math.cos(a), 20 + r * Math.sin(a)];
});
const SEED_COLOURS = ['#f3e2c0', '#e9cf9a', '#f7ecd6', '#dcc08a'];

function seedSvg(n) {
  const dots = [];
  for (let k = 0; k < Math.min(n, SPOTS.length); k++) {
    const [x, y] = SPOTS[k];
    dots.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5" fill="${SEED_COLOURS[k % 4]}"/>`);
  }
  return `<svg class="seeds" viewBox="0 0 40 40" aria-hidden="true" focusable="false">${dots.join('')}</svg>`;
}

/** Sets an attribute only when it differs: an unchanged write still costs the page a style pass. */
function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

function sleep(ms) {
  return new Promise((res) => setTimeout(res, ms));
}

export class Board {
  /**
   * @param el the element to draw into
   * @param onPlay called with a hole letter when a playable hole is pressed
   */
  constructor(el, onPlay) {
    this.el = el;
    this.onPlay = onPlay;
    this.bottom = 'south';
    this.me = [];
    this.skipping = false;
    this.wake = null;
    el.classList.add('board');
    el.innerHTML = `
      <div class="store store-top"><span class="store-name"></span>${seedSvg(0)}<span class="count"></span></div>
      <div class="row row-top"></div>
      <div class="row row-bottom"></div>
      <div class="store store-bottom"><span class="store-name"></span>${seedSvg(0)}<span class="count"></span></div>
      <div class="hand" aria-hidden="true"></div>`;
    this.holes = [];
    /** The seed count each hole's picture shows (see draw). */
    this.shown = new Array(24).fill(-1);
    for (let i = 0; i < 24; i++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'hole';
      b.dataset.hole = letterOf(i);
      b.innerHTML = `${seedSvg(0)}<span class="count" aria-hidden="true"></span><span class="letter" aria-hidden="true">${letterOf(i)}</span>`;
      b.addEventListener('click', () => {
        if (b.getAttribute('aria-disabled') !== 'true') this.onPlay(letterOf(i));
      });
      b.addEventListener('focus', () => { this.stopChosen = true; this.tabStop(i); });
      this.holes.push(b);
    }
    this.stores = [el.querySelector('.store-bottom'), el.querySelector('.store-top')];
    // The board is one stop of the Tab key (issue 36: 24 stops stood between a keyboard user
    // and the buttons below); the arrows move between holes, Enter or Space plays one.
    el.addEventListener('keydown', (e) => this.key(e));
    this.layout();
  }

  /** Makes hole `i` the board's one Tab stop. */
  tabStop(i) {
    this.holes.forEach((b, k) => setAttr(b, 'tabindex', k === i ? '0' : '-1'));
  }

  /**
   * Arrow keys on a hole move the focus to the nearest hole that way, as the board is laid
   * out on screen (also turned a quarter on a phone); Home and End to the ends of its row.
   * The page's own arrow keys (stepping through moves) work everywhere else.
   */
  key(e) {
    const b = e.target.closest && /** @type {any} */ (e.target).closest('.hole');
    if (!b || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    let next;
    if (e.key === 'Home' || e.key === 'End') {
      const row = [...b.parentElement.children];
      next = e.key === 'Home' ? row[0] : row[row.length - 1];
    } else if (dirs[e.key]) {
      next = this.nearest(b, dirs[e.key]);
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (next) next.focus();
  }

  /** The hole nearest `from` in direction `[dx, dy]` on screen, or null at the edge. */
  nearest(from, [dx, dy]) {
    const centre = (el) => {
      const r = el.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    };
    const [x0, y0] = centre(from);
    let best = null;
    let bestCost = Infinity;
    for (const h of this.holes) {
      if (h === from) continue;
      const [x, y] = centre(h);
      const along = (x - x0) * dx + (y - y0) * dy;
      const across = Math.abs((x - x0) * dy) + Math.abs((y - y0) * dx);
      // Ahead, and more ahead than aside; straight lines first.
      if (along <= 1 || across > along) continue;
      const cost = along + 3 * across;
      if (cost < bestCost) { bestCost = cost; best = h; }
    }
    return best;
  }

  /** Which side's row is nearest the viewer, and which seats the viewer holds. */
  orient(bottom, me) {
    this.me = me;
    if (bottom !== this.bottom) {
      this.bottom = bottom;
      this.layout();
    }
  }

  layout() {
    // Moving the holes would drop the keyboard's focus: it is put back where it was.
    const focused = this.holes.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    const top = this.el.querySelector('.row-top');
    const bot = this.el.querySelector('.row-bottom');
    top.replaceChildren();
    bot.replaceChildren();
    const mine = this.bottom === 'south' ? 0 : 12;
    const theirs = 12 - mine;
    // The near row runs left to right in sowing order; the far row comes back right to left.
    for (let k = 0; k < 12; k++) bot.appendChild(this.holes[mine + k]);
    for (let k = 11; k >= 0; k--) top.appendChild(this.holes[theirs + k]);
    const b = this.bottom === 'south' ? 0 : 1;
    this.stores = [];
    this.stores[b] = this.el.querySelector('.store-bottom');
    this.stores[1 - b] = this.el.querySelector('.store-top');
    this.el.dataset.bottom = this.bottom;
    if (focused >= 0) this.holes[focused].focus();
    // Until the player has been on the board, its Tab stop is the first hole of the near row.
    if (!this.stopChosen) this.tabStop(mine);
  }

  holeLabel(i, n) {
    const owner = ownerOf(i);
    const h = letterOf(i);
    if (this.me.length === 1) {
      return t(this.me[0] === owner ? 'hole_yours' : 'hole_theirs', { h, seeds: seeds(n) });
    }
    return t(owner === 'south' ? 'hole_south' : 'hole_north', { h, seeds: seeds(n) });
  }

  storeLabel(side, n) {
    if (this.me.length === 1) {
      return t(this.me[0] === side ? 'store_yours' : 'store_theirs', { seeds: seeds(n) });
    }
    return t(side === 'south' ? 'store_south' : 'store_north', { seeds: seeds(n) });
  }

  /**
   * Draws a state: {holes, stores}, with `playable` the letters that may be pressed now,
   * `last` the letter of the last move (kept marked) and `hand` the seeds being sown.
   */
  draw(state, { playable = [], last = null, hand = 0, active = -1, sown = -1 } = {}) {
    const can = new Set(playable);
    for (let i = 0; i < 24; i++) {
      const b = this.holes[i];
      const n = state.holes[i];
      const letter = letterOf(i);
      // Only what changed is written: a sowing step changes one hole, and rewriting all 26
      // pictures on every step cost a phone (and the browser tests) most of a move's time.
      if (this.shown[i] !== n) {
        b.querySelector('.seeds').outerHTML = seedSvg(n);
        b.querySelector('.count').textContent = String(n);
        this.shown[i] = n;
      }
      setAttr(b, 'aria-label', this.holeLabel(i, n) + (letter === last ? ', ' + t('last_move') : ''));
      const ok = can.has(letter);
      // aria-disabled keeps every hole focusable and readable while showing which can be played.
      setAttr(b, 'aria-disabled', ok ? 'false' : 'true');
      b.classList.toggle('playable', ok);
      b.classList.toggle('last', letter === last);
      b.classList.toggle('active', i === active);
      b.classList.toggle('sown', i === sown);
      b.classList.toggle('mine', this.me.includes(ownerOf(i)));
    }
    for (let s = 0; s < 2; s++) {
      const el = this.stores[s];
      const n = state.stores[s];
      el.querySelector('.store-name').textContent = this.me.length === 1
        ? (this.me[0] === SIDES[s] ? t('you') : t(SIDES[s]))
        : t(SIDES[s]);
      if (el.dataset.shown !== String(n)) {
        el.querySelector('.seeds').outerHTML = seedSvg(Math.min(n, 24));
        el.querySelector('.count').textContent = String(n);
        el.dataset.shown = String(n);
      }
      setAttr(el, 'aria-label', this.storeLabel(SIDES[s], n));
      setAttr(el, 'role', 'img');
    }
    const handEl = this.el.querySelector('.hand');
    handEl.textContent = hand > 0 ? t('in_hand', { n: hand }) : '';
    handEl.classList.toggle('shown', hand > 0);
  }

  /** Cuts a running animation short: every remaining step happens at once. */
  skip() {
    this.skipping = true;
    if (this.wake) this.wake();
  }

  wait(ms) {
    if (this.skipping || ms <= 0) return Promise.resolve();
    return new Promise((res) => {
      const timer = setTimeout(res, ms);
      this.wake = () => { clearTimeout(timer); res(); };
    });
  }

  flyToStore(i, side) {
    if (this.skipping || matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const from = this.holes[i].getBoundingClientRect();
    const to = this.stores[side === 'south' ? 0 : 1].getBoundingClientRect();
    const f = document.createElement('div');
    f.className = 'flying';
    f.innerHTML = seedSvg(4);
    f.style.left = `${from.left + from.width / 2 - 20}px`;
    f.style.top = `${from.top + from.height / 2 - 20}px`;
    document.body.appendChild(f);
    requestAnimationFrame(() => {
      f.style.transform = `translate(${to.left + to.width / 2 - (from.left + from.width / 2)}px, ${to.top + to.height / 2 - (from.top + from.height / 2)}px)`;
      f.style.opacity = '0.2';
    });
    setTimeout(() => f.remove(), 700);
  }

  /**
   * Plays a move's trace on the board. `delay` is the time per seed in ms (0: no animation);
   * `say` receives the announcements (captures, extra moves, passes, the end). One sound per
   * move, as its sowing starts (a softer click when it goes on from a relay hole).
   */
  async animate(trace, delay, say) {
    this.skipping = delay <= 0;
    sound.move();
    const st = parsePosition(trace.before);
    let hand = 0;
    this.el.classList.add('animating');
    for (const ev of trace.events) {
      const i = ev.hole ? indexOf(ev.hole) : -1;
      switch (ev.type) {
        case 'lap':
          st.holes[i] = 0;
          hand = ev.seeds;
          if (!this.skipping) this.draw(st, { hand, active: i, last: trace.move });
          if (ev.lap > 1) {
            say(t('relay', { n: ev.seeds, h: ev.hole }), false);
            if (!this.skipping) sound.lap();
          }
          await this.wait(delay * 1.5);
          break;
        case 'sow':
          st.holes[i] = ev.count;
          hand -= 1;
          if (!this.skipping) this.draw(st, { hand, sown: i, last: trace.move });
          await this.wait(delay);
          break;
        case 'capture': {
          const by = ev.by === 'south' ? 0 : 1;
          this.flyToStore(i, ev.by);
          st.holes[i] = 0;
          st.stores[by] += 4;
          if (!this.skipping) this.draw(st, { hand, sown: i, last: trace.move });
          say(t(ev.kind === 'last_seed' ? 'capture_last' : 'capture_mid', { side: t(ev.by), h: ev.hole }), true);
          await this.wait(delay * 4);
          break;
        }
        case 'stop':
          await this.wait(delay);
          break;
        case 'extra_move':
          say(t('extra_move', { side: t(ev.side) }), true, true);
          await this.wait(delay * 4);
          break;
        case 'pass':
          say(t('pass', { side: t(ev.side) }), true, true);
          await this.wait(delay * 4);
          break;
        case 'game_over':
          if (ev.reason === 'last_seeds') say(t('last_seeds', { n: ev.seeds, side: t(ev.to) }), true);
          else say(t('by_quiet'), true);
          break;
        default:
          break;
      }
    }
    this.el.classList.remove('animating');
    this.skipping = false;
    this.wake = null;
  }
}

export { sleep };
