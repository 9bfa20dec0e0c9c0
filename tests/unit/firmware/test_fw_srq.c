/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues: CREATE/QUERY/ARM_RQ/DESTROY_SRQ,
 * CREATE/QUERY/ARM/DESTROY_XRC_SRQ, CREATE/MODIFY/QUERY/DESTROY_RMP, and
 * XRC domains: lifecycles, every validation with its syndrome, the one
 * number space, uses and uid rules.
 */
#include <errno.h>
#include <stdlib.h>

#include "test_fw_qp_util.h"

static struct emu_fw *fw;
static struct qpt_env env;

static void setup(void)
{
	qpt_fixture_init(&fw, &env);
}

static void teardown(void)
{
	qpt_fixture_fini(&fw, &env);
}

/* 16-byte id commands (query/destroy/arm shapes share id at 0x48). */
static uint8_t id_cmd(uint16_t op, uint16_t op_mod, uint32_t id,
		      struct fwt_mbox *m, size_t outlen)
{
	fwt_mbox_init(m, op, op_mod, env.uid, 16, outlen);
	PRM_SET(destroy_srq_in, m->in, srqn, id);
	return fwt_exec(fw, m);
}

/* ---- basic SRQ (page list) ---- */

#define SRQC(m) PRM_ADDR_OF(create_srq_in, (m)->in, srq_context_entry)

static uint8_t *srq_buf;

static void srq_mbox(struct fwt_mbox *m)
{
	unsigned int slot = qpt_slot(&env);
	uint64_t pa;
	void *c;

	srq_buf = (uint8_t *)env.mem.addr + (size_t)slot * QPT_SLOT_BYTES;
	pa = htobe64((uint64_t)(uintptr_t)srq_buf);
	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_SRQ, 0, env.uid,
		      PRM_ST_SZ_BYTES(create_srq_in) + 8,
		      PRM_ST_SZ_BYTES(create_srq_out));
	c = SRQC(m);
	PRM_SET(srqc, c, log_srq_size, 6);
	PRM_SET(srqc, c, log_rq_stride, 1);	/* 32 bytes */
	PRM_SET(srqc, c, pd, env.pd);
	PRM_SET(srqc, c, cqn, env.cq);
	PRM_SET(srqc, c, xrcd, env.xrcd);
	PRM_SET(srqc, c, lwm, 8);
	PRM_SET64(srqc, c, dbr_addr, (uint64_t)(uintptr_t)env.dbr.addr +
		  slot * 64);
	memcpy(PRM_ARRAY_ADDR(create_srq_in, m->in, pas, 0), &pa, 8);
}

START_TEST(srq_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_srq *srq;
	struct emu_fw_obj *o;
	uint32_t srqn;
	void *q;

	srq_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	srqn = PRM_GET(create_srq_out, c.out, srqn);
	id_cmd(MLX5_CMD_OP_QUERY_SRQ, 0, srqn, &m,
	       PRM_ST_SZ_BYTES(query_srq_out));
	ck_fw_ok(&m);
	q = PRM_ADDR_OF(query_srq_out, m.out, srq_context_entry);
	ck_assert_mem_eq(q, SRQC(&c), PRM_ST_SZ_BYTES(srqc));
	ck_assert_uint_eq(PRM_GET(srqc, q, state), MLX5_SRQC_STATE_GOOD);
	ck_assert_uint_eq(PRM_GET(srqc, q, lwm), 8);

	/* Engines: ring, stride, doorbell. */
	o = emu_fw_obj_get(fw, EMU_FW_OBJ_SRQ, srqn);
	srq = emu_fw_to_srq(o);
	ck_assert_uint_eq(srq->kind, EMU_FW_SRQ_BASIC);
	ck_assert_uint_eq(srq->ring.cnt, 64);
	ck_assert_uint_eq(srq->ring.log_stride, 5);
	ck_assert_ptr_eq(srq->ring.addr, srq_buf);
	ck_assert_ptr_eq(emu_fw_ring_wqe(&srq->ring, 65), srq_buf + 32);
	ck_assert_ptr_eq(srq->dbr.addr, (uint8_t *)env.dbr.addr +
			 (size_t)(srq_buf - (uint8_t *)env.mem.addr) /
			 QPT_SLOT_BYTES * 64);
	ck_assert_uint_eq(srq->dbr.len, 8);
	/* The limit event: once, then disarmed. */
	ck_assert(!emu_fw_srq_limit_fire(srq, 8));
	ck_assert(emu_fw_srq_limit_fire(srq, 7));
	ck_assert(!emu_fw_srq_limit_fire(srq, 0));
	id_cmd(MLX5_CMD_OP_QUERY_SRQ, 0, srqn, &m,
	       PRM_ST_SZ_BYTES(query_srq_out));
	ck_assert_uint_eq(PRM_GET(srqc, q, lwm), 0);
	/* ARM_RQ (op_mod 1: SRQ) re-arms. */
	fwt_mbox_init(&m, MLX5_CMD_OP_ARM_RQ, 1, env.uid,
		      PRM_ST_SZ_BYTES(arm_rq_in), PRM_ST_SZ_BYTES(arm_rq_out));
	PRM_SET(arm_rq_in, m.in, srq_number, srqn);
	PRM_SET(arm_rq_in, m.in, lwm, 63);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&srq->lwm), 63);
	PRM_SET(arm_rq_in, m.in, lwm, 64);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, SRQ_BAD_LWM);
	PRM_SET(mbox_in, m.in, op_mod, 0);	/* an RQ: none here */
	PRM_SET(arm_rq_in, m.in, lwm, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, SRQ_INVALID);
	/* Errors show in QUERY_SRQ. */
	emu_fw_srq_set_error(srq);
	id_cmd(MLX5_CMD_OP_QUERY_SRQ, 0, srqn, &m,
	       PRM_ST_SZ_BYTES(query_srq_out));
	ck_assert_uint_eq(PRM_GET(srqc, q, state), MLX5_SRQC_STATE_ERROR);
	emu_fw_obj_put(o);

	/* It uses its PD, CQ, XRC domain and umem. */
	id_cmd(MLX5_CMD_OP_DESTROY_CQ, 0, env.cq, &m, 16);
	ck_fw_synd(&m, CQ_IN_USE);
	id_cmd(MLX5_CMD_OP_DEALLOC_XRCD, 0, env.xrcd, &m, 16);
	ck_fw_synd(&m, XRCD_IN_USE);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, &m, 16), 0);
	id_cmd(MLX5_CMD_OP_DESTROY_SRQ, 0, srqn, &m, 16);
	ck_fw_synd(&m, SRQ_INVALID);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_CQ, 0, env.cq, &m, 16), 0);
}
END_TEST

#define ck_srq_synd(stmt, ID)						\
	ck_fw_variant(fw, srq_mbox(&m_), c, SRQC(&m_), stmt, ID)

START_TEST(srq_create_rules)
{
	uint16_t other = fwt_uctx(fw);
	uint32_t opd = fwt_pd(fw, other);

	/* WQE stride: 16 bytes leave no room for a scatter entry; 32 is one;
	 * 512 is max_wqe_sz_rq. */
	ck_srq_synd(PRM_SET(srqc, c, log_rq_stride, 0), SRQ_BAD_STRIDE);
	ck_srq_synd(PRM_SET(srqc, c, log_rq_stride, 1), OK);
	ck_srq_synd({ PRM_SET(srqc, c, log_rq_stride, 5);
		      PRM_SET(srqc, c, log_srq_size, 3);
		      PRM_SET(srqc, c, lwm, 7); }, OK);
	ck_srq_synd(PRM_SET(srqc, c, log_rq_stride, 6), SRQ_BAD_STRIDE);
	/* 64 KiB of WQEs, one page in the list */
	ck_srq_synd(PRM_SET(srqc, c, log_srq_size, 11), BAD_INLEN);
	ck_srq_synd(PRM_SET(srqc, c, lwm, 64), SRQ_BAD_LWM);
	ck_srq_synd(PRM_SET(srqc, c, pd, 0), BAD_PD);
	ck_srq_synd(PRM_SET(srqc, c, pd, opd), BAD_PD);
	ck_srq_synd(PRM_SET(srqc, c, cqn, 0x424242), SRQ_BAD_CQN);
	ck_srq_synd(PRM_SET(srqc, c, cqn, 0), OK);
	ck_srq_synd(PRM_SET(srqc, c, xrcd, 0x424242), SRQ_BAD_XRCD);
	ck_srq_synd(PRM_SET(srqc, c, xrcd, 0), OK);
	ck_srq_synd(PRM_SET(srqc, c, wq_signature, 1),
		    SRQ_FEATURE_NOT_SUPPORTED);
	ck_srq_synd(PRM_SET(srqc, c, rlky, 1), SRQ_FEATURE_NOT_SUPPORTED);
	ck_srq_synd(PRM_SET(srqc, c, state, MLX5_SRQC_STATE_ERROR),
		    SRQ_BAD_STATE);
	ck_srq_synd(PRM_SET64(srqc, c, dbr_addr, (uint64_t)(uintptr_t)
			      env.dbr.addr + 4), DBR_MISALIGNED);
	ck_srq_synd(PRM_SET64(srqc, c, dbr_addr, 0x1000), PAS_NOT_MAPPED);
	/* The page list: registered memory only, and enough of it. */
	ck_srq_synd({ uint64_t pa = htobe64(0x1000);
		      memcpy(PRM_ARRAY_ADDR(create_srq_in, m_.in, pas, 0), &pa,
			     8); }, PAS_NOT_MAPPED);
	ck_srq_synd(m_.inlen = PRM_ST_SZ_BYTES(create_srq_in), UMEM_REQUIRED);
}
END_TEST

static void few_srqs(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "log_max_srq",
					 1), 0);
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL,
					 "log_max_srq_sz", 5), 0);
}

START_TEST(srq_limits)
{
	struct emu_fw *f2 = qpt_fw(few_srqs);
	struct qpt_env e2;
	struct fwt_mbox m;
	void *c;
	uint64_t pa;

	qpt_env_init(&e2, f2, true);	/* one SRQ made */
	pa = htobe64((uint64_t)(uintptr_t)e2.mem.addr);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_SRQ, 0, e2.uid,
		      PRM_ST_SZ_BYTES(create_srq_in) + 8,
		      PRM_ST_SZ_BYTES(create_srq_out));
	c = SRQC(&m);
	PRM_SET(srqc, c, log_srq_size, 6);
	PRM_SET(srqc, c, log_rq_stride, 1);
	PRM_SET(srqc, c, pd, e2.pd);
	PRM_SET64(srqc, c, dbr_addr, (uint64_t)(uintptr_t)e2.dbr.addr + 256);
	memcpy(PRM_ARRAY_ADDR(create_srq_in, m.in, pas, 0), &pa, 8);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, SRQ_BAD_SIZE);
	PRM_SET(srqc, c, log_srq_size, 5);
	fwt_exec(f2, &m);
	ck_fw_ok(&m);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, SRQ_LIMIT);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

/* ---- XRC SRQ ---- */

#define XSRQC(m) PRM_ADDR_OF(create_xrc_srq_in, (m)->in, xrc_srq_context_entry)

/* DEVX's form: umem ring and umem doorbell record. */
static void xrc_srq_mbox(struct fwt_mbox *m)
{
	unsigned int slot = qpt_slot(&env);
	void *c;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_XRC_SRQ, 0, env.uid,
		      PRM_ST_SZ_BYTES(create_xrc_srq_in),
		      PRM_ST_SZ_BYTES(create_xrc_srq_out));
	c = XSRQC(m);
	PRM_SET(xrc_srqc, c, log_xrc_srq_size, 5);
	PRM_SET(xrc_srqc, c, log_rq_stride, 2);	/* 64 bytes */
	PRM_SET(xrc_srqc, c, xrcd, env.xrcd);
	PRM_SET(xrc_srqc, c, cqn, env.cq2);
	PRM_SET(xrc_srqc, c, pd, env.pd);
	PRM_SET(xrc_srqc, c, user_index, 0x55);
	PRM_SET(xrc_srqc, c, dbr_umem_valid, 1);
	PRM_SET(xrc_srqc, c, dbr_umem_id, env.dbr.umem_id);
	PRM_SET(xrc_srqc, c, db_record_addr_l, slot * 64 / 4);
	PRM_SET(create_xrc_srq_in, m->in, xrc_srq_umem_valid, 1);
	PRM_SET(create_xrc_srq_in, m->in, xrc_srq_umem_id, env.mem.umem_id);
	PRM_SET64(create_xrc_srq_in, m->in, xrc_srq_umem_offset,
		  (uint64_t)slot * QPT_SLOT_BYTES);
}

START_TEST(xrc_srq_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_srq *srq;
	uint32_t n, tgt;
	void *q;

	xrc_srq_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	n = PRM_GET(create_xrc_srq_out, c.out, xrc_srqn);
	id_cmd(MLX5_CMD_OP_QUERY_XRC_SRQ, 0, n, &m,
	       PRM_ST_SZ_BYTES(query_xrc_srq_out));
	ck_fw_ok(&m);
	q = PRM_ADDR_OF(query_xrc_srq_out, m.out, xrc_srq_context_entry);
	ck_assert_mem_eq(q, XSRQC(&c), PRM_ST_SZ_BYTES(xrc_srqc));
	srq = emu_fw_to_srq(emu_fw_obj_get(fw, EMU_FW_OBJ_SRQ, n));
	ck_assert_uint_eq(srq->kind, EMU_FW_SRQ_XRC);
	ck_assert_uint_eq(srq->cq->obj.id, env.cq2);
	ck_assert_uint_eq(srq->xrcd->obj.id, env.xrcd);
	ck_assert_uint_eq(srq->user_index, 0x55);
	ck_assert_uint_eq(srq->ring.cnt, 32);
	ck_assert_uint_eq(srq->ring.log_stride, 6);
	emu_fw_obj_put(&srq->obj);
	/* ARM_XRC_SRQ (op_mod 1). */
	fwt_mbox_init(&m, MLX5_CMD_OP_ARM_XRC_SRQ, 1, env.uid,
		      PRM_ST_SZ_BYTES(arm_xrc_srq_in),
		      PRM_ST_SZ_BYTES(arm_xrc_srq_out));
	PRM_SET(arm_xrc_srq_in, m.in, xrc_srqn, n);
	PRM_SET(arm_xrc_srq_in, m.in, lwm, 4);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	PRM_SET(arm_xrc_srq_in, m.in, lwm, 32);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, SRQ_BAD_LWM);
	PRM_SET(mbox_in, m.in, op_mod, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OP_MOD);
	id_cmd(MLX5_CMD_OP_QUERY_XRC_SRQ, 0, n, &m,
	       PRM_ST_SZ_BYTES(query_xrc_srq_out));
	ck_assert_uint_eq(PRM_GET(xrc_srqc, q, lwm), 4);
	/* An XRC target QP of the same domain holds the domain. */
	tgt = qpt_create(&env, QPT_XRC_TGT);
	qpt_to_rts(&env, tgt, QPT_XRC_TGT);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_XRC_SRQ, 0, n, &m, 16), 0);
	id_cmd(MLX5_CMD_OP_DEALLOC_XRCD, 0, env.xrcd, &m, 16);
	ck_fw_synd(&m, XRCD_IN_USE);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_QP, 0, tgt, &m, 16), 0);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DEALLOC_XRCD, 0, env.xrcd, &m, 16),
			  0);
	id_cmd(MLX5_CMD_OP_DEALLOC_XRCD, 0, env.xrcd, &m, 16);
	ck_fw_synd(&m, XRCD_INVALID);
}
END_TEST

#define ck_xsrq_synd(stmt, ID)						\
	ck_fw_variant(fw, xrc_srq_mbox(&m_), c, XSRQC(&m_), stmt, ID)

START_TEST(xrc_srq_create_rules)
{
	struct emu_fw_srq *srq;
	struct fwt_mbox m;

	ck_xsrq_synd(PRM_SET(xrc_srqc, c, xrcd, 0), SRQ_BAD_XRCD);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, cqn, 0), SRQ_BAD_CQN);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, log_rq_stride, 0), SRQ_BAD_STRIDE);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, log_rq_stride, 6), SRQ_BAD_STRIDE);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, basic_cyclic_rcv_wqe, 1),
		     SRQ_FEATURE_NOT_SUPPORTED);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, state, MLX5_XRC_SRQC_STATE_ERROR),
		     SRQ_BAD_STATE);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, dbr_umem_id, 0x999), UMEM_INVALID);
	ck_xsrq_synd(PRM_SET(xrc_srqc, c, db_record_addr_l, QPT_SLOTS * 16),
		     DBR_OUT_OF_RANGE);
	ck_xsrq_synd(PRM_SET(create_xrc_srq_in, m_.in, xrc_srq_umem_id, 0x999),
		     UMEM_INVALID);
	ck_xsrq_synd(PRM_SET64(create_xrc_srq_in, m_.in, xrc_srq_umem_offset,
			       (uint64_t)QPT_SLOTS * QPT_SLOT_BYTES),
		     UMEM_OUT_OF_RANGE);
	/* user_index_equal_xrc_srqn */
	xrc_srq_mbox(&m);
	PRM_SET(xrc_srqc, XSRQC(&m), user_index_equal_xrc_srqn, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	srq = emu_fw_to_srq(emu_fw_obj_get(fw, EMU_FW_OBJ_SRQ,
			PRM_GET(create_xrc_srq_out, m.out, xrc_srqn)));
	ck_assert_uint_eq(srq->user_index, srq->obj.id);
	emu_fw_obj_put(&srq->obj);
	/* The page-list form. */
	xrc_srq_mbox(&m);
	PRM_SET(create_xrc_srq_in, m.in, xrc_srq_umem_valid, 0);
	PRM_SET(xrc_srqc, XSRQC(&m), dbr_umem_valid, 0);
	{
		uint64_t pa = htobe64((uint64_t)(uintptr_t)env.mem.addr);
		uint64_t db = (uint64_t)(uintptr_t)env.dbr.addr + 8;

		memcpy(PRM_ARRAY_ADDR(create_xrc_srq_in, m.in, pas, 0), &pa, 8);
		m.inlen += 8;
		PRM_SET(xrc_srqc, XSRQC(&m), db_record_addr_h,
			(uint32_t)(db >> 32));
		PRM_SET(xrc_srqc, XSRQC(&m), db_record_addr_l,
			(uint32_t)db >> 2);
	}
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

/* ---- RMP ---- */

#define RMPC(m) PRM_ADDR_OF(create_rmp_in, (m)->in, ctx)

/* As UCX creates its SRQs (uct_ib_mlx5_devx_init_rx), umem form. */
static void rmp_mbox(struct fwt_mbox *m)
{
	unsigned int slot = qpt_slot(&env);
	void *c, *wq;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_RMP, 0, env.uid,
		      PRM_ST_SZ_BYTES(create_rmp_in),
		      PRM_ST_SZ_BYTES(create_rmp_out));
	c = RMPC(m);
	wq = PRM_ADDR_OF(rmpc, c, wq);
	PRM_SET(rmpc, c, state, MLX5_RMPC_STATE_RDY);
	PRM_SET(wq, wq, wq_type, 0);		/* linked list */
	PRM_SET(wq, wq, log_wq_sz, 7);
	PRM_SET(wq, wq, log_wq_stride, 6);	/* 64 bytes */
	PRM_SET(wq, wq, pd, env.pd);
	PRM_SET(wq, wq, lwm, 2);
	PRM_SET(wq, wq, dbr_umem_valid, 1);
	PRM_SET(wq, wq, dbr_umem_id, env.dbr.umem_id);
	PRM_SET64(wq, wq, dbr_addr, slot * 64);
	PRM_SET(wq, wq, wq_umem_valid, 1);
	PRM_SET(wq, wq, wq_umem_id, env.mem.umem_id);
	PRM_SET64(wq, wq, wq_umem_offset, (uint64_t)slot * QPT_SLOT_BYTES);
}

static void rmp_modify(struct fwt_mbox *m, uint32_t rmpn, uint32_t cur,
		       uint32_t to, bool lwm_bit, uint32_t lwm)
{
	void *c;

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_RMP, 0, env.uid,
		      PRM_ST_SZ_BYTES(modify_rmp_in),
		      PRM_ST_SZ_BYTES(modify_rmp_out));
	PRM_SET(modify_rmp_in, m->in, rmpn, rmpn);
	PRM_SET(modify_rmp_in, m->in, rmp_state, cur);
	PRM_SET(modify_rmp_in, m->in, bitmask.lwm, lwm_bit);
	c = PRM_ADDR_OF(modify_rmp_in, m->in, ctx);
	PRM_SET(rmpc, c, state, to);
	PRM_SET(rmpc, c, wq.lwm, lwm);
	fwt_exec(fw, m);
}

START_TEST(rmp_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_srq *srq;
	uint32_t n, qpn;
	void *q;

	rmp_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	n = PRM_GET(create_rmp_out, c.out, rmpn);
	id_cmd(MLX5_CMD_OP_QUERY_RMP, 0, n, &m, PRM_ST_SZ_BYTES(query_rmp_out));
	ck_fw_ok(&m);
	q = PRM_ADDR_OF(query_rmp_out, m.out, rmp_context);
	ck_assert_mem_eq(q, RMPC(&c), PRM_ST_SZ_BYTES(rmpc));
	srq = emu_fw_to_srq(emu_fw_obj_get(fw, EMU_FW_OBJ_SRQ, n));
	ck_assert_uint_eq(srq->kind, EMU_FW_SRQ_RMP);
	ck_assert_uint_eq(srq->ring.cnt, 128);
	ck_assert_uint_eq(srq->ring.log_stride, 6);
	/* MODIFY_RMP: lwm (arm), state. */
	rmp_modify(&m, n, MLX5_RMPC_STATE_RDY, MLX5_RMPC_STATE_RDY, true, 100);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&srq->lwm), 100);
	rmp_modify(&m, n, MLX5_RMPC_STATE_RDY, MLX5_RMPC_STATE_RDY, true, 128);
	ck_fw_synd(&m, SRQ_BAD_LWM);
	rmp_modify(&m, n, MLX5_RMPC_STATE_ERR, MLX5_RMPC_STATE_RDY, false, 0);
	ck_fw_synd(&m, SRQ_BAD_STATE);	/* not its current state */
	rmp_modify(&m, n, MLX5_RMPC_STATE_RDY, 0, false, 0);
	ck_fw_synd(&m, SRQ_BAD_STATE);	/* not a state of an RMP */
	rmp_modify(&m, n, MLX5_RMPC_STATE_RDY, MLX5_RMPC_STATE_ERR, false, 7);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&srq->lwm), 100);	/* no lwm bit */
	id_cmd(MLX5_CMD_OP_QUERY_RMP, 0, n, &m, PRM_ST_SZ_BYTES(query_rmp_out));
	ck_assert_uint_eq(PRM_GET(rmpc, q, state), MLX5_RMPC_STATE_ERR);
	ck_assert_uint_eq(PRM_GET(rmpc, q, wq.lwm), 100);
	rmp_modify(&m, n, MLX5_RMPC_STATE_ERR, MLX5_RMPC_STATE_RDY, false, 0);
	ck_fw_ok(&m);
	/* A bitmask bit that is not lwm. */
	fwt_mbox_init(&m, MLX5_CMD_OP_MODIFY_RMP, 0, env.uid,
		      PRM_ST_SZ_BYTES(modify_rmp_in),
		      PRM_ST_SZ_BYTES(modify_rmp_out));
	PRM_SET(modify_rmp_in, m.in, rmpn, n);
	PRM_SET(modify_rmp_in, m.in, rmp_state, MLX5_RMPC_STATE_RDY);
	PRM_SET(rmpc, PRM_ADDR_OF(modify_rmp_in, m.in, ctx), state,
		MLX5_RMPC_STATE_RDY);
	((uint8_t *)PRM_ADDR_OF(modify_rmp_in, m.in, bitmask))[3] = 1;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, RMP_BAD_BITMASK);
	emu_fw_obj_put(&srq->obj);

	/* A QP and a DCT can receive on it. */
	{
		struct fwt_mbox cq;

		qpt_create_mbox(&env, &cq, QPT_RC);
		PRM_SET(qpc, QPT_QPC(&cq), rq_type, EMU_FW_RQ_SRQ);
		PRM_SET(qpc, QPT_QPC(&cq), srqn_rmpn_xrqn, n);
		fwt_exec(fw, &cq);
		ck_fw_ok(&cq);
		qpn = PRM_GET(create_qp_out, cq.out, qpn);
	}
	id_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, n, &m, 16);
	ck_fw_synd(&m, SRQ_IN_USE);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_QP, 0, qpn, &m, 16), 0);
	ck_assert_uint_eq(id_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, n, &m, 16), 0);
	id_cmd(MLX5_CMD_OP_QUERY_RMP, 0, n, &m, PRM_ST_SZ_BYTES(query_rmp_out));
	ck_fw_synd(&m, RMP_INVALID);
}
END_TEST

#define ck_rmp_synd(stmt, ID)						\
	ck_fw_variant(fw, rmp_mbox(&m_), c, RMPC(&m_),			\
		      { void *wq = PRM_ADDR_OF(rmpc, c, wq);		\
			(void)wq;					\
			stmt; }, ID)

START_TEST(rmp_create_rules)
{
	ck_rmp_synd(PRM_SET(rmpc, c, state, 0), SRQ_BAD_STATE);
	ck_rmp_synd(PRM_SET(rmpc, c, basic_cyclic_rcv_wqe, 1),
		    SRQ_FEATURE_NOT_SUPPORTED);
	ck_rmp_synd(PRM_SET(wq, wq, wq_type, 2), SRQ_FEATURE_NOT_SUPPORTED);
	ck_rmp_synd(PRM_SET(wq, wq, log_wqe_num_of_strides, 3),
		    SRQ_FEATURE_NOT_SUPPORTED);
	ck_rmp_synd(PRM_SET(wq, wq, wq_signature, 1), SRQ_FEATURE_NOT_SUPPORTED);
	ck_rmp_synd(PRM_SET(wq, wq, log_wq_stride, 4), SRQ_BAD_STRIDE);
	ck_rmp_synd(PRM_SET(wq, wq, log_wq_stride, 5), OK);
	ck_rmp_synd(PRM_SET(wq, wq, log_wq_stride, 10), SRQ_BAD_STRIDE);
	ck_rmp_synd(PRM_SET(wq, wq, log_wq_sz, 16), SRQ_BAD_SIZE);
	ck_rmp_synd(PRM_SET(wq, wq, lwm, 128), SRQ_BAD_LWM);
	ck_rmp_synd(PRM_SET(wq, wq, pd, 0), BAD_PD);
	ck_rmp_synd(PRM_SET(wq, wq, wq_umem_id, 0x999), UMEM_INVALID);
	ck_rmp_synd(PRM_SET64(wq, wq, dbr_addr, 12), DBR_MISALIGNED);
	ck_rmp_synd({ PRM_SET(wq, wq, log_wq_sz, 11);
		      PRM_SET64(wq, wq, wq_umem_offset,
				(uint64_t)(QPT_SLOTS - 1) * QPT_SLOT_BYTES); },
		    UMEM_OUT_OF_RANGE);
}
END_TEST

/* One number space, three kinds; each command refuses the others. */
START_TEST(srq_kinds)
{
	struct fwt_mbox c, m;
	uint32_t basic = env.srq, xrc, rmp;

	xrc_srq_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	xrc = PRM_GET(create_xrc_srq_out, c.out, xrc_srqn);
	rmp_mbox(&c);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	rmp = PRM_GET(create_rmp_out, c.out, rmpn);
	ck_assert(basic != xrc && xrc != rmp && rmp != basic);

	id_cmd(MLX5_CMD_OP_QUERY_SRQ, 0, xrc, &m,
	       PRM_ST_SZ_BYTES(query_srq_out));
	ck_fw_synd(&m, SRQ_INVALID);
	id_cmd(MLX5_CMD_OP_QUERY_SRQ, 0, rmp, &m,
	       PRM_ST_SZ_BYTES(query_srq_out));
	ck_fw_synd(&m, SRQ_INVALID);
	id_cmd(MLX5_CMD_OP_QUERY_XRC_SRQ, 0, basic, &m,
	       PRM_ST_SZ_BYTES(query_xrc_srq_out));
	ck_fw_synd(&m, XRC_SRQ_INVALID);
	id_cmd(MLX5_CMD_OP_QUERY_RMP, 0, xrc, &m,
	       PRM_ST_SZ_BYTES(query_rmp_out));
	ck_fw_synd(&m, RMP_INVALID);
	id_cmd(MLX5_CMD_OP_DESTROY_SRQ, 0, rmp, &m, 16);
	ck_fw_synd(&m, SRQ_INVALID);
	id_cmd(MLX5_CMD_OP_DESTROY_RMP, 0, xrc, &m, 16);
	ck_fw_synd(&m, RMP_INVALID);
	id_cmd(MLX5_CMD_OP_DESTROY_XRC_SRQ, 0, rmp, &m, 16);
	ck_fw_synd(&m, XRC_SRQ_INVALID);
	/* Owner only. */
	{
		uint16_t other = fwt_uctx(fw);

		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_RMP, 0, other, 16,
			      PRM_ST_SZ_BYTES(query_rmp_out));
		PRM_SET(query_rmp_in, m.in, rmpn, rmp);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, RMP_INVALID);
		fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_XRC_SRQ, other,
				 xrc);
		ck_fw_synd(&m, XRC_SRQ_INVALID);
	}
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_SRQ), 3);
}
END_TEST

START_TEST(xrcd_rules)
{
	uint16_t other = fwt_uctx(fw);
	uint32_t x = qpt_xrcd(fw, env.uid), k = qpt_xrcd(fw, 0);
	struct fwt_mbox m;

	ck_assert_uint_ne(x, k);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_XRCD, other, x);
	ck_fw_synd(&m, XRCD_INVALID);
	/* A uid may use the kernel's domain. */
	{
		struct fwt_mbox c;

		xrc_srq_mbox(&c);
		PRM_SET(xrc_srqc, XSRQC(&c), xrcd, k);
		fwt_exec(fw, &c);
		ck_fw_ok(&c);
		/* and not another uid's */
		xrc_srq_mbox(&c);
		PRM_SET(xrc_srqc, XSRQC(&c), xrcd, qpt_xrcd(fw, other));
		fwt_exec(fw, &c);
		ck_fw_synd(&c, SRQ_BAD_XRCD);
	}
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_XRCD, env.uid,
				      x), 0);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_XRCD, 0, k);
	ck_fw_synd(&m, XRCD_IN_USE);
}
END_TEST

static Suite *srq_suite(void)
{
	Suite *s = suite_create("fw_srq");
	TCase *tc = tcase_create("srq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, srq_lifecycle);
	tcase_add_test(tc, srq_create_rules);
	tcase_add_test(tc, srq_limits);
	tcase_add_test(tc, xrc_srq_lifecycle);
	tcase_add_test(tc, xrc_srq_create_rules);
	tcase_add_test(tc, rmp_lifecycle);
	tcase_add_test(tc, rmp_create_rules);
	tcase_add_test(tc, srq_kinds);
	tcase_add_test(tc, xrcd_rules);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(srq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
