# tests/cli/lib.sh -- helpers for the mlx5emu command's tests.
# Sourced with $1 = build dir, $2 = source dir, $3 = trace_prog,
# $4 = det_scenario.
set -uo pipefail
BUILD=$1
SRC=$2
TRACE_PROG=${3:-}
DET_SCENARIO=${4:-}
MLX5EMU=$BUILD/bin/mlx5emu
EXAMPLE=$BUILD/bin/mlx5emu-devx-example
TMP=$(mktemp -d /tmp/mlx5emu-cli-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
# The caller's settings must not leak into the expectations.
for v in $(env | sed -n 's/^\(MLX5EMU_[A-Z_0-9]*\)=.*/\1/p'); do unset "$v"; done
unset LD_LIBRARY_PATH

failures=0
checks=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# expect_in TEXT NEEDLE WHAT: NEEDLE (a fixed string) is in TEXT.
expect_in() {
	checks=$((checks + 1))
	if ! grep -qF -- "$2" <<<"$1"; then
		fail "$3: '$2' not in output:"
		sed 's/^/    | /' <<<"$1" | head -40 >&2
	fi
}

expect_not_in() {
	checks=$((checks + 1))
	if grep -qF -- "$2" <<<"$1"; then
		fail "$3: '$2' unexpectedly in output"
	fi
}

# expect_rc GOT WANT WHAT
expect_rc() {
	checks=$((checks + 1))
	[ "$1" = "$2" ] || fail "$3: exit status $1, expected $2"
}

# expect_golden GOLDEN FILE: FILE equals GOLDEN; UPDATE_GOLDEN=1 rewrites
# GOLDEN from FILE first.
expect_golden() {
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$1"
		echo "updated $1"
	fi
	checks=$((checks + 1))
	if ! diff -u "$1" "$2" >golden-diff.txt; then
		fail "$2 differs from $1 (regenerate with UPDATE_GOLDEN=1 if intended):"
		head -60 golden-diff.txt >&2
	fi
}

finish() {
	echo "$checks checks, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
