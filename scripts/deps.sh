#!/usr/bin/env bash
# Installs the Debian packages rastrace needs to build and test, when any is missing.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
          libfmt-dev libcli11-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
          libzstd-dev libelf-dev libdw-dev babeltrace2 python3 lld
          libbpf-dev bpftool libsqlite3-dev sqlite3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "rastrace: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    # Debian installs sudo only when the installer was given no root password.
    command -v sudo >/dev/null || {
      echo "rastrace: run as root (or install sudo) to install ${missing[*]}" >&2
      exit 1
    }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
