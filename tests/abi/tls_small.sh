#!/usr/bin/env bash
# The drop-in libraries are dlopen()ed (Python's pyverbs, dlmopen in hw
# mode), and the core holds an initial-exec thread-local guard, so its
# whole TLS block must fit in the loader's static surplus (a few hundred
# bytes, shared with every other such library).  Fail when it grows.
#   tls_small.sh LIBDIR [LIMIT_BYTES]
set -euo pipefail
libdir=$1
limit=${2:-128}
status=0
for lib in "$libdir"/libmlx5emu_core.so.0 "$libdir"/libibverbs.so.1 \
	   "$libdir"/libmlx5.so.1 "$libdir"/libmlx5emu.so.1; do
	[ -e "$lib" ] || { echo "tls_small: $lib missing" >&2; status=1; continue; }
	memsz=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
	bytes=$((${memsz:-0}))
	echo "$(basename "$lib"): TLS block $bytes bytes (limit $limit)"
	if [ "$bytes" -gt "$limit" ]; then
		echo "tls_small: $(basename "$lib") has a $bytes-byte TLS block;" \
		     "move large per-thread state to emu_tls_buf_get()" >&2
		status=1
	fi
done
exit $status
