#!/usr/bin/env bash
# Installs the build into a temporary prefix, checks that every piece is there, then builds and
# runs a small traced program against the installed tree, once with find_package(rastrace) and
# once with pkg-config.
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

fail=0
need() { [ -e "$prefix/$1" ] || { echo "missing from the install tree: $1"; fail=1; }; }
for cmd in rastrace trcrpt trcupdate trace trcon trcoff trcstop trcust tracefmt; do
  need "bin/$cmd"
  need "share/man/man1/$cmd.1"
  need "share/bash-completion/completions/$cmd"
done
for f in lib/librastrace.so lib/librastrace.a lib/libposixtrace.so lib/libposixtrace.a \
         include/rastrace/trchk.h include/rastrace/trchk_inline.h include/rastrace/trace.hpp \
         include/trace.h \
         share/rastrace/trcfmt share/man/man3/posix_trace_create.3 \
         lib/cmake/rastrace/rastraceConfig.cmake lib/cmake/rastrace/rastraceTargets.cmake \
         lib/pkgconfig/rastrace.pc lib/pkgconfig/posixtrace.pc; do
  need "$f"
done
# build/bin holds commands and example programs only: test binaries live in build/tests. What the
# build makes there is checked (ninja's list of its own outputs), not the directory: an older
# build tree may still hold a file no rule makes any more (bin/rastrace_test_pch, before it moved
# to build/tests).
if [ -f "$build/build.ninja" ] && command -v ninja >/dev/null; then
  in_bin=$(ninja -C "$build" -t targets all | sed -n 's|^bin/\([^:/]*\): .*|\1|p')
else
  in_bin=$(cd "$build/bin" && ls)
fi
for f in $in_bin; do
  case $f in
    rastrace | trcrpt | trcupdate | trace | trcon | trcoff | trcstop | trcust | tracefmt) ;;
    *-example | posix-trace-example) ;;
    *) echo "not a command, but built in $build/bin: $f"; fail=1 ;;
  esac
done
[ "$fail" = 0 ] || exit 1

# find_package(rastrace) consumer.
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer" "$work/cmake.trc"
"$prefix/bin/rastrace" dump "$work/cmake.trc" | grep -q "ID 0420" ||
  { echo "the CMake consumer's hook is not in its log"; exit 1; }

# pkg-config consumer, C.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc "$src/tests/install/consumer/consumer.c" $(pkg-config --cflags --libs rastrace) \
  -Wl,-rpath,"$prefix/lib" -o "$work/pc-consumer"
"$work/pc-consumer" "$work/pc.trc"
"$prefix/bin/trcrpt" -t "$prefix/share/rastrace/trcfmt" "$work/pc.trc" | grep -q "TRACE ON" ||
  { echo "the installed trcrpt did not format the pkg-config consumer's log"; exit 1; }
cc -x c - $(pkg-config --cflags --libs posixtrace) -Wl,-rpath,"$prefix/lib" -o "$work/px" <<'C'
#include <trace.h>
int main(void) { trace_attr_t a; return posix_trace_attr_init(&a) || posix_trace_attr_destroy(&a); }
C
"$work/px"
echo "install tree complete; CMake and pkg-config consumers built and ran"
