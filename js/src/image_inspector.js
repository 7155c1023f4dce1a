// Front end of fairnb.widgets.ImageInspector: a paged grid of image pairs (input above its attribute
// flip) and, for the selected pair, the seed, the input, the flip(s) and amplified difference heat maps
// side by side. The kernel owns the images and sends one page of PNG thumbnails at a time (base64 text);
// the front end only sets `page`, `page_size`, `sort_by`, `sort_descending` and `selected_ids`. Keyboard:
// arrows move between pairs (and across pages), Enter or Space selects, PageUp/PageDown change page.
// The grid has as many columns as its widest pair fits into the output area (it follows resizes).
import { formatCount, glossaryTerm, h, headline, pageSizeMenu, showPageSize } from "./dom.js";
import { nextSelection, pageCount } from "./pair_inspector.js";

/**
 * @typedef {{id: number, input: string, counterpart: string, caption: string}} Cell
 * @typedef {{role: string, caption: string, png: string}} Picture
 * @typedef {{pair?: number, summary?: string, images?: Picture[], heatmaps?: Picture[],
 *            columns?: string[], table?: {name: string, values: string[]}[], norms?: {name: string, value: string, term?: string}[]}} Detail
 * @typedef {{
 *   title: string, attribute: string, n_pairs: number, page: number, page_size: number, sort_by: string,
 *   sort_descending: boolean, sort_options: {name: string, label: string}[], cells: Cell[],
 *   selected_ids: number[], detail: Detail, version: number
 * }} ImageInspectorState
 */

export const PAGE_SIZES = [20, 40, 80, 160];
/** columns of the grid until it is measured; at most MAX_COLUMNS once it is */
export const COLUMNS = 8;
export const MAX_COLUMNS = 12;
const GAP = 4;   // px between pairs: .fairnb-image-grid's gap
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A data URI for base64 PNG text from the kernel, or "" when the text is not base64 (nothing else
 * ever reaches an `src`).
 * @param {string} b64
 */
export function pngSource(b64) {
  return typeof b64 === "string" && BASE64.test(b64) ? `data:image/png;base64,${b64}` : "";
}

/**
 * Where the keyboard focus goes in a grid of `count` cells, `columns` wide, after `key`:
 * `{index, page}` with `page` -1 / +1 when the move leaves the page (then `index` is the cell to focus
 * on the new page), or null for keys the grid does not handle.
 * @param {number} index
 * @param {string} key
 * @param {number} count
 * @param {number} columns the grid's columns now (they follow its width)
 * @returns {{index: number, page: number} | null}
 */
export function nextFocus(index, key, count, columns) {
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[key];
  if (key === "Home") return { index: 0, page: 0 };
  if (key === "End") return { index: Math.max(0, count - 1), page: 0 };
  if (key === "PageDown") return { index: 0, page: 1 };
  if (key === "PageUp") return { index: 0, page: -1 };
  if (step === undefined) return null;
  const to = index + step;
  if (to >= count) return { index: 0, page: 1 };
  if (to < 0) return { index: -1, page: -1 };   // -1: the last cell of the previous page
  return { index: to, page: 0 };
}

/**
 * How many columns of pairs fit `width` px: cells `cell` px wide with `gap` px between them (at least 1, at
 * most `max`); `fallback` while nothing is measured (a hidden output, no layout engine).
 * @param {number} width
 * @param {number} cell
 * @param {number} [gap]
 * @param {number} [max]
 * @param {number} [fallback]
 */
export function columnsFor(width, cell, gap = GAP, max = MAX_COLUMNS, fallback = COLUMNS) {
  if (!(width > 0) || !(cell > 0)) return fallback;
  return Math.max(1, Math.min(max, Math.floor((width + gap) / (cell + gap))));
}

/** The image a difference leads to: each heat map sits below it. */
export const HEAT_TARGET = { bias: "input", senatt: "counterpart", exact: "exact" };

/**
 * The column (0-based) of heat map `role` (the `j`-th heat map) below the images: the column of the
 * image its difference leads to, else the `j`-th.
 * @param {Picture[]} images
 * @param {string} role
 * @param {number} j
 */
export function heatColumn(images, role, j) {
  const at = images.findIndex((p) => p.role === HEAT_TARGET[/** @type {keyof typeof HEAT_TARGET} */ (role)]);
  return at >= 0 ? at : j;
}

/** @param {string} src @param {string} alt @param {string} className */
function picture(src, alt, className) {
  const img = h("img", { className, attrs: { alt } });
  if (src) img.setAttribute("src", src);
  return img;
}

/** @type {import("@anywidget/types").Render<ImageInspectorState>} */
function render({ model, el }) {
  const title = h("span", { className: "fairnb-inspector-title" });
  const count = h("span", { className: "fairnb-inspector-count" });
  const sort = /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-image-sort", title: "order of the pairs" }));
  const direction = h("button", { className: "fairnb-button fairnb-image-direction", attrs: { type: "button" } });
  const grid = h("div", { className: "fairnb-image-grid", attrs: { role: "listbox", "aria-label": "image pairs" } });
  const first = h("button", { className: "fairnb-button", text: "«", title: "first page", attrs: { type: "button", "data-page": "first" } });
  const prev = h("button", { className: "fairnb-button", text: "‹", title: "previous page", attrs: { type: "button", "data-page": "prev" } });
  const next = h("button", { className: "fairnb-button", text: "›", title: "next page", attrs: { type: "button", "data-page": "next" } });
  const last = h("button", { className: "fairnb-button", text: "»", title: "last page", attrs: { type: "button", "data-page": "last" } });
  const pageLabel = h("span", { className: "fairnb-page-label" });
  const size = pageSizeMenu(PAGE_SIZES);
  const detail = h("div", { className: "fairnb-detail fairnb-image-detail" });
  let columns = 0;
  /** @param {number} n */
  const setColumns = (n) => {
    if (n === columns) return;
    columns = n;
    grid.style.gridTemplateColumns = `repeat(${n}, max-content)`;
    grid.setAttribute("data-columns", String(n));
  };
  setColumns(COLUMNS);
  /** the columns that the widest pair allows in the grid's width (cells are as wide as their column) */
  const fit = () => setColumns(columnsFor(grid.clientWidth,
    Math.max(0, ...cellNodes().map((c) => c.getBoundingClientRect().width))));
  const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(fit);
  resize?.observe(grid);

  el.appendChild(h("div", { className: "fairnb-inspector fairnb-image-inspector" }, [
    h("div", { className: "fairnb-toolbar" }, [title, count, h("label", { text: "order: " }, [sort]), direction]),
    headline(model),
    grid,
    h("div", { className: "fairnb-pager" }, [first, prev, pageLabel, next, last, size]),
    detail,
  ]));

  /** the cell to focus when the next page arrives (-1: its last cell), or null */
  let pendingFocus = /** @type {number | null} */ (null);
  const QUERY = new Set(["page", "page_size", "sort_by", "sort_descending"]);
  /** @param {Partial<ImageInspectorState>} changes */
  function send(changes) {
    if (Object.keys(changes).some((k) => QUERY.has(k))) grid.setAttribute("aria-busy", "true");
    for (const [k, v] of Object.entries(changes)) model.set(/** @type {any} */ (k), v);
    model.save_changes();
  }
  const pages = () => pageCount(model.get("n_pairs"), model.get("page_size"));
  /** @param {number} page */
  const goTo = (page) => {   // true when a new page was asked for
    const to = Math.min(pages() - 1, Math.max(0, page));
    if (to === model.get("page")) return false;
    send({ page: to });
    return true;
  };
  first.addEventListener("click", () => goTo(0));
  prev.addEventListener("click", () => goTo(model.get("page") - 1));
  next.addEventListener("click", () => goTo(model.get("page") + 1));
  last.addEventListener("click", () => goTo(pages() - 1));
  size.addEventListener("change", () => send({ page_size: Number(size.value), page: 0 }));
  sort.addEventListener("change", () => send({ sort_by: sort.value, page: 0 }));
  direction.addEventListener("click", () => send({ sort_descending: !model.get("sort_descending"), page: 0 }));

  const cellNodes = () => /** @type {HTMLElement[]} */ ([...grid.querySelectorAll(".fairnb-image-cell")]);
  /** @param {number} id @param {boolean} toggle */
  const choose = (id, toggle) => send({ selected_ids: nextSelection(model.get("selected_ids") ?? [], id, toggle) });

  grid.addEventListener("keydown", (e) => {
    const cells = cellNodes();
    const at = cells.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (e.key === "Enter" || e.key === " ") {   // selects the pair (Ctrl: adds or removes it); never unselects
      if (at < 0) return;
      e.preventDefault();
      const id = Number(cells[at].getAttribute("data-id"));
      if (e.ctrlKey || e.metaKey) choose(id, true);
      else send({ selected_ids: [id] });
      return;
    }
    const move = nextFocus(Math.max(0, at), e.key, cells.length, columns);
    if (!move) return;
    e.preventDefault();
    if (move.page === 0) cells[move.index]?.focus();
    else if (goTo(model.get("page") + move.page)) pendingFocus = move.index;
  });

  function renderToolbar() {
    title.textContent = model.get("title") ?? "";
    count.textContent = `${formatCount(model.get("n_pairs"))} pairs`;
    const options = [{ name: "", label: "order found" }, ...(model.get("sort_options") ?? [])];
    sort.replaceChildren(...options.map((o) => h("option", { text: o.label, attrs: { value: o.name } })));
    sort.value = model.get("sort_by") ?? "";
    const descending = Boolean(model.get("sort_descending"));
    direction.textContent = descending ? "↓ largest first" : "↑ smallest first";
    direction.setAttribute("aria-pressed", String(descending));
    direction.toggleAttribute("disabled", !model.get("sort_by"));
  }

  function renderGrid() {
    const selected = new Set(model.get("selected_ids") ?? []);
    const hadFocus = grid.contains(document.activeElement);
    grid.replaceChildren(...(model.get("cells") ?? []).map((cell) => {
      const on = selected.has(cell.id);
      const node = h("div", {
        className: on ? "fairnb-image-cell fairnb-selected" : "fairnb-image-cell",
        title: `pair ${cell.id}: detector output, input → flip`,
        // data-lm-suppress-shortcuts: the arrows and Enter on a focused pair reach the grid, not the notebook's
        // shortcuts (Notebook 7 matches them, e.g. on ":focus" selectors, before the page sees the key)
        attrs: { "data-id": String(cell.id), tabindex: "0", role: "option", "aria-selected": String(on),
          "data-lm-suppress-shortcuts": "true" },
      }, [
        picture(pngSource(cell.input), `pair ${cell.id}, input`, "fairnb-thumb"),
        picture(pngSource(cell.counterpart), `pair ${cell.id}, flipped`, "fairnb-thumb"),
        h("span", { className: "fairnb-image-caption", text: `#${cell.id}  ${cell.caption}` }),
      ]);
      node.addEventListener("click", (e) => choose(cell.id, e.ctrlKey || e.metaKey));
      return node;
    }));
    const page = model.get("page");
    pageLabel.textContent = `page ${formatCount(page + 1)} of ${formatCount(pages())}`;
    first.disabled = prev.disabled = page <= 0;
    next.disabled = last.disabled = page >= pages() - 1;
    showPageSize(size, model.get("page_size"));
    fit();
    const cells = cellNodes();
    if (pendingFocus !== null && cells.length) {
      cells[pendingFocus < 0 ? cells.length - 1 : Math.min(pendingFocus, cells.length - 1)].focus();
    } else if (hadFocus) {
      (grid.querySelector(".fairnb-selected") ?? cells[0])?.focus();
    }
  }

  /** @param {Picture} p @param {string} className @param {number} column */
  const figure = (p, className, column) => {
    const node = h("figure", { className, attrs: { "data-role": p.role } }, [
      picture(pngSource(p.png), p.caption, "fairnb-image-large"),
      className.includes("fairnb-heatmap")
        ? h("figcaption", {}, [glossaryTerm(model, p.role, p.caption)])    // Δ_bias, Δ_senatt: NeuronFair's words
        : h("figcaption", { text: p.caption }),
    ]);
    node.style.gridColumn = String(column + 1);
    return node;
  };

  function renderDetail() {
    const d = model.get("detail") ?? {};
    if (!d.images) {
      detail.replaceChildren(h("p", { className: "fairnb-detail-empty",
        text: "Select a pair (click, or arrow keys and Enter) to see the seed, the input and its flip side by side." }));
      return;
    }
    const images = d.images ?? [];
    const rows = (d.table ?? []).map((r) => h("tr", { className: "fairnb-detail-output" },
      [h("th", { text: r.name }), ...(r.values ?? []).map((v) => h("td", { text: v }))]));
    const norms = (d.norms ?? []).map((n) => h("tr", { attrs: { "data-norm": n.name } },
      [h("th", {}, [glossaryTerm(model, n.term ?? "", n.name)]), h("td", { text: n.value })]));
    detail.replaceChildren(
      h("p", { className: "fairnb-detail-summary", text: d.summary ?? "" }),
      h("div", { className: "fairnb-image-panels" }, [
        ...images.map((p, j) => figure(p, "fairnb-figure", j)),
        ...(d.heatmaps ?? []).map((p, j) => figure(p, "fairnb-figure fairnb-heatmap", heatColumn(images, p.role, j))),
      ]),
      h("div", { className: "fairnb-image-tables" }, [
        h("table", { className: "fairnb-detail-table fairnb-image-probabilities" }, [
          h("thead", {}, [h("tr", {}, ["", ...(d.columns ?? [])].map((c) => h("th", { text: c })))]),
          h("tbody", {}, rows)]),
        h("table", { className: "fairnb-detail-table fairnb-image-norms" }, [h("tbody", {}, norms)]),
      ]),
      h("p", { className: "fairnb-detail-legend",
        text: "Below each image, the heat map of the change that leads to it: each pixel's largest change over the " +
          "colour channels, amplified so that the largest change is white (black: unchanged)." }),
    );
  }

  const onCells = () => { renderGrid(); pendingFocus = null; };
  const handlers = /** @type {[string, () => void][]} */ ([
    ["change:cells", onCells], ["change:page", renderGrid], ["change:page_size", renderGrid],
    ["change:n_pairs", () => { renderToolbar(); renderGrid(); }], ["change:selected_ids", renderGrid],
    ["change:title", renderToolbar], ["change:sort_by", renderToolbar], ["change:sort_descending", renderToolbar],
    ["change:sort_options", renderToolbar], ["change:detail", renderDetail],
    ["change:version", () => grid.setAttribute("aria-busy", "false")],
  ]);
  for (const [e, fn] of handlers) model.on(e, fn);
  grid.setAttribute("aria-busy", "false");
  renderToolbar();
  renderGrid();
  renderDetail();
  return () => {
    resize?.disconnect();
    for (const [e, fn] of handlers) model.off(e, fn);
  };
}

export default { render };
