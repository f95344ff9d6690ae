// The analysis board, part 1 of 5: its HTML (board, move tree, engine, opening explorer, proof,
// review, record) and what each control does.

import { t } from '../../i18n.js';
import { Board } from '../../board.js';
import { EnginePanel } from '../../engine.js';
import { ExplorerPanel } from './explorer.js';
import { ReviewPanel } from '../../review.js';

export class AnalysisLayout {
  // The view's state, shared by its parts: declared where their chain begins, set by the view
  // and its parts.
  /** @type {any} */ animation;
  /** @type {any} */ answers;
  /** @type {any} */ board;
  /** @type {any} */ bottom;
  /** @type {any} */ current;
  /** @type {any} */ destroyed;
  /** @type {any} */ engine;
  /** @type {any} */ explorer;
  /** @type {any} */ game;
  /** @type {any} */ gameId;
  /** @type {any} */ navToken;
  /** @type {any} */ onKey;
  /** @type {any} */ pending;
  /** @type {any} */ proofSeq;
  /** @type {any} */ proofTimer;
  /** @type {any} */ proofs;
  /** @type {any} */ recordCache;
  /** @type {any} */ review;
  /** @type {any} */ reviewPanel;
  /** @type {any} */ rules;
  /** @type {any} */ seed;
  /** @type {any} */ storageKey;
  /** @type {any} */ tree;
  /** @type {any} */ ui;
  /** @type {any} */ urlNode;

  // ----------------------------------------------------------------------------------------
  // The page
  build() {
    const { main, esc } = this.ui;
    const g = this.game;
    const game = g ? `<p class="note analysis-game" id="analysis-game">${esc(this.gameText(g))}
        · <a href="/g/${esc(g.id)}" data-link id="to-game">${esc(t('an_to_game'))}</a></p>` : '';
    main.innerHTML = `
      <div class="analysis-layout">
        <section class="analysis-main" aria-labelledby="analysis-heading">
          <h1 id="analysis-heading" class="analysis-heading">${esc(t(g ? 'an_title_game' : 'an_title'))} <span class="note">${esc(t('variant_name_' + this.rules))}</span></h1>
          ${game}
          <p id="analysis-status" class="status"></p>
          <p id="analysis-line" class="note analysis-line"></p>
          <div id="analysis-board" role="group"></div>
          <ul id="proof-legend" class="proof-legend" hidden aria-label="${esc(t('an_legend'))}">
            <li><span class="swatch proof-win" aria-hidden="true"></span>${esc(t('an_legend_win'))}</li>
            <li><span class="swatch proof-draw" aria-hidden="true"></span>${esc(t('an_legend_draw'))}</li>
            <li><span class="swatch proof-loss" aria-hidden="true"></span>${esc(t('an_legend_loss'))}</li>
          </ul>
          <div class="step tree-nav" role="group" aria-label="${esc(t('an_tree_nav'))}">
            <button type="button" id="tree-start" aria-label="${esc(t('first'))}" title="${esc(t('first'))}">«</button>
            <button type="button" id="tree-prev" aria-label="${esc(t('prev'))}" title="${esc(t('prev'))}">‹</button>
            <button type="button" id="tree-next" aria-label="${esc(t('next'))}" title="${esc(t('next'))}">›</button>
            <button type="button" id="tree-end" aria-label="${esc(t('an_line_end'))}" title="${esc(t('an_line_end'))}">»</button>
            <button type="button" id="tree-delete" aria-label="${esc(t('an_delete'))}" title="${esc(t('an_delete'))}">${esc(t('an_delete_short'))}</button>
          </div>
          <div id="analysis-moveinfo" class="moveinfo">
            <p id="analysis-played" hidden></p>
            <div id="analysis-better" hidden><span id="analysis-better-text"></span>
              <button type="button" id="play-better"></button></div>
          </div>
          <div class="controls">
            <button type="button" id="analysis-flip">${esc(t('flip'))}</button>
            <button type="button" id="copy-position">${esc(t('an_copy_position'))}</button>
            <button type="button" id="copy-record">${esc(t('an_copy_record'))}</button>
            <a id="open-editor" class="button" data-link href="/editor">${esc(t('an_open_editor'))}</a>
            <a id="share-link" class="button" href="/analysis">${esc(t('an_share_link'))}</a>
          </div>
        </section>
        <aside class="analysis-side">
          <section id="proven" class="proven" hidden aria-labelledby="proven-heading">
            <h2 id="proven-heading">${esc(t('an_proven_title'))}</h2>
            <p id="proven-text"></p>
          </section>
          <section class="side-box engine-panel" id="engine-panel" aria-labelledby="engine-heading"></section>
          <div id="explorer-box" class="explorer-box"></div>
          <section class="side-box tree-panel" aria-labelledby="tree-heading">
            <h2 id="tree-heading">${esc(t('an_tree_title'))}</h2>
            <div id="move-tree" class="move-tree" role="group" aria-labelledby="tree-heading"></div>
          </section>
        </aside>
        <div class="analysis-extra">
          ${g ? '<section class="side-box review-panel" id="review-panel" aria-labelledby="review-heading"></section>' : ''}
          <p class="note position-text"><span>${esc(t('an_position'))}</span> <code id="analysis-position-text"></code></p>
          <p class="note keys">${esc(t('an_keyboard_help'))} ${esc(t('board_keys'))}</p>
        </div>
      </div>`;
    const $ = (q) => main.querySelector(q);
    this.board = new Board($('#analysis-board'), (l) => this.play(l));
    this.board.orient(this.bottom, []);
    $('#analysis-board').setAttribute('aria-label', t('board_label'));
    $('#tree-start').addEventListener('click', () => this.goTo(this.tree.root));
    $('#tree-prev').addEventListener('click', () => this.prev());
    $('#tree-next').addEventListener('click', () => this.next());
    $('#tree-end').addEventListener('click', () => this.goTo(this.tree.lineEnd(this.current)));
    $('#tree-delete').addEventListener('click', () => this.deleteBranch());
    $('#analysis-flip').addEventListener('click', () => {
      this.bottom = this.bottom === 'south' ? 'north' : 'south';
      this.board.orient(this.bottom, []);
      this.show();
    });
    $('#copy-position').addEventListener('click', () => this.copy(this.current.position, t('an_position_copied')));
    $('#copy-record').addEventListener('click', async () => this.copy(await this.recordText(), t('an_record_copied')));
    $('#play-better').addEventListener('click', () => this.playBetter());
    $('#move-tree').addEventListener('click', (e) => {
      const b = /** @type {any} */ (e.target).closest('button[data-node]');
      const node = b && this.tree.get(b.dataset.node);
      if (node) this.goTo(node, { animate: this.current && node.parent === this.current.id });
    });
    const host = {
      esc: this.ui.esc,
      say: (text) => this.ui.say(text),
      setBody: (attrs) => this.ui.setBody(attrs),
      onPlay: (m) => this.play(m),
    };
    if (this.engine) {
      this.engine.el = $('#engine-panel');
      this.engine.render();
    } else this.engine = new EnginePanel($('#engine-panel'), host);
    if (this.explorer) {
      this.explorer.el = $('#explorer-box');
      this.explorer.render();
    } else this.explorer = new ExplorerPanel($('#explorer-box'), { ...host, errorText: this.ui.errorText });
    if (g) {
      const reviewHost = {
        ...host,
        errorText: this.ui.errorText,
        goPly: (ply) => { const n = this.tree.get(String(ply)); if (n) this.goTo(n); },
        reviewed: (review) => { this.review = review; this.show(); },
      };
      if (this.reviewPanel) {
        this.reviewPanel.el = $('#review-panel');
        this.reviewPanel.render();
      } else if (g.moves.length) this.reviewPanel = new ReviewPanel($('#review-panel'), g.id, reviewHost);
      else $('#review-panel').hidden = true;
    }
  }

  gameText(g) {
    const who = (side) => {
      const s = g.seats[side] || {};
      if (s.player) return s.player;
      return s.kind === 'computer' ? t('player_computer', { n: s.level }) : t('player_human');
    };
    const result = { '1-0': t('result_south'), '0-1': t('result_north'), '1/2-1/2': t('result_draw_short') }[g.result] || t('result_playing');
    return `${t('south')}: ${who('south')} · ${t('north')}: ${who('north')} · ${result} · ${t('an_game_moves', { n: g.moves.length })}`;
  }
}
