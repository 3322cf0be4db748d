#!/usr/bin/env bash
# Export speed next to babeltrace2's own text formatting of the exported CTF: the yardstick for
# trcrpt. Writes a synthetic log of $EVENTS events (default 1000000) with export_benchmark, then
# times each command on it and prints events/s and input MB/s.
#   bench/babeltrace_compare.sh [BUILD_DIR]     (default: build; needs RASTRACE_BENCH=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
events=${EVENTS:-1000000}
rastrace=$build/bin/rastrace
generator=$build/bench/export_benchmark
for tool in "$rastrace" "$generator"; do
  [ -x "$tool" ] || { echo "missing $tool: build with -DRASTRACE_BENCH=ON first" >&2; exit 1; }
done
command -v babeltrace2 >/dev/null || { echo "babeltrace2 is not installed (scripts/deps.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/in.trc
"$generator" --make-log="$log" --events="$events"
log_bytes=$(stat -c %s "$log")
# Every event of the log: the generator's events plus its header events.
count=$("$rastrace" export -f csv --no-text "$log" -o - | tail -n +2 | wc -l)

printf '%-40s %9s %12s %9s\n' "step ($count events, $((log_bytes / 1048576)) MiB log)" seconds events/s MB/s
measure() {
  local label=$1
  shift
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  awk -v l="$label" -v ns=$((end - start)) -v n="$count" -v b="$log_bytes" \
    'BEGIN { s = ns / 1e9; printf "%-40s %9.3f %12.0f %9.1f\n", l, s, n / s, b / s / 1e6 }'
}

measure "rastrace export -f ctf" "$rastrace" export -f ctf "$log" -o "$work/ctf"
measure "babeltrace2 text of that CTF" babeltrace2 "$work/ctf"
measure "rastrace export -f jsonl --no-text" "$rastrace" export -f jsonl --no-text "$log" -o -
measure "rastrace export -f jsonl (templates)" "$rastrace" export -f jsonl "$log" -o -
measure "rastrace export -f csv --no-text" "$rastrace" export -f csv --no-text "$log" -o -
measure "rastrace export -f chrome --no-text" "$rastrace" export -f chrome --no-text "$log" -o -
measure "rastrace merge (log with itself)" "$rastrace" merge "$log" "$log" -o "$work/merged.trc"
if [ -x "$build/bin/trcrpt" ]; then
  measure "trcrpt (templates/trcfmt)" "$build/bin/trcrpt" -t templates/trcfmt "$log"
fi
