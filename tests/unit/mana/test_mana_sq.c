/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's send queue engine (mana_sq.c, mana_wq.c, mana_cqs.c): WQEs
 * written byte by byte into a ring, frames checked byte for byte against
 * what the test put in the buffers, checksums against an RFC 1071 sum
 * computed here, CQEs read at literal offsets.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mana_qtest.h"
#include "ut_run.h"

enum {
	RING = 4096, NCQE = 64, SQ_ID = 0x2c05, CQ_ID = 0x77, VP = 3,
	LKEY = 0x100, MTU = 1500, NFRAMES = 8, FMAX = 2048,
};

static uint8_t *ring, *cqbuf, *data;
static uint32_t prod;
static struct mana_cqs cq;
static struct mana_sq sq;
static struct qt_mrs mrs;
static struct mana_mkeys mk = { qt_check, &mrs };

static uint8_t frames[NFRAMES][FMAX];
static uint32_t flen[NFRAMES];
static unsigned int nframes;

static void emit(void *arg, const uint8_t *f, uint32_t len)
{
	ck_assert_ptr_eq(arg, &nframes);
	ck_assert_uint_le(len, FMAX);
	/* the first NFRAMES are kept, all are counted */
	if (nframes < NFRAMES) {
		memcpy(frames[nframes], f, len);
		flen[nframes] = len;
	}
	nframes++;
}

static void setup(void)
{
	ring = aligned_alloc(4096, RING);
	cqbuf = aligned_alloc(4096, NCQE * 64);
	data = aligned_alloc(4096, 65536);
	ck_assert(ring && cqbuf && data);
	memset(ring, 0, RING);
	memset(cqbuf, 0, NCQE * 64);
	memset(data, 0, 65536);
	prod = 0;
	nframes = 0;
	memset(&mrs, 0, sizeof(mrs));
	qt_mr_add(&mrs, LKEY, data, 65536, false);
	mana_cqs_init(&cq, cqbuf, NCQE, CQ_ID, NULL, NULL);
	ck_assert_int_eq(mana_sq_init(&sq, ring, RING, SQ_ID, VP, MTU, &cq), 0);
}

static void teardown(void)
{
	mana_sq_fini(&sq);
	free(ring);
	free(cqbuf);
	free(data);
}

/* The short OOB's two dwords: flags bits 2-7, vcq_num, trans_off,
 * vsq_frame (the SQ id's bits 23:10), short_vp_offset. */
static void oob_short(uint32_t oob[2], uint32_t flags, uint32_t trans_off)
{
	oob[0] = flags | (uint32_t)CQ_ID << 8;
	oob[1] = trans_off | (uint32_t)(SQ_ID >> 10) << 10 | (uint32_t)VP << 24;
}

enum { F_IPV4 = 1 << 2, F_IPCS = 1 << 4, F_TCPCS = 1 << 5, F_UDPCS = 1 << 6,
       F_SUPP = 1 << 7 };

/* One WQE, short OOB, the given SGEs. */
static uint32_t post(uint32_t flags, const struct qt_sge *sge, unsigned int n)
{
	uint32_t oob[2];

	oob_short(oob, flags, 0);
	return qt_post(ring, RING, &prod, oob, 2, 0, sge, n);
}

static void fill(uint8_t *p, uint32_t n, uint8_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

START_TEST(one_sge_frame)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	uint32_t off;

	fill(data, 60, 1);
	off = post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(nframes, 1);
	ck_assert_uint_eq(flen[0], 60);
	ck_assert_mem_eq(frames[0], data, 60);
	/* one TX_OKAY CQE for the SQ, lap 1 */
	ck_assert_uint_eq(cq.produced, 1);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 32);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0);
	ck_assert_uint_eq(qt_cqe_wq(qt_cqe(cqbuf, 0)), SQ_ID);
	ck_assert_uint_eq(qt_cqe_is_sq(qt_cqe(cqbuf, 0)), 1);
	ck_assert_uint_eq(qt_cqe_owner(qt_cqe(cqbuf, 0)), 1);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 0) + 8), off);
	ck_assert_uint_eq(sq.head_bu * 32, prod);
	/* nothing more posted */
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 0);
}
END_TEST

START_TEST(three_sges_gathered)
{
	struct qt_sge s[3] = {
		qt_sge_of(data + 100, LKEY, 14),
		qt_sge_of(data + 1000, LKEY, 30),
		qt_sge_of(data + 5000, LKEY, 20),
	};

	fill(data + 100, 14, 7);
	fill(data + 1000, 30, 50);
	fill(data + 5000, 20, 99);
	post(0, s, 3);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], 64);
	ck_assert_mem_eq(frames[0], data + 100, 14);
	ck_assert_mem_eq(frames[0] + 14, data + 1000, 30);
	ck_assert_mem_eq(frames[0] + 44, data + 5000, 20);
}
END_TEST

START_TEST(sgl_wraps)
{
	struct qt_sge one = qt_sge_of(data, LKEY, 20);
	struct qt_sge s[3] = {
		qt_sge_of(data + 200, LKEY, 16),
		qt_sge_of(data + 300, LKEY, 17),
		qt_sge_of(data + 400, LKEY, 18),
	};
	uint32_t off;

	fill(data, 20, 3);
	fill(data + 200, 16, 11);
	fill(data + 300, 17, 22);
	fill(data + 400, 18, 33);
	/* 127 one-unit WQEs, then a two-unit one in the last unit: its first
	 * SGE ends the ring, the other two are at bytes 0 and 16 */
	for (int i = 0; i < 127; i++)
		post(F_SUPP, &one, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 200, &mk, emit, &nframes), 127);
	ck_assert_uint_eq(nframes, 127);
	nframes = 0;
	off = post(0, s, 3);
	ck_assert_uint_eq(off, RING - 32);
	ck_assert_uint_eq(get32le(ring + 0 + 12), 17);
	ck_assert_uint_eq(get32le(ring + 16 + 12), 18);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(sq.tail, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], 51);
	ck_assert_mem_eq(frames[0], data + 200, 16);
	ck_assert_mem_eq(frames[0] + 16, data + 300, 17);
	ck_assert_mem_eq(frames[0] + 33, data + 400, 18);
	/* the 127 suppressed WQEs are retired by this one CQE */
	ck_assert_uint_eq(cq.produced, 1);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 0) + 8), RING - 32);
	ck_assert_uint_eq(sq.head_bu, 129);
}
END_TEST

START_TEST(dummy_sge_skipped)
{
	struct qt_sge s[3] = {
		qt_sge_of(data, LKEY, 40),
		{ 1, 0, 0 },
		qt_sge_of(data + 64, LKEY, 24),
	};

	fill(data, 128, 5);
	post(0, s, 3);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], 64);
	ck_assert_mem_eq(frames[0], data, 40);
	ck_assert_mem_eq(frames[0] + 40, data + 64, 24);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 32);
}
END_TEST

START_TEST(bad_lkey_error_then_next)
{
	struct qt_sge bad = qt_sge_of(data, LKEY + 1, 60);
	struct qt_sge range = qt_sge_of(data + 65500, LKEY, 60);
	struct qt_sge good = qt_sge_of(data, LKEY, 60);
	uint32_t o1, o2, o3;

	fill(data, 60, 9);
	o1 = post(0, &bad, 1);
	o2 = post(0, &range, 1);
	o3 = post(0, &good, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 3);
	ck_assert_uint_eq(nframes, 1);
	ck_assert_mem_eq(frames[0], data, 60);
	ck_assert_uint_eq(cq.produced, 3);
	/* TX_INVALID_OOB (35) with the message ATB vendor error 0x207 */
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 35);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0x207);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 0) + 8), o1);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 1)), 35);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 1) + 8), o2);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 2)), 32);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 2) + 8), o3);
	ck_assert_uint_eq(sq.st.errors, 2);
}
END_TEST

START_TEST(suppression)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	struct qt_sge bad = qt_sge_of(data, 0xdead, 60);
	uint32_t last, err;

	for (int i = 0; i < 3; i++)
		post(F_SUPP, &s, 1);
	last = post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 4);
	ck_assert_uint_eq(nframes, 4);
	ck_assert_uint_eq(cq.produced, 1);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 0) + 8), last);
	ck_assert_uint_eq(sq.st.suppressed, 3);
	/* an error under suppression still gets its CQE */
	post(F_SUPP, &s, 1);
	err = post(F_SUPP, &bad, 1);
	post(F_SUPP, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 3);
	ck_assert_uint_eq(cq.produced, 2);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 1)), 35);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 1) + 8), err);
}
END_TEST

START_TEST(oob_names_other_queue)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	uint32_t oob[2];

	oob_short(oob, 0, 0);
	oob[0] = (uint32_t)(CQ_ID + 1) << 8;		/* another CQ */
	qt_post(ring, RING, &prod, oob, 2, 0, &s, 1);
	oob_short(oob, 0, 0);
	oob[1] ^= 1u << 10;				/* another SQ */
	qt_post(ring, RING, &prod, oob, 2, 0, &s, 1);
	oob_short(oob, 0, 0);
	oob[1] = (oob[1] & 0xffffff) | (uint32_t)(VP + 1) << 24;	/* another vPort */
	qt_post(ring, RING, &prod, oob, 2, 0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 3);
	ck_assert_uint_eq(nframes, 0);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 35);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 1)), 35);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 2)), 39);
}
END_TEST

/* The frame's IPv4 header checksum and L4 checksum hold (sums to 0xffff). */
static void assert_csums(const uint8_t *f, uint32_t len, uint8_t proto)
{
	const uint8_t *ip = f + 14;
	uint32_t l4len = qt_be16(ip + 2) - 20u;

	ck_assert_uint_eq(len, 14 + 20 + l4len);
	ck_assert_uint_eq(qt_fold(qt_sum(0, ip, 20)), 0xffff);
	ck_assert_uint_eq(qt_fold(qt_sum(qt_pseudo4(ip, proto, l4len), f + 34, l4len)),
			  0xffff);
}

START_TEST(tcp_checksum_completion)
{
	uint8_t *f = data;
	uint32_t len = qt_frame4(f, true, 101), oob[2];
	uint8_t want[2];
	uint32_t s;
	struct qt_sge sg[2] = { qt_sge_of(f, LKEY, 54), qt_sge_of(f + 54, LKEY, len - 54) };

	/* the checksum a sender computes from scratch, over a zeroed field */
	{
		uint8_t c[2048];

		memcpy(c, f, len);
		c[50] = c[51] = 0;
		s = (uint16_t)~qt_fold(qt_sum(qt_pseudo4(c + 14, 6, len - 34), c + 34, len - 34));
		qt_put16(want, (uint16_t)s);
	}
	oob_short(oob, F_IPV4 | F_IPCS | F_TCPCS, 34);
	qt_post(ring, RING, &prod, oob, 2, 0, sg, 2);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], len);
	assert_csums(frames[0], flen[0], 6);
	ck_assert_mem_eq(frames[0] + 50, want, 2);
	/* everything but the two checksums as sent */
	ck_assert_mem_eq(frames[0], f, 24);
	ck_assert_mem_eq(frames[0] + 26, f + 26, 24);
	ck_assert_mem_eq(frames[0] + 52, f + 52, len - 52);
	/* the application's buffer is untouched */
	ck_assert_uint_eq(f[24] | f[25], 0);
}
END_TEST

START_TEST(udp_checksum_completion)
{
	uint8_t *f = data;
	uint32_t len = qt_frame4(f, false, 31);
	struct qt_sge sg = qt_sge_of(f, LKEY, len);

	post(F_IPV4 | F_IPCS | F_UDPCS, &sg, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	assert_csums(frames[0], flen[0], 17);
	ck_assert_uint_ne(qt_be16(frames[0] + 40), 0);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 32);
}
END_TEST

START_TEST(vlan_insertion)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	uint32_t oob[6] = { 0 };

	fill(data, 60, 77);
	oob_short(oob, 0, 0);
	oob[0] |= 1;				/* long format */
	/* inject, pcp 5, dei 0, vlan id 0x123 */
	oob[2] = 1u << 3 | 5u << 16 | 0x123u << 20;
	qt_post(ring, RING, &prod, oob, 6, 0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], 64);
	ck_assert_mem_eq(frames[0], data, 12);
	ck_assert_mem_eq(frames[0] + 12, "\x81\x00\xa1\x23", 4);
	ck_assert_mem_eq(frames[0] + 16, data + 12, 48);
}
END_TEST

START_TEST(lso_three_segments)
{
	uint8_t *f = data;
	uint32_t oob[2];
	uint8_t *ip = f + 14;
	struct qt_sge sg[2] = { qt_sge_of(f, LKEY, 54), qt_sge_of(f + 54, LKEY, 3000) };

	ck_assert_uint_eq(qt_frame4(f, true, 3000), 54 + 3000);
	/* the kernel's LSO template: IP length 0, TCP seeded for length 0 */
	qt_put16(ip + 2, 0);
	qt_put16(f + 50, qt_fold(qt_pseudo4(ip, 6, 0)));
	oob_short(oob, F_IPV4 | F_IPCS | F_TCPCS, 34);
	qt_post(ring, RING, &prod, oob, 2, 1000, sg, 2);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(nframes, 3);
	for (unsigned int k = 0; k < 3; k++) {
		const uint8_t *g = frames[k];

		ck_assert_uint_eq(flen[k], 54 + 1000);
		ck_assert_uint_eq(qt_be16(g + 16), 1040);		/* total length */
		ck_assert_uint_eq(qt_be16(g + 18), 0x1234 + k);		/* id */
		ck_assert_uint_eq(qt_be32(g + 38), 1000 + 1000 * k);	/* seq */
		/* PSH on the last segment only, ACK on all */
		ck_assert_uint_eq(g[47], k == 2 ? 0x18 : 0x10);
		assert_csums(g, flen[k], 6);
		ck_assert_mem_eq(g + 54, f + 54 + 1000 * k, 1000);
		ck_assert_mem_eq(g, f, 14);
	}
	ck_assert_uint_eq(cq.produced, 1);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 32);
}
END_TEST

START_TEST(mtu_drop)
{
	struct qt_sge s = qt_sge_of(data, LKEY, MTU + 14 + 4 + 1);

	post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(nframes, 0);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 34);
}
END_TEST

START_TEST(budget_respected)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);

	for (int i = 0; i < 5; i++)
		post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 2, &mk, emit, &nframes), 2);
	ck_assert_uint_eq(nframes, 2);
	ck_assert_uint_eq(cq.produced, 2);
	ck_assert_uint_eq(mana_sq_process(&sq, 2, &mk, emit, &nframes), 2);
	ck_assert_uint_eq(mana_sq_process(&sq, 2, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(mana_sq_process(&sq, 2, &mk, emit, &nframes), 0);
	ck_assert_uint_eq(nframes, 5);
	ck_assert_uint_eq(mana_sq_process(&sq, 0, &mk, emit, &nframes), 0);
}
END_TEST

START_TEST(bad_tail_ignored)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);

	post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	/* past head + ring size: ignored, the earlier tail stands */
	mana_sq_doorbell(&sq, RING + 32);
	ck_assert_uint_eq(sq.st.bad_tail, 1);
	ck_assert_uint_eq(sq.tail, 32);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	/* behind head */
	mana_sq_doorbell(&sq, 0);
	ck_assert_uint_eq(sq.st.bad_tail, 2);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 0);
}
END_TEST

START_TEST(malformed_wqes)
{
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	uint32_t oob[2];

	/* num_sge 0: INVALID_OOB, vendor 0x201, skipped */
	oob_short(oob, 0, 0);
	qt_post(ring, RING, &prod, oob, 2, 0, NULL, 0);
	post(0, &s, 1);
	/* an OOB size code of 3: the size is unknown, the SQ stops */
	put32le(ring + prod, 0);
	put32le(ring + prod + 4, 1 | 3 << 8);
	prod += 32;
	post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 3);
	ck_assert_uint_eq(nframes, 1);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 35);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0x201);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 1)), 32);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 2)), 35);
	ck_assert_int_eq(sq.stop, MANA_WQ_STOP_BAD_WQE);
	ck_assert_uint_eq(sq.head_bu, 2);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 0);
	ck_assert_uint_eq(cq.produced, 3);
}
END_TEST

START_TEST(unmapped_ring)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *r = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct qt_sge s = qt_sge_of(data, LKEY, 60);
	struct mana_sq q;
	uint32_t p = 0, oob[2];
	unsigned int nwqe = (unsigned int)pg / 32;

	ck_assert_ptr_ne(r, MAP_FAILED);
	ck_assert_int_eq(mana_sq_init(&q, r, (uint32_t)pg * 2, SQ_ID, VP, MTU, &cq), 0);
	oob_short(oob, F_SUPP, 0);
	for (unsigned int i = 0; i < nwqe + 2; i++)
		qt_post(r, (uint32_t)pg * 2, &p, oob, 2, 0, &s, 1);
	mana_sq_doorbell(&q, p);
	/* the application unmaps the ring's second page under the device */
	ck_assert_int_eq(munmap(r + pg, (size_t)pg), 0);
	/* the first page's WQEs go out; the first WQE on the unmapped page
	 * stops the SQ: no CQE, no crash */
	ck_assert_uint_eq(mana_sq_process(&q, 1000, &mk, emit, &nframes), nwqe);
	ck_assert_uint_eq(nframes, nwqe);
	ck_assert_int_eq(q.stop, MANA_WQ_STOP_RING_FAULT);
	ck_assert_uint_eq(q.head_bu, nwqe);
	ck_assert_uint_eq(cq.produced, 0);
	ck_assert_uint_eq(mana_sq_process(&q, 1000, &mk, emit, &nframes), 0);
	mana_sq_fini(&q);
	munmap(r, (size_t)pg);
}
END_TEST

#ifndef EMU_TSAN
START_TEST(unmapped_data_and_cq)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *b = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct qt_sge s = qt_sge_of(b, LKEY + 5, 60);

	ck_assert_ptr_ne(b, MAP_FAILED);
	qt_mr_add(&mrs, LKEY + 5, b, (uint64_t)pg, false);
	ck_assert_int_eq(munmap(b, (size_t)pg), 0);
	post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(nframes, 0);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 35);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0x209);

	/* a CQ ring that went away: the CQ breaks, the SQ goes on */
	b = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(b, MAP_FAILED);
	ck_assert_int_eq(munmap(b, (size_t)pg), 0);
	cq.ring = b;
	s = qt_sge_of(data, LKEY, 60);
	post(0, &s, 1);
	post(0, &s, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 2);
	ck_assert_uint_eq(nframes, 2);
	ck_assert(cq.broken);
	ck_assert_uint_eq(cq.faults, 1);
	ck_assert_uint_eq(sq.st.cqe_faults, 2);
	ck_assert_uint_eq(cq.produced, 1);
}
END_TEST
#endif

START_TEST(owner_bits_three_entry_cq)
{
	uint8_t *c3 = aligned_alloc(64, 3 * 64);
	struct qt_sge s = qt_sge_of(data, LKEY, 60);

	ck_assert_ptr_nonnull(c3);
	memset(c3, 0, 3 * 64);
	mana_cqs_init(&cq, c3, 3, CQ_ID, NULL, NULL);
	for (unsigned int j = 0; j < 20; j++) {
		uint32_t off = post(0, &s, 1);

		mana_sq_doorbell(&sq, prod);
		ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
		nframes = 0;
		/* the j-th CQE: slot j % 3, owner (j / 3 + 1) % 8 */
		ck_assert_uint_eq(qt_cqe_owner(qt_cqe(c3, j % 3)), (j / 3 + 1) % 8);
		ck_assert_uint_eq(get32le(qt_cqe(c3, j % 3) + 8), off);
		ck_assert_uint_eq(qt_cqe_type(qt_cqe(c3, j % 3)), 32);
	}
	free(c3);
}
END_TEST

START_TEST(too_big_waits_for_tail)
{
	struct qt_sge s[40];
	uint32_t oob[2];

	for (int i = 0; i < 40; i++)
		s[i] = qt_sge_of(data, LKEY, 1);
	/* 8 + 8 + 640 bytes: over the 512 a send WQE may have */
	oob_short(oob, 0, 0);
	qt_post(ring, RING, &prod, oob, 2, 0, s, 40);
	ck_assert_uint_eq(prod, 672);
	/* rung for less than its size: nothing consumed yet */
	mana_sq_doorbell(&sq, 512);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 0);
	ck_assert_uint_eq(cq.produced, 0);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 35);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0x201);
	ck_assert_uint_eq(sq.head_bu * 32, 672);
	ck_assert_uint_eq(nframes, 0);
	ck_assert_int_eq(sq.stop, MANA_WQ_RUNNING);
}
END_TEST

START_TEST(ipv6_tcp_checksum_completion)
{
	uint8_t *f = data;
	uint8_t *ip = f + 14, *tcp = f + 54;
	uint32_t oob[2], l4len = 20 + 77, len = 54 + l4len, ph;
	struct qt_sge sg = qt_sge_of(f, LKEY, len);

	memset(f, 0, len);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x86\xdd", 14);
	ip[0] = 0x60;
	qt_put16(ip + 4, (uint16_t)l4len);
	ip[6] = 6;
	ip[7] = 64;
	for (int i = 0; i < 32; i++)
		ip[8 + i] = (uint8_t)(0x20 + i * 3);
	qt_put16(tcp, 1234);
	qt_put16(tcp + 2, 80);
	tcp[12] = 5 << 4;
	tcp[13] = 0x10;
	for (uint32_t i = 20; i < l4len; i++)
		tcp[i] = (uint8_t)(i * 5 + 1);
	/* RFC 8200 8.1 pseudo header: addresses, length, next header */
	ph = qt_sum(0, ip + 8, 32) + l4len + 6;
	qt_put16(tcp + 16, qt_fold(ph));
	oob_short(oob, 1 << 3 | F_TCPCS, 54);
	qt_post(ring, RING, &prod, oob, 2, 0, &sg, 1);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(flen[0], len);
	ck_assert_uint_eq(qt_fold(qt_sum(ph, frames[0] + 54, l4len)), 0xffff);
	ck_assert_mem_eq(frames[0], f, 70);
	ck_assert_mem_eq(frames[0] + 72, f + 72, len - 72);
}
END_TEST

START_TEST(lso_with_vlan)
{
	uint8_t *f = data;
	uint32_t oob[6] = { 0 };
	struct qt_sge sg[2] = { qt_sge_of(f, LKEY, 54), qt_sge_of(f + 54, LKEY, 1500) };

	ck_assert_uint_eq(qt_frame4(f, true, 1500), 54 + 1500);
	qt_put16(f + 16, 0);
	qt_put16(f + 50, qt_fold(qt_pseudo4(f + 14, 6, 0)));
	oob_short(oob, F_IPV4 | F_IPCS | F_TCPCS, 34);
	oob[0] |= 1;				/* long format */
	oob[2] = 1u << 3 | 0x00au << 20;	/* VLAN 10, pcp 0 */
	qt_post(ring, RING, &prod, oob, 6, 1000, sg, 2);
	mana_sq_doorbell(&sq, prod);
	ck_assert_uint_eq(mana_sq_process(&sq, 16, &mk, emit, &nframes), 1);
	ck_assert_uint_eq(nframes, 2);
	ck_assert_uint_eq(flen[0], 4 + 54 + 1000);
	ck_assert_uint_eq(flen[1], 4 + 54 + 500);
	for (unsigned int k = 0; k < 2; k++) {
		uint8_t untagged[1100];

		ck_assert_mem_eq(frames[k] + 12, "\x81\x00\x00\x0a\x08\x00", 6);
		/* without its tag the segment is a valid IPv4/TCP frame */
		memcpy(untagged, frames[k], 12);
		memcpy(untagged + 12, frames[k] + 16, flen[k] - 16);
		assert_csums(untagged, flen[k] - 4, 6);
		ck_assert_uint_eq(qt_be32(untagged + 38), 1000 + 1000 * k);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_sq");
	TCase *tc = tcase_create("sq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_sge_frame);
	tcase_add_test(tc, three_sges_gathered);
	tcase_add_test(tc, sgl_wraps);
	tcase_add_test(tc, dummy_sge_skipped);
	tcase_add_test(tc, bad_lkey_error_then_next);
	tcase_add_test(tc, suppression);
	tcase_add_test(tc, oob_names_other_queue);
	tcase_add_test(tc, tcp_checksum_completion);
	tcase_add_test(tc, udp_checksum_completion);
	tcase_add_test(tc, vlan_insertion);
	tcase_add_test(tc, lso_three_segments);
	tcase_add_test(tc, ipv6_tcp_checksum_completion);
	tcase_add_test(tc, lso_with_vlan);
	tcase_add_test(tc, mtu_drop);
	tcase_add_test(tc, budget_respected);
	tcase_add_test(tc, bad_tail_ignored);
	tcase_add_test(tc, malformed_wqes);
	tcase_add_test(tc, too_big_waits_for_tail);
	tcase_add_test(tc, unmapped_ring);
#ifndef EMU_TSAN
	tcase_add_test(tc, unmapped_data_and_cq);
#endif
	tcase_add_test(tc, owner_bits_three_entry_cq);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
