#!/usr/bin/env python3
"""The Linux network stack on the emulated fabric, through a vxlan netdev.

    linux_vxlan.py --dropin DIR --probe PATH [--pcap-check PATH] [--keep DIR]

Two network namespaces joined by a veth pair (192.0.2.1 and 192.0.2.2,
RFC 5737).  In the first an emulated port is a VXLAN tunnel endpoint on
192.0.2.1:4789 with the overlay address 198.18.0.1 (RFC 2544 space; Linux
drops 127/8 as martians).  In the second a Linux `vxlan` netdev vx0 (VNI
4791, dstport 4789, local 192.0.2.2, MTU 1450) carries 198.18.0.2, with a
default forwarding entry to the emulator's endpoint and a static neighbour
entry for the emulated port (nothing there answers ARP).  The two ends must
be in different namespaces: a vxlan netdev sending to a local address
bypasses UDP.

Then, with the kernel's checksum-error counters read before and after:
1. ud_probe (a verbs program on the drop-in libraries) sends UD datagrams
   (RoCE v2 to UDP port 4791) to 198.18.0.2; an ordinary UDP socket of the
   kernel's own stack receives them, checks the BTH, DETH and payload, and
   answers each with a UD SEND it builds (BTH, DETH, payload, ICRC) in a
   UDP datagram that the kernel's stack addresses, checksums and sends;
   the answer must land in ud_probe's receive queue.
2. With no socket left, one more datagram draws the kernel's ICMP port
   unreachable, which the emulated port receives and counts as not RoCE.
3. tcpdump's capture on vx0 must satisfy roce_capture.py (and, with
   --pcap-check, that checker too); the emulated port's own capture too.

Exit 0 on success, 1 on a failure, 77 (skipped) without root or without
network namespaces and vxlan.  Nothing outlives the script: the
namespaces (and with them the veth pair and vx0) are removed.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat"))
import compat_common  # noqa: E402
import roce_capture  # noqa: E402

TAG = "linux_vxlan"
EMU_UNDERLAY, LNX_UNDERLAY = "192.0.2.1", "192.0.2.2"
EMU_IP, LNX_IP = "198.18.0.1", "198.18.0.2"
# The emulator's MACs follow from the IPv4 address: 02:c9 and its 4 bytes.
EMU_MAC, LNX_MAC = "02:c9:c6:12:00:01", "02:c9:c6:12:00:02"
VNI, VXLAN_PORT, ROCE_PORT = 4791, 4789, 4791
QKEY, COUNT = 0x11111111, 3
UD_SEND_ONLY = 0x64


def sh(*cmd, ns=None, check=True):
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    r = subprocess.run(full, capture_output=True, text=True)
    if check and r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(full), r.stderr.strip()))
    return r.stdout


def kernel_csum_errors(ns):
    """{counter: value} of the checksum and UDP error counters in ns."""
    out = {}
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        lines = sh("cat", path, ns=ns).splitlines()
        for names, values in zip(lines[::2], lines[1::2]):
            proto = names.split(":")[0]
            for k, v in zip(names.split()[1:], values.split()[1:]):
                if "CsumErrors" in k or (proto == "Udp" and k in ("InErrors", "NoPorts")):
                    out["%s.%s" % (proto, k)] = int(v)
    return out


# ---- the Linux side's responder (runs inside the Linux namespace) ----

def icrc_ipv4(src, dst, sport, dport, ib):
    """The ICRC of a RoCE v2 packet in the IPv4 header the kernel writes for
    an unconnected UDP socket with IP_PMTUDISC_DO: DF set, so IP ID 0; TOS,
    TTL, header checksum and UDP checksum are masked (IBA A17.3.3)."""
    total = 20 + 8 + len(ib) + 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0xFF, total, 0, 0x4000, 0xFF, 17, 0xFFFF,
                     socket.inet_aton(src), socket.inet_aton(dst))
    udp = struct.pack("!HHHH", sport, dport, 8 + len(ib) + 4, 0xFFFF)
    masked = ib[:4] + b"\xff" + ib[5:]
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + ip + udp + masked) & 0xFFFFFFFF)


def responder(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, 10, 2)    # IP_MTU_DISCOVER = IP_PMTUDISC_DO
    s.bind((LNX_IP, ROCE_PORT))
    s.settimeout(20)
    print("listening", flush=True)
    for i in range(count):
        data, (src, sport) = s.recvfrom(4096)
        if len(data) < 12 + 8 + 4 or data[0] != UD_SEND_ONLY:
            print("not a UD SEND ONLY: %s" % data[:24].hex(), flush=True)
            return 1
        pad = (data[1] >> 4) & 3
        qkey, src_qpn = struct.unpack("!II", data[12:20])
        payload = data[20:len(data) - 4 - pad]
        want = ("ping %d" % i).encode()
        if qkey != QKEY or payload != want:
            print("datagram %d: qkey 0x%x payload %r, expected 0x%x %r"
                  % (i, qkey, payload, QKEY, want), flush=True)
            return 1
        print("got %r from %s:%d qpn 0x%06x" % (payload, src, sport, src_qpn & 0xFFFFFF),
              flush=True)
        reply = ("pong %d from linux" % i).encode()
        pad = -len(reply) % 4
        bth = struct.pack("!BBHII", UD_SEND_ONLY, pad << 4, 0xFFFF, src_qpn & 0xFFFFFF, i)
        deth = struct.pack("!II", QKEY, 0x000002)
        ib = bth + deth + reply + b"\0" * pad
        # To the RoCE port, whatever the source port was (the QP's entropy).
        s.sendto(ib + icrc_ipv4(LNX_IP, src, ROCE_PORT, ROCE_PORT, ib), (src, ROCE_PORT))
    return 0


# ---- the orchestration (runs in the root namespace) ----

def usable():
    """None, or why this machine cannot run the test."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "tcpdump", "ethtool"):
        if not shutil.which(tool):
            return "%s is not installed (ci/deps.sh installs it)" % tool
    return None


def setup(emu_ns, lnx_ns, va, vb):
    sh("ip", "netns", "add", emu_ns)
    sh("ip", "netns", "add", lnx_ns)
    sh("ip", "link", "add", va, "type", "veth", "peer", "name", vb)
    sh("ip", "link", "set", va, "netns", emu_ns)
    sh("ip", "link", "set", vb, "netns", lnx_ns)
    for ns, dev, addr in ((emu_ns, va, EMU_UNDERLAY), (lnx_ns, vb, LNX_UNDERLAY)):
        sh("ip", "link", "set", "lo", "up", ns=ns)
        sh("ip", "addr", "add", addr + "/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
    # Static underlay neighbours: the first datagram need not wait for ARP.
    macs = {}
    for ns, dev in ((emu_ns, va), (lnx_ns, vb)):
        macs[dev] = re.search(r"link/ether (\S+)", sh("ip", "link", "show", dev, ns=ns)).group(1)
    sh("ip", "neigh", "replace", LNX_UNDERLAY, "lladdr", macs[vb], "dev", va, "nud",
       "permanent", ns=emu_ns)
    sh("ip", "neigh", "replace", EMU_UNDERLAY, "lladdr", macs[va], "dev", vb, "nud",
       "permanent", ns=lnx_ns)
    sh("ip", "link", "add", "vx0", "type", "vxlan", "id", str(VNI), "dstport",
       str(VXLAN_PORT), "local", LNX_UNDERLAY, "dev", vb, ns=lnx_ns)
    sh("ip", "link", "set", "vx0", "address", LNX_MAC, "mtu", "1450", "up", ns=lnx_ns)
    sh("ip", "addr", "add", LNX_IP + "/24", "dev", "vx0", ns=lnx_ns)
    # vx0 leaves the inner UDP checksum to an offload; through a veth no
    # device ever completes it, and a receiver outside the kernel sees a
    # partial sum.  The stack computes it itself with the offload off.
    sh("ethtool", "-K", "vx0", "tx", "off", ns=lnx_ns)
    sh("bridge", "fdb", "append", "00:00:00:00:00:00", "dev", "vx0", "dst", EMU_UNDERLAY,
       ns=lnx_ns)
    sh("ip", "neigh", "add", EMU_IP, "lladdr", EMU_MAC, "dev", "vx0", "nud", "permanent",
       ns=lnx_ns)


def run(args, work, emu_ns, lnx_ns, vb):
    failed = []
    cap = os.path.join(work, "vx0.pcap")
    emu_cap = os.path.join(work, "emu")
    os.makedirs(emu_cap)
    stats = os.path.join(work, "wire.jsonl")
    dump = subprocess.Popen(["ip", "netns", "exec", lnx_ns, "tcpdump", "--immediate-mode", "-i", "vx0", "-U",
                             "-w", cap, "udp or icmp"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    # The underlay too, for whoever reads a failure (--keep).
    under = os.path.join(work, "underlay.pcap")
    udump = subprocess.Popen(["ip", "netns", "exec", lnx_ns, "tcpdump", "--immediate-mode", "-i", vb, "-U",
                              "-w", under], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    resp = None
    try:
        for d in (dump, udump):
            line = d.stderr.readline()
            if "listening" not in line:
                raise RuntimeError("tcpdump: %s" % line.strip())
        before = kernel_csum_errors(lnx_ns)
        resp = subprocess.Popen(["ip", "netns", "exec", lnx_ns, sys.executable,
                                 os.path.abspath(__file__), "--responder", str(COUNT)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if resp.stdout.readline().strip() != "listening":
            raise RuntimeError("the responder did not start")
        env = compat_common.dropin_env(args.dropin)
        env.update({"MLX5EMU_IP_BASE": EMU_IP, "MLX5EMU_WIRE_ENDPOINT": EMU_UNDERLAY,
                    "MLX5EMU_WIRE_PEERS": LNX_UNDERLAY, "MLX5EMU_WIRE_STATS": stats,
                    "MLX5EMU_WIRE_CAPTURE": emu_cap})
        probe = ["ip", "netns", "exec", emu_ns, args.probe, LNX_IP, hex(QKEY)]
        r = subprocess.run(probe + [str(COUNT), "expect-reply"], env=env,
                           capture_output=True, text=True, timeout=120)
        print("ud_probe (exit %d):\n%s%s" % (r.returncode, r.stdout, r.stderr))
        out, _ = resp.communicate(timeout=30)
        print("Linux responder (exit %d):\n%s" % (resp.returncode, out))
        if r.returncode or resp.returncode:
            failed.append("the exchange failed")
        replies = [ln for ln in r.stdout.splitlines() if ln.startswith("reply ")]
        for i in range(COUNT):
            want = "reply %d from %s pong %d from linux" % (
                len("pong %d from linux" % i), LNX_IP, i)
            if want not in replies:
                failed.append("no %r in ud_probe's output" % want)
        # Nobody listens now: the kernel answers with ICMP port unreachable.
        r = subprocess.run(probe + ["1", "no-reply"], env=env, capture_output=True,
                           text=True, timeout=120)
        if r.returncode:
            failed.append("the last datagram failed: %s" % r.stderr.strip())
        time.sleep(0.5)
        after = kernel_csum_errors(lnx_ns)
    finally:
        if resp and resp.poll() is None:
            resp.kill()
        for d in (dump, udump):
            d.send_signal(signal.SIGINT)
            try:
                d.wait(timeout=10)
            except subprocess.TimeoutExpired:
                d.kill()
    print("kernel counters before %s\n                after  %s" % (before, after))
    for k, v in before.items():
        if "CsumErrors" in k and after.get(k) != v:
            failed.append("%s went from %d to %d" % (k, v, after.get(k)))
    if after.get("Udp.NoPorts", 0) <= before.get("Udp.NoPorts", 0):
        failed.append("the last datagram reached no closed UDP port (Udp.NoPorts)")
    ports = [json.loads(ln) for ln in open(stats) if '"stats":"port"' in ln]
    print("emulated port counters: %s" % ports)
    if not any(p.get("drops", {}).get("not_roce", 0) >= 1 for p in ports):
        failed.append("the kernel's ICMP never reached the emulated port")
    if any(p.get("drops", {}).get(why) for p in ports for why in ("bad_icrc", "malformed")):
        failed.append("the emulated port dropped Linux's frames as bad")
    captures = [cap] + [os.path.join(emu_cap, f) for f in sorted(os.listdir(emu_cap))]
    # vx0 saw every datagram both ways; each emulated process its own.
    for path, least in zip(captures, (2 * COUNT + 1, 2 * COUNT, 1)):
        summary, problems = roce_capture.judge(path, least, ["UD_SEND_ONLY"])
        print(summary)
        failed += problems
    if args.pcap_check:
        for path in captures:
            r = subprocess.run([args.pcap_check, path], capture_output=True, text=True)
            print(r.stdout + r.stderr)
            if r.returncode:
                failed.append("%s refused %s" % (args.pcap_check, path))
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for path in captures + [under]:
            shutil.copy(path, args.keep)
    for f in failed:
        print("%s: %s" % (TAG, f))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--responder", type=int, metavar="N", help=argparse.SUPPRESS)
    compat_common.add_dropin_arg(ap)
    ap.add_argument("--probe", metavar="PATH", help="the ud_probe program")
    ap.add_argument("--pcap-check", metavar="PATH",
                    help="another RoCE capture checker to run on the captures")
    ap.add_argument("--keep", metavar="DIR", help="copy the captures there")
    args = ap.parse_args()
    if args.responder is not None:
        return responder(args.responder)
    if not args.probe and not usable():
        ap.error("--probe is required")
    return in_namespaces(TAG, "m5e", lambda work, emu_ns, lnx_ns, vb:
                         run(args, work, emu_ns, lnx_ns, vb), args)


def in_namespaces(tag_name, prefix, fn, args):
    """Runs fn(work, emu_ns, lnx_ns, vb) between setup() and the removal of
    everything it made: its exit code, or 77 where this machine cannot."""
    why = usable()
    if why:
        print("%s: skipped: %s" % (tag_name, why))
        return 77
    args.dropin = compat_common.check_dropin(args.dropin, tag_name)
    tag = "%s%d" % (prefix, os.getpid())
    emu_ns, lnx_ns = tag + "e", tag + "l"
    work = tempfile.mkdtemp(prefix="mlx5emu-%s-" % tag_name)
    try:
        try:
            setup(emu_ns, lnx_ns, tag + "a", tag + "b")
        except RuntimeError as e:
            # Only a kernel without namespaces, veth or vxlan is a reason
            # to skip; any other refusal is a failure of the setup.
            if re.search(r"(?i)not supported|unknown device type|no such file"
                         r"|operation not permitted|permission denied", str(e)):
                print("%s: skipped: this kernel cannot: %s" % (tag_name, e))
                return 77
            raise
        return fn(work, emu_ns, lnx_ns, tag + "b")
    finally:
        for ns in (emu_ns, lnx_ns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
