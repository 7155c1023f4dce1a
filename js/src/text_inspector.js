// Front end of fairnb.widgets.TextInspector: discriminatory sentence pairs as one aligned sentence each
// (the sensitive term input → counterpart, and the search's substitutions seed word → generated word, in two
// colours with a legend), a summary band with the discrimination rate per term, filters by term group, term
// and free text, and a detail view (saliency per token, the substitution chain, the validity metrics).
// The kernel filters, sorts and sends one page at a time; the front end only sets `page`, `page_size`,
// `sort_by`, `sort_descending`, `filters` and `selected_ids`. Every string is written with textContent.
import { formatCount, formatPercent, h } from "./dom.js";
import { PAGE_SIZES, nextSelection, nextSort, pageCount } from "./pair_inspector.js";
import "./text_inspector.css";

/**
 * @typedef {{t: string, kind: "" | "sensitive" | "subst", alt?: string, old?: string, saliency?: number}} Token
 * @typedef {{id: number, cells: string[], tokens: Token[]}} Row
 * @typedef {{term: string, group: string, pairs: number, seeds: number | null, seeds_found: number | null,
 *            rate: number | null}} TermRate
 * @typedef {{word: string, score: string, chosen: boolean}} Candidate
 * @typedef {{phase: string, iteration: number, position: number, old: string, new: string,
 *            candidates: Candidate[]}} Step
 * @typedef {{pair?: number, summary?: string, texts?: {role: string, text: string}[], tokens?: Token[],
 *            saliency_known?: boolean, outputs?: {name: string, input: string, counterpart: string}[],
 *            chain?: Step[], validity?: {name: string, value: string}[]}} Detail
 * @typedef {{
 *   columns: {name: string, kind: string}[], rows: Row[], total: number, n_pairs: number, page: number,
 *   page_size: number, sort_by: string, sort_descending: boolean, filters: Record<string, string>,
 *   selected_ids: number[], detail: Detail, title: string, version: number,
 *   legend: {kind: string, text: string}[], term_rates: TermRate[],
 *   slice_rate: {pairs: number, share: number, seeds_found: number, filtered: boolean},
 *   choices: {groups: string[], terms: {term: string, group: string}[]}
 * }} TextInspectorState
 */

const FILTER_DELAY_MS = 250;
const MAX_RATES = 24;

/**
 * One token of an aligned sentence as DOM: the sensitive term shows input → counterpart, a substitution
 * shows the seed's word struck through before the generated one.
 * @param {Token} tok
 * @returns {HTMLElement}
 */
export function tokenElement(tok) {
  if (tok.kind === "sensitive") {
    return h("span", { className: "fairnb-tok fairnb-tok-sensitive", title: "sensitive term: input → counterpart" }, [
      h("span", { className: "fairnb-tok-word", text: tok.t }),
      h("span", { className: "fairnb-tok-arrow", text: "→" }),
      h("span", { className: "fairnb-tok-alt", text: tok.alt ?? "" }),
    ]);
  }
  if (tok.kind === "subst") {
    return h("span", { className: "fairnb-tok fairnb-tok-subst", title: "substitution: seed word → generated word" }, [
      h("s", { className: "fairnb-tok-old", text: tok.old ?? "" }),
      h("span", { className: "fairnb-tok-word", text: tok.t }),
    ]);
  }
  return h("span", { className: "fairnb-tok", text: tok.t });
}

/**
 * A sentence of tokens, separated by spaces.
 * @param {Token[]} tokens
 * @param {boolean} [saliency] shade each token by its saliency (0-1)
 */
export function sentenceElement(tokens, saliency = false) {
  const el = h("span", { className: "fairnb-sentence" });
  tokens.forEach((tok, i) => {
    if (i) el.appendChild(document.createTextNode(" "));
    const t = tokenElement(tok);
    if (saliency && typeof tok.saliency === "number") {
      t.classList.add("fairnb-tok-salient");
      t.style.setProperty("--fairnb-saliency", tok.saliency.toFixed(3));
      t.setAttribute("title", `${t.getAttribute("title") ?? tok.t}; saliency ${tok.saliency.toFixed(2)}`);
    }
    el.appendChild(t);
  });
  return el;
}

/**
 * "72% of 120 seeds" (or "" when the rate is unknown).
 * @param {TermRate} r
 */
export function rateText(r) {
  return r.rate === null || r.rate === undefined ? "" : `${formatPercent(r.rate)} of ${formatCount(r.seeds ?? 0)} seeds`;
}

/** @type {import("@anywidget/types").Render<TextInspectorState>} */
function render({ model, el }) {
  /** @type {Record<string, ReturnType<typeof setTimeout>>} */
  const timers = {};
  const title = h("span", { className: "fairnb-inspector-title" });
  const count = h("span", { className: "fairnb-inspector-count" });
  const groupSelect = /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-text-group", title: "term group", attrs: { "aria-label": "term group" } }));
  const termSelect = /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-text-term", title: "sensitive term", attrs: { "aria-label": "sensitive term" } }));
  const words = /** @type {HTMLInputElement} */ (h("input", {
    className: "fairnb-text-words",
    title: "text anywhere in the input sentence",
    attrs: { type: "search", placeholder: "words in the sentence", "aria-label": "filter sentences" },
  }));
  const clear = h("button", { className: "fairnb-button", text: "Clear filters", attrs: { type: "button" } });
  const rates = h("div", { className: "fairnb-text-rates" });
  const slice = h("div", { className: "fairnb-text-slice" });
  const legend = h("div", { className: "fairnb-text-legend" });
  const head = h("thead");
  const body = h("tbody");
  const table = h("table", { className: "fairnb-table fairnb-text-table" }, [head, body]);
  const pageButton = (/** @type {string} */ which, /** @type {string} */ text, /** @type {string} */ tip) =>
    h("button", { className: "fairnb-button", text, title: tip, attrs: { type: "button", "data-page": which } });
  const first = pageButton("first", "«", "first page");
  const prev = pageButton("prev", "‹", "previous page");
  const next = pageButton("next", "›", "next page");
  const last = pageButton("last", "»", "last page");
  const pageLabel = h("span", { className: "fairnb-page-label" });
  const size = h("select", { className: "fairnb-page-size", title: "pairs per page" },
    PAGE_SIZES.map((n) => h("option", { text: `${n} per page`, attrs: { value: String(n) } })));
  const detail = h("div", { className: "fairnb-detail fairnb-text-detail" });

  el.appendChild(h("div", { className: "fairnb-inspector fairnb-text-inspector" }, [
    h("div", { className: "fairnb-toolbar" }, [title, count, groupSelect, termSelect, words, clear]),
    h("div", { className: "fairnb-text-summary" }, [rates, slice]),
    legend,
    h("div", { className: "fairnb-table-wrap" }, [table]),
    h("div", { className: "fairnb-pager" }, [first, prev, pageLabel, next, last, size]),
    detail,
  ]));

  const QUERY = new Set(["page", "page_size", "sort_by", "sort_descending", "filters"]);
  /** @param {Partial<TextInspectorState>} changes */
  function send(changes) {
    if (Object.keys(changes).some((k) => QUERY.has(k))) table.setAttribute("aria-busy", "true");
    for (const [k, v] of Object.entries(changes)) model.set(/** @type {any} */ (k), v);
    model.save_changes();
  }
  /** @param {string} col @param {string} value */
  function setFilter(col, value) {
    const f = { ...(model.get("filters") ?? {}) };
    if (value.trim()) f[col] = value;
    else delete f[col];
    send({ filters: f, page: 0 });
  }

  const pages = () => pageCount(model.get("total"), model.get("page_size"));
  first.addEventListener("click", () => send({ page: 0 }));
  prev.addEventListener("click", () => send({ page: Math.max(0, model.get("page") - 1) }));
  next.addEventListener("click", () => send({ page: Math.min(pages() - 1, model.get("page") + 1) }));
  last.addEventListener("click", () => send({ page: pages() - 1 }));
  size.addEventListener("change", () => send({ page_size: Number(size.value), page: 0 }));
  groupSelect.addEventListener("change", () => {
    const f = { ...(model.get("filters") ?? {}) };
    delete f.term;                                  // a term of another group would leave nothing
    if (groupSelect.value) f.group = `=${groupSelect.value}`;
    else delete f.group;
    send({ filters: f, page: 0 });
  });
  termSelect.addEventListener("change", () => setFilter("term", termSelect.value ? `=${termSelect.value}` : ""));
  words.addEventListener("input", () => {
    clearTimeout(timers.words);
    timers.words = setTimeout(() => setFilter("text", words.value), FILTER_DELAY_MS);
  });
  clear.addEventListener("click", () => {
    for (const input of el.querySelectorAll("input")) /** @type {HTMLInputElement} */ (input).value = "";
    send({ filters: {}, page: 0 });
  });

  function renderChoices() {
    const choices = model.get("choices") ?? { groups: [], terms: [] };
    const f = model.get("filters") ?? {};
    const group = (f.group ?? "").replace(/^=/, "");
    groupSelect.replaceChildren(h("option", { text: "all groups", attrs: { value: "" } }),
      ...(choices.groups ?? []).map((g) => h("option", { text: g, attrs: { value: g } })));
    groupSelect.value = group;
    const terms = (choices.terms ?? []).filter((t) => !group || t.group === group);
    termSelect.replaceChildren(h("option", { text: "all terms", attrs: { value: "" } }),
      ...terms.map((t) => h("option", { text: t.term, attrs: { value: t.term } })));
    termSelect.value = (f.term ?? "").replace(/^=/, "");
    if (words !== document.activeElement) words.value = f.text ?? "";
    syncFilterInputs();
  }

  function renderRates() {
    const all = model.get("term_rates") ?? [];
    const current = (model.get("filters") ?? {}).term?.replace(/^=/, "");
    rates.replaceChildren(h("span", { className: "fairnb-text-rates-title", text: "Discrimination rate per term:" }),
      ...all.slice(0, MAX_RATES).map((r) => {
        const share = typeof r.rate === "number" ? Math.max(0, Math.min(1, r.rate)) : 0;
        const chip = h("button", {
          className: `fairnb-text-rate${current === r.term ? " fairnb-text-rate-active" : ""}`,
          title: `${r.term} (${r.group || "no group"}): ${rateText(r) || "seeds unknown"}; ${formatCount(r.pairs)} pairs. Click to filter.`,
          attrs: { type: "button", "data-term": r.term },
        }, [
          h("span", { className: "fairnb-text-rate-term", text: r.term }),
          h("span", { className: "fairnb-text-rate-bar" }, [h("span", { className: "fairnb-text-rate-fill", attrs: { style: `width:${(100 * share).toFixed(1)}%` } })]),
          h("span", { className: "fairnb-text-rate-value", text: typeof r.rate === "number" ? formatPercent(r.rate) : `${formatCount(r.pairs)}` }),
        ]);
        chip.addEventListener("click", () => setFilter("term", current === r.term ? "" : `=${r.term}`));
        return chip;
      }),
      ...(all.length > MAX_RATES ? [h("span", { className: "fairnb-text-rates-more", text: `+ ${all.length - MAX_RATES} more terms` })] : []));
  }

  function renderSlice() {
    const s = model.get("slice_rate") ?? { pairs: 0, share: 0, seeds_found: 0, filtered: false };
    slice.textContent = s.filtered
      ? `Filtered: ${formatCount(s.pairs)} of ${formatCount(model.get("n_pairs"))} pairs (${formatPercent(s.share)}), reached from ${formatCount(s.seeds_found)} seeds.`
      : `${formatCount(s.pairs)} pairs, reached from ${formatCount(s.seeds_found)} seeds. The rate of a term: the share of the seeds holding it from which the search found a pair.`;
  }

  function renderLegend() {
    legend.replaceChildren(...(model.get("legend") ?? []).map((item) =>
      h("span", { className: `fairnb-text-legend-item fairnb-tok-${item.kind}`, text: item.text })));
  }

  function renderHead() {
    head.replaceChildren();
    const names = h("tr");
    const filters = h("tr", { className: "fairnb-filter-row" });
    const current = model.get("filters") ?? {};
    for (const col of model.get("columns") ?? []) {
      const sort = h("button", { className: "fairnb-sort", text: col.name === "text" ? "sentence" : col.name, title: `sort by ${col.name}`, attrs: { type: "button" } });
      sort.addEventListener("click", () => send({ ...nextSort(model.get("sort_by"), model.get("sort_descending"), col.name), page: 0 }));
      names.appendChild(h("th", { className: `fairnb-col-${col.kind}`, attrs: { "data-column": col.name } }, [sort]));
      const input = /** @type {HTMLInputElement} */ (h("input", {
        className: "fairnb-filter",
        title: "text to match; on numbers also >0.5, <=3, =2 or 1..5",
        attrs: { type: "search", placeholder: "filter", "data-column": col.name, "aria-label": `filter ${col.name}` },
      }));
      input.value = current[col.name] ?? "";
      input.addEventListener("input", () => {
        clearTimeout(timers[col.name]);
        timers[col.name] = setTimeout(() => setFilter(col.name, input.value), FILTER_DELAY_MS);
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
    const columns = model.get("columns") ?? [];
    const selected = new Set(model.get("selected_ids") ?? []);
    body.replaceChildren(...(model.get("rows") ?? []).map((row) => {
      const flip = row.cells[columns.findIndex((c) => c.name === "label")] !== row.cells[columns.findIndex((c) => c.name === "label'")];
      const tr = h("tr", {
        className: `fairnb-row${selected.has(row.id) ? " fairnb-selected" : ""}${flip ? " fairnb-flip" : ""}`,
        attrs: { "data-id": String(row.id), tabindex: "0", "aria-selected": String(selected.has(row.id)) },
      }, columns.map((col, j) => col.name === "text"
        ? h("td", { className: "fairnb-col-text" }, [sentenceElement(row.tokens ?? [])])
        : h("td", { className: `fairnb-col-${col.kind}`, text: row.cells[j] ?? "" })));
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
    if (!d.tokens) {
      detail.replaceChildren(h("p", { className: "fairnb-detail-empty", text: "Select a row to see the pair's texts, saliency, substitution chain and validity." }));
      return;
    }
    const parts = [
      h("p", { className: "fairnb-detail-summary", text: d.summary ?? "" }),
      h("table", { className: "fairnb-detail-table fairnb-text-texts" }, [h("tbody", {}, (d.texts ?? []).map((t) =>
        h("tr", { attrs: { "data-role": t.role } }, [h("th", { text: t.role }), h("td", { text: t.text })])))]),
      h("div", { className: "fairnb-text-aligned" }, [
        h("span", { className: "fairnb-text-label", text: d.saliency_known ? "Saliency (gradient size per token, darker = larger):" : "Aligned pair (no saliency recorded for this pair):" }),
        sentenceElement(d.tokens, Boolean(d.saliency_known)),
      ]),
      h("table", { className: "fairnb-detail-table fairnb-text-outputs" }, [
        h("thead", {}, [h("tr", {}, ["", "input", "counterpart"].map((c) => h("th", { text: c })))]),
        h("tbody", {}, (d.outputs ?? []).map((o) => h("tr", {}, [h("th", { text: o.name }), h("td", { text: o.input }), h("td", { text: o.counterpart })]))),
      ]),
    ];
    const chain = d.chain ?? [];
    parts.push(h("p", { className: "fairnb-text-label", text: chain.length ? `Substitution chain (${chain.length} steps; the chosen candidate is marked):` : "Substitution chain: none (the input is a seed, or the search records no chain)." }));
    if (chain.length) {
      parts.push(h("table", { className: "fairnb-detail-table fairnb-text-chain" }, [
        h("thead", {}, [h("tr", {}, ["step", "phase", "iteration", "position", "old → new", "candidates (score)"].map((c) => h("th", { text: c })))]),
        h("tbody", {}, chain.map((s, i) => h("tr", { attrs: { "data-step": String(i) } }, [
          h("td", { text: String(i + 1) }), h("td", { text: s.phase }), h("td", { text: String(s.iteration) }),
          h("td", { text: String(s.position) }), h("td", { text: `${s.old} → ${s.new}` }),
          h("td", {}, s.candidates.map((c) => h("span", {
            className: `fairnb-text-candidate${c.chosen ? " fairnb-text-chosen" : ""}`,
            text: c.score ? `${c.word} (${c.score})` : c.word,
          }))),
        ]))),
      ]));
    }
    const validity = d.validity ?? [];
    if (validity.length) {
      parts.push(h("table", { className: "fairnb-detail-table fairnb-text-validity" }, [
        h("thead", {}, [h("tr", {}, [h("th", { text: "validity vs the seed" }), h("th", { text: "value" })])]),
        h("tbody", {}, validity.map((v) => h("tr", {}, [h("th", { text: v.name }), h("td", { text: v.value })]))),
      ]));
    }
    detail.replaceChildren(...parts);
  }

  const onRows = () => { renderBody(); renderSortMarks(); };
  const onFilters = () => { renderChoices(); renderRates(); };
  const handlers = /** @type {[string, () => void][]} */ ([
    ["change:columns", () => { renderHead(); renderBody(); }],
    ["change:rows", onRows], ["change:total", onRows], ["change:page", onRows], ["change:page_size", onRows],
    ["change:selected_ids", onRows], ["change:sort_by", renderSortMarks], ["change:sort_descending", renderSortMarks],
    ["change:detail", renderDetail], ["change:title", onRows], ["change:filters", onFilters],
    ["change:choices", renderChoices], ["change:term_rates", renderRates], ["change:slice_rate", renderSlice],
    ["change:legend", renderLegend], ["change:version", () => table.setAttribute("aria-busy", "false")],
  ]);
  for (const [e, fn] of handlers) model.on(e, fn);
  table.setAttribute("aria-busy", "false");
  renderHead();
  renderChoices();
  renderRates();
  renderSlice();
  renderLegend();
  renderBody();
  renderDetail();
  return () => {
    for (const [e, fn] of handlers) model.off(e, fn);
    for (const t of Object.values(timers)) clearTimeout(t);
  };
}

export default { render };
