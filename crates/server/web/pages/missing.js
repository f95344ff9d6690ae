// The "no such game/page" view: a mistyped address, or a game link that leads nowhere.

import { esc } from '../common.js';
import { t } from '../i18n.js';
import { main, setBody } from '../lib/dom.js';

/** A mistyped address: a game link that leads nowhere, or any other page that does not exist. */
export class NotFoundView {
  constructor(key = 'page_not_found') {
    this.key = key;
    setBody({ view: 'missing' });
    this.render();
  }

  render() {
    document.title = t('app_title') + ' — ' + t(this.key);
    main.innerHTML = missingHtml(this.key);
  }

  refresh() { this.render(); }
}

/** The "no such game/page" panel, shared by the router and a game that fails to load. */
export function missingHtml(key) {
  return `<section class="panel missing"><h1 id="missing-heading">${esc(t(key))}</h1>
    <p>${esc(t('not_found_help'))}</p>
    <p><a href="/" data-link class="button primary">${esc(t('nav_new'))}</a>
    <a href="/archive" data-link class="button">${esc(t('nav_archive'))}</a></p></section>`;
}
