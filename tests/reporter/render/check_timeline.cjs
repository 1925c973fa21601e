#!/usr/bin/env node
// The browser test of the HTML report's interactive timeline and sortable
// tables: `vprof report --format html` of timeline_fixture.h's traces, loaded
// in headless Chromium through playwright-core. It checks that
//  - each rank's timeline holds the spans the fixture puts in its step, by kind;
//  - spans sit where their times say on the time axis (±1.5 px), before and
//    after zooming in 4×, and the screenshot at each zoom level shows the
//    span's colour at its centre;
//  - hovering a span shows its export id; a table sorts by a clicked column.
// Screenshots at both zoom levels are left in OUT_DIR.
//
// Usage: check_timeline.cjs VPROF TRACE_WRITER CHROMIUM NODE_MODULES OUT_DIR
"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");

function fail(message) {
  console.error("reporter_render_timeline: FAIL: " + message);
  process.exit(1);
}

// Worked out in timeline_fixture.h: step 1, windows [1020, 2020] µs on rank 0
// and [1025, 2025] on rank 1; times below are from rank 0's window start.
const DOMAIN_US = 1005;
const KIND_COUNTS = {
  "NVTX range": 4, "NCCL call (host)": 2, "compute kernel": 2, "communication kernel": 1,
  "memcpy": 1, "GPU idle": 2,
};
// Rank r's spans are rank 0's 5r µs later.
const SPANS = [
  { id: "correlation:5", start: 30, duration: 100, colour: "#2e7d32" },   // gemm
  { id: "correlation:6", start: 130, duration: 50, colour: "#d32f2f" },   // all-reduce
  { id: "correlation:7", start: 180, duration: 10, colour: "#1565c0" },   // memcpy
];

// Rows of RGB pixels of an 8-bit RGB or RGBA, non-interlaced PNG.
function decodePng(buffer) {
  let pos = 8, width = 0, height = 0, bpp = 0;
  const idat = [];
  while (pos < buffer.length) {
    const length = buffer.readUInt32BE(pos);
    const kind = buffer.toString("ascii", pos + 4, pos + 8);
    const body = buffer.subarray(pos + 8, pos + 8 + length);
    if (kind === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || (body[9] !== 2 && body[9] !== 6) || body[12] !== 0) {
        fail("screenshot is not an 8-bit RGB(A) non-interlaced PNG");
      }
      bpp = body[9] === 6 ? 4 : 3;
    } else if (kind === "IDAT") {
      idat.push(body);
    }
    pos += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  let previous = Buffer.alloc(stride);
  const rows = [];
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; ++i) {
      const left = i >= bpp ? line[i - bpp] : 0;
      const up = previous[i];
      const upLeft = i >= bpp ? previous[i - bpp] : 0;
      let add = 0;
      if (filter === 1) add = left;
      else if (filter === 2) add = up;
      else if (filter === 3) add = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
        add = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      } else if (filter !== 0) fail("unknown PNG filter " + filter);
      line[i] = (line[i] + add) & 0xff;
    }
    rows.push(line);
    previous = line;
  }
  return { width, height, pixel: (x, y) => {
    const row = rows[y], i = x * bpp;
    return "#" + [row[i], row[i + 1], row[i + 2]].map((v) => v.toString(16).padStart(2, "0")).join("");
  } };
}

// A figure as the report prints it ("1.2 ms", "900 µs", "3", "45%"), as a number.
const UNIT = { "": 1, ns: 1, "µs": 1e3, ms: 1e6, s: 1e9, B: 1, KiB: 1024, MiB: 1048576, GiB: 1073741824, "%": 1 };
function figure(text) {
  const match = /^\s*(-?[\d,]*\.?\d+)\s*(ns|µs|ms|s|B|KiB|MiB|GiB|%)?(\s|$)/.exec(text);
  return match ? Number(match[1].replace(/,/g, "")) * UNIT[match[2] || ""] : null;
}

async function main() {
  if (process.argv.length !== 7) {
    fail("usage: check_timeline.cjs VPROF TRACE_WRITER CHROMIUM NODE_MODULES OUT_DIR");
  }
  const [vprof, traceWriter, chromium, nodeModules, outDir] = process.argv.slice(2);
  if (!chromium) fail("Chromium was not found when the build was configured: run scripts/bootstrap.sh");
  let playwright;
  try {
    playwright = require(path.join(nodeModules, "playwright-core"));
  } catch (e) {
    fail("playwright-core not found in " + nodeModules + ": run scripts/bootstrap.sh (npm ci)");
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "vprof-timeline-"));
  const page_file = path.join(scratch, "report.html");
  execFileSync(traceWriter, [scratch]);
  execFileSync(vprof, ["report", scratch, "--format", "html", "--warmup", "1", "--output", page_file]);
  // The same steps from the JSON report, another writer: what the rank × step view must show.
  const reported = JSON.parse(execFileSync(vprof, ["report", scratch, "--format", "json", "--warmup", "1"], { maxBuffer: 1 << 28 }));
  fs.mkdirSync(outDir, { recursive: true });

  const browser = await playwright.chromium.launch({ executablePath: chromium, args: ["--no-sandbox"] });
  const problems = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 }, deviceScaleFactor: 1 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto("file://" + page_file);
    if (errors.length) fail("the page threw: " + errors.join("; "));
    const section = await page.$("#step-timeline");
    if (!section) fail("the page has no #step-timeline section");

    // Spans by rank and kind.
    const drawn = await page.evaluate(() => window.vprofTimeline.spans());
    for (const rank of [0, 1]) {
      const counts = {};
      for (const s of drawn.filter((s) => s.rank === rank)) counts[s.kind] = (counts[s.kind] || 0) + 1;
      if (JSON.stringify(counts, Object.keys(KIND_COUNTS)) !== JSON.stringify(KIND_COUNTS)) {
        problems.push(`rank ${rank}: spans by kind ${JSON.stringify(counts)}, expected ${JSON.stringify(KIND_COUNTS)}`);
      }
    }

    // The plot: the time axis's domain line runs from time 0 to the domain's end.
    const axis = await page.evaluate(() => {
      const box = document.querySelector("#vprof-timeline svg path.domain").getBoundingClientRect();
      return { left: box.left + window.scrollX, width: box.width };
    });
    async function check(zoom) {
      const [from, to] = await page.evaluate(() => window.vprofTimeline.domain());
      const wantLength = DOMAIN_US * 1000 / zoom;
      if (Math.abs((to - from) - wantLength) > 1) {
        problems.push(`zoom ${zoom}: domain ${from}..${to} ns, expected ${wantLength} ns long`);
      }
      const pxPerNs = axis.width / (to - from);
      const shot = path.join(outDir, `timeline-zoom-${zoom}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      const png = decodePng(fs.readFileSync(shot));
      const now = await page.evaluate(() => window.vprofTimeline.spans());
      for (const rank of [0, 1]) {
        for (const want of SPANS) {
          const span = now.find((s) => s.rank === rank && s.id === want.id);
          if (!span) { problems.push(`rank ${rank}: no span ${want.id}`); continue; }
          const start = (want.start + 5 * rank) * 1000;
          const left = axis.left + (start - from) * pxPerNs;
          const width = Math.max(1, want.duration * 1000 * pxPerNs);
          if (Math.abs(span.left - left) > 1.5 || Math.abs(span.width - width) > 1.5) {
            problems.push(`zoom ${zoom}, rank ${rank}, ${want.id}: at ${span.left.toFixed(1)} px, ` +
              `${span.width.toFixed(1)} wide; expected ${left.toFixed(1)}, ${width.toFixed(1)}`);
          }
          const visibleLeft = Math.max(span.left, axis.left), visibleRight = Math.min(span.left + span.width, axis.left + axis.width);
          if (visibleRight - visibleLeft < 2) continue;  // zoomed out of view
          const colour = png.pixel(Math.floor((visibleLeft + visibleRight) / 2), Math.floor(span.top + span.height / 2));
          if (colour !== want.colour) {
            problems.push(`zoom ${zoom}, rank ${rank}, ${want.id}: screenshot shows ${colour} at its centre, expected ${want.colour}`);
          }
        }
      }
      console.log(`zoom ${zoom}: ${now.length} spans, screenshot ${shot}`);
    }
    await check(1);
    await page.click("#step-timeline button[data-zoom=in]");
    await check(4);

    // Back to the whole step, where the memcpy's tooltip names its export id.
    await page.click("#step-timeline button[data-zoom=reset]");
    await page.locator('rect.span[data-rank="0"][data-id="correlation:7"]').hover();
    const tip = await page.evaluate(() => {
      const t = document.getElementById("vprof-tooltip");
      return { shown: getComputedStyle(t).display !== "none", text: t.textContent };
    });
    if (!tip.shown || !tip.text.includes("export id: correlation:7") || !tip.text.includes("memcpy")) {
      problems.push(`hovering the memcpy: tooltip ${JSON.stringify(tip)}`);
    }

    // The rank × step view: a cell per rank and measured step, each the JSON report's window,
    // its lateness the step's start after the earliest rank's; the longest window the darkest.
    const earliest = {};
    for (const rank of reported.steps.ranks) {
      for (const step of rank.steps) earliest[step.step] = Math.min(earliest[step.step] ?? Infinity, step.start_ns);
    }
    const grid = await page.evaluate(() => window.vprofHeatmap.size());
    const measured = Object.keys(earliest).length;
    if (grid.ranks !== reported.steps.ranks.length || grid.steps !== measured) {
      problems.push(`rank × step view ${JSON.stringify(grid)}, the report has ${reported.steps.ranks.length} ranks and ${measured} steps`);
    }
    const columns = Object.keys(earliest).map(Number).sort((a, b) => a - b);
    let latest = null, first = null;  // the cells of the most and the least lateness
    for (const [r, rank] of reported.steps.ranks.entries()) {
      for (const step of rank.steps) {
        const s = columns.indexOf(step.step);
        const lateness = step.start_ns - earliest[step.step];
        if (!latest || lateness > latest.lateness) latest = { r, s, lateness };
        if (!first || lateness < first.lateness) first = { r, s, lateness };
        const cell = await page.evaluate(([r, s]) => window.vprofHeatmap.cell(r, s), [r, s]);
        if (cell.window !== step.times.window_ns || cell.lateness !== lateness) {
          problems.push(`cell (${r}, ${s}): ${JSON.stringify(cell)}, the report: window ${step.times.window_ns}, lateness ${lateness}`);
        }
      }
    }
    // Coloured by lateness: the latest cell the darkest colour, the earliest the lightest.
    if (!latest || latest.lateness === first.lateness) problems.push("the fixture's ranks begin their steps together: no lateness to draw");
    else {
      await page.$eval("#vprof-heatmap", (canvas) => canvas.scrollIntoView());
      await page.click('.heatmap-controls button[data-metric="lateness"]');
      const pixelOf = async (cell) => {
        const centre = await page.evaluate(([r, s]) => window.vprofHeatmap.cellCentre(r, s), [cell.r, cell.s]);
        const rgb = await page.evaluate(([x, y]) => {
          const canvas = document.getElementById("vprof-heatmap");
          const box = canvas.getBoundingClientRect();
          return Array.from(canvas.getContext("2d").getImageData(Math.floor(x - box.left), Math.floor(y - box.top), 1, 1).data.slice(0, 3));
        }, [centre.x, centre.y]);
        return { centre, rgb: rgb.join(",") };
      };
      const dark = await pixelOf(latest), light = await pixelOf(first);
      if (dark.rgb !== "8,48,107") problems.push(`the latest cell is ${dark.rgb}, not the darkest colour 8,48,107`);
      if (light.rgb !== "247,251,255") problems.push(`the earliest cell is ${light.rgb}, not the lightest 247,251,255`);
      await page.mouse.click(dark.centre.x, dark.centre.y);
      const said = await page.evaluate(() => document.getElementById("vprof-heatmap-detail").textContent);
      const rankName = reported.steps.ranks[latest.r].rank;
      const step = await page.evaluate(([r, s]) => window.vprofHeatmap.cell(r, s).step, [latest.r, latest.s]);
      if (!said.startsWith(`rank ${rankName}, step ${step}: window `) || !said.includes(` after the earliest rank`)) {
        problems.push(`a click on the latest cell says "${said}"`);
      }
    }

    // Every section has a title of its own.
    const titles = await page.evaluate(() => Array.from(document.querySelectorAll("h2")).map((h) => h.firstChild.textContent.trim()));
    const repeated = titles.filter((t, i) => titles.indexOf(t) !== i);
    if (repeated.length) problems.push(`sections with the same title: ${repeated.join(", ")}`);

    // A table's filter box keeps the rows that hold the text typed (any case), and only those.
    const filtered = await page.evaluate(() => {
      const table = Array.from(document.querySelectorAll("table.sortable")).find((t) => t.rows.length >= 4);
      if (!table) return null;
      const texts = Array.from(table.rows).slice(1).map((r) => r.textContent);
      const query = table.rows[1].cells[table.rows[1].cells.length - 1].textContent.trim().slice(0, 6);
      return { index: Array.from(document.querySelectorAll("table.sortable")).indexOf(table), query,
               expected: texts.filter((t) => t.toLowerCase().includes(query.toLowerCase())).length,
               rows: texts.length };
    });
    if (!filtered) problems.push("no table to filter");
    else {
      const box = (await page.$$("input.table-filter"))[filtered.index];
      if (!box) problems.push("no filter box before the sortable table " + filtered.index);
      else {
        await box.fill(filtered.query.toUpperCase());
        const shown = await page.evaluate((t) => Array.from(document.querySelectorAll("table.sortable")[t].rows).slice(1).filter((r) => !r.hidden).length, filtered.index);
        if (shown !== filtered.expected) problems.push(`filter "${filtered.query}": ${shown} rows shown, ${filtered.expected} hold it`);
        await box.fill("");
        const all = await page.evaluate((t) => Array.from(document.querySelectorAll("table.sortable")[t].rows).slice(1).filter((r) => !r.hidden).length, filtered.index);
        if (all !== filtered.rows) problems.push(`an empty filter shows ${all} of ${filtered.rows} rows`);
      }
    }

    // A table sorts by a clicked numeric column, both ways.
    const sorted = await page.evaluate(() => {
      for (const table of document.querySelectorAll("table.sortable")) {
        if (table.rows.length >= 4) return Array.from(document.querySelectorAll("table.sortable")).indexOf(table);
      }
      return -1;
    });
    if (sorted < 0) problems.push("no sortable table with 3 rows");
    else {
      const columnTexts = (column) => page.evaluate(([t, c]) => Array.from(document.querySelectorAll("table.sortable")[t].rows).slice(1).map((r) => r.cells[c].textContent), [sorted, column]);
      const headers = await page.evaluate((t) => Array.from(document.querySelectorAll("table.sortable")[t].rows[0].cells).map((c) => c.textContent), sorted);
      let column = -1;
      for (let c = 0; c < headers.length && column < 0; ++c) {
        const values = (await columnTexts(c)).map(figure);
        if (values.every((v) => v !== null) && new Set(values).size > 1) column = c;
      }
      if (column < 0) problems.push(`table ${sorted} (${headers.join(", ")}) has no column of differing figures`);
      else {
        const header = (await page.$$(`table.sortable >> nth=${sorted} >> tr >> nth=0 >> th`))[column];
        for (const [direction, ok] of [["ascending", (a, b) => a <= b], ["descending", (a, b) => a >= b]]) {
          await header.click();
          const values = (await columnTexts(column)).map(figure);
          if (!values.every((v, i) => i === 0 || ok(values[i - 1], v))) {
            problems.push(`column "${headers[column]}" after a click is not ${direction}: ${values}`);
          }
        }
      }
    }
  } finally {
    await browser.close();
  }
  if (problems.length) fail("\n  " + problems.join("\n  "));
  fs.rmSync(scratch, { recursive: true, force: true });
  console.log("reporter_render_timeline: OK");
}

main().catch((e) => fail(e.stack || String(e)));
