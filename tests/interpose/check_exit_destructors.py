"""libvprof.so registers no destructor of its own objects to run at exit.

A namespace-scope object with a destructor has it registered with __cxa_atexit
by the object's static initialiser, after vprof's own exit handler was
registered (the library's constructor starts vprof first), so it runs first at
exit: the writer thread and the exit handler then use a destroyed object (a
vector of pending fingerprints was freed so, then written by the exit handler).
vprof's globals are LoadFirst<T> or trivially destructible instead. This reads
the library's static initialisers (_GLOBAL__sub_I_<source file>, and
_GLOBAL__sub_I.<priority>_<source file> for LoadFirst's) from objdump
and fails for any of vprof's source files that calls __cxa_atexit; the bundled
C++ runtime's own files are not vprof's.

Usage: check_exit_destructors.py OBJDUMP LIBVPROF SOURCE_ROOT"""
import os
import re
import subprocess
import sys

objdump, library, root = sys.argv[1:4]
sources = {name for folder in ("interpose", "cupti")
           for d, _, names in os.walk(os.path.join(root, folder)) for name in names
           if name.endswith(".cc")}
disassembly = subprocess.run([objdump, "-d", "--no-show-raw-insn", library], check=True,
                             capture_output=True, text=True).stdout
INITIALISER = re.compile(r"^[0-9a-f]+ <_GLOBAL__sub_I(?:_|\.\d+_)(.+?)(?:\.cold)?>:$")
registering = set()
current = None
for line in disassembly.splitlines():
    start = INITIALISER.match(line)
    if start:
        current = start.group(1)
    elif not line.strip():
        current = None
    elif current and "__cxa_atexit" in line:
        registering.add(current)
initialisers = {INITIALISER.match(line).group(1) for line in disassembly.splitlines()
                if INITIALISER.match(line)}
if not initialisers & sources:
    sys.exit(f"FAIL: no static initialiser of vprof's found in {library}: objdump's output "
             "or the initialisers' names changed?")
ours = sorted(registering & sources)
if ours:
    sys.exit("FAIL: objects with exit-time destructors in " + ", ".join(ours) +
             ": make them LoadFirst<T> (interpose/core/load_order.h) or trivially destructible")
print(f"ok: {len(initialisers & sources)} of vprof's static initialisers, none registers an "
      f"exit-time destructor (the C++ runtime's that do: {', '.join(sorted(registering))})")
