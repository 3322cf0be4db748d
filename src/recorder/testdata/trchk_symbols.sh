#!/bin/sh
# trchk_symbols.sh CC INCLUDE_DIR SOURCE WORK: compiles SOURCE (testdata/trchk_check.c) twice, with
# the inline fast path and with RASTRACE_OUT_OF_LINE_HOOKS, and checks from each object's undefined
# symbols which path its hooks take.
set -eu
cc=$1 include=$2 source=$3 work=$4
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
undefined() { nm -u "$1" | awk '{print $NF}'; }

"$cc" -O2 -c -I"$include" -o "$work/inline.o" "$source"
syms=$(undefined "$work/inline.o")
for s in rastrace_thread_producer_v1 rastrace_rseq_offset rastrace_hook0_slow rastrace_hook5t_slow; do
  echo "$syms" | grep -qx "$s" || fail "the inline hooks do not use $s: $(echo $syms)"
done
echo "$syms" | grep -qx 'rastrace_hook5t' && fail "an inline TRCHKL5T calls rastrace_hook5t"

"$cc" -O2 -c -DRASTRACE_OUT_OF_LINE_HOOKS -I"$include" -o "$work/out_of_line.o" "$source"
syms=$(undefined "$work/out_of_line.o")
for s in rastrace_hook0 rastrace_hook5 rastrace_hook0t rastrace_hook5t rastrace_gen rastrace_gent; do
  echo "$syms" | grep -qx "$s" || fail "RASTRACE_OUT_OF_LINE_HOOKS: no call of $s"
done
echo "$syms" | grep -q 'rastrace_thread_producer_v1\|_slow$' && fail "RASTRACE_OUT_OF_LINE_HOOKS still inlines: $(echo $syms)"
echo "ok: inline hooks use the producer line; RASTRACE_OUT_OF_LINE_HOOKS calls the library"
