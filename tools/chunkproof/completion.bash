# bash completion for chunkproof (installed as share/bash-completion/completions/chunkproof;
# or: source tools/chunkproof/completion.bash). Versions and invariants come from the binary.
_chunkproof() {
  local cur prev cmd
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  cmd=${COMP_WORDS[1]}
  local commands="plan check prove fuzz bench demo replay audit export compare map diff versions invariants help --version --help"
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
    --platform)
      if [ "$cmd" = audit ]; then COMPREPLY=($(compgen -W "cuda rocm MI300X MI325X MI355X H100 H200 B200" -- "$cur"))
      else COMPREPLY=($(compgen -W "cuda rocm both" -- "$cur")); fi
      return;;
    --backend)
      COMPREPLY=($(compgen -W "TRITON_MLA ROCM_AITER_MLA ROCM_AITER_MLA_SPARSE FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA CUTLASS_MLA FLASHINFER_MLA" -- "$cur"))
      return;;
    --vllm) COMPREPLY=($(compgen -W "main #46114 #47327 #50613 #51733 $("${COMP_WORDS[0]}" versions 2>/dev/null | awk '{print $1}')" -- "$cur")); return;;
    --serve-file) COMPREPLY=($(compgen -f -- "$cur")); return;;
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
    plan) opts="--case --cases --json --summary --rows --max-memory --planner-cmd --planner-timeout --version --help";;
    diff) opts="--planner-cmd --planner-timeout --version --case --cases --random --platform --seed --max-time --json
               --verbose --help";;
    check) opts="--case --cases --path --json --jobs --threads --random --version --platform --seed --max-time
                 --progress --device --quiet --max-memory --summary --help";;
    prove) opts="--version --platform --invariant --domain --pin --jobs --threads --max-time --timeout --rlimit --seed
                 --emit-smt2 --emit-only --cache --no-cache --save-regression --json --progress --help";;
    fuzz) opts="--version --platform --target --max-time --jobs --threads --corpus-dir --findings-dir --fuzzer-bin
                --engine --expect-correct --stop-on --differential --seed --minimize-time --no-status --json --help";;
    bench) opts="--case --cases --deepseek --jobs --threads --repeat --device --json --max-memory --help";;
    demo) opts="--quick --stage --work-dir --json --help";;
    replay) opts="--json --summary --quiet --max-memory --planner-cmd --planner-timeout --version --help"; COMPREPLY=($(compgen -f -- "$cur"));;
    export) opts="--case --out --device --sample-heads --threads --json --help";;
    compare) opts="--out --bound-rel --bound-lse --detector-ratio --json --help"; COMPREPLY=($(compgen -d -- "$cur"));;
    map) opts="--version --platform --x --y --fix --out --json --help";;
    audit) opts="--serve --serve-file --backend --platform --vllm --deployment --workspace --max-time --batches
                 --prove-time --fixed-in-prove-time --no-prove --no-fixed-in --max-requests --seed --jobs --threads
                 --tables --json --help";;
    versions|invariants) opts="--json --help";;
    help) opts="plan check prove fuzz bench demo replay audit export compare map diff versions invariants help";;
  esac
  COMPREPLY+=($(compgen -W "$opts" -- "$cur"))
}
complete -F _chunkproof chunkproof
