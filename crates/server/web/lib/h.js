// Elements built from data, escaped by construction: text goes in as text nodes (never parsed as
// HTML), attributes through setAttribute. For parts of the page that show what people typed or
// sent (names, challenges, game data), instead of HTML strings with esc().

/**
 * An element `tag` with `attrs` and `children`.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs] attribute values (a string or number is set, true
 *   sets the attribute empty, false, null or undefined leaves it out); `dataset` is an object of
 *   data-* values
 * @param {...any} children strings and numbers (as text), elements, arrays of them; null,
 *   undefined and false are left out
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * Appends `children` (as h() takes them) to `el`.
 * @param {Node} el
 * @param {any[]} children
 */
function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces what `el` holds with `children` (as h() takes them).
 * @param {Element} el
 * @param {...any} children
 */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}
