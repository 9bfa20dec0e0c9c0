#!/usr/bin/env bash
# The main job: install, build, and run unmodified rdma-core programs on the
# emulated devices through the mlx5emu command, alone and then two processes
# talking RDMA over the wire.
set -euo pipefail
cd "$(dirname "$0")/.."

# Until some socket listens on TCP port $1: server $2 is ready for its
# client.  Fails when the server is gone or after 30 s.
wait_listen() {
	local port
	port=$(printf '%04X' "$1")
	for _ in $(seq 300); do
		grep -Eq ":$port [0-9A-F]+:[0-9A-F]{4} 0A " /proc/net/tcp /proc/net/tcp6 && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "nothing listens on TCP port $1" >&2
	kill "$2" 2>/dev/null
	return 1
}

bash ci/deps.sh
bash ci/build.sh default
echo "== mlx5emu run -- ibv_devinfo -v   (Debian's ibv_devinfo on the drop-in libraries)"
build/bin/mlx5emu run -- ibv_devinfo -v
echo "== mlx5emu run --trace -- mlx5emu-devx-example   (DEVX, every firmware command traced)"
build/bin/mlx5emu run --trace -- build/bin/mlx5emu-devx-example

# Each process's port writes a pcap of its frames there.
rm -rf build/capture
mkdir -p build/capture
export MLX5EMU_WIRE_CAPTURE=$PWD/build/capture
echo "== ibv_rc_pingpong: a server and a client process over the wire (RoCE v2, GID 3)"
build/bin/mlx5emu run -- ibv_rc_pingpong -g 3 -n 50 -c &
wait_listen 18515 $!
build/bin/mlx5emu run -- ibv_rc_pingpong -g 3 -n 50 -c localhost
wait $!
echo "== ib_write_bw: the same with perftest's RDMA WRITE bandwidth test"
build/bin/mlx5emu run -- ib_write_bw -x 3 -n 100 &
wait_listen 18515 $!
build/bin/mlx5emu run -- ib_write_bw -x 3 -n 100 localhost
wait $!
echo "== the captures, one per process and port (tshark -r FILE reads them as RoCE)"
ls build/capture
