#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test through meson test:
# the full suite in build/, then the unit suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan/) and ThreadSanitizer (build-tsan/),
# and a short run of each fuzz target (build-fuzz/, clang).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh

echo "== build/ : all suites"
scripts/build.sh build
meson test -C build --print-errorlogs --num-processes 2

echo "== build-asan/ : unit suite under ASan + UBSan"
scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --suite unit --print-errorlogs --num-processes 2

echo "== build-tsan/ : unit suite under TSan"
scripts/build.sh build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug
# die_after_fork=0: the stand-in tests fork processes that then start threads.
TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 \
  meson test -C build-tsan --suite unit --print-errorlogs --num-processes 2

echo "== build-fuzz/ : each fuzz target for 10 s under libFuzzer + ASan + UBSan"
# The long run is scripts/fuzz.sh with its default of 600 s per target.
scripts/fuzz.sh 10

echo "all tests passed"
