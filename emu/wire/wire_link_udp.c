/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_link_udp.c -- the UDP link: datagrams through the kernel's
 * UDP sockets, batched (sendmmsg/recvmmsg), never blocking.
 *
 * The socket is the port's claim on its endpoint (emu/device binds it);
 * the link only makes it non-blocking and asks for room: a receive buffer
 * large enough for a window of frames (SO_RCVBUFFORCE where the process
 * may, else as much as net.core.rmem_max allows).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/wire/wire_int.h"

#define WIRE_UDP_RCVBUF (8 << 20)
#define WIRE_UDP_SNDBUF (4 << 20)
#define WIRE_UDP_BATCH 64

struct wire_link_udp {
	struct emu_wire_link link;
	int fd;
};

static socklen_t wire_sa_of(const struct emu_wire_ep *ep,
			    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ep->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(ep->port);
		memcpy(&s6->sin6_addr, ep->addr, 16);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(ep->port);
		memcpy(&s4->sin_addr, ep->addr, 4);
		return sizeof(*s4);
	}
}

static void wire_ep_of(const struct sockaddr_storage *ss,
		       struct emu_wire_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		ep->family = AF_INET6;
		ep->port = ntohs(s6->sin6_port);
		memcpy(ep->addr, &s6->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		ep->family = AF_INET;
		ep->port = ntohs(s4->sin_port);
		memcpy(ep->addr, &s4->sin_addr, 4);
	}
}

static int wire_udp_send(struct emu_wire_link *l,
			 const struct emu_wire_dgram *d, unsigned int n)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;
	struct sockaddr_storage ss[WIRE_UDP_BATCH];
	struct mmsghdr m[WIRE_UDP_BATCH];
	struct iovec iov[WIRE_UDP_BATCH];
	unsigned int done = 0;

	l->by_sockets |= n > 0;
	while (done < n) {
		unsigned int k = n - done < WIRE_UDP_BATCH ? n - done :
							    WIRE_UDP_BATCH;
		int r;

		for (unsigned int i = 0; i < k; i++) {
			const struct emu_wire_dgram *g = &d[done + i];

			iov[i].iov_base = g->buf;
			iov[i].iov_len = g->len;
			memset(&m[i], 0, sizeof(m[i]));
			m[i].msg_hdr.msg_name = &ss[i];
			m[i].msg_hdr.msg_namelen = wire_sa_of(&g->ep, &ss[i]);
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(u->fd, m, k, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* A full buffer or an unreachable peer: this
			 * datagram is lost, as on a congested cable. */
			done++;
			continue;
		}
		done += (unsigned int)r;
		if ((unsigned int)r < k && r >= 0)
			return (int)done;
	}
	return (int)done;
}

static int wire_udp_recv(struct emu_wire_link *l, struct emu_wire_dgram *d,
			 unsigned int n, bool sockets)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;
	struct sockaddr_storage ss[WIRE_UDP_BATCH];
	struct mmsghdr m[WIRE_UDP_BATCH];
	struct iovec iov[WIRE_UDP_BATCH];
	int r;

	if (!sockets)
		return 0;
	if (n > WIRE_UDP_BATCH)
		n = WIRE_UDP_BATCH;
	for (unsigned int i = 0; i < n; i++) {
		iov[i].iov_base = d[i].buf;
		iov[i].iov_len = d[i].len;
		memset(&m[i], 0, sizeof(m[i]));
		m[i].msg_hdr.msg_name = &ss[i];
		m[i].msg_hdr.msg_namelen = sizeof(ss[i]);
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	do {
		r = recvmmsg(u->fd, m, n, MSG_DONTWAIT, NULL);
	} while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	for (int i = 0; i < r; i++) {
		wire_ep_of(&ss[i], &d[i].ep);
		/* A datagram longer than a frame is cut: drop it later. */
		d[i].len = (m[i].msg_hdr.msg_flags & MSG_TRUNC) ? 0 : m[i].msg_len;
	}
	return r;
}

static int wire_udp_fd(struct emu_wire_link *l)
{
	return ((struct wire_link_udp *)l)->fd;
}

static void wire_udp_destroy(struct emu_wire_link *l)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;

	close(u->fd);
	free(u);
}

static const struct emu_wire_link_ops wire_udp_ops = {
	.send = wire_udp_send,
	.recv = wire_udp_recv,
	.fd = wire_udp_fd,
	.destroy = wire_udp_destroy,
};

struct emu_wire_link *emu_wire_link_udp_create(int fd,
					       const struct emu_wire_ep *local)
{
	struct wire_link_udp *u = calloc(1, sizeof(*u));
	int flags, sz;

	if (!u) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	sz = WIRE_UDP_RCVBUF;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	sz = WIRE_UDP_SNDBUF;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* The kernel reports twice what it grants; a datagram costs about
	 * twice its length of that (its buffer's true size). */
	sz = 0;
	{
		socklen_t l = sizeof(sz);

		if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, &l) && sz > 0)
			u->link.window = (uint32_t)sz / 4;
	}
	u->fd = fd;
	u->link.ops = &wire_udp_ops;
	u->link.local = *local;
	return &u->link;
}
