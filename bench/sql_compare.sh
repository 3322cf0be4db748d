#!/usr/bin/env bash
# `rastrace sql` loading rate and question time on a synthetic system-wide session log (kernel
# system calls and context switches, as `trace -a` writes them), beside the same question asked
# with trcrpt + awk. Pinned to one core (taskset -c 0): loading is single-threaded.
#   bench/sql_compare.sh [BUILD_DIR]       (default: build; needs RASTRACE_BENCH=ON)
#   EVENTS=N (default 10000000) events in the log; RUNS=N (default 3) runs of each step, the
#   fastest and the median printed; LOG=PATH reuses a log made before by
#   `BUILD_DIR/bench/query_benchmark --make-log=PATH --events=N` (make it outside the measured run);
#   SAVE=1 also times --save (SQLite's inserts: slow); BASE=DIR also times each sql step with the
#   rastrace of DIR (DIR/bin/rastrace: a build of the commit before a change, for before/after
#   figures of one run; its lines are marked "before").
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
events=${EVENTS:-10000000}
runs=${RUNS:-3}
rastrace=$build/bin/rastrace
trcrpt=$build/bin/trcrpt
generator=$build/bench/query_benchmark
base=${BASE:-}
[ -z "$base" ] || [ -x "$base/bin/rastrace" ] || { echo "missing $base/bin/rastrace" >&2; exit 1; }
for tool in "$rastrace" "$trcrpt" "$generator"; do
  [ -x "$tool" ] || { echo "missing $tool: build with -DRASTRACE_BENCH=ON first" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work  # the tables' temporary files: on the disk of the work directory
log=${LOG:-}
if [ -z "$log" ]; then
  log=$work/session.trc
  "$generator" --make-log="$log" --events="$events"
fi
log_bytes=$(stat -c %s "$log")
count=$("$rastrace" sql --no-text "$log" -q "SELECT count(*) FROM events" --format csv | tail -1)
calls=$("$rastrace" sql --no-text "$log" -q "SELECT count(*) FROM syscalls" --format csv | tail -1)

printf '%-44s %8s %8s %12s %9s\n' "step ($count events, $calls calls, $((log_bytes / 1048576)) MiB)" \
  best_s median_s events/s max_MiB
# measure LABEL COMMAND...: RUNS runs on cpu 0; prints the fastest and median seconds, events/s of
# the fastest and the largest max RSS.
measure() {
  local label=$1
  shift
  local times=() rss=0
  for ((i = 0; i < runs; i++)); do
    local start end kib
    start=$(date +%s%N)
    taskset -c 0 /usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out"
    end=$(date +%s%N)
    times+=($((end - start)))
    kib=$(tail -1 "$work/rss")
    ((kib > rss)) && rss=$kib
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v l="$label" -v n="$count" -v rss="$rss" '
    { t[NR] = $1 / 1e9 }
    END { printf "%-44s %8.2f %8.2f %12.0f %9.0f\n", l, t[1], t[int((NR + 1) / 2)], n / t[1], rss / 1024 }'
}

longest="SELECT name, dur, tid FROM syscalls ORDER BY dur DESC LIMIT 10"
every="SELECT (SELECT count(*) FROM events),
    (SELECT count(*) FROM syscalls), (SELECT count(*) FROM sched), (SELECT count(*) FROM slices),
    (SELECT count(*) FROM processes), (SELECT count(*) FROM threads),
    (SELECT count(*) FROM losses), (SELECT count(*) FROM tracepoint_hits)"
# sql_steps LABEL_SUFFIX RASTRACE: the sql steps with that rastrace.
sql_steps() {
  local suffix=$1 tool=$2
  measure "sql: every table but text$suffix" \
    "$tool" sql -t templates/trcfmt "$log" -q "$every"
  measure "sql: count(*) FROM events (--no-text)$suffix" \
    "$tool" sql --no-text "$log" -q "SELECT count(*) FROM events"
  measure "sql: events by schema (templates)$suffix" \
    "$tool" sql -t templates/trcfmt "$log" -q "SELECT schema, count(*) FROM events GROUP BY 1"
  measure "sql: ten longest syscalls$suffix" \
    "$tool" sql --no-text "$log" -q "$longest"
}
[ -z "$base" ] || sql_steps " (before)" "$base/bin/rastrace"
sql_steps "" "$rastrace"
if [ "${SAVE:-0}" = 1 ]; then
  measure "sql: --save DB (every table but text)" \
    sh -c "rm -f '$work/saved.db' && '$rastrace' sql --no-text '$log' --save '$work/saved.db'"
fi
# The same question with trcrpt + awk: pair each thread's entry (101) with its return (104).
# shellcheck disable=SC2016
measure "trcrpt -O tid=on | awk | sort: ten longest" \
  sh -c "'$trcrpt' -O tid=on -t templates/trcfmt '$log' | awk '
    \$1 == \"101\" { begin[\$2] = \$3; name[\$2] = \$7 }
    \$1 == \"104\" && (\$2 in begin) { printf \"%s %.0f %s\n\", name[\$2], (\$3 - begin[\$2]) * 1e9, \$2; delete begin[\$2] }' |
    sort -k2,2nr | head -10"
echo "ten longest (rastrace sql):"
taskset -c 0 "$rastrace" sql --no-text "$log" -q "$longest" --format csv | tail -n +2 | head -3
echo "ten longest (trcrpt + awk):"
head -3 "$work/out"
