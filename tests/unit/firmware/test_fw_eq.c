/* SPDX-License-Identifier: MIT */
/* CREATE_EQ / QUERY_EQ / DESTROY_EQ: page lists, events, limits, uids. */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;
static uint16_t u1, u2;
static uint32_t kuar;
static struct fwt_mem kmem;

static void setup(void)
{
	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 65536, &kmem);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&kmem);
}

static void *eq_mbox(struct fwt_mbox *m, uint16_t uid, uint32_t uar,
		     unsigned int log_size, const void *buf, size_t npages)
{
	void *eqc;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_EQ, 0, uid,
		      PRM_ST_SZ_BYTES(create_eq_in) + npages * 8,
		      PRM_ST_SZ_BYTES(create_eq_out));
	eqc = PRM_ADDR_OF(create_eq_in, m->in, eq_context_entry);
	PRM_SET(eqc, eqc, log_eq_size, log_size);
	PRM_SET(eqc, eqc, uar_page, uar);
	for (size_t i = 0; i < npages; i++) {
		uint64_t pa = htobe64((uint64_t)(uintptr_t)buf + i * 4096);

		memcpy(PRM_ARRAY_ADDR(create_eq_in, m->in, pas, i), &pa, 8);
	}
	return eqc;
}

static void set_mask(struct fwt_mbox *m, unsigned int i, uint64_t v)
{
	uint64_t be = htobe64(v);

	memcpy(PRM_ARRAY_ADDR(create_eq_in, m->in, event_bitmask, i), &be, 8);
}

/* The kernel's async EQ mask on a RoCE function without extra events. */
#define ASYNC_MASK ((1ull << MLX5_EVENT_TYPE_PATH_MIG) |		\
		    (1ull << MLX5_EVENT_TYPE_COMM_EST) |		\
		    (1ull << MLX5_EVENT_TYPE_SQ_DRAINED) |		\
		    (1ull << MLX5_EVENT_TYPE_CQ_ERROR) |		\
		    (1ull << MLX5_EVENT_TYPE_WQ_CATAS_ERROR) |		\
		    (1ull << MLX5_EVENT_TYPE_PATH_MIG_FAILED) |		\
		    (1ull << MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR) |	\
		    (1ull << MLX5_EVENT_TYPE_WQ_ACCESS_ERROR) |		\
		    (1ull << MLX5_EVENT_TYPE_SRQ_CATAS_ERROR) |		\
		    (1ull << MLX5_EVENT_TYPE_INTERNAL_ERROR) |		\
		    (1ull << MLX5_EVENT_TYPE_PORT_CHANGE) |		\
		    (1ull << MLX5_EVENT_TYPE_SRQ_LAST_WQE) |		\
		    (1ull << MLX5_EVENT_TYPE_SRQ_RQ_LIMIT))

START_TEST(eq_good)
{
	struct emu_fw_obj *obj;
	struct emu_fw_eq *eq;
	struct fwt_mbox m;
	uint32_t eqn;
	void *eqc;

	eq_mbox(&m, 0, kuar, 8, kmem.addr, 4);	/* 16 KiB, 4 pages */
	set_mask(&m, 0, ASYNC_MASK);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	eqn = PRM_GET(create_eq_out, m.out, eq_number);
	ck_assert_uint_ne(eqn, 0);

	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_EQ, eqn);
	ck_assert_ptr_nonnull(obj);
	eq = emu_fw_to_eq(obj);
	ck_assert_ptr_eq(eq->buf.addr, kmem.addr);
	ck_assert_uint_eq(eq->buf.len, 16384);
	ck_assert_uint_eq(eq->log_size, 8);
	ck_assert_uint_eq(eq->event_bitmask[0], ASYNC_MASK);
	ck_assert_uint_eq(eq->uar->obj.id, kuar);
	emu_fw_obj_put(obj);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_EQ, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_eq_out));
	PRM_SET(query_eq_in, m.in, eq_number, eqn);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	eqc = PRM_ADDR_OF(query_eq_out, m.out, eq_context_entry);
	ck_assert_uint_eq(PRM_GET(eqc, eqc, log_eq_size), 8);
	ck_assert_uint_eq(PRM_GET(eqc, eqc, uar_page), kuar);
	ck_assert_uint_eq(PRM_GET64(query_eq_out, m.out, event_bitmask),
			  ASYNC_MASK);

	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_EQ, 0, eqn), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_EQ, 0, eqn);
	ck_fw_synd(&m, EQ_INVALID);
}
END_TEST

START_TEST(eq_pages)
{
	static uint8_t unregistered[8192] __attribute__((aligned(4096)));
	struct fwt_mem umem1;
	struct fwt_mbox m;
	uint64_t pa;

	/* missing page list entries: the inbox is too short */
	eq_mbox(&m, 0, kuar, 8, kmem.addr, 4);
	m.inlen -= 8;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_INLEN);
	/* not virtually contiguous */
	eq_mbox(&m, 0, kuar, 7, kmem.addr, 2);
	pa = htobe64((uint64_t)(uintptr_t)kmem.addr + 3 * 4096);
	memcpy(PRM_ARRAY_ADDR(create_eq_in, m.in, pas, 1), &pa, 8);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_CONTIGUOUS);
	/* memory the device was never given */
	eq_mbox(&m, 0, kuar, 6, unregistered, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	/* past the end of the registration */
	eq_mbox(&m, 0, kuar, 8, (uint8_t *)kmem.addr + 61440, 4);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	/* no page list at all */
	eq_mbox(&m, 0, kuar, 6, kmem.addr, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_REQUIRED);

	/* a user EQ in its own memory; neither in the kernel's nor in
	 * another's, and the kernel's never in a user's (umems belong to
	 * their uid alone) */
	fwt_mem_reg(fw, u1, 8192, &umem1);
	eq_mbox(&m, u1, fwt_uar(fw, u1), 6, umem1.addr, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	eq_mbox(&m, u1, kuar, 6, kmem.addr, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	eq_mbox(&m, u2, kuar, 6, umem1.addr, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	eq_mbox(&m, 0, kuar, 6, umem1.addr, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	/* the EQ's memory stays registered while it lives */
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, umem1.umem_id,
			   UMEM_IN_USE);
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&umem1);
}
END_TEST

/* The device writes EQEs: the EQ's pages must be registered writable. */
START_TEST(eq_ring_needs_write)
{
	uint8_t *ro = aligned_alloc(4096, 8192);
	uint32_t ro_umem;
	struct fwt_mbox m;

	ck_assert_ptr_nonnull(ro);
	ro_umem = fwt_umem_reg_access(fw, 0, ro, 8192, EMU_FW_UMEM_READ);
	ck_assert_uint_ne(ro_umem, 0);
	eq_mbox(&m, 0, kuar, 7, ro, 2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_NOT_WRITABLE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, 0, ro_umem),
			  0);
	free(ro);
}
END_TEST

START_TEST(eq_bad_params)
{
	struct fwt_mbox m;
	void *eqc;

	eq_mbox(&m, 0, kuar, 16, kmem.addr, 16);	/* > log_max_eq_sz 15 */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_BAD_SIZE);

	eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	/* no tag matching: no XRQ errors */
	set_mask(&m, 0, ASYNC_MASK | 1ull << MLX5_EVENT_TYPE_XRQ_ERROR);
	ck_assert_uint_eq(fwt_exec(fw, &m), 0x3);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x8fef);
	ck_fw_synd(&m, EQ_BAD_EVENT_TYPE);
	eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	set_mask(&m, 0, 1ull << MLX5_EVENT_TYPE_PORT_MODULE_EVENT);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_BAD_EVENT_TYPE);
	eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	set_mask(&m, 2, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_BAD_EVENT_TYPE);

	eqc = eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	PRM_SET(eqc, eqc, intr, 64);	/* 2^log_max_eq vectors */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_BAD_INTR);
	eqc = eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	PRM_SET(eqc, eqc, st, 0x3);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_BAD_ST);
	eq_mbox(&m, 0, 0x999, 6, kmem.addr, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UAR);
	eq_mbox(&m, 0, fwt_uar(fw, u1), 6, kmem.addr, 1);	/* a user's */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UAR);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_EQ), 0);
}
END_TEST

START_TEST(eq_uid_and_use)
{
	struct fwt_mem umem1;
	struct fwt_mbox m;
	uint32_t uar1 = fwt_uar(fw, u1), eqn;

	fwt_mem_reg(fw, u1, 4096, &umem1);
	eqn = fwt_eq(fw, u1, uar1, 6, &umem1);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_EQ, 0, u2, 16,
		      PRM_ST_SZ_BYTES(query_eq_out));
	PRM_SET(query_eq_in, m.in, eq_number, eqn);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, EQ_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_EQ, u2, eqn);
	ck_fw_synd(&m, EQ_INVALID);
	/* its UAR is in use */
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_UAR, u1, uar1);
	ck_fw_synd(&m, UAR_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_EQ, u1, eqn), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR, u1, uar1),
			  0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, umem1.umem_id), 0);
	fwt_mem_free(&umem1);
}
END_TEST

static void two_eqs(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_eq", 1),
			 0);
}

START_TEST(eq_limit)
{
	struct fwt_mbox m;

	teardown();
	fw = fwt_create(two_eqs);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 65536, &kmem);
	fwt_eq(fw, 0, kuar, 6, &kmem);
	fwt_eq(fw, 0, kuar, 6, &kmem);
	eq_mbox(&m, 0, kuar, 6, kmem.addr, 1);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_LIM_ERR);
	ck_fw_synd(&m, EQ_LIMIT);
}
END_TEST

static Suite *fw_eq_suite(void)
{
	Suite *s = suite_create("fw_eq");
	TCase *tc = tcase_create("eq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, eq_good);
	tcase_add_test(tc, eq_pages);
	tcase_add_test(tc, eq_ring_needs_write);
	tcase_add_test(tc, eq_bad_params);
	tcase_add_test(tc, eq_uid_and_use);
	tcase_add_test(tc, eq_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_eq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
