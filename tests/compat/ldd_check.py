#!/usr/bin/python3
"""compat_ldd: third-party rdma-core consumers resolve fully against the drop-in libraries.

Runs `ldd -r` with LD_LIBRARY_PATH=<dropin> on ibverbs-utils, perftest, the
system librdmacm.so.1 and every compiled pyverbs module, and fails on

  * any "undefined symbol" line, any "symbol X version V not defined in file"
    line, any "version `V' not found" line, any "=> not found" library;
  * libibverbs.so.1, libmlx5.so.1, libefa.so.1, libmana.so.1 or
    libmlx5emu_core.so.0 resolving anywhere but the drop-in directory;
  * a target that is missing (CI installs ibverbs-utils, perftest,
    python3-pyverbs and librdmacm1).

    ldd_check.py [--dropin <build>/lib] [-v]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True     # keep the source tree clean of __pycache__
from compat_common import CORE, add_dropin_arg, check_dropin, dropin_env, system_libdir

TAG = "compat_ldd"
PROGRAMS = {
    "ibverbs-utils": ["ibv_devinfo", "ibv_devices", "ibv_rc_pingpong", "ibv_uc_pingpong",
                      "ibv_ud_pingpong", "ibv_srq_pingpong", "ibv_xsrq_pingpong"],
    "perftest": ["ib_write_bw", "ib_send_bw", "ib_read_bw", "ib_write_lat", "raw_ethernet_bw"],
}
PYVERBS_DIR = "/usr/lib/python3/dist-packages/pyverbs"
OURS = ("libibverbs.so.1", "libmlx5.so.1", "libefa.so.1", "libmana.so.1", CORE)
BAD_LINE = re.compile(r"undefined symbol|symbol .* version .* not defined|"
                      r"version `[^']*' not found|=> not found")
RESOLVED = re.compile(r"^\s*(\S+)\s+=>\s+(\S+)\s+\(0x")


def targets(errors):
    out = []
    for pkg, progs in PROGRAMS.items():
        for prog in progs:
            path = shutil.which(prog) or ("/usr/bin/" + prog if os.path.exists("/usr/bin/" + prog) else None)
            if path:
                out.append(path)
            else:
                errors.append("%s: not installed (package %s)" % (prog, pkg))
    rdmacm = os.path.join(system_libdir(), "librdmacm.so.1")
    if os.path.exists(rdmacm):
        out.append(rdmacm)
    else:
        errors.append("%s: not installed (package librdmacm1)" % rdmacm)
    mods = sorted(glob.glob(os.path.join(PYVERBS_DIR, "**", "*.so"), recursive=True))
    if mods:
        out += mods
    else:
        errors.append("%s/**/*.so: no compiled pyverbs module (package python3-pyverbs)"
                      % PYVERBS_DIR)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dropin_arg(ap)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every ldd output")
    a = ap.parse_args()
    dropin = check_dropin(a.dropin, TAG)
    env = dropin_env(dropin)

    errors = []
    checked = 0
    for path in targets(errors):
        p = subprocess.run(["ldd", "-r", path], env=env, capture_output=True, text=True)
        text = p.stdout + p.stderr
        problems = [l.strip() for l in text.splitlines() if BAD_LINE.search(l)]
        resolved = {}
        for line in text.splitlines():
            m = RESOLVED.match(line)
            if m:
                resolved[m.group(1)] = m.group(2)
        for lib in OURS:
            if lib in resolved and os.path.dirname(os.path.realpath(resolved[lib])) != dropin:
                problems.append("%s resolves to %s, not the drop-in directory %s"
                                % (lib, resolved[lib], dropin))
        if any(lib in resolved for lib in OURS[:4]) and CORE not in resolved:
            problems.append("%s is not loaded" % CORE)
        if not path.startswith(PYVERBS_DIR + "/") and not any(lib in resolved for lib in OURS):
            # (some pyverbs modules link no rdma-core library at all)
            problems.append("loads none of our libraries (expected libibverbs.so.1 at least)")
        if p.returncode and not problems:
            problems.append("ldd exited %d" % p.returncode)
        checked += 1
        ours = " ".join(l.split(".so")[0] for l in OURS if l in resolved)
        if problems:
            errors.append("%s:\n  %s" % (path, "\n  ".join(problems)))
            if not a.verbose:
                errors[-1] += "\n  --- ldd -r output ---\n" + "".join(
                    "  | " + l + "\n" for l in text.splitlines())
        if a.verbose:
            print("== %s\n%s" % (path, text.rstrip()))
        print("%-4s %s (drop-in: %s)" % ("ok" if not problems else "BAD", path, ours))

    if errors:
        print("\n".join(errors))
        print("%s: FAIL (%d problem targets, %d checked; see above)" % (TAG, len(errors), checked))
        return 1
    print("%s: PASS (%d targets resolve all symbols and versions against %s)"
          % (TAG, checked, dropin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
