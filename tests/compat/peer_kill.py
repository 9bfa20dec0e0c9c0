#!/usr/bin/env python3
"""peer_kill: a peer killed in the middle of a transfer.

    peer_kill.py [--dropin DIR] [--fast-path 0|1]

An unmodified ib_write_bw server and client run for a while over the
wire (the same-host fast path, or UDP with --fast-path 0); the server is
killed with SIGKILL while data flows.  On a real fabric the client's QP
then retries and fails: its WRITEs complete with "transport retry counter
exceeded" (status 12) and perftest exits with an error, within seconds.
The survivor's counters must show the path that was under test (frames
through shared memory, or none), and nothing may be left behind: no new
file in /dev/shm, and the killed process's device tree (in a directory of
the test's own) goes when the next program starts, as docs/configuration.md
says of device.sysfs_dir.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat_common  # noqa: E402
import two_process  # noqa: E402

TAG = "peer_kill"


def shm_files():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    compat_common.add_dropin_arg(ap)
    ap.add_argument("--fast-path", choices=("0", "1"), default="1")
    args = ap.parse_args()
    dropin = compat_common.check_dropin(args.dropin, TAG)
    work = tempfile.mkdtemp(prefix="mlx5emu-peer-kill-")
    stats = os.path.join(work, "client.jsonl")
    env = compat_common.dropin_env(dropin)
    env["MLX5EMU_WIRE_FAST_PATH"] = args.fast_path
    env["MLX5EMU_BACKEND"] = "emu"
    env["MLX5EMU_SYSFS_DIR"] = work
    before = shm_files()
    prog = ["ib_write_bw", "-x", "3", "-F", "-D", "30", "-s", "65536"]
    port = two_process.free_port()
    server = client = None
    ok = True
    try:
        with open(os.path.join(work, "server.log"), "w") as log:
            server = two_process.start(prog + ["-p", str(port)], env, log)
        deadline = time.monotonic() + 30
        while not two_process.listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                compat_common.die(TAG, "the server never listened")
            time.sleep(0.02)
        cenv = dict(env, MLX5EMU_WIRE_STATS=stats)
        client = subprocess.Popen(prog + ["-p", str(port), "127.0.0.1"], env=cenv,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, text=True,
                                  start_new_session=True)
        time.sleep(2)
        if client.poll() is not None:
            compat_common.die(TAG, "the client ended before the kill:\n" +
                              client.stdout.read())
        two_process.stop(server)
        t0 = time.monotonic()
        try:
            out, _ = client.communicate(timeout=25)
        except subprocess.TimeoutExpired:
            compat_common.die(TAG, "the client still runs 25 s after its peer died")
        took = time.monotonic() - t0
        print("%s: client exited %d %.1f s after the kill" % (TAG, client.returncode, took))
        sys.stdout.write(out)
        if client.returncode == 0:
            print("%s: the client did not notice its peer's death" % TAG)
            ok = False
        if not re.search(r"Failed status 12\b", out):
            print("%s: no completion with status 12 (retry exceeded)" % TAG)
            ok = False
        fast = 0
        with open(stats) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("stats") == "port":
                    fast += rec.get("fast_tx_frames", 0)
        print("%s: client's frames through shared memory: %d" % (TAG, fast))
        if (fast > 0) != (args.fast_path == "1"):
            print("%s: the path under test was not the one taken" % TAG)
            ok = False
        # The next program clears the dead process's tree.
        subprocess.run(["ibv_devices"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
        left = sorted(n for n in os.listdir(work)
                      if n not in ("server.log", "client.jsonl"))
        left += sorted("/dev/shm/" + n for n in shm_files() - before)
        if left:
            print("%s: left behind: %s" % (TAG, ", ".join(left)))
            ok = False
    finally:
        two_process.stop(server)
        two_process.stop(client)
        for root, dirs, files in os.walk(work, topdown=False):
            for n in files:
                os.unlink(os.path.join(root, n))
            for n in dirs:
                os.rmdir(os.path.join(root, n))
        os.rmdir(work)
    print("%s: %s" % (TAG, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
