#!/usr/bin/env bash
# The main job: install, build, and run unmodified rdma-core programs on the
# emulated devices through the mlx5emu command.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/deps.sh
bash ci/build.sh default
echo "== mlx5emu run -- ibv_devinfo -v   (Debian's ibv_devinfo on the drop-in libraries)"
build/bin/mlx5emu run -- ibv_devinfo -v
echo "== mlx5emu run --trace -- mlx5emu-devx-example   (DEVX, every firmware command traced)"
build/bin/mlx5emu run --trace -- build/bin/mlx5emu-devx-example
