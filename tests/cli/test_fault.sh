#!/usr/bin/env bash
# mlx5emu run --fault: an injected CREATE_CQ failure, as the DEVX example
# and the command trace see it.  The rule syntax is docs/fault-injection.md's.
. "$(dirname "$0")/lib.sh"

[ -x "$EXAMPLE" ] || { echo "no $EXAMPLE: skipped"; exit 77; }
RULE='fail opcode=CREATE_CQ status=BAD_RES syndrome=0x1234'

# Without a rule the example passes.
out=$("$MLX5EMU" run -- "$EXAMPLE" 2>&1); rc=$?
expect_rc $rc 0 "example without faults"

out=$("$MLX5EMU" run --fault "$RULE" --trace=text:trace.txt -- "$EXAMPLE" 2>&1); rc=$?
expect_rc $rc 1 "example with CREATE_CQ failing"
expect_in "$out" "Remote I/O error" "EREMOTEIO reaches the program"
expect_in "$out" "status 0x5 (BAD_RES), syndrome 0x1234" "the injected status and syndrome"
trace=$(cat trace.txt)
expect_in "$trace" "CREATE_CQ uid=0x1 op_mod=0x0 in{" "trace has the CREATE_CQ"
expect_in "$trace" "-> BAD_RES(0x5) syndrome=0x1234 injected(rule 1: $RULE) out{}" "trace names the rule"
expect_not_in "$trace" "CREATE_CQ uid=0x1 op_mod=0x0 in{cq_context.dbr_umem_valid=0x1 cq_context.dbr_umem_id=0x3 cq_context.log_cq_size=0x8 cq_context.uar_page=0x2 cq_context.c_eqn=0x1 cq_umem_id=0x2 cq_umem_valid=0x1} -> OK" "no CREATE_CQ succeeded"

# JSON: the same, for tools.
out=$("$MLX5EMU" run --fault "$RULE" --trace=json:trace.jsonl -- "$EXAMPLE" 2>&1)
checks=$((checks + 1))
python3 - trace.jsonl <<'PY' || fail "JSON trace of the injected failure"
import json, sys
cmds = [json.loads(l) for l in open(sys.argv[1])]
cq = [c for c in cmds if c["opcode"] == "CREATE_CQ"]
assert cq, "no CREATE_CQ"
for c in cq:
    assert c["injected"] is True, c
    assert c["faults"] == [{"rule": 1, "action": "fail",
                            "text": "fail opcode=CREATE_CQ status=BAD_RES syndrome=0x1234"}], c
    assert c["status"] == "BAD_RES" and c["status_value"] == 5, c
    assert c["syndrome"] == 0x1234 and c["syndrome_name"] is None, c
assert [c["seq"] for c in cmds] == list(range(1, len(cmds) + 1))
assert all(not c["injected"] and "faults" not in c
           for c in cmds if c["opcode"] != "CREATE_CQ")
PY

# The second match only: the example's first CREATE_CQ works, its
# deliberately bad one gets the injected answer instead of CQ_BAD_SIZE.
out=$("$MLX5EMU" run --fault 'fail opcode=CREATE_CQ syndrome=CQ_IN_USE nth=2' \
	--trace=text:t2.txt -- "$EXAMPLE" 2>&1)
expect_in "$out" "cqn 0x1 (256 CQEs)" "first CREATE_CQ succeeds"
expect_in "$(cat t2.txt)" "syndrome=0x1870ad(CQ_IN_USE) injected(rule 1: fail opcode=CREATE_CQ syndrome=CQ_IN_USE nth=2)" "nth=2 fires once"

# A delay: the command works, later; the trace says which rule held it.
out=$("$MLX5EMU" run --fault 'delay ms=30 opcode=ALLOC_PD' --trace=text:t3.txt -- "$EXAMPLE" 2>&1); rc=$?
expect_rc $rc 0 "a delayed ALLOC_PD still works"
line=$(grep ' ALLOC_PD uid=0x1 ' t3.txt)
expect_in "$line" "-> OK delayed(rule 1: delay opcode=ALLOC_PD ms=30) out{pd=0x1}" "trace names the delay"
checks=$((checks + 1))
grep -qE ' [3-9][0-9]\.[0-9]+ms$| [0-9]{3,}\.[0-9]+ms$| [0-9.]+s$' <<<"$line" || fail "the delay shows in the duration: $line"

# A bad rule given with --fault: mlx5emu refuses it before the program
# starts, naming the option and the rule (125: mlx5emu itself failed).
out=$("$MLX5EMU" run --fault 'explode opcode=CREATE_CQ' -- "$EXAMPLE" 2>&1); rc=$?
expect_rc $rc 125 "a bad --fault rule"
expect_in "$out" "mlx5emu run: --fault 'explode opcode=CREATE_CQ': fault rule \"explode opcode=CREATE_CQ\": unknown action \"explode\"" "the option and the rule named"
expect_not_in "$out" "MLX5EMU_FAULTS" "not blamed on the environment"
expect_not_in "$out" "ALLOC_PD" "the program did not run"
# Every rule of an option is checked, also after a good one.
out=$("$MLX5EMU" run --fault 'fail opcode=CREATE_CQ; fail opcod=ALLOC_PD' -- true 2>&1); rc=$?
expect_rc $rc 125 "a bad second rule in one --fault"
expect_in "$out" "unknown key \"opcod\"" "the second rule's mistake"
# A bad rule in the environment is the environment's: the program's device
# open says so.
out=$(MLX5EMU_FAULTS='explode opcode=CREATE_CQ' "$MLX5EMU" run -- "$EXAMPLE" 2>&1); rc=$?
expect_in "$out" "MLX5EMU_FAULTS" "a bad rule in the environment named"

finish
