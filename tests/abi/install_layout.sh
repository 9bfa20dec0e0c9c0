#!/usr/bin/env bash
# Installs into a scratch prefix and checks that everything lands under
# ${libdir}/mlx5emu and nothing could shadow the system's rdma-core.
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(cd "$prefix" && ls -d lib*/ | head -1)
libdir=${libdir%/}
fail=0
for f in libibverbs.so.1 libmlx5.so.1 libmana.so.1 libefa.so.1 libmlx5emu.so.1 libmlx5emu_core.so.0 pkgconfig/mlx5emu.pc; do
	[ -e "$prefix/$libdir/mlx5emu/$f" ] || { echo "missing $libdir/mlx5emu/$f"; fail=1; }
done
# The project's own public header (libmlx5emu.so.1's API).
[ -e "$prefix/include/mlx5emu/mlx5emu.h" ] || { echo "missing include/mlx5emu/mlx5emu.h"; fail=1; }
# Nothing rdma-core ships may appear outside our directory.
stray=$(cd "$prefix" && find . \( -name 'lib*.so*' -o -name '*.pc' \) ! -path "./$libdir/mlx5emu/*" | head)
[ -z "$stray" ] || { echo "installed outside $libdir/mlx5emu: $stray"; fail=1; }
grep -q "^libdir=\${prefix}/$libdir/mlx5emu$" "$prefix/$libdir/mlx5emu/pkgconfig/mlx5emu.pc" ||
	{ echo "mlx5emu.pc: libdir is not ${libdir}/mlx5emu"; fail=1; }
# The installed shells find the core beside them.
deps=$(LD_LIBRARY_PATH="$prefix/$libdir/mlx5emu" ldd "$prefix/$libdir/mlx5emu/libibverbs.so.1")
grep -q "libmlx5emu_core.so.0 => $prefix/$libdir/mlx5emu/" <<<"$deps" ||
	{ echo "installed libibverbs.so.1 does not resolve the core beside it"; fail=1; }
[ $fail -eq 0 ] && echo "install layout ok ($libdir/mlx5emu)"
exit $fail
