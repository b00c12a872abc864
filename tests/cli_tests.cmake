# The CLI's contract: exit codes (README, DESIGN §8), messages that name the problem, and the
# issue-12 list (each row below says which problem it pins).
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh)
set(CLI_WORK ${CMAKE_CURRENT_BINARY_DIR}/cli)
file(MAKE_DIRECTORY ${CLI_WORK})
# Labels: cli;sanitize, and release where Z3 changes what the test runs (the Z3 blocks below and
# the audits that prove "fixed in"): tools/test.sh runs those in the release build as well.
set(CLI_LABELS "cli;sanitize")
# cli_test(name code regex args...): chunkproof <args> exits <code>, output matches <regex>
# ('!regex': must not match).
function(cli_test name code regex)
  add_test(NAME cli.${name} COMMAND ${EXPECT} ${code} ${regex} $<TARGET_FILE:chunkproof> ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS "${CLI_LABELS}" WORKING_DIRECTORY ${CLI_WORK})
endfunction()
# The same, with the regex matched across lines (for the order of things in the output).
function(cli_test_z name code regex)
  add_test(NAME cli.${name} COMMAND ${EXPECT} -z ${code} ${regex} $<TARGET_FILE:chunkproof> ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS "${CLI_LABELS}" WORKING_DIRECTORY ${CLI_WORK})
endfunction()
# A shell pipeline (for stdin and environment): `chunkproof` in it is the binary under test.
function(cli_test_sh name code regex script)
  add_test(NAME cli.${name} COMMAND ${EXPECT} ${code} ${regex} bash -c "chunkproof() { \"$<TARGET_FILE:chunkproof>\" \"$@\"; }; ${script}")
  set_tests_properties(cli.${name} PROPERTIES LABELS "${CLI_LABELS}" WORKING_DIRECTORY ${CLI_WORK})
endfunction()

set(MI300X "platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16")
set(BUG "version=v1-dcp ${MI300X}")
set(OK "version=v6-current ${MI300X}")
set(SMALL "version=v6-current platform=cuda workspace=256 block=16 dcp=2 interleave=1 ctx=300,40 q=4,4")
cli_test(plan_mi300x_assert 1 "assert fired: max_context_chunk % dcp_world_size == 0 \\(M=21845" plan --case ${BUG})
cli_test(plan_mi300x_v6_ok 0 "ok: every invariant holds" plan --case ${OK})
cli_test(plan_json 1 "\"status\":\"assert\"" plan --json --case ${BUG})
# Issue 24 item 3: where the MI300X batch broke and where it was fixed, one line per version.
cli_test_z(plan_across_versions_fixed_in 1 "v1-dcp +assert +I-6.*v6-current +ok"
           plan --across-versions --case "${MI300X}")
# Issue 27: every engine on one batch (the registry's families and versions), one line each.
cli_test(plan_across_engines_tokenspeed 1 "tokenspeed-compact +violation +I-9,T-3"
         plan --across-engines --case "workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16")
cli_test(plan_across_engines_refusal 1 "trtllm-current +refused +key 'dcp'"
         plan --across-engines --case "workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16")
cli_test(plan_across_engines_json 1 "\"schema\":\"chunkproof.across/1\".*\"version\":\"atom-fixed\""
         plan --across-engines --json --case "platform=rocm workspace=128 block=16 dcp=2 ctx=100,100,100,100,100 q=4,4,4,4,4")
cli_test(plan_unknown_key 2 "key 'colour'" plan --case "version=v6-current colour=red ${MI300X}")
cli_test(plan_interleave_not_dividing 2 "key 'interleave'.*does not divide"
         plan --case "version=v6-current workspace=100 block=64 dcp=2 interleave=3 ctx=5 q=4")
cli_test(plan_negative 2 "key 'workspace'" plan --case "version=v6-current workspace=-1 block=64 ctx=5 q=4")
cli_test(plan_overflow 2 "key 'ctx'" plan --case "version=v6-current workspace=64 block=64 ctx=9223372036854775808 q=4")
cli_test(plan_too_many_chunks 2 "simulation limit"
         plan --case "version=v3-pr46114 workspace=1 block=1 ctx=200000000 q=4")
cli_test(plan_missing_case 2 "missing --case" plan)
cli_test(plan_unknown_option 2 "--frobnicate" plan --frobnicate)
cli_test(unknown_command 2 "unknown command" frobnicate)
cli_test(help 0 "plan" --help)
cli_test(plan_help 0 "case keys" plan --help)
cli_test(versions 0 "v6-current" versions)
cli_test(invariants 0 "I9_reorg_exact" invariants)
cli_test(demo_plan_stage 0 "unexpected" demo --stage plan --work-dir ${CLI_WORK}/demo)

# 1. Exit codes that cannot lie: repeated single options, stray positionals, every --case runs.
cli_test(plan_two_cases_worst_wins 1 "2 case\\(s\\). exit 1" plan --case ${OK} --case ${BUG})
cli_test(plan_two_cases_order 1 "2 case\\(s\\). exit 1" plan --case ${BUG} --case ${OK})
cli_test(plan_stray_positionals 2 "not expected" plan ${OK} ${BUG})
cli_test(plan_repeated_single_option 2 "--rows.*received 2" plan --rows 10 --rows 20 --case ${OK})
cli_test(check_two_cases_worst_wins 1 "2 case\\(s\\). exit 1" check --case ${BUG} --case ${OK})
cli_test(check_stray_positional 2 "not expected" check --case ${OK} extra)
cli_test(versions_stray_positional 2 "not expected" versions extra)
cli_test_sh(check_empty_version 2 "--version selects nothing" "chunkproof check --random 2 --version ''")
# 2. Cases from files and stdin; `# expect` lines honoured; replay.
file(WRITE ${CLI_WORK}/two.cases "# a comment\n${OK}\n\n# another\n${SMALL}\n")
file(WRITE ${CLI_WORK}/wrong-expect.case "# bug: the expectation is wrong on purpose\n# expect v1-dcp: ok\n${BUG}\n")
file(WRITE ${CLI_WORK}/bad-line.cases "${OK}\nversion=v6-current colour=red\n")
cli_test(plan_cases_file 0 "2 case\\(s\\). exit 0" plan --cases ${CLI_WORK}/two.cases)
cli_test(plan_cases_file_bad_line 2 "key .colour.*bad-line.cases:2" plan --cases ${CLI_WORK}/bad-line.cases)
cli_test(plan_cases_missing_file 2 "cannot read cases" plan --cases ${CLI_WORK}/nope.cases)
cli_test(plan_fuzz_style_file 0 "expect +assert: met"
         plan --cases ${PROJECT_SOURCE_DIR}/corpus/regressions/mi300x-dcp8-per-step-assert.case)
cli_test(plan_expect_not_met 1 "NOT MET" plan --cases ${CLI_WORK}/wrong-expect.case)
cli_test_sh(plan_cases_stdin 1 "assert fired" "printf '# from stdin\\n%s\\n' '${BUG}' | chunkproof plan --cases -")
cli_test(check_cases_file 0 "2 case\\(s\\). exit 0" check --path exact --cases ${CLI_WORK}/two.cases)
cli_test(replay_corpus 0 " 0 not" replay ${PROJECT_SOURCE_DIR}/corpus/regressions)
cli_test(replay_wrong_expect 1 "FAIL .*expected ok, got assert" replay ${CLI_WORK}/wrong-expect.case)
cli_test(replay_json 0 "\"schema\":\"chunkproof.replay/1\".*\"met\":true"
         replay --json ${PROJECT_SOURCE_DIR}/corpus/regressions/mi300x-dcp8-per-step-assert.case)
cli_test(replay_missing_file 2 "cannot read" replay ${CLI_WORK}/nope.case)
cli_test(replay_needs_a_file 2 "files is required" replay)
# 3. JSON everywhere, errors included; docs/json.md checked against real output.
cli_test(check_random_json 0 "^\\{\"schema\":\"chunkproof.check-random/1\"" check --random 20 --version v6-current --json)
cli_test(bench_json 0 "\"schema\":\"chunkproof.bench/1\"" bench --json --jobs 1 --case ${SMALL})
cli_test(demo_json 0 "\"schema\":\"chunkproof.demo/1\"" demo --json --stage plan --work-dir ${CLI_WORK}/demo)
cli_test(error_json 2 "\\{\"schema\":\"chunkproof.error/1\".*\"kind\":\"bad_case\".*colour"
         plan --json --case "version=v6-current colour=red")
add_test(NAME json_schemas COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/json_schema_check.py
                                   ${PROJECT_SOURCE_DIR}/docs/json.md $<TARGET_FILE:chunkproof> ${PROJECT_SOURCE_DIR})
set_tests_properties(json_schemas PROPERTIES LABELS "cli;sanitize")
# 4. One flag vocabulary: comma lists, all/both, duplicates removed, --jobs/--threads.
cli_test(check_random_all_both 0 "v6-current/cuda,v6-current/rocm"
         check --random 4 --version v6-current,v6-current --platform both --jobs 2)
cli_test(check_random_lists 0 "v5-packed/cuda,v5-packed/rocm,v6-current/cuda,v6-current/rocm"
         check --random 8 --version v5-packed --version v6-current,v5-packed --platform all --threads 2)
cli_test(check_random_progress_not_on_pipes 0 "!check --random: [0-9]" check --random 60 --version v6-current --path exact)
cli_test(check_random_progress_forced 0 "check --random: [0-9]+/" check --random 100 --version v6-current --path exact --progress)
cli_test(check_random_max_time 3 "out of --max-time after" check --random 100000000 --version v6-current --max-time 1)
add_test(NAME cli.check_random_interrupt_summary
         COMMAND ${EXPECT} 3 "interrupted after [0-9]+ of 100000000"
                 timeout --preserve-status -s INT 2 $<TARGET_FILE:chunkproof> check --random 100000000 --version v6-current)
set_tests_properties(cli.check_random_interrupt_summary PROPERTIES LABELS "cli;sanitize")
# 5. Bounded resources: an estimate before running, naming the keys.
cli_test(plan_max_memory 2 "over --max-memory.*keys workspace, ctx, dcp"
         plan --max-memory 1G --case "version=v6-current platform=cuda workspace=1073741824 block=1024 dcp=2 interleave=1 ctx=67108864 q=4")
cli_test(check_max_memory 2 "over --max-memory.*keys q"
         check --case "version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 ctx=100 q=1048576 dims=deepseek-v3")
cli_test(max_memory_bad_value 2 "--max-memory" plan --max-memory lots --case ${OK})
# 6. Writable folders first.
cli_test(demo_unwritable_work_dir 2 "--work-dir: cannot create or write" demo --stage plan --work-dir /dev/null/x)
if(TARGET chunkproof_campaign)
  cli_test(fuzz_unwritable_findings 2 "--findings-dir: cannot create or write"
           fuzz --engine builtin --max-time 1 --findings-dir /dev/null/x)
  cli_test(fuzz_versions_all 2 "--findings-dir: cannot create or write"  # `all` is accepted: the folder check comes next
           fuzz --version all --platform both --max-time 1 --findings-dir /dev/null/x)
  # The report's expected-correct list is the one given (it once appended the default to itself).
  cli_test_sh(fuzz_report_expect_correct_once 0 "!v6-current,v5-packed"
              "rm -rf fz-ec && chunkproof fuzz --engine builtin --version v6-current --platform cuda --max-time 1 --findings-dir fz-ec/f --no-status > /dev/null && grep 'expected correct' fz-ec/f/report.md")
endif()
# 7. --version, help CMD, exit 4 for what this machine cannot do.
cli_test_z(version 0 "chunkproof [0-9]+\\.[0-9]+.*gpu backend:.*solver:.*fuzz engine:" --version)
cli_test(version_json 0 "\"schema\":\"chunkproof.version/1\"" --version --json)
cli_test(help_command 0 "Usage: chunkproof check" help check)
cli_test(help_unknown_command 2 "unknown command" help frobnicate)
cli_test(usage_lists_exit_4 0 "4 this machine cannot run it" --help)
cli_test(check_gpu_same_options 4 "GPU" check --device gpu --random 3 --version v6-current --platform rocm --seed 7)
cli_test(bench_gpu_cannot_run 4 "GPU" bench --device gpu)
# Issue 24: pins on fuzz (exact values; the minimised findings keep them) and map.
cli_test(fuzz_pin_unknown_key 2 "key 'blok': not a pinnable key \\(block, dcp"
         fuzz --engine builtin --pin blok=64 --max-time 1 --findings-dir ${CLI_WORK}/fz-pin-bad)
cli_test(fuzz_pin_keeps_the_deployment 1 "^ +version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=[0-9,]+ q=[0-9,]+$"
         fuzz --engine builtin --version v1-dcp --platform rocm --pin block=64,dcp=8,workspace=65536 --seed 1 --max-time 2
         --minimize-time 2 --no-status --findings-dir ${CLI_WORK}/fz-pin)
cli_test(map_pin_alias 1 "block=64 dcp=8"
         map --version v1-dcp --platform rocm --x prefills=1..4 --y ctx=100,30000 --pin block=64,dcp=8 --format csv --out -)
# --stop-on ends a built-in campaign at its first matching finding (it ran to --max-time before);
# the findings met on the way are kept (their number depends on the decoder's stream).
cli_test(fuzz_builtin_stop_on 1 "assert: max_context_chunk % dcp_world_size == 0"
         fuzz --engine builtin --version v1-dcp --platform rocm --stop-on "max_context_chunk % dcp_world_size" --seed 1
         --max-time 60 --minimize-time 1 --no-status --findings-dir ${CLI_WORK}/fz-stop-on)
cli_test(fuzz_no_fuzzer_build 4 "no libFuzzer build|built without the fuzz runner"
         fuzz --fuzzer-bin ${CLI_WORK}/no-such-fuzzer --max-time 1 --findings-dir ${CLI_WORK}/fz/f --corpus-dir ${CLI_WORK}/fz/c)
add_test(NAME cli.completion_script COMMAND bash -n ${PROJECT_SOURCE_DIR}/tools/chunkproof/completion.bash)
set_tests_properties(cli.completion_script PROPERTIES LABELS "cli;sanitize")

if(TARGET chunkproof_smt)
  set(CLI_LABELS "cli;sanitize;release")
  # prove: empty selections, repeated lists, duplicates, folders (Z3 builds only).
  set(P1 --platform cuda --invariant I-1 --no-cache)
  cli_test_sh(prove_empty_version 2 "--version selects nothing" "chunkproof prove --version ''")
  cli_test(prove_comma_version 2 "selects nothing" prove --version ",")
  cli_test(prove_repeated_version 1 "COUNTEREXAMPLE"
           prove --version v1-dcp --version v6-current --invariant I-1 --platform rocm --no-cache)
  cli_test(prove_duplicate_invariant 0 "!\"invariant\":\"I-1\".*\"invariant\":\"I-1\""
           prove --json --version v6-current --invariant I-1,I-1 --platform cuda --no-cache)
  cli_test_sh(prove_unwritable_cache 0 "warning: no cache.*" "XDG_CACHE_HOME=/dev/null/x HOME=/dev/null/y chunkproof prove --version v6-current --platform cuda --invariant I-1")
  cli_test(prove_unwritable_save_regression 2 "--save-regression: cannot create or write.*nothing was run"
           prove --version v1-dcp ${P1} --save-regression /dev/null/x)
  cli_test(prove_unwritable_emit 2 "--emit-smt2: cannot create or write" prove ${P1} --emit-smt2 /dev/null/x)
  cli_test(prove_emit_only_needs_dir 2 "--emit-only needs --emit-smt2" prove ${P1} --emit-only)
  cli_test_z(prove_prints_before_saving 1 "COUNTEREXAMPLE.*reproduce: .*saved: "
             prove --version v1-dcp --platform rocm --invariant I-1 --no-cache --save-regression ${CLI_WORK}/saved)
  cli_test(prove_timeout_alias 0 "PROVED" prove --version v6-current ${P1} --timeout 30 --threads 1)
  # Issue 24 item 4: prove's progress line counts the cases (smt::count_cases) with an estimate; on
  # a pipe (--progress) the first line at once (the --max-time cap: "at most ... left"), the last
  # at 100%, and one line per case beside them.
  cli_test_z(prove_progress 0 "prove: 0/([0-9]+) cases \\(0%\\), [0-9.]+ s, at most 9 min [0-9]+ s left.*v6-current/cuda I-2 .*prove: \\1/\\1 cases \\(100%\\)"
             prove --progress --max-time 600 --version v6-current --platform cuda --invariant I-1,I-2 --no-cache)
  cli_test(prove_no_progress_on_pipes 0 "!prove: [0-9]+/" prove --version v6-current ${P1})
  # Issue 24: --max-time is the whole command's budget (the full v6 table takes ~40 s without a
  # cache): the rows not finished are UNKNOWN, exit 3, and the line says why.
  cli_test(prove_max_time_is_the_whole_budget 3 "--max-time reached after .* row\\(s\\) not run"
           prove --version v6-current --no-cache --max-time 2)
  cli_test(prove_query_timeout_alias 0 "PROVED" prove --version v6-current ${P1} --query-timeout 30)
  set(CLI_LABELS "cli;sanitize")
else()
  cli_test(prove_no_solver 4 "no SMT prover" prove --version v6-current)
endif()

# Issue 24: case-line shorthand, "did you mean", --summary, help help, --json once, --json on
# map/export/compare, and `audit` (the user's deployment in the user's words).
cli_test(case_repeat 1 "ctx=30000,30000,30000 q=16,16,16"
         plan --case "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000*3 q=16*3")
cli_test(case_repeat_bad_count 2 "key 'ctx'.*repeat count" plan --case "version=v6-current workspace=64 block=16 ctx=5*0 q=4")
cli_test(case_enum_case_insensitive 1 "case +version=v1-dcp platform=rocm "
         plan --case "version=V1-DCP platform=ROCm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000*3 q=16*3")
cli_test(case_did_you_mean_key 2 "key 'blok': unknown key \\(did you mean 'block'\\?\\)"
         plan --case "version=v6-current workspace=64 blok=16 ctx=5 q=4")
cli_test(case_did_you_mean_version 2 "unknown version 'v6-curent' \\(did you mean 'v6-current'\\?\\)"
         plan --case "version=v6-curent workspace=64 block=16 ctx=5 q=4")
cli_test(case_did_you_mean_platform 2 "did you mean 'rocm'" plan --case "version=v6-current platform=rcom workspace=64 block=16 ctx=5 q=4")
cli_test(did_you_mean_command 2 "unknown command 'plna' \\(did you mean 'plan'\\?\\)" plna)
cli_test(did_you_mean_option 2 "--jsn.*did you mean '--json'" plan --jsn --case ${OK})
cli_test(did_you_mean_version_option 2 "--version: unknown version 'v1dcp' \\(did you mean 'v1-dcp'\\?\\)"
         check --random 2 --version v1dcp)
cli_test(help_help 0 "usage: chunkproof <command>" help help)
cli_test(json_twice 2 "--json given 2 times" plan --json --json --case ${OK})
cli_test(plan_summary 1 "^v1-dcp +--case 1  assert  violated=.*assert=max_context_chunk % dcp_world_size == 0 \\(M=21845"
         plan --summary --case ${BUG})
cli_test_z(plan_summary_lines 1 "^v6-current +--case 1  ok  violated=none  assert=none\nv1-dcp +--case 2  assert.*\n\n2 case\\(s\\). exit 1"
           plan --summary --case ${OK} --case ${BUG})
cli_test(plan_summary_json_excluded 2 "excludes" plan --summary --json --case ${OK})
cli_test(check_summary 0 "^v6-current +--case 1  ok  violated=none  assert=none  check=bits identical"
         check --summary --path exact --case ${SMALL})
cli_test(replay_summary 0 "mi300x-dcp8-per-step-assert.case:[0-9]+  assert  .*expect=assert:met"
         replay --summary ${PROJECT_SOURCE_DIR}/corpus/regressions/mi300x-dcp8-per-step-assert.case)
if(TARGET chunkproof_heatmap)
  # Issue 24: the PNG through librsvg + Cairo, no external program (the PNG signature checked).
  if(TARGET PkgConfig::CHUNKPROOF_RSVG)
    cli_test_sh(map_png_through_cairo 0 "^89504e470d0a1a0a$"
                "chunkproof map --version v6-current --platform rocm --x prefills=1..4 --y dcp=1,2 --out ${CLI_WORK}/map-png.svg >/dev/null && od -An -tx1 -N8 ${CLI_WORK}/map-png.png | tr -d ' \\n'")
  endif()
  cli_test(map_json 1 "^\\{\"schema\":\"chunkproof.map/1\".*\"exit_code\":1"
           map --json --version v1-dcp --platform rocm --x prefills --y dcp --out ${CLI_WORK}/map-json.svg)
endif()
cli_test_sh(export_json 0 "^\\{\"schema\":\"chunkproof.export/1\".*\"exit_code\":0"
            "chunkproof export --json --device cpu --case '${SMALL}' --out ${CLI_WORK}/export-json")
cli_test(compare_json_bad_input 2 "\"schema\":\"chunkproof.error/1\".*\"command\":\"compare\""
         compare --json --out ${CLI_WORK}/cmp-json ${CLI_WORK}/no-export ${CLI_WORK}/no-result)
set(SEED_SERVE "--decode-context-parallel-size 8 --block-size 64 --max-num-seqs 256 --max-model-len 163840")
cli_test(audit_tables 0 "TRITON_MLA.*either" audit --tables)
# With Z3 these two prove "fixed in" too (release label: tools/test.sh runs them there as well).
set(CLI_LABELS "cli;sanitize;release")
cli_test_z(audit_seed_v1 1 "pinned +version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1.*worst batch version=v1-dcp .*ctx=[0-9]+,[0-9]+,[0-9]+ q=.*M=21845 W=8.*65536 // 3 = 21845.*no aot_schedule.*fixed in +v5-packed.*v3-pr46114: FINDING: .*violation: I-13"
           audit --serve ${SEED_SERVE} --backend TRITON_MLA --platform MI300X --vllm v1-dcp --workspace 65536 --max-time 2)
cli_test(audit_case_line_form 1 "worst batch version=v1-dcp"
         audit --deployment "platform=rocm workspace=65536 block=64 dcp=8 interleave=1" --vllm v1-dcp --max-time 1 --no-fixed-in)
cli_test(audit_json 1 "^\\{\"schema\":\"chunkproof.audit/1\".*\"verdict\":\"FINDING\".*\"fixed_in\":\\{\"version\":\"v5-packed\""
         audit --json --serve ${SEED_SERVE} --backend TRITON_MLA --platform rocm --vllm v1-dcp --workspace 65536 --max-time 1)
set(CLI_LABELS "cli;sanitize")
cli_test(audit_unknown_backend 2 "--backend: unknown MLA backend 'TRITON_ML' \\(did you mean 'TRITON_MLA'\\?\\).*accepted: "
         audit --serve ${SEED_SERVE} --backend TRITON_ML --platform rocm --vllm v1-dcp)
cli_test(audit_unknown_release 2 "--vllm: unknown release or commit 'v0.0.1'"
         audit --serve ${SEED_SERVE} --backend TRITON_MLA --platform rocm --vllm v0.0.1)
cli_test(audit_bad_flag_value 2 "flag --block-size: expected a positive integer, got 'sixty'"
         audit --serve "--block-size sixty --decode-context-parallel-size 8" --backend FLASHMLA --vllm main --workspace 65536)
cli_test(audit_backend_platform_clash 2 "ROCM_AITER_MLA runs on rocm, not on platform cuda"
         audit --serve ${SEED_SERVE} --backend ROCM_AITER_MLA --platform H100 --vllm main)
cli_test(audit_tp_dcp 2 "DCP size to divide the TP size"
         audit --serve "${SEED_SERVE} --tensor-parallel-size 4" --backend TRITON_MLA --platform rocm --vllm main)
cli_test(audit_needs_platform 2 "TRITON_MLA runs on CUDA and ROCm: give --platform"
         audit --serve ${SEED_SERVE} --backend TRITON_MLA --vllm main)
if(TARGET chunkproof_smt)
  set(CLI_LABELS "cli;sanitize;release")
  cli_test_z(audit_seed_v6_holds 0 "pinned +version=v6-current platform=rocm workspace=65536 block=64 dcp=8.*0 finding.*prove +PROVED.*verdict +PROVED on v6-current"
             audit --serve ${SEED_SERVE} --backend TRITON_MLA --platform MI300X --vllm v6-current --workspace 65536 --max-time 2 --prove-time 300)
  cli_test(prove_pin 0 "pinned block=64 dcp=8" prove --version v6-current --platform rocm --invariant I-1 --no-cache --pin block=64,dcp=8)
  set(CLI_LABELS "cli;sanitize")
else()
  cli_test(audit_seed_v6_no_solver 3 "NO FINDING \\(not proved\\)"
           audit --serve ${SEED_SERVE} --backend TRITON_MLA --platform MI300X --vllm v6-current --workspace 65536 --max-time 2 --prove-time 300)
endif()
# map: axes with values (ranges, lists), the base value always on its axis, csv and table, --out first.
if(TARGET chunkproof_heatmap)
  cli_test_z(map_table 1 "workspace: 16384,32768,49152,65536,81920.*\n3  AA.AA.AA\n"
             map --version v1-dcp --platform rocm --x workspace=16384..131072:16384 --y prefills=1..8 --format table)
  cli_test(map_csv_stdout 1 "^workspace,prefills,outcome,case"
           map --version v1-dcp --platform rocm --x workspace=16384,65536 --y prefills=1..4 --format csv --out -)
  cli_test(map_axis_holds_the_base_value 1 "^65536,3,assert: max_context_chunk"
           map --version v1-dcp --platform rocm --x workspace --y prefills --format csv --out -)
  cli_test(map_out_checked_first 2 "--out: cannot create or write.*nothing was computed"
           map --version v1-dcp --platform rocm --x workspace --y prefills --out /dev/null/x/map.svg)
  cli_test(map_bad_axis 2 "--x/--y workspace: empty range" map --version v1-dcp --platform rocm --x workspace=10..5 --y prefills)
  cli_test(map_json_needs_out 2 "--json with --format table needs --out"
           map --json --version v1-dcp --platform rocm --x workspace --y prefills --format table)
endif()
# JSON and reports: null (JSON) or nothing (text) for "none", never -1.
cli_test(plan_json_null_not_minus_one 1 "\"schema\":\"chunkproof.plan/4\".*\"chunk\":null.*\"rank\":null" plan --json --case ${BUG})
cli_test(plan_json_no_minus_one 1 "!\":-1[,}]" plan --json --case ${BUG})
if(TARGET chunkproof_campaign)
  cli_test_sh(fuzz_detail_no_minus_one 0 "!(chunk|request|rank|row) -1"
              "rm -rf fz-nm && chunkproof fuzz --engine builtin --version v1-dcp --platform rocm --max-time 2 --findings-dir fz-nm/f --corpus-dir fz-nm/c --no-status > /dev/null; grep -rh '# detail' fz-nm/f; true")
endif()

# Issue 24 item 1: every long command shows progress, and SIGINT/SIGTERM keep the results so far
# (exit 3 within 2 s, nothing of its group left: tests/interrupt_exit.sh). prove's is
# tests/smt/test_prove_interrupt.cpp, fuzz with libFuzzer's tests/fuzz/campaign_kill_test.sh.
set(INTERRUPT ${CMAKE_CURRENT_SOURCE_DIR}/interrupt_exit.sh)
function(interrupt_test name sig delay regex)
  add_test(NAME cli.${name} COMMAND ${INTERRUPT} ${sig} ${delay} ${regex} $<TARGET_FILE:chunkproof> ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS "cli" WORKING_DIRECTORY ${CLI_WORK} TIMEOUT 60)
endfunction()
# The stop is polled once per sub-batch of 512 rows: with all 128 heads one sub-batch takes ~3.5 s
# under ASan (CI), so the interrupt tests sample 2 heads (check) or run 8 heads (export's CPU
# reference computes every head).
set(LONG_CASE "version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 ctx=60000 q=16 dims=deepseek-v3")
interrupt_test(check_case_interrupt INT 2 "interrupted \\(SIGINT\\) in case 1 of 1 \\(--case 1\\) after [0-9]+ of [0-9]+ rows"
               check --path exact --sample-heads 2 --case ${LONG_CASE})
interrupt_test(export_interrupt TERM 2 "interrupted \\(SIGTERM\\).*wrote +.*manifest.json only"
               export --device cpu --out ${CLI_WORK}/export-interrupt --case "${LONG_CASE} heads=8")
interrupt_test(audit_interrupt TERM 2 "interrupted SIGTERM.*verdict +NO FINDING \\(interrupted\\)"
               audit --deployment "platform=rocm workspace=65536 block=64 dcp=8 interleave=1" --vllm v6-current
               --max-time 60 --batches 1000000000)
cli_test_z(check_case_progress 0 "check --case 1: [0-9]+/[0-9]+ rows \\(100%\\).*chunk 1/1, pass 2/2, 16 of 16 heads \\(--sample-heads"
           check --path exact --progress --case "version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 ctx=2000 q=4 heads=16")
cli_test(audit_progress 1 "audit v1-dcp: search: [0-9]+ batches"
         audit --progress --deployment "platform=rocm workspace=65536 block=64 dcp=8 interleave=1" --vllm v1-dcp --max-time 1 --no-fixed-in)
if(TARGET chunkproof_heatmap)
  interrupt_test(map_interrupt TERM 1.5 "interrupted after [0-9]+ of 819400 cells"
                 map --version v6-current --platform rocm --x ctx=1..4096:1 --y q=2..201:1 --format csv
                 --out ${CLI_WORK}/map-interrupt.csv)
  cli_test(map_progress 0 "map: 16/16 cells \\(100%\\)"
           map --progress --version v6-current --platform rocm --x prefills=1..4 --y dcp=1,2,4,8 --format csv --out -)
endif()
if(TARGET chunkproof_campaign)
  # An interrupted campaign with no finding is inconclusive (it exited 0).
  interrupt_test(fuzz_builtin_interrupt INT 2 "interrupted. [0-9]+ executions.*distinct finding"
                 fuzz --engine builtin --version v6-current --platform cuda --max-time 60
                 --findings-dir ${CLI_WORK}/fz-int/f --corpus-dir ${CLI_WORK}/fz-int/c --no-status)
  # Item 2: raw signatures of one root cause are one entry; item 3: report.html with the maps inline.
  cli_test_sh(fuzz_root_causes 0 "^## Findings: [0-9]+ root cause\\(s\\), [0-9]+ raw signature\\(s\\).* [1-9][0-9]*$"
              "rm -rf fz-rc && chunkproof fuzz --engine builtin --version v1-dcp --platform rocm --seed 1 --max-time 3 --minimize-time 1 --findings-dir fz-rc/f --corpus-dir fz-rc/c --no-status; echo \"$(grep -h '^## Findings' fz-rc/f/report.md) $(grep -c '<svg' fz-rc/f/report.html)\"")
endif()
# Item 3: audit --html, one page with the maps inline.
cli_test_sh(audit_html 0 "worst batch.*<svg.*<svg"
            "rm -f audit.html && chunkproof audit --deployment 'platform=rocm workspace=65536 block=64 dcp=8 interleave=1' --vllm v1-dcp --max-time 1 --fixed-in-prove-time 5 --html audit.html > /dev/null; tr -d '\\n' < audit.html")
cli_test(audit_html_unwritable 2 "--html: cannot create or write" audit --deployment "platform=rocm workspace=65536 block=64 dcp=8 interleave=1" --vllm v1-dcp --html /dev/null/x/a.html)
# Item 4: prove --save-regression without a folder writes under the user's data folder.
if(TARGET chunkproof_smt)
  set(CLI_LABELS "cli;sanitize;release")
  cli_test_sh(prove_save_regression_data_folder 1 "saved: .*/xdg-data/chunkproof/regressions/smt-v1-dcp-rocm-I-1.case"
              "rm -rf xdg-data && XDG_DATA_HOME=$PWD/xdg-data chunkproof prove --version v1-dcp --platform rocm --invariant I-1 --no-cache --save-regression")
  set(CLI_LABELS "cli;sanitize")
endif()
# Item 5: the range form of a case line (one case per value), its errors naming the key.
cli_test_z(case_sweep_range 1 "v1-dcp +--case 1 \\[dcp=1\\]  violation.*--case 1 \\[dcp=8\\]  assert.*8 case\\(s\\). exit 1"
           plan --summary --case "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=1..8 interleave=1 ctx=30000*3 q=16*3")
cli_test(case_sweep_step 0 "5 case\\(s\\). exit 0" plan --summary --case "version=v6-current platform=cuda workspace=16384..65536:16384 block=64 ctx=100 q=4" --case ${OK})
cli_test(case_sweep_empty 2 "key 'dcp': empty sweep '8..1'" plan --case "version=v1-dcp workspace=64 block=16 dcp=8..1 ctx=5 q=4")
cli_test(versions_json 0 "^\\{\"schema\":\"chunkproof.versions/1\"" versions --json)
cli_test(invariants_json 0 "\"schema\":\"chunkproof.invariants/1\"" invariants --json)
