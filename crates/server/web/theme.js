// Runs before the first paint (a plain, blocking script in the page's head), so that the page
// never flashes in the wrong colours: dark when the reader chose dark, or chose nothing and the
// device is set to dark. prefs.js keeps it up to date afterwards (the switch, the device).
(function () {
  var choice = null;
  try { choice = localStorage.getItem('anywoli.theme'); } catch { /* no storage */ }
  var dark = choice === 'dark' ||
    (choice !== 'light' && !!window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
})();
