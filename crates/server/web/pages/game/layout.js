// A game's page, part 2 of 7: its HTML and what each control does.

import { GameSeats } from './seats.js';
import { ChatPanel } from './chat.js';
import { esc } from '../../common.js';
import { t } from '../../i18n.js';
import { Board } from '../../board.js';
import { sound } from '../../prefs.js';
import { Clocks } from '../../clock.js';
import { main } from '../../lib/dom.js';
import { SPEEDS, speed } from '../../lib/speed.js';

export class GameLayout extends GameSeats {
  build() {
    main.innerHTML = `
      <div class="game-layout">
        <section class="play" aria-labelledby="game-heading">
          <h1 id="game-heading" class="sr-only"></h1>
          <div id="tournament-bar" class="tournament-bar" hidden></div>
          <p id="status" class="status"></p>
          <p id="last-seeds" class="note last-seeds" hidden></p>
          <div id="invite" class="invite" hidden>
            <label for="share">${esc(t('share_link'))}</label>
            <div class="share-row"><input id="share" readonly value="${esc(this.inviteLink())}">
            <button type="button" id="copy">${esc(t('copy'))}</button></div>
            <div id="invite-network" hidden>
              <p class="note" id="invite-network-text"></p>
              <div class="share-row"><input id="share-network" readonly aria-labelledby="invite-network-text">
              <button type="button" id="copy-network">${esc(t('copy'))}</button></div>
            </div>
            <p id="invite-warning" class="warning" hidden></p>
            <p id="invite-hints" class="note"></p>
          </div>
          <div id="join" class="invite" hidden><button type="button" class="primary" id="join-button"></button></div>
          <div class="seat-bar seat-top"><div id="clock-top" class="clock" hidden></div><p id="player-top" class="player" hidden></p></div>
          <div id="board" role="group"></div>
          <div class="seat-bar seat-bottom"><div id="clock-bottom" class="clock" hidden></div><p id="player-bottom" class="player" hidden></p></div>
          <div id="offer-bar" class="offer-bar" hidden role="status"><span id="offer-text"></span>
            <button type="button" id="offer-accept" class="primary">${esc(t('accept'))}</button>
            <button type="button" id="offer-decline">${esc(t('decline'))}</button></div>
          <p id="away-note" class="note away" hidden></p>
          <div id="history-bar" class="history-bar" hidden><span id="history-text"></span>
            <button type="button" id="to-live">${esc(t('back_to_game'))}</button></div>
          <div class="controls">
            <button type="button" id="hint">${esc(t('hint'))}</button>
            <button type="button" id="takeback">${esc(t('takeback'))}</button>
            <button type="button" id="abort">${esc(t('abort'))}</button>
            <button type="button" id="berserk" title="${esc(t('berserk_title'))}" hidden>${esc(t('berserk'))}</button>
            <button type="button" id="resign">${esc(t('resign'))}</button>
            <button type="button" id="offer-draw">${esc(t('offer_draw'))}</button>
            <button type="button" id="offer-takeback">${esc(t('offer_takeback'))}</button>
            <button type="button" id="claim" class="primary">${esc(t('claim_win'))}</button>
            <button type="button" id="rematch" class="primary" hidden>${esc(t('rematch'))}</button>
            <a id="to-rematch" class="button primary" hidden data-link>${esc(t('go_rematch'))}</a>
            <button type="button" id="flip">${esc(t('flip'))}</button>
          </div>
          <div class="controls anim">
            <label for="speed">${esc(t('speed'))}</label>
            <select id="speed">
              ${Object.keys(SPEEDS).map((s) => `<option value="${s}">${esc(t('speed_' + s))}</option>`).join('')}
            </select>
            <button type="button" id="skip">${esc(t('skip'))}</button>
          </div>
          <p class="note keys">${esc(t('keyboard_help'))} ${esc(t('board_keys'))}</p>
        </section>
        <aside class="side-panel" aria-labelledby="moves-heading">
          <h2 id="moves-heading">${esc(t('moves_title'))}</h2>
          <div class="step" role="group" aria-label="${esc(t('moves_title'))}">
            <button type="button" id="first" aria-label="${esc(t('first'))}" title="${esc(t('first'))}">«</button>
            <button type="button" id="prev" aria-label="${esc(t('prev'))}" title="${esc(t('prev'))}">‹</button>
            <button type="button" id="next" aria-label="${esc(t('next'))}" title="${esc(t('next'))}">›</button>
            <button type="button" id="last" aria-label="${esc(t('last'))}" title="${esc(t('last'))}">»</button>
          </div>
          <ol id="movelist" class="movelist"></ol>
          <button type="button" id="why" hidden aria-controls="why-panel" aria-expanded="false">${esc(t('why_button'))}</button>
          <section id="why-panel" class="why-panel" hidden aria-labelledby="why-heading">
            <h3 id="why-heading"></h3>
            <ol id="why-list"></ol>
            <button type="button" id="why-close">${esc(t('why_close'))}</button>
          </section>
          <p class="meta" id="meta"></p>
          <label class="choice public-toggle" id="public-toggle" hidden><input type="checkbox" id="public" aria-describedby="public-note"> <span>${esc(t('make_public'))}</span></label>
          <p class="note" id="public-note" hidden>${esc(t('make_public_note'))}</p>
          <button type="button" id="export">${esc(t('export'))}</button>
          <a id="analyse" class="button" data-link href="/analysis/${esc(this.id)}" hidden>${esc(t('an_analyse'))}</a>
          <a href="/" data-link class="button">${esc(t('new_game'))}</a>
          <section id="chat" class="chat-panel" aria-labelledby="chat-heading"></section>
        </aside>
      </div>`;
    this.board = new Board(main.querySelector('#board'), (l) => this.play(l));
    const $ = (s) => main.querySelector(s);
    this.chat = new ChatPanel($('#chat'), (m) => Boolean(this.socket && this.socket.say(m)), this.chat);
    $('#copy').addEventListener('click', () => this.copyLink('#share'));
    $('#copy-network').addEventListener('click', () => this.copyLink('#share-network'));
    $('#join-button').addEventListener('click', () => this.join());
    $('#to-live').addEventListener('click', () => this.goLive());
    $('#hint').addEventListener('click', () => this.hint());
    $('#takeback').addEventListener('click', () => this.takeback());
    $('#resign').addEventListener('click', () => this.resign());
    $('#abort').addEventListener('click', () => this.act('abort'));
    $('#berserk').addEventListener('click', () => this.act('berserk'));
    $('#offer-draw').addEventListener('click', () => this.act('offer', { offer: 'draw' }));
    $('#offer-takeback').addEventListener('click', () => this.act('offer', { offer: 'takeback' }));
    $('#offer-accept').addEventListener('click', () => this.act('offer/accept'));
    $('#offer-decline').addEventListener('click', () => this.act('offer/decline'));
    $('#claim').addEventListener('click', () => this.act('claim'));
    $('#public').addEventListener('change', (e) => this.setPublic(e.target));
    this.clocks = new Clocks($('#clock-top'), $('#clock-bottom'), () => sound.lowTime());
    $('#rematch').addEventListener('click', () => this.rematch());
    $('#flip').addEventListener('click', () => { this.flipped = !this.flipped; this.show(); });
    $('#speed').value = speed();
    $('#speed').addEventListener('change', (e) => localStorage.setItem('anywoli.speed', e.target.value));
    $('#skip').addEventListener('click', () => this.board.skip());
    $('#first').addEventListener('click', () => this.step(0));
    $('#prev').addEventListener('click', () => this.step(this.shownPly() - 1));
    $('#next').addEventListener('click', () => this.step(this.shownPly() + 1));
    $('#last').addEventListener('click', () => this.goLive());
    $('#export').addEventListener('click', () => this.exportRecord());
    $('#why').addEventListener('click', () => this.why());
    $('#why-close').addEventListener('click', () => this.closeWhy());
    $('#movelist').addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-ply]');
      if (b) this.step(Number(b.dataset.ply));
    });
  }
}
