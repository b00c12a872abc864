# bash completion for chunkproof (installed as share/bash-completion/completions/chunkproof;
# or: source tools/chunkproof/completion.bash). Versions and invariants come from the binary.
_chunkproof() {
  local cur prev cmd
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  cmd=${COMP_WORDS[1]}
  local commands="plan check prove fuzz bench demo replay export compare versions invariants help --version --help"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    return
  fi
  case "$prev" in
    --version|--expect-correct)
      COMPREPLY=($(compgen -W "all $("${COMP_WORDS[0]}" versions 2>/dev/null | awk '{print $1}')" -- "$cur"))
      return;;
    --invariant)
      COMPREPLY=($(compgen -W "all $("${COMP_WORDS[0]}" invariants 2>/dev/null | awk '{print $1}')" -- "$cur"))
      return;;
    --platform) COMPREPLY=($(compgen -W "cuda rocm both" -- "$cur")); return;;
    --path) COMPREPLY=($(compgen -W "exact vllm both" -- "$cur")); return;;
    --device) COMPREPLY=($(compgen -W "cpu gpu" -- "$cur")); return;;
    --target) COMPREPLY=($(compgen -W "planner dcp_index case_parser merge" -- "$cur")); return;;
    --engine) COMPREPLY=($(compgen -W "libfuzzer builtin" -- "$cur")); return;;
    --cases|--fuzzer-bin) COMPREPLY=($(compgen -f -- "$cur")); return;;
    --emit-smt2|--cache|--save-regression|--corpus-dir|--findings-dir|--work-dir)
      COMPREPLY=($(compgen -d -- "$cur")); return;;
  esac
  local opts=""
  case "$cmd" in
    plan) opts="--case --cases --json --rows --max-memory --help";;
    check) opts="--case --cases --path --json --jobs --threads --random --version --platform --seed --max-time
                 --progress --device --quiet --max-memory --help";;
    prove) opts="--version --platform --invariant --domain --jobs --threads --max-time --timeout --rlimit --seed
                 --emit-smt2 --emit-only --cache --no-cache --save-regression --json --help";;
    fuzz) opts="--version --platform --target --max-time --jobs --threads --corpus-dir --findings-dir --fuzzer-bin
                --engine --expect-correct --stop-on --differential --seed --minimize-time --no-status --json --help";;
    bench) opts="--case --cases --deepseek --jobs --threads --repeat --device --json --max-memory --help";;
    demo) opts="--quick --stage --work-dir --json --help";;
    replay) opts="--json --quiet --max-memory --help"; COMPREPLY=($(compgen -f -- "$cur"));;
    export) opts="--case --out --device --sample-heads --threads --help";;
    compare) opts="--out --bound-rel --bound-lse --detector-ratio --help"; COMPREPLY=($(compgen -d -- "$cur"));;
    versions|invariants) opts="--json --help";;
    help) opts="plan check prove fuzz bench demo replay export compare versions invariants";;
  esac
  COMPREPLY+=($(compgen -W "$opts" -- "$cur"))
}
complete -F _chunkproof chunkproof
