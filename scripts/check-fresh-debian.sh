#!/usr/bin/env bash
# Proves the README's two commands work on a fresh Debian 12: debootstraps a minbase bookworm
# into a folder, adds only git and ca-certificates (what a clone needs), clones this repository's
# committed state into it and runs, as root in the chroot,
#   bash ./scripts/run-example.sh
#   RASTRACE_QUICK=1 bash ./scripts/test.sh
# then checks that the toolchains of test.sh's later steps are present (ASan+UBSan and TSan
# builds of small parts, one libFuzzer target built and run briefly). Everything else (compilers,
# cmake, libraries) must come from scripts/deps.sh, which is the point of the check.
#
# Needs root (debootstrap, mount, chroot). Exit status: 0 passed, 1 failed, 77 skipped (the
# mirror cannot be reached). The chroot is deleted at the end unless RASTRACE_FRESH_KEEP=1.
# Environment:
#   RASTRACE_FRESH_ROOT     the chroot folder (default /var/tmp/deb12; deleted and rebuilt)
#   RASTRACE_FRESH_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   RASTRACE_FRESH_SECURITY security mirror (default http://deb.debian.org/debian-security)
#   RASTRACE_FRESH_KEEP=1   keep the chroot (unmounted) for a look afterwards
#   RASTRACE_FRESH_JOBS     jobs of the sanitizer and fuzzer builds (default 2; the README's
#                           commands use nproc); everything inside runs under nice -n 10
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${RASTRACE_FRESH_ROOT:-/var/tmp/deb12}
mirror=${RASTRACE_FRESH_MIRROR:-http://deb.debian.org/debian}
security=${RASTRACE_FRESH_SECURITY:-http://deb.debian.org/debian-security}
jobs=${RASTRACE_FRESH_JOBS:-2}
started=$SECONDS
step() { printf '\n=== %s (at %ds)\n' "$*" "$((SECONDS - started))"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "check-fresh-debian: needs root (debootstrap, mount, chroot)" >&2
  exit 1
fi
case $root in
  /*/*) ;;
  *) echo "check-fresh-debian: RASTRACE_FRESH_ROOT must be an absolute path two levels deep" >&2
     exit 1 ;;
esac
root=${root%/}

mounted_under_root() {
  awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Processes a test left behind (a daemon, say) keep the mounts busy: end those whose root is
# the chroot, by pid.
kill_chroot_processes() {
  local link pid
  for link in /proc/[0-9]*/root; do
    pid=${link#/proc/}
    pid=${pid%/root}
    if [ "$(readlink "$link" 2>/dev/null)" = "$root" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
}

unmount_all() {
  kill_chroot_processes
  local m
  # Deepest first, including what a test mounted inside (tracefs under sys/kernel/tracing).
  for m in $(mounted_under_root | awk '{ print length($0), $0 }' | sort -rn | cut -d' ' -f2-); do
    umount "$m" || { sleep 1; umount "$m"; } || echo "check-fresh-debian: cannot unmount $m" >&2
  done
  [ -z "$(mounted_under_root)" ]
}

remove_root() {
  [ -e "$root" ] || return 0
  # Only what this script made: a (partial) debootstrap, or an empty folder.
  if [ ! -e "$root/etc/debian_version" ] && [ ! -d "$root/debootstrap" ] &&
    [ -n "$(ls -A "$root")" ]; then
    echo "check-fresh-debian: $root is not a chroot of this script, not deleting it" >&2
    return 1
  fi
  if ! unmount_all; then
    echo "check-fresh-debian: still mounted, not deleting $root:" >&2
    mounted_under_root >&2
    return 1
  fi
  # --one-file-system: even if a mount appeared meanwhile, never descend into the host's /dev.
  rm -rf --one-file-system "$root"
}

cleanup() {
  local status=$?
  if [ "${RASTRACE_FRESH_KEEP:-0}" = 1 ]; then
    unmount_all || echo "check-fresh-debian: mounts left under $root" >&2
  else
    remove_root || true
  fi
  rm -f "$root.debootstrap.log"
  echo "check-fresh-debian: exit $status after $((SECONDS - started))s"
}

in_chroot() {
  # A clean environment: nothing from the host's (CC, CXX, RASTRACE_*) leaks in.
  nice -n 10 chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

step "check the mirror $mirror"
release="$mirror/dists/bookworm/Release"
reachable=1
if command -v curl >/dev/null; then
  curl -fsSI --max-time 30 "$release" >/dev/null || reachable=0
elif command -v wget >/dev/null; then
  wget -q --spider --timeout=30 "$release" || reachable=0
fi
if [ "$reachable" = 0 ]; then
  echo "check-fresh-debian: SKIPPED, $release cannot be reached"
  exit 77
fi
if ! command -v debootstrap >/dev/null; then
  echo "check-fresh-debian: installing debootstrap" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

step "remove what an earlier run left in $root"
remove_root
trap cleanup EXIT

step "debootstrap --variant=minbase bookworm $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || {
  tail -30 "$root.debootstrap.log"
  exit 1
}
rm -f "$root.debootstrap.log"
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

step "mount proc, sys, dev, dev/pts, dev/shm, tmp"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
# A slave: the devpts and shm mounts below must not propagate to the host's /dev.
mount --make-slave "$root/dev"
mount -t devpts -o newinstance,gid=5,mode=620,ptmxmode=666 devpts "$root/dev/pts"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"

step "apt-get install git ca-certificates (all a fresh machine needs to clone)"
in_chroot sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
  apt-get install -y -qq git ca-certificates >/dev/null'

step "git clone $repo (committed state, $(git -C "$repo" rev-parse --short HEAD))"
git -c safe.directory="$repo" clone -q --no-hardlinks "$repo" "$root/root/rastrace"

step "README command 1: bash ./scripts/run-example.sh"
in_chroot sh -c "cd /root/rastrace && bash ./scripts/run-example.sh" >"$root/root/example.out" 2>&1 || {
  tail -60 "$root/root/example.out"
  exit 1
}
# The report: what follows the build's last line.
awk '/^\[[0-9]+\/[0-9]+\]/ { n = NR } { line[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print line[i] }' \
  "$root/root/example.out"
if [ ! -s "$root/root/rastrace/build/example/example.trc" ]; then
  echo "check-fresh-debian: run-example.sh recorded no log" >&2
  exit 1
fi

step "README command 2, first step: RASTRACE_QUICK=1 bash ./scripts/test.sh"
in_chroot sh -c "cd /root/rastrace && RASTRACE_QUICK=1 bash ./scripts/test.sh" \
  >"$root/root/test.out" 2>&1 || status=$?
grep -E "tests passed|tests failed|\*\*\*Skipped|\(Failed\)|\(Timeout\)|SEGFAULT" \
  "$root/root/test.out" || true
if [ "${status:-0}" -ne 0 ]; then
  tail -80 "$root/root/test.out"
  exit 1
fi

step "test.sh's later steps: ASan+UBSan and TSan builds of small parts, one fuzzer built and run"
# Full sanitizer builds take an hour on two cores; these prove their toolchain pieces (libasan,
# libubsan, libtsan, clang with libFuzzer) are installed by deps.sh. Only the parts' own labels
# run: bad_inputs needs every command.
in_chroot bash -euo pipefail -c "cd /root/rastrace
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRASTRACE_SANITIZE=ON \
    -DRASTRACE_BENCH=OFF -DRASTRACE_PARTS=common >/dev/null
  cmake --build build-asan -j$jobs >/dev/null
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 ctest --test-dir build-asan -j$jobs \
    --output-on-failure --timeout 600 -L common_test | grep 'tests passed'
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRASTRACE_TSAN=ON \
    -DRASTRACE_BENCH=OFF -DRASTRACE_PARTS='common;event;buffer' >/dev/null
  cmake --build build-tsan -j$jobs >/dev/null
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan -j$jobs --output-on-failure \
    --timeout 600 -L '^buffer' | grep 'tests passed'
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRASTRACE_FUZZ=ON -DRASTRACE_TESTS=OFF -DRASTRACE_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j$jobs --target event_reader_fuzzer >/dev/null
  mkdir -p /tmp/corpus
  cp -r fuzz/corpus/event_reader_fuzzer/. /tmp/corpus/ 2>/dev/null || true
  ./build-fuzz/fuzz/event_reader_fuzzer -max_total_time=5 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 /tmp/corpus 2>&1 | grep -E 'stat::number_of_executed_units|Done'" \
  >"$root/root/later.out" 2>&1 || {
  tail -60 "$root/root/later.out"
  exit 1
}
cat "$root/root/later.out"

step "passed: both README commands work on a fresh Debian 12 (minbase + git + ca-certificates)"
