// A stub of the puzzle composer (issue 13), written by the board editor's author so that
// "Make a puzzle" can be tested before the real composer lands; the puzzles work replaces it.

export function mountComposer(el, { position, rules }) {
  el.textContent = 'composer';
  el.dataset.position = position;
  el.dataset.rules = rules;
}
