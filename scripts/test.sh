#!/usr/bin/env bash
# Builds and runs every test: the unit, golden and end-to-end suite; the same suite under
# ASan+UBSan (built with clang, with the libFuzzer targets in the same tree); the recorder and
# buffer tests under TSan; each libFuzzer target for a bounded time (RASTRACE_FUZZ_SECONDS,
# default 8).
# RASTRACE_QUICK=1 runs only the first step.
# Every configuration keeps only line tables for its own code (RASTRACE_DEBUG_INFO=lines: stack
# traces keep file:line, the programs the dyntrace tests trace keep full DWARF), which takes a
# fifth to a third off each build, and compiles each test binary's sources in batches
# (RASTRACE_UNITY_TESTS); docs/performance.md ("Test-suite time") has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
fuzz_seconds=${RASTRACE_FUZZ_SECONDS:-8}
common=(-G Ninja -DRASTRACE_DEBUG_INFO=lines -DRASTRACE_UNITY_TESTS=ON)

started=$SECONDS
# Each step reports its CPU time too: on a shared machine user+sys says what a step costs, wall
# time says how busy the machine was.
TIMEFORMAT="--- step done: %0R s wall, %0U s user + %0S s sys"
step() {
  printf '\n=== %s (at %ds)\n' "$1" "$((SECONDS - started))"
  time "${@:2}"
}

release() {
  cmake -S . -B build "${common[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$jobs"
  ctest --test-dir build -j"$jobs" --output-on-failure --timeout 300
}

# One ASan+UBSan tree, built with clang, serves the sanitizer suite and the fuzzers: the libraries
# are compiled once, with libFuzzer's coverage hooks, and the fuzz step runs the fuzzers built
# here (docs/performance.md, "Test-suite time").
asan() {
  # A tree that an earlier version of this script configured with gcc cannot change compilers
  # (CMake refuses): it is built afresh.
  if [ -f build-asan/CMakeCache.txt ] &&
      ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' build-asan/CMakeCache.txt; then
    rm -rf build-asan
  fi
  cmake -S . -B build-asan "${common[@]}" -DCMAKE_BUILD_TYPE=Debug -DRASTRACE_SANITIZE=ON \
    -DRASTRACE_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DRASTRACE_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure --timeout 600 -LE no_sanitizer
}

# The TSan step runs only the buffer and recorder tests (each labelled with its binary's name, so
# the label filter below selects the binaries whose names start so), so it builds only those
# binaries, the commands and the helper programs tests run, not every test of the parts it
# compiles (event_test and common_test alone were a fifth of its build).
tsan_targets() {
  ninja -C build-tsan -t targets all | sed -n -E 's#^([^:]+): [A-Z]+_EXECUTABLE_LINKER.*#\1#p' |
    awk '/^bin\// || /^tests\/(buffer|recorder)[^\/]*$/ ||
         (/^tests\/[^\/]*$/ && !/(_test|_replay|_pch)$/)'
}

tsan() {
  cmake -S . -B build-tsan "${common[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRASTRACE_TSAN=ON \
    -DRASTRACE_BENCH=OFF -DRASTRACE_PARTS="common;event;buffer;recorder" >/dev/null
  local targets
  mapfile -t targets < <(tsan_targets)
  cmake --build build-tsan -j"$jobs" --target "${targets[@]}"
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan -j"$jobs" --output-on-failure \
    --timeout 600 -L '^(buffer|recorder)'
}

# One fuzzer run: a copy of its corpus, a bounded time, the log's tail if it finds something.
fuzz_one() {
  local fuzzer=$1 name corpus
  name=$(basename "$fuzzer")
  corpus=$(mktemp -d)
  cp -r fuzz/corpus/"$name"/. "$corpus"/ 2>/dev/null || true
  if ! "$fuzzer" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=0 "$corpus" >"$fuzz_logs/$name.log" 2>&1; then
    tail -50 "$fuzz_logs/$name.log"
    echo "fuzzer $name failed"
    rm -rf "$corpus"
    return 1
  fi
  echo "fuzz $name: no finding in ${fuzz_seconds}s"
  rm -rf "$corpus"
}

# The fuzzers (built by the ASan+UBSan step) run $jobs at a time (each is single-threaded); the
# step fails if any of them does.
fuzz_logs=build-asan/fuzz-logs
fuzz() {
  mkdir -p "$fuzz_logs"
  local failed=0 running=0 fuzzer
  for fuzzer in build-asan/fuzz/*; do
    [ -x "$fuzzer" ] || continue
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
    fuzz_one "$fuzzer" &
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
  done
  return "$failed"
}

step "build and test (RelWithDebInfo)" release
[ "${RASTRACE_QUICK:-0}" = 1 ] && exit 0
step "build and test under ASan+UBSan" asan
step "buffer and recorder tests under TSan" tsan
step "fuzz targets, ${fuzz_seconds}s each" fuzz
echo "all test steps passed in $((SECONDS - started))s"
