#!/usr/bin/env bash
# Side by side: the time per event of rastrace hooks and of LTTng-UST tracepoints recording the
# same data in the same run (five integers; a 64-byte buffer), with buffers large enough that
# neither discards anything (checked). Prints ns/event for each and the ratio LTTng / rastrace.
#
#   bench/lttng_compare.sh [BUILD_DIR]      (default: build; needs lib/librastrace.so and
#                                            bin/rastrace from that build)
# Installs lttng-tools and liblttng-ust-dev with apt-get when they are missing. Not part of the
# test suite: the figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$(cd "${1:-build}" && pwd)
events=${EVENTS:-1000000}
runs=${RUNS:-3}

if ! command -v lttng-sessiond >/dev/null || ! dpkg -s liblttng-ust-dev >/dev/null 2>&1; then
  echo "installing lttng-tools and liblttng-ust-dev"
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get install -y --no-install-recommends lttng-tools liblttng-ust-dev >/dev/null
fi
for f in "$build/lib/librastrace.so" "$build/bin/rastrace"; do
  [ -e "$f" ] || { echo "missing $f: build rastrace first" >&2; exit 1; }
done

work=$(mktemp -d)
sessiond_pid=""
cleanup() {
  if [ -n "$sessiond_pid" ]; then
    LTTNG_HOME=$work lttng destroy -a >/dev/null 2>&1 || true
    kill "$sessiond_pid" 2>/dev/null || true
    wait "$sessiond_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- the two programs: the same loops, timed the same way ---------------------------------------
cat >"$work/tp.h" <<'TP'
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER rastrace_bench
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"
#if !defined(RASTRACE_BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define RASTRACE_BENCH_TP_H
#include <lttng/tracepoint.h>
TRACEPOINT_EVENT(rastrace_bench, five_ints,
  TP_ARGS(long, a, long, b, long, c, long, d, long, e),
  TP_FIELDS(ctf_integer(long, a, a) ctf_integer(long, b, b) ctf_integer(long, c, c)
            ctf_integer(long, d, d) ctf_integer(long, e, e)))
TRACEPOINT_EVENT(rastrace_bench, bytes64,
  TP_ARGS(long, w, const unsigned char*, buf, unsigned int, len),
  TP_FIELDS(ctf_integer(long, w, w) ctf_sequence(unsigned char, buf, buf, unsigned int, len)))
#endif
#include <lttng/tracepoint-event.h>
TP

cat >"$work/common.h" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
/* The CPU time of the tracing thread: what the program pays, whatever else runs on the machine. */
static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static const unsigned char payload[64] = "sixty-four bytes of payload, the same for rastrace and lttng..";
C

cat >"$work/lttng_prog.c" <<'C'
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tp.h"
#include "common.h"
int main(int argc, char** argv) {
  long n = atol(argv[1]);
  /* Off the clock: the first event sets up the thread's buffers. */
  tracepoint(rastrace_bench, five_ints, -1, 2, 3, 4, 5);
  tracepoint(rastrace_bench, bytes64, -1, payload, 64);
  double t0 = now_ns(), c0 = cpu_ns();
  for (long i = 0; i < n; i++) tracepoint(rastrace_bench, five_ints, i, 2, 3, 4, 5);
  double t1 = now_ns(), c1 = cpu_ns();
  for (long i = 0; i < n; i++) tracepoint(rastrace_bench, bytes64, i, payload, 64);
  double t2 = now_ns(), c2 = cpu_ns();
  printf("%.2f %.2f %.2f %.2f\n", (t1 - t0) / n, (t2 - t1) / n, (c1 - c0) / n, (c2 - c1) / n);
  return 0;
}
C

cat >"$work/rastrace_prog.c" <<'C'
#include <rastrace/trchk.h>
#include "common.h"
int main(int argc, char** argv) {
  long n = atol(argv[1]);
  /* Off the clock: the first event sets up the thread's ring (and touches its pages). */
  TRCHKL5T(0x01200000, -1, 2, 3, 4, 5);
  TRCGENT(0, 0x01400000, -1, 64, payload);
  double t0 = now_ns(), c0 = cpu_ns();
  for (long i = 0; i < n; i++) TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
  double t1 = now_ns(), c1 = cpu_ns();
  for (long i = 0; i < n; i++) TRCGENT(0, 0x01400000, i, 64, payload);
  double t2 = now_ns(), c2 = cpu_ns();
  printf("%.2f %.2f %.2f %.2f\n", (t1 - t0) / n, (t2 - t1) / n, (c1 - c0) / n, (c2 - c1) / n);
  return 0;
}
C

cc -O2 -I"$work" -o "$work/lttng_prog" "$work/lttng_prog.c" -llttng-ust -ldl
cc -O2 -I"$root/include" -o "$work/rastrace_prog" "$work/rastrace_prog.c" \
  -L"$build/lib" -Wl,-rpath,"$build/lib" -lrastrace

# --- LTTng: a user-mode session daemon of our own, big sub-buffers ----------------------------
export LTTNG_HOME=$work
lttng-sessiond --no-kernel >"$work/sessiond.log" 2>&1 &
sessiond_pid=$!
for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done

# 2 x 5 fields and a 64-byte sequence per event at most ~120 bytes: 4 x 64 MiB per CPU holds
# every event of a run without overwriting or discarding.
subbuf=64M
nsubbuf=4
sums=()
for run in $(seq "$runs"); do
  lttng create bench --output="$work/lttng-trace-$run" >/dev/null
  lttng enable-channel --userspace --subbuf-size=$subbuf --num-subbuf=$nsubbuf --discard big \
    >/dev/null
  lttng enable-event --userspace --channel=big 'rastrace_bench:*' >/dev/null
  lttng start >/dev/null
  read -r l5 lgen l5c lgenc < <("$work/lttng_prog" "$events")
  stop_out=$(lttng stop 2>&1)
  lttng destroy >/dev/null
  if grep -qi discarded <<<"$stop_out"; then
    echo "LTTng discarded events in run $run: $stop_out" >&2
    exit 1
  fi
  recorded=$(babeltrace2 "$work/lttng-trace-$run" 2>/dev/null | wc -l)
  if [ "$recorded" -ne $((2 * events + 2)) ]; then
    echo "LTTng recorded $recorded events, expected $((2 * events + 2))" >&2
    exit 1
  fi

  log="$work/rastrace-$run.log"
  read -r r5 rgen r5c rgenc < <("$build/bin/rastrace" record -o "$log" -T 256M -- "$work/rastrace_prog" \
    "$events")
  lost=$("$build/bin/rastrace" dump "$log" | grep -c 'ID 0060' || true)
  written=$("$build/bin/rastrace" dump "$log" | grep -cE 'ID 01[24]0' || true)
  if [ "$lost" -ne 0 ] || [ "$written" -ne $((2 * events + 2)) ]; then
    echo "rastrace wrote $written events ($lost loss events), expected $((2 * events + 2))" >&2
    exit 1
  fi
  printf 'run %d: five integers: lttng %6.2f ns (cpu %6.2f)  rastrace %6.2f ns (cpu %6.2f) | 64 bytes: lttng %6.2f ns (cpu %6.2f)  rastrace %6.2f ns (cpu %6.2f)\n' \
    "$run" "$l5" "$l5c" "$r5" "$r5c" "$lgen" "$lgenc" "$rgen" "$rgenc"
  sums+=("$l5 $r5 $lgen $rgen $l5c $r5c $lgenc $rgenc")
  rm -rf "$work/lttng-trace-$run" "$log"
done

# Column means over the runs: wall l5 r5 lgen rgen, then the same as thread CPU time.
read -r l5 r5 lg rg l5c r5c lgc rgc < <(printf '%s\n' "${sums[@]}" |
  awk '{for (i = 1; i <= NF; i++) s[i] += $i} END {for (i = 1; i <= 8; i++) printf "%.2f ", s[i] / NR; print ""}')
ratio() { echo "$1 / $2" | bc -l; }
echo
echo "mean of $runs runs, $events events each, nothing discarded by either (ns/event):"
printf '%-58s %8s %8s %6s | %8s %8s %6s\n' "" "lttng" "rastrace" "ratio" "lttng" "rastrace" "ratio"
printf '%-58s %8s %8s %6s | %8s %8s %6s\n' "" "wall" "wall" "" "cpu" "cpu" ""
printf '%-58s %8.2f %8.2f %5.1fx | %8.2f %8.2f %5.1fx\n' \
  "five integers (5 x ctf_integer / TRCHKL5T)" "$l5" "$r5" "$(ratio "$l5" "$r5")" \
  "$l5c" "$r5c" "$(ratio "$l5c" "$r5c")"
printf '%-58s %8.2f %8.2f %5.1fx | %8.2f %8.2f %5.1fx\n' \
  "64-byte buffer (ctf_sequence / TRCGENT)" "$lg" "$rg" "$(ratio "$lg" "$rg")" \
  "$lgc" "$rgc" "$(ratio "$lgc" "$rgc")"
