#!/usr/bin/env bash
# mlx5emu run --dev-nodes: /dev/infiniband/uverbsN for the program only.
# As root: character devices 231:192+N.  Not as root (a user namespace):
# bind mounts of /dev/null.  The machine's /dev is never touched.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "not root: the root case is skipped"; exit 77; }
had_ib=no
[ -e /dev/infiniband ] && had_ib=yes

if ! unshare -m true 2>/dev/null; then
	echo "no mount namespaces here: skipped"
	exit 77
fi
out=$("$MLX5EMU" run --dev-nodes --devices 2 -- \
	sh -c 'stat -c "%n %F %t:%T %a" /dev/infiniband/uverbs*; echo x >/dev/null && echo devnull-ok; ls /dev/shm >/dev/null && echo shm-ok; test -t 0 -o ! -t 0 && echo tty-ok' 2>&1)
rc=$?
expect_rc $rc 0 "--dev-nodes as root"
expect_in "$out" "/dev/infiniband/uverbs0 character special file e7:c0 666" "uverbs0 is 231:192"
expect_in "$out" "/dev/infiniband/uverbs1 character special file e7:c1 666" "uverbs1 is 231:193"
expect_in "$out" "devnull-ok" "the rest of /dev still works"
expect_in "$out" "shm-ok" "/dev/shm still there"
# The devices still work inside.
out=$("$MLX5EMU" run --dev-nodes -- ibv_devinfo -l 2>&1)
expect_in "$out" "1 HCA found:" "devices inside the namespace"
# User-capability nodes, only when the firmware advertises them: files of
# mode 0600 that mlx5dv_open_device's fd array turns into CREATE_UCTX bits.
UCAPS="uctx_cap=0x18,hca_cap_2=1,cmd_hca_cap_2.general_obj_types_127_64=0x80000"
out=$("$MLX5EMU" run --dev-nodes -- sh -c 'ls /dev/infiniband' 2>&1)
expect_not_in "$out" "mlx5_perm_ctrl" "no ucap node by default"
out=$(MLX5EMU_CAPS=$UCAPS "$MLX5EMU" run --dev-nodes -- \
	sh -c 'stat -c "%n %a" /dev/infiniband/mlx5_perm_*' 2>&1)
expect_in "$out" "/dev/infiniband/mlx5_perm_ctrl_local 600" "local ucap node"
expect_in "$out" "/dev/infiniband/mlx5_perm_ctrl_other_vhca 600" "other-vhca ucap node"
out=$(MLX5EMU_CAPS=$UCAPS "$MLX5EMU" run --dev-nodes --trace=text:ucap.txt -- \
	python3 "$SRC/tests/cli/ucap_open.py" /dev/infiniband/mlx5_perm_ctrl_local \
	/dev/infiniband/mlx5_perm_ctrl_other_vhca 2>&1)
expect_in "$out" "open ok" "mlx5dv_open_device with both ucaps"
expect_in "$(grep CREATE_UCTX ucap.txt)" "in{uctx.cap=0x18}" "CREATE_UCTX carries both bits"
out=$(MLX5EMU_CAPS=$UCAPS "$MLX5EMU" run --dev-nodes -- \
	python3 "$SRC/tests/cli/ucap_open.py" /dev/null 2>&1)
expect_in "$out" "open failed: EINVAL" "a file that is no ucap node"
# Nothing changed outside.
checks=$((checks + 1))
if [ $had_ib = no ] && [ -e /dev/infiniband ]; then
	fail "/dev/infiniband appeared on the machine"
fi

# Not root: a user namespace, /dev/null standing in.
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups \
	unshare -U -m true 2>/dev/null && setpriv --reuid=65534 --regid=65534 \
	--clear-groups test -x "$MLX5EMU" 2>/dev/null; then
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env TMPDIR=/tmp "$MLX5EMU" run -v --dev-nodes -- \
		sh -c 'stat -c "%n %F %t:%T" /dev/infiniband/uverbs0; id -u; ibv_devices' 2>&1)
	rc=$?
	expect_rc $rc 0 "--dev-nodes as nobody"
	expect_in "$out" "/dev/infiniband/uverbs0 character special file 1:3" "uverbs0 is /dev/null"
	expect_in "$out" "bind mounts of /dev/null" "-v says what the nodes are"
	expect_in "$out" "65534" "the program keeps its uid"
	expect_in "$out" "mlx5_0" "devices inside the user namespace"
else
	echo "no unprivileged user namespace (or build tree unreadable): that part skipped"
fi

finish
