/* SPDX-License-Identifier: MIT */
/*
 * emu/mana's receive queue engine (mana_rq.c, mana_wq.c, mana_cqs.c):
 * receive WQEs written byte by byte, frames delivered into their buffers
 * and checked byte for byte, receive CQEs read at literal offsets
 * (Linux mana.h mana_rxcomp_oob: dword 1 VLAN/hash type/checksum bits,
 * per-packet infos of 12 bytes at 8, rx_wqe_offset at 56).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mana_qtest.h"
#include "ut_run.h"

enum { RING = 4096, NCQE = 64, RQ_ID = 0x15, CQ_ID = 0x78, LKEY = 0x200,
       RO_KEY = 0x201, BUF = 16384 };

static uint8_t *ring, *cqbuf, *buf;
static uint32_t prod;
static struct mana_cqs cq;
static struct mana_rq rq;
static struct qt_mrs mrs;
static struct mana_mkeys mk = { qt_check, &mrs };
static unsigned int events;

static void on_event(void *arg, struct mana_cqs *c)
{
	ck_assert_ptr_eq(arg, &events);
	ck_assert_ptr_eq(c, &cq);
	events++;
}

static void setup(void)
{
	ring = aligned_alloc(4096, RING);
	cqbuf = aligned_alloc(4096, NCQE * 64);
	buf = aligned_alloc(4096, BUF);
	ck_assert(ring && cqbuf && buf);
	memset(ring, 0, RING);
	memset(cqbuf, 0, NCQE * 64);
	memset(buf, 0xee, BUF);
	prod = 0;
	events = 0;
	memset(&mrs, 0, sizeof(mrs));
	qt_mr_add(&mrs, LKEY, buf, BUF / 2, true);
	qt_mr_add(&mrs, RO_KEY, buf + BUF / 2, BUF / 2, false);
	mana_cqs_init(&cq, cqbuf, NCQE, CQ_ID, on_event, &events);
	ck_assert_int_eq(mana_rq_init(&rq, ring, RING, RQ_ID, &cq), 0);
}

static void teardown(void)
{
	free(ring);
	free(cqbuf);
	free(buf);
}

/* A receive WQE: the 8-byte OOB zero, the given SGEs. */
static uint32_t post_rx(const struct qt_sge *sge, unsigned int n)
{
	static const uint32_t oob[2];

	return qt_post(ring, RING, &prod, oob, 2, 0, sge, n);
}

/* A frame of len bytes that is no VLAN frame (ethertype 0x0800). */
static void frame(uint8_t *f, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i * 11);
	f[12] = 0x08;
	f[13] = 0x00;
}

static uint32_t ppi_len(const uint8_t *c, unsigned int i)
{
	return get32le(c + 8 + 12 * i) & 0xffff;
}

static uint32_t ppi_hash(const uint8_t *c, unsigned int i)
{
	return get32le(c + 8 + 12 * i + 8);
}

START_TEST(scatter_two_sges)
{
	struct qt_sge s[2] = { qt_sge_of(buf, LKEY, 60), qt_sge_of(buf + 1000, LKEY, 100) };
	struct mana_rx_meta m = { .hash = 0xabcdef01, .hashtype = 0x1b6,
				  .ip_ok = true, .tcp_ok = true };
	uint8_t f[100];
	const uint8_t *c = qt_cqe(cqbuf, 0);
	uint32_t dw1;

	frame(f, sizeof(f), 1);
	post_rx(s, 2);
	post_rx(s, 2);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), &m, &mk), 0);
	ck_assert_mem_eq(buf, f, 60);
	ck_assert_mem_eq(buf + 1000, f + 60, 40);
	ck_assert_uint_eq(buf[1040], 0xee);
	ck_assert_uint_eq(qt_cqe_type(c), 1);
	ck_assert_uint_eq(get32le(c) >> 6 & 3, 1);		/* client_type */
	ck_assert_uint_eq(qt_cqe_wq(c), RQ_ID);
	ck_assert_uint_eq(qt_cqe_is_sq(c), 0);
	ck_assert_uint_eq(qt_cqe_owner(c), 1);
	dw1 = get32le(c + 4);
	ck_assert_uint_eq(dw1 & 0x1fff, 0);			/* no VLAN */
	ck_assert_uint_eq(dw1 >> 16 & 0x1ff, 0x1b6);
	ck_assert_uint_eq(dw1 >> 25 & 0x3f, 1u | 1u << 2);	/* ip ok, tcp ok */
	ck_assert_uint_eq(ppi_len(c, 0), 100);
	ck_assert_uint_eq(ppi_hash(c, 0), 0xabcdef01);
	for (unsigned int i = 1; i < 4; i++)
		ck_assert_uint_eq(ppi_len(c, i), 0);
	ck_assert_uint_eq(get32le(c + 56), 0);
	/* the second WQE starts two basic units on */
	ck_assert_int_eq(mana_rq_deliver(&rq, f, 30, &m, &mk), 0);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 1) + 56), 64);
	ck_assert_uint_eq(rq.st.packets, 2);
	ck_assert_uint_eq(rq.head_bu, 4);
}
END_TEST

START_TEST(no_wqe_drop)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 200);
	uint8_t f[60];

	frame(f, sizeof(f), 2);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -ENOSPC);
	/* posted but not rung: still nothing */
	post_rx(&s, 1);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -ENOSPC);
	ck_assert_uint_eq(rq.st.no_wqe_drops, 2);
	ck_assert_uint_eq(cq.produced, 0);
	ck_assert_uint_eq(buf[0], 0xee);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -ENOSPC);
	ck_assert_uint_eq(rq.st.no_wqe_drops, 3);
	ck_assert_uint_eq(cq.produced, 1);
}
END_TEST

START_TEST(truncated)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 50);
	uint8_t f[100];
	const uint8_t *c = qt_cqe(cqbuf, 0);

	frame(f, sizeof(f), 3);
	post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_uint_eq(qt_cqe_type(c), 4);
	ck_assert_uint_eq(ppi_len(c, 0), 100);
	ck_assert_mem_eq(buf, f, 50);
	ck_assert_uint_eq(buf[50], 0xee);
	/* the WQE is consumed */
	ck_assert_uint_eq(rq.head_bu, 1);
	ck_assert_uint_eq(rq.st.truncated, 1);
	ck_assert_uint_eq(rq.st.packets, 0);
}
END_TEST

START_TEST(buffer_errors)
{
	struct qt_sge s[3] = {
		qt_sge_of(buf, LKEY + 9, 100),			/* no such key */
		qt_sge_of(buf + BUF / 2, RO_KEY, 100),		/* read only */
		qt_sge_of(buf, LKEY, 100),
	};
	uint8_t f[64];

	frame(f, sizeof(f), 4);
	for (int i = 0; i < 3; i++)
		post_rx(&s[i], 1);
	mana_rq_doorbell(&rq, prod);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	/* RX_TRUNCATED with the receive SGE ATB vendor errors */
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 0)), 4);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 0)), 0x1c3);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 1)), 4);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 1)), 0x183);
	ck_assert_uint_eq(buf[BUF / 2], 0xee);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 2)), 1);
	ck_assert_uint_eq(qt_cqe_verr(qt_cqe(cqbuf, 2)), 0);
	ck_assert_uint_eq(rq.st.buf_errors, 2);
	ck_assert_uint_eq(rq.head_bu, 3);
}
END_TEST

START_TEST(vlan_stripped)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 256);
	uint8_t f[80];
	const uint8_t *c = qt_cqe(cqbuf, 0);

	frame(f, sizeof(f), 5);
	memcpy(f + 12, "\x81\x00\xa1\x23\x08\x00", 6);
	post_rx(&s, 1);
	post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_mem_eq(buf, f, 12);
	ck_assert_mem_eq(buf + 12, f + 16, 64);
	ck_assert_uint_eq(buf[76], 0xee);
	ck_assert_uint_eq(ppi_len(c, 0), 76);
	/* id 0x123 (the PCP is not reported), present */
	ck_assert_uint_eq(get32le(c + 4) & 0x1fff, 0x123 | 1 << 12);
	/* a tag the caller already stripped: the frame as given */
	struct mana_rx_meta m = { .vlan_present = true, .vlan_tci = 0x2456 };

	ck_assert_int_eq(mana_rq_deliver(&rq, f + 4, 40, &m, &mk), 0);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 1) + 4) & 0x1fff, 0x456 | 1 << 12);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 1), 0), 40);
}
END_TEST

START_TEST(coalesced)
{
	unsigned int k = (unsigned int)_i;	/* 1..4 packets */
	struct qt_sge s[4];
	uint8_t f[4][64];
	const uint8_t *fp[4];
	uint32_t lens[4];
	struct mana_rx_meta m[4];
	const uint8_t *c = qt_cqe(cqbuf, 0);

	rq.coalesce = true;
	for (unsigned int i = 0; i < 4; i++) {
		s[i] = qt_sge_of(buf + 256 * i, LKEY, 256);
		post_rx(&s[i], 1);
		frame(f[i], 64, (uint8_t)(i * 40));
		fp[i] = f[i];
		lens[i] = 60 + i;
		m[i] = (struct mana_rx_meta){ .hash = 0x1000 + i, .hashtype = 0x49,
					      .ip_ok = true };
	}
	mana_rq_doorbell(&rq, prod);
	ck_assert_uint_eq(mana_rq_deliver_burst(&rq, fp, lens, m, k, &mk), k);
	ck_assert_uint_eq(cq.produced, 1);
	ck_assert_uint_eq(qt_cqe_type(c), 2);
	ck_assert_uint_eq(get32le(c + 4) >> 16 & 0x1ff, 0x49);
	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_uint_eq(ppi_len(c, i), i < k ? 60 + i : 0);
		ck_assert_uint_eq(ppi_hash(c, i), i < k ? 0x1000 + i : 0);
		if (i < k)
			ck_assert_mem_eq(buf + 256 * i, f[i], 60 + i);
	}
	/* the first packet's WQE */
	ck_assert_uint_eq(get32le(c + 56), 0);
	ck_assert_uint_eq(rq.head_bu, k);
}
END_TEST

START_TEST(coalesced_split)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 256);
	uint8_t f[64];
	const uint8_t *fp[7];
	uint32_t lens[7];
	struct mana_rx_meta m[7] = { { 0 } };

	frame(f, sizeof(f), 9);
	rq.coalesce = true;
	for (unsigned int i = 0; i < 7; i++) {
		post_rx(&s, 1);
		fp[i] = f;
		lens[i] = 40 + i;
	}
	/* the sixth disagrees on the checksum bits: a CQE of its own */
	m[5].udp_ok = true;
	mana_rq_doorbell(&rq, prod);
	ck_assert_uint_eq(mana_rq_deliver_burst(&rq, fp, lens, m, 7, &mk), 7);
	ck_assert_uint_eq(cq.produced, 4);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 0), 3), 43);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 1), 0), 44);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 1), 1), 0);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 1) + 56), 4 * 32);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 2), 0), 45);
	ck_assert_uint_eq(ppi_len(qt_cqe(cqbuf, 3), 0), 46);
	for (unsigned int j = 0; j < 4; j++)
		ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, j)), 2);
	/* coalescing off: one RX_OKAY per packet */
	rq.coalesce = false;
	for (unsigned int i = 0; i < 2; i++)
		post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_uint_eq(mana_rq_deliver_burst(&rq, fp, lens, m, 3, &mk), 2);
	ck_assert_uint_eq(cq.produced, 6);
	ck_assert_uint_eq(qt_cqe_type(qt_cqe(cqbuf, 5)), 1);
	ck_assert_uint_eq(rq.st.no_wqe_drops, 1);
}
END_TEST

START_TEST(armed_event_once)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 256);
	uint8_t f[60];

	frame(f, sizeof(f), 6);
	for (int i = 0; i < 3; i++)
		post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_uint_eq(events, 0);		/* not armed */
	mana_cqs_arm(&cq, 0);			/* the consumer is behind */
	ck_assert_uint_eq(events, 1);		/* fires at once */
	ck_assert(!cq.armed);
	events = 0;
	mana_cqs_arm(&cq, 8 * cq.count + 1);	/* caught up, a lap later */
	ck_assert_uint_eq(events, 0);
	ck_assert(cq.armed);
	mana_cqs_arm(&cq, 1);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_uint_eq(events, 1);
	ck_assert(!cq.armed);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_uint_eq(events, 1);		/* one-shot */
	ck_assert_uint_eq(cq.produced, 3);
	mana_cqs_arm(&cq, 3);			/* caught up */
	ck_assert_uint_eq(events, 1);
	ck_assert(cq.armed);
}
END_TEST

START_TEST(unmapped_ring)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *r = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t f[60];
	struct mana_rq q;

	ck_assert_ptr_ne(r, MAP_FAILED);
	frame(f, sizeof(f), 8);
	ck_assert_int_eq(mana_rq_init(&q, r, (uint32_t)pg, RQ_ID, &cq), 0);
	mana_rq_doorbell(&q, 64);
	ck_assert_int_eq(munmap(r, (size_t)pg), 0);
	/* the frame is dropped, the RQ stops, no CQE, no crash */
	ck_assert_int_eq(mana_rq_deliver(&q, f, sizeof(f), NULL, &mk), -EFAULT);
	ck_assert_int_eq(q.stop, MANA_WQ_STOP_RING_FAULT);
	ck_assert_int_eq(mana_rq_deliver(&q, f, sizeof(f), NULL, &mk), -EIO);
	ck_assert_uint_eq(cq.produced, 0);
	ck_assert_uint_eq(q.head_bu, 0);
}
END_TEST

START_TEST(malformed_wqe)
{
	struct qt_sge s = qt_sge_of(buf, LKEY, 256);
	static const uint32_t oob[2];
	uint8_t f[60];

	frame(f, sizeof(f), 10);
	/* num_sge 0: skipped, the frame dropped */
	qt_post(ring, RING, &prod, oob, 2, 0, NULL, 0);
	post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -EINVAL);
	ck_assert_uint_eq(rq.head_bu, 1);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), 0);
	ck_assert_uint_eq(get32le(qt_cqe(cqbuf, 0) + 56), 32);
	/* the long OOB size code is no receive OOB: the size is unknown */
	put32le(ring + prod, 0);
	put32le(ring + prod + 4, 1 | 6 << 8);
	prod += 64;
	post_rx(&s, 1);
	mana_rq_doorbell(&rq, prod);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -EINVAL);
	ck_assert_int_eq(rq.stop, MANA_WQ_STOP_BAD_WQE);
	ck_assert_int_eq(mana_rq_deliver(&rq, f, sizeof(f), NULL, &mk), -EIO);
	ck_assert_uint_eq(rq.st.bad_wqes, 2);
	ck_assert_uint_eq(cq.produced, 1);
}
END_TEST

/* The device model's hooks (fault rules, trace): the second frame's WQE is
 * failed; every WQE and CQE is seen. */
static unsigned int hook_wqes, hook_cqes;

static bool hook_wqe(void *arg, const struct mana_dp_wqe *v, uint8_t *type,
		     uint32_t *vendor_err)
{
	ck_assert_ptr_eq(arg, &rq);
	ck_assert(v->rq);
	ck_assert_uint_eq(v->wq_id, RQ_ID);
	ck_assert_uint_eq(v->off, 32 * hook_wqes);
	ck_assert_uint_eq(v->pkt_len, 60 + hook_wqes);
	ck_assert_uint_eq(v->w->num_sge, 1);
	if (hook_wqes++ != 1)
		return false;
	*type = 4;			/* CQE_RX_TRUNCATED */
	*vendor_err = 0x55;
	return true;
}

static void hook_cqe(void *arg, const struct mana_cqs *c,
		     const uint8_t cqe[MANA_CQE_SIZE])
{
	ck_assert_ptr_eq(arg, &rq);
	ck_assert_ptr_eq(c, &cq);
	/* the bytes as they landed in the ring */
	ck_assert_mem_eq(cqe, qt_cqe(cqbuf, hook_cqes), 64);
	hook_cqes++;
}

START_TEST(hook_drops_a_frame_between_coalesced_ones)
{
	static const struct mana_dp_hooks hooks = { hook_wqe, hook_cqe };
	struct qt_sge sg[4];
	uint8_t f[4][64];
	const uint8_t *fp[4];
	uint32_t lens[4];
	const uint8_t *c;

	rq.coalesce = true;
	rq.dp = &hooks;
	rq.dp_arg = &rq;
	hook_wqes = hook_cqes = 0;
	for (unsigned int i = 0; i < 4; i++) {
		sg[i] = qt_sge_of(buf + 256 * i, LKEY, 256);
		post_rx(&sg[i], 1);
		frame(f[i], 64, (uint8_t)(i * 40));
		fp[i] = f[i];
		lens[i] = 60 + i;
	}
	mana_rq_doorbell(&rq, prod);
	ck_assert_uint_eq(mana_rq_deliver_burst(&rq, fp, lens, NULL, 4, &mk), 4);
	/* frame 0 alone in a coalesced CQE, the dropped one's RX_TRUNCATED,
	 * then frames 2 and 3 together */
	ck_assert_uint_eq(cq.produced, 3);
	ck_assert_uint_eq(hook_wqes, 4);
	ck_assert_uint_eq(hook_cqes, 3);
	ck_assert_uint_eq(rq.st.injected, 1);
	c = qt_cqe(cqbuf, 0);
	ck_assert_uint_eq(qt_cqe_type(c), 2);
	ck_assert_uint_eq(ppi_len(c, 0), 60);
	ck_assert_uint_eq(ppi_len(c, 1), 0);
	c = qt_cqe(cqbuf, 1);
	ck_assert_uint_eq(get32le(c), 4 | 1u << 6 | 0x55u << 8);
	ck_assert_uint_eq(ppi_len(c, 0), 61);
	ck_assert_uint_eq(get32le(c + 56), 32);
	for (unsigned int b = 0; b < 256; b++)
		ck_assert_uint_eq(buf[256 + b], 0xee);
	c = qt_cqe(cqbuf, 2);
	ck_assert_uint_eq(qt_cqe_type(c), 2);
	ck_assert_uint_eq(ppi_len(c, 0), 62);
	ck_assert_uint_eq(ppi_len(c, 1), 63);
	ck_assert_uint_eq(get32le(c + 56), 64);
	ck_assert_mem_eq(buf + 512, f[2], 62);
	ck_assert_uint_eq(rq.head_bu, 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_rq");
	TCase *tc = tcase_create("rq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, scatter_two_sges);
	tcase_add_test(tc, no_wqe_drop);
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, buffer_errors);
	tcase_add_test(tc, vlan_stripped);
	tcase_add_loop_test(tc, coalesced, 1, 5);
	tcase_add_test(tc, coalesced_split);
	tcase_add_test(tc, armed_event_once);
	tcase_add_test(tc, unmapped_ring);
	tcase_add_test(tc, malformed_wqe);
	tcase_add_test(tc, hook_drops_a_frame_between_coalesced_ones);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
