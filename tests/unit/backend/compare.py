#!/usr/bin/env python3
"""The commands a verbs program makes the provider issue, emu mode against
hw mode (the hw backend over tests/hwdouble), compared.

    compare.py PROG DROPIN_DIR DOUBLE_LIBDIR WORKDIR

Runs PROG twice on the drop-in libraries:
  emu  MLX5EMU_TRACE=json: the emulated firmware's trace;
  hw   MLX5EMU_BACKEND=hw over the double, HWDOUBLE_LOG: the double's
       record of each rdma-core call (with the command each carries) and
       MLX5EMU_TRACE=json: the filter's trace above the hw backend.
The ports' addresses are fixed (MLX5EMU_IP_BASE), so GIDs and MACs match.
Then checks that the program printed the same thing, and that
  - the commands the application's uid sent to the emulated firmware, less
    the ones the kernel issues on its own, are the commands the double
    received, in order: same opcode, op_mod, every inbox field equal except
    addresses and object ids (the two runs may number and place objects
    apart), same status;
  - the kernel's own commands on the emu side are what the hw side's calls
    without a mailbox imply (UAR pages, umem registration), in number;
  - the filter's trace shows the same commands as the double received.
A run with a fault rule (MLX5EMU_FAULTS) is compared the same way; the
rule must act in both modes alike.
"""
import json
import os
import subprocess
import sys

# Calls without a mailbox, and the command the kernel runs for each.  UAR
# pages: libmlx5 allocates one when its pool is empty ("new_page") and
# frees them all with the context ("uar_pages" at close).
KERNEL_OWN = {
    "mlx5dv_devx_umem_reg_ex": "CREATE_UMEM",
    "mlx5dv_devx_umem_dereg": "DESTROY_UMEM",
}
UAR_OWN = ("ALLOC_UAR", "DEALLOC_UAR")
# Inbox fields that hold process addresses or object numbers.
VOLATILE_SUFFIXES = ("addr", "address", "_id", "pd", "cqn", "qpn", "cqn_snd",
                     "cqn_rcv", "srqn", "mkey_index", "uar_page", "page",
                     "remote_qpn", "xrcd", "eqn", "c_eqn", "dbr_umem_id")
VOLATILE_PREFIXES = ("pas",)


def masked(obj, key=""):
    if isinstance(obj, dict):
        return {k: masked(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [masked(v, key) for v in obj]
    if key.endswith(VOLATILE_SUFFIXES) or key.startswith(VOLATILE_PREFIXES):
        return "*"
    return obj


def diff(a, b, path=""):
    """The paths at which two decoded mailboxes differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += diff(a.get(k), b.get(k), path + "." + k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, "%s[%d]" % (path, i))
        return out
    return [] if a == b else ["%s: %r vs %r" % (path or ".", a, b)]


def run(prog, env, workdir):
    full = dict(os.environ)
    full.update(env)
    res = subprocess.run([prog], env=full, cwd=workdir, capture_output=True,
                         text=True, timeout=120)
    return res.returncode, res.stdout, res.stderr


def lines(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def key(c):
    return (c["opcode"], c.get("op_mod", c.get("obj_type")))


def emu_commands(trace):
    """What the application's uid sent: (commands, kernel-own opcodes)."""
    cmds, own = [], []
    for c in trace:
        if not c.get("uid"):
            continue	# the kernel's own (bring-up, uctx)
        if (c["opcode"] in KERNEL_OWN.values() or c["opcode"] in UAR_OWN or
                c["opcode"] == "DRAIN_DCT"):
            own.append(c["opcode"])
        else:
            cmds.append(c)
    return cmds, own


def hw_commands(record, emu_own):
    cmds, own = [], []
    for r in record:
        if "cmd" in r:
            cmds.append(r["cmd"])
        elif r["call"] in KERNEL_OWN and KERNEL_OWN[r["call"]] in emu_own:
            own.append(KERNEL_OWN[r["call"]])
        elif r["call"] == "mlx5dv_devx_alloc_uar" and r.get("new_page"):
            own.append("ALLOC_UAR")
        elif r["call"] == "ibv_close_device":
            own += ["DEALLOC_UAR"] * r.get("uar_pages", 0)
    return cmds, own


def compare(tag, emu, hw, problems, with_status=True):
    if [key(c) for c in emu] != [key(c) for c in hw]:
        problems.append("%s: opcodes differ:\n  emu %s\n  hw  %s" %
                        (tag, [key(c) for c in emu], [key(c) for c in hw]))
        return
    for e, h in zip(emu, hw):
        d = diff(masked(e.get("in")), masked(h.get("in")))
        if d:
            problems.append("%s: %s inbox differs (emu vs hw): %s" %
                            (tag, e["opcode"], "; ".join(d)))
        if with_status and "status" in h and e.get("status") != h.get("status"):
            problems.append("%s: %s status %s vs %s" %
                            (tag, e["opcode"], e.get("status"), h.get("status")))


def one(prog, dropin, double, workdir, faults, problems):
    tag = "faults=%r" % faults if faults else "clean"
    for f in ("emu.jsonl", "hw.jsonl", "filter.jsonl"):
        path = os.path.join(workdir, f)
        if os.path.exists(path):
            os.unlink(path)
    # Fixed addresses: the ports' MACs and GIDs follow from them.
    base = {"LD_LIBRARY_PATH": dropin, "MLX5EMU_FAULTS": faults,
            "MLX5EMU_IP_BASE": "127.201.78.1"}
    rc_e, out_e, err_e = run(prog, dict(base, MLX5EMU_TRACE="json:emu.jsonl"),
                             workdir)
    rc_h, out_h, err_h = run(prog, dict(base, MLX5EMU_BACKEND="hw",
                                        MLX5EMU_HW_LIBDIR=double,
                                        HWDOUBLE_LOG="hw.jsonl",
                                        MLX5EMU_TRACE="json:filter.jsonl"),
                             workdir)
    if (rc_e, out_e) != (rc_h, out_h):
        problems.append("%s: the program differs:\n--- emu (%d)\n%s%s--- hw (%d)\n%s%s"
                        % (tag, rc_e, out_e, err_e, rc_h, out_h, err_h))
    emu, emu_own = emu_commands(lines(os.path.join(workdir, "emu.jsonl")))
    hw, hw_own = hw_commands(lines(os.path.join(workdir, "hw.jsonl")), emu_own)
    filt = lines(os.path.join(workdir, "filter.jsonl"))
    if not emu or not hw:
        problems.append("%s: no commands (emu %d, hw %d)" % (tag, len(emu), len(hw)))
    # A rule answers above the device in hw mode: the double never sees
    # the failed command, the filter's trace shows it injected.
    injected = [c for c in filt if c.get("injected")]
    compare(tag + " emu firmware vs double", [c for c in emu if not c.get("injected")],
            hw, problems)
    if sorted(emu_own) != sorted(hw_own):
        problems.append("%s: kernel's own commands differ: emu %s, hw %s" %
                        (tag, emu_own, hw_own))
    compare(tag + " emu firmware vs filter trace", emu, filt, problems)
    if faults and not injected:
        problems.append("%s: the filter's trace shows no injection" % tag)
    return len(emu), len(hw), len(injected), out_h


def main():
    prog, dropin, double, workdir = sys.argv[1:5]
    problems = []
    n_e, n_h, _, _ = one(prog, dropin, double, workdir, "", problems)
    print("clean run: %d commands in emu, %d at the double" % (n_e, n_h))
    n_e, n_h, inj, out = one(prog, dropin, double, workdir,
                             "fail opcode=RTR2RTS_QP status=BAD_PARAM", problems)
    print("faulted run: %d commands in emu, %d at the double, %d injected"
          % (n_e, n_h, inj))
    if "modify_qp RTS failed: EINVAL" not in out:
        problems.append("the rule did not fail modify_qp RTS with EINVAL:\n" + out)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
