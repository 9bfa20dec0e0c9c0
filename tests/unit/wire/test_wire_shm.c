/* SPDX-License-Identifier: MIT */
/*
 * The same-host fast path (wire_link_shm.c): datagrams between two links
 * of this host go through shared memory, the rest by UDP; the receiving
 * link learns the sender's endpoint from the rendezvous, keeps order
 * across ring wraps, drops what a full ring cannot take, wakes a parked
 * consumer, falls back to UDP when its peer is gone, and survives a peer
 * that writes nonsense into the ring.  The hostile peer below is written
 * from the layout's literal offsets, not from the link's structures.
 */
#include <errno.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu/base/bytes.h"
#include "emu/wire/wire.h"
#include "ut_run.h"
#include "ut_udp.h"

/* The region's layout: a 64-byte header, then two rings of a 64-byte
 * line each for tail, head and (waiting, polled), and 8 MiB of records. */
#define RING_DATA (8u << 20)
#define RING_SZ (192u + RING_DATA)
#define REGION_SZ (64u + 2u * RING_SZ)
#define MAGIC 0x316d68735f656d75ull

static uint8_t buf[32][EMU_WIRE_DGRAM_MAX];

static struct emu_wire_link *link_new(void)
{
	struct emu_wire_ep ep;
	int fd = udp_socket(&ep);
	struct emu_wire_link *u = emu_wire_link_udp_create(fd, &ep), *s;

	ck_assert_ptr_nonnull(u);
	s = emu_wire_link_shm_create(u);
	ck_assert_ptr_nonnull(s);
	ck_assert(emu_wire_ep_eq(&s->local, &ep));
	return s;
}

static int send_n(struct emu_wire_link *l, const struct emu_wire_ep *to,
		  uint32_t first, unsigned int n, uint32_t len)
{
	struct emu_wire_dgram d[32] = { 0 };

	ck_assert_uint_le(n, 32);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t seq = first + i;

		memset(buf[i], (int)(seq & 0xff), len);
		memcpy(buf[i], &seq, 4);
		d[i].ep = *to;
		d[i].buf = buf[i];
		d[i].len = len;
	}
	return l->ops->send(l, d, n);
}

/* Up to n datagrams; each checked against the next sequence number. */
static unsigned int recv_check(struct emu_wire_link *l, bool sockets,
			       const struct emu_wire_ep *from, uint32_t *seq,
			       uint32_t len)
{
	static uint8_t rb[32][EMU_WIRE_DGRAM_MAX];
	struct emu_wire_dgram d[32] = { 0 };
	int r;

	for (unsigned int i = 0; i < 32; i++) {
		d[i].buf = rb[i];
		d[i].len = EMU_WIRE_DGRAM_MAX;
	}
	r = l->ops->recv(l, d, 32, sockets);
	ck_assert_int_ge(r, 0);
	for (int i = 0; i < r; i++) {
		uint32_t got;

		ck_assert_uint_eq(d[i].len, len);
		memcpy(&got, d[i].buf, 4);
		ck_assert_uint_eq(got, *seq);
		ck_assert_uint_eq(d[i].buf[len - 1], *seq & 0xff);
		ck_assert(from && emu_wire_ep_eq(&d[i].ep, from));
		(*seq)++;
	}
	return (unsigned int)r;
}

static struct emu_wire_link_stats stats(const struct emu_wire_link *l)
{
	struct emu_wire_link_stats st;

	l->ops->stats(l, &st);
	return st;
}

START_TEST(same_host_datagrams_take_memory)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	uint32_t seq = 0;

	ck_assert_int_eq(send_n(a, &b->local, 0, 3, 100), 3);
	ck_assert(!a->by_sockets);
	ck_assert_uint_eq(stats(a).fast_tx, 3);
	ck_assert_uint_eq(stats(a).fast_peers, 1);
	/* b learns of the connection on its sockets (nothing came by UDP),
	 * then finds the datagrams in memory, from a's endpoint. */
	ck_assert_uint_eq(recv_check(b, false, &a->local, &seq, 100), 0);
	ck_assert_uint_eq(recv_check(b, true, &a->local, &seq, 100), 0);
	ck_assert_uint_eq(recv_check(b, false, &a->local, &seq, 100), 3);
	ck_assert_uint_eq(stats(b).fast_rx, 3);
	/* The answer takes the same connection back. */
	seq = 7;
	ck_assert_int_eq(send_n(b, &a->local, 7, 2, 60), 2);
	ck_assert_uint_eq(stats(b).fast_peers, 1);
	ck_assert_uint_eq(recv_check(a, false, &b->local, &seq, 60), 2);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

START_TEST(other_endpoints_take_udp)
{
	struct emu_wire_link *a = link_new();
	struct emu_wire_ep cep;
	int c = udp_socket(&cep);
	uint8_t rb[256];

	/* Nobody of ours listens there: plain UDP, and it is remembered. */
	ck_assert_int_eq(send_n(a, &cep, 5, 2, 80), 2);
	ck_assert(a->by_sockets);
	ck_assert_uint_eq(stats(a).fast_tx, 0);
	ck_assert_int_eq(recv(c, rb, sizeof(rb), 0), 80);
	ck_assert_int_eq(rb[0], 5);
	ck_assert_int_eq(recv(c, rb, sizeof(rb), 0), 80);
	ck_assert_int_eq(rb[0], 6);
	ck_assert_uint_eq(stats(a).fast_peers, 0);
	close(c);
	a->ops->destroy(a);
}
END_TEST

/* 12 MiB through an 8 MiB ring, drained as it goes: order kept. */
START_TEST(order_kept_across_wraps)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	uint32_t sent = 0, seq = 0;

	send_n(a, &b->local, sent, 1, 1400);
	sent++;
	recv_check(b, true, &a->local, &seq, 1400);
	while (sent < 9000) {
		int n = send_n(a, &b->local, sent, 16, 1400);

		ck_assert_int_eq(n, 16);
		sent += 16;
		while (seq < sent)
			ck_assert_uint_gt(recv_check(b, false, &a->local,
						     &seq, 1400), 0);
	}
	ck_assert_uint_eq(stats(b).fast_rx, sent);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

/* A ring nobody drains fills; what did not fit is lost (as a full socket
 * buffer loses it), what fit arrives whole and in order. */
START_TEST(full_ring_drops)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	uint32_t sent = 0, went = 0, seq = 0;
	unsigned int got = 0, r;

	for (;;) {
		int n = send_n(a, &b->local, went, 16, 4000);

		sent += 16;
		went += (uint32_t)n;
		if (n < 16)
			break;
		ck_assert_uint_lt(sent, 4096);
	}
	/* 4000 + 8 bytes in 4032-byte records: 2080 of them in 8 MiB. */
	ck_assert_uint_eq(went, 2080);
	recv_check(b, true, &a->local, &seq, 4000);
	while ((r = recv_check(b, false, &a->local, &seq, 4000)))
		got += r;
	ck_assert_uint_eq(got, went);
	/* Room again. */
	ck_assert_int_eq(send_n(a, &b->local, seq, 4, 4000), 4);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

START_TEST(parked_consumer_is_woken)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	uint32_t seq = 0;

	send_n(a, &b->local, 0, 1, 64);
	recv_check(b, true, &a->local, &seq, 64);
	ck_assert_uint_eq(recv_check(b, false, &a->local, &seq, 64), 1);
	/* Nothing waits: b may sleep, and its descriptor is quiet. */
	ck_assert(b->ops->park(b));
	ck_assert(!readable(b->ops->fd(b), 0));
	send_n(a, &b->local, 1, 1, 64);
	ck_assert(readable(b->ops->fd(b), 2000));
	/* Something waits: park says so. */
	ck_assert(!b->ops->park(b));
	recv_check(b, true, &a->local, &seq, 64);
	ck_assert_uint_eq(recv_check(b, false, &a->local, &seq, 64), 1);
	ck_assert(!readable(b->ops->fd(b), 0));
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

START_TEST(gone_peer_falls_back_to_udp)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	struct emu_wire_ep bep = b->local;
	uint32_t seq = 0;

	send_n(a, &bep, 0, 1, 64);
	recv_check(b, true, &a->local, &seq, 64);
	b->ops->destroy(b);
	ck_assert(readable(a->ops->fd(a), 2000));
	recv_check(a, true, &bep, &seq, 64);
	ck_assert_uint_eq(stats(a).fast_peers, 0);
	/* To a dead endpoint by UDP now (lost, as on a fabric). */
	ck_assert_int_eq(send_n(a, &bep, 1, 1, 64), 1);
	ck_assert_uint_eq(stats(a).fast_tx, 1);
	ck_assert(a->by_sockets);
	a->ops->destroy(a);
}
END_TEST

/* A peer of our own making: its hello, then a ring it writes into. */
static int hostile_connect(const struct emu_wire_link *b, uint8_t **region,
			   bool with_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct { uint64_t magic; struct emu_wire_ep ep; } hello = { MAGIC };
	union {
		struct cmsghdr h;
		char c[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	char name[64];
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), mfd;

	emu_wire_ep_format(&b->local, name, sizeof(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)snprintf(sa.sun_path + 1,
					   sizeof(sa.sun_path) - 1,
					   "mlx5emu-wire:%s", name));
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, len), 0);
	mfd = memfd_create("hostile", MFD_ALLOW_SEALING);
	ck_assert_int_eq(ftruncate(mfd, REGION_SZ), 0);
	ck_assert_int_eq(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
			       F_SEAL_SEAL), 0);
	*region = mmap(NULL, REGION_SZ, PROT_READ | PROT_WRITE, MAP_SHARED,
		       mfd, 0);
	ck_assert(*region != MAP_FAILED);
	memcpy(*region, &hello.magic, 8);
	hello.ep.family = AF_INET;
	hello.ep.port = 9;
	hello.ep.addr[0] = 127;
	hello.ep.addr[3] = 9;
	if (with_fd) {
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.c;
		msg.msg_controllen = sizeof(cm.c);
		cm.h.cmsg_level = SOL_SOCKET;
		cm.h.cmsg_type = SCM_RIGHTS;
		cm.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&cm.h), &mfd, sizeof(int));
	}
	ck_assert_int_eq(sendmsg(fd, &msg, 0), (ssize_t)sizeof(hello));
	close(mfd);
	return fd;
}

/* Ring 0 (the connecting side's): tail at +0 of the ring, data at +192. */
static void hostile_put(uint8_t *region, uint64_t off, uint32_t len,
			uint64_t tail)
{
	uint8_t *ring = region + 64;

	memcpy(ring + 192 + off, &len, 4);
	__atomic_store_n((uint64_t *)(void *)ring, tail, __ATOMIC_RELEASE);
}

START_TEST(hostile_peer_is_cut_off)
{
	struct emu_wire_link *b = link_new();
	static const struct { uint32_t len; uint64_t tail; } bad[] = {
		{ 100, 8u << 24 },		/* tail beyond a ring */
		{ 100, 100 },			/* not a whole record */
		{ 1u << 30, 64 },		/* longer than a datagram */
		{ 4000, 64 },			/* longer than what was written */
		{ UINT32_MAX, 64 },		/* skip past what was written */
	};

	static uint8_t rb[EMU_WIRE_DGRAM_MAX];
	struct emu_wire_dgram d[1] = { { .buf = rb,
					 .len = EMU_WIRE_DGRAM_MAX } };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *region;
		uint32_t seq = 0;
		int fd = hostile_connect(b, &region, true);

		recv_check(b, true, NULL, &seq, 0);
		ck_assert_uint_eq(stats(b).fast_peers, 1);
		hostile_put(region, 0, bad[i].len, bad[i].tail);
		/* Nothing came, and the receive says so: it may have
		 * written into the descriptors before it saw the damage. */
		ck_assert_int_eq(b->ops->recv(b, d, 1, false), -EPROTO);
		ck_assert_msg(stats(b).fast_peers == 0, "case %zu", i);
		ck_assert(readable(fd, 2000));	/* b hung up */
		munmap(region, REGION_SZ);
		close(fd);
	}
	b->ops->destroy(b);
}
END_TEST

START_TEST(hello_without_memory_is_refused)
{
	struct emu_wire_link *b = link_new();
	uint8_t *region, c;
	uint32_t seq = 0;
	int fd = hostile_connect(b, &region, false);

	recv_check(b, true, NULL, &seq, 0);
	ck_assert_uint_eq(stats(b).fast_peers, 0);
	ck_assert(readable(fd, 2000));
	ck_assert_int_eq(recv(fd, &c, 1, MSG_DONTWAIT), 0);
	munmap(region, REGION_SZ);
	close(fd);
	b->ops->destroy(b);
}
END_TEST

/* A RoCE frame built with its ICRC left for later, in a datagram. */
static uint32_t later_frame(uint8_t *dgram)
{
	struct emu_wire_roce h = {
		.version = 2, .opcode = 0x04, .pkey = 0xffff, .dqpn = 0x12,
		.psn = 5, .hop_limit = 64, .udp_sport = 0xc000,
		.icrc_later = true,
		.sgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
		.dgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
	};
	uint8_t *f = dgram + EMU_WIRE_VXLAN_HLEN;
	uint32_t len;

	memset(dgram, 0, EMU_WIRE_VXLAN_HLEN);
	memset(f + emu_wire_roce_hlen(&h), 0xab, 40);
	len = emu_wire_roce_build(&h, f, 40);
	ck_assert_uint_gt(len, 0);
	return len + EMU_WIRE_VXLAN_HLEN;
}

/* Between our processes the ICRC stays out (the receiver learns so from
 * the record); a datagram leaving by UDP carries it. */
START_TEST(icrc_left_out_only_in_memory)
{
	struct emu_wire_link *a = link_new(), *b = link_new();
	static uint8_t dg[EMU_WIRE_DGRAM_MAX], rb[EMU_WIRE_DGRAM_MAX];
	struct emu_wire_dgram d = { .buf = dg, .icrc_later = true };
	struct emu_wire_ep cep;
	int c = udp_socket(&cep);
	uint8_t *f = rb + EMU_WIRE_VXLAN_HLEN;
	ssize_t n;

	ck_assert(a->icrc_later);
	d.len = later_frame(dg);
	d.ep = b->local;
	ck_assert_int_eq(a->ops->send(a, &d, 1), 1);
	b->ops->recv(b, &d, 0, true);
	d.buf = rb;
	d.len = sizeof(rb);
	d.icrc_later = false;
	ck_assert_int_eq(b->ops->recv(b, &d, 1, false), 1);
	ck_assert(d.icrc_later);
	ck_assert_uint_eq(emu_get_le32(f + d.len - EMU_WIRE_VXLAN_HLEN - 4), 0);

	d.buf = dg;
	d.len = later_frame(dg);
	d.ep = cep;
	d.icrc_later = true;
	ck_assert_int_eq(a->ops->send(a, &d, 1), 1);
	n = recv(c, rb, sizeof(rb), 0);
	ck_assert_int_eq(n, (ssize_t)d.len);
	ck_assert_uint_eq(emu_get_le32(rb + n - 4),
			  emu_wire_icrc(f, 14, (uint32_t)n - EMU_WIRE_VXLAN_HLEN));
	ck_assert_uint_ne(emu_get_le32(rb + n - 4), 0);
	close(c);
	a->ops->destroy(a);
	b->ops->destroy(b);
}
END_TEST

static Suite *wire_shm_suite(void)
{
	Suite *s = suite_create("wire_shm");
	TCase *tc = tcase_create("shm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, same_host_datagrams_take_memory);
	tcase_add_test(tc, other_endpoints_take_udp);
	tcase_add_test(tc, order_kept_across_wraps);
	tcase_add_test(tc, full_ring_drops);
	tcase_add_test(tc, parked_consumer_is_woken);
	tcase_add_test(tc, gone_peer_falls_back_to_udp);
	tcase_add_test(tc, hostile_peer_is_cut_off);
	tcase_add_test(tc, hello_without_memory_is_refused);
	tcase_add_test(tc, icrc_left_out_only_in_memory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(wire_shm_suite());
}
