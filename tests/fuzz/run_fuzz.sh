#!/usr/bin/env bash
# Runs a libFuzzer target from freshly generated seeds for a while.
#
#   run_fuzz.sh FUZZER SEED_GENERATOR WORKDIR SECONDS
#
# WORKDIR/seeds is rewritten by the generator; WORKDIR/corpus keeps what the
# fuzzer found interesting across runs; a crash leaves its input in WORKDIR
# (crash-*, leak-*, timeout-*) and fails.  The last lines are libFuzzer's
# final statistics (stat::number_of_executed_units: executions).
set -euo pipefail
fuzzer=$(realpath "$1") seeds_gen=$(realpath "$2") work=$3 seconds=$4
mkdir -p "$work/seeds" "$work/corpus"
work=$(realpath "$work")
rm -f "$work"/seeds/*
"$seeds_gen" "$work/seeds"
echo "run_fuzz.sh: $(ls "$work/seeds" | wc -l) seeds, $(ls "$work/corpus" | wc -l) corpus entries, ${seconds} s"
cd "$work"
# The corpus directory comes first: libFuzzer writes new inputs there.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
exec "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
	-print_final_stats=1 -artifact_prefix="$work/" corpus seeds
