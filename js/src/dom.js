// Tiny DOM helpers shared by the widgets. Text always goes through textContent and attributes
// through setAttribute, never through innerHTML: feature names and values can be user data.

/**
 * Create an HTML element.
 * @param {string} tag
 * @param {{className?: string, text?: string | number, title?: string, attrs?: Record<string, string>,
 *          on?: Record<string, EventListener>}} [props]
 * @param {(Node | null | undefined)[]} [children]
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, children = []) {
  const el = document.createElement(tag);
  if (props.className) el.className = props.className;
  if (props.text !== undefined && props.text !== null) el.textContent = String(props.text);
  if (props.title) el.setAttribute("title", props.title);
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const [k, fn] of Object.entries(props.on ?? {})) el.addEventListener(k, fn);
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

/**
 * A widget's word with its glossary entry (the model's ``glossary`` trait, from ``fairnb.summaries.TERMS``): the
 * one-line definition as its tooltip and a "?" link to the entry, opened in a new tab. Without an entry, the word.
 * @param {{get: (k: string) => any}} model
 * @param {string} key
 * @param {string} label
 * @param {string} [className]
 * @returns {HTMLElement}
 */
export function glossaryTerm(model, key, label, className = "") {
  const entry = (model.get("glossary") ?? {})[key];
  const word = h("span", { className, text: label, title: entry?.tip });
  if (!entry || !/^https?:\/\//.test(String(entry.href))) return word;
  const link = h("a", { className: "fairnb-glossary-link", text: "?", title: `${entry.tip} (glossary)`,
    attrs: { href: entry.href, target: "_blank", rel: "noopener", "aria-label": `${label}: glossary entry` } });
  return h("span", { className: "fairnb-term", attrs: { "data-term-key": key } }, [word, link]);
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * The first sentence of an inspector's summary band, as the kernel wrote it: the natural rate (the share of
 * inputs discriminatory as they are) with its 95 % interval, then the material discriminatory inputs found.
 * @param {any} model the anywidget model
 */
export function headline(model) {
  return h("p", { className: "fairnb-headline", text: model.get("headline") ?? "" });
}

/**
 * Create an SVG element with attributes.
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
export function svg(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * "12,345" for counts.
 * @param {number} n
 */
export function formatCount(n) {
  return Math.round(Number(n) || 0).toLocaleString("en-US");
}

/**
 * "4.2 s", "3 min 05 s", "1 h 02 min".
 * @param {number} seconds
 */
export function formatDuration(seconds) {
  const s = Math.max(0, Number(seconds) || 0);
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/**
 * "12.3%" for shares in [0, 1].
 * @param {number} share
 */
export function formatPercent(share) {
  const p = 100 * (Number(share) || 0);
  return `${p < 10 ? p.toFixed(2) : p.toFixed(1)}%`;
}

/**
 * The "N per page" menu of a pager.
 * @param {number[]} sizes
 * @returns {HTMLSelectElement}
 */
export function pageSizeMenu(sizes) {
  return /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-page-size", title: "pairs per page" },
    sizes.map((n) => h("option", { text: `${n} per page`, attrs: { value: String(n) } }))));
}

/**
 * Show `pageSize` in the menu; a size set from Python that the menu lacks joins it, so the menu is never blank.
 * @param {HTMLSelectElement} menu
 * @param {number} pageSize
 */
export function showPageSize(menu, pageSize) {
  const value = String(pageSize);
  if (![...menu.options].some((o) => o.value === value)) {
    menu.appendChild(h("option", { text: `${value} per page`, attrs: { value } }));
  }
  menu.value = value;
}
