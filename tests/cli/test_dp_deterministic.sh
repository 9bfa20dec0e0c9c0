#!/usr/bin/env bash
# Data-path faults in deterministic mode ([engine] mode = deterministic):
# seeded prob rules (error CQEs, late CQEs) on dp_trace_prog give the same
# completions and the same WQE/CQE trace in two runs, byte for byte;
# another seed gives another sequence.  A late CQE waits on the virtual
# clock, so the run does not take its delay in wall time.
. "$(dirname "$0")/lib.sh"

PROG=$BUILD/tests/cli/dp_trace_prog
[ -x "$PROG" ] || { echo "no dp_trace_prog"; exit 1; }
export MLX5EMU_IP_BASE=127.201.77.1

run() {	# run SEED NAME
	cat >"$2.conf" <<EOC
[engine]
mode = deterministic
seed = $1
[trace]
mode = json:$2.jsonl
datapath = 1
[fault]
rule = cqe_delay us=2000000 prob=0.5
rule = cqe_error wqe=SEND prob=0.3 syndrome=REMOTE_OP
EOC
	LD_LIBRARY_PATH=$BUILD/lib MLX5EMU_CONFIG=$2.conf "$PROG" >"$2.out" 2>&1
	expect_rc $? 0 "dp_trace_prog ($2)"
	# Buffer addresses move with the address space; the rest must not.
	sed -E 's/"(raddr|addr)":"0x[0-9a-f]+"/"\1":"ADDR"/g' "$2.jsonl" \
		| grep -E '"(wqe|cqe|event)":' >"$2.dp"
}

start=$(date +%s)
run 7 a
run 7 b
run 8 c
checks=$((checks + 4))
[ -s a.dp ] || fail "no data-path records"
cmp -s a.out b.out || fail "same seed, different completions: $(diff a.out b.out | head -5)"
cmp -s a.dp b.dp || fail "same seed, different traces: $(diff a.dp b.dp | head -5)"
cmp -s a.dp c.dp && fail "another seed, the same faults"
checks=$((checks + 2))
grep -q '"event":"cqe_delay"' a.dp || fail "seed 7: no late CQE"
grep -q '"event":"cqe_error"' a.dp || fail "seed 7: no error CQE"
checks=$((checks + 1))
[ $(( $(date +%s) - start )) -lt 6 ] || fail "late CQEs took wall-clock time"
finish
