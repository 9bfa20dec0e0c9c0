/* SPDX-License-Identifier: MIT */
/*
 * The MANA firmware (emu/mana/fw): control messages built byte by byte at
 * the offsets of Linux's include/net/mana/{gdma.h,mana.h} (never with the
 * accessors under test), their statuses, and the objects they leave.
 */
#include <check.h>
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mana/fw/mana_fw.h"

#include "mana_bytes.h"
#include "ut_run.h"

static struct mana_fw *fw;
static uint8_t *mem;		/* page-aligned memory the regions describe */
enum { MEM_PAGES = 16 };

static void put16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint64_t get64le(const uint8_t *p)
{
	return (uint64_t)get32le(p) | (uint64_t)get32le(p + 4) << 32;
}

/* gdma_req_hdr: req {hdr_type, msg_type, msg_version, hwc_msg_id, msg_size}
 * at 0, resp's at 16, dev_id at 32, activity_id at 36. */
static void hdr(uint8_t *b, uint32_t type, uint32_t req_size, uint32_t resp_size)
{
	put32le(b + 4, type);
	put16le(b + 8, 1);
	put32le(b + 12, req_size);
	put32le(b + 20, type);
	put16le(b + 24, 1);
	put32le(b + 28, resp_size);
	put16le(b + 32, 2);		/* GDMA_DEVICE_MANA */
	put32le(b + 36, 0x77);
}

/* Runs a message; the status, checked against the header's copy at 24. */
static uint32_t run(const uint8_t *req, size_t rl, uint8_t *resp, size_t sl)
{
	long st = mana_fw_exec(fw, req, rl, resp, sl);

	ck_assert_int_ge(st, 0);
	ck_assert_uint_eq(get32le(resp + 24), (uint32_t)st);
	ck_assert_uint_eq(get32le(resp + 4), get32le(req + 4));
	ck_assert_uint_eq(get32le(resp + 20), 0x77);	/* activity_id */
	return (uint32_t)st;
}

static uint32_t db_page(void)
{
	uint8_t q[56] = { 0 }, r[36];

	hdr(q, 22, 56, 36);
	put32le(q + 40, 27);		/* GDMA_RESOURCE_DOORBELL_PAGE */
	put32le(q + 44, 1);
	put32le(q + 48, 1);
	ck_assert_uint_eq(run(q, sizeof(q), r, sizeof(r)), 0);
	return get32le(r + 32);
}

static uint64_t create_pd(uint32_t *pd_id)
{
	uint8_t q[48] = { 0 }, r[48];

	hdr(q, 29, 48, 48);
	ck_assert_uint_eq(run(q, sizeof(q), r, sizeof(r)), 0);
	if (pd_id)
		*pd_id = get32le(r + 40);
	return get64le(r + 32);
}

/* A region over pages [first, first + n) of mem, all in the create message. */
static uint32_t region_st(uint32_t first, uint32_t n, uint64_t *handle)
{
	uint8_t q[64 + 8 * MEM_PAGES] = { 0 }, r[40];
	size_t len = 64 + 8 * n;

	hdr(q, 25, (uint32_t)len, 40);
	put64le(q + 40, 4096ull * n);
	put32le(q + 56, n);
	put32le(q + 60, n);
	for (uint32_t i = 0; i < n; i++)
		put64le(q + 64 + 8 * i, (uintptr_t)(mem + 4096 * (first + i)));
	*handle = 0;
	if (!run(q, len, r, sizeof(r)))
		*handle = get64le(r + 32);
	return get32le(r + 24);
}

static uint64_t region(uint32_t first, uint32_t n)
{
	uint64_t h;

	ck_assert_uint_eq(region_st(first, n, &h), 0);
	ck_assert_uint_ne(h, 0);
	return h;
}

static uint32_t config_tx(uint64_t vport, uint32_t pd_id, uint32_t db,
			  uint16_t *offset)
{
	uint8_t q[56] = { 0 }, r[36];
	uint32_t st;

	hdr(q, 0x20003, 56, 36);
	put64le(q + 40, vport);
	put32le(q + 48, pd_id);
	put32le(q + 52, db);
	st = run(q, sizeof(q), r, sizeof(r));
	if (offset)
		*offset = (uint16_t)(r[32] | r[33] << 8);
	return st;
}

static uint32_t create_wq(uint64_t vport, uint32_t type, uint64_t wr,
			  uint64_t cr, uint32_t wq_size, uint32_t cq_size,
			  uint8_t r[48])
{
	uint8_t q[88] = { 0 };

	hdr(q, 0x20004, 88, 48);
	put64le(q + 40, vport);
	put32le(q + 48, type);
	put64le(q + 56, wr);
	put64le(q + 64, cr);
	put32le(q + 72, wq_size);
	put32le(q + 76, cq_size);
	put32le(q + 84, 0xffff);	/* GDMA_CQ_NO_EQ */
	return run(q, sizeof(q), r, 48);
}

static uint32_t destroy(uint32_t type, uint64_t handle)
{
	uint8_t q[48] = { 0 }, r[32];

	hdr(q, type, 48, 32);
	put64le(q + 40, handle);
	return run(q, sizeof(q), r, sizeof(r));
}

static uint64_t vport_handle(uint32_t idx, uint8_t mac[6])
{
	uint8_t q[44] = { 0 }, r[64];

	hdr(q, 0x20008, 44, 64);
	put32le(q + 40, idx);
	ck_assert_uint_eq(run(q, sizeof(q), r, sizeof(r)), 0);
	ck_assert_uint_eq(get32le(r + 40), 64);	/* num_indirection_ent */
	if (mac)
		memcpy(mac, r + 48, 6);
	return get64le(r + 56);
}

static void setup(void)
{
	struct mana_fw_config cfg = { .num_ports = 2 };

	memcpy(cfg.mac[0], "\x02\x15\x5d\x00\x00\x01", 6);
	memcpy(cfg.mac[1], "\x02\x15\x5d\x00\x00\x02", 6);
	ck_assert_int_eq(mana_fw_create(&cfg, &fw), 0);
	mem = aligned_alloc(4096, 4096 * MEM_PAGES);
	ck_assert_ptr_nonnull(mem);
}

static void teardown(void)
{
	mana_fw_destroy(fw);
	free(mem);
}

START_TEST(unknown_and_malformed_messages)
{
	uint8_t q[64] = { 0 }, r[64];

	hdr(q, 0x12345, 48, 32);
	ck_assert_uint_eq(run(q, 48, r, 64), 0xffffffffu);
	ck_assert_uint_eq(get32le(r + 12), 32);	/* the header alone */
	ck_assert_uint_eq(get32le(r + 16) & 0xffff, 2);	/* dev_id echoed */

	/* No room for the headers: the channel cannot carry it at all. */
	ck_assert_int_eq(mana_fw_exec(fw, q, 39, r, 64), -EINVAL);
	ck_assert_int_eq(mana_fw_exec(fw, q, 48, r, 31), -EINVAL);

	/* CREATE_PD whose msg_size claims more than was sent */
	hdr(q, 29, 64, 48);
	ck_assert_uint_eq(run(q, 48, r, 48), 0xe0000001u);
	/* or whose response would not fit */
	hdr(q, 29, 48, 48);
	ck_assert_uint_eq(run(q, 48, r, 40), 0xe0000001u);
	/* a layout shorter than the message's */
	hdr(q, 29, 44, 48);
	ck_assert_uint_eq(run(q, 48, r, 48), 0xe0000001u);

	struct mana_fw_counts c;

	mana_fw_counts(fw, &c);
	ck_assert_uint_eq(c.pds, 0);
	ck_assert_str_eq(mana_fw_status_name(0xe0000001u), "BAD_SIZE");
	ck_assert_str_eq(mana_fw_msg_name(0x20004), "MANA_CREATE_WQ_OBJ");
}
END_TEST

START_TEST(vport_queries)
{
	uint8_t mac[6], q[88] = { 0 }, r[72];

	ck_assert_uint_ne(vport_handle(0, mac), vport_handle(1, NULL));
	ck_assert_mem_eq(mac, "\x02\x15\x5d\x00\x00\x01", 6);
	hdr(q, 0x20008, 44, 64);
	put32le(q + 40, 2);
	ck_assert_uint_eq(run(q, 44, r, 64), 0xe0000003u);

	memset(q, 0, sizeof(q));
	hdr(q, 0x20001, 88, 72);
	ck_assert_uint_eq(run(q, 88, r, 72), 0);
	ck_assert_uint_eq(r[64] | r[65] << 8, 2);	/* max_num_vports */
}
END_TEST

START_TEST(raw_send_queue_objects)
{
	uint64_t vp = vport_handle(0, NULL), pd, sq_rg, cq_rg;
	uint32_t pd_id, db = db_page();
	uint8_t r[48];
	uint16_t off;
	struct mana_fw_wq w;
	struct mana_fw_vport v;

	pd = create_pd(&pd_id);
	ck_assert_uint_eq(config_tx(vp, pd_id + 100, db, NULL), 0xe0000002u);
	ck_assert_uint_eq(config_tx(vp, pd_id, db + 1, NULL), 0xe0000002u);
	ck_assert_uint_eq(config_tx(vp, pd_id, db, &off), 0);
	ck_assert_int_eq(mana_fw_vport_get(fw, 0, &v), 0);
	ck_assert(v.tx_configured);
	ck_assert_uint_eq(v.tx_vport_offset, off);

	sq_rg = region(0, 2);
	cq_rg = region(2, 1);
	/* sizes: the WQ a power of two of at least a page, the CQ whole CQEs */
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, cq_rg, 6000, 4096, r), 0xe0000003u);
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, cq_rg, 8192, 100, r), 0xe0000003u);
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, cq_rg, 16384, 4096, r), 0xe0000003u);
	ck_assert_uint_eq(create_wq(vp, 3, sq_rg, cq_rg, 8192, 4096, r), 0xe0000003u);
	ck_assert_uint_eq(create_wq(vp + 9, 1, sq_rg, cq_rg, 8192, 4096, r), 0xe0000002u);
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, sq_rg, 8192, 4096, r), 0xe0000003u);
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, cq_rg, 8192, 64 * 64, r), 0);

	uint32_t sq_id = get32le(r + 32), cq_id = get32le(r + 36);
	uint64_t obj = get64le(r + 40);

	ck_assert_int_eq(mana_fw_wq_by_id(fw, 1, sq_id, &w), 0);
	ck_assert_uint_eq(w.cq_id, cq_id);
	ck_assert_uint_eq(w.wq_addr, (uintptr_t)mem);
	ck_assert_uint_eq(w.cq_addr, (uintptr_t)(mem + 8192));
	ck_assert_uint_eq(w.wq_size, 8192);
	ck_assert_int_eq(mana_fw_wq_by_cq(fw, cq_id, &w), 0);
	ck_assert_uint_eq(w.wq_id, sq_id);
	ck_assert_int_eq(mana_fw_wq_by_id(fw, 2, sq_id, &w), -ENOENT);

	/* the regions belong to the object now */
	ck_assert_uint_eq(destroy(27, sq_rg), 0xe0000005u);
	ck_assert_uint_eq(create_wq(vp, 1, sq_rg, cq_rg, 8192, 4096, r), 0xe0000003u);

	/* DESTROY_WQ_OBJ names its type */
	uint8_t q[56] = { 0 }, s[32];

	hdr(q, 0x20005, 56, 32);
	put32le(q + 40, 2);
	put64le(q + 48, obj);
	ck_assert_uint_eq(run(q, 56, s, 32), 0xe0000003u);
	put32le(q + 40, 1);
	ck_assert_uint_eq(run(q, 56, s, 32), 0);
	ck_assert_uint_eq(run(q, 56, s, 32), 0xe0000002u);
	ck_assert_int_eq(mana_fw_wq_by_id(fw, 1, sq_id, &w), -ENOENT);
	ck_assert_uint_eq(destroy(27, sq_rg), 0xe0000002u);

	/* the doorbell page the vPort uses stays; the PD that configured the
	 * vPort may go and takes its TX configuration along */
	uint8_t d[56] = { 0 }, ds[32];

	hdr(d, 24, 52, 32);
	put32le(d + 40, 27);
	put32le(d + 44, 1);
	put32le(d + 48, db);
	ck_assert_uint_eq(run(d, 52, ds, 32), 0xe0000005u);
	ck_assert_uint_eq(destroy(30, pd), 0);
	ck_assert_int_eq(mana_fw_vport_get(fw, 0, &v), 0);
	ck_assert(!v.tx_configured);
	ck_assert_uint_eq(run(d, 52, ds, 32), 0);

	struct mana_fw_counts c;

	mana_fw_counts(fw, &c);
	ck_assert_uint_eq(c.wqs, 0);
	ck_assert_uint_eq(c.regions, 0);
	ck_assert_uint_eq(c.pds, 0);
	ck_assert_uint_eq(c.db_pages, 0);
}
END_TEST

START_TEST(dma_regions)
{
	uint8_t q[80] = { 0 }, r[40];
	uint64_t h;

	/* pages that are not contiguous */
	hdr(q, 25, 80, 40);
	put64le(q + 40, 8192);
	put32le(q + 56, 2);
	put32le(q + 60, 2);
	put64le(q + 64, (uintptr_t)mem);
	put64le(q + 72, (uintptr_t)(mem + 3 * 4096));
	ck_assert_uint_eq(run(q, 80, r, 40), 0xe0000003u);
	/* page_count that does not cover length */
	hdr(q, 25, 72, 40);
	put32le(q + 56, 1);
	put32le(q + 60, 1);
	ck_assert_uint_eq(run(q, 72, r, 40), 0xe0000003u);
	/* a list longer than the message */
	put32le(q + 56, 2);
	put32le(q + 60, 2);
	hdr(q, 25, 72, 40);
	ck_assert_uint_eq(run(q, 72, r, 40), 0xe0000001u);

	/* one page now, one with ADD_PAGES; unusable until complete */
	hdr(q, 25, 72, 40);
	put32le(q + 60, 1);
	ck_assert_uint_eq(run(q, 72, r, 40), 0);
	h = get64le(r + 32);

	uint64_t cq_rg = region(4, 1);
	uint8_t w[48];
	uint64_t vp = vport_handle(0, NULL);

	ck_assert_uint_eq(create_wq(vp, 2, h, cq_rg, 8192, 4096, w), 0xe0000003u);

	uint8_t a[64] = { 0 }, s[32];

	hdr(a, 26, 64, 32);
	put64le(a + 40, h);
	put32le(a + 48, 1);
	put64le(a + 56, (uintptr_t)(mem + 2 * 4096));	/* not the next page */
	ck_assert_uint_eq(run(a, 64, s, 32), 0xe0000003u);
	put64le(a + 56, (uintptr_t)(mem + 4096));
	ck_assert_uint_eq(run(a, 64, s, 32), 0);
	ck_assert_uint_eq(run(a, 64, s, 32), 0xe0000003u);	/* one too many */
	ck_assert_uint_eq(create_wq(vp, 2, h, cq_rg, 8192, 4096, w), 0);
}
END_TEST

START_TEST(memory_regions)
{
	uint32_t pd_id;
	uint64_t pd = create_pd(&pd_id), rg = region(0, 2), rg2 = region(4, 1);
	uint8_t q[88] = { 0 }, r[48];

	hdr(q, 31, 88, 48);
	put64le(q + 40, pd);
	put32le(q + 48, 2);			/* GDMA_MR_TYPE_GVA */
	put64le(q + 56, rg);
	put64le(q + 64, (uintptr_t)mem + 4096);	/* iova elsewhere */
	put32le(q + 72, 1);			/* LOCAL_READ */
	ck_assert_uint_eq(run(q, 88, r, 48), 0xe0000003u);
	put64le(q + 64, (uintptr_t)mem);
	put32le(q + 48, 1);			/* GPA: not for users */
	ck_assert_uint_eq(run(q, 88, r, 48), 0xe0000003u);
	put32le(q + 48, 2);
	ck_assert_uint_eq(run(q, 88, r, 48), 0);

	uint32_t lkey = get32le(r + 40);
	uint64_t mr = get64le(r + 32);

	ck_assert_uint_eq(get32le(r + 44), lkey);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey, (uintptr_t)mem + 100, 8000,
					  false), 0);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey, (uintptr_t)mem + 100, 8100,
					  false), -ERANGE);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey, (uintptr_t)mem - 1, 2,
					  false), -ERANGE);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey, (uintptr_t)mem, 64, true),
			 -EACCES);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey + 1, (uintptr_t)mem, 64,
					  false), -ENOENT);

	/* a write MR on the second region */
	put64le(q + 56, rg2);
	put64le(q + 64, (uintptr_t)(mem + 4 * 4096));
	put32le(q + 72, 3);
	ck_assert_uint_eq(run(q, 88, r, 48), 0);
	ck_assert_int_eq(mana_fw_mr_check(fw, get32le(r + 40),
					  (uintptr_t)(mem + 4 * 4096), 4096,
					  true), 0);

	ck_assert_uint_eq(destroy(30, pd), 0xe0000005u);	/* MRs on it */
	ck_assert_uint_eq(destroy(32, mr), 0);
	ck_assert_uint_eq(destroy(32, mr), 0xe0000002u);
	ck_assert_int_eq(mana_fw_mr_check(fw, lkey, (uintptr_t)mem, 64, false),
			 -ENOENT);
	ck_assert_uint_eq(destroy(27, rg), 0xe0000002u);	/* went with it */
	ck_assert_uint_eq(destroy(32, get64le(r + 32)), 0);
	ck_assert_uint_eq(destroy(30, pd), 0);
}
END_TEST

/* A GVA MR over a fresh region of pages [first, first + n): its lkey,
 * *handle its MR. */
static uint32_t churn_mr(uint64_t pd, uint32_t first, uint32_t n,
			 uint32_t access, uint64_t *handle)
{
	uint8_t q[88] = { 0 }, r[48];

	hdr(q, 31, 88, 48);
	put64le(q + 40, pd);
	put32le(q + 48, 2);
	put64le(q + 56, region(first, n));
	put64le(q + 64, (uintptr_t)(mem + 4096 * first));
	put32le(q + 72, access);
	ck_assert_uint_eq(run(q, 88, r, 48), 0);
	*handle = get64le(r + 32);
	return get32le(r + 40);
}

static _Atomic uint32_t churn_key;
static _Atomic bool churn_done;

/* The data path's side: whatever key it holds answers whole -- the MR it
 * names (a slot's 8-bit generation wraps, so an old key may name a newer
 * MR) with that MR's bounds and rights, or no MR -- never a mix. */
static void *churn_reader(void *arg)
{
	unsigned long *bad = arg;

	while (!atomic_load(&churn_done)) {
		uint32_t k = atomic_load(&churn_key);
		/* key A: read-only over 2 pages; key B: writable, 1 page */
		int ra = mana_fw_mr_check(fw, k, (uintptr_t)mem + 100, 8000, false);
		int rb = mana_fw_mr_check(fw, k, (uintptr_t)mem + 4 * 4096, 64, true);

		/* -EACCES only from B's bounds with A's rights */
		if ((ra && ra != -ENOENT && ra != -ERANGE) ||
		    (rb && rb != -ENOENT && rb != -ERANGE))
			(*bad)++;
	}
	return NULL;
}

/* MRs made and destroyed while another thread checks keys, the slots
 * reused: the lock-free lookup never sees half an MR. */
START_TEST(mr_check_races_registration)
{
	uint32_t pd_id;
	uint64_t pd = create_pd(&pd_id), h;
	unsigned long bad = 0;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, churn_reader, &bad), 0);
	for (int i = 0; i < 2000; i++) {
		bool a = i & 1;
		uint32_t k = a ? churn_mr(pd, 0, 2, 1, &h) : churn_mr(pd, 4, 1, 3, &h);

		atomic_store(&churn_key, k);
		ck_assert_int_eq(mana_fw_mr_check(fw, k, a ? (uintptr_t)mem + 100 :
						  (uintptr_t)mem + 4 * 4096,
						  a ? 8000 : 64, !a), 0);
		ck_assert_uint_eq(destroy(32, h), 0);
		ck_assert_int_eq(mana_fw_mr_check(fw, k, (uintptr_t)mem, 1, false),
				 -ENOENT);
	}
	atomic_store(&churn_done, true);
	pthread_join(t, NULL);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(destroy(30, pd), 0);
}
END_TEST

/* MANA_CONFIG_VPORT_RX, v2: 120 bytes, then the 64 handles. */
static uint32_t config_rx(uint64_t vp, const uint64_t *objs, unsigned int n,
			  uint64_t def, int version, bool coalesce)
{
	uint8_t q[120 + 64 * 8] = { 0 }, r[32];
	uint32_t head = version >= 2 ? 120 : 112;

	hdr(q, 0x20007, head + 512, 32);
	put16le(q + 8, (uint16_t)version);
	put64le(q + 40, vp);
	put16le(q + 48, 64);
	put16le(q + 50, (uint16_t)head);
	put32le(q + 52, 1);			/* rx_enable */
	put32le(q + 56, n > 1);			/* rss_enable */
	q[60] = 1;				/* update_default_rxobj */
	q[61] = 1;				/* update_hashkey */
	q[62] = 1;				/* update_indir_tab */
	put64le(q + 64, def);
	for (int i = 0; i < 40; i++)
		q[72 + i] = (uint8_t)(0xa0 + i);
	if (version >= 2)
		q[112] = coalesce;
	for (unsigned int i = 0; i < 64; i++)
		put64le(q + head + 8 * i, objs[i % n]);
	return run(q, head + 512, r, sizeof(r));
}

START_TEST(rx_steering)
{
	uint64_t vp = vport_handle(1, NULL), objs[3];
	uint32_t ids[3];
	struct mana_fw_vport v;
	uint8_t r[48];

	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(create_wq(vp, i == 2 ? 1 : 2, region(4 * i, 1),
					    region(4 * i + 2, 1), 4096, 4096, r), 0);
		objs[i] = get64le(r + 40);
		ids[i] = get32le(r + 32);
	}
	ck_assert_int_eq(mana_fw_vport_get(fw, 1, &v), 0);
	uint64_t gen = v.rx_gen;

	/* an SQ in the table, or the other vPort's handle: nothing changes */
	ck_assert_uint_eq(config_rx(vp, objs, 3, objs[1], 2, false), 0xe0000002u);
	ck_assert_uint_eq(config_rx(vport_handle(0, NULL), objs, 2, objs[1], 2,
				    false), 0xe0000002u);
	ck_assert_int_eq(mana_fw_vport_get(fw, 1, &v), 0);
	ck_assert_uint_eq(v.rx_gen, gen);
	ck_assert(!v.rx_enable);

	ck_assert_uint_eq(config_rx(vp, objs, 2, objs[1], 2, true), 0);
	ck_assert_int_eq(mana_fw_vport_get(fw, 1, &v), 0);
	ck_assert(v.rx_enable && v.rss_enable && v.cqe_coalescing);
	ck_assert_uint_gt(v.rx_gen, gen);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(v.table[i], ids[i % 2]);
	ck_assert_uint_eq(v.default_rq, ids[1]);
	ck_assert_uint_eq(v.key[0], 0xa0);
	ck_assert_uint_eq(v.key[39], 0xa0 + 39);

	/* v1 of the message has no coalescing switch */
	ck_assert_uint_eq(config_rx(vp, objs, 1, objs[0], 1, true), 0);
	ck_assert_int_eq(mana_fw_vport_get(fw, 1, &v), 0);
	ck_assert(!v.cqe_coalescing && !v.rss_enable);
	ck_assert_uint_eq(v.table[63], ids[0]);

	/* a destroyed RQ leaves steering, not a dangling id */
	uint8_t q[56] = { 0 }, s[32];

	hdr(q, 0x20005, 56, 32);
	put32le(q + 40, 2);
	put64le(q + 48, objs[0]);
	ck_assert_uint_eq(run(q, 56, s, 32), 0);
	ck_assert_int_eq(mana_fw_vport_get(fw, 1, &v), 0);
	ck_assert_uint_eq(v.table[5], UINT32_MAX);
	ck_assert_uint_eq(v.default_rq, UINT32_MAX);
}
END_TEST

static unsigned int traced;
static uint32_t last_status;

static void trace_fn(void *arg, uint32_t type, const void *req, size_t rl,
		     const void *resp, size_t sl)
{
	(void)arg;
	(void)req;
	(void)rl;
	ck_assert_uint_ge(sl, 32);
	ck_assert_uint_eq(get32le((const uint8_t *)resp + 4), type);
	last_status = get32le((const uint8_t *)resp + 24);
	traced++;
}

START_TEST(trace_sees_each_message_and_stale_handles_name_nothing)
{
	uint64_t pd;

	mana_fw_set_trace(fw, trace_fn, NULL);
	pd = create_pd(NULL);
	ck_assert_uint_eq(traced, 1);
	ck_assert_uint_eq(destroy(30, pd), 0);
	/* the slot is reused; the old handle must not name the new PD */
	uint64_t pd2 = create_pd(NULL);

	ck_assert_uint_ne(pd2, pd);
	ck_assert_uint_eq(destroy(30, pd), 0xe0000002u);
	ck_assert_uint_eq(last_status, 0xe0000002u);
	ck_assert_uint_eq(traced, 4);
	ck_assert_uint_eq(destroy(30, pd2), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_fw");
	TCase *tc = tcase_create("messages");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, unknown_and_malformed_messages);
	tcase_add_test(tc, vport_queries);
	tcase_add_test(tc, raw_send_queue_objects);
	tcase_add_test(tc, dma_regions);
	tcase_add_test(tc, memory_regions);
	tcase_add_test(tc, mr_check_races_registration);
	tcase_add_test(tc, rx_steering);
	tcase_add_test(tc, trace_sees_each_message_and_stale_handles_name_nothing);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
