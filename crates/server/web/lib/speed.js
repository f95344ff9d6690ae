// How fast sowing is animated: the reader's choice, kept in the browser, else the device's
// reduced-motion setting.

export const SPEEDS = { slow: 380, normal: 150, fast: 50, off: 0 };

export function speed() {
  const s = localStorage.getItem('anywoli.speed');
  if (s && s in SPEEDS) return s;
  return matchMedia('(prefers-reduced-motion: reduce)').matches ? 'off' : 'normal';
}
