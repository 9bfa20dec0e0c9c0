/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_link_udp.c -- the UDP link: datagrams through the kernel's
 * UDP sockets, batched (sendmmsg/recvmmsg), never blocking.
 *
 * The socket is the port's claim on its endpoint (emu/device binds it);
 * the link only makes it non-blocking and asks for room: a receive buffer
 * large enough for a window of frames (SO_RCVBUFFORCE where the process
 * may, else as much as net.core.rmem_max allows).
 *
 * The kernel's cost is per send and per receive, not per byte, so the link
 * lets it move several datagrams at once without changing what is on the
 * wire:
 *   - send: a run of datagrams to one endpoint, all of one length but the
 *     last (which may be shorter), goes as one message with UDP_SEGMENT:
 *     the kernel (or the NIC) cuts it back into exactly those datagrams.
 *     A kernel that refuses the option makes the link send one datagram
 *     per message from then on.
 *   - but only to an endpoint that has sent this link a datagram from
 *     that very address and port: a socket of an application, as the
 *     emulator's are.  Linux's own tunnel sockets (a vxlan netdev) take
 *     a segmented message whole where no NIC cut it (loopback, veth) and
 *     decapsulate only its first datagram; they send from other ports.
 *   - receive: UDP_GRO lets the kernel hand over such a run (from a peer
 *     on this host, or coalesced by a NIC) as one message with its segment
 *     size; the link splits it into the caller's descriptors and keeps
 *     what does not fit for the next call.  The option is on only while
 *     datagrams come in runs: a lone datagram took about 0.45 us longer
 *     to arrive through a socket with it (ib_send_lat over UDP, 4.8
 *     against 5.3 us one way).  A read that finds WIRE_UDP_GRO_RUN
 *     datagrams or more turns it on; WIRE_UDP_GRO_LONE reads in a row
 *     that find one each turn it off.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/wire/wire_int.h"

#define WIRE_UDP_RCVBUF (8 << 20)
#define WIRE_UDP_SNDBUF (4 << 20)
#define WIRE_UDP_BATCH 64	/* messages per sendmmsg */
#define WIRE_UDP_TX_IOV 512	/* datagrams per sendmmsg */
#define WIRE_UDP_RX_MSGS 32	/* messages per recvmmsg */
#define WIRE_UDP_PEERS 16	/* endpoints known to send from their port */
#define WIRE_UDP_GRO_RUN 4	/* datagrams in one read: a stream */
#define WIRE_UDP_GRO_LONE 256	/* reads of one datagram each: no stream */
/* Room for one received message: a coalesced run is at most one IP
 * datagram's payload. */
#define WIRE_UDP_MSG_ROOM (64u << 10)

/* A received message, split into datagrams as the caller takes them. */
struct wire_udp_msg {
	struct emu_wire_ep ep;
	uint32_t len;		/* bytes of whole segments */
	uint32_t seg;		/* segment size: every one but the last */
	uint32_t off;		/* handed out up to here */
	bool cut;		/* a segment after len was cut off */
};

struct wire_link_udp {
	struct emu_wire_link link;
	int fd;
	bool gso;		/* the kernel takes UDP_SEGMENT */
	bool gro;		/* UDP_GRO is on */
	bool gro_refused;	/* the kernel does not know UDP_GRO */
	unsigned int lone;	/* reads in a row that found one datagram */
	/* endpoints heard from (their source address and port): runs may
	 * go to them; the oldest is forgotten first */
	struct emu_wire_ep peer[WIRE_UDP_PEERS];
	unsigned int npeer, peer_next;
	/* received messages not yet all handed out: rx[rx_at..rx_n) */
	unsigned int rx_at, rx_n;
	struct wire_udp_msg rx[WIRE_UDP_RX_MSGS];
	uint8_t *scratch;	/* WIRE_UDP_RX_MSGS x WIRE_UDP_MSG_ROOM */
	/* recvmmsg's vectors, made once: a poll that finds nothing (most
	 * of them) costs the system call only; the kernel changes just the
	 * lengths and flags of the messages it fills, reset after use. */
	struct mmsghdr rm[WIRE_UDP_RX_MSGS];
	struct iovec riov[WIRE_UDP_RX_MSGS];
	struct sockaddr_storage rss[WIRE_UDP_RX_MSGS];
	union {
		char buf[CMSG_SPACE(sizeof(int)) * 2];
		struct cmsghdr align;
	} rcm[WIRE_UDP_RX_MSGS];
};

/* Make (or make again) receive vector i ready for recvmmsg. */
static void wire_udp_rx_ready(struct wire_link_udp *u, unsigned int i)
{
	struct msghdr *h = &u->rm[i].msg_hdr;

	h->msg_name = &u->rss[i];
	h->msg_namelen = sizeof(u->rss[i]);
	h->msg_iov = &u->riov[i];
	h->msg_iovlen = 1;
	h->msg_control = u->rcm[i].buf;
	h->msg_controllen = sizeof(u->rcm[i].buf);
	h->msg_flags = 0;
	u->riov[i].iov_base = u->scratch + (size_t)i * WIRE_UDP_MSG_ROOM;
	u->riov[i].iov_len = WIRE_UDP_MSG_ROOM;
}

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

unsigned int wire_udp_run(const struct emu_wire_dgram *d, unsigned int n,
			  unsigned int max)
{
	uint32_t seg, total;
	unsigned int k;

	if (!n || !max)
		return 0;
	seg = d[0].len;
	/* An empty datagram cannot be a segment: it would vanish. */
	if (!seg)
		return 1;
	if (max > WIRE_UDP_GSO_SEGS)
		max = WIRE_UDP_GSO_SEGS;
	total = seg;
	for (k = 1; k < n && k < max; k++) {
		const struct emu_wire_dgram *g = &d[k];

		if (!g->len || g->len > seg ||
		    total + g->len > WIRE_UDP_GSO_BYTES ||
		    !emu_wire_ep_eq(&g->ep, &d[0].ep))
			break;
		total += g->len;
		if (g->len < seg)
			return k + 1;	/* a shorter one ends the run */
	}
	return k;
}

static bool wire_udp_peer_known(const struct wire_link_udp *u,
				const struct emu_wire_ep *ep)
{
	for (unsigned int i = 0; i < u->npeer; i++)
		if (emu_wire_ep_eq(&u->peer[i], ep))
			return true;
	return false;
}

static void wire_udp_peer_learn(struct wire_link_udp *u,
				const struct emu_wire_ep *ep)
{
	if (!ep->family || wire_udp_peer_known(u, ep))
		return;
	u->peer[u->peer_next] = *ep;
	u->peer_next = (u->peer_next + 1) % WIRE_UDP_PEERS;
	if (u->npeer < WIRE_UDP_PEERS)
		u->npeer++;
}

/* The kernel's answers to a message with UDP_SEGMENT that say it will not
 * segment (no such option, no checksum offload on the route's device, a
 * segment larger than the route's MTU) rather than that this datagram
 * was lost. */
static bool wire_udp_gso_refused(int err)
{
	return err == EINVAL || err == ENOPROTOOPT || err == EIO ||
	       err == EMSGSIZE || err == EOPNOTSUPP;
}

static int wire_udp_send(struct emu_wire_link *l,
			 const struct emu_wire_dgram *d, unsigned int n)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;
	struct sockaddr_storage ss[WIRE_UDP_BATCH];
	struct mmsghdr m[WIRE_UDP_BATCH];
	struct iovec iov[WIRE_UDP_TX_IOV];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} cm[WIRE_UDP_BATCH];
	unsigned int segs[WIRE_UDP_BATCH];
	unsigned int done = 0;
	bool probing = false;

	l->by_sockets |= n > 0;
	while (done < n) {
		unsigned int k = 0, used = 0, at = done;
		int r;

		while (k < WIRE_UDP_BATCH && at < n) {
			unsigned int c = used < WIRE_UDP_TX_IOV;
			struct msghdr *h = &m[k].msg_hdr;

			if (!c)
				break;
			if (u->gso && at + 1 < n &&
			    wire_udp_peer_known(u, &d[at].ep))
				c = wire_udp_run(d + at, n - at,
						 WIRE_UDP_TX_IOV - used);
			for (unsigned int i = 0; i < c; i++) {
				iov[used + i].iov_base = d[at + i].buf;
				iov[used + i].iov_len = d[at + i].len;
			}
			memset(&m[k], 0, sizeof(m[k]));
			h->msg_name = &ss[k];
			h->msg_namelen = wire_sa_of(&d[at].ep, &ss[k]);
			h->msg_iov = &iov[used];
			h->msg_iovlen = c;
			if (c > 1) {
				struct cmsghdr *ch;
				uint16_t gso = (uint16_t)d[at].len;

				memset(&cm[k], 0, sizeof(cm[k]));
				h->msg_control = cm[k].buf;
				h->msg_controllen = sizeof(cm[k].buf);
				ch = CMSG_FIRSTHDR(h);
				ch->cmsg_level = SOL_UDP;
				ch->cmsg_type = UDP_SEGMENT;
				ch->cmsg_len = CMSG_LEN(sizeof(gso));
				memcpy(CMSG_DATA(ch), &gso, sizeof(gso));
			}
			segs[k++] = c;
			used += c;
			at += c;
		}
		r = sendmmsg(u->fd, m, k, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (segs[0] > 1 && wire_udp_gso_refused(errno)) {
				/* Nothing of it went: send the same
				 * datagrams one per message. */
				u->gso = false;
				continue;
			}
			/* After a short send this error belongs to the
			 * message that stopped it: the rest is dropped. */
			if (probing)
				return (int)done;
			/* A full buffer or an unreachable peer: these
			 * datagrams are lost, as on a congested cable. */
			done += segs[0];
			continue;
		}
		probing = false;
		for (int i = 0; i < r; i++)
			done += segs[i];
		if ((unsigned int)r < k) {
			/* sendmmsg hides why it stopped; a segmented
			 * message may be refused, which the next call
			 * tells (and then sends it again). */
			if (segs[r] > 1 && u->gso) {
				probing = true;
				continue;
			}
			return (int)done;
		}
	}
	return (int)done;
}

/* Hands out received datagrams waiting in the link, in order. */
static unsigned int wire_udp_hand(struct wire_link_udp *u,
				  struct emu_wire_dgram *d, unsigned int n)
{
	unsigned int got = 0;

	while (got < n && u->rx_at < u->rx_n) {
		struct wire_udp_msg *mm = &u->rx[u->rx_at];
		const uint8_t *src = u->scratch +
				     (size_t)u->rx_at * WIRE_UDP_MSG_ROOM;
		struct emu_wire_dgram *g = &d[got];
		uint32_t len;

		if (mm->off >= mm->len) {
			if (mm->cut) {
				/* What was cut is dropped by the port. */
				g->ep = mm->ep;
				g->len = 0;
				mm->cut = false;
				got++;
				continue;
			}
			u->rx_at++;
			continue;
		}
		len = mm->len - mm->off < mm->seg ? mm->len - mm->off :
						    mm->seg;
		g->ep = mm->ep;
		if (len > g->len) {
			/* Longer than any frame: dropped by the port. */
			g->len = 0;
		} else {
			memcpy(g->buf, src + mm->off, len);
			g->len = len;
		}
		mm->off += len;
		got++;
	}
	/* Skip what is spent so that an empty link says so at once. */
	while (u->rx_at < u->rx_n && u->rx[u->rx_at].off >= u->rx[u->rx_at].len &&
	       !u->rx[u->rx_at].cut)
		u->rx_at++;
	if (u->rx_at == u->rx_n)
		u->rx_at = u->rx_n = 0;
	return got;
}

/* The segment size the kernel reports for a coalesced message, or 0. */
static uint32_t wire_udp_gro_size(struct msghdr *h)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		int v;

		if (c->cmsg_level != SOL_UDP || c->cmsg_type != UDP_GRO ||
		    c->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		return v > 0 ? (uint32_t)v : 0;
	}
	return 0;
}

static void wire_udp_gro_set(struct wire_link_udp *u, bool on)
{
	int v = on;

	if (setsockopt(u->fd, SOL_UDP, UDP_GRO, &v, sizeof(v)))
		u->gro_refused = true;
	else
		u->gro = on;
	u->lone = 0;
}

/* A read found n datagrams: follow the traffic's shape. */
static void wire_udp_gro_follow(struct wire_link_udp *u, uint32_t n)
{
	if (u->gro_refused)
		return;
	if (n >= WIRE_UDP_GRO_RUN) {
		u->lone = 0;
		if (!u->gro)
			wire_udp_gro_set(u, true);
	} else if (u->gro && n == 1 && ++u->lone >= WIRE_UDP_GRO_LONE) {
		wire_udp_gro_set(u, false);
	}
}

static int wire_udp_recv(struct emu_wire_link *l, struct emu_wire_dgram *d,
			 unsigned int n, bool sockets)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;
	struct mmsghdr *m = u->rm;
	unsigned int got, k;
	uint32_t ndg = 0;
	int r;

	/* Datagrams kept from an earlier call come first, and need no
	 * system call. */
	got = wire_udp_hand(u, d, n);
	if (got == n || !sockets || u->rx_n)
		return (int)got;
	k = n - got < WIRE_UDP_RX_MSGS ? n - got : WIRE_UDP_RX_MSGS;
	do {
		r = recvmmsg(u->fd, m, k, MSG_DONTWAIT, NULL);
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		/* Nothing was filled; after an unusual error, distrust that. */
		if (r < 0 && errno != EAGAIN)
			for (unsigned int i = 0; i < k; i++)
				wire_udp_rx_ready(u, i);
		return (int)got;
	}
	for (int i = 0; i < r; i++) {
		struct wire_udp_msg *mm = &u->rx[i];
		uint32_t len = m[i].msg_len;
		uint32_t seg = wire_udp_gro_size(&m[i].msg_hdr);

		wire_ep_of(&u->rss[i], &mm->ep);
		if (i == 0 || !emu_wire_ep_eq(&mm->ep, &u->rx[i - 1].ep))
			wire_udp_peer_learn(u, &mm->ep);
		/* A size the message cannot hold means one datagram. */
		if (!seg || seg >= len)
			seg = len;
		mm->off = 0;
		mm->cut = false;
		if (m[i].msg_hdr.msg_flags & MSG_TRUNC) {
			/* Whole segments before the cut stay. */
			mm->cut = true;
			len = seg < len ? len - len % seg : 0;
		}
		mm->len = len;
		mm->seg = seg ? seg : 1;
		/* An empty datagram is still one. */
		if (!len && !mm->cut)
			mm->cut = true;
		wire_udp_rx_ready(u, (unsigned int)i);
		ndg += mm->seg && len > mm->seg ? (len + mm->seg - 1) / mm->seg : 1;
	}
	wire_udp_gro_follow(u, ndg);
	u->rx_at = 0;
	u->rx_n = (unsigned int)r;
	return (int)(got + wire_udp_hand(u, d + got, n - got));
}

static bool wire_udp_park(struct emu_wire_link *l)
{
	return !((struct wire_link_udp *)l)->rx_n;
}

static int wire_udp_fd(struct emu_wire_link *l)
{
	return ((struct wire_link_udp *)l)->fd;
}

static void wire_udp_destroy(struct emu_wire_link *l)
{
	struct wire_link_udp *u = (struct wire_link_udp *)l;

	close(u->fd);
	free(u->scratch);
	free(u);
}

static const struct emu_wire_link_ops wire_udp_ops = {
	.send = wire_udp_send,
	.recv = wire_udp_recv,
	.park = wire_udp_park,
	.fd = wire_udp_fd,
	.destroy = wire_udp_destroy,
};

struct emu_wire_link *emu_wire_link_udp_create(int fd,
					       const struct emu_wire_ep *local)
{
	struct wire_link_udp *u = calloc(1, sizeof(*u));
	int flags, sz;
	socklen_t sl;

	if (u)
		u->scratch = malloc((size_t)WIRE_UDP_RX_MSGS *
				    WIRE_UDP_MSG_ROOM);
	if (!u || !u->scratch) {
		free(u);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < WIRE_UDP_RX_MSGS; i++)
		wire_udp_rx_ready(u, i);
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
	sl = sizeof(sz);
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, &sl) && sz > 0)
		u->link.window = (uint32_t)sz / 4;
	/* A kernel that knows UDP_SEGMENT answers for it; an older one
	 * would ignore the control message and send one long datagram. */
	sz = 0;
	sl = sizeof(sz);
	u->gso = !getsockopt(fd, SOL_UDP, UDP_SEGMENT, &sz, &sl);
	/* UDP_GRO waits for a stream (wire_udp_gro_follow). */
	u->fd = fd;
	u->link.ops = &wire_udp_ops;
	u->link.local = *local;
	return &u->link;
}
