// The puzzle composer, below the board editor: the server's solver proves whether the side to
// move forces the win with exactly one winning first move (and no second winning move later
// on the line), says why not when it does not, and keeps a proven puzzle for the community
// on request. The page proves nothing itself: the server composes again when saving.

import { api } from './api.js';
import { t } from './i18n.js';

/** A theme's name in the reader's language. */
export function themeName(name) {
  return t('th_' + name);
}

/** The themes of a puzzle as one line of the reader's language. */
export function themesText(names) {
  return names && names.length ? t('cp_themes', { list: names.map(themeName).join(', ') }) : t('cp_no_themes');
}

/** The page's own words for a refusal (`reason` and its numbers, docs/api.md). */
function refusalText(r, side) {
  const moves = (r.moves || []).join(', ');
  switch (r.reason) {
    case 'game_over': return t('cp_r_game_over');
    case 'not_a_win': return t(r.margin === 0 ? 'cp_r_draw' : 'cp_r_not_a_win', { s: side, m: Math.abs(r.margin) });
    case 'several_winning_first_moves': return t('cp_r_several', { n: (r.moves || []).length, moves });
    case 'dual': return t('cp_r_dual', { p: r.ply + 1, moves });
    case 'unproven': return t('cp_r_unproven', { n: r.nodes.toLocaleString() });
    case 'too_long': return t('cp_r_too_long', { n: r.max });
    case 'too_many_seeds': return t('cp_r_too_many', { n: r.in_play, max: r.max });
    default: return t('err_other', { msg: r.reason });
  }
}

function puzzleLink(id) {
  return `${location.origin}/puzzles/community/${id}`;
}

/**
 * Mounts the composer in `el` for a valid position.
 * Its options: position, rules, ui (which has esc, say and errorText).
 */
export function mountComposer(el, { position, rules, ui }) {
  const { esc } = ui;
  const token = {};
  el._composer = token;
  el.innerHTML = `<section class="panel composer" aria-labelledby="cp-heading" aria-busy="true">
      <h2 id="cp-heading">${esc(t('cp_title'))}</h2>
      <p id="cp-status" class="status" role="status">${esc(t('cp_proving'))}</p>
      <div id="cp-body"></div>
    </section>`;
  document.body.dataset.composer = 'proving';
  const status = el.querySelector('#cp-status');
  const body = el.querySelector('#cp-body');
  const section = el.querySelector('section');
  const done = (state) => {
    section.setAttribute('aria-busy', 'false');
    document.body.dataset.composer = state;
  };
  const stale = () => el._composer !== token;

  (async () => {
    const r = await api('POST', '/puzzles/compose', { position, rules });
    if (stale()) return;
    if (!r.ok) {
      status.textContent = ui.errorText(r);
      status.classList.add('error');
      done('error');
      return;
    }
    const d = r.data;
    // The solver is the side to move: the position string's second field.
    const side = (d.side || (position.split(' ')[1] === 'n' ? 'north' : 'south')) === 'north' ? t('north') : t('south');
    if (!d.puzzle) {
      status.textContent = refusalText(d, side);
      status.classList.add('error');
      done('refused');
      ui.say(status.textContent, false);
      return;
    }
    status.textContent = t('cp_proven', { s: side, x: d.first_move });
    body.innerHTML = `
      <p id="cp-meta">${esc(t('cp_meta', { n: d.plies, k: d.solver_moves, s: side, g: d.grade }))}</p>
      <p id="cp-themes">${esc(themesText(d.themes))}</p>
      <details><summary>${esc(t('cp_show_line'))}</summary><p class="mono" id="cp-line">${esc(d.line.join(' '))}</p></details>
      <div class="controls" id="cp-actions">
        <button type="button" class="primary" id="cp-save">${esc(t('cp_save'))}</button>
      </div>
      <p id="cp-saved" class="note" role="status"></p>`;
    done('proven');
    ui.say(status.textContent, false);
    const shown = (id, already) => {
      const link = puzzleLink(id);
      el.querySelector('#cp-actions').innerHTML = `
        <a class="button primary" id="cp-open" href="/puzzles/community/${esc(id)}" data-link>${esc(t('cp_open'))}</a>
        <button type="button" id="cp-copy">${esc(t('cp_copy'))}</button>`;
      const saved = el.querySelector('#cp-saved');
      saved.innerHTML = `${esc(t(already ? 'cp_exists' : 'cp_saved'))} <a id="cp-link" href="/puzzles/community/${esc(id)}" data-link>${esc(link)}</a>`;
      document.body.dataset.composer = already ? 'exists' : 'saved';
      el.querySelector('#cp-copy').addEventListener('click', async () => {
        try { await navigator.clipboard.writeText(link); } catch { /* the link is on the page */ }
        ui.say(t('cp_copied'), true);
      });
      ui.say(saved.textContent, false);
    };
    if (d.id) {
      shown(d.id, true);
      return;
    }
    const save = el.querySelector('#cp-save');
    save.addEventListener('click', async () => {
      save.disabled = true;
      el.querySelector('#cp-saved').textContent = t('cp_saving');
      const s = await api('POST', '/puzzles/community', { position, rules });
      if (stale()) return;
      if (!s.ok) {
        save.disabled = false;
        el.querySelector('#cp-saved').textContent = ui.errorText(s);
        return;
      }
      shown(s.data.puzzle.id, s.status === 200);
    });
  })();
}
