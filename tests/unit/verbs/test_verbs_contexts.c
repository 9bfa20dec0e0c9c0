/* SPDX-License-Identifier: MIT */
/*
 * The contexts firmware holds for verbs objects, read back as a DEVX user
 * reads them on the object's own handle: QUERY_MKEY for an MR (the mkc
 * libmlx5 and mlx5_ib build for ibv_reg_mr and ibv_rereg_mr), QUERY_CQ for
 * a CQ through mlx5dv_devx_cq_query (the cqc of ibv_create_cq and
 * ibv_create_cq_ex), and MODIFY_CQ through mlx5dv_devx_cq_modify.  Inside
 * the core (the internal library) for the handles: no public entry gives
 * an MR's object or a CQ's number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/mr.h"
#include "provider/verbs/pd.h"
#include "ut_run.h"

MLX5EMU_ABI(ibv_get_device_list);
MLX5EMU_ABI(ibv_free_device_list);
MLX5EMU_ABI(ibv_close_device);
MLX5EMU_ABI(mlx5dv_open_device);
MLX5EMU_ABI(ibv_alloc_pd);
MLX5EMU_ABI(ibv_dealloc_pd);
MLX5EMU_ABI(ibv_reg_mr_iova2);
MLX5EMU_ABI(ibv_rereg_mr);
MLX5EMU_ABI(ibv_dereg_mr);
MLX5EMU_ABI(ibv_create_cq);
MLX5EMU_ABI(ibv_destroy_cq);
MLX5EMU_ABI(mlx5dv_devx_cq_query);
MLX5EMU_ABI(mlx5dv_devx_cq_modify);
MLX5EMU_ABI(mlx5dv_devx_query_eqn);
MLX5EMU_ABI(mlx5dv_create_cq);
MLX5EMU_ABI(ibv_resize_cq);

#define PAGE 4096

static struct ibv_context *ctx;
static struct prov_context *pctx;

static void setup(void)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	int n;

	unsetenv("MLX5_CQE_SIZE");
	list = mlx5emu_abi_ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_ge(n, 1);
	ctx = mlx5emu_abi_mlx5dv_open_device(list[0], &attr);
	ck_assert_msg(ctx, "open: %s", strerror(errno));
	mlx5emu_abi_ibv_free_device_list(list);
	pctx = to_prov_context(ctx);
}

static void teardown(void)
{
	unsetenv("MLX5_CQE_SIZE");
	ck_assert_int_eq(mlx5emu_abi_ibv_close_device(ctx), 0);
}

/* ---- MRs: QUERY_MKEY on the MR's mkey object ---- */

static void *query_mkey(struct ibv_mr *mr, uint8_t *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_mkey_in)] = { 0 };

	memset(out, 0, PRM_ST_SZ_BYTES(query_mkey_out));
	PRM_SET(query_mkey_in, in, opcode, MLX5_CMD_OP_QUERY_MKEY);
	PRM_SET(query_mkey_in, in, mkey_index, mr->lkey >> 8);
	ck_assert_int_eq(pctx->be->obj_query(to_prov_mr(mr)->mkey, in, sizeof(in),
					     out, PRM_ST_SZ_BYTES(query_mkey_out)),
			 0);
	return PRM_ADDR_OF(query_mkey_out, out, memory_key_mkey_entry);
}

/* The mkc of an MR registered over [addr, addr + len) at iova with
 * access, in PD pd: each field as mlx5_ib's set_mkc_access_pd_addr_fields
 * and the umem MTT layout give it. */
static void ck_mkc(struct ibv_mr *mr, struct ibv_pd *pd, const void *addr,
		   size_t len, uint64_t iova, unsigned int access)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_mkey_out)];
	void *mkc = query_mkey(mr, out);
	uint64_t first = (uintptr_t)addr / PAGE, last = ((uintptr_t)addr + len - 1) / PAGE;

	ck_assert_uint_eq(PRM_GET(mkc, mkc, access_mode_1_0), MLX5_MKC_ACCESS_MODE_MTT);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, access_mode_4_2), 0);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, lr), 1);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, lw), !!(access & IBV_ACCESS_LOCAL_WRITE));
	ck_assert_uint_eq(PRM_GET(mkc, mkc, rr), !!(access & IBV_ACCESS_REMOTE_READ));
	ck_assert_uint_eq(PRM_GET(mkc, mkc, rw), !!(access & IBV_ACCESS_REMOTE_WRITE));
	ck_assert_uint_eq(PRM_GET(mkc, mkc, a), !!(access & IBV_ACCESS_REMOTE_ATOMIC));
	ck_assert_uint_eq(PRM_GET(mkc, mkc, qpn), 0xffffff);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, mkey_7_0), mr->lkey & 0xff);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, pd), prov_pd_pdn(pd));
	ck_assert_uint_eq(PRM_GET64(mkc, mkc, start_addr), iova);
	ck_assert_uint_eq(PRM_GET64(mkc, mkc, len), len);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, log_page_size), 12);
	ck_assert_uint_eq(PRM_GET(mkc, mkc, translations_octword_size),
			  (last - first + 1 + 1) / 2);
	ck_assert_uint_eq(mr->rkey, mr->lkey);
}

START_TEST(test_mr_mkey_context)
{
	static const unsigned int acc[] = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
	};
	/* Lengths and offsets into the pages, each with an iova that differs
	 * from the address (the same offset in its page, as uverbs asks). */
	static const struct { size_t off, len; uint64_t iova_page; } r[] = {
		{ 0, PAGE, 0x10000 }, { 100, 5000, 0x7fff0000 },
		{ 4000, 3 * PAGE, UINT64_C(0x123450000) }, { 8, 1, 0 },
	};
	struct ibv_pd *pd = mlx5emu_abi_ibv_alloc_pd(ctx);
	char *buf = aligned_alloc(PAGE, 8 * PAGE);

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(buf);
	for (size_t a = 0; a < sizeof(acc) / sizeof(acc[0]); a++) {
		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
			uint64_t iova = r[i].iova_page + r[i].off % PAGE;
			struct ibv_mr *mr = mlx5emu_abi_ibv_reg_mr_iova2(
				pd, buf + r[i].off, r[i].len, iova, acc[a]);

			ck_assert_msg(mr, "access %#x: %s", acc[a], strerror(errno));
			ck_mkc(mr, pd, buf + r[i].off, r[i].len, iova, acc[a]);
			ck_assert_int_eq(mlx5emu_abi_ibv_dereg_mr(mr), 0);
		}
	}
	free(buf);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd), 0);
}
END_TEST

/* ibv_rereg_mr: the new mkey carries the new access, PD and translation. */
START_TEST(test_mr_rereg_context)
{
	struct ibv_pd *pd = mlx5emu_abi_ibv_alloc_pd(ctx);
	struct ibv_pd *pd2 = mlx5emu_abi_ibv_alloc_pd(ctx);
	char *buf = aligned_alloc(PAGE, 4 * PAGE);
	struct ibv_mr *mr;

	ck_assert_ptr_nonnull(buf);
	mr = mlx5emu_abi_ibv_reg_mr_iova2(pd, buf, PAGE, (uintptr_t)buf,
					  IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_mkc(mr, pd, buf, PAGE, (uintptr_t)buf, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_int_eq(mlx5emu_abi_ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
						  NULL, 0, IBV_ACCESS_LOCAL_WRITE |
						  IBV_ACCESS_REMOTE_READ), 0);
	ck_mkc(mr, pd, buf, PAGE, (uintptr_t)buf,
	       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_int_eq(mlx5emu_abi_ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2,
						  NULL, 0, 0), 0);
	ck_mkc(mr, pd2, buf, PAGE, (uintptr_t)buf,
	       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_int_eq(mlx5emu_abi_ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
						  NULL, buf + 100, 2 * PAGE, 0), 0);
	ck_mkc(mr, pd2, buf + 100, 2 * PAGE, (uintptr_t)buf + 100,
	       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_int_eq(mlx5emu_abi_ibv_dereg_mr(mr), 0);
	free(buf);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_dealloc_pd(pd), 0);
}
END_TEST

/* ---- CQs: QUERY_CQ through mlx5dv_devx_cq_query ---- */

static void *query_cq(struct ibv_cq *cq, uint8_t *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_cq_in)] = { 0 };

	memset(out, 0, PRM_ST_SZ_BYTES(query_cq_out));
	PRM_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	PRM_SET(query_cq_in, in, cqn, to_prov_cq(cq)->cqn);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_cq_query(
				 cq, in, sizeof(in), out, PRM_ST_SZ_BYTES(query_cq_out)), 0);
	return PRM_ADDR_OF(query_cq_out, out, cq_context);
}

/* mlx5dv_create_cq's padding: the cqc's cqe_sz 2 (the kernel's
 * CQE_STRIDE_128_PAD), kept by a resize; 128-byte entries all the same. */
START_TEST(test_cq_context_padded)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 10,
					  .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct mlx5dv_cq_init_attr da = {
		.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_FLAGS |
			     MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE,
		.flags = MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD,
		.cqe_size = 128,
	};
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct ibv_cq_ex *ex;
	struct ibv_cq *cq;
	void *cqc;

	ex = mlx5emu_abi_mlx5dv_create_cq(ctx, &ca, &da);
	ck_assert_msg(ex, "%s", strerror(errno));
	cq = ibv_cq_ex_to_cq(ex);
	ck_assert_uint_eq(to_prov_cq(cq)->cqe_sz, 128);
	cqc = query_cq(cq, out);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cqe_sz), MLX5_CQC_CQE_SZ_128_PAD);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_cq_size), 4);
	ck_assert_int_eq(mlx5emu_abi_ibv_resize_cq(cq, 100), 0);
	cqc = query_cq(cq, out);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_cq_size), 7);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cqe_sz), MLX5_CQC_CQE_SZ_128_PAD);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), 0);
}
END_TEST

/*
 * The cqc of ibv_create_cq: the ring as a log (ibv_cq.cqe + 1 entries),
 * the CQE size MLX5_CQE_SIZE asks for, the vector's EQ, the doorbell
 * record in a umem at offset 0, the ring in a umem from offset 0, no
 * overrun ignoring.
 */
START_TEST(test_cq_context)
{
	static const struct { int req, log; const char *sz; unsigned int cqe_sz; } c[] = {
		{ 1, 1, "64", 0 }, { 2, 2, "64", 0 }, { 100, 7, "64", 0 },
		{ 127, 7, "128", 1 }, { 128, 8, "128", 1 }, { 1000, 10, "128", 1 },
		{ 4095, 12, "64", 0 },
	};
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (int v = 0; v < ctx->num_comp_vectors; v++) {
			struct ibv_cq *cq;
			uint32_t eqn;
			void *cqc;

			setenv("MLX5_CQE_SIZE", c[i].sz, 1);
			cq = mlx5emu_abi_ibv_create_cq(ctx, c[i].req, NULL, NULL, v);
			ck_assert_msg(cq, "cqe %d: %s", c[i].req, strerror(errno));
			ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_query_eqn(ctx, (uint32_t)v,
									   &eqn), 0);
			cqc = query_cq(cq, out);
			ck_assert_msg(PRM_GET(cqc, cqc, log_cq_size) == (uint32_t)c[i].log,
				      "cqe %d: log_cq_size %u, want %d", c[i].req,
				      PRM_GET(cqc, cqc, log_cq_size), c[i].log);
			ck_assert_int_eq(cq->cqe, (1 << c[i].log) - 1);
			ck_assert_msg(PRM_GET(cqc, cqc, cqe_sz) == c[i].cqe_sz,
				      "MLX5_CQE_SIZE=%s: cqe_sz %u", c[i].sz,
				      PRM_GET(cqc, cqc, cqe_sz));
			ck_assert_uint_eq(PRM_GET(cqc, cqc, c_eqn), eqn);
			ck_assert_uint_eq(PRM_GET(cqc, cqc, dbr_umem_valid), 1);
			ck_assert_uint_ne(PRM_GET(cqc, cqc, dbr_umem_id), 0);
			ck_assert_uint_eq(PRM_GET64(cqc, cqc, dbr_addr), 0);
			ck_assert_uint_eq(PRM_GET(cqc, cqc, log_page_size), 0);
			ck_assert_uint_eq(PRM_GET(cqc, cqc, page_offset), 0);
			ck_assert_uint_eq(PRM_GET(cqc, cqc, oi), 0);
			ck_assert_uint_ne(PRM_GET(cqc, cqc, uar_page), 0);
			ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), 0);
		}
	}
}
END_TEST

/* ibv_create_cq_ex with IGNORE_OVERRUN: cqc.oi. */
START_TEST(test_cq_context_ex)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 10, .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, &attr);
	void *cqc;

	ck_assert_msg(cq, "%s", strerror(errno));
	cqc = query_cq(ibv_cq_ex_to_cq(cq), out);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, oi), 1);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, log_cq_size), 4);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
}
END_TEST

/* MODIFY_CQ (moderation) on a verbs CQ, and what the kernel refuses: the
 * command naming another CQ, or of another class; no CQ at all. */
START_TEST(test_cq_devx_modify)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_cq_in)] = { 0 };
	uint8_t mout[PRM_ST_SZ_BYTES(modify_cq_out)];
	uint8_t out[PRM_ST_SZ_BYTES(query_cq_out)];
	struct ibv_cq *cq = mlx5emu_abi_ibv_create_cq(ctx, 10, NULL, NULL, 0);
	struct ibv_cq *other = mlx5emu_abi_ibv_create_cq(ctx, 10, NULL, NULL, 0);
	void *cqc;

	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_nonnull(other);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	PRM_SET(modify_cq_in, in, cqn, to_prov_cq(cq)->cqn);
	PRM_SET(modify_cq_in, in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		MLX5_CQ_MODIFY_PERIOD | MLX5_CQ_MODIFY_COUNT);
	PRM_SET(modify_cq_in, in, cq_context.cq_period, 16);
	PRM_SET(modify_cq_in, in, cq_context.cq_max_count, 8);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_cq_modify(cq, in, sizeof(in), mout,
							   sizeof(mout)), 0);
	cqc = query_cq(cq, out);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cq_period), 16);
	ck_assert_uint_eq(PRM_GET(cqc, cqc, cq_max_count), 8);
	errno = 0;
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_cq_modify(other, in, sizeof(in),
							   mout, sizeof(mout)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	PRM_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_cq_query(cq, in, sizeof(in), out,
							  sizeof(out)), EINVAL);
	ck_assert_int_eq(mlx5emu_abi_mlx5dv_devx_cq_query(NULL, in, sizeof(in), out,
							  sizeof(out)), EINVAL);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(other), 0);
	ck_assert_int_eq(mlx5emu_abi_ibv_destroy_cq(cq), 0);
}
END_TEST

static Suite *contexts_suite(void)
{
	Suite *s = suite_create("verbs_contexts");
	TCase *tc = tcase_create("contexts");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mr_mkey_context);
	tcase_add_test(tc, test_mr_rereg_context);
	tcase_add_test(tc, test_cq_context);
	tcase_add_test(tc, test_cq_context_padded);
	tcase_add_test(tc, test_cq_context_ex);
	tcase_add_test(tc, test_cq_devx_modify);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(contexts_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
