#!/usr/bin/env bash
# mlx5emu stats: the wire's counters (wire.stats JSON lines) as tables, from
# files and from standard input; and mlx5emu run --stats=FILE, which makes a
# program leave them.
. "$(dirname "$0")/lib.sh"

G=$SRC/tests/cli/golden
out=$("$MLX5EMU" stats "$G/stats_a.jsonl" "$G/stats_b.jsonl" 2>&1); rc=$?
expect_rc $rc 0 "stats of two files"
checks=$((checks + 1))
if [ "$out" != "$(cat "$G/stats.txt")" ]; then
	fail "stats differs from tests/cli/golden/stats.txt:"
	diff <(echo "$out") "$G/stats.txt" | head -20 >&2
fi

out=$("$MLX5EMU" stats --qps < "$G/stats_b.jsonl" 2>&1); rc=$?
expect_rc $rc 0 "stats --qps from standard input"
expect_in "$out" "mlx5_1      0x101 UD               5            7            -" "a QP line without retransmission counters"
expect_not_in "$out" "tx_frames" "--qps prints no port table"
expect_not_in "$out" "total" "no total row for one QP"

out=$("$MLX5EMU" stats --ports - < "$G/stats_a.jsonl" 2>&1); rc=$?
expect_rc $rc 0 "stats --ports -"
expect_in "$out" "mlx5_0      1        48878     52898348          822        50964          491            1  fault=491" "port row"
expect_not_in "$out" "retransmits" "--ports prints no QP table"

printf '{"stats":"port","dev":"mlx5_0","port":1}\nnot json\n' > bad.jsonl
out=$("$MLX5EMU" stats bad.jsonl 2>&1); rc=$?
expect_rc $rc 1 "a line that is not JSON"
expect_in "$out" "mlx5emu stats: bad.jsonl:2: not a wire.stats line" "the bad line named"
out=$("$MLX5EMU" stats nosuch.jsonl 2>&1); rc=$?
expect_rc $rc 1 "a missing file"
expect_in "$out" "mlx5emu stats: nosuch.jsonl: No such file or directory" "the missing file named"
"$MLX5EMU" stats --frob >/dev/null 2>&1; expect_rc $? 2 "a bad option"

# A program run with --stats leaves its port's counters (relative names
# become absolute: the program may change directory).
out=$("$MLX5EMU" run --stats=w.jsonl -- ibv_devinfo 2>&1); rc=$?
expect_rc $rc 0 "run --stats"
out=$("$MLX5EMU" stats w.jsonl 2>&1); rc=$?
expect_rc $rc 0 "stats of what run --stats left"
expect_in "$out" "mlx5_0      1            0            0            0            0            0            0  -" "an idle port"
out=$("$MLX5EMU" run --stats= -- true 2>&1); rc=$?
expect_rc $rc 125 "run --stats with no file"
expect_in "$out" "mlx5emu run: --stats: expected a file name" "run --stats message"

finish
