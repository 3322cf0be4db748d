#!/bin/sh
# User hooks a system-wide session keeps at real rates (issue 16, point 3): `trace -a` with
# default options (kernel events on), N programs that each record COUNT TRCHKL5T hooks as fast
# as they can (build/bench/session_hook_load), then trcstop. Prints, per run: the hooks the
# programs recorded, those in the log and those counted lost (006 events of the programs'
# threads), the kernel events and their losses, the aggregate hook rate (hooks / the longest
# program's seconds), and the daemon's CPU seconds (user + system, from /proc while it ran).
# Needs root for kernel events (without root: user hooks only, as `trace` says).
# Usage: bench/session_hook_load.sh BUILD_DIR [PROGRAMS [COUNT [RUNS]]]   (default 2 1000000 10)
set -eu
build=${1:?usage: $0 BUILD_DIR [PROGRAMS [COUNT [RUNS]]]}
programs=${2:-2}
count=${3:-1000000}
runs=${4:-10}
for tool in trace trcstop; do
  [ -x "$build/bin/$tool" ] || { echo "$build/bin/$tool is not built" >&2; exit 1; }
done
load=$build/bench/session_hook_load
[ -x "$load" ] || { echo "$load is not built (configure with -DRASTRACE_BENCH=ON)" >&2; exit 1; }
counter=$build/bench/session_log_counts
[ -x "$counter" ] || { echo "$counter is not built" >&2; exit 1; }

work=$(mktemp -d)
RASTRACE_SESSION_DIR=$work/run
export RASTRACE_SESSION_DIR
trap 'rm -rf "$work"' EXIT
unset RASTRACE_LOG RASTRACE_LOG_OWNER

clean=0
run=1
while [ "$run" -le "$runs" ]; do
  log=$work/log$run
  "$build/bin/trace" -a -o "$log"
  daemon=$(cat "$RASTRACE_SESSION_DIR/ch0/lock")
  before=$(awk '{print $14 + $15}' "/proc/$daemon/stat")
  i=1
  while [ "$i" -le "$programs" ]; do
    "$load" "$count" > "$work/out$i" &
    i=$((i + 1))
  done
  wait
  after=$(awk '{print $14 + $15}' "/proc/$daemon/stat")
  stop=$("$build/bin/trcstop" 2>&1)
  slowest=$(cat "$work"/out* | awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}')
  # hooks (020) in the log, lost by threads, kernel events, lost by the kernel
  set -- $("$counter" "$log" 0200)
  hooks=$1 lost=$2 kernel=$3 kernel_lost=$4
  expected=$((programs * count))
  rate=$(awk -v n="$expected" -v s="$slowest" 'BEGIN {printf "%.1f", n / s / 1e6}')
  cpu=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}')
  echo "run $run: programs=$programs hooks=$expected in_log=$hooks lost=$lost" \
    "kernel_events=$kernel kernel_lost=$kernel_lost rate=${rate}M/s daemon_cpu_while_tracing=${cpu}s"
  [ "$hooks" -eq "$expected" ] && [ "$lost" -eq 0 ] && clean=$((clean + 1))
  case $stop in *"trcstop: log"*) ;; *) echo "  trcstop: $stop" ;; esac
  rm -f "$log" "$work"/out*
  run=$((run + 1))
done
echo "runs without loss: $clean of $runs"
