#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: what .ci/run calls.
#  - the main job (ci/main.sh: packages, the gcc build, programs on it);
#  - gcc build: every test (unit Check suites, the third-party judges, the
#    documents' commands);
#  - gcc ASan+UBSan build: the unit suites, then the third-party judges
#    over its libraries with the ASan runtime preloaded;
#  - clang ASan+UBSan build: must compile warning-free, its unit suites
#    pass, and the command fuzzer runs for a minute (tests/fuzz/);
#  - clang ThreadSanitizer build: the device model's concurrency suites.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/main.sh
status=0

(cd build && ctest --output-on-failure --timeout 1800) || status=1

bash ci/build.sh asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure -L unit --timeout 600) || status=1

# Third-party programs (ibverbs-utils, perftest's ldd, pyverbs) over the
# ASan build's drop-in libraries, the sanitizer runtime preloaded; their own
# leaks are not ours, so leak detection is off here.
(cd build-asan && LD_PRELOAD=$(gcc -print-file-name=libasan.so) \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure -L compat --timeout 1800) || status=1

bash ci/build.sh clang
(cd build-clang && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --output-on-failure -L 'unit|fuzz' --timeout 600) || status=1

# The device model's concurrency (object tables, contexts, the engine, the
# event path: interrupts, channels, the provider's fds) under TSan, MANA's
# included: its test PMD reads a CQE's owner byte with an acquire load
# before the rest, and its doorbell stores, which the page traps and never
# reach memory, are kept out of TSan's view.
bash ci/build.sh tsan
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 \
	ctest --output-on-failure -L unit \
	-R '^test_(fw|kern|dev|fault|trace|eng|events|mana)_' --timeout 900) || status=1

if [ $status -ne 0 ]; then
	echo "ci/test.sh: FAILED" >&2
fi
exit $status
