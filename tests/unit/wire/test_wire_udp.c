/* SPDX-License-Identifier: MIT */
/*
 * The UDP link (wire_link_udp.c): runs of datagrams go to the kernel as
 * segmented messages and come back coalesced, yet every receiver sees the
 * same datagrams as if each had been sent alone: the link's peer (which
 * splits coalesced messages, also across calls), a plain socket without
 * UDP_GRO (the kernel splits them), and a sender whose kernel refuses to
 * segment (the link sends them one by one).  Which datagrams form a run is
 * checked on the grouping function itself, and that runs go only to
 * endpoints the link has heard from.  A link turns UDP_GRO on when reads
 * find runs and off after many reads of one datagram each.
 */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "emu/wire/wire_int.h"
#include "ut_run.h"
#include "ut_udp.h"

#define MAXD 256
#define DLEN 1100

static uint8_t txb[MAXD][DLEN];
static uint8_t rxb[MAXD][EMU_WIRE_DGRAM_MAX];

struct batch {
	struct emu_wire_dgram d[MAXD];
	unsigned int n;
};

static struct emu_wire_link *link_over(int fd, const struct emu_wire_ep *ep)
{
	struct emu_wire_link *l = emu_wire_link_udp_create(fd, ep);

	ck_assert_ptr_nonnull(l);
	return l;
}

static struct emu_wire_link *link_new(void)
{
	struct emu_wire_ep ep;
	int fd = udp_socket(&ep);

	return link_over(fd, &ep);
}

/* Whether this kernel segments at all (else only the datagrams count). */
static bool kernel_gso(void)
{
	struct emu_wire_ep ep;
	int fd = udp_socket(&ep), v = 0;
	socklen_t l = sizeof(v);
	bool ok = !getsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, &l);

	close(fd);
	return ok;
}

/* Byte j of datagram i of a batch tagged t. */
static uint8_t pat(unsigned int t, unsigned int i, unsigned int j)
{
	return (uint8_t)(t * 131u + i * 7u + j);
}

static void add(struct batch *b, const struct emu_wire_ep *to, uint32_t len,
		unsigned int tag)
{
	unsigned int i = b->n++;

	ck_assert_uint_lt(i, MAXD);
	ck_assert_uint_le(len, DLEN);
	for (uint32_t j = 0; j < len; j++)
		txb[i][j] = pat(tag, i, j);
	b->d[i].ep = *to;
	b->d[i].buf = txb[i];
	b->d[i].len = len;
}

/* Descriptors d[0..n) ready for a receive. */
static void rx_ready(struct emu_wire_dgram *d, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		d[i].buf = rxb[i];
		d[i].len = EMU_WIRE_DGRAM_MAX;
	}
}

/* One datagram from a socket to a link, which takes it. */
static void hear(struct emu_wire_link *to, int fd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(to->local.port) };
	struct pollfd pfd = { .fd = to->ops->fd(to), .events = POLLIN };
	struct emu_wire_dgram d;

	memcpy(&sa.sin_addr, to->local.addr, 4);
	ck_assert_int_eq(sendto(fd, "hello", 5, 0, (struct sockaddr *)&sa,
				sizeof(sa)), 5);
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	rx_ready(&d, 1);
	ck_assert_int_eq(to->ops->recv(to, &d, 1, true), 1);
	ck_assert_uint_eq(d.len, 5);
}

/* to hears from from's endpoint: from may send it runs from now on. */
static void introduce(struct emu_wire_link *from, struct emu_wire_link *to)
{
	hear(to, from->ops->fd(from));
}

/* The RoCE shape of a 64 KiB WRITE at a 1024-byte path MTU. */
static void roce_write(struct batch *b, const struct emu_wire_ep *to,
		       unsigned int tag)
{
	add(b, to, 1040, tag);
	for (unsigned int i = 0; i < 62; i++)
		add(b, to, 1028, tag);
	add(b, to, 500, tag);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Receives want datagrams from l, at most per at a time, and checks each
 * against the batch's datagrams for l's endpoint, in order. */
static void expect(struct emu_wire_link *l, const struct batch *b,
		   unsigned int tag, unsigned int per,
		   const struct emu_wire_ep *from)
{
	unsigned int next = 0, want = 0;
	uint64_t end = now_ms() + 3000;

	for (unsigned int i = 0; i < b->n; i++)
		want += emu_wire_ep_eq(&b->d[i].ep, &l->local);
	while (want) {
		struct emu_wire_dgram d[MAXD];
		struct pollfd pfd = { .fd = l->ops->fd(l), .events = POLLIN };
		int r;

		rx_ready(d, per);
		r = l->ops->recv(l, d, per, true);
		ck_assert_int_ge(r, 0);
		ck_assert_uint_le(r, per);
		for (int k = 0; k < r; k++) {
			while (!emu_wire_ep_eq(&b->d[next].ep, &l->local))
				next++;
			ck_assert_uint_eq(d[k].len, b->d[next].len);
			for (uint32_t j = 0; j < d[k].len; j++)
				ck_assert_uint_eq(d[k].buf[j],
						  pat(tag, next, j));
			ck_assert(emu_wire_ep_eq(&d[k].ep, from));
			next++;
			want--;
		}
		if (!r) {
			ck_assert_uint_lt(now_ms(), end);
			(void)poll(&pfd, 1, 100);
		}
	}
}

/* Nothing more than the batch arrived. */
static void expect_quiet(struct emu_wire_link *l)
{
	struct emu_wire_dgram d = { .buf = rxb[0], .len = EMU_WIRE_DGRAM_MAX };

	usleep(20000);
	ck_assert_int_eq(l->ops->recv(l, &d, 1, true), 0);
	ck_assert(l->ops->park(l));
}

START_TEST(runs_of_one_length)
{
	struct emu_wire_ep a = { .family = AF_INET, .port = 1,
				 .addr = { 127, 0, 0, 1 } };
	struct emu_wire_ep c = a;
	static struct batch b;

	c.port = 2;
	b.n = 0;
	ck_assert_uint_eq(wire_udp_run(b.d, 0, 64), 0);
	/* The WRITE: its longer first packet and the next one, then the
	 * remaining 61 with the short last. */
	roce_write(&b, &a, 0);
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 64), 2);
	ck_assert_uint_eq(wire_udp_run(b.d + 2, b.n - 2, 64), 62);
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 0), 0);
	ck_assert_uint_eq(wire_udp_run(b.d + 2, b.n - 2, 5), 5);
	ck_assert_uint_eq(wire_udp_run(b.d + 63, 1, 64), 1);
	/* At most 64 datagrams, and no more bytes than one datagram. */
	b.n = 0;
	for (unsigned int i = 0; i < 100; i++)
		add(&b, &a, 1000, 0);
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 200), WIRE_UDP_GSO_SEGS);
	ck_assert_uint_eq(wire_udp_run(b.d + 64, b.n - 64, 200), 36);
	for (unsigned int i = 0; i < 100; i++)
		b.d[i].len = 1028;
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 200), 63);
	/* Another endpoint, a longer datagram or an empty one ends it. */
	b.d[3].ep = c;
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 64), 3);
	b.d[3].ep = a;
	b.d[5].len = 1029;
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 64), 5);
	b.d[5].len = 0;
	ck_assert_uint_eq(wire_udp_run(b.d, b.n, 64), 5);
	ck_assert_uint_eq(wire_udp_run(b.d + 5, b.n - 5, 64), 1);
}
END_TEST

START_TEST(peer_link_gets_each_datagram)
{
	struct emu_wire_link *a = link_new(), *b = link_new(), *c = link_new();
	static struct batch x;
	static const struct { bool to_c; uint32_t len; } mix[] = {
		{ false, 1028 }, { false, 1028 }, { true, 1028 },
		{ true, 1028 }, { true, 700 }, { false, 1028 },
		{ true, 60 }, { false, 1028 }, { false, 1028 },
		{ false, 1028 }, { true, 1028 }, { false, 12 },
	};

	introduce(b, a);
	introduce(c, a);
	/* One WRITE: a message in two runs, taken 32 and then 5 at a time
	 * (what does not fit stays in the link). */
	x.n = 0;
	roce_write(&x, &b->local, 1);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	ck_assert(a->by_sockets);
	expect(b, &x, 1, 32, &a->local);
	expect_quiet(b);
	x.n = 0;
	roce_write(&x, &b->local, 2);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	expect(b, &x, 2, 5, &a->local);
	expect_quiet(b);
	/* Interleaved destinations. */
	x.n = 0;
	for (unsigned int r = 0; r < 4; r++)
		for (unsigned int i = 0; i < sizeof(mix) / sizeof(mix[0]); i++)
			add(&x, mix[i].to_c ? &c->local : &b->local,
			    mix[i].len, 3);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	expect(b, &x, 3, 32, &a->local);
	expect(c, &x, 3, 32, &a->local);
	expect_quiet(b);
	expect_quiet(c);
	/* More than one call's worth: 200 datagrams, several messages. */
	x.n = 0;
	for (unsigned int i = 0; i < 200; i++)
		add(&x, &b->local, i % 50 == 49 ? 300 : 1028, 4);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	expect(b, &x, 4, 32, &a->local);
	expect_quiet(b);
	a->ops->destroy(a);
	b->ops->destroy(b);
	c->ops->destroy(c);
}
END_TEST

/* UDP_GRO as the kernel has it on l's socket. */
static int gro_of(struct emu_wire_link *l)
{
	int v = -1;
	socklen_t sl = sizeof(v);

	ck_assert_int_eq(getsockopt(l->ops->fd(l), SOL_UDP, UDP_GRO, &v, &sl), 0);
	return v;
}

/* a sends b n datagrams of len bytes (tag); b reads them all, at most per
 * at a time. */
static void stream(struct emu_wire_link *a, struct emu_wire_link *b,
		   unsigned int n, uint32_t len, unsigned int per,
		   unsigned int tag)
{
	static struct batch x;

	x.n = 0;
	for (unsigned int i = 0; i < n; i++)
		add(&x, &b->local, len, tag);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	expect(b, &x, tag, per, &a->local);
	expect_quiet(b);
}

START_TEST(gro_follows_the_traffic)
{
	struct emu_wire_link *a = link_new(), *b = link_new();

	if (!kernel_gso())
		return;
	introduce(b, a);
	/* A new link waits for a stream: lone datagrams arrive sooner
	 * through a socket without UDP_GRO. */
	ck_assert_int_eq(gro_of(b), 0);
	stream(a, b, 3, 1028, 8, 1);
	ck_assert_int_eq(gro_of(b), 0);
	/* A read that finds a run turns it on... */
	stream(a, b, 20, 1028, 8, 2);
	ck_assert_int_eq(gro_of(b), 1);
	/* ...and reads of one datagram each, 256 in a row, off again. */
	for (unsigned int i = 0; i < 255; i++)
		stream(a, b, 1, 100, 1, 3);
	ck_assert_int_eq(gro_of(b), 1);
	stream(a, b, 1, 100, 1, 3);
	ck_assert_int_eq(gro_of(b), 0);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

START_TEST(coalesced_datagrams_wait_in_the_link)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	struct emu_wire_dgram d[8];
	static struct batch x;
	struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };
	int r;

	if (!kernel_gso())
		return;
	introduce(b, a);
	stream(a, b, 20, 1028, 8, 6);	/* UDP_GRO on: a stream came */
	ck_assert_int_eq(gro_of(b), 1);
	x.n = 0;
	for (unsigned int i = 0; i < 20; i++)
		add(&x, &b->local, 1028, 5);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), 20);
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	rx_ready(d, 8);
	/* On loopback the run arrives as one message: 4 now, and the rest
	 * without a system call, as the engine's every pass looks. */
	ck_assert_int_eq(b->ops->recv(b, d, 4, true), 4);
	ck_assert(!b->ops->park(b));
	rx_ready(d, 8);
	r = b->ops->recv(b, d, 8, false);
	ck_assert_int_eq(r, 8);
	for (int k = 0; k < r; k++) {
		ck_assert_uint_eq(d[k].len, 1028);
		ck_assert_uint_eq(d[k].buf[0], pat(5, 4 + (unsigned int)k, 0));
		ck_assert_uint_eq(d[k].buf[1027],
				  pat(5, 4 + (unsigned int)k, 1027));
	}
	r = b->ops->recv(b, d, 8, false);
	ck_assert_int_eq(r, 8);
	ck_assert_uint_eq(d[7].buf[9], pat(5, 19, 9));
	ck_assert(b->ops->park(b));
	ck_assert_int_eq(b->ops->recv(b, d, 8, false), 0);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

/* One message from a socket with UDP_GRO: its length, and its segment
 * size in seg (0: a single datagram). */
static ssize_t gro_recv(int fd, uint32_t *seg)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { .iov_base = txb, .iov_len = sizeof(txb) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cm.buf,
			    .msg_controllen = sizeof(cm.buf) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t r;

	*seg = 0;
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	r = recvmsg(fd, &h, MSG_DONTWAIT);
	for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		int v;

		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			*seg = (uint32_t)v;
		}
	}
	return r;
}

START_TEST(runs_only_to_endpoints_heard_from)
{
	static uint8_t run[8][1028];
	struct emu_wire_link *a = link_new();
	struct emu_wire_dgram d[8];
	struct emu_wire_ep pe;
	int p = udp_socket(&pe), one = 1;
	uint32_t seg;

	if (!kernel_gso())
		return;
	/* A socket that takes runs whole, as a Linux vxlan netdev's does,
	 * but has not sent from its port: one datagram per message. */
	ck_assert_int_eq(setsockopt(p, SOL_UDP, UDP_GRO, &one, sizeof(one)),
			 0);
	for (unsigned int i = 0; i < 8; i++) {
		d[i].ep = pe;
		d[i].buf = run[i];
		d[i].len = sizeof(run[i]);
	}
	ck_assert_int_eq(a->ops->send(a, d, 8), 8);
	for (unsigned int i = 0; i < 8; i++) {
		ck_assert_int_eq(gro_recv(p, &seg), 1028);
		ck_assert_uint_eq(seg, 0);
	}
	/* Once it has: the run is one message. */
	hear(a, p);
	ck_assert_int_eq(a->ops->send(a, d, 8), 8);
	ck_assert_int_eq(gro_recv(p, &seg), 8 * 1028);
	ck_assert_uint_eq(seg, 1028);
	close(p);
	a->ops->destroy(a);
}
END_TEST

START_TEST(plain_socket_gets_each_datagram)
{
	struct emu_wire_link *a = link_new();
	struct emu_wire_ep pe;
	int p = udp_socket(&pe);
	static struct batch x;
	struct pollfd pfd = { .fd = p, .events = POLLIN };

	x.n = 0;
	roce_write(&x, &pe, 6);
	add(&x, &pe, 1028, 6);
	add(&x, &pe, 1028, 6);
	hear(a, p);
	ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
	for (unsigned int i = 0; i < x.n; i++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t r;

		ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
		r = recvfrom(p, rxb[0], sizeof(rxb[0]), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
		ck_assert_int_eq(r, (ssize_t)x.d[i].len);
		ck_assert_uint_eq(ntohs(from.sin_port), a->local.port);
		for (uint32_t j = 0; j < x.d[i].len; j++)
			ck_assert_uint_eq(rxb[0][j], pat(6, i, j));
	}
	ck_assert_int_lt(recv(p, rxb[0], sizeof(rxb[0]), MSG_DONTWAIT), 0);
	ck_assert_int_eq(errno, EAGAIN);
	close(p);
	a->ops->destroy(a);
}
END_TEST

START_TEST(refused_segmentation_sends_one_by_one)
{
	struct emu_wire_link *a, *b = link_new();
	struct emu_wire_ep ae;
	int fd = udp_socket(&ae), one = 1;
	static struct batch x;

	/* A socket without checksums may not segment: the kernel says
	 * EINVAL, and nothing of the refused call may be lost. */
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one,
				    sizeof(one)), 0);
	a = link_over(fd, &ae);
	introduce(b, a);
	for (unsigned int t = 7; t < 9; t++) {
		x.n = 0;
		roce_write(&x, &b->local, t);
		ck_assert_int_eq(a->ops->send(a, x.d, x.n), (int)x.n);
		expect(b, &x, t, 32, &a->local);
		expect_quiet(b);
	}
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

START_TEST(too_long_for_a_frame_is_dropped)
{
	struct emu_wire_link *b = link_new();
	struct emu_wire_ep pe;
	int p = udp_socket(&pe);
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(b->local.port) };
	static uint8_t big[EMU_WIRE_DGRAM_MAX + 100];
	struct emu_wire_dgram d[2];
	struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };

	memcpy(&to.sin_addr, b->local.addr, 4);
	ck_assert_int_eq(sendto(p, big, sizeof(big), 0, (struct sockaddr *)&to,
				sizeof(to)), (ssize_t)sizeof(big));
	ck_assert_int_eq(sendto(p, big, 10, 0, (struct sockaddr *)&to,
				sizeof(to)), 10);
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	usleep(10000);
	rx_ready(d, 2);
	ck_assert_int_eq(b->ops->recv(b, d, 2, true), 2);
	ck_assert_uint_eq(d[0].len, 0);
	ck_assert_uint_eq(d[1].len, 10);
	ck_assert_uint_eq(d[1].ep.port, pe.port);
	close(p);
	b->ops->destroy(b);
}
END_TEST

static Suite *wire_udp_suite(void)
{
	Suite *s = suite_create("wire_udp");
	TCase *tc = tcase_create("udp");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runs_of_one_length);
	tcase_add_test(tc, peer_link_gets_each_datagram);
	tcase_add_test(tc, coalesced_datagrams_wait_in_the_link);
	tcase_add_test(tc, gro_follows_the_traffic);
	tcase_add_test(tc, runs_only_to_endpoints_heard_from);
	tcase_add_test(tc, plain_socket_gets_each_datagram);
	tcase_add_test(tc, refused_segmentation_sends_one_by_one);
	tcase_add_test(tc, too_long_for_a_frame_is_dropped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(wire_udp_suite());
}
