// Front end of fairnb.widgets.ProgressPanel: live counters, a small chart of unique IDIs over time
// and a Stop button. The kernel sends throttled trait updates (<= 10 per second); the button sets
// `stop_requested`, which the kernel turns into search.stop(). A run that names its own numbers (certify)
// sends `stats`, [label, text] pairs shown instead of the counters and the chart, and `stop_words`, what its Stop
// button and hint say (a certification keeps its decided boxes, not pairs).
import { formatCount, formatDuration, formatPercent, glossaryTerm, h, svg } from "./dom.js";

/**
 * @typedef {{
 *   method: string, status: string, phase: string, tried: number, found: number, found_adf: number,
 *   success_rate: number, rate: number, elapsed: number, series: [number, number][],
 *   stoppable: boolean, stop_requested: boolean, message: string, ending: string, stats: [string, string][],
 *   stop_words: {tip?: string, blocked?: string, hint?: string}
 * }} PanelState
 */

// what Stop says of a search; a run that is not one (certify) sends its own words as `stop_words`
const STOP_WORDS = {
  tip: "End the search; every pair found so far is kept",
  blocked: "The search runs in this cell; interrupt the kernel to stop it",
  hint: "This cell is busy, so the Stop button cannot reach the kernel: interrupt the kernel (■) to end the " +
    "search (every pair found so far is kept), or start it in the background with search.start(...) " +
    "and wait with run.wait().",
};
const FINISHED = new Set(["completed", "budget", "stopped", "interrupted", "failed"]);
// the chart: a plot box with room for the y labels on the left and the x labels below
const CHART = { width: 340, height: 120, left: 46, top: 8, right: 10, bottom: 30, pad: 2 };
const PLOT = { width: CHART.width - CHART.left - CHART.right, height: CHART.height - CHART.top - CHART.bottom };

/**
 * SVG polyline points for the series of (elapsed, found) samples, scaled into the chart box.
 * @param {[number, number][]} series
 * @param {number} width
 * @param {number} height
 * @param {number} [pad]
 * @returns {string}
 */
export function chartPoints(series, width, height, pad = 0) {
  if (!series || series.length === 0) return "";
  const tMax = Math.max(series[series.length - 1][0], 1e-9);
  const yMax = Math.max(...series.map((p) => p[1]), 1);
  return series
    .map(([t, y]) => {
      const x = pad + (t / tMax) * (width - 2 * pad);
      const yy = height - pad - (y / yMax) * (height - 2 * pad);
      return `${x.toFixed(1)},${yy.toFixed(1)}`;
    })
    .join(" ");
}

/**
 * One line of text saying what the panel is doing.
 * @param {string} status
 * @param {boolean} stopRequested
 */
export function statusText(status, stopRequested, ending = "", own = false) {
  if (stopRequested && !FINISHED.has(status)) return "stopping…";
  if ((status === "budget" || (own && FINISHED.has(status))) && ending) return ending;
  return {
    waiting: "waiting to start",
    preparing: "preparing the model (its first call; the budget starts after it)",
    running: "running",
    completed: "finished",
    budget: "budget reached",
    stopped: "stopped — all pairs found so far are kept",
    interrupted: "interrupted — all pairs found so far are kept",
    failed: "failed",
  }[status] ?? status;
}

/** @type {import("@anywidget/types").Render<PanelState>} */
function render({ model, el }) {
  const stat = (label, key, term = key) => {
    const value = h("span", { className: "fairnb-stat-value", attrs: { "data-stat": key } });
    return [h("div", { className: "fairnb-stat" }, [glossaryTerm(model, term, label, "fairnb-stat-label"), value]), value];
  };
  const [triedBox, tried] = stat("tried", "tried");
  const [foundBox, found] = stat("found (unique)", "found");
  const [rateBox, rate] = stat("success rate", "success_rate");
  const [speedBox, speed] = stat("IDIs per second", "rate", "idis_per_s");
  const [elapsedBox, elapsed] = stat("elapsed", "elapsed", "elapsed_s");
  const [phaseBox, phase] = stat("phase", "phase");

  const title = h("span", { className: "fairnb-progress-title" });
  const status = h("span", { className: "fairnb-progress-status" });
  const stop = h("button", { className: "fairnb-button fairnb-stop", text: "Stop", attrs: { type: "button" } });
  const line = svg("polyline", { class: "fairnb-chart-line", fill: "none", points: "" });
  const chart = svg("svg", {
    class: "fairnb-chart", width: CHART.width, height: CHART.height,
    viewBox: `0 0 ${CHART.width} ${CHART.height}`, role: "img",
  });
  const chartLabel = svg("title");
  const plot = svg("g", { transform: `translate(${CHART.left},${CHART.top})` });
  const [x0, y0] = [0, PLOT.height];
  const axes = svg("polyline", { class: "fairnb-chart-axis", fill: "none",
    points: `${x0},0 ${x0},${y0} ${PLOT.width},${y0}` });
  const tick = (cls, x, y, anchor) => svg("text", { class: `fairnb-chart-tick ${cls}`, x, y, "text-anchor": anchor });
  const yTop = tick("fairnb-chart-ymax", -4, 8, "end");
  const yZero = tick("fairnb-chart-y0", -4, y0, "end");
  const xZero = tick("fairnb-chart-x0", 0, y0 + 12, "start");
  const xEnd = tick("fairnb-chart-xmax", PLOT.width, y0 + 12, "end");
  const xTitle = tick("fairnb-chart-title", PLOT.width / 2, y0 + 24, "middle");
  const yTitle = svg("text", { class: "fairnb-chart-tick fairnb-chart-title", "text-anchor": "middle",
    transform: `translate(${-CHART.left + 10},${PLOT.height / 2}) rotate(-90)` });
  xTitle.textContent = "elapsed time";
  yTitle.textContent = "unique IDIs";
  yZero.textContent = "0";
  plot.append(axes, line, yTop, yZero, xZero, xEnd, xTitle, yTitle);
  chart.append(chartLabel, plot);
  const chartMax = h("span", { className: "fairnb-chart-max" });
  const hint = h("div", { className: "fairnb-progress-hint" });

  const message = h("div", { className: "fairnb-progress-message" });
  const counters = h("div", { className: "fairnb-stats" }, [triedBox, foundBox, rateBox, speedBox, elapsedBox, phaseBox]);
  const chartBox = h("div", { className: "fairnb-chart-box" }, [chart, chartMax]);
  const own = h("div", { className: "fairnb-stats fairnb-own-stats" });
  const root = h("div", { className: "fairnb-progress" }, [
    h("div", { className: "fairnb-progress-head" }, [title, status, stop]),
    counters, own, chartBox,
    hint,
    message,
  ]);
  el.appendChild(root);

  stop.addEventListener("click", () => {
    model.set("stop_requested", true);
    model.save_changes();
    update();
  });

  function update() {
    const st = model.get("status");
    const requested = model.get("stop_requested");
    const finished = FINISHED.has(st);
    title.textContent = `fairnb · ${model.get("method") || "search"}`;
    const stats = model.get("stats") ?? [];
    status.textContent = statusText(st, requested, model.get("ending"), stats.length > 0);
    status.setAttribute("data-status", st);
    const why = st === "preparing" ? (model.get("glossary") ?? {}).preparing : null;
    if (why) status.setAttribute("title", why.tip);
    else status.removeAttribute("title");
    tried.textContent = formatCount(model.get("tried"));
    found.textContent = formatCount(model.get("found"));
    found.setAttribute("title", `${formatCount(model.get("found_adf"))} without the protected attributes`);
    rate.textContent = formatPercent(model.get("success_rate"));
    const perSecond = Number(model.get("rate")) || 0;
    speed.textContent = perSecond >= 100 ? formatCount(perSecond) : perSecond.toFixed(1);
    elapsed.textContent = formatDuration(model.get("elapsed"));
    phase.textContent = model.get("phase") || "—";
    own.replaceChildren(...stats.map(([label, text]) => h("div", { className: "fairnb-stat" }, [
      h("span", { className: "fairnb-stat-label", text: label }),
      h("span", { className: "fairnb-stat-value", text, attrs: { "data-stat": label } })])));
    own.hidden = !stats.length;
    counters.hidden = chartBox.hidden = stats.length > 0;
    const series = model.get("series") ?? [];
    line.setAttribute("points", chartPoints(series, PLOT.width, PLOT.height, CHART.pad));
    const last = series.length ? series[series.length - 1] : [0, 0];
    const top = Math.max(0, ...series.map((p) => p[1]));
    chartLabel.textContent = `unique IDIs over time: ${formatCount(last[1])} after ${formatDuration(last[0])}`;
    chartMax.textContent = `${formatCount(top)} IDIs`;
    yTop.textContent = formatCount(Math.max(top, 1));
    xZero.textContent = "0 s";
    xEnd.textContent = formatDuration(last[0]);
    const stoppable = model.get("stoppable");
    stop.disabled = finished || requested || !stoppable;
    stop.textContent = requested && !finished ? "Stopping…" : "Stop";
    const words = { ...STOP_WORDS, ...(model.get("stop_words") ?? {}) };
    stop.setAttribute("title", stoppable ? words.tip : words.blocked);
    hint.textContent = words.hint;
    hint.hidden = stoppable || finished;
    message.textContent = model.get("message") ?? "";
    message.hidden = !message.textContent;
    root.setAttribute("data-status", st);
  }

  const events = ["method", "status", "phase", "tried", "found", "found_adf", "success_rate", "rate", "elapsed",
    "series", "stoppable", "stop_requested", "message", "ending", "stats", "stop_words"].map((k) => `change:${k}`);
  for (const e of events) model.on(e, update);
  update();
  return () => {
    for (const e of events) model.off(e, update);
  };
}

export default { render };
