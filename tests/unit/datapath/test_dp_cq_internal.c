/* SPDX-License-Identifier: MIT */
/*
 * Inside the core: the CQ behaviour no public entry reaches yet.
 *
 *   - a QP moved to RESET takes its CQEs out of a CQ the provider polls
 *     (the others move up, the consumer index moves on);
 *   - ibv_resize_cq: the move of the unpolled CQEs into the new ring (one
 *     place on, owned by software there, the resize CQE consumed), and,
 *     with cq_resize offered and a stand-in firmware that writes the
 *     resize CQE, the MODIFY_CQ mailbox and the switch to the new ring;
 *     the kernel's limits before any command, the real firmware's refusal
 *     leaving the CQ as it was;
 *   - CQE compression and padding, once offered, refused rather than
 *     ignored (this provider does not parse them).
 *
 * Capabilities are offered by writing the context's cached pages (the
 * device runs configured without cq_resize, MLX5EMU_CAPS=cq_resize=0 from
 * CMake, so its firmware refuses a resize); the stand-in firmware is a
 * copy of the backend ops with obj_modify replaced.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/qp.h"
#include "dp_cqe.h"
#include "ut_core.h"
#include "ut_run.h"

MLX5EMU_ABI(ibv_create_cq);
MLX5EMU_ABI(ibv_destroy_cq);
MLX5EMU_ABI(ibv_resize_cq);
MLX5EMU_ABI(ibv_alloc_pd);
MLX5EMU_ABI(ibv_dealloc_pd);
MLX5EMU_ABI(ibv_create_qp);
MLX5EMU_ABI(ibv_destroy_qp);
MLX5EMU_ABI(ibv_modify_qp);
MLX5EMU_ABI(mlx5dv_create_cq);

static struct ibv_context *ctx;
static struct prov_context *pctx;
static const struct mlx5be_ops *real_be;
static struct mlx5be_ops fake_be;

/* The stand-in firmware's record of the last MODIFY_CQ. */
static uint8_t modify_in[PRM_ST_SZ_BYTES(modify_cq_in)];
static int modify_calls;
static struct prov_cq *resize_cq;	/* where to write the resize CQE */
static uint32_t resize_pi;

static void setup(void)
{
	ctx = ut_core_open();
	pctx = to_prov_context(ctx);
	real_be = pctx->be;
	fake_be = *real_be;
	pctx->be = &fake_be;
	modify_calls = 0;
	resize_cq = NULL;
}

static void teardown(void)
{
	pctx->be = real_be;
	ut_core_close(ctx);
	unsetenv("MLX5_CQE_SIZE");
}

static void *gen_caps(void)
{
	return pctx->caps->cur[MLX5_CAP_GENERAL];
}

static struct prov_cq *new_cq(int cqe)
{
	struct ibv_cq *cq = mlx5emu_abi_ibv_create_cq(ctx, cqe, NULL, NULL, 0);

	ck_assert_msg(cq, "create_cq: %s", strerror(errno));
	return to_prov_cq(cq);
}

static uint8_t *put(struct prov_cq *cq, uint32_t pi, uint8_t opcode,
		    uint32_t uidx, uint8_t wqe_op, uint16_t counter)
{
	return dp_cqe_write(cq->buf.buf, cq->ncqe, cq->cqe_sz, pi, opcode, uidx,
			    0x42, wqe_op, counter);
}

static struct ibv_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = mlx5emu_abi_ibv_create_qp(pd, &a);

	ck_assert_msg(qp, "create_qp: %s", strerror(errno));
	return qp;
}

START_TEST(test_cq_clean)
{
	struct prov_cq *cq = new_cq(7);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	struct ibv_pd *pd = mlx5emu_abi_ibv_alloc_pd(ctx);
	struct ibv_qp *a = new_qp(pd, ibcq), *b = new_qp(pd, ibcq);
	uint32_t ua = to_prov_qp(a)->uidx, ub = to_prov_qp(b)->uidx;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[4];

	put(cq, 0, MLX5_CQE_REQ, ua, MLX5_OPCODE_SEND, 0);
	put(cq, 1, MLX5_CQE_REQ, ub, MLX5_OPCODE_SEND, 0);
	put(cq, 2, MLX5_CQE_REQ, ua, MLX5_OPCODE_SEND, 1);
	put(cq, 3, MLX5_CQE_REQ, ub, MLX5_OPCODE_RDMA_WRITE, 1);
	ck_assert_int_eq(mlx5emu_abi_ibv_modify_qp(a, &qa, IBV_QP_STATE), 0);
	/* A's two CQEs are gone: the consumer index moved past two places
	 * and B's CQEs, in their order, fill the last two. */
	ck_assert_uint_eq(cq->cons_index, 2);
	ck_assert_uint_eq(be32toh(cq->dbrec[PROV_CQ_SET_CI]), 2);
	ck_assert_int_eq(ibv_poll_cq(ibcq, 4, wc), 2);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_SEND);
	ck_assert_int_eq(wc[1].opcode, IBV_WC_RDMA_WRITE);
	ck_assert_uint_eq(wc[0].qp_num, 0x42);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(a), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_qp(b), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

/* Consumes @n CQEs written in order from @cq's consumer index on. */
static void consume(struct prov_cq *cq, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ck_assert_ptr_nonnull(prov_cq_next_cqe(cq));
}

static uint16_t counter_at(void *ring, uint32_t ncqe, uint32_t sz, uint32_t n)
{
	uint8_t *cqe = (uint8_t *)ring + (n & (ncqe - 1)) * sz + sz - 64;

	return (uint16_t)(cqe[0x3c] << 8 | cqe[0x3d]);
}

static uint8_t owner_at(void *ring, uint32_t ncqe, uint32_t sz, uint32_t n)
{
	return ((uint8_t *)ring)[(n & (ncqe - 1)) * sz + sz - 1] & 1;
}

static void resize_copy(uint32_t sz)
{
	struct prov_cq *cq;
	struct prov_qbuf ring;

	setenv("MLX5_CQE_SIZE", sz == 128 ? "128" : "64", 1);
	cq = new_cq(7);
	ck_assert_uint_eq(cq->cqe_sz, sz);
	/* 14 CQEs polled (the second pass over 8), two not, then the
	 * resize CQE. */
	for (uint32_t pi = 0; pi < 16; pi++) {
		if (pi == 8)
			consume(cq, 8);
		put(cq, pi, MLX5_CQE_REQ, 1, 0, (uint16_t)(0x100 + pi));
	}
	consume(cq, 6);
	put(cq, 16, MLX5_CQE_RESIZE_CQ, 0, 0, 0);
	/* A mark in the first half of a 128-byte entry travels with it. */
	((uint8_t *)prov_cq_entry(cq, 15))[0] = 0x77;
	ck_assert_int_eq(prov_cq_ring_alloc(&ring, NULL, NULL, 16, sz), 0);
	ck_assert(prov_cq_resize_copy(cq, ring.buf, 16));
	/* Old 14 and 15 at new 15 and 16 (entry 0, the second pass). */
	ck_assert_uint_eq(counter_at(ring.buf, 16, sz, 15), 0x10e);
	ck_assert_uint_eq(counter_at(ring.buf, 16, sz, 16), 0x10f);
	ck_assert_uint_eq(owner_at(ring.buf, 16, sz, 15), 0);
	ck_assert_uint_eq(owner_at(ring.buf, 16, sz, 16), 1);
	ck_assert_uint_eq(((uint8_t *)ring.buf)[0], 0x77);
	ck_assert_uint_eq(cq->cons_index, 15);
	prov_qbuf_free(&ring);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(&cq->ex)), 0);
}

START_TEST(test_resize_copy)
{
	struct prov_cq *cq = new_cq(7);
	struct prov_qbuf ring;

	resize_copy(64);
	resize_copy(128);
	unsetenv("MLX5_CQE_SIZE");

	/* No resize CQE before hardware's part: nothing consumed. */
	put(cq, 0, MLX5_CQE_REQ, 1, 0, 1);
	ck_assert_int_eq(prov_cq_ring_alloc(&ring, NULL, NULL, 16, 64), 0);
	ck_assert(!prov_cq_resize_copy(cq, ring.buf, 16));
	ck_assert_uint_eq(cq->cons_index, 0);
	/* Nor with the ring empty. */
	consume(cq, 1);
	ck_assert(!prov_cq_resize_copy(cq, ring.buf, 16));
	ck_assert_uint_eq(cq->cons_index, 1);
	prov_qbuf_free(&ring);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(&cq->ex)), 0);
}
END_TEST

/* The stand-in firmware: records MODIFY_CQ and, for a resize, writes the
 * resize CQE into the old ring at resize_pi. */
static int fake_obj_modify(struct mlx5be_obj *obj, const void *in, size_t inlen,
			   void *out, size_t outlen)
{
	if (PRM_GET(mbox_in, in, opcode) != MLX5_CMD_OP_MODIFY_CQ || !resize_cq)
		return real_be->obj_modify(obj, in, inlen, out, outlen);
	modify_calls++;
	memcpy(modify_in, in, inlen < sizeof(modify_in) ? inlen : sizeof(modify_in));
	put(resize_cq, resize_pi, MLX5_CQE_RESIZE_CQ, 0, 0, 0);
	memset(out, 0, outlen);
	return 0;
}

START_TEST(test_resize)
{
	struct prov_cq *cq = new_cq(7);
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);
	void *old_ring = cq->buf.buf;
	void *cqc;

	fake_be.obj_modify = fake_obj_modify;
	/* Without cq_resize: mlx5_ib's ENOSYS, nothing sent. */
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, 20), ENOSYS);
	ck_assert_int_eq(modify_calls, 0);
	PRM_SET(cmd_hca_cap, gen_caps(), cq_resize, 1);
	/* libmlx5's checks, then the kernel's, before any command. */
	errno = 0;
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, -1), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, INT_MAX / 64 + 1), EINVAL);
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, 5), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, 1 << 15), EINVAL);
	ck_assert_int_eq(modify_calls, 0);
	ck_assert_ptr_eq(cq->buf.buf, old_ring);

	/* Three completions, one polled; the device answers the resize with
	 * a resize CQE after them. */
	for (uint32_t pi = 0; pi < 3; pi++)
		put(cq, pi, MLX5_CQE_REQ, 1, 0, (uint16_t)pi);
	consume(cq, 1);
	resize_cq = cq;
	resize_pi = 3;
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, 20), 0);
	ck_assert_int_eq(modify_calls, 1);
	cqc = PRM_ADDR_OF(modify_cq_in, modify_in, cq_context);
	ck_assert_uint_eq(PRM_GET(modify_cq_in, modify_in, op_mod), 1);
	ck_assert_uint_eq(PRM_GET(modify_cq_in, modify_in, cqn), cq->cqn);
	ck_assert_uint_eq(PRM_GET(modify_cq_in, modify_in,
		modify_field_select_resize_field_select.resize_field_select.resize_field_select),
		0x7);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_cq_size), 5);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cqe_sz), 0);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_page_size), 0);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, page_offset), 0);
	ck_assert_uint_eq(PRM_GET(modify_cq_in, modify_in, cq_umem_valid), 1);
	ck_assert_uint_ne(PRM_GET(modify_cq_in, modify_in, cq_umem_id), 0);
	/* The CQ is the new ring now: 32 entries, the two unpolled CQEs
	 * first, then what the device writes from index 4 on. */
	ck_assert_int_eq(ibcq->cqe, 31);
	ck_assert_uint_eq(cq->ncqe, 32);
	ck_assert_ptr_ne(cq->buf.buf, old_ring);
	ck_assert_uint_eq(cq->cons_index, 2);
	put(cq, 4, MLX5_CQE_REQ, 1, 0, 4);
	ck_assert_uint_eq(counter_at(cq->buf.buf, 32, 64, 2), 1);
	ck_assert_uint_eq(counter_at(cq->buf.buf, 32, 64, 3), 2);
	consume(cq, 3);
	ck_assert_ptr_null(prov_cq_next_cqe(cq));

	/* The real firmware does not resize: its status, the CQ as it was. */
	fake_be.obj_modify = real_be->obj_modify;
	old_ring = cq->buf.buf;
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(ibcq, 100), EINVAL);
	ck_assert_ptr_eq(cq->buf.buf, old_ring);
	ck_assert_int_eq(ibcq->cqe, 31);
	ck_assert_uint_eq(cq->ncqe, 32);
	PRM_SET(cmd_hca_cap, gen_caps(), cq_resize, 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibcq), 0);
}
END_TEST

/* Offered compression would need CQE parsing this provider does not
 * have: refused, never silently ignored.  Padding needs none: taken where
 * offered, refused where not (libmlx5's EINVAL). */
START_TEST(test_dv_offered_refused)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct mlx5dv_cq_init_attr da = {
		.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE,
		.cqe_comp_res_format = MLX5DV_CQE_RES_FORMAT_HASH,
	};
	struct ibv_cq_ex *ex;

	PRM_SET(cmd_hca_cap, gen_caps(), cqe_compression, 1);
	PRM_SET(cmd_hca_cap, gen_caps(), cqe_compression_max_num, 8);
	PRM_SET(cmd_hca_cap, gen_caps(), cqe_128_always, 1);
	errno = 0;
	ck_assert_ptr_null(mlx5emu_abi_mlx5dv_create_cq(ctx, &ca, &da));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	da.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_FLAGS |
		       MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE;
	da.flags = MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD;
	da.cqe_size = 128;
	ex = mlx5emu_abi_mlx5dv_create_cq(ctx, &ca, &da);
	ck_assert_msg(ex, "%s", strerror(errno));
	ck_assert(to_prov_cq(ibv_cq_ex_to_cq(ex))->cqe_pad);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(ex)), 0);
	/* Padding still needs 128-byte CQEs (libmlx5's EINVAL). */
	da.cqe_size = 64;
	errno = 0;
	ck_assert_ptr_null(mlx5emu_abi_mlx5dv_create_cq(ctx, &ca, &da));
	ck_assert_int_eq(errno, EINVAL);
	/* And a device that offers none. */
	PRM_SET(cmd_hca_cap, gen_caps(), cqe_128_always, 0);
	da.cqe_size = 128;
	errno = 0;
	ck_assert_ptr_null(mlx5emu_abi_mlx5dv_create_cq(ctx, &ca, &da));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dp_cq_internal");
	TCase *tc = tcase_create("cq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cq_clean);
	tcase_add_test(tc, test_resize_copy);
	tcase_add_test(tc, test_resize);
	tcase_add_test(tc, test_dv_offered_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
