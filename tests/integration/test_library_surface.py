"""libvprof.so needs nothing beyond libc, libm, libdl, libpthread and the
loader, and exports exactly the names the interception table lists."""
import os
import re
import subprocess

from harness import BUILD, LIBVPROF, check

ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "ld-linux-x86-64.so.2"}
dyn = subprocess.run(["readelf", "-d", LIBVPROF], capture_output=True, text=True, check=True).stdout
needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dyn))
check(needed and needed <= ALLOWED, f"unexpected dependencies: {needed - ALLOWED}")

syms = subprocess.run(["nm", "-D", "--defined-only", LIBVPROF], capture_output=True, text=True,
                      check=True).stdout.split("\n")
exported = {line.split()[-1] for line in syms if line.strip()}
table = os.path.join(os.path.dirname(__file__), "..", "..", "interpose", "nccl_functions.def")
listed = {"nccl" + m for m in re.findall(r"^VPROF_NCCL_FN\((\w+),", open(table).read(), re.M)}
check(exported == listed,
      f"exports differ from the table: extra {exported - listed}, missing {listed - exported}")
print(f"ok: NEEDED {sorted(needed)}; {len(exported)} exports, all from the table")
