# bash completion for the rastrace commands. Installed once per command name; bash-completion
# loads it when the command is first completed.

_rastrace_files() { mapfile -t COMPREPLY < <(compgen -f -- "$1"); compopt -o filenames 2>/dev/null; }
_rastrace_dirs() { mapfile -t COMPREPLY < <(compgen -d -- "$1"); compopt -o filenames 2>/dev/null; }
_rastrace_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2"); }

_rastrace_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local cmd=${COMP_WORDS[0]##*/}
  case $cmd in
    rastrace)
      if ((COMP_CWORD == 1)); then
        _rastrace_words "dump export merge record recover sql --help" "$cur"; return
      fi
      case ${COMP_WORDS[1]} in
        record)
          case $prev in -o) _rastrace_files "$cur"; return ;; --clock) _rastrace_words "auto tsc monotonic" "$cur"; return ;; esac
          [[ $cur == -* ]] && { _rastrace_words "-o -l -f -T -L -s -c -j -k --channels --clock --shm-path --memory-only --buffered-io --" "$cur"; return; } ;;
        export)
          case $prev in -f|--format) _rastrace_words "ctf chrome jsonl csv" "$cur"; return ;;
            --partition) _rastrace_dirs "$cur"; return ;; --machine|--part-name) return ;; esac
          [[ $cur == -* ]] && { _rastrace_words "-f --format -o --output -t --templates --tracefs --event --slice --counter --no-text --force -n --name --partition --machine --part-name" "$cur"; return; } ;;
        sql)
          case $prev in -f|--file|--save|-t|--templates) _rastrace_files "$cur"; return ;;
            --format) _rastrace_words "text csv json" "$cur"; return ;; -q|--query) return ;; esac
          [[ $cur == -* ]] && { _rastrace_words "-q --query -f --file --format --save --force -t --templates --no-text --tracefs -n --name" "$cur"; return; } ;;
        merge|dump|recover)
          [[ $cur == -* ]] && { _rastrace_words "-o --force -n -R -h --help" "$cur"; return; } ;;
      esac
      _rastrace_files "$cur" ;;
    trcrpt)
      case $prev in -o|-t) _rastrace_files "$cur"; return ;;
        -O) _rastrace_words "ids=on exec=on pid=on tid=on cpuid=on svc=on 2line=on hist=on timestamp=0 timestamp=1 timestamp=2 timestamp=3 pagesize= starttime= endtime=" "$cur"; return ;;
      esac
      [[ $cur == -* ]] && { _rastrace_words "-c -d -e -h -j -k -m -n -o -p -q -r -s -t -T -v -x -O --jobs" "$cur"; return; }
      _rastrace_files "$cur" ;;
    trcupdate)
      [[ $cur == -* ]] && { _rastrace_words "-o -t -v -x" "$cur"; return; }
      _rastrace_files "$cur" ;;
    trace)
      if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then _rastrace_words "on off" "$cur"; return; fi
      case $prev in
        -o) _rastrace_files "$cur"; return ;;
        -e|--engine) _rastrace_words "auto bpf ptrace" "$cur"; return ;;
      esac
      [[ $cur == -* ]] && { _rastrace_words "-a -d -f -l -s -c -n -g -o -T -L -j -k -C -x -p -e --engine --log --ring-size --" "$cur"; return; }
      _rastrace_files "$cur" ;;
    trcon|trcoff|trcstop)
      _rastrace_words "-0 -1 -2 -3 -4 -5 -6 -7" "$cur" ;;
    trcust)
      case $prev in -o|--output-dir) _rastrace_dirs "$cur"; return ;; --header|-C|--combine) _rastrace_files "$cur"; return ;; esac
      [[ $cur == -* ]] && { _rastrace_words "-o --output-dir --header -C --combine -h --help" "$cur"; return; }
      _rastrace_files "$cur" ;;
    tracefmt)
      case $prev in -t|--tff-dir) _rastrace_dirs "$cur"; return ;; esac
      [[ $cur == -* ]] && { _rastrace_words "-t --tff-dir -M --major -m --minor -p --pid --no-summary -h --help" "$cur"; return; }
      _rastrace_files "$cur" ;;
  esac
}
complete -F _rastrace_complete rastrace trcrpt trcupdate trace trcon trcoff trcstop trcust tracefmt
