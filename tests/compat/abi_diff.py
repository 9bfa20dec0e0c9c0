#!/usr/bin/python3
"""compat_abi_diff: our drop-in libraries export exactly rdma-core 44's ABI.

For each shell SONAME (libibverbs.so.1, libmlx5.so.1, libmana.so.1,
libefa.so.1) the set of defined dynamic symbols, as name@version (compat) and
name@@version (default), of <dropin>/<so> must equal

  (a) the set shell/<so>.syms describes, and
  (b) the exports of Debian's /usr/lib/<multiarch>/<so>, minus the private
      provider-plugin ABI (every *_PRIVATE_* node) except
      ibv_query_gid_type@@IBVERBS_PRIVATE_34.

Also: the set of version nodes equals Debian's (a program's verneed names
nodes, not symbols); the SONAME equals the file name; the shells export
nothing unversioned; the core library has SONAME libmlx5emu_core.so.0,
exports only mlx5emu_abi_* under MLX5EMU_PRIVATE_0 and NEEDs no rdma-core
library.  Without Debian's libraries only (a) is checked, and it says so.

    abi_diff.py [--dropin <build>/lib] [--syms-dir shell] [--system-libdir DIR]
"""
import argparse
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True     # keep the source tree clean of __pycache__
from compat_common import (CORE, SHELLS, SOURCE_DIR, add_dropin_arg, check_dropin,
                           die, system_libdir)

TAG = "compat_abi_diff"
KEEP_PRIVATE = {"ibv_query_gid_type@@IBVERBS_PRIVATE_34"}
RDMA_CORE_SONAMES = set(SHELLS) | {"librdmacm.so.1"}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        die(TAG, "%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def exports(path):
    """(versioned symbol set, unversioned names, version node set) of a DSO."""
    syms, unversioned, nodes = set(), set(), set()
    for line in run(["nm", "-D", "--defined-only", "--with-symbol-versions", path]).splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == "A":                      # a version definition, not a symbol
            nodes.add(name.split("@")[0])
            continue
        if "@" in name:
            syms.add(name)
        else:
            unversioned.add(name)
    return syms, unversioned, nodes


def dynamic(path):
    """(SONAME or None, [NEEDED])."""
    soname, needed = None, []
    for line in run(["readelf", "-d", path]).splitlines():
        m = re.search(r"\((SONAME|NEEDED)\)\s+\S.*\[(.*)\]", line)
        if m and m.group(1) == "SONAME":
            soname = m.group(2)
        elif m:
            needed.append(m.group(2))
    return soname, needed


def syms_file(path):
    out = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 4 or fields[2] not in ("default", "compat"):
                die(TAG, "%s:%d: malformed line %r" % (path, n, line.rstrip()))
            name, ver, kind = fields[:3]
            out.add(name + ("@@" if kind == "default" else "@") + ver)
    return out


def versions(symset):
    return {s.split("@")[-1] for s in symset}


def diff(errors, what, ours, ref, ours_name, ref_name):
    missing, extra = sorted(ref - ours), sorted(ours - ref)
    if missing or extra:
        msg = ["%s: %s differs from %s" % (what, ours_name, ref_name)]
        if missing:
            msg.append("  missing (%d; in %s, not in %s):" % (len(missing), ref_name, ours_name))
            msg += ["    " + s for s in missing]
        if extra:
            msg.append("  extra (%d; in %s, not in %s):" % (len(extra), ours_name, ref_name))
            msg += ["    " + s for s in extra]
        errors.append("\n".join(msg))
    return not (missing or extra)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dropin_arg(ap)
    ap.add_argument("--syms-dir", default=os.path.join(SOURCE_DIR, "shell"))
    ap.add_argument("--system-libdir", default=system_libdir(),
                    help="where Debian's rdma-core libraries are (default %(default)s)")
    a = ap.parse_args()
    dropin = check_dropin(a.dropin, TAG)

    errors, notes = [], []
    for so in SHELLS:
        ours_path = os.path.join(dropin, so)
        ours, unversioned, our_nodes = exports(ours_path)
        soname, _ = dynamic(ours_path)
        if soname != so:
            errors.append("%s: SONAME is %r, expected %r" % (so, soname, so))
        if unversioned:
            errors.append("%s: exports unversioned symbols: %s" % (so, " ".join(sorted(unversioned))))

        declared = syms_file(os.path.join(a.syms_dir, so + ".syms"))
        ok = diff(errors, so, ours, declared, "built " + so, "%s.syms" % so)

        sys_path = os.path.join(a.system_libdir, so)
        if os.path.isfile(sys_path):
            deb, _, deb_nodes = exports(sys_path)
            deb = {s for s in deb if "_PRIVATE_" not in s or s in KEEP_PRIVATE}
            ok &= diff(errors, so, ours, deb, "built " + so, "Debian " + sys_path)
            ok &= diff(errors, so + " version nodes", our_nodes, deb_nodes,
                       "built " + so, "Debian " + sys_path)
            ref = "%s.syms and Debian's %s" % (so, sys_path)
        else:
            notes.append("%s absent: %s compared with %s.syms only" % (sys_path, so, so))
            ok &= diff(errors, so + " version nodes", our_nodes, versions(declared),
                       "built " + so, "versions used in %s.syms" % so)
            ref = "%s.syms" % so
        if ok:
            print("%s: %d symbols in %d version nodes, equal to %s"
                  % (so, len(ours), len(our_nodes), ref))

    core_path = os.path.join(dropin, CORE)
    core, unversioned, nodes = exports(core_path)
    soname, needed = dynamic(core_path)
    bad = sorted(s for s in core if not re.fullmatch(r"mlx5emu_abi_\w+@@MLX5EMU_PRIVATE_0", s))
    core_errors = []
    if soname != CORE:
        core_errors.append("%s: SONAME is %r, expected %r" % (CORE, soname, CORE))
    if bad or unversioned:
        core_errors.append("%s: exports beyond mlx5emu_abi_*@@MLX5EMU_PRIVATE_0:\n  %s"
                           % (CORE, "\n  ".join(bad + sorted(unversioned))))
    if nodes != {"MLX5EMU_PRIVATE_0"}:
        core_errors.append("%s: version nodes %s, expected only MLX5EMU_PRIVATE_0"
                           % (CORE, sorted(nodes)))
    if not core:
        core_errors.append("%s: exports no mlx5emu_abi_* entry at all" % CORE)
    rdma = sorted(set(needed) & RDMA_CORE_SONAMES)
    if rdma:
        core_errors.append("%s: NEEDs rdma-core libraries %s" % (CORE, rdma))
    if not core_errors:
        print("%s: %d mlx5emu_abi_* symbols under MLX5EMU_PRIVATE_0, nothing else"
              % (CORE, len(core)))
    errors += core_errors

    for n in notes:
        print("NOTE: " + n)
    if errors:
        print("\n".join(errors))
        print("%s: FAIL (%d problems)" % (TAG, len(errors)))
        return 1
    print("%s: PASS" % TAG)
    return 0


if __name__ == "__main__":
    sys.exit(main())
