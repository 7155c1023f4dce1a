// Front end of fairnb.widgets.TextInspector: discriminatory sentence pairs as one aligned sentence each
// (the sensitive term input → counterpart, and the search's substitutions seed word → generated word, in two
// colours with a legend), a summary band with the discrimination rate per term, filters by term group, term
// and free text, and a detail view (saliency per token, the substitution chain, the validity metrics).
// The kernel filters, sorts and sends one page at a time; the front end only sets `page`, `page_size`,
// `sort_by`, `sort_descending`, `filters` and `selected_ids`. Every string is written with textContent.
import { formatCount, formatPercent, glossaryTerm, h, headline } from "./dom.js";
import { pagedTable } from "./paged_table.js";
import "./text_inspector.css";

/**
 * @typedef {{t: string, kind: "" | "sensitive" | "subst", alt?: string, old?: string, saliency?: number}} Token
 * @typedef {{id: number, cells: string[], tokens: Token[]}} Row
 * @typedef {{term: string, group: string, pairs: number, seeds: number | null, seeds_found: number | null,
 *            rate: number | null, low?: number | null, high?: number | null}} TermRate
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
  if (r.rate === null || r.rate === undefined) return "";
  const interval = typeof r.low === "number" ? ` (95% interval ${formatPercent(r.low)}–${formatPercent(r.high)})` : "";
  return `${formatCount(r.seeds_found ?? 0)} of ${formatCount(r.seeds ?? 0)} seeds, ${formatPercent(r.rate)}${interval}`;
}

/**
 * A chip's visible value: the rate with the seeds it rests on ("100.0% · 1/1"), or the pairs when unknown.
 * @param {TermRate} r
 */
export function chipValue(r) {
  return typeof r.rate === "number"
    ? `${formatPercent(r.rate)} · ${formatCount(r.seeds_found ?? 0)}/${formatCount(r.seeds ?? 0)}`
    : `${formatCount(r.pairs)} pairs`;
}

/** @type {import("@anywidget/types").Render<TextInspectorState>} */
function render({ model, el }) {
  const t = pagedTable(model, {
    className: "fairnb-text-table",
    label: (col) => (col.name === "text" ? "sentence" : col.name),
    cell: (row, col, j) => (col.name === "text"
      ? h("td", { className: "fairnb-col-text" }, [sentenceElement(row.tokens ?? [])])
      : h("td", { className: `fairnb-col-${col.kind}`, text: row.cells[j] ?? "", attrs: { "data-column": col.name } })),
  });
  const groupSelect = /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-text-group", title: "term group", attrs: { "aria-label": "term group" } }));
  const termSelect = /** @type {HTMLSelectElement} */ (h("select", { className: "fairnb-text-term", title: "sensitive term", attrs: { "aria-label": "sensitive term" } }));
  const words = /** @type {HTMLInputElement} */ (h("input", {
    className: "fairnb-text-words",
    title: "text anywhere in the input sentence",
    attrs: { type: "search", placeholder: "words in the sentence", "aria-label": "filter sentences" },
  }));
  const rates = h("div", { className: "fairnb-text-rates" });
  const slice = h("div", { className: "fairnb-text-slice" });
  const legend = h("div", { className: "fairnb-text-legend" });
  const detail = h("div", { className: "fairnb-detail fairnb-text-detail" });

  el.appendChild(h("div", { className: "fairnb-inspector fairnb-text-inspector" }, [
    h("div", { className: "fairnb-toolbar" }, [t.title, t.count, groupSelect, termSelect, words, t.clear]),
    h("div", { className: "fairnb-text-summary" }, [headline(model), rates, slice]),
    legend,
    t.wrap,
    t.pager,
    detail,
  ]));

  groupSelect.addEventListener("change", () => {
    const f = { ...(model.get("filters") ?? {}) };
    delete f.term;                                  // a term of another group would leave nothing
    if (groupSelect.value) f.group = `=${groupSelect.value}`;
    else delete f.group;
    t.send({ filters: f, page: 0 });
  });
  termSelect.addEventListener("change", () => t.setFilter("term", termSelect.value ? `=${termSelect.value}` : ""));
  words.addEventListener("input", () => t.later("words", () => t.setFilter("text", words.value)));

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
    t.syncFilterInputs();
  }

  function renderRates() {
    const all = model.get("term_rates") ?? [];
    const current = (model.get("filters") ?? {}).term?.replace(/^=/, "");
    rates.replaceChildren(glossaryTerm(model, "discrimination_rate", "Discrimination rate per term:", "fairnb-text-rates-title"),
      ...all.slice(0, MAX_RATES).map((r) => {
        const share = typeof r.rate === "number" ? Math.max(0, Math.min(1, r.rate)) : 0;
        const chip = h("button", {
          className: `fairnb-text-rate${current === r.term ? " fairnb-text-rate-active" : ""}`,
          title: `${r.term} (${r.group || "no group"}): ${rateText(r) || "seeds unknown"}; ${formatCount(r.pairs)} pairs. Click to filter.`,
          attrs: { type: "button", "data-term": r.term },
        }, [
          h("span", { className: "fairnb-text-rate-term", text: r.term }),
          h("span", { className: "fairnb-text-rate-bar" }, [
            h("span", { className: "fairnb-text-rate-fill", attrs: { style: `width:${(100 * share).toFixed(1)}%` } }),
            ...(typeof r.low === "number" ? [h("span", {
              className: "fairnb-text-rate-interval",
              attrs: { style: `left:${(100 * r.low).toFixed(1)}%;width:${(100 * (r.high - r.low)).toFixed(1)}%` },
            })] : []),
          ]),
          h("span", { className: "fairnb-text-rate-value", text: chipValue(r) }),
        ]);
        chip.addEventListener("click", () => t.setFilter("term", current === r.term ? "" : `=${r.term}`));
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
        d.saliency_known
          ? glossaryTerm(model, "saliency", "Saliency (gradient size per token, darker = larger):", "fairnb-text-label")
          : h("span", { className: "fairnb-text-label", text: "Aligned pair (no saliency recorded for this pair):" }),
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
        h("thead", {}, [h("tr", {}, [["step"], ["phase", "phase"], ["iteration"], ["position", "position"], ["old → new"],
          ["candidates (score)", "candidate_score"]].map(([c, key]) => h("th", {}, [key ? glossaryTerm(model, key, c) : h("span", { text: c })])))]),
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
        h("thead", {}, [h("tr", {}, [h("th", {}, [glossaryTerm(model, "validity", "validity vs the seed")]),
          h("th", { text: "value" })])]),
        h("tbody", {}, validity.map((v) => h("tr", {}, [h("th", { text: v.name }), h("td", { text: v.value })]))),
      ]));
    }
    detail.replaceChildren(...parts);
  }

  const cleanup = t.start([
    ["change:detail", renderDetail], ["change:filters", () => { renderChoices(); renderRates(); }],
    ["change:choices", renderChoices], ["change:term_rates", renderRates], ["change:slice_rate", renderSlice],
    ["change:legend", renderLegend],
  ]);
  renderChoices();
  renderRates();
  renderSlice();
  renderLegend();
  renderDetail();
  return cleanup;
}

export default { render };
