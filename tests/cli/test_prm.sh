#!/usr/bin/env bash
# mlx5emu prm: list, dump STRUCT (layouts from the field table) and decode
# (mailboxes in hex, by opcode or by name, text and JSON).
. "$(dirname "$0")/lib.sh"

out=$("$MLX5EMU" prm list); rc=$?
expect_rc $rc 0 "prm list"
expect_in "$out" "create_cq_in" "prm list"
expect_in "$out" "hca_cap_union" "prm list"

out=$("$MLX5EMU" prm dump create_cq_in); rc=$?
expect_rc $rc 0 "prm dump create_cq_in"
expect_in "$out" "create_cq_in: struct of 0x880 bits (272 bytes)" "dump header"
expect_in "$out" "0x0            0.0      16  opcode" "dump opcode"
expect_in "$out" "0x80          16.0     512  cq_context  (struct cqc)" "dump nested"
expect_in "$out" "0xe3          28.3       5  cq_context.log_cq_size" "dump nested field"
expect_in "$out" "0x880        272.0      64  pas[]  (width of one element)" "dump flexible array"
out=$("$MLX5EMU" prm dump umem)
expect_in "$out" "0x100         32.0      64  mtt[]  (struct mtt, width of one element)" "dump struct array"
expect_in "$out" "mtt[0].ptag_63_32" "dump struct array element"
# A little-endian (MANA) layout: bit offsets from each dword's LSB.
out=$("$MLX5EMU" prm dump gdma_cqe)
expect_in "$out" "gdma_cqe: struct of 0x200 bits (64 bytes), little-endian" "dump le header"
expect_in "$out" "0x1fd         63.5       3  cqe_info.owner_bits" "dump le field"
out=$("$MLX5EMU" prm list)
expect_in "$out" "(little-endian)" "list le"
# ... decoded little-endian: the bytes as typed, fields from each dword's LSB
out=$("$MLX5EMU" prm decode gdma_cqe_info 050000a1)
expect_in "$out" "  wq_num = 0x5" "decode le"
expect_in "$out" "  is_sq = 0x1" "decode le bit"
expect_in "$out" "  owner_bits = 0x5" "decode le top bits"
out=$("$MLX5EMU" prm dump no_such_struct 2>&1); rc=$?
expect_rc $rc 1 "dump unknown"
expect_in "$out" "no structure 'no_such_struct'" "dump unknown"
"$MLX5EMU" prm dump 2>/dev/null; expect_rc $? 2 "dump without STRUCT"
"$MLX5EMU" prm frobnicate 2>/dev/null; expect_rc $? 2 "unknown subcommand"

# An inbox: the structure from its opcode (CREATE_CQ, log_cq_size 8).
IN='04000001 00000000 00000000 00000000  00000000 00000000 00000000 08000000'
out=$("$MLX5EMU" prm decode $IN); rc=$?
expect_rc $rc 0 "decode --in"
expect_in "$out" "create_cq_in, 32 bytes (the layout has 272; the rest is absent)" "decode title"
expect_in "$out" "[CREATE_CQ (0x400)]" "decode opcode"
expect_in "$out" "  uid = 0x1" "decode uid"
expect_in "$out" "  cq_context.log_cq_size = 0x8" "decode nested field"
expect_not_in "$out" "op_mod" "zeros left out"
out=$("$MLX5EMU" prm decode --in --all $IN)
expect_in "$out" "  op_mod = 0x0" "--all shows zeros"
out=$(echo "0x0400 0001:0000 0000" | "$MLX5EMU" prm decode)
expect_in "$out" "  uid = 0x1" "decode from stdin, separators"

# An outbox, by opcode name; the status and syndrome named.
out=$("$MLX5EMU" prm decode --out ALLOC_PD 00000000 00000000 00000005 00000000)
expect_in "$out" "alloc_pd_out, 16 bytes" "decode --out"
expect_in "$out" "  pd = 0x5" "decode --out field"
out=$("$MLX5EMU" prm decode --out 0x400 03000000 ee000902)
expect_in "$out" "[CREATE_CQ: status BAD_PARAM (0x3), syndrome 0xee000902 (CQ_BAD_SIZE)]" "decode --out status"

# A structure by name, and a union decoded by the command's op_mod.
out=$("$MLX5EMU" prm decode cqc 00000000 00000000 00000000 08000000)
expect_in "$out" "  log_cq_size = 0x8" "decode STRUCT"
cap=$(printf '%02x' 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0)
out=$("$MLX5EMU" prm decode --opcode QUERY_HCA_CAP --op-mod 1 query_hca_cap_out \
	$cap 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000000f)
expect_in "$out" "  capability.cmd_hca_cap.log_max_eq = 0xf" "union by op_mod"
expect_not_in "$out" "roce_cap" "union: the page op_mod names only"

# JSON, for tools.
out=$("$MLX5EMU" prm decode --json $IN)
checks=$((checks + 1))
python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["struct"] == "create_cq_in" and d["bytes"] == 32, d
assert d["fields"]["opcode"] == 0x400 and d["fields"]["uid"] == 1, d
assert d["fields"]["cq_context"]["log_cq_size"] == 8, d
' "$out" || fail "decode --json: $out"

# Bad input.
out=$("$MLX5EMU" prm decode 0400z 2>&1); expect_rc $? 1 "bad hex"
expect_in "$out" "neither a structure" "bad hex"
out=$("$MLX5EMU" prm decode 040 2>&1); expect_rc $? 1 "odd digits"
expect_in "$out" "odd number of hex digits" "odd digits"
out=$("$MLX5EMU" prm decode --out NO_SUCH_OP 00 2>&1); expect_rc $? 1 "unknown opcode"
out=$("$MLX5EMU" prm decode --frob 00 2>&1); expect_rc $? 2 "unknown option"
out=$(echo "" | "$MLX5EMU" prm decode 2>&1); expect_rc $? 1 "no bytes"

finish
