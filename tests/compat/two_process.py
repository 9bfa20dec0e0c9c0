#!/usr/bin/env python3
"""An unmodified server and client, each its own process over the drop-in
libraries, talking RDMA over the wire; both ports' captures judged.

    two_process.py --dropin DIR [--mlx5emu PATH] --expect REGEX
                   [--report client|both] [--min-packets N]
                   [--opcodes NAME,...] [--faults RULES]
                   [--stats KEY>=N|KEY<=N,...] [--env NAME=VALUE]... -- PROGRAM ARGS...

PROGRAM ARGS runs twice: as the server with `-p PORT`, and as the client
with `-p PORT 127.0.0.1`, where PORT is a free TCP port for the programs'
own exchange of addresses (ibverbs-utils and perftest both take -p).  With
--mlx5emu the server starts through `mlx5emu run --`, the client with
LD_LIBRARY_PATH, so both ways of running a program are used.  Each process
writes a pcap of its port (MLX5EMU_WIRE_CAPTURE) into a directory of its
own, judged by roce_capture.py; each process's output must match REGEX
(a line, re.MULTILINE); with --report client only the client's must
(perftest's latency servers print no results).  --faults gives both
processes the same fault rules (MLX5EMU_FAULTS: wire faults act on the
frames each process sends).  --stats has each process write its wire
counters (MLX5EMU_WIRE_STATS) and checks their sums over both processes'
QPs and ports, e.g. `retransmits>=1,faults>=1`; the sums are printed,
and without --faults no message may be sent again but for a timeout or
a NAK.
--server-env/--client-env and --server-args/--client-args give one side
only what differs between the two (raw Ethernet programs: each its own
address and MACs).
Whatever fails, no process outlives the script.
"""
import argparse
import glob
import json
import os
import shlex
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat_common  # noqa: E402
import roce_capture  # noqa: E402

TAG = "two_process"


def free_port():
    """A TCP port no one listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET6 if socket.has_ipv6 else socket.AF_INET) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether some socket listens on TCP port (any address, v4 or v6)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def start(cmd, env, out):
    return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)


def stop(proc):
    """Kill proc's whole session if it still runs."""
    if proc and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def wait(proc, deadline):
    try:
        return proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return None


def parse_stats(spec):
    """[(key, op, bound)] of `KEY>=N,KEY<=N,...`."""
    out = []
    for item in filter(None, spec.split(",")):
        m = re.fullmatch(r"(\w+)([<>]=)(\d+)", item.strip())
        if not m:
            raise argparse.ArgumentTypeError("%r is not KEY>=N or KEY<=N" % item)
        out.append((m.group(1), m.group(2), int(m.group(3))))
    return out


def stats_sums(paths):
    """Each counter summed over the QP and port lines of the files; a
    port's drops are summed under drop_REASON."""
    sums = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                for k, v in rec.items():
                    if k == "drops":
                        for why, n in v.items():
                            sums["drop_" + why] = sums.get("drop_" + why, 0) + n
                    elif isinstance(v, int) and k not in ("qpn", "port"):
                        sums[k] = sums.get(k, 0) + v
    return sums


def check_stats(args, paths):
    """True when every --stats condition holds."""
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        print("%s: no wire counters in %s" % (TAG, ", ".join(missing)))
        return False
    sums = stats_sums(paths)
    print("%s: counters of both processes: %s" % (
        TAG, ", ".join("%s %d" % kv for kv in sorted(sums.items()))))
    ok = True
    # Without faults a message goes again only after a timeout or a NAK
    # (a loaded machine may see either); a send continued after its
    # budget ran out is no retransmission.
    causes = sum(sums.get(k, 0) for k in ("timeouts", "naks_rcvd", "rnr_naks_rcvd"))
    if not args.faults and sums.get("retransmits", 0) and not causes:
        print("%s: %d retransmits with no timeout and no NAK"
              % (TAG, sums["retransmits"]))
        ok = False
    for key, op, bound in args.stats:
        got = sums.get(key, 0)
        if (got < bound) if op == ">=" else (got > bound):
            print("%s: %s is %d, expected %s %d" % (
                TAG, key, got, "at least" if op == ">=" else "at most", bound))
            ok = False
    return ok


# perftest's own clock calibration (get_clock.c: rdtsc against
# gettimeofday, refused below r^2 0.9) fails when the scheduler takes the
# CPU mid-sample, on a loaded two-CPU machine; it is not about the device,
# and perftest then exits 1 after its test has run.
PERFTEST_CLOCK = re.compile(r"Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9\n"
                            r"(?:.*\n)*?Can't produce a report", re.MULTILINE)


def run_once(args, prog, work):
    """0, 1 (failed), or why it should be run again (a string)."""
    port = free_port()
    dirs = {r: os.path.join(work, r) for r in ("server", "client")}
    logs = {r: os.path.join(work, r + ".log") for r in dirs}
    for d in dirs.values():
        os.makedirs(d)
    envs = {}
    for role, d in dirs.items():
        env = compat_common.dropin_env(args.dropin)
        env["MLX5EMU_WIRE_CAPTURE"] = d
        for kv in args.env + getattr(args, role + "_env"):
            name, _, value = kv.partition("=")
            env[name] = value
        if args.faults:
            env["MLX5EMU_FAULTS"] = args.faults
        if args.stats:
            env["MLX5EMU_WIRE_STATS"] = os.path.join(work, role + ".jsonl")
        envs[role] = env
    server_cmd = prog + shlex.split(args.server_args) + ["-p", str(port)]
    if args.mlx5emu:
        server_cmd = [args.mlx5emu, "run", "--"] + server_cmd
        # mlx5emu run puts the drop-in directory first itself.
        del envs["server"]["LD_LIBRARY_PATH"]
    client_cmd = (prog + shlex.split(args.client_args) +
                  ["-p", str(port), "127.0.0.1"])
    server = client = None
    t0 = time.monotonic()
    deadline = t0 + args.timeout
    try:
        with open(logs["server"], "w") as out:
            server = start(server_cmd, envs["server"], out)
        # A raw Ethernet server listens on no socket: it is ready once its
        # queues and flow exist, which --settle seconds cover.
        settle = time.monotonic() + args.settle
        while (time.monotonic() < settle if args.settle else not listening(port)):
            if server.poll() is not None:
                log = open(logs["server"]).read()
                if re.search(r"(?i)couldn'?t (listen|bind)|address already in use", log):
                    return "the TCP port was taken meanwhile; again with another"
                print("%s: the server exited (%d) before it listened:\n%s"
                      % (TAG, server.returncode, log))
                return 1
            if time.monotonic() > deadline:
                print("%s: the server does not listen on %d after %g s"
                      % (TAG, port, args.timeout))
                return 1
            time.sleep(0.02)
        t_listen = time.monotonic()
        with open(logs["client"], "w") as out:
            client = start(client_cmd, envs["client"], out)
        rc_client = wait(client, deadline)
        rc_server = wait(server, deadline)
        t_done = time.monotonic()
    finally:
        stop(client)
        stop(server)

    failed = False
    for role, rc in (("server", rc_server), ("client", rc_client)):
        log = open(logs[role]).read()
        if rc == 1 and PERFTEST_CLOCK.search(log):
            return ("the %s's perftest could not calibrate its clock "
                    "(a busy CPU); again" % role)
        if rc is None:
            print("%s: the %s did not finish within %g s" % (TAG, role, args.timeout))
        elif rc != 0:
            print("%s: the %s exited with %d" % (TAG, role, rc))
        elif ((role == "client" or args.report == "both")
              and not re.search(args.expect, log, re.MULTILINE)):
            print("%s: the %s's output lacks /%s/" % (TAG, role, args.expect))
        else:
            continue
        failed = True
        print("---- %s: %s\n%s----" % (role, " ".join(server_cmd if role == "server"
                                                   else client_cmd), log))
    print("%s: server listening after %.2f s, both done %.2f s later"
          % (TAG, t_listen - t0, t_done - t_listen))
    if args.stats and not check_stats(
            args, [os.path.join(work, r + ".jsonl") for r in dirs]):
        failed = True
    if failed:
        return 1

    opcodes = [o for o in args.opcodes.split(",") if o]
    for role, d in dirs.items():
        caps = glob.glob(os.path.join(d, "*.pcap"))
        if len(caps) != 1:
            print("%s: the %s left %d captures in %s, expected 1" % (TAG, role, len(caps), d))
            failed = True
            continue
        summary, problems = roce_capture.judge(caps[0], args.min_packets, opcodes)
        for p in problems[:20]:
            print("  %s" % p)
        print("%s: %s" % (role, summary))
        failed |= bool(problems)
        if args.keep:
            shutil.copy(caps[0], os.path.join(args.keep, "%s.pcap" % role))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    compat_common.add_dropin_arg(ap)
    ap.add_argument("--mlx5emu", metavar="PATH",
                    help="start the server through `PATH run --`")
    ap.add_argument("--expect", required=True, metavar="REGEX",
                    help="what each process's output must hold")
    ap.add_argument("--report", choices=("client", "both"), default="both",
                    help="whose output must match --expect (default both)")
    ap.add_argument("--faults", metavar="RULES",
                    help="fault rules (MLX5EMU_FAULTS) for both processes")
    ap.add_argument("--stats", type=parse_stats, default=[], metavar="KEY>=N,...",
                    help="wire counters that must reach these sums")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="set in both processes' environment (repeatable)")
    ap.add_argument("--server-env", action="append", default=[],
                    metavar="NAME=VALUE", help="an environment variable of the server only")
    ap.add_argument("--client-env", action="append", default=[],
                    metavar="NAME=VALUE", help="an environment variable of the client only")
    ap.add_argument("--server-args", default="", metavar="ARGS",
                    help="arguments of the server only (raw Ethernet: its MACs)")
    ap.add_argument("--client-args", default="", metavar="ARGS",
                    help="arguments of the client only")
    ap.add_argument("--settle", type=float, default=0, metavar="S",
                    help="start the client S seconds after the server instead of "
                    "when it listens (servers that listen on no socket)")
    ap.add_argument("--min-packets", type=int, default=1, metavar="N",
                    help="RoCE packets each capture must hold at least")
    ap.add_argument("--opcodes", default="", metavar="NAME,...",
                    help="packet kinds (RC_SEND_FIRST, ...) each capture must hold")
    ap.add_argument("--timeout", type=float, default=60, metavar="S",
                    help="for the whole run (default %(default)s s)")
    ap.add_argument("--keep", metavar="DIR", help="copy the captures there")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog:
        ap.error("no program")
    args.dropin = compat_common.check_dropin(args.dropin, TAG)
    if shutil.which(prog[0]) is None:
        compat_common.die(TAG, "%s is not installed" % prog[0])
    if shutil.which("tshark") is None:
        compat_common.die(TAG, "tshark is not installed (ci/deps.sh installs it)")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    for attempt in range(3):
        work = tempfile.mkdtemp(prefix="mlx5emu-two-process-")
        try:
            ret = run_once(args, prog, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if not isinstance(ret, str):
            return ret
        print("%s: %s" % (TAG, ret))
    return 1


if __name__ == "__main__":
    sys.exit(main())
