// The clocks of a timed game: the server says what each side has left as of a message and
// whose time runs; the page counts the running one down from when that message arrived, and
// takes the server's figures again with every message (the server's clock is the truth).

import { t } from './i18n.js';

/** Low time: under 10 s, or under a tenth of the initial time if that is less than a minute. */
function isLow(ms, control) {
  const m = /^([\d.]+)\+/.exec(control || '');
  const initial = m ? Number(m[1]) * 60000 : 0;
  return ms < Math.max(10000, Math.min(60000, initial / 10));
}

/** A time control's name in words ('5+3', '3d'; '' or null is none). */
export function clockName(c) {
  if (!c) return t('clock_none');
  const d = /^(\d+)d$/.exec(c);
  if (d) return d[1] === '1' ? t('clock_corr_1') : t('clock_corr', { d: d[1] });
  const [m, s] = c.split('+');
  return t('clock_rt', { m, s });
}

/** `m:ss`, `h:mm:ss`, tenths under 10 s, days and hours for correspondence. */
export function formatClock(ms) {
  ms = Math.max(0, ms);
  if (ms >= 86400000) {
    const d = Math.floor(ms / 86400000);
    const h = Math.floor((ms % 86400000) / 3600000);
    return t('clock_days', { d, h });
  }
  const s = ms / 1000;
  if (s < 10) return s.toFixed(1);
  const total = Math.floor(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export class Clocks {
  /** `top` and `bottom`: the elements the two clocks are drawn in; `onLow` is called once when
   * the viewer's own time gets low. */
  constructor(top, bottom, onLow) {
    this.els = { top, bottom };
    this.onLow = onLow;
    this.clock = null;
    this.received = 0;
    this.warned = false;
    this.timer = null;
  }

  /** A new state: `clock` as the API gives it (or null), `bottom` the side drawn below, `mine`
   * the viewer's side (or null when watching). */
  update(clock, bottom, mine) {
    this.clock = clock;
    this.received = performance.now();
    this.sides = { bottom, top: bottom === 'south' ? 'north' : 'south' };
    this.mine = mine;
    for (const el of Object.values(this.els)) el.hidden = !clock;
    clearInterval(this.timer);
    if (!clock) return;
    this.draw();
    if (clock.running) this.timer = setInterval(() => this.draw(), 100);
  }

  left(side) {
    const c = this.clock;
    const ms = c[side];
    return c.running === side ? ms - (performance.now() - this.received) : ms;
  }

  draw() {
    const c = this.clock;
    if (!c) return;
    for (const pos of ['top', 'bottom']) {
      const side = this.sides[pos];
      const el = this.els[pos];
      const ms = this.left(side);
      const low = c.running === side && !/d$/.test(c.control) && isLow(ms, c.control);
      el.textContent = '';
      const name = document.createElement('span');
      name.className = 'clock-side';
      name.textContent = t(side);
      const time = document.createElement('span');
      time.className = 'clock-time';
      time.textContent = formatClock(ms);
      el.append(name, time);
      el.classList.toggle('running', c.running === side);
      el.classList.toggle('low', low);
      el.setAttribute('aria-label', `${t(side)}: ${formatClock(ms)}`);
      if (low && side === this.mine && !this.warned) {
        this.warned = true;
        this.onLow();
      }
    }
    if (!c.running) clearInterval(this.timer);
  }

  stop() {
    clearInterval(this.timer);
  }
}
