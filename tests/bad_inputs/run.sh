#!/usr/bin/env bash
# Runs every *.case of this directory against the real commands and compares the exit status and
# standard error exactly (docs/reliability.md, "Inputs never crash the tools").
#
# A case file:   cmd: TOOL ARGS...        (run in this directory; {TMP} is a scratch directory)
#                status: N
#                stdout-contains: TEXT    (optional, any number)
#                stdout-to: FILE          (optional: standard output goes there, e.g. /dev/full)
#                stderr:                  (the rest of the file is the expected standard error)
# Usage: run.sh BIN_DIR [CASE...]. A case whose tool is not built is skipped.
set -uo pipefail
bin=${1:?usage: run.sh BIN_DIR [CASE...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(*.case)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 ran=0 skipped=0
for case in "${cases[@]}"; do
  name=${case%.case}
  cmd=$(sed -n 's/^cmd: //p' "$case" | head -1)
  want_status=$(sed -n 's/^status: //p' "$case" | head -1)
  want_err=$(sed -n '/^stderr:$/,$p' "$case" | tail -n +2)
  : >"$tmp/out"
  tool=${cmd%% *}
  if [ ! -x "$bin/$tool" ]; then
    skipped=$((skipped + 1))
    continue
  fi
  scratch="$tmp/$name"
  mkdir -p "$scratch"
  args=${cmd#"$tool"}
  args=${args//\{TMP\}/$scratch}
  # Word splitting on purpose: case commands hold no quoted arguments.
  # shellcheck disable=SC2086
  out_to=$(sed -n 's/^stdout-to: //p' "$case" | head -1)
  timeout 60 "$bin/$tool" $args >"${out_to:-$tmp/out}" 2>"$tmp/err"
  status=$?
  got_err=$(cat "$tmp/err")
  ran=$((ran + 1))
  problem=""
  [ "$status" = "$want_status" ] || problem="exit status $status, expected $want_status"
  if [ "$status" -ge 124 ]; then problem="crashed or hung (status $status)"; fi
  if [ -z "$problem" ] && [ "$got_err" != "$want_err" ]; then
    problem="standard error differs:"$'\n'"$(diff <(echo "$want_err") <(echo "$got_err"))"
  fi
  while IFS= read -r text; do
    [ -z "$text" ] && continue
    grep -qF -- "$text" "$tmp/out" || problem="${problem:-standard output lacks '$text'}"
  done < <(sed -n 's/^stdout-contains: //p' "$case")
  if [ -n "$problem" ]; then
    echo "FAIL $name: $cmd"
    echo "$problem"
    failed=$((failed + 1))
  fi
done
echo "bad inputs: $ran run, $failed failed, $skipped skipped (tool not built)"
[ "$failed" -eq 0 ]
