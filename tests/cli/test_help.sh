#!/usr/bin/env bash
# The manual pages: each reachable as `mlx5emu help X` and `X --help`, and
# docs/mlx5emu.1.md carries each one verbatim (```text blocks under a
# heading that names the command).
. "$(dirname "$0")/lib.sh"

DOC=$SRC/docs/mlx5emu.1.md
for topic in mlx5emu run info prm stats; do
	if [ $topic = mlx5emu ]; then
		page=$("$MLX5EMU" help); rc=$?
		alt=$("$MLX5EMU" --help)
	else
		page=$("$MLX5EMU" help $topic); rc=$?
		alt=$("$MLX5EMU" $topic --help)
	fi
	expect_rc $rc 0 "help $topic"
	checks=$((checks + 1))
	[ "$page" = "$alt" ] || fail "help $topic differs from $topic --help"
	expect_in "$page" "NAME" "help $topic"
	expect_in "$page" "SYNOPSIS" "help $topic"
	# The page's block in the manual, between "<!-- page: T -->" and "```".
	doc=$(awk -v t="$topic" '
		$0 == "<!-- page: " t " -->" { want = 1; next }
		want && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }' "$DOC")
	checks=$((checks + 1))
	if [ "$page" != "$doc" ]; then
		fail "docs/mlx5emu.1.md's page '$topic' differs from mlx5emu help $topic:"
		diff <(echo "$doc") <(echo "$page") | head -20 >&2
	fi
done
"$MLX5EMU" help nosuch 2>/dev/null; expect_rc $? 2 "unknown topic"
"$MLX5EMU" 2>/dev/null; expect_rc $? 2 "no command"
"$MLX5EMU" frob 2>/dev/null; expect_rc $? 2 "unknown command"
out=$("$MLX5EMU" --version); expect_in "$out" "mlx5emu 0." "--version"

finish
