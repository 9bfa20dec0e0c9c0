/* SPDX-License-Identifier: MIT */
/* CREATE_MKEY / QUERY_MKEY / DESTROY_MKEY and the PD and umem they use. */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;
static uint16_t u1, u2;
static uint32_t pd1;
static struct fwt_mem mem;

static void setup(void)
{
	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
	pd1 = fwt_pd(fw, u1);
	fwt_mem_reg(fw, u1, 65536, &mem);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&mem);
}

/* A read/write MTT mkey over [off, off + len) of umem, iova = its VA. */
static void *mkey_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t pd,
		       uint32_t umem, uint64_t off, uint64_t len)
{
	return fwt_mkey_mbox(m, uid, pd, umem, off, len,
			     (uintptr_t)mem.addr + off);
}

static uint32_t mkey_create(uint16_t uid, uint32_t pd, uint64_t off,
			    uint64_t len)
{
	return fwt_mkey(fw, uid, pd, mem.umem_id, off, len,
			(uintptr_t)mem.addr + off);
}

/* QUERY_MKEY by u1: the mkc in m's outbox. */
static const void *mkey_query(struct fwt_mbox *m, uint32_t idx)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_MKEY, 0, u1, 16,
		      PRM_ST_SZ_BYTES(query_mkey_out));
	PRM_SET(query_mkey_in, m->in, mkey_index, idx);
	fwt_exec(fw, m);
	ck_fw_ok(m);
	return PRM_ADDR_OF(query_mkey_out, m->out, memory_key_mkey_entry);
}

START_TEST(mkey_good)
{
	uint32_t idx = mkey_create(u1, pd1, 4096, 8192);
	struct emu_fw_mkey *mk;
	struct emu_fw_obj *obj;
	struct fwt_mbox m;
	const void *mkc;

	ck_assert_uint_ne(idx, 0);
	mkc = mkey_query(&m, idx);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, pd), pd1);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, mkey_7_0), 0x5a);
	ck_assert_uint_eq(PRM_GET64(mkc, mkc, len), 8192);
	ck_assert_uint_eq(PRM_GET64(mkc, mkc, start_addr),
			  (uintptr_t)mem.addr + 4096);

	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_MKEY, idx);
	ck_assert_ptr_nonnull(obj);
	mk = emu_fw_to_mkey(obj);
	ck_assert_ptr_eq(mk->mem.addr, (uint8_t *)mem.addr + 4096);
	ck_assert_uint_eq(mk->mem.len, 8192);
	ck_assert_uint_eq(emu_fw_mkey_key(mk), idx << 8 | 0x5a);
	ck_assert_uint_eq(mk->access, EMU_FW_MKEY_LR | EMU_FW_MKEY_LW |
				      EMU_FW_MKEY_RR | EMU_FW_MKEY_RW);
	ck_assert_ptr_eq(&mk->pd->obj,
			 emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd1));
	emu_fw_obj_put(&mk->pd->obj);
	emu_fw_obj_put(obj);

	/* the whole umem is fine, and a uid 0 PD may be used */
	ck_assert_uint_ne(mkey_create(u1, fwt_pd(fw, 0), 0, 65536), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, idx),
			  0);
}
END_TEST

START_TEST(mkey_bad_refs)
{
	uint32_t pd2 = fwt_pd(fw, u2);
	struct fwt_mem mem2;
	struct fwt_mbox m;

	mkey_mbox(&m, u1, 0x77777, mem.umem_id, 0, 4096);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_PD);
	mkey_mbox(&m, u1, pd2, mem.umem_id, 0, 4096);	/* another uid's */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_PD);
	mkey_mbox(&m, u1, pd1, 0x4242, 0, 4096);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	fwt_mem_reg(fw, u2, 4096, &mem2);
	mkey_mbox(&m, u1, pd1, mem2.umem_id, 0, 4096);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(create_mkey_in, m.in, mkey_umem_valid, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_REQUIRED);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_MKEY), 0);
	/* nothing was left in use */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u2, pd2), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u2, mem2.umem_id), 0);
	fwt_mem_free(&mem2);
}
END_TEST

START_TEST(mkey_bad_params)
{
	struct fwt_mbox m;
	void *mkc;

	mkey_mbox(&m, u1, pd1, mem.umem_id, 4096, 65536 - 4095);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_OUT_OF_RANGE);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, length64, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_OUT_OF_RANGE);

	mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 0);
	ck_assert_uint_eq(fwt_exec(fw, &m), 0x3);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x3bf6f);
	ck_fw_synd(&m, MKEY_ZERO_LEN);

	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, access_mode_4_2, 1);	/* SW ICM */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_BAD_ACCESS_MODE);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, umr_en, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_UMR_NOT_SUPPORTED);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, free, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_UMR_NOT_SUPPORTED);
	mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(create_mkey_in, m.in, pg_access, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_UMEM_PG_ACCESS);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, crypto_en, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_FEATURE_NOT_SUPPORTED);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, relaxed_ordering_write, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_FEATURE_NOT_SUPPORTED);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_MKEY), 0);

	/* remote atomic is fine: the device advertises atomics */
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, a, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

static void no_atomic(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "atomic", 0), 0);
	memset(emu_fw_caps_page_mut(c, MLX5_CAP_ATOMIC), 0,
	       EMU_FW_CAP_PAGE_BYTES);
}

START_TEST(mkey_atomic_not_advertised)
{
	struct fwt_mbox m;
	void *mkc;

	teardown();
	fw = fwt_create(no_atomic);
	u1 = fwt_uctx(fw);
	pd1 = fwt_pd(fw, u1);
	fwt_mem_reg(fw, u1, 65536, &mem);
	mkc = mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	PRM_SET(mkc, mkc, a, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_ATOMIC_NOT_SUPPORTED);
	/* Nor may the kernel's UMR grant atomic rights. */
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u1, mkey_create(u1, pd1, 0, 4096),
					   pd1, EMU_FW_MKEY_A), -EINVAL);
}
END_TEST

/* A PD with an mkey and a umem under an mkey cannot go; nothing changes. */
START_TEST(mkey_use_counts)
{
	uint32_t idx = mkey_create(u1, pd1, 0, 4096);
	struct fwt_mbox m;

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u1, pd1);
	ck_assert_uint_eq(emu_fw_out_status(m.out), 0x9);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x31b635);
	ck_fw_synd(&m, PD_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, mem.umem_id,
			   UMEM_IN_USE);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 1);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), 1);
	/* the PD still works */
	ck_assert_uint_ne(mkey_create(u1, pd1, 4096, 4096), 0);

	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, idx),
			  0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u1, pd1);
	ck_fw_synd(&m, PD_IN_USE);	/* the second mkey */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1,
				      idx + 1), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u1, pd1), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, mem.umem_id), 0);
}
END_TEST

START_TEST(mkey_uid_rules)
{
	uint32_t idx = mkey_create(u1, pd1, 0, 4096);
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_MKEY, 0, u2, 16,
		      PRM_ST_SZ_BYTES(query_mkey_out));
	PRM_SET(query_mkey_in, m.in, mkey_index, idx);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, MKEY_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_MKEY, u2, idx);
	ck_fw_synd(&m, MKEY_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_MKEY, 0, idx);
	ck_fw_synd(&m, MKEY_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_MKEY), 1);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, idx),
			  0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_MKEY, u1, idx);
	ck_fw_synd(&m, MKEY_INVALID);
}
END_TEST

/* The kernel's UMR of PD and rights: the key and translation stay, the
 * PD's use moves, QUERY_MKEY shows the new mkc, resolution follows. */
START_TEST(mkey_rereg_pd_access)
{
	uint32_t idx = mkey_create(u1, pd1, 0, 4096), pd2 = fwt_pd(fw, u1);
	uint64_t va = (uintptr_t)mem.addr;
	struct emu_fw_obj *p1, *p2;
	struct fwt_mbox m;
	const void *mkc;
	uint8_t *host;

	p1 = emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd1);
	p2 = emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd2);
	emu_fw_rcu_lock();
	ck_assert_int_eq(emu_fw_mkey_resolve(fw, idx << 8 | 0x5a,
					     emu_fw_to_pd(p1), EMU_FW_MKEY_RW,
					     va, 8, &host), EMU_FW_MKEY_OK);
	emu_fw_rcu_unlock();
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u1, idx, pd2,
					   EMU_FW_MKEY_LW | EMU_FW_MKEY_A), 0);
	emu_fw_rcu_lock();
	ck_assert_int_eq(emu_fw_mkey_resolve(fw, idx << 8 | 0x5a,
					     emu_fw_to_pd(p1), EMU_FW_MKEY_LR,
					     va, 8, &host), EMU_FW_MKEY_BAD_PD);
	ck_assert_int_eq(emu_fw_mkey_resolve(fw, idx << 8 | 0x5a,
					     emu_fw_to_pd(p2), EMU_FW_MKEY_RW,
					     va, 8, &host), EMU_FW_MKEY_BAD_ACCESS);
	ck_assert_int_eq(emu_fw_mkey_resolve(fw, idx << 8 | 0x5a,
					     emu_fw_to_pd(p2), EMU_FW_MKEY_A,
					     va + 8, 8, &host), EMU_FW_MKEY_OK);
	ck_assert_ptr_eq(host, (uint8_t *)mem.addr + 8);
	emu_fw_rcu_unlock();
	emu_fw_obj_put(p1);
	emu_fw_obj_put(p2);
	mkc = mkey_query(&m, idx);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, pd), pd2);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, mkey_7_0), 0x5a);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, lr), 1);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, lw), 1);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, rr), 0);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, rw), 0);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, a), 1);
	/* The use moved: the old PD may go, the new one not. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u1, pd1), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u1, pd2);
	ck_fw_synd(&m, PD_IN_USE);
	/* Another uid's mkey or PD, or none: nothing changes. */
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u2, idx, pd2, 0), -ENOENT);
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u1, idx, fwt_pd(fw, u2), 0),
			 -ENOENT);
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u1, idx + 1, pd2, 0), -ENOENT);
	ck_assert_int_eq(emu_fw_mkey_rereg(fw, u1, idx, pd1, 0), -ENOENT);
	mkc = mkey_query(&m, idx);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, pd), pd2);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, a), 1);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_MKEY, u1, idx),
			  0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u1, pd2), 0);
}
END_TEST

static void two_mkeys(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_mkey",
					 1), 0);
}

START_TEST(mkey_limit)
{
	struct fwt_mbox m;

	teardown();
	fw = fwt_create(two_mkeys);
	u1 = fwt_uctx(fw);
	pd1 = fwt_pd(fw, u1);
	fwt_mem_reg(fw, u1, 65536, &mem);
	mkey_create(u1, pd1, 0, 4096);
	mkey_create(u1, pd1, 0, 4096);
	mkey_mbox(&m, u1, pd1, mem.umem_id, 0, 4096);
	ck_assert_uint_eq(fwt_exec(fw, &m), 0x8);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x18af6);
	ck_fw_synd(&m, MKEY_LIMIT);
	/* the failed create left no use on the PD */
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_MKEY), 2);
}
END_TEST

static Suite *fw_mkey_suite(void)
{
	Suite *s = suite_create("fw_mkey");
	TCase *tc = tcase_create("mkey");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mkey_good);
	tcase_add_test(tc, mkey_bad_refs);
	tcase_add_test(tc, mkey_bad_params);
	tcase_add_test(tc, mkey_atomic_not_advertised);
	tcase_add_test(tc, mkey_use_counts);
	tcase_add_test(tc, mkey_uid_rules);
	tcase_add_test(tc, mkey_rereg_pd_access);
	tcase_add_test(tc, mkey_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_mkey_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
