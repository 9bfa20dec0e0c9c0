#!/usr/bin/env bash
# The drop-in libibverbs answers pure functions exactly as Debian's does.
set -euo pipefail
prog=$1 dropin=$2
[ -e /usr/lib/x86_64-linux-gnu/libibverbs.so.1 ] || [ -n "$(ldconfig -p | grep libibverbs.so.1)" ] ||
	{ echo "Debian's libibverbs1 is not installed"; exit 1; }
theirs=$(mktemp) ours=$(mktemp)
trap 'rm -f "$theirs" "$ours"' EXIT
env -u LD_LIBRARY_PATH "$prog" >"$theirs"
LD_LIBRARY_PATH="$dropin" "$prog" >"$ours"
# Prove which library answered each run.
# (ldd's output is taken whole: grep -q closing the pipe early would fail
# the pipeline under pipefail.)
deps=$(LD_LIBRARY_PATH="$dropin" ldd "$prog")
grep -q "libibverbs.so.1 => $dropin/" <<<"$deps" ||
	{ echo "the drop-in run did not load $dropin/libibverbs.so.1"; exit 1; }
if ! diff -u "$theirs" "$ours"; then
	echo "pure functions differ from Debian's libibverbs"; exit 1
fi
echo "pure functions: $(wc -l <"$ours") answers identical to Debian's libibverbs"
