// Moving between the page's views without a reload: the address changes, then the router (set
// by app.js) builds the view for it.

let router = () => {};
/** The language switch under way (its texts being fetched), or null. */
let switching = null;

/** The function that builds the view for the current address (app.js's `route`). */
export function setRouter(route) {
  router = route;
}

/** A language switch has begun: views opened until it ends wait for it. */
export function languageSwitch(done) {
  switching = done;
  done.finally(() => { if (switching === done) switching = null; });
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  // A language still being fetched is waited for, so the new view is in the reader's choice.
  if (switching) switching.then(() => router());
  else router();
}
