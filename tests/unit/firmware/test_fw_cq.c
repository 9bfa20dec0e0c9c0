/* SPDX-License-Identifier: MIT */
/*
 * CREATE/QUERY/MODIFY/DESTROY_CQ: the umem-backed CQ pyverbs' DevX test
 * builds (16 KiB of CQEs, an 8-byte doorbell umem, the kernel's EQ), every
 * refused input, uid rules and use counts.
 */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"
#include "emu/firmware/fw_int.h"	/* fw_obj_use: a queue using a CQ */

static struct emu_fw *fw;
static uint16_t u1, u2;
static uint32_t kuar, keqn, uar1;
static struct fwt_mem kmem, cqmem, dbrmem;

/* What every test uses, on a fresh @fw. */
static void setup_objects(void)
{
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 4096, &kmem);
	keqn = fwt_eq(fw, 0, kuar, 6, &kmem);
	uar1 = fwt_uar(fw, u1);
	fwt_mem_reg(fw, u1, 16384, &cqmem);	/* 256 CQEs of 64 B */
	fwt_mem_reg(fw, u1, 8, &dbrmem);	/* just the record */
}

static void setup(void)
{
	fw = fwt_create(NULL);
	setup_objects();
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&kmem);
	fwt_mem_free(&cqmem);
	fwt_mem_free(&dbrmem);
}

static void *cq_mbox(struct fwt_mbox *m, unsigned int log_size)
{
	fwt_cq_mbox(m, u1, keqn, uar1, log_size, cqmem.umem_id, 0,
		    dbrmem.umem_id, 0);
	return PRM_ADDR_OF(create_cq_in, m->in, cq_context);
}

START_TEST(cq_good)
{
	uint32_t cqn = fwt_cq(fw, u1, keqn, uar1, 8, cqmem.umem_id,
			      dbrmem.umem_id);
	struct emu_fw_obj *obj;
	struct emu_fw_cq *cq;
	struct fwt_mbox m;
	void *cqc;

	ck_assert_uint_ne(cqn, 0);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cqn);
	ck_assert_ptr_nonnull(obj);
	cq = emu_fw_to_cq(obj);
	ck_assert_ptr_eq(cq->buf.addr, cqmem.addr);
	ck_assert_uint_eq(cq->buf.len, 16384);
	ck_assert_ptr_eq(cq->dbr.addr, dbrmem.addr);
	ck_assert_uint_eq(cq->dbr.len, 8);
	ck_assert_uint_eq(cq->cqe_size, 64);
	ck_assert_uint_eq(cq->log_size, 8);
	ck_assert_uint_eq(atomic_load(&cq->eq)->obj.id, keqn);
	ck_assert_uint_eq(cq->uar->obj.id, uar1);
	emu_fw_obj_put(obj);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, u1, 16,
		      PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, cqn);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	cqc = PRM_ADDR_OF(query_cq_out, m.out, cq_context);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_cq_size), 8);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, c_eqn), keqn);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, uar_page), uar1);

	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, cqn), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, u1, cqn);
	ck_fw_synd(&m, CQ_INVALID);
}
END_TEST

START_TEST(cq_layouts)
{
	struct emu_fw_obj *obj;
	struct fwt_mbox m;
	void *cqc;

	/* 128-byte CQEs: 128 of them fill the umem */
	cqc = cq_mbox(&m, 7);
	PRM_SET(cqc, cqc, cqe_sz, MLX5_CQC_CQE_SZ_128_BYTES);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	/* 128-byte CQEs padded (cqe_128_always): laid out the same */
	cqc = cq_mbox(&m, 7);
	PRM_SET(cqc, cqc, cqe_sz, MLX5_CQC_CQE_SZ_128_PAD);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ,
			     PRM_GET(create_cq_out, m.out, cqn));
	ck_assert_ptr_nonnull(obj);
	ck_assert_uint_eq(emu_fw_to_cq(obj)->cqe_size, 128);
	ck_assert_uint_eq(emu_fw_to_cq(obj)->buf.len, 16384);
	emu_fw_obj_put(obj);
	/* a smaller CQ at an offset, the record in a bigger umem */
	fwt_cq_mbox(&m, u1, keqn, uar1, 6, cqmem.umem_id, 8192,
		    cqmem.umem_id, 16384 - 8);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	/* page_offset counts 1/64 pages: 8 * 64 B = 512 B in */
	cqc = cq_mbox(&m, 6);
	PRM_SET(cqc, cqc, page_offset, 8);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	/* a uid 0 UAR is usable by everyone */
	fwt_cq_mbox(&m, u1, keqn, kuar, 6, cqmem.umem_id, 0,
		    dbrmem.umem_id, 0);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

START_TEST(cq_bad_buffers)
{
	struct fwt_mbox m;
	void *cqc;

	cq_mbox(&m, 9);			/* 32 KiB in a 16 KiB umem */
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_BAD_PARAM_ERR);
	ck_fw_synd(&m, UMEM_OUT_OF_RANGE);
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 64,
		    dbrmem.umem_id, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_OUT_OF_RANGE);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, page_offset, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_OUT_OF_RANGE);
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, 0x3333, 0, dbrmem.umem_id, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	cq_mbox(&m, 8);
	PRM_SET(create_cq_in, m.in, cq_umem_valid, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_REQUIRED);

	/* doorbell records */
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 0,
		    dbrmem.umem_id, 4);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, DBR_MISALIGNED);
	/* the 8-byte umem spans the page the kernel pinned, no further */
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 0,
		    dbrmem.umem_id, 4096);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, DBR_OUT_OF_RANGE);
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 0,
		    dbrmem.umem_id, 4088);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1,
				      PRM_GET(create_cq_out, m.out, cqn)), 0);
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 0, 0x3334, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_CQ), 0);
	/* nothing stayed in use */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, dbrmem.umem_id), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, cqmem.umem_id), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR, u1, uar1),
			  0);
}
END_TEST

/*
 * The device writes CQEs: the ring must lie in memory registered with
 * write access (MTT wr_en), given by umem or by page list.  The doorbell
 * record is only read by the device: read-only memory will do.
 */
START_TEST(cq_ring_needs_write)
{
	uint8_t *ro = aligned_alloc(4096, 16384);
	uint32_t ro_umem, cqn;
	struct fwt_mbox m;
	uint64_t pa;

	ck_assert_ptr_nonnull(ro);
	memset(ro, 0, 16384);
	ro_umem = fwt_umem_reg_access(fw, u1, ro, 16384, EMU_FW_UMEM_READ);
	ck_assert_uint_ne(ro_umem, 0);
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, ro_umem, 0, dbrmem.umem_id, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_NOT_WRITABLE);
	cq_mbox(&m, 8);
	PRM_SET(create_cq_in, m.in, cq_umem_valid, 0);
	pa = htobe64((uint64_t)(uintptr_t)ro);
	for (int i = 0; i < 4; i++) {
		memcpy(PRM_ARRAY_ADDR(create_cq_in, m.in, pas, i), &pa, 8);
		pa = htobe64(be64toh(pa) + 4096);
	}
	m.inlen += 4 * 8;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_NOT_WRITABLE);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_CQ), 0);

	/* the doorbell record in it is fine */
	fwt_cq_mbox(&m, u1, keqn, uar1, 8, cqmem.umem_id, 0, ro_umem, 64);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	cqn = PRM_GET(create_cq_out, m.out, cqn);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, cqn), 0);
	/* the refusals kept no use of it */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, ro_umem),
			  0);
	free(ro);
}
END_TEST

START_TEST(cq_bad_params)
{
	struct fwt_mbox m;
	void *cqc;
	uint32_t uar2 = fwt_uar(fw, u2);
	struct fwt_mem m2;
	uint32_t eq2;

	cq_mbox(&m, 16);		/* > log_max_cq_sz 15 */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_SIZE);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, cqe_sz, 3);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_CQE_SIZE);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, cqe_comp_en, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_FEATURE_NOT_SUPPORTED);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, cq_period_mode, 2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_PERIOD_MODE);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, st, 0x1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_ST);

	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, c_eqn, 200);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_EQN);
	/* another uid's EQ */
	fwt_mem_reg(fw, u2, 4096, &m2);
	eq2 = fwt_eq(fw, u2, uar2, 6, &m2);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, c_eqn, eq2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_EQN);
	/* another uid's UAR, a UAR nobody has */
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, uar_page, uar2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UAR);
	cqc = cq_mbox(&m, 8);
	PRM_SET(cqc, cqc, uar_page, 900);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UAR);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_CQ), 0);
	emu_fw_destroy(fw);
	fw = NULL;
	fwt_mem_free(&m2);
}
END_TEST

static void no_cqe_pad(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "cqe_128_always",
					 0), 0);
}

/* Padded CQEs only where the device offers them. */
START_TEST(cq_pad_needs_cap)
{
	struct fwt_mbox m;
	void *cqc;

	teardown();
	fw = fwt_create(no_cqe_pad);
	setup_objects();
	cqc = cq_mbox(&m, 7);
	PRM_SET(cqc, cqc, cqe_sz, MLX5_CQC_CQE_SZ_128_PAD);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_BAD_CQE_SIZE);
	cqc = cq_mbox(&m, 7);
	PRM_SET(cqc, cqc, cqe_sz, MLX5_CQC_CQE_SZ_128_BYTES);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

static uint8_t modify(struct fwt_mbox *m, uint16_t uid, uint16_t op_mod,
		      uint32_t cqn, uint32_t sel, uint32_t period,
		      uint32_t count)
{
	void *cqc;

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_CQ, op_mod, uid,
		      PRM_ST_SZ_BYTES(modify_cq_in), 16);
	PRM_SET(modify_cq_in, m->in, cqn, cqn);
	PRM_SET(modify_cq_in, m->in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		sel);
	cqc = PRM_ADDR_OF(modify_cq_in, m->in, cq_context);
	PRM_SET(cqc, cqc, cq_period, period);
	PRM_SET(cqc, cqc, cq_max_count, count);
	PRM_SET(cqc, cqc, cq_period_mode, 1);
	return fwt_exec(fw, m);
}

START_TEST(cq_modify)
{
	uint32_t cqn = fwt_cq(fw, u1, keqn, uar1, 8, cqmem.umem_id,
			      dbrmem.umem_id);
	struct emu_fw_obj *obj;
	struct emu_fw_cq *cq;
	struct fwt_mbox m;
	void *cqc;

	modify(&m, u1, 0, cqn, 0x3, 16, 32);	/* period | count */
	ck_fw_ok(&m);
	modify(&m, u1, 0, cqn, 0x10, 0, 0);	/* period mode */
	ck_fw_ok(&m);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, u1, 16,
		      PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, cqn);
	fwt_exec(fw, &m);
	cqc = PRM_ADDR_OF(query_cq_out, m.out, cq_context);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cq_period), 16);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cq_max_count), 32);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cq_period_mode), 1);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cqn);
	cq = emu_fw_to_cq(obj);
	ck_assert_uint_eq(atomic_load(&cq->cq_period), 16);
	ck_assert_uint_eq(atomic_load(&cq->cq_max_count), 32);
	emu_fw_obj_put(obj);

	modify(&m, u1, 0, cqn, 0x8, 0, 0);	/* c_eqn: no cq_eq_remap */
	ck_fw_synd(&m, CQ_BAD_FIELD_SELECT);
	modify(&m, u1, 1, cqn, 0x1, 0, 0);	/* resize, but to no ring */
	ck_fw_synd(&m, UMEM_REQUIRED);
	modify(&m, u1, 2, cqn, 0x1, 0, 0);
	ck_fw_synd(&m, BAD_OP_MOD);
	modify(&m, u2, 0, cqn, 0x1, 99, 0);	/* not the owner */
	ck_fw_synd(&m, CQ_INVALID);
	modify(&m, u1, 0, cqn + 1, 0x1, 99, 0);
	ck_fw_synd(&m, CQ_INVALID);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cqn);
	ck_assert_uint_eq(atomic_load(&emu_fw_to_cq(obj)->cq_period), 16);
	emu_fw_obj_put(obj);
}
END_TEST

START_TEST(cq_uid_rules)
{
	uint32_t cqn = fwt_cq(fw, u1, keqn, uar1, 8, cqmem.umem_id,
			      dbrmem.umem_id);
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_CQ, 0, u2, 16,
		      PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, m.in, cqn, cqn);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, CQ_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, u2, cqn);
	ck_fw_synd(&m, CQ_INVALID);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, 0, cqn);
	ck_fw_synd(&m, CQ_INVALID);
	/* u2 cannot use u1's umems */
	fwt_cq_mbox(&m, u2, keqn, kuar, 8, cqmem.umem_id, 0, dbrmem.umem_id,
		    0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	/* nor the kernel's (its EQ's memory), by id or by page list, though
	 * the kernel's EQ and UAR are usable (query_eqn hands the EQ out) */
	fwt_cq_mbox(&m, u1, keqn, kuar, 6, kmem.umem_id, 0, dbrmem.umem_id,
		    0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	fwt_cq_mbox(&m, u1, keqn, kuar, 6, cqmem.umem_id, 0, kmem.umem_id,
		    0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	fwt_cq_mbox(&m, u1, keqn, kuar, 6, 0, 0, dbrmem.umem_id, 0);
	PRM_SET(create_cq_in, m.in, cq_umem_valid, 0);
	prm_set64_(PRM_ARRAY_ADDR(create_cq_in, m.in, pas, 0), 0,
		   (uintptr_t)kmem.addr);
	m.inlen += 8;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, PAS_NOT_MAPPED);
	/* and the kernel's own commands do not reach users' umems */
	fwt_cq_mbox(&m, 0, keqn, kuar, 8, cqmem.umem_id, 0, dbrmem.umem_id,
		    0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_CQ), 1);
	fwt_cq_mbox(&m, u1, keqn, kuar, 6, cqmem.umem_id, 0, dbrmem.umem_id,
		    0);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

/* What a CQ uses cannot go; a CQ a queue uses cannot go. */
START_TEST(cq_use_counts)
{
	uint32_t cqn = fwt_cq(fw, u1, keqn, uar1, 8, cqmem.umem_id,
			      dbrmem.umem_id);
	struct emu_fw_obj *obj;
	struct fwt_mbox m;

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_EQ, 0, keqn);
	ck_fw_synd(&m, EQ_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_UAR, u1, uar1);
	ck_fw_synd(&m, UAR_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, cqmem.umem_id,
			   UMEM_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, dbrmem.umem_id,
			   UMEM_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, u1);
	ck_fw_synd(&m, UCTX_IN_USE);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_EQ), 1);

	/* a queue (the QP work will be one) holds the CQ */
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cqn);
	ck_assert(fw_obj_use(obj));
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, u1, cqn);
	ck_assert_uint_eq(emu_fw_out_status(m.out), 0x9);
	ck_assert_uint_eq(emu_fw_out_syndrome(m.out), 0x1870ad);
	ck_fw_synd(&m, CQ_IN_USE);
	fw_obj_unuse(obj);
	emu_fw_obj_put(obj);

	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, cqn), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_EQ, 0, keqn), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_UAR, u1, uar1),
			  0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, cqmem.umem_id), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, dbrmem.umem_id), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UCTX, 0, u1), 0);
}
END_TEST

static void two_cqs(struct emu_fw_caps *c)
{
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_cq", 1),
			 0);
}

START_TEST(cq_limit)
{
	struct fwt_mbox m;

	teardown();
	fw = fwt_create(two_cqs);
	u1 = fwt_uctx(fw);
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 4096, &kmem);
	keqn = fwt_eq(fw, 0, kuar, 6, &kmem);
	uar1 = fwt_uar(fw, u1);
	fwt_mem_reg(fw, u1, 16384, &cqmem);
	fwt_mem_reg(fw, u1, 8, &dbrmem);
	fwt_cq(fw, u1, keqn, uar1, 6, cqmem.umem_id, dbrmem.umem_id);
	fwt_cq(fw, u1, keqn, uar1, 6, cqmem.umem_id, dbrmem.umem_id);
	cq_mbox(&m, 6);
	ck_assert_uint_eq(fwt_exec(fw, &m), MLX5_CMD_STAT_LIM_ERR);
	ck_fw_synd(&m, CQ_LIMIT);
	/* the refused CQ left nothing in use: destroying the two frees all */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, 1), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, u1, 2), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_EQ, 0, keqn), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, u1, cqmem.umem_id), 0);
}
END_TEST

static Suite *fw_cq_suite(void)
{
	Suite *s = suite_create("fw_cq");
	TCase *tc = tcase_create("cq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cq_good);
	tcase_add_test(tc, cq_layouts);
	tcase_add_test(tc, cq_pad_needs_cap);
	tcase_add_test(tc, cq_bad_buffers);
	tcase_add_test(tc, cq_ring_needs_write);
	tcase_add_test(tc, cq_bad_params);
	tcase_add_test(tc, cq_modify);
	tcase_add_test(tc, cq_uid_rules);
	tcase_add_test(tc, cq_use_counts);
	tcase_add_test(tc, cq_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_cq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
