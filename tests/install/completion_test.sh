#!/usr/bin/env bash
# Drives the completion function as bash would and checks what it offers.
set -uo pipefail
source "$1"
compopt() { :; }  # only meaningful inside a real completion
complete_words() {  # complete_words WORD... : completes the last word
  COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
  _rastrace_complete
  printf '%s\n' "${COMPREPLY[@]}"
}
fail=0
expect() {  # expect "what" "offer" WORD...
  local what=$1 offer=$2; shift 2
  complete_words "$@" | grep -qx -- "$offer" || { echo "FAIL: $what: '$offer' not offered"; fail=1; }
}
expect "rastrace sub-commands" export rastrace ex
expect "rastrace sub-commands" record rastrace ""
expect "export formats" ctf rastrace export --format c
expect "trcrpt -O options" timestamp=1 trcrpt -O timestamp=1

expect "trcrpt flags" --jobs trcrpt --j
expect "trace on/off" on trace o
expect "trace on engines" bpf trace on x.tsf -e b
expect "tracefmt flags" --tff-dir tracefmt --tff
expect "trcstop channels" -3 trcstop -3
[ "$fail" = 0 ] && echo "completion checks passed" || exit 1
