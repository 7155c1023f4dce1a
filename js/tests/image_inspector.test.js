// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import widget, { COLUMNS, MAX_COLUMNS, columnsFor, heatColumn, nextFocus, pngSource } from "../src/image_inspector.js";
import { EVIL, fakeModel } from "./fake_model.js";

// a real 1 x 1 grey PNG
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

function cells(page, pageSize, total) {
  const out = [];
  for (let i = page * pageSize; i < Math.min(total, (page + 1) * pageSize); i++) {
    out.push({ id: i, input: PNG, counterpart: PNG, caption: "0.900 → 0.100" });
  }
  return out;
}

function state(extra = {}) {
  return {
    title: "neuronfair_image: image pairs that differ only in tint", attribute: "tint", n_pairs: 1000,
    page: 0, page_size: 40, sort_by: "", sort_descending: true,
    sort_options: [{ name: "difference", label: "detector difference" }, { name: "l2", label: "‖Δ_senatt‖₂" }],
    cells: cells(0, 40, 1000), selected_ids: [], detail: {}, version: 0, ...extra,
  };
}

const DETAIL = {
  pair: 3, summary: "Pair 3: flipping tint moves the detector's P(face) from 0.900 to 0.100 (decision face → non-face).",
  images: [{ role: "seed", caption: "seed 1", png: PNG }, { role: "input", caption: "input x + Δ_bias", png: PNG },
    { role: "counterpart", caption: "FGSM flip (the counterpart)", png: PNG }, { role: "exact", caption: "exact flip", png: PNG }],
  heatmaps: [{ role: "bias", caption: "Δ_bias", png: PNG }, { role: "senatt", caption: "Δ_senatt", png: PNG }],
  columns: ["seed", "input", "counterpart", "exact"],
  table: [{ name: "detector P(face)", values: ["0.950", "0.900", "0.100", "0.850"] },
    { name: "f_sa P(tint)", values: ["0.700", "0.800", "0.300", "0.200"] }],
  norms: [{ name: "‖Δ_senatt‖₂", value: "0.412" }],
};

let el;
afterEach(() => vi.restoreAllMocks());
beforeEach(() => {
  document.body.replaceChildren();
  el = document.createElement("div");
  document.body.appendChild(el);
});

const grid = () => el.querySelector(".fairnb-image-grid");
const cell = (id) => el.querySelector(`.fairnb-image-cell[data-id="${id}"]`);
const key = (k, target = document.activeElement) =>
  target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));

describe("image grid", () => {
  it("shows one page of pairs, each input above its flip, as PNG data URIs", () => {
    widget.render({ model: fakeModel(state()), el });
    expect(el.querySelectorAll(".fairnb-image-cell")).toHaveLength(40);
    const thumbs = cell(0).querySelectorAll("img.fairnb-thumb");
    expect([...thumbs].map((i) => i.getAttribute("src"))).toEqual([`data:image/png;base64,${PNG}`, `data:image/png;base64,${PNG}`]);
    expect(cell(0).querySelector(".fairnb-image-caption").textContent).toBe("#0  0.900 → 0.100");
    expect(el.querySelector(".fairnb-inspector-count").textContent).toBe("1,000 pairs");
    expect(el.querySelector(".fairnb-page-label").textContent).toBe("page 1 of 25");
  });

  it("pages with the buttons and waits for the kernel's answer", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    el.querySelector('button[data-page="next"]').click();
    expect(model.sent.at(-1)).toEqual({ page: 1 });
    expect(grid().getAttribute("aria-busy")).toBe("true");
    model.receive({ cells: cells(1, 40, 1000), version: 1 });
    expect(grid().getAttribute("aria-busy")).toBe("false");
    expect(el.querySelector(".fairnb-image-cell").getAttribute("data-id")).toBe("40");
    el.querySelector('button[data-page="last"]').click();
    expect(model.sent.at(-1)).toEqual({ page: 24 });
    expect(el.querySelector('button[data-page="next"]').disabled).toBe(true);
  });

  it("shows a page size set from Python in the menu", () => {
    widget.render({ model: fakeModel(state({ page_size: 16, cells: cells(0, 16, 1000) })), el });
    const size = el.querySelector("select.fairnb-page-size");
    expect(size.value).toBe("16");
    expect(size.selectedOptions[0].textContent).toBe("16 per page");
  });

  it("sorts by a key from the menu and flips the direction", () => {
    const model = fakeModel(state({ page: 3 }));
    widget.render({ model, el });
    const sort = el.querySelector("select.fairnb-image-sort");
    expect([...sort.options].map((o) => o.textContent)).toEqual(["order found", "detector difference", "‖Δ_senatt‖₂"]);
    expect(el.querySelector(".fairnb-image-direction").disabled).toBe(true);
    sort.value = "l2";
    sort.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toEqual({ sort_by: "l2", page: 0 });
    el.querySelector(".fairnb-image-direction").click();
    expect(model.sent.at(-1)).toEqual({ sort_descending: false, page: 0 });
    expect(el.querySelector(".fairnb-image-direction").textContent).toBe("↑ smallest first");
  });

  it("selects a pair on click and shows seed, input, flips and heat maps side by side", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    expect(el.querySelector(".fairnb-detail-empty")).not.toBeNull();
    cell(3).click();
    expect(model.sent.at(-1)).toEqual({ selected_ids: [3] });
    expect(cell(3).getAttribute("aria-selected")).toBe("true");
    model.receive({ detail: DETAIL });
    const figures = (sel) => [...el.querySelectorAll(`.fairnb-image-panels ${sel}`)];
    expect(figures("figure:not(.fairnb-heatmap)").map((f) => f.getAttribute("data-role")))
      .toEqual(["seed", "input", "counterpart", "exact"]);
    expect(figures("figure:not(.fairnb-heatmap)").map((f) => f.style.gridColumn)).toEqual(["1", "2", "3", "4"]);
    // each heat map below the image its change leads to: Δ_bias below the input, Δ_senatt below the flip
    expect(figures("figure.fairnb-heatmap").map((f) => [f.getAttribute("data-role"), f.style.gridColumn]))
      .toEqual([["bias", "2"], ["senatt", "3"]]);
    expect(el.querySelector('figure[data-role="exact"] figcaption').textContent).toBe("exact flip");
    expect([...el.querySelectorAll(".fairnb-image-probabilities thead th")].map((t) => t.textContent))
      .toEqual(["", "seed", "input", "counterpart", "exact"]);
    expect([...el.querySelectorAll(".fairnb-image-probabilities tbody tr")].map((r) => r.textContent))
      .toEqual(["detector P(face)0.9500.9000.1000.850", "f_sa P(tint)0.7000.8000.3000.200"]);
    expect(el.querySelector(".fairnb-image-norms td").textContent).toBe("0.412");
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(DETAIL.summary);
  });
});

describe("keyboard", () => {
  it("moves with the arrows, selects with Enter, and crosses pages", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    cell(0).focus();
    key("ArrowRight");
    expect(document.activeElement).toBe(cell(1));
    key("ArrowDown");
    expect(document.activeElement).toBe(cell(1 + COLUMNS));
    key("Enter");
    expect(model.sent.at(-1)).toEqual({ selected_ids: [1 + COLUMNS] });
    expect(document.activeElement).toBe(cell(1 + COLUMNS));          // focus stays on the selected pair
    key("Enter");                                                     // again: still selected (a click would unselect)
    expect(model.sent.at(-1)).toEqual({ selected_ids: [1 + COLUMNS] });
    expect(cell(1 + COLUMNS).getAttribute("data-lm-suppress-shortcuts")).toBe("true");   // the notebook's shortcuts keep out
    key("End");
    expect(document.activeElement).toBe(cell(39));
    key("ArrowRight");                                                // past the last cell: the next page
    expect(model.sent.at(-1)).toEqual({ page: 1 });
    model.receive({ cells: cells(1, 40, 1000), version: 1 });
    expect(document.activeElement).toBe(cell(40));
    key("ArrowLeft");                                                 // before the first: back, on the last cell
    expect(model.sent.at(-1)).toEqual({ page: 0 });
    model.receive({ cells: cells(0, 40, 1000), version: 2 });
    expect(document.activeElement).toBe(cell(39));
  });

  it("moves down by the columns that fit the grid's width", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    expect(grid().getAttribute("data-columns")).toBe(String(COLUMNS));   // before layout
    Object.defineProperty(grid(), "clientWidth", { value: 500, configurable: true });
    vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockReturnValue(/** @type {DOMRect} */ ({ width: 120 }));
    model.receive({ cells: cells(0, 40, 1000), version: 1 });             // a page arrives: the grid measures itself
    expect(grid().getAttribute("data-columns")).toBe("4");                 // (500 + 4) / (120 + 4)
    expect(grid().style.gridTemplateColumns).toBe("repeat(4, max-content)");
    cell(1).focus();
    key("ArrowDown");
    expect(document.activeElement).toBe(cell(5));
    key("ArrowUp");
    expect(document.activeElement).toBe(cell(1));
  });

  it("stays on the first page at its start", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    cell(0).focus();
    key("ArrowUp");
    expect(model.sent).toEqual([]);
  });

  it("places a heat map below its image, or in order when that image is missing", () => {
    const images = [{ role: "input" }, { role: "counterpart" }];
    expect(heatColumn(images, "senatt", 0)).toBe(1);
    expect(heatColumn(images, "bias", 1)).toBe(0);
    expect(heatColumn(images, "exact", 2)).toBe(2);
  });

  it("fits as many columns as the widest pair allows in the output area", () => {
    expect(columnsFor(846, 120, 4)).toBe(6);             // JupyterLab's output area at a 1,280 px window
    expect(columnsFor(1106, 120, 4)).toBe(8);            // Notebook 7's
    expect(columnsFor(124 * 7 - 4, 120, 4)).toBe(7);     // exactly seven cells and their six gaps
    expect(columnsFor(124 * 7 - 5, 120, 4)).toBe(6);
    expect(columnsFor(80, 120, 4)).toBe(1);              // never fewer than one
    expect(columnsFor(10000, 120, 4)).toBe(MAX_COLUMNS);
    expect(columnsFor(0, 120, 4)).toBe(COLUMNS);         // not laid out (a hidden output): the default
    expect(columnsFor(846, 0, 4)).toBe(COLUMNS);
  });

  it("computes the next focus", () => {
    expect(nextFocus(0, "ArrowRight", 40, 8)).toEqual({ index: 1, page: 0 });
    expect(nextFocus(35, "ArrowDown", 40, 8)).toEqual({ index: 0, page: 1 });
    expect(nextFocus(3, "ArrowUp", 40, 8)).toEqual({ index: -1, page: -1 });
    expect(nextFocus(3, "PageDown", 40, 8)).toEqual({ index: 0, page: 1 });
    expect(nextFocus(3, "a", 40, 8)).toBeNull();
  });
});

describe("escaping", () => {
  it("writes every string as text and puts only base64 into an image source", () => {
    const model = fakeModel(state({
      title: EVIL, n_pairs: 1, cells: [{ id: 0, input: `x" onerror="alert(1)`, counterpart: PNG, caption: EVIL }],
      detail: { ...DETAIL, summary: EVIL, images: [{ role: EVIL, caption: EVIL, png: "javascript:alert(1)" }],
        columns: [EVIL], table: [{ name: EVIL, values: [EVIL] }], norms: [{ name: EVIL, value: EVIL }] },
    }));
    widget.render({ model, el });
    expect(el.querySelector("[onerror]")).toBeNull();
    expect(el.querySelector(".fairnb-inspector-title").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-image-caption").textContent).toBe(`#0  ${EVIL}`);
    expect(el.querySelector(".fairnb-thumb").hasAttribute("src")).toBe(false);
    expect(el.querySelector(".fairnb-image-large").hasAttribute("src")).toBe(false);
    expect(el.querySelector("figcaption").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-image-norms th").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-image-probabilities td").textContent).toBe(EVIL);
    expect(el.querySelectorAll(".fairnb-image-probabilities thead th")[1].textContent).toBe(EVIL);
    const srcs = [...el.querySelectorAll("img[src]")].map((i) => i.getAttribute("src"));
    expect(srcs.every((s) => s.startsWith("data:image/png;base64,"))).toBe(true);
  });

  it("accepts base64 text only", () => {
    expect(pngSource(PNG)).toBe(`data:image/png;base64,${PNG}`);
    expect(pngSource("a b")).toBe("");
    expect(pngSource("")).toBe("");
    expect(pngSource(undefined)).toBe("");
  });

  it("removes its listeners on cleanup", () => {
    const model = fakeModel(state());
    widget.render({ model, el })();
    expect(model.listenerCount()).toBe(0);
  });
});

describe("glossary links", () => {
  it("links each heat map's caption (NeuronFair's Δ_bias, Δ_senatt) to its glossary entry", () => {
    const glossary = { bias: { tip: "the small change", href: "https://example.org/g.md#d" },
      senatt: { tip: "the attribute flip", href: "https://example.org/g.md#d" } };
    const model = fakeModel(state({ glossary }));
    widget.render({ model, el });
    model.receive({ detail: DETAIL });
    const captions = [...el.querySelectorAll("figure.fairnb-heatmap figcaption")];
    expect(captions.map((c) => c.querySelector("[title]").getAttribute("title"))).toEqual(["the small change", "the attribute flip"]);
    expect(captions.map((c) => c.querySelector("a.fairnb-glossary-link").getAttribute("href")))
      .toEqual([glossary.bias.href, glossary.senatt.href]);
    expect(el.querySelector('figure[data-role="exact"] figcaption').textContent).toBe("exact flip");   // images: no link
  });

  it("links each row of the norms table that names a glossary word, and escapes it", () => {
    const glossary = { senatt: { tip: "the attribute flip", href: "https://example.org/g.md#d" },
      flip_steps: { tip: `<b>steps</b> "FGSM"`, href: "https://example.org/g.md#fgsm" } };
    const norms = [{ name: "‖Δ_senatt‖₂", value: "0.412", term: "senatt" },
      { name: "<i>FGSM flip steps</i>", value: "3", term: "flip_steps" }, { name: "other", value: "1" }];
    const model = fakeModel(state({ glossary }));
    widget.render({ model, el });
    model.receive({ detail: { ...DETAIL, norms } });
    const heads = [...el.querySelectorAll(".fairnb-image-norms th")];
    expect(heads.map((th) => th.querySelector("a.fairnb-glossary-link")?.getAttribute("href") ?? null))
      .toEqual([glossary.senatt.href, glossary.flip_steps.href, null]);
    expect(heads.map((th) => th.querySelector("[title]")?.getAttribute("title") ?? null))
      .toEqual(["the attribute flip", `<b>steps</b> "FGSM"`, null]);
    expect(heads[1].querySelector("[title]").textContent).toBe("<i>FGSM flip steps</i>");     // text, not markup
    expect(heads[1].querySelector("i, b")).toBeNull();
  });
});
