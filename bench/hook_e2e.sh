#!/usr/bin/env bash
# The hook as users run it (issue 17, docs/performance.md "The hook end to end"): a small C
# program built against include/ and the SHARED library of BUILD_DIR, started by
# `rastrace record` with the writer draining, times N TRCHKL5T calls with clock_gettime, in each
# mode (alternate, -l circular, -f single, alternate --memory-only) and size (default, -T 4M,
# -T 256M). The bare rdtsc loop
# (the physical floor: the timestamp itself) runs in the same program under `rastrace record`,
# interleaved with the hook runs, and so do rows "stores" (rdtsc and the event's 64 bytes stored
# by the program itself into a populated ring file of 4 or 256 MiB: the memory traffic alone,
# without the library). Prints the median ns/event of RUNS runs, the floor and the
# difference; then p50/p99/p99.9 of single hooks with the writer draining and the events/s of two
# threads against one (default rings, --memory-only, -l), and (LTTNG=1) bench/lttng_compare.sh
# with its ratio.
#
#   bench/hook_e2e.sh [BUILD_DIR]        (default build; needs lib/librastrace.so, bin/rastrace)
#   EVENTS=2000000 RUNS=5 LTTNG=1        (the defaults)
#   BEFORE_LIB=DIR                       also runs alternate, circular and single mode with the
#                                        librastrace.so in DIR (an older build's lib/; its rings
#                                        in memory: --memory-only), as rows "old-...", same run
#   OUT_OF_LINE=1                        also runs alternate, circular and single mode with the
#                                        program built with -DRASTRACE_OUT_OF_LINE_HOOKS (every
#                                        hook a call into the library): rows "ool-..."
# Run it under /work/bin/cpu-exclusive on the shared machine. Not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$(cd "${1:-build}" && pwd)
events=${EVENTS:-2000000}
runs=${RUNS:-5}
lttng=${LTTNG:-1}
. "$root/bench/hook_e2e_common.sh"
if [ -n "${BEFORE_LIB:-}" ]; then
  hook_e2e_program "$work/hook_e2e_old" "$BEFORE_LIB" -DRASTRACE_OUT_OF_LINE_HOOKS
fi
if [ "${OUT_OF_LINE:-0}" = 1 ]; then
  hook_e2e_program "$work/hook_e2e_ool" "$build/lib" -DRASTRACE_OUT_OF_LINE_HOOKS
fi
record() { "$build/bin/rastrace" record -o "$work/log" "$@"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Events of a 4 MiB single-mode ring (64-byte TRCHKL5T events, a few header words aside).
single_fit=60000

# The default rings are recoverable (files in /dev/shm, docs/reliability.md); "memory" is
# alternate mode with --memory-only (process memory, growing), as before rings were recoverable.
# Each mode is NAME:PROGRAM:OPTIONS.
modes=("alternate:hook_e2e:" "circular:hook_e2e:-l" "single:hook_e2e:-f"
       "memory:hook_e2e:--memory-only")
if [ -n "${BEFORE_LIB:-}" ]; then
  modes+=("old-alt:hook_e2e_old:--memory-only" "old-circ:hook_e2e_old:--memory-only -l"
          "old-single:hook_e2e_old:--memory-only -f")
fi
if [ "${OUT_OF_LINE:-0}" = 1 ]; then
  modes+=("ool-alt:hook_e2e_ool:" "ool-circ:hook_e2e_ool:-l" "ool-single:hook_e2e_ool:-f")
fi
sizes=("default:" "4M:-T 4M" "256M:-T 256M")
declare -A samples lost_in
floor_samples=()
stores_4=()
stores_256=()
for run in $(seq "$runs"); do
  floor_samples+=("$(record -- "$work/hook_e2e" rdtsc "$events")")
  stores_4+=("$(record -- "$work/hook_e2e" stores "$events" 4)")
  stores_256+=("$(record -- "$work/hook_e2e" stores "$events" 256)")
  for m in "${modes[@]}"; do
    for s in "${sizes[@]}"; do
      n=$events
      name=${m%%:*} rest=${m#*:}
      program=${rest%%:*} flags=${rest#*:}
      if [[ $name = *single ]] && [ "${s%%:*}" != 256M ]; then n=$single_fit; fi
      # shellcheck disable=SC2086
      samples["${m%%:*} ${s%%:*}"]+="$(record $flags ${s#*:} -- "$work/$program" hook "$n") "
      if [ "$run" = "$runs" ]; then lost_in["${m%%:*} ${s%%:*}"]=$(lost); fi
    done
  done
done
floor=$(printf '%s\n' "${floor_samples[@]}" | median)

echo "TRCHKL5T end to end: rastrace record -- hook_e2e (shared library), $events events per run"
echo "(single mode with a 4 MiB ring: $single_fit), median of $runs runs, ns/event"
printf '%-10s %-8s %9s %7s %7s %9s   %s\n' mode size ns/event floor diff "lost(last)" runs
printf '%-10s %-8s %9.2f %7s %7s %9s   %s\n' "bare rdtsc" "" "$floor" "" "" "" "${floor_samples[*]}"
# rdtsc and the event's 64 bytes stored by the program itself into a ring file of that size: what
# the memory traffic costs, without the library (the rest of a hook's difference is its code).
for size in 4 256; do
  declare -n st="stores_$size"
  med=$(printf '%s\n' "${st[@]}" | median)
  printf '%-10s %-8s %9.2f %7.2f %+7.2f %9s   %s\n' "stores" "${size}M" "$med" "$floor" \
    "$(echo "$med - $floor" | bc -l)" "" "${st[*]}"
done
for m in "${modes[@]}"; do
  for s in "${sizes[@]}"; do
    key="${m%%:*} ${s%%:*}"
    # shellcheck disable=SC2086
    med=$(printf '%s\n' ${samples[$key]} | median)
    printf '%-10s %-8s %9.2f %7.2f %+7.2f %9s   %s\n' "${m%%:*}" "${s%%:*}" "$med" "$floor" \
      "$(echo "$med - $floor" | bc -l)" "${lost_in[$key]}" "${samples[$key]}"
  done
done

# Latency and scaling with the default (recoverable) rings, with --memory-only, in circular mode
# (the writer idle until the end: the hook path alone) and, with BEFORE_LIB, the older library.
configs=("default:hook_e2e:" "--memory-only:hook_e2e:--memory-only" "-l:hook_e2e:-l")
if [ -n "${BEFORE_LIB:-}" ]; then configs+=("old:hook_e2e_old:--memory-only"); fi
per_thread=$((events / 2))
echo
echo "single TRCHKL5T calls ($events calls, median of $runs runs), ns; 1 and 2 threads ($per_thread"
echo "TRCHKL5T each), M events/s:"
printf '%-14s %6s %6s %7s %6s   %8s %8s %6s\n' rings p50 p99 p99.9 pair "1 thread" "2 threads" ratio
for c in "${configs[@]}"; do
  name=${c%%:*} rest=${c#*:}
  program=${rest%%:*} flags=${rest#*:}
  lat=() one=() two=()
  for run in $(seq "$runs"); do
    # shellcheck disable=SC2086
    lat+=("$(record $flags -- "$work/$program" latency "$events")")
    # shellcheck disable=SC2086
    one+=("$(record $flags -- "$work/$program" threads 1 "$per_thread")")
    # shellcheck disable=SC2086
    two+=("$(record $flags -- "$work/$program" threads 2 "$per_thread")")
  done
  column() { printf '%s\n' "${lat[@]}" | awk -v c="$1" '{print $c}' | median; }
  one_med=$(printf '%s\n' "${one[@]}" | median)
  two_med=$(printf '%s\n' "${two[@]}" | median)
  printf '%-14s %6s %6s %7s %6s   %8.1f %8.1f %6.2f\n' "$name" "$(column 1)" "$(column 2)" \
    "$(column 3)" "$(column 4)" "$(echo "$one_med / 1000000" | bc -l)" \
    "$(echo "$two_med / 1000000" | bc -l)" "$(echo "$two_med / $one_med" | bc -l)"
  echo "  runs (p50 p99 p99.9 pair): $(printf '[%s] ' "${lat[@]}")"
done

if [ "$lttng" = 1 ]; then
  echo
  echo "bench/lttng_compare.sh (same run):"
  RUNS=3 "$root/bench/lttng_compare.sh" "$build" | tail -n 4
fi
