#!/usr/bin/env bash
# A long fuzzing run (CI runs each target for a minute; see tests/fuzz/).
#   ci/fuzz.sh [SECONDS]      (default 1800)
# Builds the clang variant (ASan, UBSan, libFuzzer) into build-clang/ and
# runs the DEVX command fuzzer from fresh seeds; what it finds is kept in
# build-clang/tests/fuzz/devx/ (corpus/, crash-*).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1800}
bash ci/deps.sh
bash ci/build.sh clang
bash tests/fuzz/run_fuzz.sh build-clang/tests/fuzz/fuzz_devx_cmd \
	build-clang/tests/fuzz/fuzz_devx_seeds build-clang/tests/fuzz/devx "$seconds"
