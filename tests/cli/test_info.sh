#!/usr/bin/env bash
# mlx5emu info: the devices, ports, GIDs with types, MACs, IPv4 addresses
# and capabilities, as the drop-in libraries answer them.
. "$(dirname "$0")/lib.sh"

out=$(MLX5EMU_IP_BASE=127.203.7.1 "$MLX5EMU" info 2>&1); rc=$?
expect_rc $rc 0 "info"
expect_in "$out" "drop-in libraries: $BUILD/lib" "drop-in directory"
expect_in "$out" "1 device" "device count"
expect_in "$out" "mlx5_0 (uverbs0)" "device name"
expect_in "$out" "fw_ver 22.36.1010, board_id MT_0000000359, vendor_id 0x02c9, vendor_part_id 4125" "identity"
expect_in "$out" "pci 0000:08:00.0 0x15b3:0x101d, uverbs node 231:192" "PCI and node"
expect_in "$out" "port 1: ACTIVE (LinkUp), Ethernet, active_mtu 1024, max_mtu 4096" "port"
# MAC 02:c9:<IPv4>, GUIDs and link-local GIDs from it.
expect_in "$out" "node_guid 02c9:7f03:00cb:0701" "node GUID"
expect_in "$out" "mac  02:c9:7f:cb:07:01 (NIC vport context)" "MAC"
expect_in "$out" "ipv4 127.203.7.1" "IPv4"
expect_in "$out" "gid 0   fe80::c9:7fff:fecb:701                   RoCE v1" "GID 0"
expect_in "$out" "gid 1   fe80::c9:7fff:fecb:701                   RoCE v2" "GID 1"
expect_in "$out" "gid 2   ::ffff:127.203.7.1                       RoCE v1" "GID 2"
expect_in "$out" "gid 3   ::ffff:127.203.7.1                       RoCE v2" "GID 3"
expect_not_in "$out" "gid 4 " "no more GIDs"
expect_in "$out" "verbs: max_qp " "verbs limits"
expect_in "$out" "flags 0xa1 CQE_V1 CQE_128B_PAD REAL_TIME_TS" "mlx5dv flags"
expect_in "$out" "    device_frequency_khz         1000000" "HCA cap device_frequency_khz (1 GHz)"
expect_in "$out" "hca_cap (QUERY_HCA_CAP, general, current):" "HCA caps"
expect_in "$out" "    port_type                    1" "HCA cap port_type (Ethernet)"
expect_in "$out" "    log_max_cq_sz                15 (0xf)" "HCA cap log_max_cq_sz"

out=$(MLX5EMU_IP_BASE=127.203.8.1 "$MLX5EMU" info --devices 2 --ports 2 2>&1); rc=$?
expect_rc $rc 0 "info --devices 2 --ports 2"
expect_in "$out" "2 devices" "two devices"
expect_in "$out" "mlx5_1 (uverbs1)" "second device"
expect_in "$out" "uverbs node 231:193" "second node"
expect_in "$out" "port 2: ACTIVE" "second port"
expect_in "$out" "ipv4 127.203.8.2" "second port's address"
expect_in "$out" "(link-local GID)" "MACs of two-port devices from their GIDs"

# MANA devices follow the mlx5 ones: their verbs, each port's MAC from its
# netdev, no GID, and no mlx5dv or DEVX asked of them.
out=$(MLX5EMU_IP_BASE=127.203.9.1 "$MLX5EMU" info --mana 1 --ports 2 2>&1); rc=$?
expect_rc $rc 0 "info --mana 1 --ports 2"
expect_in "$out" "2 devices" "mlx5_0 and mana_0"
expect_in "$out" "mana_0 (uverbs1)" "MANA device name"
expect_in "$out" "fw_ver 0.0.0, board_id ?, vendor_id 0x1414, vendor_part_id 2" "MANA identity"
expect_in "$out" "pci 0000:09:00.0 0x1414:0x00ba, uverbs node 231:193" "MANA PCI and node"
expect_in "$out" "port 2: ACTIVE (LinkUp), Ethernet, active_mtu 1024, max_mtu 4096, gid_tbl_len 0" "MANA port"
expect_in "$out" "mac  02:c9:7f:cb:09:03 (netdev mana0p0)" "MANA port 1 MAC"
expect_in "$out" "mac  02:c9:7f:cb:09:04 (netdev mana0p1)" "MANA port 2 MAC"
expect_in "$out" "raw_packet_caps 0x4 IP_CSUM" "MANA raw packet caps"
expect_not_in "$out" "failed" "nothing refused"
out=$("$MLX5EMU" info --devices 0 --mana 1 2>&1); rc=$?
expect_rc $rc 0 "info --devices 0 --mana 1"
expect_in "$out" "mana_0 (uverbs0)" "MANA alone"
expect_in "$out" "(no valid GID)" "no MANA GID"
expect_not_in "$out" "mlx5dv" "no mlx5dv for MANA"
expect_not_in "$out" "hca_cap" "no DEVX for MANA"
out=$("$MLX5EMU" info --mana 5 2>&1); rc=$?
expect_rc $rc 2 "--mana 5"
expect_in "$out" "mlx5emu info: --mana '5': expected a number from 0 to 4" "--mana named"

out=$("$MLX5EMU" info --all-caps 2>&1)
expect_in "$out" "  log_max_cq = 0xe" "--all-caps"
out=$("$MLX5EMU" info --devices 0 2>&1); rc=$?
expect_rc $rc 0 "no devices"
expect_in "$out" "0 devices" "no devices"
out=$(MLX5EMU_NUM_PORTS=9 "$MLX5EMU" info 2>&1); rc=$?
expect_rc $rc 1 "bad setting"
expect_in "$out" "MLX5EMU_NUM_PORTS" "bad setting named"
"$MLX5EMU" info --bogus 2>/dev/null; expect_rc $? 2 "bad option"
# Options are checked up front and named, not left to a device open that
# would blame the environment the command set.
out=$("$MLX5EMU" info --config missing.conf 2>&1); rc=$?
expect_rc $rc 2 "--config missing.conf"
expect_in "$out" "mlx5emu info: --config missing.conf: No such file or directory" "--config named"
expect_not_in "$out" "MLX5EMU_CONFIG" "--config not blamed on the environment"
out=$("$MLX5EMU" info --devices 17 2>&1); rc=$?
expect_rc $rc 2 "--devices 17"
expect_in "$out" "mlx5emu info: --devices '17': expected a number from 0 to 16" "--devices named"
out=$("$MLX5EMU" info --ports 3 2>&1); rc=$?
expect_rc $rc 2 "--ports 3"
expect_in "$out" "mlx5emu info: --ports '3': expected a number from 1 to 2" "--ports named"
# A file that is there but wrong is reported with its path and line.
printf '[device]\nnum_portz = 1\n' >bad.conf
out=$("$MLX5EMU" info --config bad.conf 2>&1); rc=$?
expect_rc $rc 1 "--config bad.conf"
expect_in "$out" "unknown setting \"device.num_portz\" (from $TMP/bad.conf:2)" "the file's line named"
out=$("$MLX5EMU" info --help)
expect_in "$out" "mlx5emu info - print the emulated devices" "info --help"

# LD_LIBRARY_PATH cannot swap the libraries mlx5emu itself runs on.
out=$(LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu "$MLX5EMU" info 2>&1)
expect_in "$out" "drop-in libraries: $BUILD/lib" "RPATH wins over LD_LIBRARY_PATH"

finish
