/* SPDX-License-Identifier: MIT */
/*
 * Memory windows in the firmware: the CREATE_MKEY form mlx5_ib_alloc_mw
 * uses, what a UMR bind and invalidation do to it (each IBA rule of
 * fw_mkey_umr.c), what a SEND_WITH_INV may invalidate, and how an access
 * resolves through a bound window; and the indirect mkeys of
 * mlx5dv_create_mkey: a translation list or repeat block (literal
 * big-endian octowords) and what an access through it resolves to.
 * Windows and regions are made with literal mailboxes; the UMRs are
 * written as the engine decodes them.
 */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

#define QPN 0x123	/* the QP a type 2 window is bound to */
#define OTHER_QPN 0x124

static struct emu_fw *fw;
static uint16_t u1, u2;
static uint32_t pd1, pd2, mr, mr_ro, mr_pd2;
static struct emu_fw_obj *p1, *p2;
static struct fwt_mem mem;

/* mlx5_ib_alloc_mw's CREATE_MKEY, key byte @key. */
static void *mw_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t pd, bool type2,
		     uint8_t key)
{
	void *mkc;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_MKEY, 0, uid,
		      PRM_ST_SZ_BYTES(create_mkey_in),
		      PRM_ST_SZ_BYTES(create_mkey_out));
	mkc = PRM_ADDR_OF(create_mkey_in, m->in, memory_key_mkey_entry);
	PRM_SET(mkc, mkc, free, 1);
	PRM_SET(mkc, mkc, translations_octword_size, 4);
	PRM_SET(mkc, mkc, pd, pd);
	PRM_SET(mkc, mkc, umr_en, 1);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, access_mode_1_0, 2);	/* KLMs */
	PRM_SET(mkc, mkc, en_rinval, type2);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, key);
	return mkc;
}

/* A window's full key (index << 8 | key). */
static uint32_t mw_create(uint32_t pd, bool type2, uint8_t key)
{
	struct fwt_mbox m;

	mw_mbox(&m, u1, pd, type2, key);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_mkey_out, m.out, mkey_index) << 8 | key;
}

static uint64_t va(uint64_t off)
{
	return (uintptr_t)mem.addr + off;
}

static void setup(void)
{
	struct fwt_mbox m;
	void *mkc;

	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
	pd1 = fwt_pd(fw, u1);
	pd2 = fwt_pd(fw, u1);
	fwt_mem_reg(fw, u1, 65536, &mem);
	/* Regions over [4096, 12288): read/write (key 0x5a), read only
	 * (no local write), and one of pd2. */
	mr = fwt_mkey(fw, u1, pd1, mem.umem_id, 4096, 8192, va(4096)) << 8 |
	     0x5a;
	mkc = fwt_mkey_mbox(&m, u1, pd1, mem.umem_id, 4096, 8192, va(4096));
	PRM_SET(mkc, mkc, lw, 0);
	PRM_SET(mkc, mkc, rw, 0);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	mr_ro = PRM_GET(create_mkey_out, m.out, mkey_index) << 8 | 0x5a;
	mr_pd2 = fwt_mkey(fw, u1, pd2, mem.umem_id, 4096, 8192, va(4096)) << 8 |
		 0x5a;
	p1 = emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd1);
	p2 = emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd2);
	emu_fw_rcu_lock();
}

static void teardown(void)
{
	emu_fw_rcu_unlock();
	emu_fw_obj_put(p1);
	emu_fw_obj_put(p2);
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&mem);
}

/* libmlx5 set_bind_wr's bind of [va(off), +len) of @region with @access
 * (EMU_FW_MKEY_*), new key byte @key; type 2 with QP QPN. */
static struct emu_fw_umr bind(uint32_t window, bool type2, uint32_t region,
			      uint64_t off, uint64_t len, unsigned int access,
			      uint8_t key)
{
	struct emu_fw_umr u = {
		.mkey = window,
		.check_free = type2,
		.klm_octowords = 4,
		.set_free = true, .set_key = true, .set_qpn = type2,
		.set_start = true, .set_len = true,
		.set_access = EMU_FW_MKEY_LW | EMU_FW_MKEY_RR | EMU_FW_MKEY_RW |
			      EMU_FW_MKEY_A,
		.access = access,
		.qpn = type2 ? QPN : 0xffffff,
		.key = key,
		.start_addr = va(off),
		.len = len,
		.klm = { .mkey = region, .bcount = (uint32_t)len,
			 .addr = va(off) },
	};

	return u;
}

/* The local invalidation (type 2, key byte 0, check_qpn). */
static struct emu_fw_umr local_inv(uint32_t rkey)
{
	struct emu_fw_umr u = {
		.mkey = rkey, .check_qpn = true,
		.set_free = true, .set_key = true, .set_qpn = true,
		.free = true, .qpn = 0xffffff,
	};

	return u;
}

static enum emu_fw_umr_res umr(const struct emu_fw_umr *u, uint32_t qpn)
{
	return emu_fw_mkey_umr(fw, u1, emu_fw_to_pd(p1), qpn, u);
}

static enum emu_fw_mkey_res resolve(uint32_t key, uint32_t qpn,
				    unsigned int access, uint64_t addr,
				    uint64_t len, uint8_t **host)
{
	return emu_fw_mkey_resolve_qp(fw, key, emu_fw_to_pd(p1), qpn, access,
				      addr, len, host);
}

START_TEST(mw_create_forms)
{
	struct fwt_mbox m, q;
	uint32_t pd3, idx;
	void *mkc;

	emu_fw_rcu_unlock();
	mw_mbox(&m, u1, pd1, true, 0x10);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	/* Not free, or with translations now, or over a umem: not a window. */
	mkc = mw_mbox(&m, u1, pd1, true, 0x10);
	PRM_SET(mkc, mkc, free, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	mw_mbox(&m, u1, pd1, true, 0x10);
	PRM_SET(create_mkey_in, m.in, translations_octword_actual_size, 4);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	mw_mbox(&m, u1, pd1, true, 0x10);
	PRM_SET(create_mkey_in, m.in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, m.in, mkey_umem_id, mem.umem_id);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	mkc = mw_mbox(&m, u1, pd1, true, 0x10);
	PRM_SET(mkc, mkc, translations_octword_size, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	/* The window holds its PD; QUERY_MKEY shows it free. */
	pd3 = fwt_pd(fw, u1);
	mw_mbox(&m, u1, pd3, false, 0x11);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	idx = PRM_GET(create_mkey_out, m.out, mkey_index);
	fwt_mbox_init(&q, MLX5_CMD_OP_QUERY_MKEY, 0, u1, 16,
		      PRM_ST_SZ_BYTES(query_mkey_out));
	PRM_SET(query_mkey_in, q.in, mkey_index, idx);
	fwt_exec(fw, &q);
	ck_fw_ok(&q);
	mkc = PRM_ADDR_OF(query_mkey_out, q.out, memory_key_mkey_entry);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, free), 1);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, en_rinval), 0);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, mkey_7_0), 0x11);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u1, pd3);
	ck_fw_synd(&m, PD_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, idx), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u1, pd3), 0);
	emu_fw_rcu_lock();
}
END_TEST

START_TEST(mw_type1_bind_resolve)
{
	uint32_t w = mw_create(pd1, false, 0x20);
	struct emu_fw_umr u;
	uint8_t *host;

	/* Free: nothing goes through it. */
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096), 8, &host),
			 EMU_FW_MKEY_BAD_KEY);
	u = bind(w, false, mr, 4096 + 256, 1024, EMU_FW_MKEY_RW, 0x21);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	/* The new key, any QP, the rights and bounds of the window. */
	w = (w & ~0xffu) | 0x21;
	ck_assert_int_eq(resolve(w, OTHER_QPN, EMU_FW_MKEY_RW, va(4096 + 256 + 8),
				 16, &host), EMU_FW_MKEY_OK);
	ck_assert_ptr_eq(host, (uint8_t *)mem.addr + 4096 + 256 + 8);
	ck_assert_int_eq(resolve(w, EMU_FW_MKEY_NO_QP, EMU_FW_MKEY_RW,
				 va(4096 + 256), 1024, &host), EMU_FW_MKEY_OK);
	ck_assert_int_eq(resolve(w - 1, QPN, EMU_FW_MKEY_RW, va(4096 + 256), 8,
				 &host), EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096 + 256), 8,
				 &host), EMU_FW_MKEY_BAD_ACCESS);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RW, va(4096 + 255), 8,
				 &host), EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RW, va(4096 + 256 + 1020),
				 8, &host), EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(emu_fw_mkey_resolve_qp(fw, w, emu_fw_to_pd(p2), QPN,
						EMU_FW_MKEY_RW, va(4096 + 256),
						8, &host), EMU_FW_MKEY_BAD_PD);
	/* A type 1 window is rebound without being freed first; a
	 * zero-length rebind frees it. */
	u = bind(w, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x22);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	w = (w & ~0xffu) | 0x22;
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096), 64, &host),
			 EMU_FW_MKEY_OK);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RW, va(4096), 8, &host),
			 EMU_FW_MKEY_BAD_ACCESS);
	u = (struct emu_fw_umr){ .mkey = w, .set_free = true, .set_key = true,
				 .free = true, .qpn = 0xffffff, .key = 0x23 };
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096), 8, &host),
			 EMU_FW_MKEY_BAD_KEY);
	/* A type 1 window is never invalidated by a work request
	 * (o10-37.2.26), nor remotely. */
	u = bind(w, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x24);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	w = (w & ~0xffu) | 0x24;
	u = local_inv(w);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_STATE);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN, w),
			 EMU_FW_UMR_BAD_MKEY);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096), 8, &host),
			 EMU_FW_MKEY_OK);
	/* The region goes: the window leads nowhere. */
	emu_fw_rcu_unlock();
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, mr >> 8),
			  0);
	emu_fw_rcu_lock();
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, va(4096), 8, &host),
			 EMU_FW_MKEY_BAD_KEY);
}
END_TEST

START_TEST(mw_type2_bind_invalidate)
{
	uint32_t w = mw_create(pd1, true, 0x30), rkey = (w & ~0xffu) | 0x31;
	struct emu_fw_umr u = bind(w, true, mr, 4096, 4096,
				   EMU_FW_MKEY_RW | EMU_FW_MKEY_RR, 0x31);
	uint8_t *host;

	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	/* Only the QP it is bound to reaches it. */
	ck_assert_int_eq(resolve(rkey, QPN, EMU_FW_MKEY_RR, va(8184), 8, &host),
			 EMU_FW_MKEY_OK);
	ck_assert_int_eq(resolve(rkey, QPN, EMU_FW_MKEY_RR, va(8192), 8, &host),
			 EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(resolve(rkey, OTHER_QPN, EMU_FW_MKEY_RR, va(8184), 8,
				 &host), EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(resolve(rkey, EMU_FW_MKEY_NO_QP, EMU_FW_MKEY_RR,
				 va(8184), 8, &host), EMU_FW_MKEY_BAD_KEY);
	/* Bound: no second bind (o10-37.2.30), whatever key it names. */
	u = bind(rkey, true, mr, 4096, 64, EMU_FW_MKEY_RR, 0x32);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_STATE);
	/* Invalidation: the current key, from the QP it is bound to. */
	u = local_inv(w);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_MKEY);
	u = local_inv(rkey);
	ck_assert_int_eq(umr(&u, OTHER_QPN), EMU_FW_UMR_BAD_STATE);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(resolve(rkey, QPN, EMU_FW_MKEY_RR, va(8184), 8, &host),
			 EMU_FW_MKEY_BAD_KEY);
	/* Free again: a second invalidation fails, a bind works. */
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_STATE);
	u = bind(w, true, mr, 4096, 64, EMU_FW_MKEY_RR, 0x32);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	rkey = (w & ~0xffu) | 0x32;
	/* Remote invalidation: en_rinval, the key, the PD, the QP. */
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN,
						rkey - 1), EMU_FW_UMR_BAD_MKEY);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p2), QPN,
						rkey), EMU_FW_UMR_BAD_PD);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1),
						OTHER_QPN, rkey),
			 EMU_FW_UMR_BAD_STATE);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN,
						rkey), EMU_FW_UMR_OK);
	ck_assert_int_eq(resolve(rkey, QPN, EMU_FW_MKEY_RR, va(4096), 8, &host),
			 EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN,
						rkey), EMU_FW_UMR_BAD_STATE);
	/* An MR is not remotely invalidated. */
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN, mr),
			 EMU_FW_UMR_BAD_MKEY);
}
END_TEST

/* A type 2 zero-based window: offsets from 0 into the bound range. */
START_TEST(mw_type2_zero_based)
{
	uint32_t w = mw_create(pd1, true, 0x40);
	struct emu_fw_umr u = bind(w, true, mr, 4096 + 512, 256,
				   EMU_FW_MKEY_RR, 0x41);
	uint8_t *host;

	u.start_addr = 0;
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	w = (w & ~0xffu) | 0x41;
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, 16, 8, &host),
			 EMU_FW_MKEY_OK);
	ck_assert_ptr_eq(host, (uint8_t *)mem.addr + 4096 + 512 + 16);
	ck_assert_int_eq(resolve(w, QPN, EMU_FW_MKEY_RR, 250, 8, &host),
			 EMU_FW_MKEY_BAD_BOUNDS);
}
END_TEST

/* Each rule a bind breaks, on a window that stays free. */
START_TEST(mw_bind_rules)
{
	uint32_t w1 = mw_create(pd1, false, 0x50), w2 = mw_create(pd1, true, 0x60);
	uint32_t other = mw_create(pd2, true, 0x70);
	struct emu_fw_umr u;
	uint8_t *host;

	/* The region: [va(4096), va(12288)) of pd1. */
	u = bind(w1, false, mr, 4096 - 8, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* C10-75 */
	u = bind(w1, false, mr, 12288 - 32, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* C10-75 */
	u = bind(w1, false, mr_ro, 4096, 64, EMU_FW_MKEY_RW, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* C10-74 */
	u = bind(w1, false, mr_ro, 4096, 64, EMU_FW_MKEY_A, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* C10-74 */
	u = bind(w1, false, mr_pd2, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_PD);
	u = bind(w1, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	u.start_addr = 0;					/* o10-36.2.2 */
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	u = bind(w1, false, mr + 1, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* stale lkey */
	u = bind(w1, false, w2, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);	/* a window */
	u = bind(w1, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	u.klm_octowords = 8;					/* room: 4 */
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	u = bind(w1, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	u.klm.bcount = 32;					/* KLM short */
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	/* Type 2: the QP posting it (C10-72: its PD too). */
	u = bind(w2, true, mr, 4096, 64, EMU_FW_MKEY_RR, 0x61);
	ck_assert_int_eq(umr(&u, OTHER_QPN), EMU_FW_UMR_BAD_BIND);
	ck_assert_int_eq(emu_fw_mkey_umr(fw, u1, emu_fw_to_pd(p2), QPN, &u),
			 EMU_FW_UMR_BAD_PD);
	u = bind(other, true, mr_pd2, 4096, 64, EMU_FW_MKEY_RR, 0x71);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_PD);
	/* Another uid's QP, or an MR (no umr_en), or nothing. */
	u = bind(w1, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(emu_fw_mkey_umr(fw, u2, emu_fw_to_pd(p1), QPN, &u),
			 EMU_FW_UMR_BAD_MKEY);
	u.mkey = mr;
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_MKEY);
	u.mkey = 0x7fff00;
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_MKEY);
	/* Nothing of it stuck: the windows are free. */
	ck_assert_int_eq(resolve((w1 & ~0xffu) | 0x51, QPN, EMU_FW_MKEY_RR,
				 va(4096), 8, &host), EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(resolve((w2 & ~0xffu) | 0x61, QPN, EMU_FW_MKEY_RR,
				 va(4096), 8, &host), EMU_FW_MKEY_BAD_KEY);
	/* No IBV_ACCESS_MW_BIND in an mkey context: a region without it
	 * binds (see fw_mkey_umr.c). */
	u = bind(w1, false, mr, 4096, 64, EMU_FW_MKEY_RR, 0x51);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
}
END_TEST

/* ---- indirect mkeys (mlx5dv_create_mkey) and their translation lists ---- */

/* Big-endian octowords, as the WQE carries them. */
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* KLM entry @i: {byte_count, mkey, address}. */
static void klm(uint8_t *x, unsigned int i, uint32_t bcount, uint32_t key,
		uint64_t addr)
{
	put32(x + 16 * i, bcount);
	put32(x + 16 * i + 4, key);
	put64(x + 16 * i + 8, addr);
}

/* libmlx5 mkey_configure's UMR: mask FREE, MKEY, the rights, LEN; no
 * start address; the context not free, qpn 0xffffff, key byte 0. */
static struct emu_fw_umr list_umr(uint32_t mkey, const uint8_t *x,
				  uint16_t octowords, uint64_t len,
				  unsigned int access)
{
	struct emu_fw_umr u = {
		.mkey = mkey,
		.klm_octowords = octowords,
		.set_free = true, .set_key = true, .set_len = true,
		.set_access = EMU_FW_MKEY_LW | EMU_FW_MKEY_RR | EMU_FW_MKEY_RW |
			      EMU_FW_MKEY_A,
		.access = access,
		.qpn = 0xffffff,
		.len = len,
		.xlat = x,
	};

	return u;
}

static enum emu_fw_mkey_res run_of(uint32_t key, unsigned int access,
				   uint64_t addr, uint64_t len, uint8_t **host,
				   uint64_t *run)
{
	return emu_fw_mkey_resolve_run(fw, key, emu_fw_to_pd(p1), QPN, access,
				       addr, len, host, run);
}

/* An access through @key at [addr, +len) resolves to mem + @off for
 * @run bytes. */
static void ck_run(uint32_t key, unsigned int access, uint64_t addr,
		   uint64_t len, uint64_t off, uint64_t run)
{
	uint8_t *host;
	uint64_t got;

	ck_assert_int_eq(run_of(key, access, addr, len, &host, &got),
			 EMU_FW_MKEY_OK);
	ck_assert_ptr_eq(host, mem.addr + off);
	ck_assert_uint_eq(got, run);
}

START_TEST(klm_list_resolve)
{
	uint8_t x[64] = { 0 }, bad[128] = { 0 };
	uint32_t k = mw_create(pd1, false, 0), k2 = mw_create(pd1, false, 0);
	struct emu_fw_umr u;
	uint8_t *host;
	uint64_t run;

	/* Nothing before a UMR: the mkey is created free. */
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 0, 8, &host, &run),
			 EMU_FW_MKEY_BAD_KEY);
	/* [0, 8) -> region at 4096; [8, 16) -> region at 4096 + 64. */
	klm(x, 0, 8, mr, va(4096));
	klm(x, 1, 8, mr, va(4096 + 64));
	u = list_umr(k, x, 4, 16, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_run(k, EMU_FW_MKEY_LW, 0, 16, 4096, 8);
	ck_run(k, EMU_FW_MKEY_LW, 8, 8, 4096 + 64, 8);
	ck_run(k, EMU_FW_MKEY_LR, 5, 2, 4096 + 5, 2);
	/* In one piece only within one entry. */
	ck_assert_int_eq(resolve(k, QPN, EMU_FW_MKEY_LR, 0, 16, &host),
			 EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(resolve(k, QPN, EMU_FW_MKEY_LR, 8, 8, &host),
			 EMU_FW_MKEY_OK);
	/* Past the length, rights not granted, another PD. */
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 0, 17, &host, &run),
			 EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 16, 1, &host, &run),
			 EMU_FW_MKEY_BAD_BOUNDS);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_RW, 0, 8, &host, &run),
			 EMU_FW_MKEY_BAD_ACCESS);
	ck_assert_int_eq(emu_fw_mkey_resolve_run(fw, k, emu_fw_to_pd(p2), QPN,
						 EMU_FW_MKEY_LR, 0, 8, &host,
						 &run), EMU_FW_MKEY_BAD_PD);
	/* An entry's region is checked when used: a read-only region
	 * refuses a write through it; an indirect mkey is no region (no
	 * nesting); the first entry still works. */
	klm(x, 1, 8, mr_ro, va(4096 + 64));
	u = list_umr(k, x, 4, 16, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LW, 8, 8, &host, &run),
			 EMU_FW_MKEY_BAD_ACCESS);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 8, 8, &host, &run),
			 EMU_FW_MKEY_OK);
	klm(x, 1, 8, k2, 0);
	u = list_umr(k, x, 4, 16, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 8, 8, &host, &run),
			 EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 0, 8, &host, &run),
			 EMU_FW_MKEY_OK);
	/* Bad UMRs change nothing: more octowords than the mkey was made
	 * with, a length past the list's bytes. */
	klm(bad, 0, 4, mr, va(8192));
	u = list_umr(k, bad, 8, 4, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	u = list_umr(k, bad, 4, 5, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	ck_run(k, EMU_FW_MKEY_LR, 0, 8, 4096, 8);
}
END_TEST

START_TEST(klm_interleaved_resolve)
{
	uint8_t x[64] = { 0 };
	uint32_t k = mw_create(pd1, false, 0);
	struct emu_fw_umr u;
	uint8_t *host;
	uint64_t run;

	/* Repeat block {byte_count 16, op 0x400, repeat 3, num_ent 2};
	 * entries {stride 10, byte_count 8, mkey, va}: repetition r of
	 * entry i is [va_i + 10 r, + 8). */
	put32(x, 16);
	put32(x + 4, 0x400);
	put32(x + 8, 3);
	put32(x + 12, 2);
	put32(x + 16, 10u << 16 | 8);
	put32(x + 20, mr);
	put64(x + 24, va(4096));
	put32(x + 32, 10u << 16 | 8);
	put32(x + 36, mr);
	put64(x + 40, va(4096 + 64));
	u = list_umr(k, x, 4, 48, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_run(k, EMU_FW_MKEY_LW, 0, 48, 4096, 8);
	ck_run(k, EMU_FW_MKEY_LW, 16, 32, 4096 + 10, 8);
	ck_run(k, EMU_FW_MKEY_LW, 24, 8, 4096 + 64 + 10, 8);
	ck_run(k, EMU_FW_MKEY_LW, 42, 6, 4096 + 64 + 20 + 2, 6);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LW, 42, 7, &host, &run),
			 EMU_FW_MKEY_BAD_BOUNDS);
	/* The block's byte_count must be its entries' sum; the length no
	 * more than the repetitions cover; at least one repetition. */
	put32(x, 15);
	u = list_umr(k, x, 4, 48, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	put32(x, 16);
	u = list_umr(k, x, 4, 49, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	put32(x + 8, 0);
	u = list_umr(k, x, 4, 0, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_BIND);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LW, 42, 6, &host, &run),
			 EMU_FW_MKEY_OK);
}
END_TEST

START_TEST(klm_invalidate)
{
	uint8_t x[64] = { 0 };
	uint32_t k = mw_create(pd1, false, 0), r = mw_create(pd1, true, 0);
	struct emu_fw_umr u;
	uint8_t *host;
	uint64_t run;

	klm(x, 0, 64, mr, va(4096));
	u = list_umr(k, x, 4, 64, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	u = list_umr(r, x, 4, 64, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	/* Bound to no QP: LOCAL_INV (check_qpn) through any QP. */
	u = local_inv(k);
	ck_assert_int_eq(umr(&u, OTHER_QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 0, 8, &host, &run),
			 EMU_FW_MKEY_BAD_KEY);
	/* Invalid already: a second LOCAL_INV is refused. */
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_BAD_STATE);
	/* SEND_WITH_INV: only with en_rinval, on any QP of its PD. */
	u = list_umr(k, x, 4, 64, EMU_FW_MKEY_LW);
	ck_assert_int_eq(umr(&u, QPN), EMU_FW_UMR_OK);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1), QPN, k),
			 EMU_FW_UMR_BAD_MKEY);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p2), QPN, r),
			 EMU_FW_UMR_BAD_PD);
	ck_assert_int_eq(emu_fw_mkey_invalidate(fw, emu_fw_to_pd(p1),
						OTHER_QPN, r), EMU_FW_UMR_OK);
	ck_assert_int_eq(run_of(r, EMU_FW_MKEY_LR, 0, 8, &host, &run),
			 EMU_FW_MKEY_BAD_KEY);
	ck_assert_int_eq(run_of(k, EMU_FW_MKEY_LR, 0, 8, &host, &run),
			 EMU_FW_MKEY_OK);
}
END_TEST

START_TEST(klm_create_limit)
{
	struct fwt_mbox m;
	void *mkc;

	emu_fw_rcu_unlock();
	/* log_max_klm_list_size is 16: 2^16 octowords at most. */
	mkc = mw_mbox(&m, u1, pd1, false, 0);
	PRM_SET(mkc, mkc, translations_octword_size, 65537);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_KLM_LIST_TOO_LONG);
	mkc = mw_mbox(&m, u1, pd1, false, 0);
	PRM_SET(mkc, mkc, translations_octword_size, 65536);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	emu_fw_rcu_lock();
}
END_TEST

static Suite *fw_mkey_umr_suite(void)
{
	Suite *s = suite_create("fw_mkey_umr");
	TCase *tc = tcase_create("mw");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mw_create_forms);
	tcase_add_test(tc, mw_type1_bind_resolve);
	tcase_add_test(tc, mw_type2_bind_invalidate);
	tcase_add_test(tc, mw_type2_zero_based);
	tcase_add_test(tc, mw_bind_rules);
	tcase_add_test(tc, klm_list_resolve);
	tcase_add_test(tc, klm_interleaved_resolve);
	tcase_add_test(tc, klm_invalidate);
	tcase_add_test(tc, klm_create_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_mkey_umr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
