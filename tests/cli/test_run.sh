#!/usr/bin/env bash
# mlx5emu run: unmodified rdma-core programs on emulated devices, the
# options' variables, the exit statuses.
. "$(dirname "$0")/lib.sh"

out=$("$MLX5EMU" run -- ibv_devinfo 2>&1); rc=$?
expect_rc $rc 0 "run -- ibv_devinfo"
expect_in "$out" $'hca_id:\tmlx5_0' "ibv_devinfo"
expect_in "$out" $'vendor_id:\t\t\t0x02c9' "ibv_devinfo"
expect_in "$out" $'vendor_part_id:\t\t\t4125' "ibv_devinfo"
expect_in "$out" $'fw_ver:\t\t\t\t22.36.1010' "ibv_devinfo"
expect_in "$out" $'board_id:\t\t\tMT_0000000359' "ibv_devinfo"
expect_in "$out" "PORT_ACTIVE (4)" "ibv_devinfo"
expect_in "$out" $'link_layer:\t\tEthernet' "ibv_devinfo"

# -v: the program's own options are left alone.
out=$("$MLX5EMU" run ibv_devinfo -v 2>&1); rc=$?
expect_rc $rc 0 "run ibv_devinfo -v"
expect_in "$out" "GID[  3]:" "ibv_devinfo -v"
expect_in "$out" "RoCE v2" "ibv_devinfo -v"

out=$("$MLX5EMU" run --devices 2 --ports 2 -- ibv_devinfo -l 2>&1)
expect_in "$out" "2 HCAs found:" "--devices 2"
expect_in "$out" "mlx5_1" "--devices 2"
out=$("$MLX5EMU" run --devices 1 --ports 2 -- ibv_devinfo 2>&1)
expect_in "$out" $'phys_port_cnt:\t\t\t2' "--ports 2"
out=$("$MLX5EMU" run --devices 0 -- ibv_devices 2>&1)
expect_not_in "$out" "mlx5_0" "--devices 0"

# The environment the program gets.
out=$(LD_LIBRARY_PATH=/opt/x "$MLX5EMU" run --devices 3 --ports 1 \
	--fault 'fail opcode=CREATE_CQ' --fault 'delay ms=1 opcode=ALLOC_PD' \
	--trace=json:rel.jsonl -- sh -c 'env' 2>&1)
expect_in "$out" "LD_LIBRARY_PATH=$BUILD/lib:/opt/x" "LD_LIBRARY_PATH"
expect_in "$out" "MLX5EMU_NUM_DEVICES=3" "--devices"
expect_in "$out" "MLX5EMU_NUM_PORTS=1" "--ports"
expect_in "$out" "MLX5EMU_FAULTS=fail opcode=CREATE_CQ;delay ms=1 opcode=ALLOC_PD" "--fault"
expect_in "$out" "MLX5EMU_TRACE=json:$PWD/rel.jsonl" "--trace (absolute file)"

out=$(MLX5EMU_FAULTS='fail opcode=ALLOC_PD nth=9' "$MLX5EMU" run \
	--fault 'fail opcode=CREATE_CQ' -- sh -c 'echo "$MLX5EMU_FAULTS"')
expect_in "$out" "fail opcode=ALLOC_PD nth=9;fail opcode=CREATE_CQ" "--fault appends"
out=$("$MLX5EMU" run --trace -- sh -c 'echo "$MLX5EMU_TRACE"')
expect_in "$out" "text" "--trace alone"
echo "[trace]" >"$TMP/c.conf"
out=$(cd "$TMP" && "$MLX5EMU" run --config c.conf -- sh -c 'echo "$MLX5EMU_CONFIG"')
expect_in "$out" "$TMP/c.conf" "--config (absolute)"

# --backend: the variable and its check; what each kind gives on a machine
# without an RDMA device (the hw backend's own tests use tests/hwdouble).
out=$("$MLX5EMU" run --backend HW -- sh -c 'echo "$MLX5EMU_BACKEND"')
expect_in "$out" "HW" "--backend"
out=$("$MLX5EMU" run --backend bogus -- true 2>&1); expect_rc $? 125 "--backend bogus"
expect_in "$out" "--backend 'bogus': expected emu, hw or auto" "--backend bogus"
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	out=$("$MLX5EMU" run --backend auto -- ibv_devices 2>&1)
	expect_in "$out" "mlx5_0" "--backend auto without a device: emulated"
	expect_not_in "$out" "backend hw" "--backend auto is quiet"
	out=$("$MLX5EMU" run --backend hw -- ibv_devices 2>&1); rc=$?
	expect_rc $rc 0 "--backend hw without a device"
	expect_not_in "$out" "mlx5_0" "--backend hw without a device: no device"
	expect_in "$out" "mlx5emu: backend hw: no RDMA device" "--backend hw: one message"
	checks=$((checks + 1))
	[ "$(grep -c 'mlx5emu: backend hw' <<<"$out")" = 1 ] ||
		fail "--backend hw: more than one message: $out"
fi

# --deterministic: the mode, the seed, and no address randomization
# (personality bit ADDR_NO_RANDOMIZE, 0x0040000).
out=$("$MLX5EMU" run --deterministic=0x2a -- sh -c \
	'echo "$MLX5EMU_ENGINE_MODE $MLX5EMU_SEED"; cat /proc/self/personality')
expect_in "$out" "deterministic 0x2a" "--deterministic=SEED"
expect_in "$out" "00040000" "--deterministic: ASLR off"
out=$(MLX5EMU_SEED=9 "$MLX5EMU" run --deterministic -- sh -c \
	'echo "$MLX5EMU_ENGINE_MODE $MLX5EMU_SEED"')
expect_in "$out" "deterministic 9" "--deterministic keeps MLX5EMU_SEED"
out=$("$MLX5EMU" run -- cat /proc/self/personality)
expect_in "$out" "00000000" "ASLR stays on without --deterministic"
out=$("$MLX5EMU" run --deterministic=-1 -- true 2>&1); expect_rc $? 125 "bad seed"
expect_in "$out" "--deterministic=-1: expected a seed" "bad seed message"

# -v tells what it does, on stderr.
out=$("$MLX5EMU" run -v --devices 2 -- true 2>&1 >/dev/null)
expect_in "$out" "mlx5emu run: MLX5EMU_NUM_DEVICES=2" "-v"
expect_in "$out" "mlx5emu run: exec true" "-v"

# Exit statuses: the program's own, 125/126/127 for mlx5emu's.
"$MLX5EMU" run -- sh -c 'exit 7'; expect_rc $? 7 "program's status"
"$MLX5EMU" run -- /nonexistent/prog 2>/dev/null; expect_rc $? 127 "not found"
"$MLX5EMU" run -- /etc/passwd 2>/dev/null; expect_rc $? 126 "not executable"
"$MLX5EMU" run 2>/dev/null; expect_rc $? 125 "no program"
"$MLX5EMU" run --bogus -- true 2>/dev/null; expect_rc $? 125 "unknown option"
out=$("$MLX5EMU" run --devices 17 -- true 2>&1); expect_rc $? 125 "--devices 17"
expect_in "$out" "--devices '17': expected a number from 0 to 16" "--devices 17"
out=$("$MLX5EMU" run --ports 0 -- true 2>&1); expect_rc $? 125 "--ports 0"
out=$("$MLX5EMU" run --trace=xml -- true 2>&1); expect_rc $? 125 "--trace=xml"
expect_in "$out" "expected off, text or json" "--trace=xml"
out=$("$MLX5EMU" run --config /nonexistent.conf -- true 2>&1); expect_rc $? 125 "--config missing"
out=$("$MLX5EMU" run --trace=text:/nonexistent/dir/t -- true 2>&1); expect_rc $? 125 "--trace bad file"

# A bad setting reaches the program as the emulator's clear message.
out=$(MLX5EMU_NUM_PORTS=5 "$MLX5EMU" run -- ibv_devices 2>&1)
expect_in "$out" "MLX5EMU_NUM_PORTS" "bad setting named"

finish
