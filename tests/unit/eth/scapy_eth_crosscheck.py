#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""emu/eth against scapy, byte for byte, on random frames.

    scapy_eth_crosscheck.py --driver PATH [--count N] [--seed S]

Random frames (IPv4 with and without options, IPv6 with and without
extension headers, TCP with options or UDP, no, one or two VLAN tags,
random payloads) built by scapy, which computes every length and checksum
itself.  The library behind PATH (eth_scapy_drv) must:

  csum    rewrite the checksums scapy wrote, zeroed, to scapy's bytes;
  verify  find them good, one flipped bit bad, and report the IP packet's
          sum as this script computes it;
  lso     cut a TCP frame into the segments scapy builds from the same
          headers (IP id + k, sequence + k * mss, FIN/PSH last, CWR first,
          lengths and checksums recomputed by scapy), and a UDP frame whose
          UDP length already says mss + 8, as mlx5e posts one;
  rss     hash as this script's own Toeplitz (random keys, random field
          selections, mlx5's OR-XOR symmetric input).

Exit status: 0 all equal, 1 a difference, 77 skipped (no scapy).  Run with
Debian's /usr/bin/python3.
"""
import argparse
import random
import struct
import subprocess
import sys

try:
    from scapy.all import (IP, TCP, UDP, Dot1Q, Ether, IPOption_NOP, IPv6,
                           IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, Raw)
except ImportError:
    print('SKIP: python3-scapy is not installed')
    sys.exit(77)

L3_CSUM, L4_CSUM = 0x40, 0x80
FN_TOEPLITZ = 2
SEL_SRC_IP, SEL_DST_IP, SEL_SPORT, SEL_DPORT = 1, 2, 4, 8


class Driver:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def rmac(rng):
    return '02:' + ':'.join('%02x' % rng.randrange(256) for _ in range(5))


def rip4(rng):
    return '.'.join(str(rng.randrange(1, 255)) for _ in range(4))


def rip6(rng):
    return ':'.join('%x' % rng.randrange(65536) for _ in range(8))


def frame(rng, v6=None, tcp=None, payload_len=None):
    """A random frame and (l3 offset, l3 header length, is IPv6, is TCP)."""
    v6 = rng.random() < 0.5 if v6 is None else v6
    tcp = rng.random() < 0.5 if tcp is None else tcp
    nvlan = rng.choice((0, 0, 1, 2))
    if nvlan == 2:
        pkt = (Ether(src=rmac(rng), dst=rmac(rng), type=0x88a8) /
               Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8),
                     type=0x8100) /
               Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8)))
    elif nvlan == 1:
        pkt = (Ether(src=rmac(rng), dst=rmac(rng)) /
               Dot1Q(vlan=rng.randrange(4096), prio=rng.randrange(8)))
    else:
        pkt = Ether(src=rmac(rng), dst=rmac(rng))
    if v6:
        pkt = pkt / IPv6(src=rip6(rng), dst=rip6(rng), tc=rng.randrange(256),
                         fl=rng.randrange(1 << 20), hlim=rng.randrange(256))
        if rng.random() < 0.3:
            pkt = pkt / IPv6ExtHdrHopByHop()
        if rng.random() < 0.3:
            pkt = pkt / IPv6ExtHdrDestOpt()
    else:
        opts = [IPOption_NOP()] * rng.choice((0, 0, 3, 4, 8))
        pkt = pkt / IP(src=rip4(rng), dst=rip4(rng), tos=rng.randrange(256),
                       ttl=rng.randrange(1, 256), id=rng.randrange(65536),
                       flags=rng.choice((0, 2)), options=opts)
    if tcp:
        topts = rng.choice(([], [('MSS', 1460)],
                            [('NOP', None), ('WScale', 7), ('SAckOK', b'')]))
        pkt = pkt / TCP(sport=rng.randrange(65536), dport=rng.randrange(65536),
                        seq=rng.randrange(1 << 32), ack=rng.randrange(1 << 32),
                        flags=rng.randrange(1, 256), window=rng.randrange(65536),
                        options=topts)
    else:
        pkt = pkt / UDP(sport=rng.randrange(65536),
                        dport=rng.choice((rng.randrange(65536), 53)))
    n = rng.randrange(0, 1400) if payload_len is None else payload_len
    if n:
        pkt = pkt / Raw(bytes(rng.randrange(256) for _ in range(n)))
    ipl = IPv6 if v6 else IP
    l3 = len(pkt) - len(pkt[ipl])
    l4 = len(pkt) - len(pkt[TCP if tcp else UDP])
    return pkt, l3, l4, v6, tcp


def csum16(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('>%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def check_csum(drv, rng, fails):
    pkt, l3, l4, v6, tcp = frame(rng)
    good = bytes(pkt)
    z = bytearray(good)
    if not v6:
        z[l3 + 10:l3 + 12] = b'\0\0'
    c = l4 + (16 if tcp else 6)
    z[c:c + 2] = b'\0\0'
    got = drv.ask('csum %d %s' % (L3_CSUM | L4_CSUM, z.hex()))
    if got != good.hex():
        fails.append('csum: %s\n  got  %s\n  want %s' % (pkt.summary(), got,
                                                        good.hex()))
    iplen = (struct.unpack('>H', good[l3 + 2:l3 + 4])[0] if not v6 else
             40 + struct.unpack('>H', good[l3 + 4:l3 + 6])[0])
    want = '1 1 %04x' % csum16(good[l3:l3 + iplen])
    got = drv.ask('verify ' + good.hex())
    if got != want:
        fails.append('verify: %s: got %s want %s' % (pkt.summary(), got, want))
    bad = bytearray(good)
    i = rng.randrange(l4, len(bad))
    bad[i] ^= 1 << rng.randrange(8)
    if drv.ask('verify ' + bad.hex()).split()[:2] != ['1', '0']:
        fails.append('verify: byte %d flipped still good: %s' % (i,
                                                                 pkt.summary()))
    if not tcp:
        nosum = bytearray(good)
        nosum[l4 + 6:l4 + 8] = b'\0\0'
        want = ['1', '0' if v6 else '1']
        if drv.ask('verify ' + nosum.hex()).split()[:2] != want:
            fails.append('verify: UDP checksum 0 over %s' %
                         ('IPv6' if v6 else 'IPv4'))


def lso_expect(drv, pkt, l4cls, hdr_len, mss, fix_l4, what, fails):
    """Segments as scapy rebuilds them from pkt's headers (IP id + k,
    lengths and checksums recomputed; fix_l4(seg, k, nseg) for the rest)
    against the library's."""
    whole = bytes(pkt)
    payload = whole[hdr_len:]
    hdrs = pkt.copy()
    hdrs[l4cls].remove_payload()
    nseg = max(1, (len(payload) + mss - 1) // mss)
    want = []
    for k in range(nseg):
        s = hdrs.copy()
        if IPv6 in s:
            del s[IPv6].plen
        else:
            s[IP].id = (pkt[IP].id + k) & 0xffff
            del s[IP].len
            del s[IP].chksum
        fix_l4(s, k, nseg)
        del s[l4cls].chksum
        chunk = payload[k * mss:(k + 1) * mss]
        if chunk:
            s = s / Raw(chunk)
        want.append(bytes(s).hex())
    got = drv.ask('lso %d %d %s' % (mss, hdr_len, whole.hex())).split()
    if got != want:
        fails.append('%s: %s mss %d: %d segments, %d equal' % (
            what, pkt.summary(), mss, len(want),
            sum(a == b for a, b in zip(got, want))))


def check_lso(drv, rng, fails):
    pkt, l3, l4, v6, _ = frame(rng, tcp=True,
                               payload_len=rng.randrange(0, 6000))
    mss = rng.randrange(100, 1461)
    t = pkt[TCP]

    def fix_tcp(s, k, nseg):
        s[TCP].seq = (t.seq + k * mss) & 0xffffffff
        fl = int(t.flags)
        if k + 1 < nseg:
            fl &= ~0x09        # FIN, PSH
        if k:
            fl &= ~0x80        # CWR
        s[TCP].flags = fl

    lso_expect(drv, pkt, TCP, l4 + len(t) - len(t.payload), mss, fix_tcp,
               'lso', fails)


def check_lso_udp(drv, rng, fails):
    """UDP as mlx5e posts it (GSO_PARTIAL): equal segments, the template's
    UDP length already mss + 8."""
    mss = rng.randrange(100, 1461)
    pkt, l3, l4, v6, _ = frame(rng, tcp=False,
                               payload_len=mss * rng.randrange(1, 6))
    pkt[UDP].len = mss + 8
    lso_expect(drv, pkt, UDP, l4 + 8, mss, lambda s, k, n: None, 'lso udp',
               fails)


def toeplitz(key, data):
    k = int.from_bytes(key, 'big')
    h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (320 - 32 - (i * 8 + b))) & 0xffffffff
    return h


def check_rss(drv, rng, fails):
    pkt, l3, l4, v6, tcp = frame(rng)
    b = bytes(pkt)
    key = bytes(rng.randrange(256) for _ in range(40))
    fields = rng.randrange(16)
    sym = rng.randrange(2)
    l4_type = (0 if tcp else 1) if rng.random() < 0.85 else (1 if tcp else 0)
    w = 16 if v6 else 4
    src = b[l3 + (8 if v6 else 12):][:w]
    dst = b[l3 + (8 if v6 else 12) + w:][:w]
    sp, dp = b[l4:l4 + 2], b[l4 + 2:l4 + 4]

    def pair(a, c, use_a, use_c):
        if use_a and use_c and sym:
            return (bytes(x | y for x, y in zip(a, c)) +
                    bytes(x ^ y for x, y in zip(a, c)))
        return (a if use_a else b'') + (c if use_c else b'')

    inp = pair(src, dst, fields & SEL_SRC_IP, fields & SEL_DST_IP)
    ports = fields & (SEL_SPORT | SEL_DPORT)
    matched = not (ports and l4_type != (0 if tcp else 1))
    if ports:
        inp += pair(sp, dp, fields & SEL_SPORT, fields & SEL_DPORT)
    want = '%08x %d' % (toeplitz(key, inp) if matched else 0, matched)
    got = drv.ask('rss %d %d %d %d %d %s %s' % (FN_TOEPLITZ, sym, int(v6),
                                                l4_type, fields, key.hex(),
                                                b.hex()))
    if got != want:
        fails.append('rss: %s fields %#x sym %d: got %s want %s' % (
            pkt.summary(), fields, sym, got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--driver', required=True)
    ap.add_argument('--count', type=int, default=150)
    ap.add_argument('--seed', type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    drv = Driver(a.driver)
    fails = []
    for _ in range(a.count):
        check_csum(drv, rng, fails)
        check_lso(drv, rng, fails)
        check_lso_udp(drv, rng, fails)
        check_rss(drv, rng, fails)
    drv.close()
    for f in fails[:20]:
        print('FAIL', f)
    print('scapy_eth_crosscheck: seed %d, %d frames x 4 checks, %d failures'
          % (seed, a.count, len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
