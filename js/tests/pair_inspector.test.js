// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import widget, { nextSelection, nextSort, pageCount } from "../src/pair_inspector.js";
import { EVIL, expectInert, fakeModel } from "./fake_model.js";

const COLUMNS = [
  { name: "age", kind: "feature" }, { name: "sex", kind: "protected" }, { name: "sex'", kind: "counterpart" },
  { name: "p", kind: "output" }, { name: "p'", kind: "output" }, { name: "difference", kind: "output" },
];

function rows(page, pageSize, total) {
  const out = [];
  for (let i = page * pageSize; i < Math.min(total, (page + 1) * pageSize); i++) {
    out.push({ id: i, cells: [String(20 + i), "female", "male", "0.300", "0.700", "0.400"] });
  }
  return out;
}

function state(extra = {}) {
  return {
    title: "random: discriminatory pairs", columns: COLUMNS, rows: rows(0, 25, 100000), total: 100000, n_pairs: 100000,
    page: 0, page_size: 25, sort_by: "", sort_descending: false, filters: {}, selected_ids: [], detail: {}, ...extra,
  };
}

let el;
beforeEach(() => {
  document.body.replaceChildren();
  el = document.createElement("div");
  document.body.appendChild(el);
});
afterEach(() => vi.useRealTimers());

const button = (which) => el.querySelector(`button[data-page="${which}"]`);
const headerButton = (name) => el.querySelector(`th[data-column="${name}"] button`);

describe("pair inspector table", () => {
  it("renders one page of rows, the columns and the counts", () => {
    widget.render({ model: fakeModel(state()), el });
    expect([...el.querySelectorAll("th[data-column]")].map((th) => th.textContent)).toEqual(COLUMNS.map((c) => c.name));
    expect(el.querySelectorAll("tbody tr.fairnb-row")).toHaveLength(25);
    expect(el.querySelector(".fairnb-inspector-count").textContent).toBe("100,000 pairs");
    expect(el.querySelector(".fairnb-page-label").textContent).toBe("page 1 of 4,000");
    const first = el.querySelector("tbody tr");
    expect(first.getAttribute("data-id")).toBe("0");
    expect(first.querySelector("td.fairnb-col-protected").textContent).toBe("female");
    expect(first.querySelector("td.fairnb-col-counterpart").textContent).toBe("male");
  });

  it("sorts by a column, then reverses on a second click", () => {
    const model = fakeModel(state({ page: 3 }));
    widget.render({ model, el });
    headerButton("p").click();
    expect(model.sent.at(-1)).toEqual({ sort_by: "p", sort_descending: false, page: 0 });
    expect(el.querySelector('th[data-column="p"]').getAttribute("aria-sort")).toBe("ascending");
    headerButton("p").click();
    expect(model.sent.at(-1)).toEqual({ sort_by: "p", sort_descending: true, page: 0 });
    expect(el.querySelector('th[data-column="p"]').getAttribute("aria-sort")).toBe("descending");
  });

  it("pages with the pager buttons and the page-size menu", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    expect(button("prev").disabled).toBe(true);
    const table = el.querySelector("table");
    expect(table.getAttribute("aria-busy")).toBe("false");
    button("next").click();
    expect(model.sent.at(-1)).toEqual({ page: 1 });
    expect(table.getAttribute("aria-busy")).toBe("true");
    model.receive({ rows: rows(1, 25, 100000), version: 1 });
    expect(table.getAttribute("aria-busy")).toBe("false");
    expect(el.querySelector("tbody tr").getAttribute("data-id")).toBe("25");
    expect(el.querySelector(".fairnb-page-label").textContent).toBe("page 2 of 4,000");
    button("last").click();
    expect(model.sent.at(-1)).toEqual({ page: 3999 });
    expect(button("next").disabled).toBe(true);
    const size = el.querySelector("select.fairnb-page-size");
    size.value = "100";
    size.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toEqual({ page_size: 100, page: 0 });
  });

  it("shows a page size set from Python that the menu lacks", () => {
    widget.render({ model: fakeModel(state({ page_size: 7, rows: rows(0, 7, 100000) })), el });
    const size = el.querySelector("select.fairnb-page-size");
    expect(size.value).toBe("7");
    expect(size.selectedOptions[0].textContent).toBe("7 per page");
  });

  it("sends a filter after the user stops typing", () => {
    vi.useFakeTimers();
    const model = fakeModel(state());
    widget.render({ model, el });
    const input = el.querySelector('input[data-column="sex"]');
    input.value = "fem";
    input.dispatchEvent(new Event("input"));
    input.value = "female";
    input.dispatchEvent(new Event("input"));
    expect(model.sent).toEqual([]);
    vi.advanceTimersByTime(300);
    expect(model.sent).toEqual([{ filters: { sex: "female" }, page: 0 }]);
    model.receive({ total: 3, rows: rows(0, 25, 3) });
    expect(el.querySelector(".fairnb-inspector-count").textContent).toBe("3 of 100,000 pairs");
    el.querySelector(".fairnb-toolbar button").click();
    expect(model.sent.at(-1)).toEqual({ filters: {}, page: 0 });
    expect(input.value).toBe("");
  });

  it("shows filters set from Python in the inputs", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ filters: { p: ">0.5" } });
    expect(el.querySelector('input[data-column="p"]').value).toBe(">0.5");
  });

  it("selects a row on click and adds rows with Ctrl", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    const row = (id) => el.querySelector(`tr[data-id="${id}"]`);
    row(3).click();
    expect(model.sent.at(-1)).toEqual({ selected_ids: [3] });
    expect(row(3).classList.contains("fairnb-selected")).toBe(true);
    row(5).dispatchEvent(new MouseEvent("click", { ctrlKey: true, bubbles: true }));
    expect(model.state.selected_ids).toEqual([3, 5]);
    row(7).click();
    expect(model.state.selected_ids).toEqual([7]);
    expect(row(3).classList.contains("fairnb-selected")).toBe(false);
    row(8).dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(model.state.selected_ids).toEqual([8]);
  });

  it("removes its listeners on cleanup", () => {
    const model = fakeModel(state());
    const cleanup = widget.render({ model, el });
    cleanup();
    expect(model.listenerCount()).toBe(0);
  });
});

describe("pair detail", () => {
  const detail = {
    pair: 4, summary: "Pair 4: changing only sex from female to male ...", seed_known: true,
    features: [
      { name: "age", seed: "30", input: "35", counterpart: "35", protected: false, changed_protected: false, changed_from_seed: true },
      { name: "sex", seed: "female", input: "female", counterpart: "male", protected: true, changed_protected: true, changed_from_seed: false },
      { name: "hours", seed: "40", input: "40", counterpart: "40", protected: false, changed_protected: false, changed_from_seed: false },
    ],
    outputs: [{ name: "p", input: "0.300", counterpart: "0.700" }],
  };

  it("shows the pair side by side with the changes highlighted", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    expect(el.querySelector(".fairnb-detail-empty")).not.toBeNull();
    model.receive({ selected_ids: [4], detail });
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(detail.summary);
    expect([...el.querySelectorAll(".fairnb-detail-table thead th")].map((t) => t.textContent))
      .toEqual(["feature", "seed", "input", "counterpart"]);
    expect(el.querySelector('tr[data-feature="sex"]').classList.contains("fairnb-changed-protected")).toBe(true);
    expect(el.querySelector('tr[data-feature="age"]').classList.contains("fairnb-changed-seed")).toBe(true);
    expect(el.querySelector('tr[data-feature="hours"]').className).toBe("fairnb-detail-row");
    expect(el.querySelector(".fairnb-detail-output").textContent).toBe("p0.3000.700");
  });

  it("puts the protected attribute and the outputs before the other features", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ selected_ids: [4], detail: { ...detail, outputs: [
      { name: "output p", input: "0.300", counterpart: "0.700" },
      { name: "decision", input: "<=50K", counterpart: ">50K" }] } });
    expect([...el.querySelectorAll(".fairnb-detail-table tbody th")].map((t) => t.textContent))
      .toEqual(["sex", "output p", "decision", "age", "hours"]);
  });

  it("leaves out the seed column when the search had no seeds", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ detail: { ...detail, seed_known: false } });
    expect([...el.querySelectorAll(".fairnb-detail-table thead th")].map((t) => t.textContent))
      .toEqual(["feature", "input", "counterpart"]);
  });
});

describe("escaping", () => {
  it("writes column names, cells and details as text", () => {
    const model = fakeModel(state({
      title: EVIL,
      columns: [{ name: EVIL, kind: "feature" }, { name: "sex", kind: "protected" }],
      rows: [{ id: 0, cells: [EVIL, EVIL] }],
      total: 1, n_pairs: 1,
      detail: { pair: 0, summary: EVIL, seed_known: true, outputs: [{ name: EVIL, input: EVIL, counterpart: EVIL }],
        features: [{ name: EVIL, seed: EVIL, input: EVIL, counterpart: EVIL, protected: true, changed_protected: true, changed_from_seed: false }] },
    }));
    widget.render({ model, el });
    expectInert(el);
    expect(el.querySelector("tbody td").textContent).toBe(EVIL);
    expect(el.querySelector("th[data-column] button").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-inspector-title").textContent).toBe(EVIL);
  });
});

describe("what the hidden layers say", () => {
  const NETWORK = [
    { key: "biased_neurons", label: "its biased neurons (NeuronFair)", text: "neurons 3, 7" },
    { key: "causal_neurons", label: "its causal neurons (DICE)", text: "neuron 9 (fixing it removes 8.00 % of the discrimination)" },
  ];
  const GLOSSARY = {
    causal_neurons: { tip: "Neurons whose fixing removes the most discrimination.", href: "https://example.org/g#causal" },
  };

  it("lists NeuronFair's and DICE's findings side by side, each label with its glossary link", () => {
    widget.render({ model: fakeModel(state({ network: NETWORK, glossary: GLOSSARY })), el });
    const items = [...el.querySelectorAll(".fairnb-network li")];
    expect(items.map((li) => li.getAttribute("data-key"))).toEqual(["biased_neurons", "causal_neurons"]);
    expect(items[1].textContent).toBe("its causal neurons (DICE)?: neuron 9 (fixing it removes 8.00 % of the discrimination)");
    expect(items[1].querySelector("a.fairnb-glossary-link").getAttribute("href")).toBe("https://example.org/g#causal");
    expect(items[0].querySelector("a")).toBeNull();      // no glossary entry sent: the plain word
  });

  it("shows nothing without findings, and findings as inert text", () => {
    widget.render({ model: fakeModel(state()), el });
    expect(el.querySelector(".fairnb-network")).toBeNull();
    el.replaceChildren();
    widget.render({ model: fakeModel(state({ network: [{ key: EVIL, label: EVIL, text: EVIL }] })), el });
    expectInert(el);
    expect(el.querySelector(".fairnb-network li").textContent).toBe(`${EVIL}: ${EVIL}`);
  });
});

describe("helpers", () => {
  it("counts pages", () => {
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(100000, 25)).toBe(4000);
    expect(pageCount(26, 25)).toBe(2);
  });
  it("toggles sort direction on the same column only", () => {
    expect(nextSort("", false, "p")).toEqual({ sort_by: "p", sort_descending: false });
    expect(nextSort("p", false, "p")).toEqual({ sort_by: "p", sort_descending: true });
    expect(nextSort("p", true, "age")).toEqual({ sort_by: "age", sort_descending: false });
  });
  it("selects one row, toggles with Ctrl, and unselects on a second plain click", () => {
    expect(nextSelection([], 1, false)).toEqual([1]);
    expect(nextSelection([1], 1, false)).toEqual([]);
    expect(nextSelection([1], 2, true)).toEqual([1, 2]);
    expect(nextSelection([1, 2], 1, true)).toEqual([2]);
  });
});
