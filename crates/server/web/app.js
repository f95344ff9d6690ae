// The page: a small router over its views (lobby, tournaments, new game, game, archive, rules,
// puzzles, account, a player's profile, analysis, the editor, lessons). Each view is in its own
// module; what they share is in lib/.

import { esc } from './common.js';
import { t, seeds, setLang, currentLang, applyStatic, initLang } from './i18n.js';
import { PuzzleView } from './puzzle.js';
import { AnalysisView } from './pages/analysis/view.js';
import { EditorView } from './editor.js';
import { CommunityPuzzlesView } from './community.js';
import { CourseView, LessonView } from './learn.js';
import { RulesView } from './rules.js';
import { initPrefs, showPrefs } from './prefs.js';
import { initAccount, AccountView, renderAccountArea } from './account.js';
import { LobbyView } from './pages/lobby/view.js';
import { initLobby, refreshToasts } from './pages/lobby/challenges.js';
import { initProfile, ProfileView } from './profile.js';
import { ArchiveView } from './archive.js';
import { main, say, toast, errorText, setBody } from './lib/dom.js';
import { navigate, setRouter, languageSwitch } from './lib/nav.js';
import { resultText, accountName, sideName } from './lib/names.js';
import { SPEEDS, speed } from './lib/speed.js';
import { NewGameView } from './pages/new-game.js';
import { NotFoundView } from './pages/missing.js';
import { GameView } from './pages/game/view.js';
import { TvView } from './pages/community/tv.js';
import { LeadersView } from './pages/community/leaders.js';
import { FollowingView } from './pages/community/follow.js';
import { TournamentsView } from './pages/tournaments/list.js';
import { TournamentView } from './pages/tournaments/view.js';
import { ResetView } from './pages/reset.js';
import { ModView } from './pages/mod.js';

const toastEl = document.getElementById('toast');
let view = null;

function route() {
  if (view && view.destroy) view.destroy();
  view = null;
  toastEl.hidden = true;
  let path = location.pathname;
  // A link copied with a trailing slash still opens its page.
  if (path.length > 1 && path.endsWith('/')) {
    path = path.replace(/\/+$/, '') || '/';
    history.replaceState(null, '', path + location.search + location.hash);
  }
  const m = path.match(/^\/g\/([a-z0-9]{1,40})$/);
  const player = path.match(/^\/@\/([^/]{1,60})$/);
  const analysis = path.match(/^\/analysis(?:\/([a-z0-9]{1,40}))?$/);
  const reset = path.match(/^\/reset\/([A-Za-z0-9_-]{1,100})$/);
  const tournament = path.match(/^\/t\/([A-Za-z0-9]{1,40})$/);
  for (const a of document.querySelectorAll('header nav a')) {
    const here = a.getAttribute('href') === path || (path === '/new' && a.getAttribute('href') === '/')
      || (path.startsWith('/puzzles/') && a.getAttribute('href') === '/puzzles')
      || (path.startsWith('/t/') && a.getAttribute('href') === '/tournaments');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (path === '/' || path === '/new') view = new NewGameView();
  else if (path === '/lobby') view = new LobbyView();
  else if (path === '/tv') view = new TvView();
  else if (path === '/tournaments') view = new TournamentsView();
  else if (tournament) view = new TournamentView(tournament[1]);
  else if (path === '/leaderboards') view = new LeadersView();
  else if (path === '/following') view = new FollowingView();
  else if (path === '/account') view = new AccountView();
  else if (player) view = new ProfileView(decodeName(player[1]));
  else if (path === '/archive') view = new ArchiveView(ui);
  else if (path === '/rules') view = new RulesView();
  else if (path === '/editor') view = new EditorView(ui);
  else if (path === '/puzzles') view = new PuzzleView(puzzleUi(), null);
  else if (/^\/puzzles\/\d{1,6}$/.test(path)) view = new PuzzleView(puzzleUi(), path.slice(9));
  else if (path === '/learn') view = new CourseView(ui);
  else if (/^\/learn\/[a-z]{1,20}$/.test(path)) view = new LessonView({ ...puzzleUi(), navigate: ui.navigate }, path.slice(7));
  else if (path === '/puzzles/next') view = new PuzzleView(puzzleUi(), 'next');
  else if (path === '/puzzles/community') view = new CommunityPuzzlesView(ui);
  else if (/^\/puzzles\/community\/[a-z0-9]{12}$/.test(path)) view = new PuzzleView(puzzleUi(), path.slice(19), true);
  else if (m) view = new GameView(m[1]);
  else if (reset) view = new ResetView(reset[1]);
  else if (path === '/mod') view = new ModView();
  else if (analysis) view = new AnalysisView({ main, esc, say, setBody, errorText, delay: () => SPEEDS[speed()] }, analysis[1] || null);
  else view = new NotFoundView(path.startsWith('/g/') ? 'not_found' : 'page_not_found');
  renderAccountArea();
  refreshToasts();
}

function decodeName(s) {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** What the other modules' views (account, lobby, profile) use of the page. */
const ui = {
  main, esc, say, toast, setBody, errorText, resultText, accountName, sideName,
  navigate: (path, replace) => navigate(path, replace),
};

/** What the puzzle view (puzzle.js) uses of the page. */
function puzzleUi() {
  return { main, esc, say, setBody, errorText, delay: () => SPEEDS[speed()] };
}

document.addEventListener('click', (e) => {
  const a = /** @type {any} */ (e.target).closest('a[data-link]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);

// ------------------------------------------------------------------------------------------

setRouter(route);
const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang-select'));
await initLang();
select.value = currentLang();
applyStatic();
initPrefs();
initAccount(ui);
initLobby();
initProfile(ui);
select.addEventListener('change', async () => {
  const switched = setLang(select.value);
  languageSwitch(switched);
  await switched;
  select.value = currentLang();
  applyStatic();
  showPrefs();
  renderAccountArea();
  refreshToasts();
  if (view && view.refresh) view.refresh();
  say(t('language_changed'));
});
route();

// For people reading the code in the console: the page's own vocabulary.
export { seeds };
