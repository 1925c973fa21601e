#!/usr/bin/env python3
"""The screenshot test of the HTML report.

Writes the sample report's page with render_screenshot_page, screenshots it
in headless Chromium, decodes the PNG with the standard library only and
checks the charts by pixel colour: each expected bar must appear on some
pixel row as runs of its colours, edge to edge, filling the bar's width, each
run within 2 px of its expected fraction of it; the strict-tag colours of the
candidates table must appear; the page must not be blank.

Usage: check_screenshot.py RENDER_SCREENSHOT_PAGE CHROMIUM
(CHROMIUM empty: Chromium was not found when the build was configured.)
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

WINDOW = (1200, 2600)
TOLERANCE_PX = 2
TAG_MIN_PIXELS = 100  # a table cell is far larger


def fail(message):
    print("reporter_render_screenshot: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(path):
    """Rows of pixels as bytes of RGB triples, from an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length, kind) = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        fail(f"{path} has no IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        fail(f"{path}: expected 8-bit RGB or RGBA, not interlaced; got depth {depth}, "
             f"colour type {colour_type}, interlace {interlace}")
    bpp = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upper_left = previous[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, previous[i], upper_left)) & 0xFF
        elif kind != 0:
            fail(f"{path}: row {y} has unknown filter type {kind}")
        previous = line
        if bpp == 4:
            rows.append(bytes(b for i, b in enumerate(line) if i % 4 != 3))
        else:
            rows.append(bytes(line))
    return width, height, rows


def runs(row):
    """The row as [colour bytes, start, length] runs of equal pixels."""
    result = []
    for x in range(0, len(row) // 3):
        colour = row[3 * x:3 * x + 3]
        if result and result[-1][0] == colour:
            result[-1][2] += 1
        else:
            result.append([colour, x, 1])
    return result


def colour_bytes(hex_colour):
    return bytes.fromhex(hex_colour.lstrip("#"))


def bar_rows(all_runs, bar, bar_px):
    """(row, run lengths) of every pixel row holding runs of the bar's colours,
    in order and edge to edge, that fill the bar's width."""
    colours = [colour_bytes(c) for c in bar["colours"]]
    n = len(colours)
    found = []
    for y, row_runs in enumerate(all_runs):
        for i in range(len(row_runs) - n + 1):
            window = row_runs[i:i + n]
            if [r[0] for r in window] != colours:
                continue
            lengths = [r[2] for r in window]
            if abs(sum(lengths) - bar_px) <= TOLERANCE_PX:
                found.append((y, lengths))
    return found


def main():
    if len(sys.argv) != 3:
        fail("usage: check_screenshot.py RENDER_SCREENSHOT_PAGE CHROMIUM")
    page_writer, chromium = sys.argv[1], sys.argv[2]
    if not chromium:
        fail("Chromium was not found when the build was configured; run scripts/bootstrap.sh "
             "(it installs the chromium package), then reconfigure the build (meson setup "
             "--reconfigure)")
    with tempfile.TemporaryDirectory(prefix="vprof-screenshot-") as scratch:
        page = os.path.join(scratch, "report.html")
        expected_path = os.path.join(scratch, "expected.json")
        screenshot = os.path.join(scratch, "report.png")
        subprocess.run([page_writer, page, expected_path], check=True)
        with open(expected_path) as f:
            expected = json.load(f)
        command = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                   "--force-device-scale-factor=1", "--no-first-run",
                   "--user-data-dir=" + os.path.join(scratch, "profile"),
                   f"--window-size={WINDOW[0]},{WINDOW[1]}", "--screenshot=" + screenshot,
                   "file://" + page]
        result = subprocess.run(command, capture_output=True, text=True, timeout=150)
        if not os.path.exists(screenshot):
            fail(f"Chromium wrote no screenshot (exit {result.returncode}):\n{result.stderr}")
        width, height, rows = decode_png(screenshot)

    if (width, height) != WINDOW:
        fail(f"screenshot is {width}x{height}, expected {WINDOW[0]}x{WINDOW[1]}")
    all_runs = [runs(row) for row in rows]

    counts = {}
    for row_runs in all_runs:
        for colour, _, length in row_runs:
            counts[colour] = counts.get(colour, 0) + length
    white = counts.get(b"\xff\xff\xff", 0)
    if white > 0.99 * width * height or len(counts) < 10:
        fail(f"the page looks blank: {white} of {width * height} pixels white, "
             f"{len(counts)} distinct colours")

    problems = []
    bar_px = expected["bar_px"]
    for bar in expected["bars"]:
        wanted = [f * bar_px for f in bar["fractions"]]
        found = bar_rows(all_runs, bar, bar_px)
        # Other bars may use the same colours (rank 0's timeline and
        # measured-steps bars): the expected bar is any row that matches.
        matches = [(y, lengths) for y, lengths in found
                   if all(abs(length - want) <= TOLERANCE_PX
                          for length, want in zip(lengths, wanted))]
        if matches:
            print(f"{bar['what']}: row {matches[0][0]}, runs {matches[0][1]} px, "
                  f"expected {[round(w, 1) for w in wanted]}")
            continue
        seen = sorted({tuple(lengths) for _, lengths in found})
        problems.append(f"{bar['what']}: no pixel row has runs of {bar['colours']} of "
                        f"{[round(w, 1) for w in wanted]} px (± {TOLERANCE_PX}); rows with "
                        f"those colours filling {bar_px} px have runs {seen}")
    for colour in expected["tag_colours"]:
        pixels = counts.get(colour_bytes(colour), 0)
        print(f"strict tag colour {colour}: {pixels} px")
        if pixels < TAG_MIN_PIXELS:
            problems.append(f"strict tag colour {colour} covers {pixels} px, "
                            f"expected at least {TAG_MIN_PIXELS}")
    if problems:
        fail("\n  " + "\n  ".join(problems))
    print("reporter_render_screenshot: OK")


if __name__ == "__main__":
    main()
