// TV at /tv (docs/api.md, "TV"): the best live game, shown as a spectator sees any game
// (board, names, ratings, clocks), following on to the next game when it ends. It is the
// game page fed by the TV socket instead of one game's.

import { GameView } from '../game/view.js';
import { site } from '../game/invite.js';
import { ReconnectingSocket } from '../../socket.js';
import { t } from '../../i18n.js';
import { h, fill } from '../../lib/h.js';
import { main, setBody, say } from '../../lib/dom.js';

class TvSocket extends ReconnectingSocket {
  constructor(onMessage, onStatus) {
    super('/api/tv/events', onMessage, onStatus);
    this.connect();
  }
}

export class TvView extends GameView {
  constructor() {
    super(null);
    setBody({ view: 'tv', tv: '' });
    document.title = t('app_title') + ' — ' + t('nav_tv');
  }

  async start() {
    this.site = await site();
    this.socket = new TvSocket((m) => this.heard(m), (on) => this.connection(on));
  }

  heard(m) {
    if (m.type !== 'tv') { this.receive(m); return; }
    this.id = m.game;
    this.game = null;
    this.queue = [];
    this.viewPly = null;
    this.positions = null;
    setBody({ tv: m.game || '' });
    this.build();
    if (!m.game) {
      fill(main, h('section', { class: 'panel' }, h('h1', null, t('nav_tv')), h('p', { id: 'tv-none' }, t('tv_none'))));
      return;
    }
    say(t('tv_next'));
  }
}
