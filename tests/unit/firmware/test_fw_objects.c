/* SPDX-License-Identifier: MIT */
/*
 * Object tables through the simple objects: user contexts, PDs, transport
 * domains, UARs -- numbering, limits, uid rules, and the lookup API.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;

static void setup(void)
{
	fw = fwt_create(NULL);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

static uint32_t alloc_td(uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_TRANSPORT_DOMAIN,
			 alloc_transport_domain, transport_domain);
}

START_TEST(pd_alloc_dealloc)
{
	struct fwt_mbox m;
	uint32_t a, b, c;

	a = fwt_pd(fw, 0);
	b = fwt_pd(fw, 0);
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 2);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0, a), 0);
	/* a freed number is not handed out again at once */
	c = fwt_pd(fw, 0);
	ck_assert_uint_ne(c, a);
	ck_assert_uint_ne(c, b);
	/* twice, or never allocated */
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, 0, a);
	ck_fw_synd(&m, PD_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, 0, 0xabcd);
	ck_fw_synd(&m, PD_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 2);
}
END_TEST

START_TEST(td_uar_alloc_dealloc)
{
	struct fwt_mbox m;
	uint32_t td = alloc_td(0), uar = fwt_uar(fw, 0);

	ck_assert_uint_ne(td, 0);
	ck_assert_uint_ne(uar, 0);	/* page 0 is never handed out */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
				      0, td), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN, 0, td);
	ck_fw_synd(&m, TD_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR, 0, uar), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_UAR, 0, uar);
	ck_fw_synd(&m, UAR_INVALID);
}
END_TEST

static void small_limits(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_pd", 2),
			 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "uar_sz", 0), 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_uctx",
					 1), 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL,
					 "log_max_transport_domain", 1), 0);
}

START_TEST(limits)
{
	struct fwt_mbox m;
	uint32_t pd[4];

	emu_fw_destroy(fw);
	fw = fwt_create(small_limits);
	for (int i = 0; i < 4; i++)
		pd[i] = fwt_pd(fw, 0);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, 0, 16, 16);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_LIM_ERR);
	ck_fw_synd(&m, PD_LIMIT);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 4);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0, pd[1]), 0);
	ck_assert_uint_ne(fwt_pd(fw, 0), 0);

	for (int i = 0; i < 256; i++)	/* uar_sz 0: 1 MiB, 256 pages */
		fwt_uar(fw, 0);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_UAR, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UAR_LIMIT);

	fwt_uctx(fw);
	fwt_uctx(fw);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_UCTX, 0, 0,
		      PRM_ST_SZ_BYTES(create_uctx_in), 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UCTX_LIMIT);

	alloc_td(0);
	alloc_td(0);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TD_LIMIT);
}
END_TEST

/* Only the owner deallocates; uid 0 is an owner like any other. */
START_TEST(uid_owner_only)
{
	uint16_t u1 = fwt_uctx(fw), u2 = fwt_uctx(fw);
	uint32_t pd1 = fwt_pd(fw, u1), pdk = fwt_pd(fw, 0);
	uint32_t uar1 = fwt_uar(fw, u1);
	struct fwt_mbox m;

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u2, pd1);
	ck_fw_synd(&m, PD_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, 0, pd1);
	ck_fw_synd(&m, PD_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, u1, pdk);
	ck_fw_synd(&m, PD_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_UAR, u2, uar1);
	ck_fw_synd(&m, UAR_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_PD), 2);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, u1, pd1), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0, pdk), 0);
}
END_TEST

/* A context with objects cannot go; once empty it can, and its uid dies. */
START_TEST(uctx_lifetime)
{
	uint16_t uid = fwt_uctx(fw);
	uint32_t pd = fwt_pd(fw, uid);
	struct fwt_mem mem;
	struct fwt_mbox m;

	fwt_mem_reg(fw, uid, 4096, &mem);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, uid);
	ck_fw_synd(&m, UCTX_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, uid, pd), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, uid);
	ck_fw_synd(&m, UCTX_IN_USE);	/* the umem is charged too */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, uid, mem.umem_id), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UCTX, 0, uid), 0);
	fwt_mem_free(&mem);
	/* the uid is dead now */
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_PD, 0, uid, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, uid);
	ck_fw_synd(&m, UCTX_INVALID);
	fwt_umem_mbox(&m, uid, &m, 8, 12, EMU_FW_UMEM_READ);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UID);
}
END_TEST

START_TEST(lookup_api)
{
	uint32_t pd = fwt_pd(fw, 0);
	struct emu_fw_obj *obj;

	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd);
	ck_assert_ptr_nonnull(obj);
	ck_assert_uint_eq(obj->id, pd);
	ck_assert_str_eq(emu_fw_obj_type_name(obj->type), "PD");
	/* destroyed while referenced: gone from lookups, memory stays */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0, pd), 0);
	ck_assert_ptr_null(emu_fw_obj_get(fw, EMU_FW_OBJ_PD, pd));
	ck_assert_uint_eq(obj->id, pd);
	emu_fw_obj_put(obj);
	ck_assert_ptr_null(emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, 1));
	ck_assert_ptr_null(emu_fw_obj_get(fw, EMU_FW_OBJ_NTYPES, 1));
	emu_fw_rcu_lock();
	ck_assert_ptr_null(emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_PD, pd));
	emu_fw_rcu_unlock();
}
END_TEST

/* Look every object up, alternating; each must be itself or gone. */
static void ck_lookups(const uint32_t *ids, const bool *live, int n)
{
	emu_fw_rcu_lock();
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < n; k++) {
			int i = pass ? n - 1 - k : k;
			struct emu_fw_obj *obj =
				emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_PD, ids[i]);

			if (!live[i]) {
				ck_assert_ptr_null(obj);
				continue;
			}
			ck_assert_ptr_nonnull(obj);
			ck_assert_uint_eq(obj->id, ids[i]);
			ck_assert_uint_eq(obj->type, EMU_FW_OBJ_PD);
		}
	emu_fw_rcu_unlock();
}

/* More objects than the lookaside has slots, so some share one: lookups
 * keep finding the right object as they replace each other there, and a
 * destroyed object is never found again (ASan: nor its memory read). */
START_TEST(lookup_many_and_destroyed)
{
	enum { N = 150 };
	uint32_t ids[N];
	bool live[N];

	for (int i = 0; i < N; i++) {
		ids[i] = fwt_pd(fw, 0);
		live[i] = true;
	}
	ck_lookups(ids, live, N);
	for (int i = 0; i < N; i += 2) {
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0,
					      ids[i]), 0);
		live[i] = false;
	}
	ck_lookups(ids, live, N);
	for (int i = 1; i < N; i += 2) {
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, 0,
					      ids[i]), 0);
		live[i] = false;
	}
	ck_lookups(ids, live, N);
}
END_TEST

/* Destroying the device with objects left frees everything (ASan). */
START_TEST(destroy_with_objects)
{
	uint16_t uid = fwt_uctx(fw);
	struct fwt_mem mem;

	fwt_pd(fw, uid);
	fwt_uar(fw, uid);
	alloc_td(uid);
	fwt_mem_reg(fw, uid, 4096, &mem);
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&mem);
}
END_TEST

static Suite *fw_objects_suite(void)
{
	Suite *s = suite_create("fw_objects");
	TCase *tc = tcase_create("objects");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pd_alloc_dealloc);
	tcase_add_test(tc, td_uar_alloc_dealloc);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, uid_owner_only);
	tcase_add_test(tc, uctx_lifetime);
	tcase_add_test(tc, lookup_api);
	tcase_add_test(tc, lookup_many_and_destroyed);
	tcase_add_test(tc, destroy_with_objects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_objects_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
