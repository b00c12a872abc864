#!/usr/bin/env bash
# Installs chunkproof's build and test dependencies on a fresh Debian 12 machine.
# Every dependency is a Debian package, found by CMake the standard way.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
pkgs=(
  cmake ninja-build g++ clang libclang-rt-14-dev   # build; clang + libFuzzer for the fuzzers
  clang-19 libclang-rt-19-dev                        # the ASan+UBSan build (compiles ~1.4x faster than g++ 12)
  googletest libgtest-dev librapidcheck-dev          # tests
  libz3-dev z3 pkg-config                            # the SMT prover (z3 CLI re-checks --emit-smt2)
  libbenchmark-dev zip python3                       # benchmarks, OSS-Fuzz seed zips
  libcli11-dev nlohmann-json3-dev                    # the CLI (options, --json), export/compare manifests
  librsvg2-dev                                       # PNG pictures: librsvg renders our SVGs onto a Cairo surface
  libcmark-gfm-dev libcmark-gfm-extensions-dev       # the HTML report: GitHub-flavoured markdown (tables) to HTML
  universal-ctags                                    # tests/function_length.sh (no function over 150 lines)
  ccache                                             # tools/test.sh: the HIP build's host objects reuse the release build's
  python3-torch                                      # the Python runner's CPU tests (torch-math; 1.13)
)
if [ "${CHUNKPROOF_WITH_HIP:-1}" = 1 ]; then
  pkgs+=(hipcc libamdhip64-dev lld-19 clang-tools-19)  # compile check of the HIP kernels (gfx90a, gfx942)
  pkgs+=(libamd-comgr-dev rocm-device-libs)  # CMake's HIP language with clang-19 (hip-lang-config's dependencies): the HIP build in CI
fi
# Multi-GPU (`--ranks`): NCCL's nccl.h/libnccl ship with the CUDA install (CMake finds them next to
# the toolkit, or under NCCL_ROOT); RCCL is not packaged in Debian (ROCm installs ship it), so
# the HIP build here is built without it and CI compiles the collective layer against NCCL's
# header through kernels/cmake/rccl-api-shim instead.
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all packages present"
