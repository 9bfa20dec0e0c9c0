#!/usr/bin/env python3
"""bench_two_process: perftest between two processes over the drop-in
libraries, on each path of the wire (the same-host fast path through
shared memory, then UDP: each RoCE v2 packet one datagram on loopback,
wire.fast_path off), against the limits program's figures measured in the
same run, before the perftest runs and after them.

    bench_two_process.py --limits PATH [--dropin DIR] [--mlx5emu PATH] [-q]
                         [--path fast|udp|both]

  write_bw_64KiB  ib_write_bw -s 65536 -t 128 -Q 100: GB/s; fast path
                  against memcpy of 64 KiB (goal >= 0.10), UDP against the
                  4 KiB UDP-GSO byte rate (goal >= 0.25)
  write_bw_64B    ib_write_bw -s 64 -t 128 -Q 100: Mpps against the 64-byte
                  UDP-GSO datagram rate (goal: fast >= 0.15, UDP >= 0.10)
  send_lat_2B     ib_send_lat -s 2: t_typical against UDP one-way (goal:
                  fast <= 1, UDP <= 3), and its 99th percentile against
                  t_typical (<= 4)
  write_lat_2B    ib_write_lat -s 2: reported, no goal (on two CPUs its
                  delivery needs a third runnable thread: docs/performance.md)
  idle_server     a waiting ibv_rc_pingpong server (device open, QP
                  created, receives posted): % of one CPU (goal <= 2)
  raw_eth_bw      raw_ethernet_bw of 1518-byte frames, each process its own
                  address and MAC, steered by the server's flow: Mpps and
                  GB/s (reported, no goal)

Each server starts through `mlx5emu run --` when --mlx5emu is given, else
with LD_LIBRARY_PATH, as tests/compat/two_process.py starts them; clients
always with LD_LIBRARY_PATH.  Not a timed test: it prints figures and
ratios and never fails on a ratio; the quick mode (-q) fails only when a
program fails or prints no figure.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compat"))
import compat_common  # noqa: E402
import two_process  # noqa: E402

TAG = "bench_two_process"
PERFTEST = ["-x", "3", "-F"]
# The path under measurement: environment of both processes.
PATH_ENV = {}


def fail(msg):
    print("%s: %s" % (TAG, msg))
    sys.exit(1)


def limits(args):
    """{key: best} from one run of the limits program."""
    cmd = [args.limits] + (["-q"] if args.quick else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write("".join("  " + l + "\n" for l in p.stdout.splitlines()))
    if p.returncode:
        fail("%s exited with %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
    return {f[0]: float(f[1]) for f in (l.split() for l in p.stdout.splitlines())
            if len(f) >= 3 and not f[0].startswith("#")}


def server_cmd(args, prog, port):
    cmd = prog + ["-p", str(port)]
    return ([args.mlx5emu, "run", "--"] + cmd) if args.mlx5emu else cmd


def client_env(args):
    env = compat_common.dropin_env(args.dropin)
    env.update(PATH_ENV)
    return env


def server_env(args):
    env = client_env(args)
    if args.mlx5emu:  # it puts the drop-in directory first itself
        del env["LD_LIBRARY_PATH"]
    return env


def start_server(args, prog, log):
    """(process, port) once the server listens; None when the port was taken."""
    port = two_process.free_port()
    server = two_process.start(server_cmd(args, prog, port), server_env(args), log)
    deadline = time.monotonic() + 30
    while not two_process.listening(port):
        if server.poll() is not None or time.monotonic() > deadline:
            two_process.stop(server)
            return None, port
        time.sleep(0.02)
    return server, port


def perftest(args, prog, timeout):
    """The client's output of one server/client pair of prog; a pair whose
    perftest could not calibrate its clock (a busy CPU) is run again."""
    for _ in range(3):
        out = perftest_once(args, prog, timeout)
        if out is not None:
            return out
        print("# %s: perftest could not calibrate its clock; again" % prog[0])
    fail("%s: perftest could not calibrate its clock three times" % prog[0])


def perftest_once(args, prog, timeout):
    """The client's output, or None when perftest's clock failed it."""
    log = tempfile.TemporaryFile(mode="w+")
    for _ in range(3):
        server, port = start_server(args, prog, log)
        if server:
            break
    else:
        fail("%s: the server never listened" % " ".join(prog))
    client = None
    try:
        client = subprocess.run(prog + ["-p", str(port), "127.0.0.1"],
                                env=client_env(args),
                                capture_output=True, text=True, timeout=timeout,
                                stdin=subprocess.DEVNULL)
        rc_server = two_process.wait(server, time.monotonic() + 10)
    except subprocess.TimeoutExpired:
        fail("%s did not finish within %d s" % (" ".join(prog), timeout))
    finally:
        two_process.stop(server)
    log.seek(0)
    if client.returncode or rc_server != 0:
        if any(two_process.PERFTEST_CLOCK.search(t) for t in
               (client.stdout + client.stderr, log.read())):
            return None
        fail("%s: client exited %d, server %s:\n%s%s"
             % (" ".join(prog), client.returncode, rc_server, client.stdout,
                client.stderr))
    return client.stdout


def columns(out, header):
    """The numbers of the line after the column header starting with header."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(header):
            for data in lines[i + 1:]:
                f = data.split()
                if f and re.match(r"^\d+$", f[0]):
                    return [float(x) for x in f]
    fail("no figures after %r in:\n%s" % (header, out))


def write_bw(args, size):
    """(GB/s, Mpps) of ib_write_bw."""
    length = ["-n", "2000" if size <= 4096 else "200"] if args.quick else ["-D", "5"]
    out = perftest(args, ["ib_write_bw"] + PERFTEST + ["--report_gbits", "-s", str(size),
                                                        "-t", "128", "-Q", "100"] + length,
                   120)
    f = columns(out, "#bytes")
    # #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]
    return f[3] / 8, f[4]


def latency(args, prog, iters):
    """(t_typical, 99 % percentile) in us."""
    out = perftest(args, [prog] + PERFTEST + ["-s", "2", "-n", str(iters)], 300)
    f = columns(out, "#bytes")
    # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
    return f[4], f[7]


def idle_server(args, warm, secs):
    """% of one CPU a waiting ibv_rc_pingpong server uses."""
    with open(os.devnull, "w") as log:
        server, _ = start_server(args, ["ibv_rc_pingpong", "-g", "3"], log)
    if not server:
        fail("the ibv_rc_pingpong server never listened")
    try:
        time.sleep(warm)
        tasks = "/proc/%d/task" % server.pid

        def cpu():
            """Seconds on a CPU of every thread (schedstat: ns)."""
            ns = 0
            for t in os.listdir(tasks):
                try:
                    ns += int(open("%s/%s/schedstat" % (tasks, t)).read().split()[0])
                except (OSError, IndexError, ValueError):
                    pass  # a thread that just ended
            return ns / 1e9
        c0, t0 = cpu(), time.monotonic()
        time.sleep(secs)
        return (cpu() - c0) / (time.monotonic() - t0) * 100
    finally:
        two_process.stop(server)


def raw_eth_bw(args):
    """(Mpps, GB/s) of raw_ethernet_bw's 1518-byte frames; each side its
    own address (so MAC), the server's flow on its MAC, as
    tests/compat's raw_ethernet_bw runs it."""
    net, macs = "127.10.8.", ("02:c9:7f:0a:08:01", "02:c9:7f:0a:08:02")
    iters = ["-n", "2000"] if args.quick else ["-D", "5"]
    prog = ["raw_ethernet_bw", "-d", "mlx5_0"] + iters
    senv = dict(client_env(args), MLX5EMU_IP_BASE=net + "1", MLX5EMU_BACKEND="emu")
    cenv = dict(client_env(args), MLX5EMU_IP_BASE=net + "2", MLX5EMU_BACKEND="emu")
    for _ in range(3):
        port = two_process.free_port()
        with open(os.devnull, "w") as log:
            server = two_process.start(prog + ["--server", "-B", macs[0], "-E", macs[1],
                                               "-p", str(port)], senv, log)
        try:
            time.sleep(2)  # no socket to watch: its queues and flow exist by then
            client = subprocess.run(prog + ["--client", "-B", macs[1], "-E", macs[0],
                                            "-p", str(port), "127.0.0.1"],
                                    env=cenv, capture_output=True, text=True,
                                    timeout=120, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            fail("raw_ethernet_bw did not finish within 120 s")
        finally:
            two_process.stop(server)
        if not (client.returncode and two_process.PERFTEST_CLOCK.search(
                client.stdout + client.stderr)):
            break
        print("# raw_ethernet_bw: perftest could not calibrate its clock; again")
    if client.returncode:
        fail("raw_ethernet_bw: client exited %d:\n%s%s" % (client.returncode,
                                                          client.stdout, client.stderr))
    f = columns(client.stdout, "#bytes")
    # #bytes #packets BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
    return f[4], f[3] / 1000


def ratio(key, fig, limit, at_least, goal):
    r = fig / limit if limit else float("nan")
    met = r >= goal if at_least else r <= goal
    print("ratio_%s %.3f goal %s %.2f %s" % (key, r, ">=" if at_least else "<=",
                                             goal, "met" if met else "missed"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    compat_common.add_dropin_arg(ap)
    ap.add_argument("--limits", required=True, metavar="PATH",
                    help="the limits program (tests/bench/limits)")
    ap.add_argument("--mlx5emu", metavar="PATH",
                    help="start the servers through `PATH run --`")
    ap.add_argument("--path", choices=("fast", "udp", "both"), default="both",
                    help="which path of the wire to measure")
    ap.add_argument("-q", "--quick", action="store_true",
                    help="short runs that only prove the paths work")
    args = ap.parse_args()
    args.dropin = compat_common.check_dropin(args.dropin, TAG)
    for prog in ("ib_write_bw", "ib_send_lat", "ib_write_lat", "ibv_rc_pingpong"):
        if shutil.which(prog) is None:
            fail("%s is not installed" % prog)

    print("# %s%s: limits before" % (TAG, " (quick)" if args.quick else ""))
    before = limits(args)
    figs = {}
    paths = ("fast", "udp") if args.path == "both" else (args.path,)
    for path in paths:
        PATH_ENV.clear()
        PATH_ENV["MLX5EMU_WIRE_FAST_PATH"] = "1" if path == "fast" else "0"
        bw64k, _ = write_bw(args, 65536)
        _, rate64 = write_bw(args, 64)
        send = latency(args, "ib_send_lat", 200 if args.quick else 100000)
        write = latency(args, "ib_write_lat", 100 if args.quick else 10000)
        idle = idle_server(args, 0.2 if args.quick else 1, 0.5 if args.quick else 5)
        raw = raw_eth_bw(args) if shutil.which("raw_ethernet_bw") else None
        figs[path] = (bw64k, rate64, send, write, idle, raw)
    print("# limits after")
    after = limits(args)
    lim = {}
    for key in ("memcpy_64KiB", "udp_gso_4KiB", "udp_gso_64B", "udp_oneway"):
        if key not in before or key not in after:
            fail("the limits program did not measure %s" % key)
        lim[key] = (before[key] + after[key]) / 2
    print("# limits: before, after (best of each), mean of the two")
    print("limit_memcpy_64KiB %.2f %.2f %.2f GB/s" % (before["memcpy_64KiB"],
          after["memcpy_64KiB"], lim["memcpy_64KiB"]))
    print("limit_udp_gso_4KiB %.2f %.2f %.2f GB/s" % (before["udp_gso_4KiB"],
          after["udp_gso_4KiB"], lim["udp_gso_4KiB"]))
    print("limit_udp_gso_64B %.2f %.2f %.2f Mdgram/s" % (before["udp_gso_64B"],
          after["udp_gso_64B"], lim["udp_gso_64B"]))
    print("limit_udp_oneway %.0f %.0f %.0f ns" % (before["udp_oneway"],
          after["udp_oneway"], lim["udp_oneway"]))
    # (64 KiB limit and goal, 64 B goal, latency goal) per path
    goals = {"fast": ("memcpy_64KiB", 0.10, 0.15, 1.0),
             "udp": ("udp_gso_4KiB", 0.25, 0.10, 3.0)}
    for path in paths:
        bw64k, rate64, send, write, idle, raw = figs[path]
        big, g_big, g_small, g_lat = goals[path]
        print("# %s path: figures (perftest's own: BW average, MsgRate, "
              "t_typical, 99%%)" % path)
        print("%s_write_bw_64KiB %.3f GB/s" % (path, bw64k))
        print("%s_write_bw_64B %.3f Mpps" % (path, rate64))
        print("%s_send_lat_2B typical %.2f p99 %.2f us" % ((path,) + send))
        print("%s_write_lat_2B typical %.2f p99 %.2f us (no goal)" % ((path,) + write))
        print("%s_idle_server %.2f %% of one CPU" % (path, idle))
        if raw:
            print("%s_raw_eth_bw_1518B %.3f Mpps %.3f GB/s (no goal)" % ((path,) + raw))
        print("# %s path: ratios" % path)
        ratio(path + "_write_bw_64KiB", bw64k, lim[big], True, g_big)
        ratio(path + "_write_bw_64B", rate64, lim["udp_gso_64B"], True, g_small)
        ratio(path + "_send_lat_2B", send[0] * 1000, lim["udp_oneway"], False, g_lat)
        ratio(path + "_send_lat_2B_p99", send[1], send[0], False, 4)
        print("%s_idle_server %.2f goal <= 2.00 %s" % (path, idle,
              "met" if idle <= 2 else "missed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
