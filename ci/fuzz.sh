#!/usr/bin/env bash
# A long fuzzing run (CI runs each target for a minute; see tests/fuzz/).
#   ci/fuzz.sh [SECONDS] [devx|eth|mana|mana_fw|wire|wqe] (default 1800 devx)
# Builds the clang variant (ASan, UBSan, libFuzzer) into build-clang/ and
# runs one fuzzer from fresh seeds: devx, the DEVX command path
# (fuzz_devx_cmd), eth, the packet library (fuzz_eth), mana, the MANA
# queue mechanics (fuzz_mana), mana_fw, the MANA firmware's control
# messages (fuzz_mana_fw), or wire, received frames through the port and
# the RC/UD transport (fuzz_wire), or wqe, send queues through the
# requester and the transport (fuzz_wqe); what it finds is kept in build-clang/tests/fuzz/<target>/ (corpus/, crash-*).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-1800}
target=${2:-devx}
case "$target" in
devx) fuzzer=fuzz_devx_cmd seeds=fuzz_devx_seeds ;;
eth)  fuzzer=fuzz_eth seeds=fuzz_eth_seeds ;;
mana) fuzzer=fuzz_mana seeds=fuzz_mana_seeds ;;
mana_fw) fuzzer=fuzz_mana_fw seeds=fuzz_mana_fw_seeds ;;
wire) fuzzer=fuzz_wire seeds=fuzz_wire_seeds ;;
wqe)  fuzzer=fuzz_wqe seeds=fuzz_wqe_seeds ;;
*) echo "ci/fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
bash ci/deps.sh
bash ci/build.sh clang
bash tests/fuzz/run_fuzz.sh "build-clang/tests/fuzz/$fuzzer" \
	"build-clang/tests/fuzz/$seeds" "build-clang/tests/fuzz/$target" "$seconds"
