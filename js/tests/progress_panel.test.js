// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from "vitest";
import widget, { chartPoints, statusText } from "../src/progress_panel.js";
import { EVIL, fakeModel } from "./fake_model.js";

function state(extra = {}) {
  return {
    method: "random", status: "running", phase: "global", tried: 12345, found: 321, found_adf: 300,
    success_rate: 0.026, rate: 42.25, elapsed: 2.0, series: [[0, 0], [1, 100], [2, 321]],
    stoppable: true, stop_requested: false, message: "", ...extra,
  };
}

let el;
beforeEach(() => {
  document.body.replaceChildren();
  el = document.createElement("div");
  document.body.appendChild(el);
});

const stat = (key) => el.querySelector(`[data-stat="${key}"]`).textContent;

describe("progress panel", () => {
  it("shows the counters", () => {
    widget.render({ model: fakeModel(state()), el });
    expect(stat("tried")).toBe("12,345");
    expect(stat("found")).toBe("321");
    expect(stat("success_rate")).toBe("2.60%");
    expect(stat("rate")).toBe("42.3");
    expect(stat("elapsed")).toBe("2.0 s");
    expect(stat("phase")).toBe("global");
    expect(el.querySelector(".fairnb-progress-title").textContent).toBe("fairnb · random");
  });

  it("follows kernel updates", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ tried: 20000, found: 500, elapsed: 75, rate: 19550.6, series: [[0, 0], [75, 500]] });
    expect(stat("rate")).toBe("19,551");
    expect(stat("tried")).toBe("20,000");
    expect(stat("elapsed")).toBe("1 min 15 s");
    expect(el.querySelector(".fairnb-chart-line").getAttribute("points")).toBe(chartPoints([[0, 0], [75, 500]], 284, 82, 2));
    expect(el.querySelector(".fairnb-chart-max").textContent).toBe("500 IDIs");
  });

  it("draws the chart with axes: labelled, from 0 to the latest time and count", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ series: [[0, 0], [75, 12500]] });
    const text = (cls) => el.querySelector(`.fairnb-chart-${cls}`).textContent;
    expect(el.querySelector(".fairnb-chart-axis").getAttribute("points")).toBe("0,0 0,82 284,82");
    expect([text("y0"), text("ymax"), text("x0"), text("xmax")]).toEqual(["0", "12,500", "0 s", "1 min 15 s"]);
    expect([...el.querySelectorAll(".fairnb-chart-title")].map((t) => t.textContent)).toEqual(["elapsed time", "unique IDIs"]);
  });

  it("names the budget that ended the search", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    model.receive({ status: "budget", ending: "time budget of 10 s reached" });
    expect(el.querySelector(".fairnb-progress-status").textContent).toBe("time budget of 10 s reached");
    expect(statusText("budget", false, "")).toBe("budget reached");
  });

  it("Stop sets stop_requested and sends it once", () => {
    const model = fakeModel(state());
    widget.render({ model, el });
    const stop = el.querySelector("button.fairnb-stop");
    expect(stop.disabled).toBe(false);
    stop.click();
    expect(model.sent).toEqual([{ stop_requested: true }]);
    expect(stop.disabled).toBe(true);
    expect(stop.textContent).toBe("Stopping…");
    expect(el.querySelector(".fairnb-progress-status").textContent).toBe("stopping…");
    model.receive({ status: "stopped" });
    expect(el.querySelector(".fairnb-progress-status").textContent).toMatch(/^stopped/);
    expect(stop.textContent).toBe("Stop");
  });

  it("disables Stop and explains why when the cell blocks", () => {
    widget.render({ model: fakeModel(state({ stoppable: false })), el });
    expect(el.querySelector("button.fairnb-stop").disabled).toBe(true);
    expect(el.querySelector(".fairnb-progress-hint").hidden).toBe(false);
  });

  it("disables Stop when the search has finished", () => {
    widget.render({ model: fakeModel(state({ status: "completed" })), el });
    expect(el.querySelector("button.fairnb-stop").disabled).toBe(true);
    expect(el.querySelector(".fairnb-progress-hint").hidden).toBe(true);
  });

  it("writes every string as text", () => {
    widget.render({ model: fakeModel(state({ method: EVIL, phase: EVIL, message: EVIL, status: "failed" })), el });
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector(".fairnb-progress-title").textContent).toBe(`fairnb · ${EVIL}`);
    expect(stat("phase")).toBe(EVIL);
    expect(el.querySelector(".fairnb-progress-message").textContent).toBe(EVIL);
  });

  it("shows a run's own numbers (certify) instead of the counters and chart, as text, and its ending", () => {
    const model = fakeModel(state({ method: "certify" }));
    widget.render({ model, el });
    model.receive({ stats: [["certified", "97.6 %"], ["boxes decided", "6"], [EVIL, EVIL]] });
    expect(stat("certified")).toBe("97.6 %");
    expect(stat("boxes decided")).toBe("6");
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector(".fairnb-own-stats").textContent).toContain(EVIL);
    expect(el.querySelector(".fairnb-chart-box").hidden).toBe(true);
    expect(el.querySelector('[data-stat="tried"]').closest(".fairnb-stats").hidden).toBe(true);
    model.receive({ status: "stopped", ending: "stopped by user; every decided box is kept" });
    expect(el.querySelector(".fairnb-progress-status").textContent).toBe("stopped by user; every decided box is kept");
  });

  it("says what Stop keeps in the run's own words (certify), and a search's by default", () => {
    const search = fakeModel(state({ stoppable: false }));
    widget.render({ model: search, el });
    expect(el.querySelector("button.fairnb-stop").getAttribute("title")).toMatch(/^The search runs in this cell/);
    expect(el.querySelector(".fairnb-progress-hint").textContent).toContain("every pair found so far is kept");
    el.replaceChildren();
    const words = { tip: "End the certification", blocked: EVIL, hint: `${EVIL} every box decided is kept` };
    const model = fakeModel(state({ method: "certify", stop_words: words }));
    widget.render({ model, el });
    const stop = el.querySelector("button.fairnb-stop");
    expect(stop.getAttribute("title")).toBe("End the certification");
    model.receive({ stoppable: false });
    expect(stop.getAttribute("title")).toBe(EVIL);
    expect(el.querySelector(".fairnb-progress-hint").textContent).toBe(words.hint);
    expect(el.querySelector("img")).toBeNull();
  });

  it("removes its listeners on cleanup", () => {
    const model = fakeModel(state());
    const cleanup = widget.render({ model, el });
    expect(model.listenerCount()).toBeGreaterThan(0);
    cleanup();
    expect(model.listenerCount()).toBe(0);
  });
});

describe("chartPoints", () => {
  it("scales time to the width and counts to the height", () => {
    expect(chartPoints([[0, 0], [5, 10], [10, 20]], 100, 50)).toBe("0.0,50.0 50.0,25.0 100.0,0.0");
  });
  it("handles empty and flat series", () => {
    expect(chartPoints([], 100, 50)).toBe("");
    expect(chartPoints([[0, 0]], 100, 50)).toBe("0.0,50.0");
  });
});

describe("statusText", () => {
  it("says stopping while a stop is pending", () => {
    expect(statusText("running", true)).toBe("stopping…");
    expect(statusText("budget", true)).toBe("budget reached");
  });
  it("says the model is being prepared before the budget starts", () => {
    expect(statusText("preparing", false)).toMatch(/^preparing the model/);
  });
});

describe("glossary links", () => {
  const glossary = {
    tried: { tip: "Candidates the model was asked about.", href: "https://example.org/glossary.md#tried" },
    preparing: { tip: "The model's first call.", href: "https://example.org/glossary.md#speed" },
    phase: { tip: EVIL, href: "javascript:alert(1)" },
  };

  it("gives each explained counter a tooltip and a link to its entry, text kept as text", () => {
    widget.render({ model: fakeModel(state({ glossary })), el });
    const term = el.querySelector('[data-term-key="tried"]');
    expect(term.querySelector(".fairnb-stat-label").getAttribute("title")).toBe(glossary.tried.tip);
    const link = term.querySelector("a.fairnb-glossary-link");
    expect(link.getAttribute("href")).toBe(glossary.tried.href);
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener");
    expect(el.querySelectorAll("img").length).toBe(0);
    // a link that is not http(s) is dropped; its tooltip stays plain text
    const phase = [...el.querySelectorAll(".fairnb-stat-label")].find((s) => s.textContent === "phase");
    expect(phase.getAttribute("title")).toBe(EVIL);
    expect(el.querySelector('a[href^="javascript"]')).toBeNull();
  });

  it("explains 'preparing the model' while the model warms up", () => {
    const model = fakeModel(state({ glossary, status: "preparing" }));
    widget.render({ model, el });
    const status = el.querySelector(".fairnb-progress-status");
    expect(status.textContent).toMatch(/^preparing the model/);
    expect(status.getAttribute("title")).toBe(glossary.preparing.tip);
    model.receive({ status: "running" });
    expect(status.hasAttribute("title")).toBe(false);
  });

  it("shows the plain word without a glossary", () => {
    widget.render({ model: fakeModel(state()), el });
    expect(el.querySelectorAll("a.fairnb-glossary-link").length).toBe(0);
    expect([...el.querySelectorAll(".fairnb-stat-label")].map((s) => s.textContent)).toContain("tried");
  });
});
