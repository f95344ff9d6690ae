// The analysis board's move tree (issue 13): the game's moves are the main line, a move played
// off it starts a branch, and branches of branches nest. Nodes are positions; a node's first
// child is the line it goes on with, the others are variations. The tree is kept in the tab's
// sessionStorage (per game, or per position) so that a reload keeps the branches.

/** Main-line nodes are named by their ply ("0" the start, "12" after move 12); branch nodes
 * "b1", "b2"… in the order they were made. */
export class MoveTree {
  /**
   * @param rootPosition the position string the tree starts from
   * @param mainMoves the game's moves (none for a position), with `positions[k]` the
   *   position after `k` of them
   */
  constructor(rootPosition, mainMoves = [], positions = []) {
    this.nodes = new Map();
    this.nextBranch = 1;
    this.hasGame = mainMoves.length > 0 || positions.length > 0;
    this.root = this.put({ id: '0', parent: null, move: null, position: rootPosition, main: this.hasGame });
    let parent = this.root;
    mainMoves.forEach((move, k) => {
      parent = this.put({ id: String(k + 1), parent: parent.id, move, position: positions[k + 1], main: true });
    });
    this.mainEnd = parent;
  }

  put({ id, parent, move, position, main }) {
    const node = { id, parent, move, position, main: Boolean(main), children: [], depth: 0 };
    if (parent !== null) {
      const p = this.nodes.get(parent);
      node.depth = p.depth + 1;
      p.children.push(id);
    }
    this.nodes.set(id, node);
    return node;
  }

  get(id) {
    return this.nodes.get(id) || null;
  }

  parentOf(node) {
    return node.parent === null ? null : this.nodes.get(node.parent);
  }

  /** The child of `node` reached by `move`, if the tree has it. */
  childBy(node, move) {
    for (const id of node.children) {
      const c = this.nodes.get(id);
      if (c.move === move) return c;
    }
    return null;
  }

  /** Follows `move` from `node`: the child the tree has, else a new branch. */
  follow(node, move, position) {
    const known = this.childBy(node, move);
    if (known) return { node: known, added: false };
    const id = 'b' + this.nextBranch++;
    return { node: this.put({ id, parent: node.id, move, position, main: false }), added: true };
  }

  /** Whether `node` may be taken back: never the start, never the game's own moves. */
  removable(node) {
    return node.parent !== null && !node.main;
  }

  /** Takes back `node` and everything after it; answers its parent (or null if refused). */
  remove(node) {
    if (!this.removable(node)) return null;
    const parent = this.parentOf(node);
    parent.children = parent.children.filter((id) => id !== node.id);
    const stack = [node.id];
    while (stack.length) {
      const id = stack.pop();
      const n = this.nodes.get(id);
      stack.push(...n.children);
      this.nodes.delete(id);
    }
    return parent;
  }

  /** The nodes from the start to `node`, without the start. */
  path(node) {
    const out = [];
    for (let n = node; n && n.parent !== null; n = this.parentOf(n)) out.push(n);
    return out.reverse();
  }

  /** The end of the line `node` goes on with (first children). */
  lineEnd(node) {
    let n = node;
    while (n.children.length) n = this.nodes.get(n.children[0]);
    return n;
  }

  /** The other moves played from `node`'s parent, `node` included, in order. */
  siblings(node) {
    const p = this.parentOf(node);
    return p ? p.children.map((id) => this.nodes.get(id)) : [node];
  }

  /** What sessionStorage keeps: the branches, parents before children. */
  save(current) {
    const branches = [];
    const walk = (n) => {
      for (const id of n.children) {
        const c = this.nodes.get(id);
        if (!c.main) branches.push({ id: c.id, parent: c.parent, move: c.move, position: c.position });
        walk(c);
      }
    };
    walk(this.root);
    return { v: 1, next: this.nextBranch, current, branches };
  }

  /** Puts saved branches back where their parents still are (a game may have moved on: a
   * branch that is now the game's move is merged into it). Answers the saved current node's
   * id as it is now, or null. */
  restore(saved) {
    if (!saved || saved.v !== 1 || !Array.isArray(saved.branches)) return null;
    const ids = new Map([...this.nodes.keys()].map((id) => [id, id]));
    for (const b of saved.branches) {
      const parent = ids.has(b.parent) ? this.nodes.get(ids.get(b.parent)) : null;
      if (!parent || typeof b.move !== 'string' || typeof b.position !== 'string') continue;
      const known = this.childBy(parent, b.move);
      if (known) { ids.set(b.id, known.id); continue; }
      if (this.nodes.has(b.id) || !/^b\d+$/.test(b.id)) continue;
      this.put({ id: b.id, parent: parent.id, move: b.move, position: b.position, main: false });
      ids.set(b.id, b.id);
      this.nextBranch = Math.max(this.nextBranch, Number(b.id.slice(1)) + 1);
    }
    if (Number.isInteger(saved.next)) this.nextBranch = Math.max(this.nextBranch, saved.next);
    return ids.has(saved.current) ? ids.get(saved.current) : null;
  }
}

const MARK_SIGNS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/**
 * The tree as HTML: each line flows as moves, and the variations played from a position come
 * right after the move the line goes on with, as an indented list (nested for branches of
 * branches).
 * Its options: current, marks (Map ply → mark), esc, t.
 */
export function treeHtml(tree, { current, marks, esc, t }) {
  const move = (n) => {
    const side = n.move === n.move.toLowerCase() ? 'south' : 'north';
    const mark = n.main ? marks.get(n.depth) : null;
    const cls = ['tree-move', side, n.main ? 'main' : 'branch', mark ? 'mark-' + mark : ''].filter(Boolean).join(' ');
    const label = t('move_label', { n: n.depth, side: t(side), m: n.move })
      + (mark ? ', ' + t('rv_mark_' + mark) : '')
      + (n.main ? '' : ', ' + t('an_branch_move'));
    return `<span class="tree-item"><span class="tree-n" aria-hidden="true">${n.depth}.</span>`
      + `<button type="button" class="${cls}" data-node="${esc(n.id)}"${n.id === current ? ' aria-current="true"' : ''}`
      + ` aria-label="${esc(label)}">${esc(n.move)}${mark ? `<span class="tree-mark" aria-hidden="true">${MARK_SIGNS[mark]}</span>` : ''}</button></span>`;
  };
  // Iterative along each line; only variations recurse, so a long game is no deep recursion.
  const line = (from) => {
    let out = '';
    let p = from;
    while (p.children.length) {
      const kids = p.children.map((id) => tree.get(id));
      out += move(kids[0]);
      if (kids.length > 1) {
        out += `<ul class="tree-variations">${kids.slice(1).map((c) => `<li class="tree-variation" data-branch="${esc(c.id)}">${move(c)}${line(c)}</li>`).join('')}</ul>`;
      }
      p = kids[0];
    }
    return out;
  };
  const start = `<span class="tree-item"><button type="button" class="tree-move tree-root" data-node="0"${current === '0' ? ' aria-current="true"' : ''}>${esc(t('an_start'))}</button></span>`;
  return `<div class="tree-line">${start}${line(tree.root)}</div>`;
}

/** sessionStorage, which may be missing or full: the tree then lasts as long as the page. */
export function loadSaved(key) {
  try { return JSON.parse(sessionStorage.getItem(key) || 'null'); } catch { return null; }
}

export function storeSaved(key, value) {
  try { sessionStorage.setItem(key, JSON.stringify(value)); } catch { /* kept for this page only */ }
}
