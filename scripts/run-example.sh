#!/usr/bin/env bash
# The main job on the bundled example: record a traced program, then print its report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
out=build/example
mkdir -p "$out"
log="$out/example.trc"
rm -f "$log"
./build/bin/rastrace record -o "$log" -- ./build/bin/rastrace-example
if [ -x build/bin/trcrpt ]; then
  ./build/bin/trcrpt -t templates/trcfmt "$log"
else
  ./build/bin/rastrace dump "$log"
fi
