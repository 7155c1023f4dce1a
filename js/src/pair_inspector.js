// Front end of fairnb.widgets.PairInspector: a paged, sortable, filterable table of discriminatory
// pairs, and a side-by-side view of the selected pair. The kernel owns the data: it filters, sorts
// and sends one page of rows at a time, so 100,000 pairs never reach the browser at once. The front
// end only sets `page`, `page_size`, `sort_by`, `sort_descending`, `filters` and `selected_ids`; the
// table is marked aria-busy from such a request until the kernel's answer (a new `version`) arrives.
import { formatCount, h } from "./dom.js";

/**
 * @typedef {{name: string, kind: string}} Column
 * @typedef {{id: number, cells: string[]}} Row
 * @typedef {{name: string, seed: string | null, input: string, counterpart: string, protected: boolean,
 *            changed_protected: boolean, changed_from_seed: boolean}} DetailFeature
 * @typedef {{pair?: number, summary?: string, features?: DetailFeature[],
 *            outputs?: {name: string, input: string, counterpart: string}[], seed_known?: boolean}} Detail
 * @typedef {{
 *   columns: Column[], rows: Row[], total: number, n_pairs: number, page: number, page_size: number,
 *   sort_by: string, sort_descending: boolean, filters: Record<string, string>, selected_ids: number[],
 *   detail: Detail, title: string, version: number
 * }} InspectorState
 */

export const PAGE_SIZES = [10, 25, 50, 100];
const FILTER_DELAY_MS = 250;

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

/** @type {import("@anywidget/types").Render<InspectorState>} */
function render({ model, el }) {
  /** @type {Record<string, ReturnType<typeof setTimeout>>} */
  const timers = {};
  const title = h("span", { className: "fairnb-inspector-title" });
  const count = h("span", { className: "fairnb-inspector-count" });
  const clear = h("button", { className: "fairnb-button", text: "Clear filters", attrs: { type: "button" } });
  const head = h("thead");
  const body = h("tbody");
  const table = h("table", { className: "fairnb-table" }, [head, body]);
  const first = h("button", { className: "fairnb-button", text: "«", title: "first page", attrs: { type: "button", "data-page": "first" } });
  const prev = h("button", { className: "fairnb-button", text: "‹", title: "previous page", attrs: { type: "button", "data-page": "prev" } });
  const next = h("button", { className: "fairnb-button", text: "›", title: "next page", attrs: { type: "button", "data-page": "next" } });
  const last = h("button", { className: "fairnb-button", text: "»", title: "last page", attrs: { type: "button", "data-page": "last" } });
  const pageLabel = h("span", { className: "fairnb-page-label" });
  const size = h("select", { className: "fairnb-page-size", title: "pairs per page" },
    PAGE_SIZES.map((n) => h("option", { text: `${n} per page`, attrs: { value: String(n) } })));
  const detail = h("div", { className: "fairnb-detail" });

  el.appendChild(h("div", { className: "fairnb-inspector" }, [
    h("div", { className: "fairnb-toolbar" }, [title, count, clear]),
    h("div", { className: "fairnb-table-wrap" }, [table]),
    h("div", { className: "fairnb-pager" }, [first, prev, pageLabel, next, last, size]),
    detail,
  ]));

  const QUERY = new Set(["page", "page_size", "sort_by", "sort_descending", "filters"]);
  /** @param {Partial<InspectorState>} changes */
  function send(changes) {
    if (Object.keys(changes).some((k) => QUERY.has(k))) table.setAttribute("aria-busy", "true");
    for (const [k, v] of Object.entries(changes)) model.set(/** @type {any} */ (k), v);
    model.save_changes();
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
      const sort = h("button", { className: "fairnb-sort", text: col.name, title: `sort by ${col.name}`, attrs: { type: "button" } });
      sort.addEventListener("click", () => {
        send({ ...nextSort(model.get("sort_by"), model.get("sort_descending"), col.name), page: 0 });
      });
      names.appendChild(h("th", { className: `fairnb-col-${col.kind}`, attrs: { "data-column": col.name } }, [sort]));
      const input = /** @type {HTMLInputElement} */ (h("input", {
        className: "fairnb-filter",
        title: "text to match; on numbers also >0.5, <=3, =2 or 1..5",
        attrs: { type: "search", placeholder: "filter", "data-column": col.name, "aria-label": `filter ${col.name}` },
      }));
      input.value = current[col.name] ?? "";
      input.addEventListener("input", () => {
        clearTimeout(timers[col.name]);
        timers[col.name] = setTimeout(() => {
          const f = { ...(model.get("filters") ?? {}) };
          if (input.value.trim()) f[col.name] = input.value;
          else delete f[col.name];
          send({ filters: f, page: 0 });
        }, FILTER_DELAY_MS);
      });
      filters.appendChild(h("th", {}, [input]));
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
    const kinds = (model.get("columns") ?? []).map((c) => c.kind);
    const selected = new Set(model.get("selected_ids") ?? []);
    body.replaceChildren(...(model.get("rows") ?? []).map((row) => {
      const tr = h("tr", {
        className: selected.has(row.id) ? "fairnb-row fairnb-selected" : "fairnb-row",
        attrs: { "data-id": String(row.id), tabindex: "0", "aria-selected": String(selected.has(row.id)) },
      }, row.cells.map((cell, j) => h("td", { className: `fairnb-col-${kinds[j] ?? "meta"}`, text: cell })));
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
    size.value = String(model.get("page_size"));
    title.textContent = model.get("title") ?? "";
  }

  function renderDetail() {
    const d = model.get("detail") ?? {};
    if (!d.features) {
      detail.replaceChildren(h("p", { className: "fairnb-detail-empty", text: "Select a row to compare the pair side by side." }));
      return;
    }
    const seedKnown = Boolean(d.seed_known);
    const header = ["feature", ...(seedKnown ? ["seed"] : []), "input", "counterpart"];
    const features = [...d.features.filter((f) => f.protected), ...d.features.filter((f) => !f.protected)];
    const rows = features.map((f) => {
      const cls = ["fairnb-detail-row"];
      if (f.protected) cls.push("fairnb-protected");
      if (f.changed_protected) cls.push("fairnb-changed-protected");
      if (f.changed_from_seed) cls.push("fairnb-changed-seed");
      const cells = [f.name, ...(seedKnown ? [f.seed ?? ""] : []), f.input, f.counterpart];
      return h("tr", { className: cls.join(" "), attrs: { "data-feature": f.name } },
        cells.map((c, j) => h(j === 0 ? "th" : "td", { text: c })));
    });
    const outputs = (d.outputs ?? []).map((o) =>
      h("tr", { className: "fairnb-detail-output" }, [h("th", { text: o.name }), ...(seedKnown ? [h("td")] : []),
        h("td", { text: o.input }), h("td", { text: o.counterpart })]));
    // what makes the pair discriminatory first: the protected attribute(s), the outputs and decisions
    const nProtected = d.features.filter((f) => f.protected).length;
    detail.replaceChildren(
      h("p", { className: "fairnb-detail-summary", text: d.summary ?? "" }),
      h("table", { className: "fairnb-detail-table" }, [
        h("thead", {}, [h("tr", {}, header.map((c) => h("th", { text: c })))]),
        h("tbody", {}, [...rows.slice(0, nProtected), ...outputs, ...rows.slice(nProtected)]),
      ]),
      h("p", {
        className: "fairnb-detail-legend",
        text: seedKnown ? "Highlighted: the protected attribute that changes (yellow) and the features the search " +
          "changed from its seed (blue)." : "Highlighted: the protected attribute that changes. This search did not start from seeds.",
      }),
    );
  }

  const onRows = () => { renderBody(); renderSortMarks(); };
  const handlers = /** @type {[string, () => void][]} */ ([
    ["change:columns", () => { renderHead(); renderBody(); }],
    ["change:rows", onRows], ["change:total", onRows], ["change:page", onRows], ["change:page_size", onRows],
    ["change:selected_ids", onRows], ["change:sort_by", renderSortMarks], ["change:sort_descending", renderSortMarks],
    ["change:detail", renderDetail], ["change:title", onRows], ["change:filters", syncFilterInputs],
    ["change:version", () => table.setAttribute("aria-busy", "false")],
  ]);
  for (const [e, fn] of handlers) model.on(e, fn);
  table.setAttribute("aria-busy", "false");
  renderHead();
  renderBody();
  renderDetail();
  return () => {
    for (const [e, fn] of handlers) model.off(e, fn);
    for (const t of Object.values(timers)) clearTimeout(t);
  };
}

export default { render };
