// The paged, sortable, filterable table that the pair and text inspectors share. The kernel owns the rows:
// it filters, sorts and sends one page at a time; this table only sets `page`, `page_size`, `sort_by`,
// `sort_descending`, `filters` and `selected_ids`, and is marked aria-busy from such a request until the
// kernel's answer (a new `version`) arrives. Cells are written with textContent unless a widget draws them.
import { formatCount, h, pageSizeMenu, showPageSize } from "./dom.js";

/**
 * @typedef {{name: string, kind: string}} Column
 * @typedef {{id: number, cells: string[]}} Row
 */

export const PAGE_SIZES = [10, 25, 50, 100];
export const FILTER_DELAY_MS = 250;
const QUERY = new Set(["page", "page_size", "sort_by", "sort_descending", "filters"]);

/**
 * Number of pages for `total` rows (at least 1).
 * @param {number} total
 * @param {number} pageSize
 */
export function pageCount(total, pageSize) {
  return Math.max(1, Math.ceil((Number(total) || 0) / Math.max(1, Number(pageSize) || 1)));
}

/**
 * The sort state after a click on column `name`: a new column sorts ascending, the same column
 * toggles the direction.
 * @param {string} current
 * @param {boolean} descending
 * @param {string} name
 * @returns {{sort_by: string, sort_descending: boolean}}
 */
export function nextSort(current, descending, name) {
  return current === name ? { sort_by: name, sort_descending: !descending } : { sort_by: name, sort_descending: false };
}

/**
 * The selection after a click on row `id`: a plain click selects only that row, a click with Ctrl
 * or Cmd adds or removes it.
 * @param {number[]} selected
 * @param {number} id
 * @param {boolean} toggle
 * @returns {number[]}
 */
export function nextSelection(selected, id, toggle) {
  if (!toggle) return selected.length === 1 && selected[0] === id ? [] : [id];
  return selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id];
}

/**
 * The shared table of an inspector.
 * @param {any} model the anywidget model
 * @param {{label?: (col: Column) => string, cell?: (row: any, col: Column, j: number) => HTMLElement,
 *          rowClass?: (row: any) => string, className?: string}} [options]
 *   `label`: a column's header text; `cell`: draws one cell (default: its text); `rowClass`: extra row classes.
 */
export function pagedTable(model, options = {}) {
  const label = options.label ?? ((/** @type {Column} */ c) => c.name);
  const cell = options.cell ?? ((/** @type {Row} */ row, /** @type {Column} */ col, /** @type {number} */ j) =>
    h("td", { className: `fairnb-col-${col.kind ?? "meta"}`, text: row.cells[j] ?? "" }));
  /** @type {Record<string, ReturnType<typeof setTimeout>>} */
  const timers = {};
  const title = h("span", { className: "fairnb-inspector-title" });
  const count = h("span", { className: "fairnb-inspector-count" });
  const head = h("thead");
  const body = h("tbody");
  const table = h("table", { className: `fairnb-table${options.className ? ` ${options.className}` : ""}` }, [head, body]);
  const pageButton = (/** @type {string} */ which, /** @type {string} */ text, /** @type {string} */ tip) =>
    /** @type {HTMLButtonElement} */ (h("button", { className: "fairnb-button", text, title: tip, attrs: { type: "button", "data-page": which } }));
  const first = pageButton("first", "«", "first page");
  const prev = pageButton("prev", "‹", "previous page");
  const next = pageButton("next", "›", "next page");
  const last = pageButton("last", "»", "last page");
  const pageLabel = h("span", { className: "fairnb-page-label" });
  const size = pageSizeMenu(PAGE_SIZES);
  const pager = h("div", { className: "fairnb-pager" }, [first, prev, pageLabel, next, last, size]);
  const clear = h("button", { className: "fairnb-button", text: "Clear filters", attrs: { type: "button" } });

  /** @param {Record<string, any>} changes */
  function send(changes) {
    if (Object.keys(changes).some((k) => QUERY.has(k))) table.setAttribute("aria-busy", "true");
    for (const [k, v] of Object.entries(changes)) model.set(k, v);
    model.save_changes();
  }

  /** Set (or, when empty, remove) the filter of one column and go to the first page.
   * @param {string} col @param {string} value */
  function setFilter(col, value) {
    const f = { ...(model.get("filters") ?? {}) };
    if (value.trim()) f[col] = value;
    else delete f[col];
    send({ filters: f, page: 0 });
  }

  /** Call `fn` once the user has stopped typing for a moment (one timer per `key`).
   * @param {string} key @param {() => void} fn */
  function later(key, fn) {
    clearTimeout(timers[key]);
    timers[key] = setTimeout(fn, FILTER_DELAY_MS);
  }

  const pages = () => pageCount(model.get("total"), model.get("page_size"));
  first.addEventListener("click", () => send({ page: 0 }));
  prev.addEventListener("click", () => send({ page: Math.max(0, model.get("page") - 1) }));
  next.addEventListener("click", () => send({ page: Math.min(pages() - 1, model.get("page") + 1) }));
  last.addEventListener("click", () => send({ page: pages() - 1 }));
  size.addEventListener("change", () => send({ page_size: Number(size.value), page: 0 }));
  clear.addEventListener("click", () => {
    for (const input of head.querySelectorAll("input")) /** @type {HTMLInputElement} */ (input).value = "";
    send({ filters: {}, page: 0 });
  });

  function renderHead() {
    head.replaceChildren();
    const names = h("tr");
    const filters = h("tr", { className: "fairnb-filter-row" });
    const current = model.get("filters") ?? {};
    for (const col of model.get("columns") ?? []) {
      const sort = h("button", { className: "fairnb-sort", text: label(col), title: `sort by ${col.name}`, attrs: { type: "button" } });
      sort.addEventListener("click", () => {
        send({ ...nextSort(model.get("sort_by"), model.get("sort_descending"), col.name), page: 0 });
      });
      names.appendChild(h("th", { className: `fairnb-col-${col.kind}`, attrs: { "data-column": col.name, "data-kind": col.kind } }, [sort]));
      const input = /** @type {HTMLInputElement} */ (h("input", {
        className: "fairnb-filter",
        title: "text to match; on numbers also >0.5, <=3, =2 or 1..5",
        attrs: { type: "search", placeholder: "filter", "data-column": col.name, "aria-label": `filter ${col.name}` },
      }));
      input.value = current[col.name] ?? "";
      input.addEventListener("input", () => later(col.name, () => setFilter(col.name, input.value)));
      filters.appendChild(h("th", { attrs: { "data-filter": col.name, "data-kind": col.kind } }, [input]));
    }
    head.append(names, filters);
    renderSortMarks();
  }

  function renderSortMarks() {
    const by = model.get("sort_by");
    for (const th of head.querySelectorAll("th[data-column]")) {
      const active = th.getAttribute("data-column") === by;
      th.setAttribute("aria-sort", active ? (model.get("sort_descending") ? "descending" : "ascending") : "none");
    }
  }

  function syncFilterInputs() {
    const current = model.get("filters") ?? {};
    for (const input of head.querySelectorAll("input[data-column]")) {
      const box = /** @type {HTMLInputElement} */ (input);
      const want = current[box.getAttribute("data-column") ?? ""] ?? "";
      if (box.value !== want && box !== document.activeElement) box.value = want;
    }
  }

  function renderBody() {
    const columns = model.get("columns") ?? [];
    const selected = new Set(model.get("selected_ids") ?? []);
    body.replaceChildren(...(model.get("rows") ?? []).map((/** @type {Row} */ row) => {
      const extra = options.rowClass ? options.rowClass(row) : "";
      const tr = h("tr", {
        className: `fairnb-row${selected.has(row.id) ? " fairnb-selected" : ""}${extra ? ` ${extra}` : ""}`,
        attrs: { "data-id": String(row.id), tabindex: "0", "aria-selected": String(selected.has(row.id)) },
      }, columns.map((/** @type {Column} */ col, /** @type {number} */ j) => cell(row, col, j)));
      const choose = (/** @type {MouseEvent | KeyboardEvent} */ e) => {
        send({ selected_ids: nextSelection(model.get("selected_ids") ?? [], row.id, e.ctrlKey || e.metaKey) });
      };
      tr.addEventListener("click", choose);
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(e); } });
      return tr;
    }));
    const total = model.get("total");
    const all = model.get("n_pairs");
    count.textContent = total === all ? `${formatCount(all)} pairs` : `${formatCount(total)} of ${formatCount(all)} pairs`;
    const page = model.get("page");
    pageLabel.textContent = `page ${formatCount(page + 1)} of ${formatCount(pages())}`;
    first.disabled = prev.disabled = page <= 0;
    next.disabled = last.disabled = page >= pages() - 1;
    showPageSize(size, model.get("page_size"));
    title.textContent = model.get("title") ?? "";
  }

  const onRows = () => { renderBody(); renderSortMarks(); };
  /** The model events the table follows (a widget adds its own and registers them all). */
  const handlers = /** @type {[string, () => void][]} */ ([
    ["change:columns", () => { renderHead(); renderBody(); }],
    ["change:rows", onRows], ["change:total", onRows], ["change:page", onRows], ["change:page_size", onRows],
    ["change:selected_ids", onRows], ["change:sort_by", renderSortMarks], ["change:sort_descending", renderSortMarks],
    ["change:title", onRows], ["change:version", () => table.setAttribute("aria-busy", "false")],
  ]);

  /** Follow `extra` model events too, draw everything, and return the cleanup function of `render`.
   * @param {[string, () => void][]} extra */
  function start(extra) {
    const all = [...handlers, ...extra];
    for (const [e, fn] of all) model.on(e, fn);
    table.setAttribute("aria-busy", "false");
    renderHead();
    renderBody();
    return () => {
      for (const [e, fn] of all) model.off(e, fn);
      for (const t of Object.values(timers)) clearTimeout(t);
    };
  }

  return { title, count, clear, table, pager, wrap: h("div", { className: "fairnb-table-wrap" }, [table]), send, setFilter,
    later, syncFilterInputs, start };
}
