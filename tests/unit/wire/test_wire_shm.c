/* SPDX-License-Identifier: MIT */
/*
 * The same-host fast path (wire_link_shm.c): datagrams between two links
 * of this host go through shared memory, the rest by UDP; the receiving
 * link learns the sender's endpoint from the rendezvous, keeps order
 * across ring wraps, drops what a full ring cannot take, wakes a parked
 * consumer, falls back to UDP when its peer is gone, and survives a peer
 * that writes nonsense into the ring, also into datagrams it lends to a
 * port (one that rewrites them while the port works on them).  The
 * hostile peer below is written from the layout's literal offsets, not
 * from the link's structures.
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

/* Ring 0's head (the consumer's), at +64 of the ring. */
static uint64_t hostile_head(const uint8_t *region)
{
	return __atomic_load_n((const uint64_t *)(const void *)(region + 128),
			       __ATOMIC_ACQUIRE);
}

/* A record of the hostile ring: length, flags (1: ICRC left out), then
 * the datagram. */
static void hostile_rec(uint8_t *region, uint64_t off, const uint8_t *dg,
			uint32_t len, uint32_t flags)
{
	uint8_t *at = region + 64 + 192 + off;

	memcpy(at, &len, 4);
	memcpy(at + 4, &flags, 4);
	memcpy(at + 8, dg, len);
}

/* A link that may lend hands out the ring's bytes themselves, and their
 * room goes back only at its next receive or park. */
START_TEST(lent_datagrams_hold_their_room)
{
	struct emu_wire_link *b = link_new();
	static uint8_t dg[4][256], rb[4][EMU_WIRE_DGRAM_MAX];
	struct emu_wire_dgram d[4];
	uint8_t *region;
	uint32_t seq = 0;
	int fd = hostile_connect(b, &region, true);

	b->lend = true;
	recv_check(b, true, NULL, &seq, 0);
	ck_assert_uint_eq(stats(b).fast_peers, 1);
	for (unsigned int i = 0; i < 4; i++) {
		memset(dg[i], 0x30 + (int)i, sizeof(dg[i]));
		hostile_rec(region, 320 * i, dg[i], 250, 0);
	}
	hostile_put(region, 0, 250, 4 * 320);
	for (unsigned int i = 0; i < 4; i++) {
		d[i].buf = rb[i];
		d[i].len = EMU_WIRE_DGRAM_MAX;
	}
	ck_assert_int_eq(b->ops->recv(b, d, 2, false), 2);
	for (unsigned int i = 0; i < 2; i++) {
		ck_assert(d[i].lent);
		ck_assert(d[i].buf != rb[i]);
		ck_assert_uint_eq(d[i].len, 250);
		ck_assert_int_eq(memcmp(d[i].buf, dg[i], 250), 0);
	}
	ck_assert_uint_eq(hostile_head(region), 0);
	/* The next receive frees the first two and lends the others. */
	ck_assert_int_eq(b->ops->recv(b, d, 4, false), 2);
	ck_assert_uint_eq(hostile_head(region), 2 * 320);
	ck_assert_int_eq(memcmp(d[1].buf, dg[3], 250), 0);
	/* Parking frees them too. */
	ck_assert(b->ops->park(b));
	ck_assert_uint_eq(hostile_head(region), 4 * 320);
	/* Without lend the datagrams are copied and freed at once. */
	b->lend = false;
	hostile_rec(region, 4 * 320, dg[0], 250, 0);
	hostile_put(region, 4 * 320, 250, 5 * 320);
	d[0].buf = rb[0];
	d[0].len = EMU_WIRE_DGRAM_MAX;
	ck_assert_int_eq(b->ops->recv(b, d, 4, false), 1);
	ck_assert(!d[0].lent && d[0].buf == rb[0]);
	ck_assert_int_eq(memcmp(rb[0], dg[0], 250), 0);
	ck_assert_uint_eq(hostile_head(region), 5 * 320);
	b->ops->destroy(b);
	munmap(region, REGION_SZ);
	close(fd);
}
END_TEST

/* A port over a link whose peer rewrites lent datagrams while the port
 * parses and delivers them: it must never read outside a datagram, nor
 * hand up a payload reaching past one. */
#define FUZZ_REC 1024u		/* a record: length, flags, datagram */
#define FUZZ_PAY 928u		/* a SEND ONLY's payload */
#define FUZZ_VNI 0x5a5a5a

struct fuzz {
	uint8_t *region;
	uintptr_t base;		/* the port's view of the ring's data */
	uint64_t next;		/* records in the ring, by count */
	uint32_t rng;
	unsigned int taken, seen;
	uint8_t sum;		/* of every payload byte: each one read */
};

static uint32_t fuzz_rand(struct fuzz *z)
{
	z->rng = z->rng * 1103515245u + 12345u;
	return z->rng >> 8;
}

/* Some bytes of the records written so far changed: headers mostly. */
static void fuzz_scribble(struct fuzz *z)
{
	for (unsigned int k = 0; k < 8; k++) {
		uint64_t rec = (z->next - 1 - fuzz_rand(z) % 32) % (RING_DATA /
								      FUZZ_REC);
		uint32_t at = fuzz_rand(z) % 4 ? fuzz_rand(z) % 150 :
						 fuzz_rand(z) % FUZZ_REC;

		z->region[64 + 192 + rec * FUZZ_REC + at] ^=
			(uint8_t)(1u << (fuzz_rand(z) % 8));
	}
}

static void fuzz_roce(void *arg, struct emu_wire_port *p,
		      const struct emu_wire_roce *h, const uint8_t *payload,
		      uint32_t paylen)
{
	struct fuzz *z = arg;
	uintptr_t at = (uintptr_t)payload, rec;

	(void)p;
	(void)h;
	if (!z->base)	/* the first, untouched record: where the ring is */
		z->base = at - (8 + 8 + 14 + 20 + 8 + 12);
	ck_assert_uint_ge(at, z->base);
	rec = (at - z->base) / FUZZ_REC * FUZZ_REC;
	ck_assert_uint_lt(rec, RING_DATA);
	ck_assert_uint_ge(at - z->base, rec + 8 + 8 + 14);
	ck_assert_uint_le(at - z->base + paylen, rec + FUZZ_REC);
	for (uint32_t i = 0; i < paylen; i++)
		z->sum += payload[i];
	z->taken++;
	fuzz_scribble(z);
}

static bool fuzz_eth(void *arg, struct emu_wire_port *p, const uint8_t *f,
		     uint32_t len)
{
	struct fuzz *z = arg;

	(void)p;
	(void)f;
	(void)len;
	z->seen++;
	return false;
}

START_TEST(port_survives_rewritten_lent_datagrams)
{
	struct emu_wire_link *b = link_new();
	struct emu_wire_port_cfg cfg = {
		.name = "fuzz", .vni = FUZZ_VNI, .mac = { 2, 0xc9, 0, 0, 0, 1 },
	};
	struct emu_wire_roce h = {
		.version = 2, .opcode = 0x04, .pkey = 0xffff, .dqpn = 0x12,
		.hop_limit = 64, .udp_sport = 0xc000, .icrc_later = true,
		.dmac = { 2, 0xc9, 0, 0, 0, 1 }, .smac = { 2, 0xc9, 0, 0, 0, 2 },
		.sgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
		.dgid = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
	};
	static const struct emu_wire_rx_ops ops = {
		.roce = fuzz_roce, .eth = fuzz_eth,
	};
	static uint8_t dg[FUZZ_REC];
	struct emu_wire_port_stats st;
	struct emu_wire_port *p;
	struct fuzz z = { .rng = 7 };
	uint32_t len;
	int fd = hostile_connect(b, &z.region, true);

	p = emu_wire_port_create(&cfg, b);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(emu_wire_rx(p, &ops, &z, 32, 0, true), 0);
	emu_put_be32(dg, 0x08000000u);
	emu_put_be32(dg + 4, FUZZ_VNI << 8);
	len = emu_wire_roce_build(&h, dg + 8, FUZZ_PAY) + 8;
	ck_assert_uint_le(8 + len, FUZZ_REC);
	/* Rounds of 32 records, many times round the ring; each record
	 * written whole, then (the batch received: lengths read) rewritten
	 * at random while the port works on it. */
	for (unsigned int round = 0; round < 1200; round++) {
		for (unsigned int i = 0; i < 32; i++, z.next++) {
			uint64_t off = z.next % (RING_DATA / FUZZ_REC) *
				       FUZZ_REC;

			h.psn = (uint32_t)z.next & 0xffffff;
			emu_wire_roce_build(&h, dg + 8, FUZZ_PAY);
			hostile_rec(z.region, off, dg, len, 1);
		}
		__atomic_store_n((uint64_t *)(void *)(z.region + 64),
				 z.next * FUZZ_REC, __ATOMIC_RELEASE);
		emu_wire_rx(p, &ops, &z, 32, 0, false);
		ck_assert(emu_wire_port_park(p));
		ck_assert_uint_eq(hostile_head(z.region), z.next * FUZZ_REC);
	}
	emu_wire_port_stats(p, &st);
	ck_assert_uint_eq(st.link.fast_rx, z.next);
	ck_assert_uint_eq(st.link.fast_peers, 1);
	/* Most went up; the rest were dropped for a reason. */
	ck_assert_uint_gt(z.taken, z.next / 2);
	ck_assert_uint_lt(z.taken, z.next);
	emu_wire_port_destroy(p);
	munmap(z.region, REGION_SZ);
	close(fd);
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
	tcase_add_test(tc, lent_datagrams_hold_their_room);
	tcase_add_test(tc, port_survives_rewritten_lent_datagrams);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(wire_shm_suite());
}
