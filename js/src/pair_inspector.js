// Front end of fairnb.widgets.PairInspector: a paged, sortable, filterable table of discriminatory
// pairs (./paged_table.js), and a side-by-side view of the selected pair. The kernel owns the data: it
// filters, sorts and sends one page of rows at a time, so 100,000 pairs never reach the browser at once.
import { glossaryTerm, h, headline } from "./dom.js";
import { pagedTable } from "./paged_table.js";

export { PAGE_SIZES, nextSelection, nextSort, pageCount } from "./paged_table.js";

/**
 * @typedef {{name: string, seed: string | null, input: string, counterpart: string, protected: boolean,
 *            changed_protected: boolean, changed_from_seed: boolean}} DetailFeature
 * @typedef {{pair?: number, summary?: string, features?: DetailFeature[],
 *            outputs?: {name: string, input: string, counterpart: string}[], seed_known?: boolean}} Detail
 * @typedef {{
 *   columns: {name: string, kind: string}[], rows: {id: number, cells: string[]}[], total: number,
 *   n_pairs: number, page: number, page_size: number, sort_by: string, sort_descending: boolean,
 *   filters: Record<string, string>, selected_ids: number[], detail: Detail, title: string, version: number,
 *   network: {key: string, label: string, text: string}[]
 * }} InspectorState
 */

/**
 * What the network's hidden layers say, in words, each label with its glossary entry: NeuronFair's biased layer and
 * neurons beside DICE's severity in bits and causal layer and neurons. Nothing when the search found none.
 * @param {any} model the anywidget model
 * @returns {HTMLElement | null}
 */
export function network(model) {
  /** @type {{key: string, label: string, text: string}[]} */
  const findings = model.get("network") ?? [];
  if (!findings.length) return null;
  return h("ul", { className: "fairnb-network" }, findings.map((f) =>
    h("li", { attrs: { "data-key": f.key } }, [glossaryTerm(model, f.key, f.label), h("span", { text: `: ${f.text}` })])));
}

/** @type {import("@anywidget/types").Render<InspectorState>} */
function render({ model, el }) {
  const t = pagedTable(model);
  const detail = h("div", { className: "fairnb-detail" });

  el.appendChild(h("div", { className: "fairnb-inspector" }, [
    h("div", { className: "fairnb-toolbar" }, [t.title, t.count, t.clear]),
    headline(model),
    network(model),
    t.wrap,
    t.pager,
    detail,
  ]));

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

  const cleanup = t.start([["change:detail", renderDetail], ["change:filters", t.syncFilterInputs]]);
  renderDetail();
  return cleanup;
}

export default { render };
