// The rank × step view of the HTML report: a canvas cell per rank (row) and
// measured step (column), coloured from light to dark by the chosen figure,
// the step's window or its lateness; hover shows the figures, a click writes
// them below the canvas and, for the step drawn span by span, opens its
// timeline. No library: the page may hold no timeline (and no d3).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("vprof-heatmap-data").textContent);
  const canvas = document.getElementById("vprof-heatmap");
  const tip = document.getElementById("vprof-heatmap-tip");
  const detail = document.getElementById("vprof-heatmap-detail");
  const scale = document.getElementById("vprof-heatmap-scale");
  const ranks = data.ranks.length, steps = data.steps.length;
  const LABEL = 90, TOP = 18;  // the rank labels' column and the step numbers' row
  const cellW = Math.max(2, Math.min(14, Math.floor(900 / steps)));
  const cellH = Math.max(2, Math.min(14, Math.floor(640 / ranks)));
  const LIGHT = [247, 251, 255], DARK = [8, 48, 107], EMPTY = "#e0e0e0";
  let metric = "window";

  canvas.width = LABEL + steps * cellW;
  canvas.height = TOP + ranks * cellH;
  const ctx = canvas.getContext("2d");

  function duration(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns + " ns";
    if (a < 1e6) return (ns / 1e3).toPrecision(3) + " µs";
    if (a < 1e9) return (ns / 1e6).toPrecision(3) + " ms";
    return (ns / 1e9).toPrecision(3) + " s";
  }

  function range() {
    let lo = Infinity, hi = -Infinity;
    for (const row of data[metric]) {
      for (const v of row) {
        if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
    }
    return [lo, hi];
  }

  function colour(v, lo, hi) {
    if (v === null) return EMPTY;
    const t = hi > lo ? (v - lo) / (hi - lo) : 0;
    const c = LIGHT.map((l, i) => Math.round(l + (DARK[i] - l) * t));
    return "rgb(" + c.join(",") + ")";
  }

  function draw() {
    const [lo, hi] = range();
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = "10px sans-serif";
    ctx.fillStyle = "#212121";
    const labelEvery = Math.ceil(12 / cellH);
    for (let r = 0; r < ranks; r += labelEvery) ctx.fillText(data.ranks[r], 2, TOP + r * cellH + Math.min(cellH, 12) - 2);
    const stepEvery = Math.ceil(40 / cellW);
    for (let s = 0; s < steps; s += stepEvery) ctx.fillText(String(data.steps[s]), LABEL + s * cellW, 11);
    for (let r = 0; r < ranks; ++r) {
      for (let s = 0; s < steps; ++s) {
        ctx.fillStyle = colour(data[metric][r][s], lo, hi);
        ctx.fillRect(LABEL + s * cellW, TOP + r * cellH, cellW, cellH);
      }
    }
    scale.textContent = isFinite(lo) ? "light " + duration(lo) + ", dark " + duration(hi) : "";
  }

  function cellAt(event) {
    const box = canvas.getBoundingClientRect();
    const s = Math.floor((event.clientX - box.left - LABEL) / cellW);
    const r = Math.floor((event.clientY - box.top - TOP) / cellH);
    return r >= 0 && r < ranks && s >= 0 && s < steps ? { r, s } : null;
  }

  function describe(r, s) {
    const w = data.window[r][s], l = data.lateness[r][s];
    if (w === null) return data.ranks[r] + ", step " + data.steps[s] + ": not measured";
    return data.ranks[r] + ", step " + data.steps[s] + ": window " + duration(w) +
      ", began " + duration(l) + " after the earliest rank";
  }

  canvas.addEventListener("mousemove", (event) => {
    const cell = cellAt(event);
    if (!cell) { tip.style.display = "none"; return; }
    tip.textContent = describe(cell.r, cell.s);
    tip.style.display = "block";
    tip.style.left = event.pageX + 12 + "px";
    tip.style.top = event.pageY + 12 + "px";
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  canvas.addEventListener("click", (event) => {
    const cell = cellAt(event);
    if (!cell) return;
    detail.textContent = describe(cell.r, cell.s);
    if (data.steps[cell.s] === data.timeline_step) {
      const timeline = document.getElementById("step-timeline");
      if (timeline) {
        const link = document.createElement("a");
        link.href = "#step-timeline";
        link.textContent = " → its timeline";
        detail.appendChild(link);
        timeline.scrollIntoView();
      }
    }
  });
  for (const button of document.querySelectorAll(".heatmap-controls button")) {
    button.addEventListener("click", () => {
      metric = button.dataset.metric;
      for (const b of document.querySelectorAll(".heatmap-controls button")) {
        b.setAttribute("aria-pressed", String(b === button));
      }
      draw();
    });
  }
  draw();
  // For the page's test: the grid and where each cell is drawn, in page pixels.
  window.vprofHeatmap = {
    size: () => ({ ranks, steps }),
    metric: () => metric,
    cell: (r, s) => ({ rank: data.ranks[r], step: data.steps[s], window: data.window[r][s],
                       lateness: data.lateness[r][s] }),
    cellCentre: (r, s) => {
      const box = canvas.getBoundingClientRect();
      return { x: box.left + LABEL + s * cellW + cellW / 2, y: box.top + TOP + r * cellH + cellH / 2 };
    },
  };
})();
