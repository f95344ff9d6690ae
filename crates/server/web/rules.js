// The rules page: docs/rules.md in short, in the reader's language, with SVG diagrams drawn here.

import { esc } from './common.js';
import { t } from './i18n.js';
import { main, setBody } from './lib/dom.js';


const WOOD = '#b07a43';
const PIT = '#6b4420';

/** The whole board with its hole letters and the direction of sowing. */
function boardDiagram(id) {
  const w = 12 * 44 + 120;
  let s = `<svg viewBox="0 0 ${w} 190" role="img" aria-labelledby="${id}" class="diagram">`;
  s += `<defs><marker id="arr-${id}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="dg-arrowhead"/></marker></defs>`;
  s += `<rect x="4" y="30" width="${w - 8}" height="120" rx="22" fill="${WOOD}"/>`;
  s += `<rect x="14" y="44" width="44" height="92" rx="18" fill="${PIT}"/><text x="36" y="95" text-anchor="middle" class="dg-letter">N</text>`;
  s += `<rect x="${w - 58}" y="44" width="44" height="92" rx="18" fill="${PIT}"/><text x="${w - 36}" y="95" text-anchor="middle" class="dg-letter">S</text>`;
  for (let k = 0; k < 12; k++) {
    const x = 82 + k * 44;
    const top = String.fromCharCode(76 - k); // L..A
    const bot = String.fromCharCode(97 + k); // a..l
    s += `<circle cx="${x}" cy="68" r="17" fill="${PIT}"/><text x="${x}" y="74" text-anchor="middle" class="dg-letter">${top}</text>`;
    s += `<circle cx="${x}" cy="112" r="17" fill="${PIT}"/><text x="${x}" y="118" text-anchor="middle" class="dg-letter">${bot}</text>`;
  }
  s += `<path d="M 90 168 L ${w - 110} 168" class="dg-arrow" stroke-width="3" fill="none" marker-end="url(#arr-${id})"/>`;
  s += `<path d="M ${w - 110} 14 L 90 14" class="dg-arrow" stroke-width="3" fill="none" marker-end="url(#arr-${id})"/>`;
  s += `<text x="${w / 2}" y="186" text-anchor="middle" class="dg-small">${esc(t('south'))}</text>`;
  s += `<text x="${w / 2}" y="26" text-anchor="middle" class="dg-small">${esc(t('north'))}</text>`;
  return s + '</svg>';
}

/**
 * Five holes before and after a move. `marks` colours holes of the "after" row: 'from' (the
 * hole sown from), 'cap' (captured; `to` names whose store), 'stop' (the last seed), 'relay'.
 */
function strip(id, letters, before, after, marks, to) {
  const w = 5 * 64 + 170;
  let s = `<svg viewBox="0 0 ${w} 170" role="img" aria-labelledby="${id}" class="diagram">`;
  const row = (y, counts, label, withMarks) => {
    let r = `<text x="8" y="${y + 5}" class="dg-small">${esc(label)}</text>`;
    counts.forEach((n, k) => {
      const x = 110 + k * 64;
      const m = withMarks ? marks[k] : '';
      const ring = m === 'cap' ? '#d33' : m === 'stop' ? '#2a7' : m === 'relay' ? '#e90' : m === 'from' ? '#39f' : 'none';
      r += `<circle cx="${x}" cy="${y}" r="24" fill="${PIT}" stroke="${ring}" stroke-width="4"/>`;
      r += `<text x="${x}" y="${y + 7}" text-anchor="middle" class="dg-count">${n}</text>`;
    });
    return r;
  };
  letters.forEach((l, k) => {
    s += `<text x="${110 + k * 64}" y="16" text-anchor="middle" class="dg-small">${l}</text>`;
  });
  s += row(50, before, t('d_before'), false);
  s += row(120, after, t('d_after'), true);
  const cap = marks.indexOf('cap');
  if (cap >= 0) {
    const x = 110 + cap * 64;
    s += `<defs><marker id="m-${id}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0 L10 5 L0 10 z" class="dg-caphead"/></marker></defs>`;
    s += `<path d="M ${x + 26} 120 C ${x + 80} 160, ${w - 90} 160, ${w - 62} 130" class="dg-cap" stroke-width="3" fill="none" marker-end="url(#m-${id})"/>`;
    s += `<rect x="${w - 70}" y="84" width="62" height="48" rx="14" fill="${PIT}"/>`;
    s += `<text x="${w - 39}" y="106" text-anchor="middle" class="dg-count">+4</text>`;
    s += `<text x="${w - 39}" y="124" text-anchor="middle" class="dg-tiny">${esc(t(to))}</text>`;
  }
  return s + '</svg>';
}

function figure(id, svg) {
  return `<figure>${svg}<figcaption id="${id}">${esc(t(id))}</figcaption></figure>`;
}

export function renderRules(main) {
  const variants = ['anywoli', 'anywoli-first-final', 'anywoli-lottery', 'anywoli-it']
    .map((v) => `<li><strong>${esc(t('variant_name_' + v))}</strong> (<code>${v}</code>): ${esc(t('variant_' + v))}</li>`)
    .join('');
  main.innerHTML = `
    <article class="panel rules">
      <h1>${esc(t('rules_title'))}</h1>
      <p>${esc(t('r_intro'))}</p>
      <h2>${esc(t('r_board_h'))}</h2>
      <p>${esc(t('r_board'))}</p>
      ${figure('d_board', boardDiagram('d_board'))}
      <h2>${esc(t('r_move_h'))}</h2>
      <p>${esc(t('r_move'))}</p>
      <p id="r-noskip">${esc(t('r_noskip'))}</p>
      <p>${esc(t('r_midsow'))}</p>
      ${figure('d_mid', strip('d_mid', ['k', 'l', 'A', 'B', 'C'], [3, 2, 3, 0, 1], [0, 3, 0, 1, 1], ['from', '', 'cap', 'stop', ''], 'north'))}
      <p>${esc(t('r_last'))}</p>
      <p id="r-chain">${esc(t('r_chain'))}</p>
      ${figure('d_last', strip('d_last', ['c', 'd', 'e', 'f', 'g'], [2, 1, 3, 0, 5], [0, 2, 0, 0, 5], ['from', '', 'cap', '', ''], 'south'))}
      <p>${esc(t('r_relay'))}</p>
      ${figure('d_relay', strip('d_relay', ['g', 'h', 'i', 'j', 'k'], [2, 2, 1, 0, 0], [0, 3, 0, 1, 1], ['from', '', 'relay', '', 'stop'], 'south'))}
      <h2>${esc(t('r_end_h'))}</h2>
      <p>${esc(t('r_pass'))}</p>
      <p>${esc(t('r_end'))}</p>
      <p id="r-midend">${esc(t('r_midend'))}</p>
      <p id="r-quiet">${esc(t('r_quiet'))}</p>
      <p>${esc(t('r_win'))}</p>
      <h2>${esc(t('r_variants_h'))}</h2>
      <ul>${variants}</ul>
      <h2>${esc(t('r_notation_h'))}</h2>
      <p>${esc(t('r_notation'))}</p>
    </article>`;
}

/** The rules page. */
export class RulesView {
  constructor() {
    setBody({ view: 'rules' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t('rules_title');
    renderRules(main);
  }

  refresh() { this.render(); }
}
