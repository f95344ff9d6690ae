// The board editor (issue 13): the seeds of every hole and store, whose move it is and the
// counters, with the position string kept in step both ways. The server checks the position as
// it is edited (POST /api/position) and says what is wrong as a kind with its numbers, which
// this page puts in the reader's language. A valid position opens on the analysis board or
// becomes a puzzle (composer.js). The URL always holds the position, so it can be shared.

import { api } from './api.js';
import { START, VARIANTS } from './common.js';
import { t, tn } from './i18n.js';
import { letterOf } from './board.js';
import { TOTAL, readPosition, writePosition, refusalText } from './lib/position.js';

/** Edits in a row are checked once, this long after the last. */
const CHECK_DELAY_MS = 250;

/** Seeds drawn as a small heap (as on the game board, up to 24 shown). */
const SPOTS = Array.from({ length: 24 }, (_, k) => {
  const r = 3.1 * Math.sqrt(k + 0.6);
  const a = k * 2.39996;
  return [20 + r * Math.cos(a), 20 + r * Math.sin(a)];
});
const SEED_COLOURS = ['#f3e2c0', '#e9cf9a', '#f7ecd6', '#dcc08a'];

function seedDots(n) {
  let out = '';
  for (let k = 0; k < Math.min(n, SPOTS.length); k++) {
    const [x, y] = SPOTS[k];
    out += `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5" fill="${SEED_COLOURS[k % 4]}"/>`;
  }
  return out;
}

export class EditorView {
  /**
   * @param ui the page's helpers: {main, esc, say, setBody, errorText, navigate}
   */
  constructor(ui) {
    this.ui = ui;
    this.seq = 0;
    this.answer = null;
    this.destroyed = false;
    const q = new URLSearchParams(location.search);
    const rules = q.get('rules');
    this.rules = VARIANTS.includes(rules) ? rules : 'anywoli';
    this.position = q.get('position') || START;
    // The fields hold what they can of the string (the start position's where it says nothing
    // they can hold).
    this.fields = readPosition(START);
    this.fill(readPosition(this.position));
    ui.setBody({ view: 'editor' });
    this.render();
    this.check();
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    delete document.body.dataset.editorValid;
  }

  refresh() {
    this.render();
    this.showAnswer();
  }

  /** Takes what `read` (from readPosition) knows into the fields. */
  fill(read) {
    if (!read) return;
    const f = this.fields;
    f.holes = read.holes;
    f.stores = read.stores;
    if (read.toMove) f.toMove = read.toMove;
    f.last = read.last || 'none';
    f.first = read.first || 'none';
    f.quiet = read.quiet;
    f.ply = read.ply;
  }

  render() {
    const { main, esc } = this.ui;
    document.title = t('app_title') + ' — ' + t('ed_title');
    const cell = (i) => {
      const side = i < 12 ? 'south' : 'north';
      return `<div class="edit-cell">
        <svg class="edit-seeds" viewBox="0 0 40 40" aria-hidden="true" focusable="false"></svg>
        <input class="edit-hole" id="edit-hole-${i}" data-hole="${i}" type="number" min="0" max="96" step="1"
          inputmode="numeric" autocomplete="off" aria-label="${esc(t('ed_hole', { h: letterOf(i), side: t(side) }))}">
        <span class="edit-letter" aria-hidden="true">${letterOf(i)}</span></div>`;
    };
    const north = [];
    for (let i = 23; i >= 12; i--) north.push(cell(i));
    const south = [];
    for (let i = 0; i < 12; i++) south.push(cell(i));
    const sideOptions = (none) => `<option value="none">${esc(t(none))}</option>
      <option value="south">${esc(t('south'))}</option><option value="north">${esc(t('north'))}</option>`;
    const store = (side) => `<div class="edit-store edit-store-${side}">
        <label for="edit-store-${side}">${esc(t('ed_store_' + side))}</label>
        <input id="edit-store-${side}" type="number" min="0" max="96" step="1" inputmode="numeric" autocomplete="off"></div>`;
    main.innerHTML = `
      <section class="panel editor" aria-labelledby="editor-heading">
        <h1 id="editor-heading">${esc(t('ed_title'))}</h1>
        <p class="tagline">${esc(t('ed_intro'))}</p>
        <div class="edit-board" role="group" aria-label="${esc(t('ed_board'))}">
          ${store('north')}
          <div class="edit-row edit-row-north" role="group" aria-label="${esc(t('ed_north_row'))}">${north.join('')}</div>
          <div class="edit-row edit-row-south" role="group" aria-label="${esc(t('ed_south_row'))}">${south.join('')}</div>
          ${store('south')}
        </div>
        <div class="edit-status">
          <p id="edit-validity" aria-live="polite" data-valid="1"></p>
          <p id="edit-totals" class="note"></p>
        </div>
        <div class="controls edit-actions">
          <a id="edit-analyse" class="button primary" data-link>${esc(t('ed_analyse'))}</a>
          <button type="button" id="edit-puzzle">${esc(t('ed_puzzle'))}</button>
          <button type="button" id="edit-clear">${esc(t('ed_clear'))}</button>
          <button type="button" id="edit-start">${esc(t('ed_start'))}</button>
          <button type="button" id="edit-flip" aria-describedby="edit-flip-note">${esc(t('ed_flip'))}</button>
        </div>
        <p class="note" id="edit-flip-note">${esc(t('ed_flip_note'))}</p>
        <fieldset class="edit-fields">
          <legend>${esc(t('ed_counters'))}</legend>
          <div class="field"><label for="edit-to-move">${esc(t('ed_to_move'))}</label>
            <select id="edit-to-move"><option value="south">${esc(t('south'))}</option>
              <option value="north">${esc(t('north'))}</option><option value="none">${esc(t('ed_game_over'))}</option></select></div>
          <div class="field"><label for="edit-last-capturer">${esc(t('ed_last_capturer'))}</label>
            <select id="edit-last-capturer">${sideOptions('ed_nobody')}</select></div>
          <div class="field"><label for="edit-first-final">${esc(t('ed_first_final'))}</label>
            <select id="edit-first-final">${sideOptions('ed_nobody')}</select></div>
          <div class="field"><label for="edit-quiet">${esc(t('ed_quiet'))}</label>
            <input id="edit-quiet" type="number" min="0" max="100" step="1" inputmode="numeric" autocomplete="off" aria-describedby="edit-quiet-note">
            <span class="note" id="edit-quiet-note">${esc(t('ed_quiet_note'))}</span></div>
          <div class="field"><label for="edit-ply">${esc(t('ed_ply'))}</label>
            <input id="edit-ply" type="number" min="0" step="1" inputmode="numeric" autocomplete="off"></div>
          <div class="field"><label for="edit-rules">${esc(t('rules_variant'))}</label>
            <select id="edit-rules">${VARIANTS.map((v) => `<option value="${v}">${esc(t('variant_name_' + v))}</option>`).join('')}</select></div>
        </fieldset>
        <div class="field edit-string">
          <label for="edit-position">${esc(t('ed_position'))}</label>
          <input id="edit-position" type="text" spellcheck="false" autocomplete="off" autocapitalize="off" aria-describedby="edit-position-note">
          <p class="note" id="edit-position-note">${esc(t('ed_position_note'))}</p>
        </div>
        <div id="composer"></div>
      </section>`;
    const $ = (s) => main.querySelector(s);
    this.showFields();
    $('#edit-position').value = this.position;
    $('#edit-rules').value = this.rules;
    // Every field: the string follows, then the check.
    main.querySelector('.edit-board').addEventListener('input', () => this.fromFields());
    $('.edit-fields').addEventListener('input', (e) => { if (e.target.tagName === 'INPUT') this.fromFields(); });
    $('.edit-fields').addEventListener('change', (e) => {
      if (e.target.id === 'edit-rules') {
        this.rules = e.target.value;
        this.changed();
      } else if (e.target.tagName === 'SELECT') this.fromFields();
    });
    $('#edit-position').addEventListener('input', (e) => this.fromString(e.target.value));
    $('#edit-clear').addEventListener('click', () => this.setAll(
      '0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0 x 48 48 - - 0 0', 'ed_cleared'));
    $('#edit-start').addEventListener('click', () => this.setAll(START, 'ed_started'));
    $('#edit-flip').addEventListener('click', () => this.flip());
    $('#edit-puzzle').addEventListener('click', () => this.compose());
  }

  /** Puts the fields' values into the inputs (and the seeds into the pits). */
  showFields() {
    const { main } = this.ui;
    const f = this.fields;
    for (const input of main.querySelectorAll('input.edit-hole')) {
      const i = Number(input.dataset.hole);
      if (input.value !== f.holes[i]) input.value = f.holes[i];
    }
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-store-south')).value = f.stores[0];
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-store-north')).value = f.stores[1];
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-to-move')).value = f.toMove;
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-last-capturer')).value = f.last;
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-first-final')).value = f.first;
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-quiet')).value = f.quiet;
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-ply')).value = f.ply;
    this.showSeeds();
  }

  /** The fields as the inputs hold them. */
  readFields() {
    const { main } = this.ui;
    const val = (s) => main.querySelector(s).value.trim();
    const holes = new Array(24).fill('');
    for (const input of main.querySelectorAll('input.edit-hole')) holes[Number(input.dataset.hole)] = input.value.trim();
    return {
      holes,
      stores: [val('#edit-store-south'), val('#edit-store-north')],
      toMove: val('#edit-to-move'),
      last: val('#edit-last-capturer'),
      first: val('#edit-first-final'),
      quiet: val('#edit-quiet'),
      ply: val('#edit-ply'),
    };
  }

  showSeeds() {
    const { main } = this.ui;
    for (const input of main.querySelectorAll('input.edit-hole')) {
      const n = Number(input.value);
      input.parentElement.querySelector('.edit-seeds').innerHTML = Number.isInteger(n) && n > 0 ? seedDots(n) : '';
    }
    const num = (x) => (/^\d+$/.test(x) ? Number(x) : 0);
    const f = this.fields;
    const play = f.holes.reduce((s, x) => s + num(x), 0);
    const total = play + num(f.stores[0]) + num(f.stores[1]);
    const el = main.querySelector('#edit-totals');
    el.textContent = t('ed_totals', { play, total });
    el.classList.toggle('edit-off', total !== TOTAL);
  }

  fromFields() {
    this.fields = this.readFields();
    this.position = writePosition(this.fields);
    /** @type {HTMLInputElement} */ (this.ui.main.querySelector('#edit-position')).value = this.position;
    this.showSeeds();
    this.changed();
  }

  fromString(text) {
    this.position = text;
    const read = readPosition(text);
    if (read) {
      this.fill(read);
      this.showFields();
    }
    this.changed();
  }

  setAll(position, said) {
    this.position = position;
    this.fill(readPosition(position));
    /** @type {HTMLInputElement} */ (this.ui.main.querySelector('#edit-position')).value = position;
    this.showFields();
    this.ui.say(t(said));
    this.changed(true);
  }

  /** Swaps the rows, the stores, the side to move and the capturers: North's position as
   * South's. */
  flip() {
    const f = this.readFields();
    const other = { south: 'north', north: 'south', none: 'none' };
    this.fields = {
      holes: f.holes.slice(12).concat(f.holes.slice(0, 12)),
      stores: [f.stores[1], f.stores[0]],
      toMove: other[f.toMove],
      last: other[f.last],
      first: other[f.first],
      quiet: f.quiet,
      ply: f.ply,
    };
    this.position = writePosition(this.fields);
    /** @type {HTMLInputElement} */ (this.ui.main.querySelector('#edit-position')).value = this.position;
    this.showFields();
    this.ui.say(t('ed_flipped'));
    this.changed(true);
  }

  /** After any edit: the URL now, the check a moment later. */
  changed(now = false) {
    const url = `/editor?position=${encodeURIComponent(this.position)}&rules=${encodeURIComponent(this.rules)}`;
    history.replaceState(null, '', url);
    this.ui.main.querySelector('#edit-validity').dataset.checking = '1';
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), now ? 0 : CHECK_DELAY_MS);
  }

  async check() {
    const seq = ++this.seq;
    const position = this.position;
    const rules = this.rules;
    // An empty field is named here: as a string it would only be a malformed one.
    const empty = this.emptyField(position);
    let answer;
    if (empty) answer = { local: empty };
    else {
      const r = await api('POST', '/position', { position, rules });
      if (this.destroyed || seq !== this.seq) return;
      answer = r.ok ? r.data : { failed: this.ui.errorText(r) };
    }
    this.answer = answer;
    this.showAnswer();
  }

  /** The words for an empty count, when the string is the fields' and one is empty. */
  emptyField(position) {
    if (position !== writePosition(this.fields)) return null;
    const f = this.fields;
    const i = f.holes.findIndex((x) => x === '');
    if (i >= 0) return t('ed_err_hole_empty', { h: letterOf(i) });
    const named = [[f.stores[0], 'ed_store_south'], [f.stores[1], 'ed_store_north'], [f.quiet, 'ed_quiet'], [f.ply, 'ed_ply']];
    for (const [v, key] of named) if (v === '') return t('ed_err_field_empty', { field: t(key) });
    return null;
  }

  showAnswer() {
    const { main } = this.ui;
    const el = main.querySelector('#edit-validity');
    const a = this.answer;
    if (!el || !a) return;
    delete el.dataset.checking;
    const valid = a.valid === true;
    let text;
    if (a.local) text = a.local;
    else if (a.failed) text = a.failed;
    else if (valid && a.to_move) text = tn('ed_valid_turn', a.moves.length, { side: t(a.to_move) });
    else if (valid) {
      const result = { south: t('result_south'), north: t('result_north'), draw: t('result_draw_short') }[a.winner] || '';
      text = t('ed_valid_over', { result, s: a.stores[0], n: a.stores[1] });
    } else text = refusalText(a.error);
    el.dataset.valid = valid ? '1' : '0';
    el.dataset.kind = valid ? '' : (a.error && a.error.kind) || (a.local ? 'empty' : 'error');
    el.textContent = text;
    el.className = valid ? 'edit-valid' : 'edit-invalid';
    // The canonical string, unless the reader is typing one.
    const input = main.querySelector('#edit-position');
    if (valid && document.activeElement !== input && input.value !== a.position) {
      input.value = a.position;
      this.position = a.position;
      history.replaceState(null, '', `/editor?position=${encodeURIComponent(a.position)}&rules=${encodeURIComponent(this.rules)}`);
    }
    const link = main.querySelector('#edit-analyse');
    if (valid) {
      link.setAttribute('href', `/analysis?position=${encodeURIComponent(a.position)}&rules=${encodeURIComponent(this.rules)}`);
      link.setAttribute('data-link', '');
      link.removeAttribute('aria-disabled');
    } else {
      // A link without an address cannot be followed, nor is it in the tab order.
      link.removeAttribute('href');
      link.removeAttribute('data-link');
      link.setAttribute('aria-disabled', 'true');
    }
    /** @type {HTMLInputElement} */ (main.querySelector('#edit-puzzle')).disabled = !valid;
    this.ui.setBody({ editorValid: valid ? '1' : '0' });
  }

  /** "Make a puzzle": the composer (composer.js) takes over below the editor. */
  async compose() {
    const a = this.answer;
    if (!a || a.valid !== true) return;
    const box = this.ui.main.querySelector('#composer');
    try {
      const { mountComposer } = await import('./composer.js');
      if (this.destroyed) return;
      mountComposer(box, { position: a.position, rules: this.rules, ui: this.ui });
    } catch (e) {
      box.textContent = t('err_other', { msg: String(e && e.message ? e.message : e) });
    }
  }
}
