#!/usr/bin/env bash
# Configures and builds one variant into its own directory.
#   ci/build.sh [default|asan|clang|tsan]     (default: default -> build/)
set -euo pipefail
cd "$(dirname "$0")/.."

variant=${1:-default}
jobs=$(nproc)
case "$variant" in
default) dir=build; cc=gcc; opts=() ;;
asan)    dir=build-asan; cc=gcc; opts=(-DMLX5EMU_ASAN=ON -DMLX5EMU_UBSAN=ON -DCMAKE_BUILD_TYPE=Debug) ;;
clang)   dir=build-clang; cc=clang; opts=(-DMLX5EMU_ASAN=ON -DMLX5EMU_UBSAN=ON -DMLX5EMU_FUZZ=ON) ;;
tsan)    dir=build-tsan; cc=clang; opts=(-DMLX5EMU_TSAN=ON) ;;
*) echo "ci/build.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac

# Debian's interpreter: the one that sees python3-pyverbs and python3-scapy.
CC=$cc cmake -S . -B "$dir" -DPython3_EXECUTABLE=/usr/bin/python3 "${opts[@]}" >/dev/null
cmake --build "$dir" -j"$jobs"
