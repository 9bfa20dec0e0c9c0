#!/usr/bin/env bash
# A MANA port's frames in the wire capture, as an mlx5 port's: run the
# program that exchanges one frame each way between mana_0 and mlx5_0 with
# wire.capture on, then read mana_0's pcap with tshark: the frame it sent
# and the frame it received, 60 bytes each, EtherType 0x88b5, between the
# two ports' MACs.
#   mana_capture.sh PROGRAM
set -euo pipefail
prog=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
MLX5EMU_WIRE_CAPTURE=$dir "$prog" >/dev/null
pcap=$(ls "$dir"/*-mana_0-p1.pcap)
out=$(tshark -r "$pcap" -T fields -e frame.len -e eth.type -e eth.src -e eth.dst)
echo "$out"
[ "$(echo "$out" | wc -l)" -eq 2 ] || { echo "expected 2 frames in $pcap"; exit 1; }
echo "$out" | awk -F'\t' '$1 != 60 || $2 != "0x88b5" { bad = 1 } END { exit bad }' ||
	{ echo "a frame is not the 60-byte 0x88b5 frame"; exit 1; }
# one each way: the second frame's source is the first one's destination
first=$(echo "$out" | sed -n 1p)
second=$(echo "$out" | sed -n 2p)
[ "$(echo "$first" | cut -f3)" = "$(echo "$second" | cut -f4)" ] ||
	{ echo "the two frames are not one each way"; exit 1; }
echo "mana_capture: ok"
