/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_pcap.c -- a port's capture, written by libpcap: link type
 * Ethernet (DLT_EN10MB), whole frames, the time each crossed the port.
 *
 * Inner capture (the default) records each frame as the port sends or
 * receives it, which Wireshark dissects as RoCE directly.  Outer capture
 * records the VXLAN datagram as it travels, with an outer Ethernet, IP and
 * UDP header made up around it (the kernel's socket owns the real ones):
 * the outer MACs are the port's and 00:00:00:00:00:00, the addresses and
 * ports those of the two tunnel endpoints.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "emu/wire/wire_int.h"

struct wire_pcap {
	pcap_t *dead;
	pcap_dumper_t *dump;
};

struct wire_pcap *wire_pcap_open(const char *path, int *err)
{
	struct wire_pcap *pc = calloc(1, sizeof(*pc));

	if (!pc) {
		*err = ENOMEM;
		return NULL;
	}
	pc->dead = pcap_open_dead(DLT_EN10MB, 65535);
	if (!pc->dead) {
		free(pc);
		*err = ENOMEM;
		return NULL;
	}
	errno = 0;
	pc->dump = pcap_dump_open(pc->dead, path);
	if (!pc->dump) {
		*err = errno ? errno : EIO;
		pcap_close(pc->dead);
		free(pc);
		return NULL;
	}
	return pc;
}

static void wire_pcap_record(struct wire_pcap *pc, const uint8_t *data,
			     uint32_t len)
{
	struct pcap_pkthdr hdr;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	hdr.ts.tv_sec = ts.tv_sec;
	hdr.ts.tv_usec = ts.tv_nsec / 1000;
	hdr.caplen = hdr.len = len;
	pcap_dump((u_char *)pc->dump, &hdr, data);
}

void wire_pcap_write(struct wire_pcap *pc, const uint8_t *data, uint32_t len)
{
	wire_pcap_record(pc, data, len);
}

void wire_pcap_write_outer(struct wire_pcap *pc, const struct emu_wire_ep *src,
			   const struct emu_wire_ep *dst, const uint8_t smac[6],
			   const uint8_t *dgram, uint32_t len)
{
	uint8_t rec[EMU_WIRE_ETH_HLEN + 40 + 8 + EMU_WIRE_DGRAM_MAX];
	bool v6 = dst->family == AF_INET6;
	uint32_t l3 = v6 ? 40 : 20, off = EMU_WIRE_ETH_HLEN + l3;
	uint8_t sg[16] = { 0 }, dg[16] = { 0 };

	if (len > EMU_WIRE_DGRAM_MAX)
		return;
	memset(rec, 0, EMU_WIRE_ETH_HLEN);
	memcpy(rec + 6, smac, 6);
	emu_put_be16(rec + 12, v6 ? EMU_WIRE_ETH_P_IPV6 : EMU_WIRE_ETH_P_IPV4);
	if (v6) {
		emu_wire_ipv6_build(rec + EMU_WIRE_ETH_HLEN, src->addr, dst->addr,
				    0, 0, 64, 17, (uint16_t)(8 + len));
	} else {
		memcpy(sg + 12, src->addr, 4);
		memcpy(dg + 12, dst->addr, 4);
		emu_wire_ipv4_build(rec + EMU_WIRE_ETH_HLEN, sg, dg, 0, 64,
				    (uint16_t)(8 + len));
	}
	emu_put_be16(rec + off, src->port);
	emu_put_be16(rec + off + 2, dst->port);
	emu_put_be16(rec + off + 4, (uint16_t)(8 + len));
	emu_put_be16(rec + off + 6, 0);
	memcpy(rec + off + 8, dgram, len);
	wire_pcap_record(pc, rec, off + 8 + len);
}

void wire_pcap_flush(struct wire_pcap *pc)
{
	pcap_dump_flush(pc->dump);
}

void wire_pcap_close(struct wire_pcap *pc)
{
	if (!pc)
		return;
	pcap_dump_close(pc->dump);
	pcap_close(pc->dead);
	free(pc);
}
