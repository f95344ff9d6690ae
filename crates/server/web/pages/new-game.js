// The new-game form: opponent, level, side, hints, clock and rules; and the course's offer on
// a first visit.

import { rememberSeat } from '../api.js';
import { VARIANTS, esc } from '../common.js';
import { t } from '../i18n.js';
import { clockName } from '../clock.js';
import { post, loadAccount } from '../account.js';
import { main, errorText, setBody } from '../lib/dom.js';
import { navigate } from '../lib/nav.js';
import { showWait } from './lobby/wait.js';

/** The time controls offered on the new-game form (docs/api.md, "Clocks"); '' is none. */
const CLOCKS = ['', '1+0', '3+2', '5+3', '10+5', '15+10', '1d', '3d', '7d'];

/** The level a new player meets first (docs/decisions.md, "Default level"). */
const DEFAULT_LEVEL = 2;

/** A first visit: no course started, no offer turned down, no game played from here. */
function firstVisit() {
  try {
    return !localStorage.getItem('anywoli.lessons') && !localStorage.getItem('anywoli.course-offer')
      && !localStorage.getItem('anywoli.seats');
  } catch {
    return false;
  }
}

export class NewGameView {
  constructor() {
    setBody({ view: 'new' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t('new_title');
    // `/?level=N` preselects a level (the course's end links to level 1).
    const asked = Number(new URLSearchParams(location.search).get('level'));
    const level = Number.isInteger(asked) && asked >= 1 && asked <= 10 ? asked : DEFAULT_LEVEL;
    const levels = Array.from({ length: 10 }, (_, i) => `<option value="${i + 1}"${i + 1 === level ? ' selected' : ''}>${esc(t('level_n', { n: i + 1 }))}</option>`).join('');
    const rules = VARIANTS.map((v) => `<option value="${v}">${esc(t('variant_name_' + v))}</option>`).join('');
    main.innerHTML = `
      <section class="panel new-game">
        <h1>${esc(t('new_title'))}</h1>
        <p class="tagline">${esc(t('tagline'))}</p>
        <p class="note play-wait" id="play-wait" role="status" hidden></p>
        ${firstVisit() ? `<aside class="offer" id="course-offer" aria-labelledby="offer-heading">
          <h2 id="offer-heading">${esc(t('ls_offer_title'))}</h2>
          <p>${esc(t('ls_offer_text'))}</p>
          <p><a class="button primary" href="/learn" data-link id="offer-start">${esc(t('ls_start'))}</a>
          <button type="button" id="offer-dismiss">${esc(t('ls_offer_dismiss'))}</button></p>
        </aside>` : ''}
        ${firstVisit() ? '' : `<p class="note"><a href="/learn" data-link id="learn-link">${esc(t('ls_learn_link'))}</a></p>`}
        <form id="new-form">
          <fieldset>
            <legend>${esc(t('opponent'))}</legend>
            <label class="choice"><input type="radio" name="mode" value="computer" checked> ${esc(t('opp_computer'))}</label>
            <label class="choice"><input type="radio" name="mode" value="friend"> ${esc(t('opp_friend'))}</label>
            <label class="choice"><input type="radio" name="mode" value="local"> ${esc(t('opp_local'))}</label>
          </fieldset>
          <div class="field" id="level-field"><label for="level">${esc(t('level'))}</label>
            <select id="level" name="level">${levels}</select></div>
          <fieldset id="side-field">
            <legend>${esc(t('your_side'))}</legend>
            <label class="choice"><input type="radio" name="side" value="south" checked> ${esc(t('south'))}</label>
            <label class="choice"><input type="radio" name="side" value="north"> ${esc(t('north'))}</label>
            <p class="note">${esc(t('south_moves_first'))}</p>
          </fieldset>
          <div class="field" id="hints-field">
            <label class="choice"><input type="checkbox" id="hints" name="hints"> ${esc(t('allow_hints'))}</label>
            <p class="note">${esc(t('allow_hints_note'))}</p>
          </div>
          <div class="field" id="clock-field"><label for="clock">${esc(t('clock'))}</label>
            <select id="clock" name="clock">${CLOCKS.map((c) => `<option value="${c}">${esc(clockName(c))}</option>`).join('')}</select>
            <p class="note">${esc(t('clock_note'))}</p></div>
          <div class="field"><label for="rules">${esc(t('rules_variant'))}</label>
            <select id="rules" name="rules">${rules}</select>
            <p class="note" id="rules-desc"></p></div>
          <button type="submit" class="primary" id="start">${esc(t('start'))}</button>
          <p class="error" id="new-error" role="alert"></p>
        </form>
      </section>`;
    const dismiss = main.querySelector('#offer-dismiss');
    if (dismiss) {
      dismiss.addEventListener('click', () => {
        try { localStorage.setItem('anywoli.course-offer', 'dismissed'); } catch { /* shown again next time */ }
        main.querySelector('#course-offer').remove();
      });
    }
    // A game with a friend is refused while the account waits (the computer is not): said here.
    loadAccount().then((me) => { if (me) showWait(main.querySelector('#play-wait')); });
    const form = /** @type {HTMLFormElement} */ (main.querySelector('#new-form'));
    const sync = () => {
      const mode = form.mode.value;
      /** @type {HTMLInputElement} */ (main.querySelector('#level-field')).hidden = mode !== 'computer';
      /** @type {HTMLInputElement} */ (main.querySelector('#side-field')).hidden = mode === 'local';
      /** @type {HTMLInputElement} */ (main.querySelector('#hints-field')).hidden = mode !== 'friend';
      /** @type {HTMLInputElement} */ (main.querySelector('#rules-desc')).textContent = t('variant_' + form.rules.value);
    };
    form.addEventListener('change', sync);
    sync();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const mode = form.mode.value;
      const body = { mode, rules: form.rules.value };
      if (mode === 'computer') body.level = Number(form.level.value);
      if (mode !== 'local') body.side = form.side.value;
      if (mode === 'friend') body.hints = form.hints.checked;
      if (form.clock.value) body.clock = form.clock.value;
      const btn = /** @type {HTMLButtonElement} */ (main.querySelector('#start'));
      btn.disabled = true;
      const r = await post('/games', body);
      btn.disabled = false;
      if (!r.ok) {
        /** @type {HTMLInputElement} */ (main.querySelector('#new-error')).textContent = errorText(r);
        return;
      }
      rememberSeat(r.data.game.id, r.data.seat, r.data.secret, r.data.invite);
      navigate('/g/' + r.data.game.id);
    });
  }

  refresh() { this.render(); }
}
