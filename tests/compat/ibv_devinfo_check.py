#!/usr/bin/python3
"""compat_ibv_devinfo: ibverbs-utils over the drop-in libraries behave as over rdma-core 44.

    ibv_devinfo_check.py [--dropin <build>/lib] [--mode no-device | device:mlx5_0[,mlx5_1...]]

Mode no-device (ibv_get_device_list returns an empty, non-NULL list).
Expectations from rdma-core v44.0 libibverbs/examples/devinfo.c main():

    ibv_devinfo          -> stderr "No IB devices found\\n", stdout empty, exit 255
                            (`if (!*dev_list) { fprintf(stderr, "No IB devices
                            found\\n"); ret = -1; goto out; }` and main returns -1)
    ibv_devinfo -l       -> stdout "0 HCAs found:\\n\\n", exit 0
    ibv_devinfo -d mlx5_0-> stderr "IB device 'mlx5_0' wasn't found\\n", exit 255
and from device_list.c (ibv_devices): the two header lines only, exit 0.

(A NULL list -- what Debian's own libibverbs returns without kernel RDMA
support -- instead prints "Failed to get IB devices list: <strerror>" and
exits 255; ibv_devices exits 1.)

As a live oracle the same commands also run over Debian's own libraries with
SYSFS_PATH pointing at an empty fake sysfs (class/infiniband_verbs/abi_version
only), which makes rdma-core 44 return an empty list; both the expectations
above and our output must match it byte for byte, and a difference fails.
The oracle needs a host without RDMA devices of its own (rdma-core also
finds devices through netlink, whatever SYSFS_PATH says): on a host whose
/sys/class/infiniband lists devices it cannot stand for "no device", and
the check says so and leaves it out; --no-oracle leaves it out as well.

Mode device:NAMES (for when devices are configured): `ibv_devinfo -l` lists
exactly NAMES, `ibv_devinfo` and `ibv_devinfo -d NAME` print 'hca_id:\\tNAME'
blocks and exit 0, and ibv_devices lists NAMES.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # keep the source tree clean of __pycache__
from compat_common import add_dropin_arg, check_dropin, dropin_env

TAG = "compat_ibv_devinfo"
DEVICES_HEADER = "    %-16s\t   node GUID\n    %-16s\t----------------\n" % ("device", "------")


def no_device_cases():
    # (argv, expected exit status, expected stdout, expected stderr)
    return [
        (["ibv_devinfo"], 255, "", "No IB devices found\n"),
        (["ibv_devinfo", "-l"], 0, "0 HCAs found:\n\n", ""),
        (["ibv_devinfo", "-d", "mlx5_0"], 255, "", "IB device 'mlx5_0' wasn't found\n"),
        (["ibv_devices"], 0, DEVICES_HEADER, ""),
    ]


def device_cases(names):
    # Regex checks on stdout; stderr must be empty, exit 0.
    n = len(names)
    listing = "%d HCA%s found:\n%s\n" % (n, "" if n == 1 else "s",
                                         "".join("\t%s\n" % d for d in names))
    cases = [
        (["ibv_devinfo", "-l"], 0, listing, ""),
        (["ibv_devinfo"], 0, re.compile("".join(r"(?:.*\n)*?hca_id:\t%s\n" % re.escape(d)
                                                for d in names) + r"(?:.*\n)*\Z"), ""),
        (["ibv_devices"], 0, re.compile(re.escape(DEVICES_HEADER) + "".join(
            r"    %-16s\t[0-9a-f]{16}\n" % re.escape(d) for d in names) + r"\Z"), ""),
    ]
    for d in names:
        cases.append((["ibv_devinfo", "-d", d], 0,
                      re.compile(r"hca_id:\t%s\n(?:.*\n)*\Z" % re.escape(d)), ""))
    cases.append((["ibv_devinfo", "-d", "nosuchdev0"], 255, "",
                  "IB device 'nosuchdev0' wasn't found\n"))
    # What a ConnectX-6 Dx RoCE port shows in -v: identity, an active
    # Ethernet port and the GID table of a real mlx5 port (0/1 link-local
    # RoCE v1/v2, 2/3 IPv4-mapped RoCE v1/v2, nothing after).
    for d in names:
        cases.append((["ibv_devinfo", "-v", "-d", d], 0, re.compile(
            r"hca_id:\t%s\n(?:.*\n)*?" % re.escape(d) +
            r"\tvendor_id:\t+0x02c9\n\tvendor_part_id:\t+4125\n(?:.*\n)*?"
            r"\t\tport:\t1\n\t\t\tstate:\t+PORT_ACTIVE \(4\)\n(?:.*\n)*?"
            r"\t\t\tlink_layer:\t+Ethernet\n(?:.*\n)*?"
            r"\t\t\tGID\[  0\]:\t+fe80:0000:0000:0000:[0-9a-f:]+, RoCE v1\n"
            r"\t\t\tGID\[  1\]:\t+fe80::[0-9a-f:]+, RoCE v2\n"
            r"\t\t\tGID\[  2\]:\t+0000:0000:0000:0000:0000:ffff:[0-9a-f:]+, RoCE v1\n"
            r"\t\t\tGID\[  3\]:\t+::ffff:127\.[0-9.]+, RoCE v2\n"
            r"(?!\t\t\tGID)(?:.*\n)*\Z"), ""))
    return cases


def run(argv, env):
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def matches(want, got):
    return want.fullmatch(got) is not None if hasattr(want, "fullmatch") else want == got


def show(x):
    return "/%s/" % x.pattern if hasattr(x, "pattern") else repr(x)


def oracle_env():
    """Debian's rdma-core 44 with an empty device list: a fake sysfs."""
    root = tempfile.mkdtemp(prefix="mlx5emu-sysfs.")
    os.makedirs(os.path.join(root, "class", "infiniband_verbs"))
    with open(os.path.join(root, "class", "infiniband_verbs", "abi_version"), "w") as f:
        f.write("6\n")
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env["SYSFS_PATH"] = root
    return root, env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dropin_arg(ap)
    ap.add_argument("--mode", default="no-device",
                    help="no-device, or device:NAME[,NAME...] (default %(default)s)")
    ap.add_argument("--no-oracle", action="store_true",
                    help="skip the comparison with Debian's libraries")
    a = ap.parse_args()
    dropin = check_dropin(a.dropin, TAG)
    for prog in ("ibv_devinfo", "ibv_devices"):
        if not shutil.which(prog):
            print("%s: FAIL: %s not installed (package ibverbs-utils)" % (TAG, prog))
            return 1

    if a.mode == "no-device":
        cases = no_device_cases()
    elif a.mode.startswith("device:") and a.mode[7:]:
        cases = device_cases(a.mode[7:].split(","))
    else:
        ap.error("unknown --mode %r" % a.mode)

    env = dropin_env(dropin)
    env.pop("SYSFS_PATH", None)
    if a.mode == "no-device":
        # The empty list is the emulator's (MLX5EMU_NUM_DEVICES=0); a real
        # ConnectX's list is not ours to empty, so this mode stays on emu.
        env["MLX5EMU_BACKEND"] = "emu"
    failures = 0
    for argv, rc, out, err in cases:
        got = run(argv, env)
        ok = got[0] == rc and matches(out, got[1]) and matches(err, got[2])
        print("%-4s %-28s exit %d, stdout %r, stderr %r"
              % ("ok" if ok else "BAD", " ".join(argv), got[0], got[1][:200], got[2][:200]))
        if not ok:
            failures += 1
            print("     expected exit %d, stdout %s, stderr %s" % (rc, show(out), show(err)))

    host_devices = sorted(os.listdir("/sys/class/infiniband")) \
        if os.path.isdir("/sys/class/infiniband") else []
    if a.mode == "no-device" and not a.no_oracle and host_devices:
        print("oracle left out: this host has RDMA devices of its own (%s), so Debian's "
              "libraries cannot show a machine without any" % ", ".join(host_devices))
    elif a.mode == "no-device" and not a.no_oracle:
        root, oenv = oracle_env()
        try:
            for argv, rc, out, err in cases:
                want = run(argv, oenv)
                ok = want == (rc, out, err)
                print("%-4s %-28s Debian's rdma-core 44 with no device: exit %d, stdout %r, "
                      "stderr %r" % ("ok" if ok else "BAD", " ".join(argv), want[0],
                                     want[1][:200], want[2][:200]))
                if not ok:
                    failures += 1
                    print("     the expectation (and our output) is exit %d, stdout %r, "
                          "stderr %r" % (rc, out, err))
        finally:
            shutil.rmtree(root, ignore_errors=True)

    if failures:
        print("%s: FAIL (%d of %d cases, mode %s)" % (TAG, failures, len(cases), a.mode))
        return 1
    print("%s: PASS (mode %s, %d cases)" % (TAG, a.mode, len(cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
