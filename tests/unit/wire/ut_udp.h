/* SPDX-License-Identifier: MIT */
/* A UDP socket bound to a free port of 127.0.0.1, for the link suites. */
#ifndef MLX5EMU_TESTS_UNIT_WIRE_UT_UDP_H
#define MLX5EMU_TESTS_UNIT_WIRE_UT_UDP_H

#include <check.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "emu/wire/wire.h"

/* The socket, and its endpoint in ep. */
static inline int udp_socket(struct emu_wire_ep *ep)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t l = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &l), 0);
	memset(ep, 0, sizeof(*ep));
	ep->family = AF_INET;
	ep->port = ntohs(sa.sin_port);
	memcpy(ep->addr, &sa.sin_addr, 4);
	return fd;
}

#endif /* MLX5EMU_TESTS_UNIT_WIRE_UT_UDP_H */
