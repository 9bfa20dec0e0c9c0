#!/usr/bin/env bash
# Deterministic mode end to end: det_scenario (RNR waits, completions with
# timestamps, QUERY_QP against seeded fault rules that fail and delay it)
# under mlx5emu run --deterministic=SEED.  Two runs with one seed give the
# same output and the same command trace, byte for byte; another seed
# gives other faults; the trace holds no pid and virtual durations, and the
# timestamps are the virtual clock's.  Threaded runs do differ (wall-clock
# durations), so the comparison can fail.
. "$(dirname "$0")/lib.sh"

[ -x "$DET_SCENARIO" ] || { echo "no det_scenario"; exit 1; }
export MLX5EMU_FAULTS='fail opcode=QUERY_QP prob=0.4;delay opcode=QUERY_QP ms=3 prob=0.5'

run() {	# run SEED NAME [mlx5emu run options...]
	local seed=$1 name=$2
	shift 2
	"$MLX5EMU" run "$@" --trace=json:"$name.jsonl" -- "$DET_SCENARIO" \
		>"$name.out" 2>"$name.err"
	expect_rc $? 0 "det_scenario ($name)"
}

run 42 a --deterministic=42
run 42 b --deterministic=42
run 43 c --deterministic=43
checks=$((checks + 2))
cmp -s a.jsonl b.jsonl || fail "same seed, different traces: $(cmp a.jsonl b.jsonl)"
cmp -s a.out b.out || fail "same seed, different output: $(diff a.out b.out | head -5)"
checks=$((checks + 1))
cmp -s a.out c.out && fail "another seed, the same faults"
expect_in "$(cat a.out)" "query 23:" "all queries ran"
checks=$((checks + 1))
n=$(grep -c '^query .*: 5$' a.out)
[ "$n" -gt 0 ] && [ "$n" -lt 24 ] || fail "prob=0.4 failed $n of 24 queries"
# The virtual clock: the first SEND is RNR-NAKed at 0 and resent after
# the responder's timer 14, 1.28 ms (IBA table 45), to the nanosecond.
expect_in "$(cat a.out)" "round 0 requester: status 0 opcode 0 byte_len 256 imm 0x0 ts 1280000" "virtual timestamps"
expect_not_in "$(cat a.jsonl)" '"pid"' "no pid in a deterministic trace"
expect_in "$(cat a.jsonl)" '"duration_ns":3000000}' "a delay fault's virtual duration"
checks=$((checks + 1))
[ "$(grep -c '"duration_ns":0}' a.jsonl)" -gt 40 ] || fail "commands take virtual time"

# Threaded (the default), twice: the traces carry wall-clock durations.
run 42 t1
run 42 t2
checks=$((checks + 1))
cmp -s t1.jsonl t2.jsonl && fail "threaded runs traced the same bytes"
expect_in "$(cat t1.jsonl)" '"pid"' "a threaded trace has the pid"
finish
