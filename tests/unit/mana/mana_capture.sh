#!/usr/bin/env bash
# A MANA port's frames in the wire capture, as an mlx5 port's: run the
# program that exchanges frames between mana_0 and mlx5_0 (one non-IP frame
# and one UDP datagram each way, the datagrams' checksums left to each
# device) with wire.capture on, then read mana_0's pcap with tshark: four
# 60-byte frames, two each way, and tshark finds both UDP checksums good,
# which says the devices computed them before the frames left.
#   mana_capture.sh PROGRAM
set -euo pipefail
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# MANA devices are emulated ones: the emu backend whatever the caller asked
MLX5EMU_BACKEND=emu MLX5EMU_WIRE_CAPTURE=$dir "$prog" >/dev/null
pcap=$(ls "$dir"/*-mana_0-p1.pcap)
out=$(tshark -r "$pcap" -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE \
	-T fields -e frame.len -e eth.type -e eth.src -e ip.checksum.status \
	-e udp.checksum.status)
echo "$out"
[ "$(echo "$out" | wc -l)" -eq 4 ] || { echo "expected 4 frames in $pcap"; exit 1; }
echo "$out" | awk -F'\t' '$1 != 60 { bad = 1 } END { exit bad }' ||
	{ echo "a frame is not 60 bytes"; exit 1; }
[ "$(echo "$out" | cut -f3 | sort -u | wc -l)" -eq 2 ] ||
	{ echo "the frames are not from both ports"; exit 1; }
[ "$(echo "$out" | awk -F'\t' '$2 == "0x88b5"' | wc -l)" -eq 2 ] ||
	{ echo "expected two non-IP frames"; exit 1; }
# ip.checksum.status and udp.checksum.status: 1 is "Good"
[ "$(echo "$out" | awk -F'\t' '$2 == "0x0800" && $4 == 1 && $5 == 1' | wc -l)" -eq 2 ] ||
	{ echo "expected two UDP datagrams with good IP and UDP checksums"; exit 1; }
echo "mana_capture: ok"
