#!/usr/bin/env bash
# Installs into a scratch prefix and checks that everything lands under
# ${libdir}/mlx5emu and nothing could shadow the system's rdma-core; then
# moves the whole prefix elsewhere and checks that it still works there:
# mlx5emu.pc finds it (pkg-config's ${pcfiledir}), the installed example
# and the mlx5emu command load the moved libraries (RUNPATH/RPATH relative
# to themselves), and docs/fault-injection.md's program, built with its
# documented line against the moved prefix, runs on them.
#   install_layout.sh BUILD SRC
set -euo pipefail
build=$1
src=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
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
# No path of the build or of the prefix in what finds the libraries: the
# .pc and the programs' and libraries' RPATH/RUNPATH.
if grep -qF -e "$prefix" -e "$build" "$prefix/$libdir/mlx5emu/pkgconfig/mlx5emu.pc"; then
	echo "mlx5emu.pc names $prefix or $build: it cannot be moved"; fail=1
fi
for f in "$prefix"/bin/* "$prefix/$libdir"/mlx5emu/*.so.*; do
	paths=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
	case "$paths" in
	*"$prefix"*|*"$build"*|/*) echo "$f: run path '$paths' is not relative to itself"; fail=1 ;;
	esac
done
# The installed shells find the core beside them.
deps=$(LD_LIBRARY_PATH="$prefix/$libdir/mlx5emu" ldd "$prefix/$libdir/mlx5emu/libibverbs.so.1")
grep -q "libmlx5emu_core.so.0 => $prefix/$libdir/mlx5emu/" <<<"$deps" ||
	{ echo "installed libibverbs.so.1 does not resolve the core beside it"; fail=1; }

# ---- moved ----
moved=$scratch/elsewhere/mlx5emu
mkdir -p "$scratch/elsewhere"
mv "$prefix" "$moved"
lib=$moved/$libdir/mlx5emu
unset LD_LIBRARY_PATH
export PKG_CONFIG_PATH=$lib/pkgconfig
pclib=$(pkg-config --variable=libdir mlx5emu)
[ "$(realpath "$pclib")" = "$lib" ] || { echo "mlx5emu.pc: libdir $pclib, not $lib"; fail=1; }
pcinc=$(pkg-config --variable=includedir mlx5emu)
[ "$(realpath "$pcinc")" = "$moved/include" ] || { echo "mlx5emu.pc: includedir $pcinc"; fail=1; }
for prog in mlx5emu-devx-example mlx5emu; do
	deps=$(ldd "$moved/bin/$prog")
	for so in libibverbs.so.1 libmlx5.so.1; do
		got=$(sed -n "s/^[[:space:]]*$so => \([^ ]*\) .*/\1/p" <<<"$deps")
		[ -n "$got" ] && [ "$(realpath "$got")" = "$lib/$so" ] ||
			{ echo "moved $prog loads $so from '${got:-nowhere}', not $lib"; fail=1; }
	done
done
"$moved/bin/mlx5emu-devx-example" >"$scratch/example.out" 2>&1 ||
	{ echo "the moved mlx5emu-devx-example failed:"; cat "$scratch/example.out"; fail=1; }
# docs/fault-injection.md's program and build line, as a user runs them.
cd "$scratch"
sed -n '/^```c file=devx_pd.c$/,/^```$/p' "$src/docs/fault-injection.md" | sed '1d;$d' >devx_pd.c
line=$(grep -m1 '^ *cc devx_pd.c ' "$src/docs/fault-injection.md" | sed 's/^ *//') ||
	{ echo "docs/fault-injection.md has no 'cc devx_pd.c' line"; fail=1; }
if bash -c "$line" >build.out 2>&1; then
	out=$(./devx_pd 2>&1) || true
	grep -q '^PD 0: pdn 1$' <<<"$out" ||
		{ echo "devx_pd built against the moved prefix does not run on it:"; echo "$out"; fail=1; }
	deps=$(ldd ./devx_pd)
	grep -q "libmlx5emu.so.1 => $lib/" <<<"$deps" && grep -q "libibverbs.so.1 => $lib/" <<<"$deps" ||
		{ echo "devx_pd does not load the moved libraries:"; echo "$deps"; fail=1; }
else
	echo "the documented build line fails against the moved prefix: $line"; cat build.out; fail=1
fi
[ $fail -eq 0 ] && echo "install layout ok ($libdir/mlx5emu), and it works moved"
exit $fail
