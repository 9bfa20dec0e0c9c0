/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_l3.c -- the network headers of RoCE: IPv4 (RFC 791) and
 * IPv6 (RFC 8200) for RoCE v2, the GRH (IBA 8.3, laid out as IPv6) for
 * RoCE v1; the UDP source port of a flow; outer endpoints.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "emu/wire/wire_int.h"

bool emu_wire_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(gid, pfx, sizeof(pfx));
}

bool emu_wire_mac_of_gid(const uint8_t gid[16], uint8_t mac[6])
{
	static const uint8_t ll[8] = { 0xfe, 0x80 };

	if (emu_wire_gid_is_v4(gid)) {
		mac[0] = 0x02;
		mac[1] = 0xc9;
		memcpy(mac + 2, gid + 12, 4);
		return true;
	}
	/* RFC 4291 appendix A: fe80::/64 with the EUI-64 of a MAC, the
	 * universal/local bit flipped. */
	if (!memcmp(gid, ll, sizeof(ll)) && gid[11] == 0xff && gid[12] == 0xfe) {
		mac[0] = gid[8] ^ 0x02;
		mac[1] = gid[9];
		mac[2] = gid[10];
		mac[3] = gid[13];
		mac[4] = gid[14];
		mac[5] = gid[15];
		return true;
	}
	return false;
}

uint16_t wire_ip_csum(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void emu_wire_ipv4_build(uint8_t ip[20], const uint8_t sgid[16],
			 const uint8_t dgid[16], uint8_t tos, uint8_t ttl,
			 uint16_t l4len)
{
	uint16_t tot = (uint16_t)(20 + l4len), csum;

	memset(ip, 0, 20);
	ip[0] = 0x45;			/* version 4, 5 words */
	ip[1] = tos;
	emu_put_be16(ip + 2, tot);
	/* Identification 0 and DF: RoCE is never fragmented (the ICRC
	 * covers both, so they are fixed before it is computed). */
	emu_put_be16(ip + 6, 0x4000);
	ip[8] = ttl;
	ip[9] = 17;			/* UDP */
	memcpy(ip + 12, sgid + 12, 4);
	memcpy(ip + 16, dgid + 12, 4);
	csum = wire_ip_csum(ip, 20);
	emu_put_be16(ip + 10, csum);
}

void emu_wire_ipv6_build(uint8_t ip[40], const uint8_t sgid[16],
			 const uint8_t dgid[16], uint8_t tclass,
			 uint32_t flow_label, uint8_t hop_limit,
			 uint8_t next, uint16_t l4len)
{
	emu_put_be32(ip, 6u << 28 | (uint32_t)tclass << 20 |
		       (flow_label & 0xfffff));
	emu_put_be16(ip + 4, l4len);
	ip[6] = next;
	ip[7] = hop_limit;
	memcpy(ip + 8, sgid, 16);
	memcpy(ip + 24, dgid, 16);
}

uint16_t emu_wire_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t lo, hi;

	if (!(fl & 0xfffff)) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
	}
	/* 14 bits of entropy folded from the 20-bit label into 0xc000..:
	 * the range IBA A17.4.5.1 gives RoCE v2 source ports. */
	lo = fl & 0x3fff;
	hi = fl & 0xfc000;
	lo ^= hi >> 14;
	return (uint16_t)(lo | 0xc000);
}

void emu_wire_ep_format(const struct emu_wire_ep *ep, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ep->family == AF_INET || ep->family == AF_INET6)
		inet_ntop(ep->family, ep->addr, ip, sizeof(ip));
	if (ep->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", ip, ep->port);
	else
		snprintf(buf, len, "%s:%u", ip, ep->port);
}
