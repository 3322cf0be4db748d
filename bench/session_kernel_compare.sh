#!/bin/sh
# Kernel events at real rates beside perf (issue 16, point 4). Two workloads, each run plain and
# then under each tracer in the same minutes:
#   syscalls: dd if=/dev/zero of=/dev/null bs=1 count=COUNT (two system calls per byte copied)
#   forkexec: a shell that runs /bin/true FORKS times
# Tracers, system-wide, with the same kernel events (system call entry and exit, sched_switch,
# process fork, exec, exit):
#   rastrace: trace -a -j 101,104,106,10C,134,139,465 -o LOG ... trcstop (default buffers)
#   perf:     perf record -a -e raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch,
#             sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit
#   trace-cmd record with the same events, where it can run (it needs ftrace_enabled).
# Prints per tracer and workload: events kept, events lost (the tool's own counters: ours from
# the 006 events, perf's LOST_SAMPLES/LOST records), tracer CPU seconds while tracing (user +
# system of the daemon / perf process, from /proc), log bytes, and the workload's wall time
# against the plain run. Needs root. Run it under /work/bin/cpu-exclusive on a shared machine.
# Usage: bench/session_kernel_compare.sh BUILD_DIR [COUNT [FORKS]]   (default 2000000 3000)
set -eu
build=${1:?usage: $0 BUILD_DIR [COUNT [FORKS]]}
count=${2:-2000000}
forks=${3:-3000}
counter=$build/bench/session_log_counts
for f in "$build/bin/trace" "$build/bin/trcstop" "$counter"; do
  [ -x "$f" ] || { echo "$f is not built (RASTRACE_BENCH=ON)" >&2; exit 1; }
done
command -v perf >/dev/null || apt-get install -y linux-perf >/dev/null 2>&1 || true
command -v trace-cmd >/dev/null || apt-get install -y trace-cmd >/dev/null 2>&1 || true

work=$(mktemp -d)
RASTRACE_SESSION_DIR=$work/run
export RASTRACE_SESSION_DIR
trap 'rm -rf "$work"' EXIT
unset RASTRACE_LOG RASTRACE_LOG_OWNER

workload() {
  case $1 in
    syscalls) dd if=/dev/zero of=/dev/null bs=1 count="$count" 2>/dev/null ;;
    forkexec) i=0; while [ "$i" -lt "$forks" ]; do /bin/true; i=$((i + 1)); done ;;
  esac
}
# Wall seconds of the workload.
timed() {
  start=$(date +%s.%N)
  workload "$1"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}'
}
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

events=raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch
events=$events,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit

printf '%-9s %-9s %12s %10s %8s %12s %8s %9s\n' workload tracer kept lost lost% cpu_s log_MB slowdown
for w in syscalls forkexec; do
  plain=$(timed "$w")

  # rastrace
  log=$work/rastrace.trc
  "$build/bin/trace" -a -j 101,104,106,10C,134,139,465 -o "$log"
  daemon=$(cat "$RASTRACE_SESSION_DIR/ch0/lock")
  wall=$(timed "$w")
  cpu=$(cpu_of "$daemon")
  "$build/bin/trcstop" >/dev/null
  set -- $("$counter" "$log")
  kept=$3 lost=$4
  bytes=$(stat -c %s "$log")
  printf '%-9s %-9s %12s %10s %8s %12s %8s %9s\n' "$w" rastrace "$kept" "$lost" \
    "$(awk -v l="$lost" -v k="$kept" 'BEGIN {printf "%.3f", 100 * l / (l + k)}')" "$cpu" \
    "$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')" "$(ratio "$wall" "$plain")"
  rm -f "$log"

  # perf
  if command -v perf >/dev/null; then
    data=$work/perf.data
    perf record -a -q -e "$events" -o "$data" 2>"$work/perf.err" &
    perf_pid=$!
    sleep 1
    wall=$(timed "$w")
    cpu=$(cpu_of "$perf_pid")
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
    stats=$(perf report -i "$data" --stats 2>/dev/null)
    kept=$(echo "$stats" | awk '/SAMPLE events:/ {print $3; exit}')
    lost=$(echo "$stats" | awk '/LOST_SAMPLES events:/ {n += $3} /^ *LOST events:/ {n += $3}
      END {print n + 0}')
    # A LOST record counts samples too: the total sits in "lost" of perf report's header.
    lost2=$(perf report -i "$data" --stats 2>/dev/null | awk '/lost samples/ {print $NF}')
    bytes=$(stat -c %s "$data")
    printf '%-9s %-9s %12s %10s %8s %12s %8s %9s\n' "$w" perf "${kept:-0}" "$lost" \
      "$(awk -v l="$lost" -v k="${kept:-0}" 'BEGIN {printf "%.3f", (l + k) ? 100 * l / (l + k) : 0}')" \
      "$cpu" "$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')" "$(ratio "$wall" "$plain")"
    rm -f "$data"
  fi

  # trace-cmd
  if command -v trace-cmd >/dev/null; then
    if (cd "$work" && trace-cmd record -e raw_syscalls -e sched:sched_switch -o "$work/tc.dat" \
          true >"$work/tc.err" 2>&1); then
      echo "trace-cmd: runs here; not yet compared" >&2
    else
      echo "$w trace-cmd: cannot run here: $(grep -m1 -i "can't\|error\|fail" "$work/tc.err")"
    fi
  else
    echo "$w trace-cmd: not installed"
  fi
  echo "$w plain: ${plain}s"
done
