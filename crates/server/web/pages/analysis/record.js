// The analysis board, part 4 of 5: the line as a record (its tags, moves and result) and
// copying it.

import { AnalysisMoves } from './moves.js';
import { api } from '../../api.js';
import { START } from '../../common.js';
import { parsePosition } from '../../board.js';


/** Tags (lines), the Result tag, a blank line, the moves wrapped at 80 columns, the result. */
export function writeRecord(tags, moves, result) {
  const lines = [...tags.filter((l) => !l.startsWith('[Result ')), `[Result "${result}"]`, ''];
  let line = '';
  for (const m of [...moves, result]) {
    if (line.length + 1 + m.length > 79) { lines.push(line); line = m; } else line = line ? line + ' ' + m : m;
  }
  lines.push(line);
  return lines.join('\n') + '\n';
}

export class AnalysisRecord extends AnalysisMoves {
  // ----------------------------------------------------------------------------------------
  // Copying
  async copy(text, done) {
    if (text === null) return;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'sr-only';
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    this.ui.say(done, true);
  }

  /** The record of the line from the start to the current node (docs/record-format.md): the
   * game's own record up to here on its line, else one made from the start and the moves. */
  async recordText() {
    const node = this.current;
    const moves = this.tree.path(node).map((n) => n.move);
    if (this.game && node.main) {
      if (!this.recordCache) {
        const r = await api('GET', `/games/${this.game.id}/record`);
        if (!r.ok) { this.ui.say(this.ui.errorText(r), true); return null; }
        this.recordCache = String(r.data);
      }
      if (node.depth === this.tree.mainEnd.depth) return this.recordCache;
      const tags = this.recordCache.split('\n').filter((l) => l.startsWith('[') && !/^\[(Result|Termination) /.test(l));
      return writeRecord(tags, moves, '*');
    }
    const tags = [`[Rules "${this.rules}"]`];
    if (this.seed !== null && this.seed !== undefined) tags.push(`[Seed "${this.seed}"]`);
    if (this.tree.root.position !== START) tags.push(`[Position "${this.tree.root.position}"]`);
    const st = parsePosition(node.position);
    const [s, n] = st.stores;
    const result = st.toMove !== null ? '*' : s > n ? '1-0' : s < n ? '0-1' : '1/2-1/2';
    return writeRecord(tags, moves, result);
  }
}
