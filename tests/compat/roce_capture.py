#!/usr/bin/env python3
"""Judge a pcap of RoCE frames (stdlib only, plus tshark).

    roce_capture.py [--min-packets N] [--opcodes NAME,...] CAPTURE...
    roce_capture.py --self-test CAPTURE

Two judges that share nothing with the emulator's code:

1. This script parses every frame itself (Ethernet, inside a VXLAN
   datagram to UDP port 4789 when the capture holds those, then IPv4 or
   IPv6 and UDP port 4791 for RoCE v2, or the GRH for RoCE v1 on
   ethertype 0x8915)
   and checks it against the IBA: the IPv4 header checksum and lengths,
   BTH version and P_Key, the header layout of the opcode, the pad count,
   each message's FIRST/MIDDLE/LAST order and path-MTU-sized packets, and
   the ICRC (IBA Annex A17: CRC-32 over eight 0xff bytes standing for the
   LRH, the IP or GRH header and UDP header with their variant fields set
   to ones, the BTH with its resv8a byte set to ones, and the rest;
   sent least significant byte first), recomputed with zlib.
2. tshark dissects the same file: it must see every RoCE frame this script
   found, with the same opcode and PSN, and flag none as malformed.

Exit status 0 when every capture passes, 1 when one does not, 2 on a
usage error or a missing tshark.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import zlib

ROCE_UDP_PORT = 4791
VXLAN_UDP_PORT = 4789                     # RFC 7348; wire.udp_port's default
ETH_IPV4, ETH_IPV6, ETH_ROCE_V1 = 0x0800, 0x86DD, 0x8915

# Extension headers after the BTH, by opcode within its transport (the low
# five bits): RC, UC and XRC share the layout, XRC requests with an XRCETH
# first.
RETH, AETH, IMM, IETH, ATOMIC, ATOMIC_ACK, DETH, XRCETH = 16, 4, 4, 4, 28, 8, 8, 4
# DC requests are the emulator's own framing (emu/wire/README.md): RC's
# operations under the manufacturer-specific transport bits 0b110, a
# 20-byte DCETH right after the BTH.
DCETH = 20
RC_LAYOUT = {
    0x00: ("SEND_FIRST", (), True), 0x01: ("SEND_MIDDLE", (), True),
    0x02: ("SEND_LAST", (), True), 0x03: ("SEND_LAST_IMM", (IMM,), True),
    0x04: ("SEND_ONLY", (), True), 0x05: ("SEND_ONLY_IMM", (IMM,), True),
    0x06: ("WRITE_FIRST", (RETH,), True), 0x07: ("WRITE_MIDDLE", (), True),
    0x08: ("WRITE_LAST", (), True), 0x09: ("WRITE_LAST_IMM", (IMM,), True),
    0x0A: ("WRITE_ONLY", (RETH,), True), 0x0B: ("WRITE_ONLY_IMM", (RETH, IMM), True),
    0x0C: ("READ_REQUEST", (RETH,), False),
    0x0D: ("READ_RESPONSE_FIRST", (AETH,), True),
    0x0E: ("READ_RESPONSE_MIDDLE", (), True),
    0x0F: ("READ_RESPONSE_LAST", (AETH,), True),
    0x10: ("READ_RESPONSE_ONLY", (AETH,), True),
    0x11: ("ACK", (AETH,), False), 0x12: ("ATOMIC_ACK", (AETH, ATOMIC_ACK), False),
    0x13: ("CMP_SWAP", (ATOMIC,), False), 0x14: ("FETCH_ADD", (ATOMIC,), False),
    0x16: ("SEND_LAST_INV", (IETH,), True), 0x17: ("SEND_ONLY_INV", (IETH,), True),
}
UC_OPCODES = range(0x00, 0x0C)
UD_LAYOUT = {0x04: ("SEND_ONLY", (DETH,), True), 0x05: ("SEND_ONLY_IMM", (DETH, IMM), True)}
TRANSPORTS = {0x00: "RC", 0x20: "UC", 0x60: "UD", 0xA0: "XRC", 0xC0: "DC"}

# Message order: each opcode's kind and place (first, middle, last, only).
KINDS = {}
for _ops, _kind in (((0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x16, 0x17), "send"),
                    ((0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B), "write"),
                    ((0x0D, 0x0E, 0x0F, 0x10), "read_response")):
    for _op in _ops:
        KINDS[_op] = _kind
PLACE = {0x00: "first", 0x01: "middle", 0x02: "last", 0x03: "last", 0x16: "last",
         0x04: "only", 0x05: "only", 0x17: "only",
         0x06: "first", 0x07: "middle", 0x08: "last", 0x09: "last", 0x0A: "only",
         0x0B: "only", 0x0D: "first", 0x0E: "middle", 0x0F: "last", 0x10: "only"}

HEURISTICS = ("smcr_infiniband", "rpcrdma_infiniband", "fc_infiniband", "nvme_rdma",
              "smb_direct_infiniband", "lnet_ib", "iser_infiniband", "sdp_infiniband",
              "mellanox_eoib", "eth_over_ib")


def opcode_layout(opcode):
    """(name, extension header sizes, carries payload) or None."""
    base, low = opcode & 0xE0, opcode & 0x1F
    if base == 0x00 or base == 0xA0:
        entry = RC_LAYOUT.get(low)
        # The XRCETH names the target's SRQ: requests carry it, the
        # responses a target sends back (READ responses, ACKs, atomic
        # ACKs: 0x0D..0x12) do not (IBA table 38).
        if entry and base == 0xA0 and not 0x0D <= low <= 0x12:
            entry = (entry[0], (XRCETH,) + entry[1], entry[2])
    elif base == 0xC0:
        # Requests only: a DCT answers with RC responses.
        entry = RC_LAYOUT.get(low) if not 0x0D <= low <= 0x12 else None
        if entry:
            entry = (entry[0], (DCETH,) + entry[1], entry[2])
    elif base == 0x20:
        entry = RC_LAYOUT.get(low) if low in UC_OPCODES else None
    elif base == 0x60:
        entry = UD_LAYOUT.get(low)
    else:
        entry = None
    if not entry:
        return None
    return ("%s_%s" % (TRANSPORTS[base], entry[0]),) + entry[1:]


def read_pcap(path):
    """[(frame number, bytes)] of a little- or big-endian pcap of Ethernet."""
    data = open(path, "rb").read()
    if len(data) < 24:
        raise ValueError("%s: shorter than a pcap header" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    snaplen, linktype = struct.unpack(endian + "II", data[16:24])
    if linktype != 1:
        raise ValueError("%s: link type %d, not Ethernet (1)" % (path, linktype))
    frames, off, n = [], 24, 0
    while off + 16 <= len(data):
        _, _, caplen, origlen = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        n += 1
        if caplen != origlen:
            raise ValueError("%s: frame %d cut by the snaplen" % (path, n))
        frames.append((n, data[off:off + caplen]))
        off += caplen
    if off != len(data):
        raise ValueError("%s: truncated record at byte %d" % (path, off))
    return frames


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def icrc(masked_l3, rest):
    """The ICRC as it goes on the wire: CRC-32 of the masked pseudo-LRH,
    the masked network (and UDP) headers and the BTH onwards, LSB first."""
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + masked_l3 + rest) & 0xFFFFFFFF)


def vxlan_inner(frame):
    """The inner Ethernet frame of a VXLAN datagram (RFC 7348: outer
    Ethernet, IPv4 or IPv6, UDP to port 4789, 8 bytes with the I flag and
    the VNI), None for any other frame; raises ValueError when the outer
    headers are wrong (wire.capture_outer records these)."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    l3 = frame[14:]
    if ethertype == ETH_IPV4 and len(l3) >= 20 and l3[0] >> 4 == 4 and l3[9] == 17:
        ihl = (l3[0] & 0x0F) * 4
        total = struct.unpack("!H", l3[2:4])[0]
        if ipv4_checksum(l3[:ihl]) != 0:
            raise ValueError("outer IPv4 header checksum")
        udp, end = l3[ihl:ihl + 8], total
    elif ethertype == ETH_IPV6 and len(l3) >= 48 and l3[6] == 17:
        udp, end = l3[40:48], 40 + struct.unpack("!H", l3[4:6])[0]
        ihl = 40
    else:
        return None
    if len(udp) < 8 or struct.unpack("!H", udp[2:4])[0] != VXLAN_UDP_PORT:
        return None
    if end > len(l3) or struct.unpack("!H", udp[4:6])[0] != end - ihl:
        raise ValueError("outer UDP length differs from the IP payload")
    vx = l3[ihl + 8:ihl + 16]
    if len(vx) < 8 or vx[0] != 0x08 or any(vx[1:4]) or vx[7]:
        raise ValueError("VXLAN header %s: I flag and reserved zeros expected" % vx.hex())
    return l3[ihl + 16:end]


def parse_frame(frame):
    """(packet dict) of a RoCE frame, None for another protocol; raises
    ValueError naming what is wrong with a RoCE frame."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    l3 = frame[14:]
    if ethertype == ETH_IPV4:
        if len(l3) < 20 or l3[0] >> 4 != 4:
            raise ValueError("bad IPv4 header")
        ihl = (l3[0] & 0x0F) * 4
        total = struct.unpack("!H", l3[2:4])[0]
        if l3[9] != 17 or len(l3) < ihl + 8:
            return None
        udp = l3[ihl:ihl + 8]
        if struct.unpack("!H", udp[2:4])[0] != ROCE_UDP_PORT:
            return None
        if ihl != 20:
            raise ValueError("IPv4 options")
        if total > len(l3) or total < ihl + 8:
            raise ValueError("IPv4 total length %d, frame has %d" % (total, len(l3)))
        if ipv4_checksum(l3[:ihl]) != 0:
            raise ValueError("bad IPv4 header checksum")
        if struct.unpack("!H", l3[6:8])[0] & 0x3FFF:
            raise ValueError("IPv4 fragment")
        udp_len = struct.unpack("!H", udp[4:6])[0]
        if udp_len != total - ihl:
            raise ValueError("UDP length %d, IP payload %d" % (udp_len, total - ihl))
        ip = bytearray(l3[:ihl])
        ip[1] = 0xFF                      # TOS (DSCP and ECN)
        ip[8] = 0xFF                      # TTL
        ip[10:12] = b"\xff\xff"           # header checksum
        masked = bytes(ip) + udp[:6] + b"\xff\xff"
        ib = l3[ihl + 8:total]
        src = ".".join(str(b) for b in l3[12:16])
        dst = ".".join(str(b) for b in l3[16:20])
        version = 2
    elif ethertype in (ETH_IPV6, ETH_ROCE_V1):
        if len(l3) < 40 or l3[0] >> 4 != 6:
            raise ValueError("bad IPv6/GRH header")
        plen, nxt = struct.unpack("!H", l3[4:6])[0], l3[6]
        if 40 + plen > len(l3):
            raise ValueError("payload length %d, frame has %d" % (plen, len(l3) - 40))
        ip = bytearray(l3[:40])
        ip[0] |= 0x0F                     # traffic class and flow label
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF                      # hop limit
        if ethertype == ETH_IPV6:
            if nxt != 17 or plen < 8:
                return None
            udp = l3[40:48]
            if struct.unpack("!H", udp[2:4])[0] != ROCE_UDP_PORT:
                return None
            if struct.unpack("!H", udp[4:6])[0] != plen:
                raise ValueError("UDP length differs from the IPv6 payload length")
            masked = bytes(ip) + udp[:6] + b"\xff\xff"
            ib = l3[48:40 + plen]
            version = 2
        else:
            if nxt != 0x1B:
                raise ValueError("GRH next header 0x%02x, not 0x1b" % nxt)
            masked = bytes(ip)
            ib = l3[40:40 + plen]
            version = 1
        src = l3[8:24].hex()
        dst = l3[24:40].hex()
    else:
        return None

    if len(ib) < 12 + 4:
        raise ValueError("shorter than a BTH and an ICRC")
    opcode, flags, pkey = ib[0], ib[1], struct.unpack("!H", ib[2:4])[0]
    dqp = struct.unpack("!I", ib[4:8])[0] & 0xFFFFFF
    psn = struct.unpack("!I", ib[8:12])[0] & 0xFFFFFF
    layout = opcode_layout(opcode)
    if not layout:
        raise ValueError("opcode 0x%02x is reserved" % opcode)
    name, ext, has_payload = layout
    if flags & 0x0F:
        raise ValueError("BTH transport header version %d" % (flags & 0x0F))
    if pkey & 0x7FFF == 0:
        raise ValueError("P_Key 0x%04x" % pkey)
    want = icrc(masked, ib[:4] + b"\xff" + ib[5:-4])
    if ib[-4:] != want:
        raise ValueError("ICRC %s, recomputed %s" % (ib[-4:].hex(), want.hex()))
    hdrs = 12 + sum(ext)
    body = len(ib) - hdrs - 4
    if body < 0:
        raise ValueError("%s needs %d header bytes, has %d" % (name, hdrs, len(ib) - 4))
    pad = (flags >> 4) & 3
    if not has_payload and body:
        raise ValueError("%s carries %d bytes after its headers" % (name, body))
    if body % 4:
        raise ValueError("payload and pad of %d bytes, not a multiple of 4" % body)
    if pad and PLACE.get(opcode & 0x1F) in ("first", "middle"):
        raise ValueError("pad count %d on %s" % (pad, name))
    if pad > body:
        raise ValueError("pad count %d over a %d-byte payload" % (pad, body))
    return {"opcode": opcode, "name": name, "dqp": dqp, "psn": psn, "src": src,
            "dst": dst, "payload": body - pad, "version": version}


def check_order(packets, problems):
    """FIRST (MIDDLE...) LAST, or ONLY, per flow and kind; FIRST and
    MIDDLE packets of one size, the path MTU.  A packet whose PSN is not
    the flow's next is a resend and starts over."""
    flows = {}
    for n, p in packets:
        kind = KINDS.get(p["opcode"] & 0x1F)
        if not kind:
            continue
        key = (p["src"], p["dst"], p["dqp"], kind)
        f = flows.setdefault(key, {"open": False, "next": None, "pmtu": None})
        place = PLACE[p["opcode"] & 0x1F]
        in_order = f["next"] is None or p["psn"] == f["next"]
        if in_order:
            if place in ("first", "only") and f["open"]:
                problems.append("frame %d: %s inside an unfinished message" % (n, p["name"]))
            if place in ("middle", "last") and not f["open"]:
                problems.append("frame %d: %s with no FIRST before it" % (n, p["name"]))
        if place in ("first", "middle"):
            if p["payload"] not in (256, 512, 1024, 2048, 4096):
                problems.append("frame %d: %s of %d bytes, not a path MTU"
                                % (n, p["name"], p["payload"]))
            elif f["pmtu"] is None:
                f["pmtu"] = p["payload"]
            elif f["pmtu"] != p["payload"]:
                problems.append("frame %d: %s of %d bytes after packets of %d"
                                % (n, p["name"], p["payload"], f["pmtu"]))
        elif f["pmtu"] is not None and p["payload"] > f["pmtu"]:
            problems.append("frame %d: %s of %d bytes, over the path MTU %d"
                            % (n, p["name"], p["payload"], f["pmtu"]))
        f["open"] = place in ("first", "middle")
        f["next"] = (p["psn"] + 1) & 0xFFFFFF


# Expert severity 8388608 is an error (the IPv4 checksum among them).  One
# error is no error: RoCE v2 senders put a zero UDP checksum over IPv6 as
# over IPv4 (the ICRC covers the datagram; Linux rxe does the same), which
# tshark calls illegal (RFC 8200 wants one, RFC 6935 lets tunnels omit it).
EXPERT_ERROR, EXPERT_SEP = "8388608", "|"
UDP6_ZERO_CSUM = "Illegal checksum value (0)"


def tshark_view(path):
    """{frame number: (opcode, psn, malformed)} of tshark's dissection."""
    # The payload heuristics (RPC over RDMA, NVMe, SMB Direct, ...) guess
    # at every payload and call a short one malformed: all off.  A name
    # this tshark lacks is dropped.
    heuristics = list(HEURISTICS)
    while True:
        cmd = ["tshark", "-n", "-r", path, "-o", "ip.defragment:FALSE",
               "-o", "ip.check_checksum:TRUE"]
        for h in heuristics:
            cmd += ["--disable-heuristic", h]
        cmd += ["-Y", "infiniband && !icmp && !icmpv6", "-T", "fields",
                "-E", "occurrence=f", "-e", "frame.number", "-e", "infiniband.bth.opcode",
                "-e", "infiniband.bth.psn", "-e", "_ws.malformed", "-e", "ipv6.version",
                "-E", "occurrence=a", "-E", "aggregator=" + EXPERT_SEP,
                "-e", "_ws.expert.severity", "-e", "_ws.expert.message"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        unknown = re.search(r"No such protocol (\S+?),", r.stderr)
        if r.returncode and unknown and unknown.group(1) in heuristics:
            heuristics.remove(unknown.group(1))
            continue
        break
    if r.returncode:
        raise RuntimeError("tshark failed (%d): %s" % (r.returncode, r.stderr.strip()))
    view = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 7 or not f[0]:
            continue
        bad = bool(f[3]) or any(
            sev == EXPERT_ERROR and not (f[4] and msg == UDP6_ZERO_CSUM)
            for sev, msg in zip(f[5].split(EXPERT_SEP), f[6].split(EXPERT_SEP)))
        view[int(f[0])] = (int(f[1]) if f[1] else None, int(f[2]) if f[2] else None, bad)
    return view


def judge(path, min_packets, opcodes):
    """(summary line, [problems]) of one capture."""
    problems, packets = [], []
    try:
        frames = read_pcap(path)
    except (OSError, ValueError) as e:
        return str(e), [str(e)]
    for n, frame in frames:
        try:
            inner = vxlan_inner(frame)
            p = parse_frame(frame if inner is None else inner)
        except ValueError as e:
            problems.append("frame %d: %s" % (n, e))
            continue
        if p:
            packets.append((n, p))
    check_order(packets, problems)
    try:
        view = tshark_view(path)
    except (OSError, RuntimeError) as e:
        return str(e), problems + [str(e)]
    ours = {n: p for n, p in packets}
    for n, p in packets:
        t = view.get(n)
        if t is None:
            problems.append("frame %d: tshark does not see a RoCE packet" % n)
        elif t[2]:
            problems.append("frame %d: tshark flags it as malformed or in error" % n)
        elif (t[0], t[1]) != (p["opcode"], p["psn"]):
            problems.append("frame %d: tshark reads opcode %s psn %s, this script %d %d"
                            % (n, t[0], t[1], p["opcode"], p["psn"]))
    for n in sorted(set(view) - set(ours)):
        problems.append("frame %d: tshark sees RoCE where this script does not" % n)
    if len(packets) < min_packets:
        problems.append("%d RoCE packets, expected at least %d" % (len(packets), min_packets))
    seen = {p["name"] for _, p in packets}
    for name in opcodes:
        if name not in seen:
            problems.append("no %s packet" % name)
    counts = {}
    for _, p in packets:
        counts[p["name"]] = counts.get(p["name"], 0) + 1
    summary = "%s: %d frames, %d RoCE packets (%s), %d problems" % (
        path, len(frames), len(packets),
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(problems))
    return summary, problems


def self_test(path):
    """Damage a good capture of RC SENDs in ways the judges must catch,
    and change only fields the ICRC masks, which they must accept."""
    data = open(path, "rb").read()
    recs, off = [], 24
    while off + 16 <= len(data):
        cap = struct.unpack("<I", data[off + 8:off + 12])[0]
        recs.append((off + 16, cap))
        off += 16 + cap
    if len(recs) < 2 or judge(path, 1, [])[1]:
        print("%s: not a good capture of two frames or more" % path)
        return 1

    def flip(d, at):
        d[at] ^= 0x01

    def swap_icrc(d, o, c):
        d[o + c - 4:o + c] = bytes(reversed(d[o + c - 4:o + c]))

    def masked_only(d, o, c):
        ip = o + 14
        d[ip + 1] = 0x03                          # ECN: congestion experienced
        d[ip + 8] -= 1                            # one hop further
        d[ip + 10:ip + 12] = b"\0\0"
        d[ip + 10:ip + 12] = struct.pack("!H", ipv4_checksum(bytes(d[ip:ip + 20])))
        d[ip + 28 + 4] |= 0x80                    # BTH FECN

    o1, c1 = recs[1]
    cases = (
        ("an ICRC bit", True, lambda d: flip(d, o1 + c1 - 1)),
        ("a payload bit", True, lambda d: flip(d, o1 + c1 - 8)),
        ("the ICRC byte-swapped", True, lambda d: swap_icrc(d, o1, c1)),
        ("the PSN", True, lambda d: flip(d, o1 + 14 + 28 + 11)),
        ("the IPv4 header checksum", True, lambda d: flip(d, o1 + 14 + 11)),
        ("the first frame removed", True,
         lambda d: d.__delitem__(slice(recs[0][0] - 16, recs[0][0] + recs[0][1]))),
        ("only ECN, TTL and FECN", False, lambda d: masked_only(d, o1, c1)),
    )
    failed = 0
    for what, bad, damage in cases:
        d = bytearray(data)
        damage(d)
        tmp = "%s.self-test.pcap" % path
        with open(tmp, "wb") as f:
            f.write(d)
        problems = judge(tmp, 1, [])[1]
        os.unlink(tmp)
        ok = bool(problems) == bad
        failed += not ok
        print("%s: %s %s" % ("ok" if ok else "FAIL", what,
                             ("caught: " + problems[0]) if problems else "accepted"))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", nargs="+", metavar="CAPTURE")
    ap.add_argument("--min-packets", type=int, default=1, metavar="N",
                    help="fail with fewer RoCE packets than N in a capture")
    ap.add_argument("--opcodes", default="", metavar="NAME,...",
                    help="names (RC_SEND_ONLY, ...) each capture must hold")
    ap.add_argument("--self-test", action="store_true",
                    help="damage the one CAPTURE (RC SENDs) and require the "
                         "damage to be caught")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.captures[0])
    opcodes = [o for o in args.opcodes.split(",") if o]
    failed = False
    for path in args.captures:
        summary, problems = judge(path, args.min_packets, opcodes)
        for p in problems[:20]:
            print("  %s" % p)
        if len(problems) > 20:
            print("  ... %d more" % (len(problems) - 20))
        print(summary)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
