// "Why?": a move's trace (docs/trace.md) told lap by lap in sentences — why the sowing went
// where it went and who took what. The game page shows it for the move on the board.

import { t, tn } from './i18n.js';

/** The sentences that explain `trace`, in order. */
export function explain(trace) {
  const out = [];
  let lap = null;
  const flush = () => {
    if (!lap) return;
    const holes = lap.sown.join(' ');
    out.push(lap.n === 1
      ? tn('why_lap1', lap.seeds, { side: t(trace.mover), h: lap.hole, holes })
      : tn('why_relay', lap.seeds, { h: lap.hole, holes }));
    out.push(...lap.after);
    lap = null;
  };
  for (const ev of trace.events) {
    switch (ev.type) {
      case 'lap':
        flush();
        lap = { n: ev.lap, hole: ev.hole, seeds: ev.seeds, sown: [], after: [] };
        break;
      case 'sow':
        if (lap) lap.sown.push(ev.hole);
        break;
      case 'capture': {
        const text = ev.kind === 'last_seed'
          ? t('why_capture_last', { h: ev.hole, side: t(ev.by) })
          : t('why_capture_mid', { h: ev.hole, side: t(ev.by) });
        if (lap) lap.after.push(text); else out.push(text);
        break;
      }
      case 'stop':
        if (lap) lap.after.push(t('why_stop', { h: ev.hole })); else out.push(t('why_stop', { h: ev.hole }));
        break;
      case 'extra_move':
        flush();
        out.push(t('extra_move', { side: t(ev.side) }));
        break;
      case 'pass':
        flush();
        out.push(t('pass', { side: t(ev.side) }));
        break;
      case 'game_over':
        flush();
        out.push(ev.reason === 'last_seeds' ? t('last_seeds', { n: ev.seeds, side: t(ev.to) }) : t('by_quiet'));
        break;
      default:
        break;
    }
  }
  flush();
  return out;
}
