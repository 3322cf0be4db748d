#!/usr/bin/env bash
# Side by side in one run: the cost of a dynamic tracepoint hit with rastrace's BPF engine, with
# bpftrace running equivalent probes, and with rastrace's ptrace engine, on the same program.
#
# dt_items (src/dyntrace/testdata/items.c) calls process_item(name, qty) N times. rastrace
# records issue 18's tracepoints: REGS=(ESI), ASCIIZ32=(RDI,DIRECT,40), MEM32=(.g_counter,DIRECT,4)
# at entry and REGS=(EAX) at RETEP, with `trace on ... -- dt_items N` and default options (an STDA
# save file; `--log` as well for the BPF engine). bpftrace's probes read the same at the hit
# (reg("si"), str(arg0, 41), the counter; retval) and print them to a file. The cost of a hit is
# (ns per call traced - ns per call untraced) / 2, from the program's own timing of its loop
# (DT_ITEMS_TIMING: start-up and attach excluded); each figure is the median of RUNS runs, with
# the runs of the tools interleaved. Every run's records are counted: nothing may be lost.
#
#   /work/bin/cpu-exclusive bench/dyntrace_compare.sh [BUILD_DIR]     (root; default build)
# Env: N (calls, default 500000: a million hits), PTRACE_N (default 20000), RUNS (default 5).
# Installs bpftrace with apt-get when it is missing. Figures: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
n=${N:-500000}
ptrace_n=${PTRACE_N:-20000}
runs=${RUNS:-5}
program=$build/tests/dyntrace/dt_items
for tool in "$build/bin/trace" "$program"; do
  [ -x "$tool" ] || { echo "missing $tool: build trace and the dyntrace tests first" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "needs root (BPF, uprobes, bpftrace)" >&2; exit 1; }
if ! command -v bpftrace >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftrace >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/items.tsf" <<EOF
MODNAME = dt_items
MAJOR = 0x50
TRACE MINOR=1, TP=.process_item, REGS=(ESI), ASCIIZ32=(RDI,DIRECT,40), MEM32=(.g_counter,DIRECT,4)
TRACE MINOR=2, TP=.process_item,RETEP, REGS=(EAX)
EOF
# bpftrace 0.17 resolves uaddr() without a PIE's load bias: the counter is found from the probe
# address, as rastrace's program does.
fn=$(nm "$program" | awk '$3 == "process_item" { print $1 }')
counter=$(nm "$program" | awk '$3 == "g_counter" { print $1 }')
cat >"$work/items.bt" <<EOF
uprobe:$program:process_item {
  printf("%d %s %d\n", reg("si"), str(arg0, 41), *(int32 *)(reg("ip") - 0x$fn + 0x$counter));
}
uretprobe:$program:process_item { printf("%d\n", retval); }
EOF

# ns per call of one run of "$@" (the program's own line on stderr, into $work/err).
ns_per_call() {
  DT_ITEMS_TIMING=1 "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '/^ns_per_call / { print $2 }' "$work/err"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
check() {  # label, expected hits, found hits, lost
  if [ "$3" != "$2" ] || [ "$4" != 0 ]; then
    echo "$1: $3 of $2 hits recorded, $4 lost" >&2
    exit 1
  fi
}

cd "$work"
declare -A samples
for ((run = 1; run <= runs; run++)); do
  samples[untraced]+="$(ns_per_call "$program" "$n") "
  samples[untraced_small]+="$(ns_per_call "$program" "$ptrace_n") "

  samples[bpf]+="$(ns_per_call "$build/bin/trace" on items.tsf -e bpf -o bpf.sav -- "$program" "$n") "
  hits=$(sed -n 's/.*trace: \([0-9]*\) records.*/\1/p' err)
  lost=$(sed -n 's/.*, \([0-9]*\) hits lost.*/\1/p' err)
  check "rastrace bpf" $((2 * n)) "$hits" "${lost:-0}"

  samples[bpf_log]+="$(ns_per_call "$build/bin/trace" on items.tsf -e bpf --log -o bpf.trc -- \
    "$program" "$n") "
  hits=$(sed -n 's/.*trace: \([0-9]*\) records.*/\1/p' err)
  lost=$(sed -n 's/.*, \([0-9]*\) hits lost.*/\1/p' err)
  check "rastrace bpf --log" $((2 * n)) "$hits" "${lost:-0}"

  samples[bpftrace]+="$(ns_per_call bpftrace -o bt.out items.bt -c "$program $n") "
  lost=$(awk '{ for (i = 1; i < NF; i++) if ($i == "Lost") s += $(i + 1) } END { print s + 0 }' err)
  check "bpftrace" $((2 * n)) "$(awk '!/^Attaching/' bt.out | wc -l)" "$lost"

  samples[ptrace]+="$(ns_per_call "$build/bin/trace" on items.tsf -e ptrace -o ptrace.sav -- \
    "$program" "$ptrace_n") "
  hits=$(sed -n 's/.*trace: \([0-9]*\) records.*/\1/p' err)
  check "rastrace ptrace" $((2 * ptrace_n)) "$hits" 0
done

base=$(echo "${samples[untraced]}" | tr ' ' '\n' | grep . | median)
base_small=$(echo "${samples[untraced_small]}" | tr ' ' '\n' | grep . | median)
printf 'dt_items: %d calls (%d hits), ptrace %d calls; median of %d runs; untraced %.0f ns/call\n' \
  "$n" $((2 * n)) "$ptrace_n" "$runs" "$base"
printf '%-44s %12s %14s\n' "tracer" "ns per call" "us per hit"
declare -A labels=(
  [bpf]="rastrace trace on -e bpf (save file)"
  [bpf_log]="rastrace trace on -e bpf --log"
  [bpftrace]="bpftrace $(bpftrace --version | awk '{ print $2 }') (printf to a file)"
  [ptrace]="rastrace trace on -e ptrace (save file)")
for tool in bpf bpf_log bpftrace ptrace; do
  label=${labels[$tool]}
  b=$base
  [ "$tool" = ptrace ] && b=$base_small
  m=$(echo "${samples[$tool]}" | tr ' ' '\n' | grep . | median)
  awk -v l="$label" -v m="$m" -v b="$b" 'BEGIN { printf "%-44s %12.0f %14.2f\n", l, m, (m - b) / 2000 }'
done
