#!/bin/sh
# plugin_hooks.sh "CC [FLAGS]" INCLUDE_DIR LIB_DIR BIN_DIR SOURCE_DIR WORK: builds plugin.c as a
# shared library linked with librastrace and a program that dlopens it, runs the program under
# `rastrace record`, and checks that trcrpt finds every one of the plugin's hooks, in order.
set -eu
# CC may carry sanitizer flags (a program loading an instrumented library is instrumented too).
cc=$1 include=$2 lib=$3 bin=$4 source=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
$cc -O2 -fPIC -shared -I"$include" -o "$work/libplugin.so" "$source/plugin.c" \
  -L"$lib" -Wl,-rpath,"$lib" -lrastrace
$cc -O2 -o "$work/main" "$source/plugin_main.c" -ldl
"$bin/rastrace" record -o "$work/log" -- "$work/main" "$work/libplugin.so" 1000
"$bin/trcrpt" "$work/log" > "$work/report"
# Every hook, in order: the first data word counts 0..999, the second is 7.
expected=$(i=0; while [ $i -lt 1000 ]; do printf '%016X 0000000000000007\n' $i; i=$((i + 1)); done)
actual=$(grep '^055 ' "$work/report" | awk '{print $(NF-1), $NF}')
[ "$actual" = "$expected" ] || {
  echo "FAIL: the report's plugin hooks ($(echo "$actual" | grep -c .) lines) are not 0..999 in order" >&2
  exit 1
}
echo "ok: 1000 hooks from a dlopened plugin, in order"
