/* SPDX-License-Identifier: MIT */
/*
 * emu/wire/wire_link_shm.c -- the same-host fast path: datagrams for a
 * tunnel endpoint that another process on this host (in this network
 * namespace) owns go through a ring in shared memory instead of the
 * kernel's UDP path.  Everything else, and everything while no such
 * process answers, goes by the UDP link underneath, which this link owns.
 * The datagrams are the same bytes either way: the port above sees no
 * difference (capture, filters and counters are the port's).
 *
 * Rendezvous.  Each link listens on an abstract Unix socket named after
 * its endpoint ("mlx5emu-wire:127.1.2.3:4789"): no file is left behind,
 * and it goes with the process.  The first datagram for an endpoint
 * connects there; the connecting side creates a sealed memfd holding one
 * ring per direction and passes it, with its own endpoint, in one message
 * (SCM_RIGHTS).  The connection stays open for two things only: its
 * hang-up says the peer is gone (its frames then go by UDP, to nobody,
 * and its QPs time out as on a real fabric), and one byte on it wakes a
 * peer whose engine waits in poll().
 *
 * Rings.  One producer (the sending port, under its engine's run lock),
 * one consumer.  A record is a 32-bit length and the datagram, padded to
 * a cache line; a record never wraps (WIRE_SHM_SKIP fills the end).  The
 * consumer reads each record's length once and trusts nothing of the
 * other process: a position or length out of range ends the connection.
 * When the owner lets it lend (the port does), the consumer hands out the
 * datagrams where they lie and frees their room at its next receive or
 * park; else it copies them out first.  A full ring drops the datagram,
 * as a full socket buffer does.
 *
 * Wake-ups.  Before a thread waits (the engine thread parks, or the
 * application is about to block for an event), the consumer clears the
 * ring's polled time, sets its waiting flag and looks once more; a
 * producer that finds the flag set after publishing takes it and sends
 * the wake-up byte (both sides order these with sequentially consistent
 * accesses, so no wake-up is lost).  But while the consumer's passes look
 * at the ring (the application polls its CQ: each pass stamps polled_ns)
 * nobody needs waking: the producer leaves the parked engine thread
 * asleep, which on two CPUs would otherwise be a third thread competing
 * with two pollers for every message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "emu/wire/wire_int.h"

#define WIRE_SHM_RING (8u << 20)	/* bytes per direction */
#define WIRE_SHM_PEERS 32
#define WIRE_SHM_REC_ALIGN 64u
#define WIRE_SHM_HDR 8u			/* length, flags */
#define WIRE_SHM_F_ICRC_LATER 1u
#define WIRE_SHM_SKIP UINT32_MAX
#define WIRE_SHM_AHEAD (16u << 10)	/* bytes asked for ahead of a pop */
#define WIRE_SHM_MAGIC 0x316d68735f656d75ull
#define WIRE_SHM_RETRY_NS 500000000ull	/* ask a refusing endpoint again */
#define WIRE_SHM_BUSY_NS 20000ull	/* a consumer that looked is looking */
#define WIRE_SHM_EV_LISTEN UINT32_MAX
#define WIRE_SHM_EV_UDP (UINT32_MAX - 1)
#define WIRE_SHM_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

struct wire_shm_ring {
	_Alignas(64) _Atomic uint64_t tail;	/* bytes the producer wrote */
	_Alignas(64) _Atomic uint64_t head;	/* bytes the consumer freed */
	_Alignas(64) _Atomic uint32_t waiting;	/* the consumer may sleep */
	_Atomic uint64_t polled_ns;	/* a pass last looked (0: none will) */
	_Alignas(64) uint8_t data[WIRE_SHM_RING];
};

/* The memfd's contents: [0] carries the connecting side's datagrams. */
struct wire_shm_region {
	uint64_t magic;
	struct wire_shm_ring ring[2];
};

/* What the connecting side sends first, with the memfd. */
struct wire_shm_hello {
	uint64_t magic;
	struct emu_wire_ep ep;
};

enum wire_shm_state {
	WIRE_SHM_FREE = 0,
	WIRE_SHM_HELLO,		/* accepted; its hello not read yet */
	WIRE_SHM_UP,
	WIRE_SHM_REFUSED,	/* nobody listens there: UDP until retry_ns */
};

struct wire_shm_peer {
	enum wire_shm_state state;
	bool tx;		/* the connection datagrams to ep take */
	int sock;
	struct emu_wire_ep ep;
	struct wire_shm_region *reg;
	struct wire_shm_ring *out, *in;
	uint64_t out_pos, in_pos;	/* own copies of tail and head */
	bool lent;		/* head lags in_pos: datagrams handed out */
	uint64_t retry_ns;
};

struct wire_link_shm {
	struct emu_wire_link link;
	struct emu_wire_link *udp;
	int listen_fd, epfd;
	unsigned int next_in;		/* receive fairness */
	bool lent;			/* some peer's lent is set */
	_Atomic uint64_t fast_tx, fast_rx, fast_peers;
	struct wire_shm_peer peer[WIRE_SHM_PEERS];
	struct emu_wire_dgram slow[WIRE_TX_SLOTS * 2];
};

_Static_assert(WIRE_SHM_RING % WIRE_SHM_REC_ALIGN == 0, "ring of records");
_Static_assert(WIRE_SHM_HDR + EMU_WIRE_DGRAM_MAX + WIRE_SHM_REC_ALIGN <=
	       WIRE_SHM_RING / 4, "several datagrams per ring");

static uint64_t wire_shm_rec(uint32_t len)
{
	return ((uint64_t)WIRE_SHM_HDR + len + WIRE_SHM_REC_ALIGN - 1) &
	       ~(uint64_t)(WIRE_SHM_REC_ALIGN - 1);
}

static uint64_t wire_shm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static socklen_t wire_shm_addr(const struct emu_wire_ep *ep,
			       struct sockaddr_un *sa)
{
	char name[64];
	int n;

	emu_wire_ep_format(ep, name, sizeof(name));
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] == 0: the abstract namespace. */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "mlx5emu-wire:%s", name);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

/* ---- peers ---- */

static void wire_shm_peer_drop(struct wire_link_shm *s, struct wire_shm_peer *pe)
{
	if (pe->state == WIRE_SHM_UP)
		atomic_fetch_sub_explicit(&s->fast_peers, 1,
					  memory_order_relaxed);
	if (pe->sock >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, pe->sock, NULL);
		close(pe->sock);
	}
	if (pe->reg)
		munmap(pe->reg, sizeof(*pe->reg));
	memset(pe, 0, sizeof(*pe));
	pe->sock = -1;
}

/* A free slot (or the oldest refusal's). */
static struct wire_shm_peer *wire_shm_slot(struct wire_link_shm *s)
{
	struct wire_shm_peer *old = NULL;

	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++) {
		struct wire_shm_peer *pe = &s->peer[i];

		if (pe->state == WIRE_SHM_FREE)
			return pe;
		if (pe->state == WIRE_SHM_REFUSED &&
		    (!old || pe->retry_ns < old->retry_ns))
			old = pe;
	}
	if (old)
		wire_shm_peer_drop(s, old);
	return old;
}

static int wire_shm_watch(struct wire_link_shm *s, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static bool wire_shm_map(struct wire_shm_peer *pe, int mfd, bool connector)
{
	void *m = mmap(NULL, sizeof(*pe->reg), PROT_READ | PROT_WRITE,
		       MAP_SHARED, mfd, 0);

	if (m == MAP_FAILED)
		return false;
	pe->reg = m;
	pe->out = &pe->reg->ring[connector ? 0 : 1];
	pe->in = &pe->reg->ring[connector ? 1 : 0];
	pe->out_pos = atomic_load(&pe->out->tail);
	pe->in_pos = atomic_load(&pe->in->head);
	return true;
}

/* Connect to the endpoint's listener: true when the ring is up. */
static bool wire_shm_connect(struct wire_link_shm *s, struct wire_shm_peer *pe,
			     const struct emu_wire_ep *ep)
{
	struct wire_shm_hello hello = { .magic = WIRE_SHM_MAGIC };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cm = { 0 };
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.b, .msg_controllen = sizeof(cm.b),
	};
	struct sockaddr_un sa;
	socklen_t salen = wire_shm_addr(ep, &sa);
	int fd, mfd = -1;

	pe->ep = *ep;
	pe->sock = -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen))
		goto refused;
	mfd = memfd_create("mlx5emu-wire", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, sizeof(struct wire_shm_region)) ||
	    fcntl(mfd, F_ADD_SEALS, WIRE_SHM_SEALS) ||
	    !wire_shm_map(pe, mfd, true))
		goto refused;
	pe->reg->magic = WIRE_SHM_MAGIC;
	hello.ep = s->link.local;
	cm.h.cmsg_level = SOL_SOCKET;
	cm.h.cmsg_type = SCM_RIGHTS;
	cm.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&cm.h), &mfd, sizeof(int));
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(hello) ||
	    wire_shm_watch(s, fd, (uint32_t)(pe - s->peer)))
		goto refused;
	close(mfd);
	pe->sock = fd;
	pe->state = WIRE_SHM_UP;
	atomic_fetch_add_explicit(&s->fast_peers, 1, memory_order_relaxed);
	return true;
refused:
	if (mfd >= 0)
		close(mfd);
	if (fd >= 0)
		close(fd);
	if (pe->reg)
		munmap(pe->reg, sizeof(*pe->reg));
	pe->reg = NULL;
	pe->state = WIRE_SHM_REFUSED;
	pe->retry_ns = wire_shm_now() + WIRE_SHM_RETRY_NS;
	return false;
}

/* The peer datagrams for ep go through, NULL for UDP. */
static struct wire_shm_peer *wire_shm_route(struct wire_link_shm *s,
					    const struct emu_wire_ep *ep)
{
	struct wire_shm_peer *up = NULL, *refused = NULL, *pe;

	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++) {
		pe = &s->peer[i];
		if (!pe->state || !emu_wire_ep_eq(&pe->ep, ep))
			continue;
		if (pe->state == WIRE_SHM_UP) {
			if (pe->tx)
				return pe;
			if (!up)
				up = pe;
		} else if (pe->state == WIRE_SHM_REFUSED) {
			refused = pe;
		}
	}
	if (up) {
		/* Both sides may have connected: keep to one ring, so
		 * this direction's datagrams stay in order. */
		up->tx = true;
		return up;
	}
	if (refused) {
		if (wire_shm_now() < refused->retry_ns)
			return NULL;
		pe = refused;
		wire_shm_peer_drop(s, pe);
	} else if (!(pe = wire_shm_slot(s))) {
		return NULL;
	}
	if (!wire_shm_connect(s, pe, ep))
		return NULL;
	pe->tx = true;
	return pe;
}

/* ---- the ring ---- */

static bool wire_shm_push(struct wire_shm_peer *pe, const uint8_t *buf,
			  uint32_t len, uint32_t flags)
{
	struct wire_shm_ring *r = pe->out;
	uint64_t need = wire_shm_rec(len), pos = pe->out_pos;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t off = pos % WIRE_SHM_RING, end = WIRE_SHM_RING - off;
	uint32_t skip = WIRE_SHM_SKIP;

	if (end < need) {
		if (pos + end + need - head > WIRE_SHM_RING)
			return false;
		memcpy(r->data + off, &skip, sizeof(skip));
		pos += end;
		off = 0;
	} else if (pos + need - head > WIRE_SHM_RING) {
		return false;
	}
	memcpy(r->data + off, &len, sizeof(len));
	memcpy(r->data + off + 4, &flags, sizeof(flags));
	memcpy(r->data + off + WIRE_SHM_HDR, buf, len);
	pe->out_pos = pos + need;
	return true;
}

/* Publish what was pushed; wake the consumer if it sleeps. */
static void wire_shm_publish(struct wire_shm_peer *pe)
{
	struct wire_shm_ring *r = pe->out;
	char one = 1;

	atomic_store_explicit(&r->tail, pe->out_pos, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&r->waiting, memory_order_relaxed) &&
	    wire_shm_now() - atomic_load_explicit(&r->polled_ns,
						  memory_order_relaxed) >
	    WIRE_SHM_BUSY_NS &&
	    atomic_exchange(&r->waiting, 0))
		(void)!send(pe->sock, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/*
 * Ask the cache for the ring's bytes [from, to): lent datagrams are read
 * later, a piece at a time, and no copy streams through the ring any
 * more, so each record's length would otherwise be a miss of its own
 * (the line the other CPU wrote), one waiting for the other.
 */
static void wire_shm_prefetch(const struct wire_shm_ring *r, uint64_t from,
			      uint64_t to)
{
	for (uint64_t x = from & ~(uint64_t)(WIRE_SHM_REC_ALIGN - 1); x < to;
	     x += WIRE_SHM_REC_ALIGN)
		__builtin_prefetch(r->data + x % WIRE_SHM_RING);
}

/* Up to n datagrams from one peer's ring, lent (their room stays taken
 * until wire_shm_release) or copied; -1 when it broke the rules. */
static int wire_shm_pop(struct wire_shm_peer *pe, struct emu_wire_dgram *d,
			unsigned int n, bool lend)
{
	struct wire_shm_ring *r = pe->in;
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint64_t pos = pe->in_pos, asked = pos;
	unsigned int got = 0;

	if (tail - pos > WIRE_SHM_RING || (tail - pos) % WIRE_SHM_REC_ALIGN)
		return -1;
	while (pos != tail && got < n) {
		uint64_t off = pos % WIRE_SHM_RING, need;
		uint32_t len, flags;

		if (asked < pos)	/* past a skip */
			asked = pos;
		if (lend && asked < tail && asked - pos < WIRE_SHM_AHEAD) {
			uint64_t to = tail - pos < WIRE_SHM_AHEAD ? tail :
				      pos + WIRE_SHM_AHEAD;

			wire_shm_prefetch(r, asked, to);
			asked = to;
		}

		memcpy(&len, r->data + off, sizeof(len));
		if (len == WIRE_SHM_SKIP) {
			if (WIRE_SHM_RING - off > tail - pos)
				return -1;
			pos += WIRE_SHM_RING - off;
			continue;
		}
		need = wire_shm_rec(len);
		if (len > d[got].len || need > WIRE_SHM_RING - off ||
		    need > tail - pos)
			return -1;
		memcpy(&flags, r->data + off + 4, sizeof(flags));
		if (lend)
			d[got].buf = r->data + off + WIRE_SHM_HDR;
		else
			memcpy(d[got].buf, r->data + off + WIRE_SHM_HDR, len);
		d[got].lent = lend;
		d[got].len = len;
		d[got].icrc_later = flags & WIRE_SHM_F_ICRC_LATER;
		d[got].ep = pe->ep;
		got++;
		pos += need;
	}
	pe->in_pos = pos;
	if (lend)
		pe->lent = true;
	else
		atomic_store_explicit(&r->head, pos, memory_order_release);
	return (int)got;
}

/* The room of the datagrams lent since the last call goes back to the
 * producers: whoever received them is done with them. */
static void wire_shm_release(struct wire_link_shm *s)
{
	if (!s->lent)
		return;
	s->lent = false;
	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++) {
		struct wire_shm_peer *pe = &s->peer[i];

		if (pe->lent && pe->state == WIRE_SHM_UP)
			atomic_store_explicit(&pe->in->head, pe->in_pos,
					      memory_order_release);
		pe->lent = false;
	}
}

static bool wire_shm_pending(const struct wire_shm_peer *pe)
{
	return pe->state == WIRE_SHM_UP &&
	       atomic_load(&pe->in->tail) != pe->in_pos;
}

/* ---- the connections ---- */

static void wire_shm_hello(struct wire_link_shm *s, struct wire_shm_peer *pe);

static void wire_shm_accept(struct wire_link_shm *s)
{
	for (int k = 0; k < 8; k++) {
		int fd = accept4(s->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct wire_shm_peer *pe;

		if (fd < 0)
			return;
		pe = wire_shm_slot(s);
		if (!pe || wire_shm_watch(s, fd, (uint32_t)(pe - s->peer))) {
			close(fd);
			continue;
		}
		pe->sock = fd;
		pe->state = WIRE_SHM_HELLO;
		/* The hello is sent with the connect: usually here already. */
		wire_shm_hello(s, pe);
	}
}

/* The connecting side's hello and memfd: the ring is up, or the
 * connection is dropped (a sender that is not one of ours). */
static void wire_shm_hello(struct wire_link_shm *s, struct wire_shm_peer *pe)
{
	struct wire_shm_hello hello;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.b, .msg_controllen = sizeof(cm.b),
	};
	struct cmsghdr *c;
	struct stat st;
	ssize_t r = recvmsg(pe->sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int mfd = -1;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	c = r == (ssize_t)sizeof(hello) ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&mfd, CMSG_DATA(c), sizeof(int));
	/* The size is sealed, so the mapping cannot be cut under us. */
	if (mfd < 0 || hello.magic != WIRE_SHM_MAGIC ||
	    (msg.msg_flags & MSG_CTRUNC) || fstat(mfd, &st) ||
	    st.st_size != (off_t)sizeof(struct wire_shm_region) ||
	    (fcntl(mfd, F_GET_SEALS) & WIRE_SHM_SEALS) != WIRE_SHM_SEALS ||
	    !wire_shm_map(pe, mfd, false) ||
	    pe->reg->magic != WIRE_SHM_MAGIC) {
		if (mfd >= 0)
			close(mfd);
		wire_shm_peer_drop(s, pe);
		return;
	}
	close(mfd);
	pe->ep = hello.ep;
	pe->ep.family = hello.ep.family == AF_INET6 ? AF_INET6 : AF_INET;
	pe->state = WIRE_SHM_UP;
	atomic_fetch_add_explicit(&s->fast_peers, 1, memory_order_relaxed);
}

/* Wake-up bytes read; a hang-up ends the peer. */
static void wire_shm_drain(struct wire_link_shm *s, struct wire_shm_peer *pe)
{
	char b[64];
	ssize_t r;

	while ((r = recv(pe->sock, b, sizeof(b), MSG_DONTWAIT)) > 0)
		;
	if (r == 0 || (errno != EAGAIN && errno != EINTR))
		wire_shm_peer_drop(s, pe);
}

static void wire_shm_sockets(struct wire_link_shm *s)
{
	struct epoll_event ev[16];
	int k = epoll_wait(s->epfd, ev, 16, 0);

	for (int i = 0; i < k; i++) {
		uint32_t tag = ev[i].data.u32;
		struct wire_shm_peer *pe;

		if (tag == WIRE_SHM_EV_LISTEN) {
			wire_shm_accept(s);
			continue;
		}
		if (tag >= WIRE_SHM_PEERS)
			continue;
		pe = &s->peer[tag];
		if (pe->state == WIRE_SHM_HELLO)
			wire_shm_hello(s, pe);
		else if (pe->state == WIRE_SHM_UP)
			wire_shm_drain(s, pe);
	}
}

/* ---- the link ---- */

static int wire_shm_send(struct emu_wire_link *l, const struct emu_wire_dgram *d,
			 unsigned int n)
{
	struct wire_link_shm *s = (struct wire_link_shm *)l;
	uint64_t touched = 0;
	unsigned int nslow = 0, went = 0, fast = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct wire_shm_peer *pe = wire_shm_route(s, &d[i].ep);

		if (!pe) {
			/* Leaving this host: the frame's ICRC now. */
			if (d[i].icrc_later &&
			    d[i].len > EMU_WIRE_VXLAN_HLEN)
				emu_wire_icrc_put(d[i].buf + EMU_WIRE_VXLAN_HLEN,
						  d[i].len - EMU_WIRE_VXLAN_HLEN);
			if (nslow == sizeof(s->slow) / sizeof(s->slow[0])) {
				int r = s->udp->ops->send(s->udp, s->slow, nslow);

				went += r > 0 ? (unsigned int)r : 0;
				nslow = 0;
			}
			s->slow[nslow] = d[i];
			s->slow[nslow++].icrc_later = false;
			continue;
		}
		if (wire_shm_push(pe, d[i].buf, d[i].len,
				  d[i].icrc_later ? WIRE_SHM_F_ICRC_LATER : 0)) {
			touched |= 1ull << (pe - s->peer);
			went++;
			fast++;
		}
	}
	if (fast)
		wire_count_own(&s->fast_tx, fast);
	for (unsigned int i = 0; touched; i++, touched >>= 1)
		if (touched & 1)
			wire_shm_publish(&s->peer[i]);
	if (nslow) {
		int r = s->udp->ops->send(s->udp, s->slow, nslow);

		went += r > 0 ? (unsigned int)r : 0;
	}
	l->by_sockets |= s->udp->by_sockets;
	s->udp->by_sockets = false;
	return (int)went;
}

static int wire_shm_recv(struct emu_wire_link *l, struct emu_wire_dgram *d,
			 unsigned int n, bool sockets)
{
	struct wire_link_shm *s = (struct wire_link_shm *)l;
	unsigned int got = 0;
	uint64_t now = 0;
	bool dropped = false;

	wire_shm_release(s);
	if (sockets) {
		wire_shm_sockets(s);
		return s->udp->ops->recv(s->udp, d, n, true);
	}
	/* Most passes of a process without peers end here. */
	if (!atomic_load_explicit(&s->fast_peers, memory_order_relaxed))
		return 0;
	for (unsigned int k = 0; k < WIRE_SHM_PEERS && got < n; k++) {
		struct wire_shm_peer *pe = &s->peer[(s->next_in + k) %
						    WIRE_SHM_PEERS];
		int r;

		if (pe->state != WIRE_SHM_UP)
			continue;
		if (!now)
			now = wire_shm_now();
		atomic_store_explicit(&pe->in->polled_ns, now,
				      memory_order_relaxed);
		atomic_thread_fence(memory_order_seq_cst);
		if (!wire_shm_pending(pe))
			continue;
		r = wire_shm_pop(pe, d + got, n - got, l->lend);
		if (r < 0) {
			wire_shm_peer_drop(s, pe);
			dropped = true;	/* it may have written descriptors */
		} else {
			got += (unsigned int)r;
			s->lent |= pe->lent;
		}
	}
	s->next_in = (s->next_in + 1) % WIRE_SHM_PEERS;
	if (got)
		wire_count_own(&s->fast_rx, got);
	return got || !dropped ? (int)got : -EPROTO;
}

static bool wire_shm_park(struct emu_wire_link *l)
{
	struct wire_link_shm *s = (struct wire_link_shm *)l;

	wire_shm_release(s);
	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++) {
		if (s->peer[i].state != WIRE_SHM_UP)
			continue;
		atomic_store(&s->peer[i].in->polled_ns, 0);
		atomic_store(&s->peer[i].in->waiting, 1);
	}
	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++)
		if (wire_shm_pending(&s->peer[i]))
			return false;
	return true;
}

static int wire_shm_fd(struct emu_wire_link *l)
{
	return ((struct wire_link_shm *)l)->epfd;
}

static void wire_shm_destroy(struct emu_wire_link *l)
{
	struct wire_link_shm *s = (struct wire_link_shm *)l;

	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++)
		if (s->peer[i].state)
			wire_shm_peer_drop(s, &s->peer[i]);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->epfd >= 0)
		close(s->epfd);
	s->udp->ops->destroy(s->udp);
	free(s);
}

static void wire_shm_stats(const struct emu_wire_link *l,
			   struct emu_wire_link_stats *st)
{
	struct wire_link_shm *s = (struct wire_link_shm *)l;

	st->fast_tx = atomic_load_explicit(&s->fast_tx, memory_order_relaxed);
	st->fast_rx = atomic_load_explicit(&s->fast_rx, memory_order_relaxed);
	st->fast_peers = atomic_load_explicit(&s->fast_peers,
					      memory_order_relaxed);
}

static const struct emu_wire_link_ops wire_shm_ops = {
	.send = wire_shm_send,
	.recv = wire_shm_recv,
	.park = wire_shm_park,
	.fd = wire_shm_fd,
	.stats = wire_shm_stats,
	.destroy = wire_shm_destroy,
};

struct emu_wire_link *emu_wire_link_shm_create(struct emu_wire_link *udp)
{
	struct wire_link_shm *s = calloc(1, sizeof(*s));
	struct sockaddr_un sa;
	socklen_t salen;
	int fd;

	int err;

	if (!s)
		return NULL;
	s->listen_fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	for (unsigned int i = 0; i < WIRE_SHM_PEERS; i++)
		s->peer[i].sock = -1;
	s->udp = udp;
	s->link.local = udp->local;
	s->link.window = udp->window;
	s->link.icrc_later = true;
	if (s->epfd < 0)
		goto fail;
	fd = udp->ops->fd ? udp->ops->fd(udp) : -1;
	if (fd >= 0 && wire_shm_watch(s, fd, WIRE_SHM_EV_UDP))
		goto fail;
	salen = wire_shm_addr(&udp->local, &sa);
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			      SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0 ||
	    bind(s->listen_fd, (struct sockaddr *)&sa, salen) ||
	    listen(s->listen_fd, 64) ||
	    wire_shm_watch(s, s->listen_fd, WIRE_SHM_EV_LISTEN))
		goto fail;
	s->link.ops = &wire_shm_ops;
	return &s->link;
fail:
	err = errno;
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s);
	errno = err;
	return NULL;
}
