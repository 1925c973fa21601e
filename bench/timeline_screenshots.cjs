#!/usr/bin/env node
// Screenshots of an HTML report's step timeline, whole and zoomed in 16×
// around its middle: what bench/RESULTS.md shows of a real run's page.
// Uses Chromium and playwright-core as the browser test does.
//
// Usage: node bench/timeline_screenshots.cjs REPORT.html OUT_PREFIX
// writes OUT_PREFIX-whole.png and OUT_PREFIX-zoom16.png.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "../reporter/render/html/web/node_modules/playwright-core"));

(async () => {
  const [page_file, prefix] = process.argv.slice(2);
  if (!prefix) {
    console.error("usage: node bench/timeline_screenshots.cjs REPORT.html OUT_PREFIX");
    process.exit(2);
  }
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 }, deviceScaleFactor: 1 });
  await page.goto("file://" + path.resolve(page_file));
  const section = await page.$("#step-timeline");
  if (!section) {
    console.error(page_file + " has no step timeline");
    process.exit(1);
  }
  await section.screenshot({ path: prefix + "-whole.png" });
  await page.click("#step-timeline button[data-zoom=in]");
  await page.click("#step-timeline button[data-zoom=in]");
  await section.screenshot({ path: prefix + "-zoom16.png" });
  const [from, to] = await page.evaluate(() => window.vprofTimeline.domain());
  const spans = await page.evaluate(() => window.vprofTimeline.spans().length);
  console.log(`${spans} spans; zoomed to ${(from / 1e6).toFixed(3)}-${(to / 1e6).toFixed(3)} ms`);
  await browser.close();
})();
