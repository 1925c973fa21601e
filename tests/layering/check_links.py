#!/usr/bin/env python3
"""The layering check at link time: no capture object calls up.

  check_links.py BUILD ROOT   check the capture side's objects of the build at
                              BUILD, whose sources are at ROOT (meson test
                              `link_layering`)
  check_links.py --self-test  check the checker on objects compiled for it
                              (meson test `link_layering_checker`)

check_layers.py judges the includes; a declaration can still be written by
hand, or a header of a lower folder can declare what a higher one defines,
and then the lower layer calls up at link time. This reads the objects of the
capture side (compile_commands.json names each one's source), lists with nm
what each defines and what it leaves undefined, and fails, naming the caller,
the symbol and where it is defined, when an object uses a symbol that an
object of a folder it may not include defines (the same rules as the
includes: the core calls no source and not the top, a source not the top and
only the sources SOURCE_INCLUDES lets it include, common/ nothing of the
capture side). Only strong definitions count: an inline function or template
that each object compiles for itself is not a call between them.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import CAPTURE, folder_of, judge  # noqa: E402

# nm's letters of the definitions another object can link to.
STRONG = set("TDBRGS")


def capture_objects(build, root):
    """{object path: source path relative to root} for the capture side's objects."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    objects = {}
    for entry in commands:
        directory = entry["directory"]
        source = os.path.normpath(os.path.join(directory, entry["file"]))
        output = os.path.normpath(os.path.join(directory, entry["output"]))
        # A source generated into the build lies at the same path as in the tree.
        base = root if source.startswith(os.path.abspath(root) + os.sep) else build
        relative = os.path.relpath(source, base)
        if relative.startswith("tests/") or not output.startswith(
                os.path.join(os.path.abspath(build), "interpose") + os.sep):
            continue
        if folder_of(relative) in CAPTURE + ["common"] and os.path.isfile(output):
            objects[output] = relative
    return objects


def symbols(obj):
    """(defined strongly, undefined) symbol names of one object, demangled."""
    lines = subprocess.run(["nm", "-C", obj], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    defined, undefined = set(), set()
    for line in lines:
        parts = line.split(None, 2) if not line.startswith(" ") else ["", *line.split(None, 1)]
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        if kind == "U":
            undefined.add(name)
        elif kind in STRONG:
            defined.add(name)
    return defined, undefined


def check(build, root):
    """One line per call from an object to a symbol of a layer it may not reach."""
    objects = capture_objects(build, root)
    if not objects:
        return [f"{build}: no object of the capture side found (built?)"]
    definer = {}
    uses = {}
    for obj, source in objects.items():
        defined, undefined = symbols(obj)
        for name in defined:
            definer.setdefault(name, source)
        uses[source] = undefined
    problems = []
    for source, undefined in sorted(uses.items()):
        for name in sorted(undefined):
            where = definer.get(name)
            if where is None:
                continue
            why = judge(folder_of(source), folder_of(where), where)
            if why:
                problems.append(f"{source} uses {name}, defined in {where}: {why}")
    return problems


def self_test():
    """Checks the checker: objects that keep the rules pass, an upward call is named."""
    compiler = os.environ.get("CXX", "c++")
    if not shutil.which(compiler):
        print(f"no C++ compiler ({compiler}) to build the self-test's objects", file=sys.stderr)
        return 1
    tree = {
        "interpose/core/runtime.cc": "namespace vprof { void Flush() {} void Start(); "
                                   "void Init() { Start(); } }\n",
        "cupti/gpu_capture.cc": "namespace vprof { void Flush(); inline int Twice(int x)"
                                        " { return 2 * x; } void Start() { Flush(); Twice(1); } }\n",
        "interpose/nvtx/nvtx_callbacks.cc": "namespace vprof { inline int Twice(int x) "
                                          "{ return 2 * x; } int Attach() { return Twice(2); } }\n",
        "interpose/sources.cc": "namespace vprof { void Start(); int Attach(); "
                              "void Table() { Start(); Attach(); } }\n",
    }
    expected = [
        "interpose/core/runtime.cc uses vprof::Start(), defined in cupti/gpu_capture.cc: "
        "interpose/core may not include cupti, a higher layer",
    ]
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-links-") as scratch:
        root, build = os.path.join(scratch, "src"), os.path.join(scratch, "build")
        commands = []
        for path, text in tree.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as out:
                out.write(text)
            output = "interpose/libvprof_capture.a.p/" + path.replace("/", "_") + ".o"
            os.makedirs(os.path.join(build, os.path.dirname(output)), exist_ok=True)
            # -O0: the inline function is compiled into each object as a weak definition.
            subprocess.run([compiler, "-O0", "-c", os.path.join(root, path), "-o",
                            os.path.join(build, output)], check=True)
            commands.append({"directory": build, "file": os.path.join("..", "src", path),
                             "output": output})
        with open(os.path.join(build, "compile_commands.json"), "w") as out:
            json.dump(commands, out)
        got = check(build, root)
        if got != expected:
            failures.append("expected:\n  " + "\n  ".join(expected) + "\ngot:\n  "
                            + "\n  ".join(got))
        os.remove(os.path.join(build, "interpose/libvprof_capture.a.p/interpose_core_runtime.cc.o"))
        with open(os.path.join(root, "interpose/core/runtime.cc"), "w") as out:
            out.write("namespace vprof { void Flush() {} }\n")
        subprocess.run([compiler, "-O0", "-c", os.path.join(root, "interpose/core/runtime.cc"),
                        "-o", os.path.join(build, "interpose/libvprof_capture.a.p/interpose_core_runtime.cc.o")],
                       check=True)
        got = check(build, root)
        if got:
            failures.append("objects that keep the rules were refused:\n  " + "\n  ".join(got))
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(os.path.abspath(argv[1]), os.path.abspath(argv[2]))
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
