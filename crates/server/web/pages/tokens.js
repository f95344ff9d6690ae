// Personal API tokens on the Account view (docs/api-bots.md): what lets a program (a bot, a
// board app, a script) act for the account, each token only within the scopes ticked when it
// was made. The server gives a token's text once, in the answer that made it: the page shows
// it then, and never has it again. Built with h(): descriptions are what people typed.

import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, fill } from '../lib/h.js';
import { errorText, say } from '../lib/dom.js';
import { post, del } from '../account.js';
import { when } from './care.js';

/** The scopes a token may have, in the order the form offers them (the server's names). */
export const SCOPES = ['bot:play', 'board:play', 'challenge:read', 'challenge:write', 'game:read', 'tournament:write'];

/** How long a Revoke button waits for its second click. */
const CONFIRM_MS = 5000;

/** The words for a scope; one the page does not know (a newer server's) is its name. */
function scopeText(scope) {
  const key = 'tok_scope_' + scope.replace(':', '_');
  const text = t(key);
  return text === key ? scope : text;
}

/**
 * Draws the API tokens panel into `el`.
 * @param {HTMLElement} el
 */
export function renderTokens(el) {
  const list = h('ul', { class: 'session-list token-list', id: 'token-list' });
  const listError = h('p', { class: 'error', id: 'token-list-error', role: 'alert' });
  const shown = newTokenBox();
  fill(el,
    h('section', { class: 'panel tokens', 'aria-labelledby': 'tokens-heading' },
      h('h2', { id: 'tokens-heading' }, t('tok_title')),
      h('p', { class: 'note' }, t('tok_note')),
      h('p', { class: 'note' }, t('tok_docs'), ' ', h('code', null, 'docs/api-bots.md')),
      list, listError,
      shown.box,
      createForm(list, listError, shown)));
  loadTokens(list, listError, shown);
}

/**
 * Where a token just made is shown, once: its text, a Copy button and the warning.
 * @returns {{box: HTMLElement, show: (token: {id: string, token: string}) => void, hide: (id?: string) => void}}
 */
function newTokenBox() {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    id: 'token-text', type: 'text', readonly: true, spellcheck: 'false', autocomplete: 'off',
    'aria-describedby': 'token-warning',
  }));
  const copy = h('button', { type: 'button', id: 'token-copy' }, t('tok_copy'));
  const box = h('div', { class: 'token-new', id: 'token-new', hidden: true },
    h('label', { for: 'token-text' }, t('tok_new_label')),
    h('div', { class: 'share-row' }, input, copy),
    h('p', { class: 'warning', id: 'token-warning' }, t('tok_once_warning')));
  copy.addEventListener('click', async () => {
    input.focus();
    input.select();
    let copied = false;
    try {
      await navigator.clipboard.writeText(input.value);
      copied = true;
    } catch {
      // No clipboard (a page not served over HTTPS, or refused): the text stays selected.
      copied = document.execCommand('copy');
    }
    say(t(copied ? 'tok_copied' : 'tok_copy_yourself'), true);
  });
  let shownId = null;
  return {
    box,
    show(token) {
      shownId = token.id;
      input.value = token.token;
      box.hidden = false;
      input.focus();
      input.select();
    },
    // The text of a token revoked is of no use any more: it goes with it.
    hide(id) {
      if (id !== undefined && id !== shownId) return;
      shownId = null;
      input.value = '';
      box.hidden = true;
    },
  };
}

async function loadTokens(list, error, shown) {
  const r = await api('GET', '/tokens');
  if (!r.ok) { error.textContent = errorText(r); return; }
  error.textContent = '';
  const tokens = (r.data && r.data.tokens) || [];
  if (!tokens.length) {
    fill(list, h('li', { class: 'note', id: 'token-none' }, t('tok_none')));
    return;
  }
  fill(list, tokens.map((tk) => h('li', { dataset: { token: tk.id } },
    h('strong', { class: 'token-description' }, tk.description || t('tok_no_description')),
    h('span', { class: 'token-scopes' }, (tk.scopes || []).map((s, i) => [i ? ' ' : null, h('code', { title: scopeText(s) }, s)])),
    h('span', { class: 'note token-dates' },
      t('tok_created', { when: when(tk.created) }), ' · ',
      tk.used ? t('tok_used', { when: when(tk.used) }) : t('tok_never_used')),
    revokeButton(tk, list, error, shown))));
}

/** Revoke, on a second click: a token revoked by mistake stops a running bot. */
function revokeButton(token, list, error, shown) {
  const label = t('tok_revoke_label', { name: token.description || t('tok_no_description') });
  const b = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'small token-revoke', 'aria-label': label }, t('tok_revoke')));
  let timer = null;
  const reset = () => {
    clearTimeout(timer);
    b.classList.remove('danger');
    b.textContent = t('tok_revoke');
    b.setAttribute('aria-label', label);
  };
  b.addEventListener('click', async () => {
    if (!b.classList.contains('danger')) {
      b.classList.add('danger');
      b.textContent = t('tok_revoke_sure');
      b.removeAttribute('aria-label');
      say(t('tok_revoke_sure'));
      timer = setTimeout(reset, CONFIRM_MS);
      return;
    }
    reset();
    b.disabled = true;
    const r = await del(`/tokens/${encodeURIComponent(token.id)}`);
    b.disabled = false;
    // Unknown to the server is as good as revoked: the list is read again either way.
    if (!r.ok && !(r.data && r.data.error === 'not_found')) { error.textContent = errorText(r); return; }
    shown.hide(token.id);
    say(t('tok_revoked'), true);
    loadTokens(list, error, shown);
  });
  return b;
}

function createForm(list, listError, shown) {
  const error = h('p', { class: 'error', id: 'token-error', role: 'alert' });
  const form = /** @type {HTMLFormElement} */ (h('form', { id: 'token-form', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'token-description' }, t('tok_description')),
      h('input', { id: 'token-description', name: 'description', type: 'text', maxlength: 100, autocomplete: 'off', 'aria-describedby': 'token-description-note' }),
      h('p', { class: 'note', id: 'token-description-note' }, t('tok_description_note'))),
    h('fieldset', { class: 'token-scope-choices' },
      h('legend', null, t('tok_scopes')),
      SCOPES.map((s) => {
        const id = 'token-scope-' + s.replace(':', '-');
        return h('div', { class: 'choice' },
          h('input', { type: 'checkbox', name: 'scope', value: s, id }),
          h('label', { for: id }, h('code', null, s), ' — ', scopeText(s)));
      })),
    h('button', { type: 'submit', class: 'primary' }, t('tok_create')),
    error));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const description = form.description.value.trim();
    const scopes = [...form.querySelectorAll('input[name="scope"]:checked')].map((b) => /** @type {HTMLInputElement} */ (b).value);
    if (!scopes.length) {
      error.textContent = t('tok_no_scope');
      /** @type {HTMLInputElement} */ (form.querySelector('input[name="scope"]')).focus();
      return;
    }
    const button = form.querySelector('button');
    button.disabled = true;
    const r = await post('/tokens', { description, scopes });
    button.disabled = false;
    if (!r.ok) { error.textContent = errorText(r); return; }
    error.textContent = '';
    form.reset();
    shown.show(r.data);
    say(t('tok_made'));
    loadTokens(list, listError, shown);
  });
  return h('div', null, h('h3', null, t('tok_new_heading')), form);
}
