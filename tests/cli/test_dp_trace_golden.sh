#!/usr/bin/env bash
# The data path's trace (trace.datapath): the WQE and CQE records and the
# injection of a data-path fault rule, of a known sequence (dp_trace_prog:
# an RDMA WRITE and two SENDs from QP A to QP B of mlx5_0, the second SEND
# failed by a rule), compared with tests/cli/golden/dp_trace_prog.txt
# after masking what varies between runs (buffer addresses; sequence
# numbers, which count the commands too).  Then the same run as JSON
# lines, checked field by field, and the trace without the setting.
#
# After an intended change of the trace or of the sequence:
#   UPDATE_GOLDEN=1 bash tests/cli/test_dp_trace_golden.sh BUILD SRC PROG
. "$(dirname "$0")/lib.sh"

GOLDEN=$SRC/tests/cli/golden/dp_trace_prog.txt
PROG=$BUILD/tests/cli/dp_trace_prog
[ -x "$PROG" ] || { echo "no dp_trace_prog"; exit 1; }
export MLX5EMU_IP_BASE=127.201.77.1
RULE='cqe_error wqe=SEND nth=2 syndrome=LOCAL_PROT'

mask() {
	grep -E '^mlx5_[0-9]+ #[0-9]+ (WQE|CQE|EVENT) ' |
	sed -E -e 's/^(mlx5_[0-9]+) #[0-9]+ /\1 #N /' \
		-e 's/(raddr|addr)=0x[0-9a-f]+/\1=ADDR/g'
}

out=$(LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=text:trace.txt \
	MLX5EMU_TRACE_DATAPATH=1 MLX5EMU_FAULTS="$RULE" "$PROG" 2>&1); rc=$?
expect_rc $rc 0 "dp_trace_prog under the trace"
expect_in "$out" "A: wr 3 local protection error vendor_err 0x52" "the rule fired"
mask <trace.txt >masked.txt
expect_golden "$GOLDEN" masked.txt
# The records share the commands' sequence, in order.
checks=$((checks + 1))
grep -oE '^mlx5_0 #[0-9]+' trace.txt | cut -d'#' -f2 >seqs.txt
sort -n -c seqs.txt 2>/dev/null || fail "sequence numbers out of order"

# JSON lines: the same records, every field.
out=$(LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=json:trace.jsonl \
	MLX5EMU_TRACE_DATAPATH=1 MLX5EMU_FAULTS="$RULE" "$PROG" 2>&1)
checks=$((checks + 1))
python3 - trace.jsonl masked.txt <<'PY' || fail "JSON trace"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
dp = [r for r in recs if "wqe" in r or "cqe" in r or "event" in r]
text = open(sys.argv[2]).read().splitlines()
assert len(dp) == len(text), (len(dp), len(text))
seqs = [r["seq"] for r in recs]
assert seqs == list(range(1, len(recs) + 1)), "one sequence"
wqes = [r for r in dp if "wqe" in r]
cqes = [r for r in dp if "cqe" in r]
w = wqes[0]
assert w["wqe"] == "sq" and w["opcode"] == "RDMA_WRITE" and w["opcode_value"] == 8, w
assert w["wqe_counter"] == 0 and w["ds"] == 3 and w["fm_ce_se"] == 8, w
assert w["raddr"].startswith("0x") and w["byte_count"] == 64, w
assert len(w["sge"]) == 1 and w["sge"][0]["byte_count"] == 64, w
assert w["sge"][0]["addr"].startswith("0x"), w
assert "raddr" not in wqes[1] and wqes[1]["opcode"] == "SEND", wqes[1]
rq = [r for r in wqes if r["wqe"] == "rq"]
assert len(rq) == 1 and rq[0]["qpn"] == w["qpn"] + 1, rq
err = [c for c in cqes if c["cqe"] == "REQ_ERR"]
assert len(err) == 1, cqes
e = err[0]
assert e["opcode"] == "REQ_ERR" and e["opcode_value"] == 13, e
assert e["syndrome"] == "LOCAL_PROT" and e["syndrome_value"] == 4, e
assert e["vendor_err_synd"] == 0x52 and e["wqe_counter"] == 2, e
assert e["wqe_opcode"] == "SEND" and e["qpn"] == w["qpn"] and e["se"] == 1, e
ok = [c for c in cqes if c["cqe"] == "REQ"]
assert [c["wqe_counter"] for c in ok] == [0, 1] and ok[0]["byte_cnt"] == 64, ok
resp = [c for c in cqes if c["cqe"] == "RESP_SEND"]
assert len(resp) == 1 and resp[0]["flags_rqpn"] == w["qpn"], resp
ev = [r for r in dp if "event" in r]
assert len(ev) == 1 and ev[0]["event"] == "cqe_error" and ev[0]["qpn"] == w["qpn"], ev
assert ev[0]["rule"] == 1 and "syndrome=LOCAL_PROT" in ev[0]["text"], ev
PY

# Without trace.datapath the trace has commands only.
LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_TRACE=text:plain.txt "$PROG" >/dev/null 2>&1
checks=$((checks + 1))
grep -qE ' (WQE|CQE) ' plain.txt && fail "WQE/CQE records without trace.datapath"
checks=$((checks + 1))
grep -q ' CREATE_QP ' plain.txt || fail "the command trace is still there"

finish
