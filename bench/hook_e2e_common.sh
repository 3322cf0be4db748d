# Sourced by the bench scripts that run bench/hook_e2e.c under `rastrace record` (hook_e2e.sh,
# record_growth_loss.sh). With `root` (the source tree) and `build` set: checks the build, makes
# `work` (removed at exit), builds $work/hook_e2e against include/ and the SHARED library, and
# defines hook_e2e_program and lost.
for f in "$build/lib/librastrace.so" "$build/bin/rastrace" "$build/bench/session_log_counts"; do
  [ -e "$f" ] || { echo "missing $f: build rastrace first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# hook_e2e_program OUT LIBDIR [CFLAGS...]: hook_e2e.c built against include/ and the
# librastrace.so in LIBDIR (-DRASTRACE_OUT_OF_LINE_HOOKS: every hook a call into the library, as
# before the inline fast path, and as a library older than it needs).
hook_e2e_program() {
  local out=$1 lib=$2
  shift 2
  cc -O2 -Wall "$@" -I"$root/include" -o "$out" "$root/bench/hook_e2e.c" \
    -L"$lib" -Wl,-rpath,"$lib" -lrastrace -lpthread
}
hook_e2e_program "$work/hook_e2e" "$build/lib"
# Events the log of the last run counts as lost (its 006 events: programs' threads and the
# writer's own).
lost() { "$build/bench/session_log_counts" "$work/log" | awk '{print $2 + $4}'; }
