// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import widget, { rateText, sentenceElement, tokenElement } from "../src/text_inspector.js";
import { EVIL, expectInert, fakeModel } from "./fake_model.js";

const SCRIPT = "<script>alert(1)</script>";
const COLUMNS = [
  ["text", "text"], ["group", "protected"], ["term", "protected"], ["term'", "counterpart"], ["p", "output"],
  ["p'", "output"], ["label", "output"], ["label'", "output"], ["difference", "output"], ["substitutions", "meta"],
  ["phase", "meta"], ["seed", "meta"],
].map(([name, kind]) => ({ name, kind }));

const TOKENS = [
  { t: "the", kind: "" }, { t: "muslim", kind: "sensitive", alt: "christian" }, { t: "cook", kind: "" },
  { t: "is", kind: "" }, { t: "honest", kind: "subst", old: "kind" }, { t: ".", kind: "" },
];

function rows(page, pageSize, total) {
  const out = [];
  for (let i = page * pageSize; i < Math.min(total, (page + 1) * pageSize); i++) {
    out.push({ id: i, tokens: TOKENS, cells: ["the muslim cook is honest .", "religion", "muslim", "christian", "0.900",
      "0.100", "toxic", "non-toxic", "0.800", "1", "local", "7"] });
  }
  return out;
}

function state(extra = {}) {
  return {
    title: "adf_asc: discriminatory pairs", columns: COLUMNS, rows: rows(0, 25, 100000), total: 100000, n_pairs: 100000,
    page: 0, page_size: 25, sort_by: "", sort_descending: false, filters: {}, selected_ids: [], detail: {}, version: 0,
    legend: [{ kind: "sensitive", text: "sensitive term: input → counterpart" }, { kind: "subst", text: "substitution" }],
    term_rates: [
      { term: "muslim", group: "religion", pairs: 60000, seeds: 120, seeds_found: 90, rate: 0.75, low: 0.666, high: 0.819 },
      { term: "jewish", group: "religion", pairs: 2, seeds: 1, seeds_found: 1, rate: 1, low: 0.207, high: 1 },
      { term: "black", group: "race", pairs: 40000, seeds: 100, seeds_found: 20, rate: 0.2 },
      { term: "sikh", group: "religion", pairs: 3, seeds: null, seeds_found: null, rate: null },
    ],
    slice_rate: { pairs: 100000, share: 1, seeds_found: 110, filtered: false },
    choices: { groups: ["race", "religion"], terms: [{ term: "black", group: "race" }, { term: "muslim", group: "religion" }, { term: "sikh", group: "religion" }] },
    ...extra,
  };
}

let el;
beforeEach(() => {
  document.body.replaceChildren();
  el = document.createElement("div");
  document.body.appendChild(el);
});
afterEach(() => vi.useRealTimers());

describe("text inspector list", () => {
  it("shows each pair as one aligned sentence with the term and the substitutions in their colours", () => {
    widget.render({ model: fakeModel(state()), el });
    expect(el.querySelectorAll("tbody tr.fairnb-row")).toHaveLength(25);
    const cell = el.querySelector("tbody tr td.fairnb-col-text");
    expect(cell.textContent).toBe("the muslim→christian cook is kindhonest .");
    const sensitive = cell.querySelector(".fairnb-tok-sensitive");
    expect(sensitive.querySelector(".fairnb-tok-word").textContent).toBe("muslim");
    expect(sensitive.querySelector(".fairnb-tok-alt").textContent).toBe("christian");
    const subst = cell.querySelector(".fairnb-tok-subst");
    expect(subst.querySelector("s").textContent).toBe("kind");
    expect(subst.querySelector(".fairnb-tok-word").textContent).toBe("honest");
    expect([...el.querySelectorAll(".fairnb-text-legend-item")].map((e) => e.className))
      .toEqual(["fairnb-text-legend-item fairnb-tok-sensitive", "fairnb-text-legend-item fairnb-tok-subst"]);
    const cells = [...el.querySelectorAll("tbody tr")[0].children].map((td) => td.textContent);
    expect(cells.slice(4, 8)).toEqual(["0.900", "0.100", "toxic", "non-toxic"]);
    expect(el.querySelector('th[data-column="text"] button').textContent).toBe("sentence");
  });

  it("shows the discrimination rate per term and filters by a term when its chip is clicked", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    const chips = [...el.querySelectorAll(".fairnb-text-rate")];
    // the seeds behind each rate stay visible: one seed's 100 % is not a full bar of certainty
    expect(chips.map((c) => c.querySelector(".fairnb-text-rate-value").textContent))
      .toEqual(["75.0% · 90/120", "100.0% · 1/1", "20.0% · 20/100", "3 pairs"]);
    expect(chips[0].querySelector(".fairnb-text-rate-fill").getAttribute("style")).toBe("width:75.0%");
    expect(chips[1].querySelector(".fairnb-text-rate-interval").getAttribute("style")).toBe("left:20.7%;width:79.3%");
    expect(chips[2].querySelector(".fairnb-text-rate-interval")).toBeNull();
    chips[2].click();
    expect(model.sent.at(-1)).toEqual({ filters: { term: "=black" }, page: 0 });
    expect(el.querySelector('.fairnb-text-rate[data-term="black"]').classList.contains("fairnb-text-rate-active")).toBe(true);
    el.querySelector('.fairnb-text-rate[data-term="black"]').click();          // a second click clears it
    expect(model.sent.at(-1)).toEqual({ filters: {}, page: 0 });
    model.receive({ slice_rate: { pairs: 40000, share: 0.4, seeds_found: 20, filtered: true } });
    expect(el.querySelector(".fairnb-text-slice").textContent).toBe("Filtered: 40,000 of 100,000 pairs (40.0%), reached from 20 seeds.");
  });

  it("filters by group, by term of that group and by words", () => {
    vi.useFakeTimers();
    const model = fakeModel(state());
    widget.render({ model, el });
    const group = el.querySelector("select.fairnb-text-group");
    group.value = "religion";
    group.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toEqual({ filters: { group: "=religion" }, page: 0 });
    const term = el.querySelector("select.fairnb-text-term");
    expect([...term.options].map((o) => o.value)).toEqual(["", "muslim", "sikh"]);    // only that group's terms
    term.value = "sikh";
    term.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toEqual({ filters: { group: "=religion", term: "=sikh" }, page: 0 });
    const words = el.querySelector("input.fairnb-text-words");
    words.value = "honest";
    words.dispatchEvent(new Event("input"));
    vi.advanceTimersByTime(300);
    expect(model.sent.at(-1)).toEqual({ filters: { group: "=religion", term: "=sikh", text: "honest" }, page: 0 });
    group.value = "";
    group.dispatchEvent(new Event("change"));                                // the term goes with its group
    expect(model.sent.at(-1)).toEqual({ filters: { text: "honest" }, page: 0 });
  });

  it("sorts, pages and selects like the pair inspector", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    el.querySelector('th[data-column="p"] button').click();
    expect(model.sent.at(-1)).toEqual({ sort_by: "p", sort_descending: false, page: 0 });
    expect(el.querySelector("table").getAttribute("aria-busy")).toBe("true");
    model.receive({ version: 1 });
    expect(el.querySelector("table").getAttribute("aria-busy")).toBe("false");
    el.querySelector('button[data-page="next"]').click();
    expect(model.sent.at(-1)).toEqual({ page: 1 });
    el.querySelector('tr[data-id="3"]').click();
    expect(model.sent.at(-1)).toEqual({ selected_ids: [3] });
  });

  it("marks each header and filter cell with its column's kind and name (a narrow output hides meta and group)", () => {
    widget.render({ model: fakeModel(state()), el });
    const meta = ["substitutions", "phase", "seed"];
    const kinds = (row) => [...el.querySelectorAll(`thead tr${row} th`)].map((th) => th.getAttribute("data-kind"));
    expect(kinds(":first-child")).toEqual(COLUMNS.map((c) => c.kind));
    expect(kinds(".fairnb-filter-row")).toEqual(COLUMNS.map((c) => c.kind));
    expect(COLUMNS.filter((c) => c.kind === "meta").map((c) => c.name)).toEqual(meta);
    expect([...el.querySelectorAll("tbody tr:first-child td.fairnb-col-meta")].map((td) => td.textContent)).toEqual(["1", "local", "7"]);
    expect(el.querySelector('tbody tr:first-child td[data-column="group"]').textContent).toBe("religion");
    expect(el.querySelectorAll('thead th[data-column="group"], thead th[data-filter="group"]')).toHaveLength(2);
  });

  it("removes its listeners on cleanup", () => {
    const model = fakeModel(state());
    widget.render({ model, el })();
    expect(model.listenerCount()).toBe(0);
  });
});

describe("text pair detail", () => {
  const detail = {
    pair: 3, summary: 'Pair 3: replacing only "muslim" by "christian" moves P(toxic) from 0.900 to 0.100.',
    texts: [{ role: "seed", text: "the muslim cook is kind ." }, { role: "input", text: "the muslim cook is honest ." },
      { role: "counterpart", text: "the christian cook is honest ." }],
    tokens: TOKENS.map((t, i) => ({ ...t, saliency: i / 5 })), saliency_known: true,
    outputs: [{ name: "P(toxic)", input: "0.900", counterpart: "0.100" }, { name: "decision", input: "toxic", counterpart: "non-toxic" }],
    chain: [{ phase: "global", iteration: 2, position: 5, old: "kind", new: "honest", candidates: [
      { word: "nice", score: "0.910", chosen: false }, { word: "honest", score: "0.800", chosen: true }] }],
    validity: [{ name: "L0 (tokens changed from the seed)", value: "1" }, { name: "BLEU-4 (vs the seed)", value: "0.669" }],
  };

  it("shows texts, saliency, the substitution chain and the validity metrics", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    expect(el.querySelector(".fairnb-detail-empty")).not.toBeNull();
    model.receive({ selected_ids: [3], detail });
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(detail.summary);
    expect([...el.querySelectorAll(".fairnb-text-texts tr")].map((r) => r.getAttribute("data-role"))).toEqual(["seed", "input", "counterpart"]);
    const salient = [...el.querySelectorAll(".fairnb-text-aligned .fairnb-tok-salient")];
    expect(salient).toHaveLength(6);
    expect(salient[5].style.getPropertyValue("--fairnb-saliency")).toBe("1.000");
    const step = el.querySelector('.fairnb-text-chain tr[data-step="0"]');
    expect([...step.children].slice(0, 5).map((td) => td.textContent)).toEqual(["1", "global", "2", "5", "kind → honest"]);
    expect([...step.querySelectorAll(".fairnb-text-chosen")].map((c) => c.textContent)).toEqual(["honest (0.800)"]);
    expect([...el.querySelectorAll(".fairnb-text-validity tbody tr")].map((r) => r.textContent))
      .toEqual(["L0 (tokens changed from the seed)1", "BLEU-4 (vs the seed)0.669"]);
  });

  it("links the detail view's jargon (saliency, token position, candidate scores) to the glossary", () => {
    const entry = (k) => ({ tip: `about ${k}`, href: `https://example.org/g.md#${k}` });
    const glossary = Object.fromEntries(["saliency", "position", "candidate_score", "phase"].map((k) => [k, entry(k)]));
    const model = fakeModel(state({ glossary }));
    widget.render({ model, el });
    model.receive({ selected_ids: [3], detail });
    const link = (root) => root.querySelector("a.fairnb-glossary-link")?.getAttribute("href");
    expect(link(el.querySelector(".fairnb-text-aligned"))).toBe(glossary.saliency.href);
    const heads = [...el.querySelectorAll(".fairnb-text-chain thead th")];
    expect(heads.map((th) => th.firstChild.firstChild.textContent))
      .toEqual(["step", "phase", "iteration", "position", "old → new", "candidates (score)"]);
    expect(heads.map(link)).toEqual([undefined, glossary.phase.href, undefined, glossary.position.href, undefined,
      glossary.candidate_score.href]);
  });

  it("says so when a pair has no chain", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ detail: { ...detail, chain: [], saliency_known: false, validity: [] } });
    expect(el.querySelector(".fairnb-text-chain")).toBeNull();
    expect(el.querySelector(".fairnb-text-validity")).toBeNull();
    expect(el.querySelectorAll(".fairnb-tok-salient")).toHaveLength(0);
    expect(el.textContent).toContain("Substitution chain: none");
  });
});

describe("escaping", () => {
  it("writes a <script> in a sentence, a term and the detail as text", () => {
    const evilTokens = [{ t: SCRIPT, kind: "" }, { t: EVIL, kind: "sensitive", alt: SCRIPT }, { t: SCRIPT, kind: "subst", old: EVIL }];
    const model = fakeModel(state({
      rows: [{ id: 0, tokens: evilTokens, cells: [SCRIPT, SCRIPT, EVIL, SCRIPT, "0.9", "0.1", SCRIPT, EVIL, "0.8", "1", "g", "0"] }],
      total: 1, n_pairs: 1, title: SCRIPT,
      term_rates: [{ term: SCRIPT, group: EVIL, pairs: 1, seeds: 1, seeds_found: 1, rate: 1 }],
      choices: { groups: [EVIL], terms: [{ term: SCRIPT, group: EVIL }] },
      legend: [{ kind: "sensitive", text: SCRIPT }],
      detail: { pair: 0, summary: SCRIPT, texts: [{ role: "input", text: SCRIPT }], tokens: evilTokens, saliency_known: false,
        outputs: [{ name: EVIL, input: SCRIPT, counterpart: SCRIPT }],
        chain: [{ phase: SCRIPT, iteration: 0, position: 0, old: EVIL, new: SCRIPT, candidates: [{ word: SCRIPT, score: "", chosen: true }] }],
        validity: [{ name: SCRIPT, value: EVIL }] },
    }));
    widget.render({ model, el });
    expectInert(el);
    expect(el.querySelector("td.fairnb-col-text .fairnb-tok").textContent).toBe(SCRIPT);
    expect(el.querySelector(".fairnb-tok-sensitive .fairnb-tok-word").textContent).toBe(EVIL);
    expect(el.querySelector(".fairnb-text-rate-term").textContent).toBe(SCRIPT);
    expect(el.querySelector(".fairnb-detail-summary").textContent).toBe(SCRIPT);
    expect(el.querySelector(".fairnb-text-chosen").textContent).toBe(SCRIPT);
    expect(el.querySelector(".fairnb-inspector-title").textContent).toBe(SCRIPT);
  });
});

describe("helpers", () => {
  it("build tokens and sentences", () => {
    expect(tokenElement({ t: "a", kind: "" }).className).toBe("fairnb-tok");
    expect(sentenceElement(TOKENS).textContent).toBe("the muslim→christian cook is kindhonest .");
    expect(rateText({ term: "x", group: "g", pairs: 1, seeds: 1200, seeds_found: 600, rate: 0.5 })).toBe("600 of 1,200 seeds, 50.0%");
    expect(rateText({ term: "x", group: "g", pairs: 1, seeds: 1, seeds_found: 1, rate: 1, low: 0.207, high: 1 }))
      .toBe("1 of 1 seeds, 100.0% (95% interval 20.7%–100.0%)");
    expect(rateText({ term: "x", group: "g", pairs: 1, seeds: null, seeds_found: null, rate: null })).toBe("");
  });
});

describe("glossary links", () => {
  it("links the summary band's 'discrimination rate' to its glossary entry", () => {
    const glossary = { discrimination_rate: { tip: EVIL, href: "https://example.org/g.md#discrimination-rate" } };
    widget.render({ model: fakeModel(state({ glossary })), el });
    const band = el.querySelector(".fairnb-text-rates");
    const title = band.querySelector(".fairnb-text-rates-title");
    expect(title.getAttribute("title")).toBe(EVIL);
    expect(band.querySelector("a.fairnb-glossary-link").getAttribute("href")).toBe(glossary.discrimination_rate.href);
    expect(el.querySelectorAll("img").length).toBe(0);
  });
});
