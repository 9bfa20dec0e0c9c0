/* SPDX-License-Identifier: MIT */
/* The netns probes' frames (probe_frames.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "probe_frames.h"

void probe_wr16(uint8_t *q, uint16_t v)
{
	q[0] = (uint8_t)(v >> 8);
	q[1] = (uint8_t)v;
}

int probe_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int m[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	return 0;
}

uint8_t *probe_l2l3(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6],
		    const char *dst, uint8_t proto, uint16_t l4len, uint16_t id)
{
	uint8_t *ip = f + 14;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	probe_wr16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	probe_wr16(ip + 2, (uint16_t)(20 + l4len));
	probe_wr16(ip + 4, id);
	ip[8] = 64;
	ip[9] = proto;
	inet_pton(AF_INET, PROBE_OWN_IP, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	return ip;
}

void probe_tcp_psh(uint8_t *t, uint16_t dport, uint32_t len)
{
	memset(t, 0, 20);
	probe_wr16(t, 40001);
	probe_wr16(t + 2, dport);
	t[4] = 0x10;			/* sequence 0x10000000 */
	t[12] = 5 << 4;
	t[13] = 0x18;			/* PSH ACK */
	for (uint32_t i = 0; i < len; i++)
		t[20 + i] = (uint8_t)i;
}

void probe_ip_csum(uint8_t *ip)
{
	uint32_t s = 0;

	ip[10] = ip[11] = 0;
	for (int k = 0; k < 20; k += 2)
		s += (uint32_t)ip[k] << 8 | ip[k + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	probe_wr16(ip + 10, (uint16_t)~s);
}
