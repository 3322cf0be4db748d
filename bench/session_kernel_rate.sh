#!/bin/sh
# Kernel events a session sustains: for each rate R (system calls/s), a process makes paced
# getppid() calls for 2 s inside `trace -a -j 101,104 -T 8M` (two events per call); prints the
# events written, the events the kernel lost, and the daemon's CPU ticks while tracing.
# Needs root (tracefs). Usage: bench/session_kernel_rate.sh BUILD_DIR [RATE...]
set -eu
build=${1:?usage: $0 BUILD_DIR [RATE...]}
shift
[ $# -gt 0 ] || set -- 50000 100000 150000
RASTRACE_SESSION_DIR=$(mktemp -d)
export RASTRACE_SESSION_DIR
trap 'rm -rf "$RASTRACE_SESSION_DIR"' EXIT
log=$RASTRACE_SESSION_DIR/log
for rate in "$@"; do
  rm -f "$log"
  "$build/bin/trace" -a -j 101,104 -T 8M -o "$log"
  daemon=$(cat "$RASTRACE_SESSION_DIR/ch0/lock")
  before=$(awk '{print $14 + $15}' "/proc/$daemon/stat")
  calls=$(python3 -c '
import os, sys, time
rate = int(sys.argv[1]); start = time.monotonic(); n = 0
while time.monotonic() - start < 2.0:
    target = int((time.monotonic() - start) * rate)
    while n < target:
        os.getppid(); n += 1
print(n)' "$rate")
  sleep 0.3
  after=$(awk '{print $14 + $15}' "/proc/$daemon/stat")
  echo "rate=$rate calls=$calls daemon_cpu_ticks=$((after - before)) $("$build/bin/trcstop" 2>&1)"
done
