// The page's shared frame: the main area, what screen readers are told, the toast, the body's
// data attributes that tests and CSS read, and an error answer in the reader's words.

import { t } from '../i18n.js';

export const main = document.getElementById('main');

const live = document.getElementById('live');

const toastEl = document.getElementById('toast');

/** Tells screen readers (and, when `show`, everyone) what happened. */
export function say(text, show = false) {
  const p = document.createElement('p');
  p.textContent = text;
  live.appendChild(p);
  while (live.childElementCount > 6) live.firstElementChild.remove();
  if (show) toast(text);
}

let toastTimer = null;

export function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastEl.hidden = true; }, 2600);
}

export function errorText(resp) {
  const code = resp.data && resp.data.error;
  const key = 'err_' + (code || 'network');
  const text = t(key);
  // An error the page has no words for yet shows its code, never the server's English text.
  return text === key ? t('err_other', { msg: code || resp.status }) : text;
}

export function setBody(attrs) {
  for (const [k, v] of Object.entries(attrs)) document.body.dataset[k] = v;
}
