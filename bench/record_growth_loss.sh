#!/usr/bin/env bash
# Flat-out loss of `rastrace record` with recoverable rings that grow (docs/performance.md,
# "Recoverable rings that grow"): bench/hook_e2e.c built against include/ and the SHARED library
# of BUILD_DIR records EVENTS TRCHKL5T as fast as it can, under `rastrace record` with
#   default        recoverable rings (files in /dev/shm), 4 MiB growing to 64 MiB
#   fixed          -T 4M: recoverable rings that keep 4 MiB (what the default was before they grew)
#   memory-only    --memory-only: rings in process memory, growing
# alternating, RUNS times. Prints ns/event and events lost (the log's 006 counts) per run.
#   bench/record_growth_loss.sh [BUILD_DIR]      EVENTS=2000000 RUNS=5 (defaults)
# Run it under /work/bin/cpu-exclusive on the shared machine. Not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$(cd "${1:-build}" && pwd)
events=${EVENTS:-2000000}
runs=${RUNS:-5}
. "$root/bench/hook_e2e_common.sh"
echo "rastrace record -- hook_e2e hook $events (TRCHKL5T, shared library): ns/event, lost"
for run in $(seq "$runs"); do
  line="run $run:"
  for config in "default:" "fixed:-T 4M" "memory-only:--memory-only"; do
    name=${config%%:*} flags=${config#*:}
    # shellcheck disable=SC2086
    ns=$("$build/bin/rastrace" record -o "$work/log" $flags -- "$work/hook_e2e" hook "$events")
    line+=" $name $ns ns, lost $(lost);"
  done
  echo "$line"
done
