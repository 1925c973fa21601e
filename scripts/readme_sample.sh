#!/usr/bin/env bash
# Regenerates what the README shows of a report, from the demo's simulated job (the one
# scripts/demo.sh runs without GPUs: scripts/demo_job.sh), so that neither drifts from what vprof
# prints:
#   - the text report's Summary, between the README's lines
#       <!-- readme-sample:begin ... -->  and  <!-- readme-sample:end -->
#   - what `vprof whatif vprof-demo --no-straggler` prints, between
#       <!-- readme-whatif:begin ... -->  and  <!-- readme-whatif:end -->
#   - docs/images/report.png, the top of the job's HTML report (`--format html`) as headless
#     Chromium draws it at 1200 x 1100 px (as tests/reporter/render/check_screenshot.py does),
#     kept under 300 KB. Without Chromium (scripts/bootstrap.sh installs it) the picture is left
#     as it is, and the script says so.
# It builds only what the demo runs (scripts/build.sh build --targets ...) and writes nothing but
# README.md and the picture; the job's traces go to a temporary folder.
#   usage: scripts/readme_sample.sh                       build build/'s demo targets, then regenerate
#          scripts/readme_sample.sh --no-build BUILD_DIR  use BUILD_DIR's vprof and stand-ins as they are
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/demo_job.sh

if [[ "${1:-}" == --no-build ]]; then
  build="${2:?usage: scripts/readme_sample.sh [--no-build BUILD_DIR]}"
else
  build=build
  scripts/build.sh build --targets "${DEMO_TARGETS[@]}"
fi
build=$(cd "$build" && pwd)
repo=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# In the temporary folder, so that the report names its run folder as the demo's: vprof-demo.
cd "$scratch"
run_demo_job "$build" vprof-demo >/dev/null
for command in "report vprof-demo" "whatif vprof-demo --no-straggler"; do
  status=0
  # shellcheck disable=SC2086  # the command's words
  "$build/reporter/vprof" $command >"${command%% *}.txt" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "readme_sample.sh: vprof $command exited $status; the README is left as it is" >&2
    exit 1
  fi
done

python3 - report.txt whatif.txt "$repo/README.md" <<'PY'
import sys
report, whatif, readme = sys.argv[1:4]
lines = open(report, encoding="utf-8").read().splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith("Summary"))
end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
answer = open(whatif, encoding="utf-8").read().splitlines()
text = open(readme, encoding="utf-8").read()
for name, sample in (("readme-sample", lines[start:end]), ("readme-whatif", answer)):
    begin = text.find(f"<!-- {name}:begin")
    begin_end = text.find("-->", begin) + len("-->")
    finish = text.find(f"<!-- {name}:end -->")
    if begin < 0 or finish < begin:
        sys.exit(f"readme_sample.sh: {readme} lacks the {name}:begin/end markers")
    text = text[:begin_end] + "\n```text\n" + "\n".join(sample).rstrip() + "\n```\n" + text[finish:]
open(readme, "w", encoding="utf-8").write(text)
print(f"readme_sample.sh: the Summary ({end - start} lines) and the whatif answer written into "
      f"{readme}")
PY

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "readme_sample.sh: no chromium (scripts/bootstrap.sh installs it); docs/images/report.png" \
       "is left as it is" >&2
  exit 0
fi
"$build/reporter/vprof" report vprof-demo --format html --output report.html 2>/dev/null || true
timeout 150 "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars \
  --force-device-scale-factor=1 --no-first-run --user-data-dir="$scratch/profile" \
  --window-size=1200,1100 --screenshot="$scratch/report.png" "file://$scratch/report.html" \
  >/dev/null 2>&1 || true
if [[ ! -s report.png ]]; then
  echo "readme_sample.sh: Chromium wrote no screenshot; docs/images/report.png is left as it is" >&2
  exit 1
fi
size=$(stat -c %s report.png)
if ((size > 300 * 1024)); then
  echo "readme_sample.sh: the screenshot is $size bytes, over 300 KB; docs/images/report.png" \
       "is left as it is" >&2
  exit 1
fi
mkdir -p "$repo/docs/images"
cp report.png "$repo/docs/images/report.png"
echo "readme_sample.sh: docs/images/report.png written ($size bytes)"
