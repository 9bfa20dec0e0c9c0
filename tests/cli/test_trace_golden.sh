#!/usr/bin/env bash
# The command trace of a known sequence (trace_prog: device bring-up, a
# DEVX context, QUERY_HCA_CAP, ALLOC_PD, two umems, a CREATE_CQ failing on
# purpose, their deregistration, DEALLOC_PD, close) compared with
# tests/cli/golden/trace_prog.txt, after masking what varies between runs:
# durations, process addresses (the kernel's EQ page lists, the umems' MTT
# entries and their offset in the first page) and the capability pages'
# contents (which change as the emulator grows; tests/unit/trace checks
# their decoding).  Then the
# same run as JSON lines, checked field by field, and the settings that
# steer the trace.
#
# After an intended change of the trace or of the sequence:
#   UPDATE_GOLDEN=1 bash tests/cli/test_trace_golden.sh BUILD SRC PROG
. "$(dirname "$0")/lib.sh"

GOLDEN=$SRC/tests/cli/golden/trace_prog.txt
[ -x "$TRACE_PROG" ] || { echo "no trace_prog"; exit 1; }
# Fixed addresses: MACs, GIDs and GUIDs follow from them.
export MLX5EMU_IP_BASE=127.201.77.1

mask() {
	sed -E -e 's/ [0-9.]+(ns|us|ms|s)$//' \
		-e 's/pas\[([0-9]+)\]=0x[0-9a-f]+/pas[\1]=ADDR/g' \
		-e 's/(ptag_63_32|ptag_31_8|page_offset)=0x[0-9a-f]+/\1=ADDR/g' \
		-e 's/^(.* QUERY_HCA_CAP .* -> OK out\{)[^}]*\}$/\1...capability page...}/'
}

out=$("$MLX5EMU" run --trace=text:trace.txt -- "$TRACE_PROG" 2>&1); rc=$?
expect_rc $rc 0 "trace_prog under the trace"
expect_in "$out" "CREATE_CQ: failed as expected" "trace_prog"
mask <trace.txt >masked.txt
expect_golden "$GOLDEN" masked.txt
# Every line has its duration (masked above).
checks=$((checks + 1))
grep -qvE ' [0-9.]+(ns|us|ms|s)$' trace.txt && fail "a line without its duration"

# JSON lines: the same commands, every field, for tools.
out=$("$MLX5EMU" run --trace=json:trace.jsonl -- "$TRACE_PROG" 2>&1)
checks=$((checks + 1))
python3 - trace.jsonl masked.txt <<'PY' || fail "JSON trace"
import json, sys
cmds = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read().splitlines()
assert len(cmds) == len(text), (len(cmds), len(text))
for i, c in enumerate(cmds):
    assert c["seq"] == i + 1 and c["dev"] == "mlx5_0", c
    assert isinstance(c["pid"], int) and c["duration_ns"] >= 0, c
    assert text[i].startswith("mlx5_0 #%d %s " % (c["seq"], c["opcode"])), (c, text[i])
ops = [c["opcode"] for c in cmds if c.get("uid") == 1]
assert ops[-9:] == ["QUERY_HCA_CAP", "ALLOC_PD", "CREATE_UMEM", "CREATE_UMEM",
                    "CREATE_CQ", "DESTROY_UMEM", "DESTROY_UMEM", "DEALLOC_PD",
                    "DEALLOC_UAR"], ops
mine = [c for c in cmds if c["opcode"] in ("ALLOC_PD", "CREATE_CQ", "DEALLOC_PD")]
pd, cq, dpd = mine
assert pd["status"] == "OK" and pd["out"]["pd"] == 1, pd
assert cq["in_struct"] == "create_cq_in" and cq["out_struct"] == "create_cq_out"
assert cq["in"]["cq_context"]["log_cq_size"] == 16, cq
assert cq["in"]["cq_context"]["cqe_sz"] == 0, "JSON keeps zero fields"
assert cq["status"] == "BAD_PARAM" and cq["status_value"] == 3, cq
assert cq["syndrome"] == 0xee000902 and cq["syndrome_name"] == "CQ_BAD_SIZE", cq
assert cq["injected"] is False
assert dpd["in"]["pd"] == 1 and dpd["status"] == "OK"
caps = [c for c in cmds if c["opcode"] == "QUERY_HCA_CAP" and c["op_mod"] == 1]
assert caps and all(list(c["out"]["capability"]) == ["cmd_hca_cap"] for c in caps)
assert caps[0]["out"]["capability"]["cmd_hca_cap"]["log_max_cq_sz"] == 15
# umem registration is a command: its MTT list decoded by field name.
umems = [c for c in cmds if c["opcode"] == "CREATE_UMEM"]
kern = [c for c in umems if c["uid"] == 0]
user = [c for c in umems if c["uid"] == 1]
assert len(kern) == 2, "the rings of the async EQ and the completion EQ"
k, u = kern[0], user[0]
assert k["uid"] == 0 and k["in"]["umem"]["num_of_mtt"] == "0x10", "64-bit as hex"
assert k["in"]["umem"]["log_page_size"] == 0, "the kernel's EQ: 4 KiB pages"
assert len(k["in"]["umem"]["mtt"]) == 16, k
assert all(m["rd_en"] == 1 and m["wr_en"] == 1 for m in k["in"]["umem"]["mtt"])
assert "in_extra" not in k, "the MTT list is the layout's, not extra bytes"
assert u["uid"] == 1 and u["out"]["umem_id"] > 0 and u["status"] == "OK", u
dus = [c for c in cmds if c["opcode"] == "DESTROY_UMEM"]
assert [d["in"]["umem_id"] for d in dus] == [c["out"]["umem_id"] for c in user]
eqs = [c for c in cmds if c["opcode"] == "CREATE_EQ"]
assert eqs and all(p.startswith("0x") for p in eqs[0]["in"]["pas"]), "64-bit as hex"
PY

# The settings, without mlx5emu run: the environment alone.
LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=text MLX5EMU_TRACE_ELIDE=0 \
	"$TRACE_PROG" >/dev/null 2>stderr.txt
out=$(cat stderr.txt)
expect_in "$out" "ALLOC_PD uid=0x1 op_mod=0x0 in{} -> OK out{pd=0x1}" "MLX5EMU_TRACE=text to stderr"
expect_in "$out" "DEALLOC_PD uid=0x1 op_mod=0x0 in{pd=0x1} -> OK out{}" "to stderr"
expect_in "$out" "cq_context.status=0x0" "MLX5EMU_TRACE_ELIDE=0 keeps zero fields"
LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=json MLX5EMU_TRACE_FILE="$TMP/t.%p.jsonl" \
	"$TRACE_PROG" >/dev/null 2>stderr.txt
checks=$((checks + 1))
ls "$TMP"/t.*.jsonl >/dev/null 2>&1 || fail "MLX5EMU_TRACE_FILE with %p"
checks=$((checks + 1))
[ -s stderr.txt ] && fail "a trace file leaves stderr alone: $(head -3 stderr.txt)"
LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=off "$TRACE_PROG" >/dev/null 2>stderr.txt
checks=$((checks + 1))
[ -s stderr.txt ] && fail "MLX5EMU_TRACE=off still traces"
out=$(LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=xml "$TRACE_PROG" 2>&1)
expect_in "$out" "MLX5EMU_TRACE" "a bad trace.mode is named"
out=$(LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=text:/nonexistent/dir/t "$TRACE_PROG" 2>&1)
expect_in "$out" "cannot open" "an unopenable trace file is reported"

finish
