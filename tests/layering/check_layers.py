#!/usr/bin/env python3
"""The layering check: no folder includes a folder above it.

  check_layers.py ROOT        check the tree at ROOT (meson test `layering`)
  check_layers.py --self-test check the checker on trees made for it
                              (meson test `layering_checker`)

Every `#include "..."` line of the C++ files under the folders named below is
read. It fails, naming file, line and include, when
  - a file includes one of a higher layer (LAYERS, lowest first; a folder may
    include its own files and those of any layer below it);
  - the capture side (CAPTURE) includes the reporter or launch/, or those
    include the capture side (what both compile lies in common/);
  - within the capture side, the core includes a source or the top, or a
    source includes the top, or another source that SOURCE_INCLUDES does not
    let it include;
  - a C++ file of reporter/ or interpose/ lies in no layer's folder;
  - a file of reporter/, launch/, interpose/ or cupti/ names a project header
    other than from the top of the tree (the one include style: "interpose/core/log.h",
    not "log.h"; schema's generated headers keep their bare names).
An include is found from the top of the tree, then beside the file, then
among the generated headers (a .pb.h beside its .proto, GENERATED); one
found nowhere (a system or CUDA header) is not judged. CONTRIBUTING.md says
what each layer holds.
"""
import os
import re
import subprocess
import sys
import tempfile

# The layers, lowest first: the pipeline from the trace format to the command
# line. launch/ runs a program and then reports on it, so it is above the
# reporter's stages, and reporter/cli (which dispatches `vprof run` and
# `vprof slurm` to it) above launch/.
LAYERS = [
    # Rules both sides apply alike (UTF-8 repair, secret redaction, the deep-capture schedule):
    # owned by neither, it includes nothing else of the tree.
    "common",
    "schema",
    "reporter/base",
    "reporter/trace",
    "reporter/collectives",
    "reporter/gpu",
    "reporter/phases",
    "reporter/steps",
    "reporter/ingest",
    "reporter/model",
    "reporter/consistency",
    "reporter/replay",
    "reporter/candidates",
    "reporter/report",
    # The Summary's lines and the sentences it shares with the sections, chosen from a Report.
    "reporter/summary",
    # What every format shares, then one folder a format, then where the output goes.
    "reporter/render",
    "reporter/render/text",
    "reporter/render/json",
    "reporter/render/markdown",
    "reporter/render/html",
    "reporter/output",
    "reporter/node_summary",
    "reporter/export",
    "reporter/drift",
    "reporter/diff",
    "reporter/whatif",
    "launch",
    "reporter/cli",
]
# The capture side (libvprof.so), on its own: it includes schema, common and itself, nothing
# else. Inside it, three layers: the core (lowest); the sources beside one another (cupti/ among
# them, at the top of the tree: it knows interpose/ only through the core's registration
# interface); the top (interpose/ itself: the sources' table, the exported entry points and
# NCCL wrappers, which hand the table to the core's runtime), which may include them all.
# check_links.py holds the objects to the same rules at link time.
CAPTURE_CORE = "interpose/core"
CAPTURE_SOURCES = ["interpose/nccl", "interpose/nvtx", "interpose/nccl_plugin", "interpose/audit",
                   "cupti"]
CAPTURE_TOP = "interpose"
CAPTURE = [CAPTURE_CORE] + CAPTURE_SOURCES + [CAPTURE_TOP]
# The only includes from one source to another, each with its reason (no
# cycles).
SOURCE_INCLUDES = {
    # Fingerprints are of NCCL calls: the call's buffers and function ids.
    "interpose/audit": ["interpose/nccl"],
}
# Generated headers that are not a .pb.h beside their .proto: the folder
# whose meson.build makes them.
GENERATED = {
    "vprof_trace_fields.h": "schema/vprof_trace_fields.h",
    "common/vprof_build_info.h": "common/vprof_build_info.h",
}
# The headers schema/meson.build generates, included by bare name from either side.
SCHEMA_GENERATED = {"vprof_trace.pb.h", "vprof_trace_fields.h"}
SOURCE_SUFFIXES = (".h", ".cc", ".hpp", ".cpp", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    """The layer or capture folder holding `path` (relative to the root), or None."""
    best = None
    for folder in LAYERS + CAPTURE:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def resolve(root, including, name):
    """The include `name` of file `including`, relative to root; None when not in the tree."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    candidates = [os.path.normpath(name), beside]
    if "/" not in name:
        candidates.append("schema/" + name)
    for candidate in candidates:
        if candidate.startswith("..") or os.path.isabs(candidate):
            continue
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
        if candidate.endswith(".pb.h") and os.path.isfile(
                os.path.join(root, candidate[:-len(".pb.h")] + ".proto")):
            return candidate
    return GENERATED.get(name)


def source_files(root):
    """Files to read, relative to root: git's list in a checkout, else every file."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                cwd=root, capture_output=True, text=True, check=True).stdout
        paths = listed.split("\n")
    except (OSError, subprocess.CalledProcessError):
        paths = [os.path.relpath(os.path.join(folder, name), root)
                 for folder, _, names in os.walk(root) for name in names]
    return sorted(p for p in paths if p.endswith(SOURCE_SUFFIXES)
                  and os.path.isfile(os.path.join(root, p)))


def capture_rank(folder):
    """0 for the capture core, 1 for a source, 2 for the top."""
    return 0 if folder == CAPTURE_CORE else 2 if folder == CAPTURE_TOP else 1


def judge_capture(including_folder, included_folder):
    """Why one capture folder may not include another; None when it may."""
    if capture_rank(included_folder) < capture_rank(including_folder):
        return None
    if capture_rank(included_folder) > capture_rank(including_folder):
        return f"{including_folder} may not include {included_folder}, a higher layer"
    if included_folder in SOURCE_INCLUDES.get(including_folder, []):
        return None
    return (f"{including_folder} may not include {included_folder}, another source "
            "(check_layers.py SOURCE_INCLUDES)")


def judge(including_folder, included_folder, included):
    """Why the include is not allowed; None when it is."""
    if included_folder is None or included_folder == including_folder:
        return None
    if including_folder == "common":
        return f"common includes nothing else of the tree ({included_folder})"
    if including_folder in CAPTURE:
        if included_folder in ("schema", "common"):
            return None
        if included_folder in CAPTURE:
            return judge_capture(including_folder, included_folder)
        return f"the capture side ({including_folder}) may not include {included_folder}"
    if included_folder in CAPTURE:
        return f"{including_folder} may not include the capture side ({included_folder})"
    if LAYERS.index(included_folder) > LAYERS.index(including_folder):
        return f"{including_folder} may not include {included_folder}, a higher layer"
    return None


def check(root):
    """One line per include that breaks the layering, and per misplaced file."""
    problems = []
    for path in source_files(root):
        folder = folder_of(path)
        if folder is None:
            if path.startswith("reporter/"):
                problems.append(f"{path}: in no layer's folder (check_layers.py LAYERS)")
            continue
        if folder == CAPTURE_TOP and "/" in path[len(CAPTURE_TOP) + 1:]:
            problems.append(f"{path}: in no layer's folder (check_layers.py CAPTURE)")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                included = resolve(root, path, match.group(1))
                if included is None:
                    continue
                why = judge(folder, folder_of(included), included)
                if not why and included != os.path.normpath(match.group(1)) \
                        and match.group(1) not in SCHEMA_GENERATED:
                    why = f"write it from the top of the tree: \"{included}\""
                if why:
                    problems.append(f'{path}:{number}: #include "{match.group(1)}": {why}')
    return problems


def self_test():
    """Checks the checker: a tree that keeps the rules passes, each break is named."""
    good = {
        "schema/vprof_trace.proto": "",
        "reporter/base/units.h": "",
        "reporter/base/units.cc": '#include "reporter/base/units.h"\n',
        "reporter/base/valid_utf8.cc": '#include "common/utf8_repair.h"\n',
        "reporter/trace/trace_reader.h": '#include "vprof_trace.pb.h"\n#include <string>\n',
        "reporter/render/text/text_page.cc":
            '#include "reporter/base/units.h"\n#include "reporter/trace/trace_reader.h"\n'
            '#include "nccl.h"\n',
        "reporter/node_summary/node_summary.proto": "",
        "reporter/node_summary/summary_file.h": '#include "reporter/node_summary/node_summary.pb.h"\n',
        "launch/run_command.cc": '#include "reporter/render/text/text_page.h"\n'
                                 '#include "common/vprof_build_info.h"\n',
        "reporter/cli/cli.cc": '#include "launch/run_command.h"\n',
        "launch/run_command.h": "",
        "reporter/render/text/text_page.h": "",
        "reporter/render/json/json_page.h": "",
        "common/utf8_repair.h": "",
        "common/utf8_repair.cc": '#include "common/utf8_repair.h"\n',
        "interpose/core/log.h": "",
        "interpose/core/trace_writer.cc":
            '#include "interpose/core/log.h"\n#include "vprof_trace_fields.h"\n'
            '#include "common/utf8_repair.h"\n',
        "interpose/nccl/nccl_calls.h": "",
        "interpose/audit/collective_audit.h":
            '#include "interpose/nccl/nccl_calls.h"\n#include "interpose/core/log.h"\n',
        "cupti/gpu_capture.h": "",
        "cupti/gpu_capture.cc":
            '#include "interpose/core/log.h"\n#include "cupti/gpu_capture.h"\n',
        "interpose/sources.h": "",
        "interpose/sources.cc": '#include "interpose/sources.h"\n#include "cupti/gpu_capture.h"\n'
                              '#include "interpose/audit/collective_audit.h"\n'
                              '#include "interpose/core/log.h"\n',
        "tests/reporter/test_units.cc": '#include "reporter/cli/cli.h"\n',
    }
    bad = {
        "reporter/base/units.cc": '#include "reporter/base/units.h"\n'
                                  '  #  include "reporter/render/text/text_page.h"\n',
        "reporter/trace/trace_reader.cc": '#include "reporter/node_summary/node_summary.pb.h"\n',
        "reporter/render/text/text_page.cc": '#include "launch/run_command.h"\n',
        "launch/launch.cc": '#include "interpose/core/log.h"\n',
        "interpose/core/trace_writer.cc": '#include "reporter/base/units.h"\n',
        "interpose/core/log.cc": '#include "cupti/gpu_capture.h"\n',
        "interpose/nccl/nccl_calls.cc": '#include "interpose/audit/collective_audit.h"\n',
        "cupti/gpu_capture.cc": '#include "interpose/sources.h"\n',
        "cupti/launch_cost.cc": '#include "interpose/audit/collective_audit.h"\n',
        "interpose/nvtx/nvtx_callbacks.cc": '#include "../core/log.h"\n',
        "interpose/core/settings.cc": '#include "settings.h"\n',
        "interpose/core/settings.h": "",
        "interpose/stray/stray.cc": "",
        "common/utf8_repair.cc": '#include "common/utf8_repair.h"\n#include "interpose/core/log.h"\n',
        "reporter/stray.cc": "",
        "reporter/render/page_sections.cc": '#include "reporter/render/json/json_page.h"\n',
    }
    expected = [
        'common/utf8_repair.cc:2: #include "interpose/core/log.h": common includes nothing else '
        "of the tree (interpose/core)",
        'cupti/gpu_capture.cc:1: #include "interpose/sources.h": cupti may not include '
        "interpose, a higher layer",
        'cupti/launch_cost.cc:1: #include "interpose/audit/collective_audit.h": cupti may not '
        "include interpose/audit, another source (check_layers.py SOURCE_INCLUDES)",
        'interpose/core/log.cc:1: #include "cupti/gpu_capture.h": interpose/core may not '
        "include cupti, a higher layer",
        'interpose/core/settings.cc:1: #include "settings.h": write it from the top of the tree: '
        '"interpose/core/settings.h"',
        'interpose/core/trace_writer.cc:1: #include "reporter/base/units.h": the capture side '
        "(interpose/core) may not include reporter/base",
        'interpose/nccl/nccl_calls.cc:1: #include "interpose/audit/collective_audit.h": '
        "interpose/nccl may not include interpose/audit, another source (check_layers.py "
        "SOURCE_INCLUDES)",
        'interpose/nvtx/nvtx_callbacks.cc:1: #include "../core/log.h": write it from the top of '
        'the tree: "interpose/core/log.h"',
        "interpose/stray/stray.cc: in no layer's folder (check_layers.py CAPTURE)",
        'launch/launch.cc:1: #include "interpose/core/log.h": launch may not include the capture '
        "side (interpose/core)",
        'reporter/base/units.cc:2: #include "reporter/render/text/text_page.h": reporter/base may '
        "not include reporter/render/text, a higher layer",
        'reporter/render/page_sections.cc:1: #include "reporter/render/json/json_page.h": '
        "reporter/render may not include reporter/render/json, a higher layer",
        'reporter/render/text/text_page.cc:1: #include "launch/run_command.h": reporter/render/text '
        "may not include launch, a higher layer",
        "reporter/stray.cc: in no layer's folder (check_layers.py LAYERS)",
        'reporter/trace/trace_reader.cc:1: #include "reporter/node_summary/node_summary.pb.h": '
        "reporter/trace may not include reporter/node_summary, a higher layer",
    ]
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-layers-") as scratch:
        for name, files in (("good", good), ("bad", {**good, **bad})):
            for path, text in files.items():
                os.makedirs(os.path.join(scratch, name, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(scratch, name, path), "w") as out:
                    out.write(text)
        got = check(os.path.join(scratch, "good"))
        if got:
            failures.append("a tree that keeps the rules was refused:\n  " + "\n  ".join(got))
        got = check(os.path.join(scratch, "bad"))
        if got != expected:
            failures.append("on a tree that breaks them, expected:\n  " + "\n  ".join(expected)
                            + "\ngot:\n  " + "\n  ".join(got))
        # The command itself: exit status 1 and the lines on stderr.
        run = subprocess.run([sys.executable, os.path.abspath(__file__),
                              os.path.join(scratch, "bad")], capture_output=True, text=True)
        if run.returncode != 1 or any(line not in run.stderr for line in expected):
            failures.append(f"check_layers.py on the bad tree exited {run.returncode} with:\n"
                            + run.stderr)
    for failure in failures:
        print("check_layers self-test: " + failure, file=sys.stderr)
    if not failures:
        print(f"check_layers self-test: passed ({len(expected)} breaks named, a good tree kept)")
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"layering: {len(problems)} problem(s); layers, lowest first: "
              + " < ".join(LAYERS) + "; capture: " + CAPTURE_CORE + " < "
              + ", ".join(CAPTURE_SOURCES) + " < " + CAPTURE_TOP + " (CONTRIBUTING.md)",
              file=sys.stderr)
        return 1
    print("layering: every include goes to its own folder or a lower layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
