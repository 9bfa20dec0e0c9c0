/* SPDX-License-Identifier: MIT */
/*
 * CREATE_UMEM / DESTROY_UMEM: a umem is what its MTT list says (pages,
 * page size, offset in the first page, rights), refused when the emulator
 * cannot represent it; a umem something lies in cannot be destroyed.
 */
#include <stdlib.h>

#include "fw_test_util.h"

#define RW (EMU_FW_UMEM_READ | EMU_FW_UMEM_WRITE)

static struct emu_fw *fw;
static uint16_t u1, u2;
static uint8_t *mem;		/* 64 KiB, 64 KiB aligned */

static void setup(void)
{
	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
	mem = aligned_alloc(65536, 65536);
	ck_assert_ptr_nonnull(mem);
	memset(mem, 0, 65536);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
	free(mem);
}

static struct emu_fw_umem *umem_get(uint32_t id)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, EMU_FW_OBJ_UMEM, id);

	ck_assert_ptr_nonnull(obj);
	emu_fw_obj_put(obj);	/* the table keeps it while the test looks */
	return emu_fw_to_umem(obj);
}

static uint32_t umem_ok(struct fwt_mbox *m)
{
	fwt_exec(fw, m);
	ck_fw_ok(m);
	return PRM_GET(create_umem_out, m->out, umem_id);
}

/* Create with one statement changed; expect the syndrome. */
#define ck_umem_synd(page_shift, access, stmt, ID)			\
	ck_fw_variant(fw, fwt_umem_mbox(&m_, u1, mem + 0x100, 3 * 4096,	\
					(page_shift), (access)),	\
		      umem, PRM_ADDR_OF(create_umem_in, m_.in, umem),	\
		      stmt, ID)

START_TEST(umem_from_mtt_list)
{
	struct emu_fw_umem *um;
	struct fwt_mbox m;
	uint32_t id;

	/* 4 KiB pages, starting 0x100 into the first: 4 entries */
	fwt_umem_mbox(&m, u1, mem + 0x100, 3 * 4096, 12, RW);
	ck_assert_uint_eq(PRM_GET64(umem, PRM_ADDR_OF(create_umem_in, m.in, umem),
				    num_of_mtt), 4);
	id = umem_ok(&m);
	ck_assert_uint_ne(id, 0);
	um = umem_get(id);
	ck_assert_uint_eq(um->obj.uid, u1);
	ck_assert_ptr_eq(um->addr, mem + 0x100);
	ck_assert_uint_eq(um->size, 4 * 4096 - 0x100);	/* to the last page's end */
	ck_assert_uint_eq(um->page_shift, 12);
	ck_assert_uint_eq(um->access, RW);
	ck_assert(emu_fw_umem_writable(um));

	/* 16 KiB pages (log_page_size 2): four entries for 64 KiB */
	fwt_umem_mbox(&m, u1, mem, 65536, 14, EMU_FW_UMEM_READ);
	ck_assert_uint_eq(PRM_GET(umem, PRM_ADDR_OF(create_umem_in, m.in, umem),
				  log_page_size), 2);
	um = umem_get(umem_ok(&m));
	ck_assert_ptr_eq(um->addr, mem);
	ck_assert_uint_eq(um->size, 65536);
	ck_assert_uint_eq(um->page_shift, 14);
	/* Registered without write access: the device may only read. */
	ck_assert_uint_eq(um->access, EMU_FW_UMEM_READ);
	ck_assert(!emu_fw_umem_writable(um));
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), 2);
}
END_TEST

START_TEST(umem_refused)
{
	/* no page, pages past the mailbox, a page list that wraps */
	ck_umem_synd(12, RW, PRM_SET64(umem, umem, num_of_mtt, 0),
		     UMEM_BAD_NUM_MTT);
	ck_umem_synd(12, RW, PRM_SET64(umem, umem, num_of_mtt, 5), BAD_INLEN);
	ck_umem_synd(12, RW, m_.inlen -= 8, BAD_INLEN);
	ck_umem_synd(12, RW,
		     PRM_SET64(umem, umem, num_of_mtt, UINT64_C(1) << 60),
		     UMEM_BAD_NUM_MTT);
	ck_umem_synd(12, RW, fwt_mtt_set(umem, 0, UINT64_C(0xfffffffffffff000),
					 RW), UMEM_BAD_NUM_MTT);
	/* the first byte beyond the first page */
	ck_umem_synd(12, RW, PRM_SET(umem, umem, page_offset, 4096),
		     BAD_PAGE_OFFSET);
	ck_umem_synd(13, RW, PRM_SET(umem, umem, page_offset, 8192),
		     BAD_PAGE_OFFSET);
	/* an address not on a page boundary (8 KiB pages) */
	ck_umem_synd(13, RW, fwt_mtt_set(umem, 1, (uintptr_t)mem + 0x3000, RW),
		     UMEM_MTT_MISALIGNED);
	/* pages that do not follow each other, in either direction */
	ck_umem_synd(12, RW, fwt_mtt_set(umem, 2, (uintptr_t)mem + 0x5000, RW),
		     UMEM_MTT_NOT_CONTIGUOUS);
	ck_umem_synd(12, RW, fwt_mtt_set(umem, 3, (uintptr_t)mem, RW),
		     UMEM_MTT_NOT_CONTIGUOUS);
	/* one page writable, the others not */
	ck_umem_synd(12, EMU_FW_UMEM_READ,
		     fwt_mtt_set(umem, 1, (uintptr_t)mem + 0x1000, RW),
		     UMEM_MTT_MIXED_ACCESS);
	/* ATS is not advertised */
	ck_umem_synd(12, RW, PRM_SET(umem, umem, ats, 1),
		     UMEM_ATS_NOT_SUPPORTED);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_UMEM), 0);
}
END_TEST

START_TEST(umem_uids)
{
	struct fwt_mbox m;
	uint32_t id;

	/* uid 0 (the kernel's own memory) and a live user context only */
	fwt_umem_mbox(&m, 0, mem, 4096, 12, RW);
	id = umem_ok(&m);
	ck_assert_uint_eq(umem_get(id)->obj.uid, 0);
	fwt_umem_mbox(&m, 77, mem, 4096, 12, RW);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UID);

	/* only the owner destroys it, once */
	fwt_umem_mbox(&m, u1, mem, 4096, 12, RW);
	id = umem_ok(&m);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u2, id, UMEM_INVALID);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, 0, id, UMEM_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, id), 0);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, id, UMEM_INVALID);
	ck_assert_ptr_null(emu_fw_obj_get(fw, EMU_FW_OBJ_UMEM, id));
}
END_TEST

/* What lies in a umem keeps it; the uid's context is charged. */
START_TEST(umem_in_use)
{
	uint32_t uar = fwt_uar(fw, u1), kuar = fwt_uar(fw, 0), eqn, cqn;
	uint32_t ring, dbr;
	struct fwt_mem kmem;
	struct fwt_mbox m;

	fwt_mem_reg(fw, 0, 4096, &kmem);
	eqn = fwt_eq(fw, 0, kuar, 6, &kmem);
	ring = fwt_umem_reg(fw, u1, mem, 4096);
	dbr = fwt_umem_reg(fw, u1, mem + 8192, 64);
	cqn = fwt_cq(fw, u1, eqn, uar, 6, ring, dbr);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, ring, UMEM_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, dbr, UMEM_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, cqn), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, u1);
	ck_fw_synd(&m, UCTX_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, ring), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, dbr), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR, u1, uar), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UCTX, 0, u1), 0);
	fwt_mem_free(&kmem);
}
END_TEST

static void two_umems(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_umem",
					 1), 0);
}

START_TEST(umem_limit)
{
	struct fwt_mbox m;

	emu_fw_destroy(fw);
	fw = fwt_create(two_umems);
	u1 = fwt_uctx(fw);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_ne(fwt_umem_reg(fw, u1, mem, 4096), 0);
	fwt_umem_mbox(&m, u1, mem, 4096, 12, RW);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_LIMIT);
}
END_TEST

START_TEST(umem_cmd_info)
{
	struct emu_fw_cmd_info info;

	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_CREATE_UMEM, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_CREATE);
	ck_assert_int_eq(info.obj_type, EMU_FW_OBJ_UMEM);
	ck_assert_uint_eq(info.destroy_opcode, MLX5_CMD_OP_DESTROY_UMEM);
	ck_assert_uint_eq(info.min_inlen, 0x30);	/* the MTT list follows */
	ck_assert_int_eq(emu_fw_cmd_info(MLX5_CMD_OP_DESTROY_UMEM, &info), 0);
	ck_assert_int_eq(info.cls, EMU_FW_CMD_DESTROY);
	ck_assert_int_eq(info.obj_type, EMU_FW_OBJ_UMEM);
}
END_TEST

static Suite *fw_umem_suite(void)
{
	Suite *s = suite_create("fw_umem");
	TCase *tc = tcase_create("umem");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, umem_from_mtt_list);
	tcase_add_test(tc, umem_refused);
	tcase_add_test(tc, umem_uids);
	tcase_add_test(tc, umem_in_use);
	tcase_add_test(tc, umem_limit);
	tcase_add_test(tc, umem_cmd_info);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_umem_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
