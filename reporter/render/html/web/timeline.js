// The HTML report's interactive step timeline (html_timeline.h writes its
// data and inlines d3 before this script). One SVG: per rank a label row,
// then its lanes; one time axis for all ranks, zoomed and panned with d3-zoom.
// window.vprofTimeline lets a test (and a curious reader's console) ask what
// is drawn where.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("vprof-timeline-data").textContent);
  const root = document.getElementById("vprof-timeline");
  const tooltip = document.getElementById("vprof-tooltip");
  const LABEL_PX = 200, LANE_PX = 14, LANE_GAP_PX = 3, RANK_HEAD_PX = 18, AXIS_PX = 24;
  const width = Math.max(900, Math.min(root.clientWidth || 1100, 1600));
  const plotWidth = width - LABEL_PX - 10;

  function duration(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns + " ns";
    if (a < 1e6) return (ns / 1e3).toFixed(a < 1e4 ? 2 : 1) + " µs";
    if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 2 : 1) + " ms";
    return (ns / 1e9).toFixed(2) + " s";
  }

  // Rows top to bottom: each rank's head, then its lanes.
  let y = AXIS_PX;
  const rows = data.ranks.map((rank) => {
    const top = y;
    y += RANK_HEAD_PX;
    const laneTop = rank.lanes.map((_, i) => y + i * (LANE_PX + LANE_GAP_PX));
    y += rank.lanes.length * (LANE_PX + LANE_GAP_PX) + 8;
    return { rank, top, laneTop, bottom: y - 8 };
  });
  const height = y + 4;
  let end = 1;
  for (const rank of data.ranks) end = Math.max(end, rank.window_end);
  const x0 = d3.scaleLinear().domain([0, end]).range([0, plotWidth]);
  let x = x0;

  const svg = d3.select(root).append("svg")
    .attr("width", width).attr("height", height)
    .attr("font-family", "sans-serif").attr("font-size", 11);
  svg.append("defs").append("clipPath").attr("id", "vprof-plot-clip")
    .append("rect").attr("x", 0).attr("y", 0).attr("width", plotWidth).attr("height", height);
  const labels = svg.append("g");
  for (const row of rows) {
    let head = row.rank.label;
    if (row.rank.left_out > 0) {
      head += " (" + row.rank.left_out + " spans of at most " +
        duration(row.rank.longest_left_out) + " not drawn)";
    }
    labels.append("text").attr("x", 4).attr("y", row.top + 13)
      .attr("font-weight", "bold").text(head);
    row.rank.lanes.forEach((lane, i) => {
      labels.append("text").attr("x", 14).attr("y", row.laneTop[i] + LANE_PX - 3).text(lane);
    });
  }
  const plot = svg.append("g").attr("transform", "translate(" + LABEL_PX + ",0)");
  const axis = plot.append("g").attr("transform", "translate(0," + (AXIS_PX - 4) + ")");
  const clipped = plot.append("g").attr("clip-path", "url(#vprof-plot-clip)");
  const windows = clipped.selectAll("rect.window").data(rows).join("rect")
    .attr("class", "window").attr("fill", "none").attr("stroke", "#424242")
    .attr("stroke-dasharray", "3,2")
    .attr("y", (row) => row.top + RANK_HEAD_PX - 2)
    .attr("height", (row) => row.bottom - row.top - RANK_HEAD_PX + 2);

  const spans = [];
  rows.forEach((row, r) => {
    for (const [lane, kind, start, dur, name, id] of row.rank.spans) {
      spans.push({ rank: r, lane, kind, start, dur, name, id, y: row.laneTop[lane] });
    }
  });
  const rects = clipped.selectAll("rect.span").data(spans).join("rect")
    .attr("class", "span")
    .attr("data-rank", (s) => s.rank)
    .attr("data-kind", (s) => data.kinds[s.kind].name)
    .attr("data-id", (s) => s.id)
    .attr("y", (s) => s.y).attr("height", LANE_PX)
    .attr("fill", (s) => data.kinds[s.kind].colour);

  function draw() {
    axis.call(d3.axisTop(x).ticks(Math.floor(plotWidth / 90))
      .tickFormat((ns) => duration(Math.round(ns))));
    windows.attr("x", (row) => x(row.rank.window_start))
      .attr("width", (row) => Math.max(1, x(row.rank.window_end) - x(row.rank.window_start)));
    // At least a pixel wide, so the shortest kernel stays visible.
    rects.attr("x", (s) => x(s.start))
      .attr("width", (s) => Math.max(1, x(s.start + s.dur) - x(s.start)));
  }

  const zoom = d3.zoom().scaleExtent([1, 1e6])
    .extent([[0, 0], [plotWidth, height]])
    .translateExtent([[0, 0], [plotWidth, height]])
    .on("zoom", (event) => {
      x = event.transform.rescaleX(x0);
      draw();
    });
  svg.call(zoom).on("dblclick.zoom", null);
  svg.on("dblclick", () => svg.call(zoom.transform, d3.zoomIdentity));

  for (const button of document.querySelectorAll("#step-timeline button[data-zoom]")) {
    button.addEventListener("click", () => {
      const how = button.getAttribute("data-zoom");
      if (how === "reset") svg.call(zoom.transform, d3.zoomIdentity);
      else svg.call(zoom.scaleBy, how === "in" ? 4 : 0.25, [plotWidth / 2, height / 2]);
    });
  }

  rects.on("mouseover", (event, s) => {
    const rank = data.ranks[s.rank];
    const lines = [
      s.name,
      data.kinds[s.kind].name + " on " + rank.label + ", " + rank.lanes[s.lane],
      "starts " + duration(s.start - rank.window_start) + " into the window, lasts " +
        duration(s.dur),
    ];
    if (s.id) lines.push("export id: " + s.id);
    tooltip.textContent = lines.join("\n");
    tooltip.style.display = "block";
    tooltip.style.left = event.pageX + 12 + "px";
    tooltip.style.top = event.pageY + 12 + "px";
  }).on("mouseout", () => { tooltip.style.display = "none"; });

  draw();

  window.vprofTimeline = {
    // What is drawn now: each span's place in page pixels.
    spans() {
      return rects.nodes().map((node) => {
        const box = node.getBoundingClientRect();
        return {
          rank: Number(node.getAttribute("data-rank")),
          kind: node.getAttribute("data-kind"),
          id: node.getAttribute("data-id"),
          left: box.left + window.scrollX,
          top: box.top + window.scrollY,
          width: box.width,
          height: box.height,
        };
      });
    },
    // The time domain on screen, ns from the earliest window's start.
    domain() { return x.domain(); },
  };
})();
