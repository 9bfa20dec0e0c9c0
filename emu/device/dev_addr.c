/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_addr.c -- taking the ports' IPv4 addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/dev_addr.h"

#define LOOPBACK_NET	0x7f000000u
#define LOOPBACK_HOST	0x7f000001u	/* 127.0.0.1 */

/* The pid-derived candidate space: 127.a.b.c, a 1..254, b 0..255, c 1..254. */
#define SPACE_A 254u
#define SPACE_B 256u
#define SPACE_C 254u

const char *emu_addr_unusable(uint32_t ip)
{
	if ((ip >> 24) == 0)
		return "in 0.0.0.0/8, not a host address";
	if (ip >= 0xe0000000u)
		return "a multicast or reserved address (224.0.0.0 and above)";
	if (ip == LOOPBACK_HOST)
		return "127.0.0.1 is left to the host's own services";
	if ((ip & 0xff) == 0 || (ip & 0xff) == 0xff)
		return "the last octet must not be 0 or 255";
	return NULL;
}

/* A 32-bit integer hash with good avalanche (C. Wellons' lowbias32). */
static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static uint32_t candidate_of(uint32_t key)
{
	uint32_t idx = mix32(key) % (SPACE_A * SPACE_B * SPACE_C);
	uint32_t a = 1 + idx / (SPACE_B * SPACE_C);
	uint32_t b = (idx / SPACE_C) % SPACE_B;
	uint32_t c = 1 + idx % SPACE_C;

	return LOOPBACK_NET | a << 16 | b << 8 | c;
}

uint32_t emu_addr_pid_candidate(pid_t pid)
{
	return candidate_of((uint32_t)pid);
}

uint32_t emu_addr_seed_candidate(uint64_t seed)
{
	return candidate_of(mix32((uint32_t)(seed >> 32)) ^ (uint32_t)seed);
}

uint32_t emu_addr_next(uint32_t ip)
{
	int loopback = (ip >> 24) == 127;

	do {
		ip++;
		if (loopback && (ip >> 24) != 127)
			ip = LOOPBACK_NET;	/* wrap within 127/8 */
		else if (!loopback && ip >= 0xe0000000u)
			ip = 0x01000000u;	/* wrap below multicast */
	} while (emu_addr_unusable(ip));
	return ip;
}

static void fmt_ip(uint32_t ip, char *buf, size_t len)
{
	struct in_addr a = { .s_addr = htonl(ip) };

	if (!inet_ntop(AF_INET, &a, buf, (socklen_t)len) && len)
		buf[0] = '\0';
}

int emu_addr_bind(uint32_t *ip, uint16_t udp_port, unsigned int max_tries,
		  char *why, size_t whylen)
{
	uint32_t cand = *ip;
	char first[INET_ADDRSTRLEN], cur[INET_ADDRSTRLEN];

	fmt_ip(cand, first, sizeof(first));
	if (emu_addr_unusable(cand))
		cand = emu_addr_next(cand);
	for (unsigned int i = 0; i < max_tries; i++) {
		struct sockaddr_in sa = {
			.sin_family = AF_INET,
			.sin_port = htons(udp_port),
			.sin_addr.s_addr = htonl(cand),
		};
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int err;

		if (fd < 0) {
			err = errno;
			snprintf(why, whylen, "socket(AF_INET, SOCK_DGRAM): %s",
				 strerror(err));
			return -err;
		}
		/* SO_REUSEADDR stays off: the bind is the proof of ownership. */
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			*ip = cand;
			return fd;
		}
		err = errno;
		close(fd);
		fmt_ip(cand, cur, sizeof(cur));
		if (err != EADDRINUSE) {
			if (err == EADDRNOTAVAIL)
				snprintf(why, whylen,
					 "cannot bind UDP %s:%u: %s (no interface of this host has that address)",
					 cur, udp_port, strerror(err));
			else
				snprintf(why, whylen, "cannot bind UDP %s:%u: %s",
					 cur, udp_port, strerror(err));
			return -err;
		}
		cand = emu_addr_next(cand);
	}
	if (max_tries == 1)
		snprintf(why, whylen,
			 "UDP %s:%u is taken (EADDRINUSE): another process, or a kernel vxlan device, Docker's overlay network or Open vSwitch on the wildcard address; set wire.udp_port (MLX5EMU_WIRE_UDP_PORT) or the port of wire.endpoint (MLX5EMU_WIRE_ENDPOINT) to pick another",
			 first, udp_port);
	else
		snprintf(why, whylen,
			 "UDP port %u is taken on %u consecutive addresses from %s (EADDRINUSE): something holds 0.0.0.0:%u (a kernel vxlan device, Docker's overlay network or Open vSwitch often do); set wire.udp_port (MLX5EMU_WIRE_UDP_PORT) to pick another port",
			 udp_port, max_tries, first, udp_port);
	return -EADDRINUSE;
}
