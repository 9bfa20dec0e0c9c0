#!/usr/bin/env bash
# Installs every Debian 12 package the build and the tests need.  Safe to run
# again: packages already present are not fetched twice.
set -euo pipefail

PACKAGES=(
	# build
	build-essential cmake pkg-config clang libclang-rt-14-dev python3
	liburcu-dev check libibverbs-dev libjson-c-dev libinih-dev
	libisal-dev libpcap-dev
	# third-party judges (tests/compat) and what they load
	ibverbs-utils perftest python3-pyverbs python3-scapy tshark
	librdmacm1 ibverbs-providers rdma-core iproute2
	# the Linux stack on the fabric (tests/netns)
	tcpdump ethtool
	# commands the documents show (docs/trace.md)
	jq
)

# pyverbs' huge-page tests take their other branch where 2 MiB pages are
# reserved (tests/compat/pyverbs.expected.hugepages): reserve 64 (128 MiB)
# where this user may; elsewhere they run as pyverbs.expected says.
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ -w "$hp" ] && [ "$(cat "$hp")" -lt 64 ]; then
	echo 64 > "$hp" 2>/dev/null || true
fi

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "ci/deps.sh: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
