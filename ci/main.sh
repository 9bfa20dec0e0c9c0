#!/usr/bin/env bash
# The main job: install, build, and show the emulated devices to an
# unmodified rdma-core program.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/deps.sh
bash ci/build.sh default
echo "== ibv_devices over the drop-in libraries (build/lib)"
LD_LIBRARY_PATH=build/lib ibv_devices
