#!/usr/bin/env python3
"""Ethernet frames of a DEVX program judged by the Linux stack, through a vxlan netdev.

    linux_eth.py --dropin DIR --probe PATH [--mana] [--keep DIR]

The namespaces, veth pair and vx0 of linux_vxlan.py (its setup()); the
emulated side runs eth_probe, a DEVX-only program with its own SQ, RQ, TIR
and NIC RX table.  With the kernel's checksum-error counters read before
and after:
1. UDP datagrams whose checksums the device computes (cs_flags L3|L4)
   reach a plain UDP socket in the Linux namespace, payloads intact;
2. the negative control: one datagram with a wrong UDP checksum and no
   offload is dropped by the kernel, which counts Udp.InCsumErrors;
3. TSO: a 3000-byte TCP payload at MSS 1000 toward a closed port leaves
   as three segments, and the kernel answers each with a RST that lands in
   the probe's RQ (so every segment's headers and checksums were valid);
4. frames the kernel sends (a UDP datagram from a socket, an ICMP echo
   request from a raw socket, as ping sends it) land in the RQ with the CQE's IPv4, UDP and
   checksum-ok fields set.

With --mana the probe is mana_probe, a manadv(7) program on an emulated
MANA port (mana_0, no mlx5 device), judged the same way; its CQEs report
the checksum bits of a MANA RX completion.

Exit 0 on success, 1 on a failure, 77 (skipped) without root or without
network namespaces and vxlan.  Nothing outlives the script.
"""
import argparse
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))
import compat_common  # noqa: E402
import linux_vxlan as lv  # noqa: E402

TAG = "linux_eth"
UDP_PORT, CLOSED_TCP = 5000, 9
COUNT = 3


def listener(port, count, secs):
    """Inside the Linux namespace: print each datagram's payload."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((lv.LNX_IP, port))
    s.settimeout(secs)
    print("listening", flush=True)
    try:
        for _ in range(count):
            data, src = s.recvfrom(4096)
            print("got %r from %s:%d" % (data.decode(errors="replace"), src[0], src[1]),
                  flush=True)
    except socket.timeout:
        print("timeout", flush=True)
    return 0


def sender():
    """Inside the Linux namespace: a UDP datagram and an ICMP echo request
    (what ping sends; the kernel writes the IP header) to the emulated port."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"from linux", (lv.EMU_IP, 7777))
    icmp = bytearray(struct.pack("!BBHHH", 8, 0, 0, 0x4d35, 1) + b"echo from linux")
    total = sum((icmp[i] << 8) + icmp[i + 1] for i in range(0, len(icmp) - 1, 2))
    if len(icmp) % 2:
        total += icmp[-1] << 8
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    struct.pack_into("!H", icmp, 2, ~total & 0xFFFF)
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    r.sendto(bytes(icmp), (lv.EMU_IP, 0))
    return 0


def probe(args, env, emu_ns, *argv, timeout=60, background=False):
    cmd = ["ip", "netns", "exec", emu_ns, args.probe] + [str(a) for a in argv]
    if background:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    print("%s %s (exit %d):\n%s%s" % (os.path.basename(args.probe),
                                       " ".join(map(str, argv)), r.returncode,
                                       r.stdout, r.stderr))
    return r


def in_linux(lnx_ns, *argv):
    return subprocess.Popen(["ip", "netns", "exec", lnx_ns, sys.executable,
                             os.path.abspath(__file__)] + list(argv),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run(args, work, emu_ns, lnx_ns):
    failed = []
    env = compat_common.dropin_env(args.dropin)
    # The emulated port is the point: the emu backend also where the rest
    # of the suite runs on hw.
    if args.mana:
        env.update({"MLX5EMU_NUM_DEVICES": "0", "MLX5EMU_MANA_DEVICES": "1"})
    word = "mana" if args.mana else "eth"
    env.update({"MLX5EMU_BACKEND": "emu",
                "MLX5EMU_IP_BASE": lv.EMU_IP, "MLX5EMU_WIRE_ENDPOINT": lv.EMU_UNDERLAY,
                "MLX5EMU_WIRE_PEERS": lv.LNX_UNDERLAY,
                "MLX5EMU_WIRE_CAPTURE": os.path.join(work, "emu")})
    os.makedirs(os.path.join(work, "emu"))
    before = lv.kernel_csum_errors(lnx_ns)
    # 1. checksums by the device
    lis = in_linux(lnx_ns, "--listen", str(UDP_PORT), str(COUNT), "10")
    if lis.stdout.readline().strip() != "listening":
        raise RuntimeError("the listener did not start")
    r = probe(args, env, emu_ns, "udp", lv.LNX_IP, lv.LNX_MAC, UDP_PORT, COUNT)
    out, _ = lis.communicate(timeout=30)
    print("Linux listener:\n%s" % out)
    if r.returncode:
        failed.append("the offloaded datagrams were not sent")
    for i in range(COUNT):
        if "got '%s udp %d' from %s:40000" % (word, i, lv.EMU_IP) not in out:
            failed.append("datagram %d did not reach the socket" % i)
    mid = lv.kernel_csum_errors(lnx_ns)
    for k, v in before.items():
        if "CsumErrors" in k and mid.get(k) != v:
            failed.append("%s went from %d to %d with offloaded checksums" % (k, v, mid.get(k)))
    # 2. the negative control
    lis = in_linux(lnx_ns, "--listen", str(UDP_PORT), "1", "2")
    lis.stdout.readline()
    probe(args, env, emu_ns, "udp", lv.LNX_IP, lv.LNX_MAC, UDP_PORT, 1, "bad")
    out, _ = lis.communicate(timeout=30)
    if "got " in out:
        failed.append("a datagram with a wrong checksum reached the socket")
    time.sleep(0.2)
    after = lv.kernel_csum_errors(lnx_ns)
    if after.get("Udp.InCsumErrors", 0) != mid.get("Udp.InCsumErrors", 0) + 1:
        failed.append("Udp.InCsumErrors did not count the wrong checksum: %s -> %s"
                      % (mid.get("Udp.InCsumErrors"), after.get("Udp.InCsumErrors")))
    # 3. TSO against a closed port: one RST per segment
    r = probe(args, env, emu_ns, "tso", lv.LNX_IP, lv.LNX_MAC, CLOSED_TCP, 3000, 1000)
    if r.returncode or "rst 3 of 3 segments" not in r.stdout:
        failed.append("the kernel did not answer every TSO segment with a RST")
    final = lv.kernel_csum_errors(lnx_ns)
    for k in ("Tcp.InCsumErrors", "Ip.InCsumErrors"):
        if final.get(k, 0) != before.get(k, 0):
            failed.append("%s changed: %s -> %s" % (k, before.get(k), final.get(k)))
    # 4. the kernel's own frames into the RQ
    rcv = probe(args, env, emu_ns, "recv", 2, background=True)
    line = rcv.stdout.readline() + rcv.stdout.readline()
    if not line.endswith("ready\n"):
        failed.append("eth_probe recv did not start: %r" % line)
    in_linux(lnx_ns, "--send").communicate(timeout=30)
    out, _ = rcv.communicate(timeout=60)
    print("eth_probe recv (exit %d):\n%s%s" % (rcv.returncode, line, out))
    if rcv.returncode:
        failed.append("the kernel's frames did not arrive")
    if args.mana:
        udp_ok = r"proto 17 ip_ok 1 ip_fail 0 tcp_ok 0 udp_ok 1"
        icmp_ok = r"proto 1 ip_ok 1 ip_fail 0 tcp_ok 0 udp_ok 0"
    else:
        udp_ok = r"proto 17 l3_type 2 l4_type 2 l3_ok 1 l4_ok 1"
        icmp_ok = r"proto 1 l3_type 2 l4_type 0 l3_ok 1"
    if not re.search(udp_ok, out):
        failed.append("no UDP frame with IPv4, UDP and both checksums ok in a CQE")
    if not re.search(icmp_ok, out):
        failed.append("no ICMP frame with IPv4 and the IP checksum ok in a CQE")
    if args.keep:
        shutil.copytree(os.path.join(work, "emu"), os.path.join(args.keep, "emu"),
                        dirs_exist_ok=True)
    for f in failed:
        print("%s: %s" % (TAG, f))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", nargs=3, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--send", action="store_true", help=argparse.SUPPRESS)
    compat_common.add_dropin_arg(ap)
    ap.add_argument("--probe", metavar="PATH", help="the eth_probe (mana_probe) program")
    ap.add_argument("--mana", action="store_true", help="the probe is mana_probe")
    ap.add_argument("--keep", metavar="DIR", help="copy the captures there")
    args = ap.parse_args()
    if args.listen:
        return listener(*args.listen)
    if args.send:
        return sender()
    if not args.probe and not lv.usable():
        ap.error("--probe is required")
    return lv.in_namespaces("linux_mana" if args.mana else TAG,
                            "m5m" if args.mana else "m5t", lambda work, emu_ns, lnx_ns, vb:
                            run(args, work, emu_ns, lnx_ns), args)


if __name__ == "__main__":
    sys.exit(main())
