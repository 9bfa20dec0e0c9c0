/* SPDX-License-Identifier: MIT */
/*
 * DEVX commands through the ops: uid stamping, method classes, object ids,
 * vhca_tunnel_id, kernel-only commands, the *_umem_valid bits, firmware
 * errors, destroys built from the create and their errnos, the completion
 * EQ lookup of CREATE_CQ and query_eqn.
 */
#include <stdlib.h>

#include "test_kern_backend.h"

#define MBOX 1024	/* zeroed inbox/outbox room for any command here */

static struct mlx5be_ctx *ctx;
static struct emu_fw *fw;

static void setup(void)
{
	ctx = kbt_open(NULL);
	fw = kbt_fw(ctx);
}

static void teardown(void)
{
	BE->close(ctx);
}

/* A command refused before firmware: nothing reached firmware, the
 * outbox is untouched and no object came or went. */
struct kbt_before {
	unsigned long cmds;
	struct kbt_counts counts;
};

static void before(struct kbt_before *b)
{
	b->cmds = kbt_fw_cmds();
	kbt_counts(fw, &b->counts);
}

static void ck_nothing_changed(const struct kbt_before *b, const void *out,
			       size_t outlen)
{
	struct kbt_counts now;

	ck_assert_uint_eq(kbt_fw_cmds(), b->cmds);
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &b->counts);
	if (out)
		ck_assert_msg(kbt_poisoned(out, outlen), "outbox written");
}

/* ---- uid ---- */

/* Whatever uid the caller writes, the command runs with the context's:
 * the PD belongs to ctx, ctx2 cannot use or free it, ctx can. */
START_TEST(test_uid_stamped)
{
	struct mlx5be_ctx *ctx2 = kbt_open(NULL);
	const uint16_t bogus[] = { 0, kbt_uid(ctx2), 0xffff };
	uint8_t in[MBOX] = {}, out[MBOX] = {};
	struct kbt_mem mem1, mem2;

	ck_assert_uint_ne(kbt_uid(ctx), kbt_uid(ctx2));
	kbt_mem_reg(ctx, 4096, &mem1);
	kbt_mem_reg(ctx2, 4096, &mem2);
	for (size_t i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
		struct mlx5be_obj *pd, *mk;
		uint32_t pdn, idx;
		uint16_t owner;

		memset(in, 0, sizeof(in));
		PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
		PRM_SET(alloc_pd_in, in, uid, bogus[i]);
		pd = BE->obj_create(ctx, in, PRM_ST_SZ_BYTES(alloc_pd_in), out,
				    PRM_ST_SZ_BYTES(alloc_pd_out));
		ck_assert_ptr_nonnull(pd);
		ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_ALLOC_PD);
		ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
		/* The caller's mailbox is its own: only the kernel's copy. */
		ck_assert_uint_eq(PRM_GET(alloc_pd_in, in, uid), bogus[i]);
		pdn = PRM_GET(alloc_pd_out, out, pd);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, &owner));
		ck_assert_uint_eq(owner, kbt_uid(ctx));

		/* ctx2's mkey on it: firmware does not know the PD for uid2. */
		kbt_mkey_in(in, pdn, &mem2);
		PRM_SET(create_mkey_in, in, uid, kbt_uid(ctx));
		errno = 0;
		ck_assert_ptr_null(BE->obj_create(ctx2, in,
						  PRM_ST_SZ_BYTES(create_mkey_in),
						  out, PRM_ST_SZ_BYTES(create_mkey_out)));
		ck_assert_int_eq(errno, EREMOTEIO);
		ck_synd(out, "BAD_PD");
		ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx2));

		/* Firmware itself: only the owner's uid may free it. */
		memset(in, 0, sizeof(in));
		PRM_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
		PRM_SET(dealloc_pd_in, in, uid, kbt_uid(ctx2));
		PRM_SET(dealloc_pd_in, in, pd, pdn);
		ck_assert_int_eq(emu_fw_cmd_exec(fw, in, PRM_ST_SZ_BYTES(dealloc_pd_in),
						 out, PRM_ST_SZ_BYTES(dealloc_pd_out)), 0);
		ck_synd(out, "PD_INVALID");
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));

		/* ctx's mkey on it works, even with uid2 in its header. */
		kbt_mkey_in(in, pdn, &mem1);
		PRM_SET(create_mkey_in, in, uid, kbt_uid(ctx2));
		mk = BE->obj_create(ctx, in, PRM_ST_SZ_BYTES(create_mkey_in), out,
				    PRM_ST_SZ_BYTES(create_mkey_out));
		ck_assert_ptr_nonnull(mk);
		idx = PRM_GET(create_mkey_out, out, mkey_index);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_MKEY, idx, &owner));
		ck_assert_uint_eq(owner, kbt_uid(ctx));
		ck_assert_int_eq(BE->obj_destroy(mk), 0);
		ck_assert_int_eq(BE->obj_destroy(pd), 0);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	}
	/* General commands too. */
	memset(in, 0, sizeof(in));
	PRM_SET(query_adapter_in, in, opcode, MLX5_CMD_OP_QUERY_ADAPTER);
	PRM_SET(query_adapter_in, in, uid, kbt_uid(ctx2));
	ck_assert_int_eq(BE->general_cmd(ctx, in, PRM_ST_SZ_BYTES(query_adapter_in),
					 out, PRM_ST_SZ_BYTES(query_adapter_out)), 0);
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
	kbt_mem_dereg(&mem1);
	kbt_mem_dereg(&mem2);
	BE->close(ctx2);
}
END_TEST

/* ---- method classes ---- */

static const uint16_t not_general[] = {
	MLX5_CMD_OP_CREATE_CQ, MLX5_CMD_OP_ALLOC_PD, MLX5_CMD_OP_CREATE_MKEY,
	MLX5_CMD_OP_QUERY_CQ, MLX5_CMD_OP_MODIFY_CQ, MLX5_CMD_OP_DESTROY_CQ,
	MLX5_CMD_OP_DEALLOC_PD, MLX5_CMD_OP_QUERY_MKEY, 0x7ff0 /* unknown */,
};

START_TEST(test_general_wrong_class)
{
	uint8_t in[MBOX] = {}, out[MBOX];
	struct kbt_before b;

	PRM_SET(mbox_in, in, opcode, not_general[_i]);
	kbt_poison(out, sizeof(out));
	before(&b);
	ck_assert_int_eq(BE->general_cmd(ctx, in, 256, out, 256), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
}
END_TEST

static const uint16_t not_create[] = {
	MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CMD_OP_QUERY_ADAPTER, MLX5_CMD_OP_NOP,
	MLX5_CMD_OP_QUERY_CQ, MLX5_CMD_OP_MODIFY_CQ, MLX5_CMD_OP_DESTROY_CQ,
	MLX5_CMD_OP_DEALLOC_PD, MLX5_CMD_OP_DESTROY_MKEY, 0x7ff0,
};

START_TEST(test_create_wrong_class)
{
	uint8_t in[MBOX] = {}, out[MBOX];
	struct kbt_before b;

	PRM_SET(mbox_in, in, opcode, not_create[_i]);
	kbt_poison(out, sizeof(out));
	before(&b);
	errno = 0;
	ck_assert_ptr_null(BE->obj_create(ctx, in, 256, out, 256));
	ck_assert_int_eq(errno, EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
}
END_TEST

/* modify with a query or create opcode, query with a modify or general
 * one, on the CQ's own id. */
START_TEST(test_modify_query_wrong_class)
{
	static const uint16_t bad_modify[] = {
		MLX5_CMD_OP_QUERY_CQ, MLX5_CMD_OP_CREATE_CQ,
		MLX5_CMD_OP_DESTROY_CQ, MLX5_CMD_OP_QUERY_HCA_CAP,
	};
	static const uint16_t bad_query[] = {
		MLX5_CMD_OP_MODIFY_CQ, MLX5_CMD_OP_CREATE_CQ,
		MLX5_CMD_OP_DESTROY_CQ, MLX5_CMD_OP_QUERY_HCA_CAP,
	};
	uint8_t in[MBOX], out[MBOX];
	struct kbt_before b;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	for (size_t i = 0; i < 4; i++) {
		memset(in, 0, sizeof(in));
		PRM_SET(modify_cq_in, in, opcode, bad_modify[i]);
		PRM_SET(modify_cq_in, in, cqn, cq.cqn);
		kbt_poison(out, sizeof(out));
		before(&b);
		ck_assert_int_eq(BE->obj_modify(cq.obj, in, 256, out, 256), -EINVAL);
		ck_nothing_changed(&b, out, sizeof(out));

		PRM_SET(modify_cq_in, in, opcode, bad_query[i]);
		ck_assert_int_eq(BE->obj_query(cq.obj, in, 256, out, 256), -EINVAL);
		ck_nothing_changed(&b, out, sizeof(out));
	}
	kbt_cq_destroy(&cq);
}
END_TEST

/* A modify/query must name the handle's own object. */
START_TEST(test_obj_id_mismatch)
{
	uint8_t in[MBOX], out[MBOX];
	struct kbt_before b;
	struct kbt_cq cq, cq2;

	kbt_cq_create(ctx, &cq);
	kbt_cq_create(ctx, &cq2);
	before(&b);
	/* Another CQ of the same context. */
	kbt_query_cq_in(in, cq2.cqn);
	kbt_poison(out, sizeof(out));
	ck_assert_int_eq(BE->obj_query(cq.obj, in, 256, out, 256), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
	memset(in, 0, sizeof(in));
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, cq.cqn + 1000);
	ck_assert_int_eq(BE->obj_modify(cq.obj, in, 256, out, 256), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
	/* The same number, another kind of object. */
	memset(in, 0, sizeof(in));
	PRM_SET(query_mkey_in, in, opcode, MLX5_CMD_OP_QUERY_MKEY);
	PRM_SET(query_mkey_in, in, mkey_index, cq.cqn);
	ck_assert_int_eq(BE->obj_query(cq.obj, in, 256, out, 256), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
	/* The right id goes through. */
	kbt_query_cq_in(in, cq.cqn);
	ck_assert_int_eq(BE->obj_query(cq.obj, in, PRM_ST_SZ_BYTES(query_cq_in),
				       out, PRM_ST_SZ_BYTES(query_cq_out)), 0);
	ck_assert_uint_eq(kbt_fw_cmds(), b.cmds + 1);
	kbt_cq_destroy(&cq2);
	kbt_cq_destroy(&cq);
}
END_TEST

/* vhca_tunnel_id != 0 on create, modify and query: EINVAL. */
START_TEST(test_vhca_tunnel_id)
{
	uint8_t in[MBOX], out[MBOX];
	struct kbt_before b;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	before(&b);
	kbt_poison(out, sizeof(out));

	memset(in, 0, sizeof(in));
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 1);
	errno = 0;
	ck_assert_ptr_null(BE->obj_create(ctx, in, PRM_ST_SZ_BYTES(alloc_pd_in),
					  out, PRM_ST_SZ_BYTES(alloc_pd_out)));
	ck_assert_int_eq(errno, EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));

	memset(in, 0, sizeof(in));
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, cq.cqn);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 0x8000);
	ck_assert_int_eq(BE->obj_modify(cq.obj, in, PRM_ST_SZ_BYTES(modify_cq_in),
					out, PRM_ST_SZ_BYTES(modify_cq_out)), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));

	kbt_query_cq_in(in, cq.cqn);
	PRM_SET(general_obj_in_cmd_hdr, in, vhca_tunnel_id, 7);
	ck_assert_int_eq(BE->obj_query(cq.obj, in, PRM_ST_SZ_BYTES(query_cq_in),
				       out, PRM_ST_SZ_BYTES(query_cq_out)), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
	kbt_cq_destroy(&cq);
}
END_TEST

/* Commands only mlx5_core/mlx5_ib issue: neither general nor create. */
static const uint16_t kernel_only[] = {
	MLX5_CMD_OP_CREATE_EQ, MLX5_CMD_OP_ALLOC_UAR, MLX5_CMD_OP_DEALLOC_UAR,
	MLX5_CMD_OP_SET_ROCE_ADDRESS, MLX5_CMD_OP_CREATE_UCTX,
	MLX5_CMD_OP_DESTROY_UCTX, MLX5_CMD_OP_CREATE_UMEM,
	MLX5_CMD_OP_ACCESS_REG, MLX5_CMD_OP_MAD_IFC, MLX5_CMD_OP_SET_HCA_CAP,
	MLX5_CMD_OP_INIT_HCA, MLX5_CMD_OP_MANAGE_PAGES,
};

START_TEST(test_kernel_only)
{
	uint8_t in[MBOX] = {}, out[MBOX];
	struct kbt_before b;

	PRM_SET(mbox_in, in, opcode, kernel_only[_i]);
	kbt_poison(out, sizeof(out));
	before(&b);
	ck_assert_int_eq(BE->general_cmd(ctx, in, MBOX, out, 256), -EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
	errno = 0;
	ck_assert_ptr_null(BE->obj_create(ctx, in, MBOX, out, 256));
	ck_assert_int_eq(errno, EINVAL);
	ck_nothing_changed(&b, out, sizeof(out));
}
END_TEST

/* ---- *_umem_valid ---- */

/* A CQ whose caller left cq_umem_valid and dbr_umem_valid 0 lives in its
 * umems: the kernel set the bits in its own copy. */
START_TEST(test_cq_umem_valid_set_by_kernel)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)] = {};
	void *cqc = PRM_ADDR_OF(query_cq_out, out, cq_context);
	struct emu_fw_obj *obj;
	struct emu_fw_cq *fcq;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_CQ, cq.cqn);
	ck_assert_ptr_nonnull(obj);
	fcq = emu_fw_to_cq(obj);
	ck_assert_ptr_nonnull(fcq->buf.umem);
	ck_assert_uint_eq(fcq->buf.umem->obj.id, cq.buf.id);
	ck_assert_ptr_nonnull(fcq->dbr.umem);
	ck_assert_uint_eq(fcq->dbr.umem->obj.id, cq.dbr.id);
	emu_fw_obj_put(obj);

	kbt_query_cq_in(in, cq.cqn);
	ck_assert_int_eq(BE->obj_query(cq.obj, in, PRM_ST_SZ_BYTES(query_cq_in),
				       out, sizeof(out)), 0);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, dbr_umem_valid), 1);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, dbr_umem_id), cq.dbr.id);
	kbt_cq_destroy(&cq);
}
END_TEST

/* The same for a direct mkey (mkey_umem_valid). */
START_TEST(test_mkey_umem_valid_set_by_kernel)
{
	struct mlx5be_obj *pd, *mk;
	struct emu_fw_obj *obj;
	struct kbt_mem mem;
	uint32_t pdn, idx;

	kbt_mem_reg(ctx, 8192, &mem);
	pd = kbt_pd(ctx, &pdn);
	mk = kbt_mkey(ctx, pdn, &mem, &idx);
	obj = emu_fw_obj_get(fw, EMU_FW_OBJ_MKEY, idx);
	ck_assert_ptr_nonnull(obj);
	ck_assert_ptr_nonnull(emu_fw_to_mkey(obj)->mem.umem);
	ck_assert_uint_eq(emu_fw_to_mkey(obj)->mem.umem->obj.id, mem.id);
	emu_fw_obj_put(obj);
	ck_assert_int_eq(BE->obj_destroy(mk), 0);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
	kbt_mem_dereg(&mem);
}
END_TEST

/* ---- firmware errors: EREMOTEIO, the outbox copied back ---- */

START_TEST(test_fw_error_create)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];
	struct kbt_counts c0, c1;
	unsigned long cmds;
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	kbt_cq_in(&cq, in, KBT_CAP(ctx, log_max_cq_sz) + 1);
	kbt_counts(fw, &c0);
	cmds = kbt_fw_cmds();
	kbt_poison(out, sizeof(out));
	errno = 0;
	ck_assert_ptr_null(BE->obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	ck_assert_int_eq(errno, EREMOTEIO);
	ck_synd(out, "CQ_BAD_SIZE");
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 1);
	kbt_counts(fw, &c1);
	ck_counts_eq(&c1, &c0);
	kbt_cq_destroy(&cq);
}
END_TEST

START_TEST(test_fw_error_modify)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(modify_cq_out)];
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, cq.cqn);
	PRM_SET(modify_cq_in, in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		1u << 7);	/* no such field */
	kbt_poison(out, sizeof(out));
	ck_assert_int_eq(BE->obj_modify(cq.obj, in, sizeof(in), out, sizeof(out)),
			 -EREMOTEIO);
	ck_synd(out, "CQ_BAD_FIELD_SELECT");
	kbt_cq_destroy(&cq);
}
END_TEST

START_TEST(test_fw_error_query)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)];
	uint8_t out[16];
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	kbt_query_cq_in(in, cq.cqn);
	kbt_poison(out, sizeof(out));
	/* The kernel takes any outbox of at least the 16-byte header;
	 * firmware wants room for the context. */
	ck_assert_int_eq(BE->obj_query(cq.obj, in, sizeof(in), out, sizeof(out)),
			 -EREMOTEIO);
	ck_synd(out, "BAD_OUTLEN");
	kbt_cq_destroy(&cq);
}
END_TEST

START_TEST(test_fw_error_general)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = {};
	size_t outlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	uint8_t *out = malloc(outlen);

	ck_assert_ptr_nonnull(out);
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, 0x7e << 1 | HCA_CAP_OPMOD_GET_CUR);
	kbt_poison(out, outlen);
	ck_assert_int_eq(BE->general_cmd(ctx, in, sizeof(in), out, outlen),
			 -EREMOTEIO);
	ck_synd(out, "CAP_BAD_TYPE");
	free(out);
}
END_TEST

/* ---- destroy ---- */

/* obj_destroy runs the destroy the kernel built from the create. */
START_TEST(test_destroy_from_create)
{
	struct kbt_counts base, now;
	struct mlx5be_obj *obj;
	struct kbt_mem mem;
	uint32_t pdn, idx, id;

	kbt_mem_reg(ctx, 4096, &mem);
	kbt_counts(fw, &base);

	/* PD */
	obj = kbt_pd(ctx, &pdn);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	ck_assert_int_eq(BE->obj_destroy(obj), 0);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DEALLOC_PD);
	ck_assert_uint_eq(kbt_fw_last_uid(), kbt_uid(ctx));
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));

	/* mkey (and its PD) */
	obj = kbt_pd(ctx, &pdn);
	{
		struct mlx5be_obj *mk = kbt_mkey(ctx, pdn, &mem, &idx);

		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_MKEY, idx, NULL));
		ck_assert_int_eq(BE->obj_destroy(mk), 0);
		ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DESTROY_MKEY);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_MKEY, idx, NULL));
	}
	ck_assert_int_eq(BE->obj_destroy(obj), 0);

	/* queue counter */
	{
		uint8_t in[PRM_ST_SZ_BYTES(alloc_q_counter_in)] = {};
		uint8_t out[PRM_ST_SZ_BYTES(alloc_q_counter_out)] = {};

		PRM_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
		obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
		ck_assert_ptr_nonnull(obj);
		id = PRM_GET(alloc_q_counter_out, out, counter_set_id);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_Q_COUNTER, id, NULL));
		ck_assert_int_eq(BE->obj_destroy(obj), 0);
		ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DEALLOC_Q_COUNTER);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_Q_COUNTER, id, NULL));
	}
	/* flow counter */
	{
		uint8_t in[PRM_ST_SZ_BYTES(alloc_flow_counter_in)] = {};
		uint8_t out[PRM_ST_SZ_BYTES(alloc_flow_counter_out)] = {};

		PRM_SET(alloc_flow_counter_in, in, opcode,
			MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
		obj = BE->obj_create(ctx, in, sizeof(in), out, sizeof(out));
		ck_assert_ptr_nonnull(obj);
		id = PRM_GET(alloc_flow_counter_out, out, flow_counter_id);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_FLOW_COUNTER, id, NULL));
		ck_assert_int_eq(BE->obj_destroy(obj), 0);
		ck_assert_uint_eq(kbt_fw_last_opcode(),
				  MLX5_CMD_OP_DEALLOC_FLOW_COUNTER);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_FLOW_COUNTER, id, NULL));
	}
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);

	/* CQ (with its umems and UAR) */
	{
		struct kbt_cq cq;

		kbt_cq_create(ctx, &cq);
		ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));
		ck_assert_int_eq(BE->obj_destroy(cq.obj), 0);
		cq.obj = NULL;
		ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DESTROY_CQ);
		ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_CQ, cq.cqn, NULL));
		kbt_cq_destroy(&cq);
	}
	kbt_counts(fw, &now);
	ck_counts_eq(&now, &base);
	kbt_mem_dereg(&mem);
}
END_TEST

/*
 * A destroy firmware refuses maps its status as mlx5_cmd_exec() does
 * (cmd_status_to_err): DEALLOC_PD of a PD an mkey uses is BAD_RES_STATE,
 * which is EINVAL; the PD and its handle stay.
 */
START_TEST(test_destroy_errno)
{
	struct mlx5be_obj *pd, *mk;
	struct kbt_counts c0, c1;
	struct kbt_mem mem;
	uint32_t pdn, idx;
	unsigned long cmds;

	kbt_mem_reg(ctx, 4096, &mem);
	pd = kbt_pd(ctx, &pdn);
	mk = kbt_mkey(ctx, pdn, &mem, &idx);
	kbt_counts(fw, &c0);
	cmds = kbt_fw_cmds();
	ck_assert_int_eq(BE->obj_destroy(pd), -EINVAL);
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 1);
	ck_assert_uint_eq(kbt_fw_last_opcode(), MLX5_CMD_OP_DEALLOC_PD);
	ck_assert_int_eq(kern_status_to_errno(fw_syndrome_by_name("PD_IN_USE")->status),
			 -EINVAL);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	kbt_counts(fw, &c1);
	ck_counts_eq(&c1, &c0);
	/* The handle still works: once the mkey is gone, so can the PD. */
	ck_assert_int_eq(BE->obj_destroy(mk), 0);
	ck_assert_int_eq(BE->obj_destroy(pd), 0);
	ck_assert(!kbt_fw_has(fw, EMU_FW_OBJ_PD, pdn, NULL));
	kbt_mem_dereg(&mem);
}
END_TEST

/* ---- short inboxes ---- */

/*
 * Inboxes of opcode @op and every length in [lo, hi), each in exactly its
 * own length of heap (AddressSanitizer sees a byte read or written past
 * it): created, or modified through @obj (naming @id where MODIFY_CQ puts
 * its cqn, inside the header).  Each fails with @err, and reaches firmware
 * as BAD_INLEN when @err is EREMOTEIO.
 */
static void ck_short_inboxes(uint16_t op, size_t lo, size_t hi,
			     struct mlx5be_obj *obj, uint32_t id, int err)
{
	for (size_t len = lo; len < hi; len++) {
		uint8_t out[64];
		uint8_t *in = calloc(1, len);
		int ret;

		ck_assert_ptr_nonnull(in);
		PRM_SET(mbox_in, in, opcode, op);
		errno = 0;
		if (obj) {
			PRM_SET(modify_cq_in, in, cqn, id);
			ret = -BE->obj_modify(obj, in, len, out, sizeof(out));
		} else {
			ck_assert_ptr_null(BE->obj_create(ctx, in, len, out, sizeof(out)));
			ret = errno;
		}
		ck_assert_msg(ret == err, "opcode 0x%x inlen %zu: errno %d, want %d",
			      op, len, ret, err);
		if (err == EREMOTEIO)
			ck_synd(out, "BAD_INLEN");
		free(in);
	}
}

/*
 * An inbox cut short of the 32-bit word that holds a *_umem_valid bit: the
 * kernel's copy must cover the whole word it sets.  CREATE_CQ: the c_eqn
 * read from the zero padding is EQ 0, no completion EQ (ENOENT); MODIFY_CQ
 * and CREATE_QP reach firmware, which refuses the short inbox.
 */
START_TEST(test_short_inbox)
{
	struct kbt_cq cq;

	kbt_cq_create(ctx, &cq);
	ck_short_inboxes(MLX5_CMD_OP_CREATE_CQ, KERN_DEVX_CMD_IN_MIN,
			 PRM_ST_SZ_BYTES(create_cq_in), NULL, 0, ENOENT);
	ck_short_inboxes(MLX5_CMD_OP_MODIFY_CQ, KERN_DEVX_CMD_IN_MIN,
			 PRM_ST_SZ_BYTES(modify_cq_in), cq.obj, cq.cqn, EREMOTEIO);
	ck_short_inboxes(MLX5_CMD_OP_CREATE_QP, 96, PRM_ST_SZ_BYTES(create_qp_in),
			 NULL, 0, EREMOTEIO);
	kbt_cq_destroy(&cq);
}
END_TEST

/* ---- completion EQs ---- */

/* mlx5_create_cq: an EQ that is no kernel completion EQ is ENOENT,
 * before firmware. */
START_TEST(test_create_cq_bad_eqn)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)];
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)];
	struct kbt_before b;
	struct kbt_cq cq;
	uint32_t good;

	kbt_cq_create(ctx, &cq);
	good = cq.eqn;
	before(&b);
	for (uint32_t bad = 0; bad < 256; bad++) {
		if (bad == good)
			continue;
		cq.eqn = bad;
		kbt_cq_in(&cq, in, KBT_CQ_LOG_SIZE);
		kbt_poison(out, sizeof(out));
		errno = 0;
		ck_assert_ptr_null(BE->obj_create(ctx, in, sizeof(in), out,
						  sizeof(out)));
		ck_assert_int_eq(errno, ENOENT);
		ck_nothing_changed(&b, out, sizeof(out));
	}
	cq.eqn = good;
	kbt_cq_destroy(&cq);
}
END_TEST

/* query_eqn(0) names the kernel's completion EQ (a CQ on it works, see
 * kbt_cq_create); vectors past num_comp_vectors are EINVAL. */
START_TEST(test_query_eqn)
{
	uint32_t eqn = 0xdead, bad = 0xbeef;
	uint16_t owner = 0xffff;

	ck_assert_int_eq(BE->query_eqn(ctx, 0, &eqn), 0);
	ck_assert(kbt_fw_has(fw, EMU_FW_OBJ_EQ, eqn, &owner));
	ck_assert_uint_eq(owner, 0);
	ck_assert_int_eq(BE->query_eqn(ctx, KERN_NUM_COMP_VECTORS, &bad), -EINVAL);
	ck_assert_int_eq(BE->query_eqn(ctx, UINT32_MAX, &bad), -EINVAL);
	ck_assert_uint_eq(bad, 0xbeef);
}
END_TEST

Suite *kbt_cmd_suite(void)
{
	Suite *s = suite_create("kern_backend_cmd");
	TCase *tc = tcase_create("cmd");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_uid_stamped);
	tcase_add_loop_test(tc, test_general_wrong_class, 0,
			    sizeof(not_general) / sizeof(not_general[0]));
	tcase_add_loop_test(tc, test_create_wrong_class, 0,
			    sizeof(not_create) / sizeof(not_create[0]));
	tcase_add_test(tc, test_modify_query_wrong_class);
	tcase_add_test(tc, test_obj_id_mismatch);
	tcase_add_test(tc, test_vhca_tunnel_id);
	tcase_add_loop_test(tc, test_kernel_only, 0,
			    sizeof(kernel_only) / sizeof(kernel_only[0]));
	tcase_add_test(tc, test_cq_umem_valid_set_by_kernel);
	tcase_add_test(tc, test_mkey_umem_valid_set_by_kernel);
	tcase_add_test(tc, test_fw_error_create);
	tcase_add_test(tc, test_fw_error_modify);
	tcase_add_test(tc, test_fw_error_query);
	tcase_add_test(tc, test_fw_error_general);
	tcase_add_test(tc, test_destroy_from_create);
	tcase_add_test(tc, test_destroy_errno);
	tcase_add_test(tc, test_short_inbox);
	tcase_add_test(tc, test_create_cq_bad_eqn);
	tcase_add_test(tc, test_query_eqn);
	suite_add_tcase(s, tc);
	return s;
}
