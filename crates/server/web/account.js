// Accounts (docs/api-players.md): who is logged in, the session's CSRF token, the small
// account area in the header, and the Account view at /account (log in, sign up, log out,
// change the password).
//
// For other parts of the page:
//   loadAccount(force)  the account, {name, csrf, moderator} or null, asked of the server once
//   account()           the same, as known now (null before the answer)
//   onAccount(fn)       fn(account) whenever who is logged in changes
//   post(path, body)    a POST with the CSRF token (api.js adds it while logged in); a refusal
//                       for a stale token or an ended session reads the account again
//   del(path)           a DELETE, the same way
//   samePlayer(a, b)    whether two spellings are one account's name (names ignore case)

import { api, setCsrf, seatsHeld } from './api.js';
import { t, tn } from './i18n.js';
import { renderCare } from './pages/care.js';
import { renderTokens } from './pages/tokens.js';

let current; // undefined until the server answers; then null (anonymous) or {name, csrf}
let loading = null;
const listeners = new Set();
let ui = null;

/** What the views here use of the page (app.js): {main, esc, say, toast, setBody, errorText, navigate}. */
export function initAccount(pageUi) {
  ui = pageUi;
  const area = document.getElementById('account-area');
  if (area) {
    area.addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-action]');
      if (!b) return;
      const menu = area.querySelector('details');
      if (menu) menu.open = false;
      if (b.dataset.action === 'logout') logout(false);
      else if (b.dataset.action === 'logout-all') logout(true);
    });
    // The menu closes like the settings menu: a click elsewhere, a link followed, or Escape.
    document.addEventListener('click', (e) => {
      const menu = area.querySelector('details');
      if (menu && menu.open && (!menu.contains(/** @type {Node} */ (e.target)) || /** @type {any} */ (e.target).closest('a'))) menu.open = false;
    });
    area.addEventListener('keydown', (e) => {
      const menu = area.querySelector('details');
      if (e.key === 'Escape' && menu && menu.open) {
        menu.open = false;
        menu.querySelector('summary').focus();
      }
    });
  }
  onAccount(() => renderAccountArea());
  loadAccount();
}

export function account() {
  return current || null;
}

export function samePlayer(a, b) {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** Calls `fn(account)` whenever the account changes (logged in, out, or another name). */
export function onAccount(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function setAccount(a) {
  const before = current === undefined ? undefined : current ? current.name : null;
  current = a && a.name ? { name: a.name, csrf: a.csrf, moderator: !!a.moderator } : null;
  setCsrf(current ? current.csrf : null);
  const after = current ? current.name : null;
  if (before !== after) for (const fn of [...listeners]) fn(current);
}

/** The account ({name, csrf}) or null; asked of the server once, or again with `force`. */
export function loadAccount(force = false) {
  if (!force && current !== undefined) return Promise.resolve(current);
  if (loading) return loading;
  loading = api('GET', '/account').then((r) => {
    loading = null;
    if (r.ok) {
      setAccount(r.data && r.data.account);
      tellWarning(r.data && r.data.account);
    }
    // An unreachable server says nothing about the session: anonymous until it answers.
    else if (current === undefined) setAccount(null);
    return current;
  });
  return loading;
}

/** Says once (per browser) that a moderator warned the account; the Account view lists why. */
function tellWarning(a) {
  if (!a || !a.warned || !ui) return;
  const key = 'anywoli.warned.' + a.name.toLowerCase();
  if (Number(localStorage.getItem(key) || 0) >= a.warned) return;
  localStorage.setItem(key, String(a.warned));
  ui.toast(t('care_warned_toast'));
}

/** A POST that the session authenticates. A token that went stale (the password changed in
 * another tab, say) is read again and the request tried once more: a refused POST changed
 * nothing. */
export function post(path, body = {}) {
  return withSession('POST', path, body);
}

/** A DELETE that the session authenticates, retried as `post` is. */
export function del(path) {
  return withSession('DELETE', path);
}

async function withSession(method, path, body) {
  let r = await api(method, path, body);
  const code = r.data && r.data.error;
  if (code === 'csrf' || code === 'not_logged_in') {
    const before = current ? current.csrf : null;
    const now = await loadAccount(true);
    if (code === 'csrf' && now && now.csrf !== before) r = await api(method, path, body);
  }
  return r;
}

/** The seats of this browser, as signup and claim take them. */
function heldSeats() {
  return Object.entries(seatsHeld())
    .filter(([, s]) => s && typeof s.secret === 'string')
    .map(([game, s]) => ({ game, secret: s.secret }));
}

/** A body stays far under the server's 16 KiB: seats go in batches. */
const SEAT_BATCH = 100;

async function signup(name, password) {
  const seats = heldSeats();
  const r = await api('POST', '/account/signup', { name, password, seats: seats.slice(0, SEAT_BATCH) });
  if (!r.ok) return r;
  setAccount(r.data.account);
  let claimed = Number(r.data.claimed) || 0;
  for (let i = SEAT_BATCH; i < seats.length; i += SEAT_BATCH) {
    const c = await post('/account/claim', { seats: seats.slice(i, i + SEAT_BATCH) });
    if (c.ok) claimed += Number(c.data.claimed) || 0;
  }
  return { ...r, claimed };
}

async function login(name, password) {
  const r = await api('POST', '/account/login', { name, password });
  if (r.ok) setAccount(r.data.account);
  return r;
}

async function logout(everywhere) {
  const r = await post(everywhere ? '/account/logout-all' : '/account/logout');
  if (!r.ok && r.data && r.data.error !== 'not_logged_in') {
    ui.say(ui.errorText(r), true);
    return;
  }
  setAccount(null);
  ui.say(t(everywhere ? 'logged_out_all' : 'logged_out'), true);
}

// ------------------------------------------------------------------------------------------
// The header: "Log in", or the name and its menu.

const PERSON = '<svg class="account-icon" viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false"><circle cx="10" cy="6.5" r="3.6" fill="currentColor"/><path d="M2.8 18c.6-4 3.5-6.3 7.2-6.3s6.6 2.3 7.2 6.3z" fill="currentColor"/></svg>';

export function renderAccountArea() {
  const area = document.getElementById('account-area');
  if (!area || !ui) return;
  const esc = ui.esc;
  area.hidden = current === undefined;
  if (!current) {
    const here = location.pathname === '/account' ? ' aria-current="page"' : '';
    area.innerHTML = `<a href="/account" data-link class="login-link"${here}>${PERSON}<span>${esc(t('log_in'))}</span></a>`;
    return;
  }
  const name = esc(current.name);
  const profile = '/@/' + encodeURIComponent(current.name);
  area.innerHTML = `
    <a href="${profile}" data-link class="account-name" title="${esc(t('your_profile'))}">${PERSON}<span>${name}</span></a>
    <details class="account-menu">
      <summary aria-label="${esc(t('account_menu'))}" title="${esc(t('account_menu'))}">${PERSON}<svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" focusable="false"><path d="M5 8l5 5 5-5" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg></summary>
      <div class="account-panel">
        <p class="account-who">${esc(t('logged_in_as', { name: current.name }))}</p>
        <a href="${profile}" data-link>${esc(t('your_profile'))}</a>
        <a href="/account#password" data-link>${esc(t('change_password'))}</a>
        ${current.moderator ? `<a href="/mod" data-link id="mod-link">${esc(t('mod_title'))}</a>` : ''}
        <button type="button" data-action="logout">${esc(t('log_out'))}</button>
        <button type="button" data-action="logout-all">${esc(t('log_out_all'))}</button>
      </div>
    </details>`;
}

// ------------------------------------------------------------------------------------------
// The Account view.

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{1,19}$/;

/** Where to go after logging in: `?next=/path` on this site, if any. */
function nextPath() {
  const n = new URLSearchParams(location.search).get('next');
  return n && n.startsWith('/') && !n.startsWith('//') ? n : null;
}

export class AccountView {
  constructor() {
    ui.setBody({ view: 'account' });
    this.message = '';
    this.unlisten = onAccount(() => this.render());
    // Drawn now, and again when the server says who is there (onAccount).
    this.render();
    loadAccount();
  }

  destroy() {
    this.unlisten();
  }

  refresh() { this.render(); }

  render() {
    const { main, esc } = ui;
    document.title = t('app_title') + ' — ' + t('account_title');
    if (current === undefined) {
      main.innerHTML = `<p class="loading">${esc(t('loading'))}</p>`;
      return;
    }
    if (current) this.renderLoggedIn();
    else this.renderForms();
    renderAccountArea();
  }

  renderForms() {
    const { main, esc } = ui;
    const held = heldSeats().length;
    const field = (form, id, key, type, auto, extra = '') => `
      <div class="field"><label for="${form}-${id}">${esc(t(key))}</label>
        <input id="${form}-${id}" name="${id}" type="${type}" autocomplete="${auto}" required ${extra}></div>`;
    main.innerHTML = `
      <h1 class="sr-only">${esc(t('account_title'))}</h1>
      <div class="account-forms">
        <section class="panel" aria-labelledby="login-heading">
          <h2 id="login-heading">${esc(t('log_in'))}</h2>
          <form id="login-form" novalidate>
            ${field('login', 'user', 'account_name', 'text', 'username', 'autocapitalize="none" spellcheck="false" maxlength="20"')}
            ${field('login', 'password', 'password', 'password', 'current-password', 'maxlength="256"')}
            <button type="submit" class="primary">${esc(t('log_in'))}</button>
            <p class="error" id="login-error" role="alert"></p>
          </form>
        </section>
        <section class="panel" aria-labelledby="signup-heading">
          <h2 id="signup-heading">${esc(t('sign_up'))}</h2>
          <form id="signup-form" novalidate>
            ${field('signup', 'user', 'account_name', 'text', 'username', 'autocapitalize="none" spellcheck="false" maxlength="20" aria-describedby="signup-name-note"')}
            <p class="note" id="signup-name-note">${esc(t('name_rules'))}</p>
            ${field('signup', 'password', 'password', 'password', 'new-password', 'maxlength="256" aria-describedby="signup-password-note"')}
            <p class="note" id="signup-password-note">${esc(t('password_rules'))}</p>
            ${field('signup', 'repeat', 'password_repeat', 'password', 'new-password', 'maxlength="256"')}
            ${held ? `<p class="note">${esc(t('signup_seats'))}</p>` : ''}
            <button type="submit" class="primary">${esc(t('sign_up'))}</button>
            <p class="error" id="signup-error" role="alert"></p>
          </form>
        </section>
      </div>`;
    const loginForm = main.querySelector('#login-form');
    loginForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const err = main.querySelector('#login-error');
      const name = loginForm.user.value.trim();
      const password = loginForm.password.value;
      if (!name || !password) { err.textContent = t('err_bad_login'); return; }
      this.busy(loginForm, true);
      const r = await login(name, password);
      this.busy(loginForm, false);
      if (!r.ok) { err.textContent = ui.errorText(r); return; }
      ui.say(t('logged_in_as', { name: current.name }), true);
      const next = nextPath();
      if (next) ui.navigate(next, true);
      else this.render();
    });
    const signupForm = main.querySelector('#signup-form');
    signupForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const err = main.querySelector('#signup-error');
      const name = signupForm.user.value.trim();
      const password = signupForm.password.value;
      if (!NAME_RE.test(name)) { err.textContent = t('err_bad_name'); signupForm.user.focus(); return; }
      if (password.length < 8 || password.length > 256) { err.textContent = t('err_bad_password'); signupForm.password.focus(); return; }
      if (password !== signupForm.repeat.value) { err.textContent = t('passwords_differ'); signupForm.repeat.focus(); return; }
      this.busy(signupForm, true);
      const seatsBefore = heldSeats().length;
      const r = await signup(name, password);
      this.busy(signupForm, false);
      if (!r.ok) { err.textContent = ui.errorText(r); return; }
      this.message = t('welcome', { name: current.name }) + (r.claimed || seatsBefore ? ' ' + tn('claimed', r.claimed) : '');
      this.render();
      ui.say(this.message);
    });
  }

  renderLoggedIn() {
    const { main, esc } = ui;
    const next = nextPath();
    const profile = '/@/' + encodeURIComponent(current.name);
    main.innerHTML = `
      <section class="panel account-home">
        <h1>${esc(t('account_title'))}</h1>
        ${this.message ? `<p class="success" role="status">${esc(this.message)}</p>` : ''}
        <p>${esc(t('logged_in_as', { name: current.name }))}</p>
        <p class="account-links">
          ${next ? `<a href="${esc(next)}" data-link class="button primary">${esc(t('continue'))}</a>` : ''}
          <a href="${profile}" data-link class="button">${esc(t('your_profile'))}</a>
          <a href="/lobby" data-link class="button">${esc(t('nav_lobby'))}</a>
        </p>
      </section>
      <section class="panel" aria-labelledby="password-heading" id="password">
        <h2 id="password-heading">${esc(t('change_password'))}</h2>
        <form id="password-form" novalidate>
          <input type="text" name="username" autocomplete="username" value="${esc(current.name)}" hidden>
          <div class="field"><label for="pw-old">${esc(t('password_old'))}</label>
            <input id="pw-old" name="old" type="password" autocomplete="current-password" maxlength="256" required></div>
          <div class="field"><label for="pw-new">${esc(t('password_new'))}</label>
            <input id="pw-new" name="new" type="password" autocomplete="new-password" maxlength="256" required aria-describedby="pw-note"></div>
          <p class="note" id="pw-note">${esc(t('password_rules'))} ${esc(t('password_change_note'))}</p>
          <div class="field"><label for="pw-repeat">${esc(t('password_repeat'))}</label>
            <input id="pw-repeat" name="repeat" type="password" autocomplete="new-password" maxlength="256" required></div>
          <button type="submit" class="primary">${esc(t('change_password'))}</button>
          <p class="error" id="password-error" role="alert"></p>
        </form>
      </section>
      <section class="panel" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">${esc(t('sessions'))}</h2>
        <p class="note">${esc(t('log_out_all_note'))}</p>
        <p class="account-links">
          <button type="button" id="logout">${esc(t('log_out'))}</button>
          <button type="button" id="logout-all">${esc(t('log_out_all'))}</button>
        </p>
      </section>
      <div id="care"></div>
      <div id="tokens"></div>`;
    renderCare(main.querySelector('#care'), () => loadAccount(true));
    renderTokens(main.querySelector('#tokens'));
    main.querySelector('#logout').addEventListener('click', () => logout(false));
    main.querySelector('#logout-all').addEventListener('click', () => logout(true));
    const form = /** @type {HTMLFormElement} */ (main.querySelector('#password-form'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const err = main.querySelector('#password-error');
      const pw = form.new.value;
      if (!form.old.value) { err.textContent = t('wrong_old_password'); form.old.focus(); return; }
      if (pw.length < 8 || pw.length > 256) { err.textContent = t('err_bad_password'); form.new.focus(); return; }
      if (pw !== form.repeat.value) { err.textContent = t('passwords_differ'); form.repeat.focus(); return; }
      this.busy(form, true);
      const r = await post('/account/password', { old: form.old.value, new: pw });
      this.busy(form, false);
      if (!r.ok) {
        err.textContent = r.data && r.data.error === 'bad_login' ? t('wrong_old_password') : ui.errorText(r);
        return;
      }
      // This session lives on; its token may have changed with it.
      if (r.data && r.data.account) setAccount(r.data.account);
      else await loadAccount(true);
      form.reset();
      err.textContent = '';
      ui.say(t('password_changed'), true);
    });
    if (location.hash === '#password') {
      main.querySelector('#password').scrollIntoView();
      /** @type {HTMLInputElement} */ (main.querySelector('#pw-old')).focus();
    }
  }

  busy(form, on) {
    for (const b of form.querySelectorAll('button')) b.disabled = on;
  }
}

/** A rating as shown: rounded, with `?` while provisional (`{rating, provisional}` or a number). */
export function ratingText(r, provisional = false) {
  if (r === null || r === undefined) return '';
  if (typeof r === 'object') return ratingText(r.rating, r.provisional);
  return String(Math.round(Number(r))) + (provisional ? '?' : '');
}

/** A profile's address. */
export function profilePath(name) {
  return '/@/' + encodeURIComponent(name);
}
