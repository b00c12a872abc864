# The CLI's contract: exit codes (DESIGN §8) and messages that name the problem.
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh)
function(cli_test name code regex)
  add_test(NAME cli.${name} COMMAND ${EXPECT} ${code} ${regex} $<TARGET_FILE:chunkproof> ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS "cli;sanitize")
endfunction()

set(MI300X "platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16")
cli_test(plan_mi300x_assert 1 "assert fired: max_context_chunk % dcp_world_size == 0 \\(M=21845"
         plan --case "version=v1-dcp ${MI300X}")
cli_test(plan_mi300x_v6_ok 0 "ok: every invariant holds" plan --case "version=v6-current ${MI300X}")
cli_test(plan_json 1 "\"status\":\"assert\"" plan --json --case "version=v1-dcp ${MI300X}")
cli_test(plan_unknown_key 2 "key 'colour'" plan --case "version=v6-current colour=red ${MI300X}")
cli_test(plan_interleave_not_dividing 2 "key 'interleave'.*does not divide"
         plan --case "version=v6-current workspace=100 block=64 dcp=2 interleave=3 ctx=5 q=4")
cli_test(plan_negative 2 "key 'workspace'" plan --case "version=v6-current workspace=-1 block=64 ctx=5 q=4")
cli_test(plan_overflow 2 "key 'ctx'" plan --case "version=v6-current workspace=64 block=64 ctx=9223372036854775808 q=4")
cli_test(plan_too_many_chunks 2 "simulation limit"
         plan --case "version=v3-pr46114 workspace=1 block=1 ctx=200000000 q=4")
cli_test(plan_missing_case 2 "missing --case" plan)
cli_test(plan_unknown_option 2 "unknown option" plan --frobnicate)
cli_test(unknown_command 2 "unknown command" frobnicate)
cli_test(help 0 "plan" --help)
cli_test(plan_help 0 "case keys" plan --help)
cli_test(versions 0 "v6-current" versions)
cli_test(invariants 0 "I9_reorg_exact" invariants)
cli_test(demo_plan_stage 0 "unexpected" demo --stage plan --work-dir ${CMAKE_CURRENT_BINARY_DIR}/demo)
