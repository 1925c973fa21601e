"""libvprof.so needs nothing beyond libc, libm, libdl, libpthread and the
loader, leaves no fmt or spdlog symbol to be bound at load time (they are
compiled in: a host process's own libfmt would otherwise answer), and exports
exactly the names its tables list (NCCL wrappers, entry points, and the NCCL
profiler-plugin structs, which must be objects)."""
import os
import re
import subprocess

from harness import BUILD, LIBVPROF, check

ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "ld-linux-x86-64.so.2"}
dyn = subprocess.run(["readelf", "-d", LIBVPROF], capture_output=True, text=True, check=True).stdout
needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dyn))
check(needed and needed <= ALLOWED, f"unexpected dependencies: {needed - ALLOWED}")

# Demangled, so that functions, typeinfo and vtables of either are all caught.
undefined = subprocess.run(["nm", "-D", "-C", "--undefined-only", LIBVPROF], capture_output=True,
                           text=True, check=True).stdout.splitlines()
unbound = sorted(n.strip() for n in undefined if re.search(r"\b(fmt|spdlog)::", n))
check(not unbound, f"fmt or spdlog symbols left for the loader to bind: {unbound[:5]}")

syms = subprocess.run(["nm", "-D", "--defined-only", LIBVPROF], capture_output=True, text=True,
                      check=True).stdout.split("\n")
kinds = {line.split()[-1]: line.split()[-2] for line in syms if line.strip()}  # name -> nm type
exported = set(kinds)
interpose = os.path.join(os.path.dirname(__file__), "..", "..", "interpose")
nccl_table = open(os.path.join(interpose, "nccl", "nccl_functions.def")).read()
entry_table = open(os.path.join(interpose, "entry_points.def")).read()
listed = {"nccl" + m for m in re.findall(r"^VPROF_NCCL_FN\((\w+),", nccl_table, re.M)}
listed |= set(re.findall(r"^VPROF_ENTRY_(?:POINT|DATA)\((\w+)\)", entry_table, re.M))
check(exported == listed,
      f"exports differ from the table: extra {exported - listed}, missing {listed - exported}")
# NCCL dlsyms the profiler structs and reads them: they must be objects, not functions.
data = set(re.findall(r"^VPROF_ENTRY_DATA\((\w+)\)", entry_table, re.M))
wrong = {n: kinds[n] for n in listed if (kinds[n] in "DdBb") != (n in data)}
check(not wrong, f"exports of the wrong kind (nm type): {wrong}")
print(f"ok: NEEDED {sorted(needed)}; {len(exported)} exports, all from the table")
