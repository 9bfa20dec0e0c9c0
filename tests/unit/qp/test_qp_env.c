/* SPDX-License-Identifier: MIT */
/*
 * libmlx5 44's environment variables as they reach QPs and SRQs
 * (docs/libmlx5-env.md): MLX5_SHUT_UP_BF, MLX5_TOTAL_UUARS and
 * MLX5_NUM_LOW_LAT_UUARS (the doorbell registers QPs get, bad counts
 * failing the open), MLX_QP/SRQ/CQ_ALLOC_TYPE and HUGE_RC/UC/UD (huge
 * pages, which the test host may or may not have), MLX5_QP_SIGNATURE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "qp_test.h"

static void env_setup(void)
{
	qt_clear_env();
}

static void env_teardown(void)
{
	qt_clear_env();
}

/* Whether a 2 MB huge page can be had here (what HUGE needs). */
static bool have_huge(void)
{
	void *p = mmap(NULL, 2u << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return false;
	munmap(p, 2u << 20);
	return true;
}

static struct mlx5dv_qp qp_dv(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };

	memset(&dv, 0, sizeof(dv));
	ck_assert_int_eq(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	return dv;
}

/* The errno of ibv_open_device("mlx5_0") under the environment. */
static int open_err(void)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n, err = ENODEV;

	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), "mlx5_0"))
			continue;
		errno = 0;
		ctx = ibv_open_device(list[i]);
		err = ctx ? 0 : errno;
		if (ctx)
			ck_assert_int_eq(ibv_close_device(ctx), 0);
	}
	ibv_free_device_list(list);
	return err;
}

START_TEST(test_shut_up_bf)
{
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;

	setenv("MLX5_SHUT_UP_BF", "1", 1);
	qt_open();
	qp = qt_create(IBV_QPT_RC, 4, 4);
	dv = qp_dv(qp);
	/* The non-cached page: no BlueFlame. */
	ck_assert_uint_eq(dv.bf.size, 0);
	ck_assert_ptr_nonnull(dv.bf.reg);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qt_teardown();

	/* "0" means off. */
	setenv("MLX5_SHUT_UP_BF", "0", 1);
	qt_open();
	qp = qt_create(IBV_QPT_RC, 4, 4);
	dv = qp_dv(qp);
	ck_assert_uint_eq(dv.bf.size, 256);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qt_teardown();
}
END_TEST

START_TEST(test_uuar_counts)
{
	struct ibv_qp *q[4];
	void *reg[4];

	setenv("MLX5_TOTAL_UUARS", "0", 1);
	ck_assert_int_eq(open_err(), EINVAL);
	setenv("MLX5_TOTAL_UUARS", "1000", 1);
	ck_assert_int_eq(open_err(), ENOMEM);
	setenv("MLX5_TOTAL_UUARS", "4", 1);
	setenv("MLX5_NUM_LOW_LAT_UUARS", "4", 1);
	ck_assert_int_eq(open_err(), ENOMEM);
	setenv("MLX5_NUM_LOW_LAT_UUARS", "-1", 1);
	ck_assert_int_eq(open_err(), EINVAL);

	/* Two registers: one low-latency (dedicated), one shared. */
	setenv("MLX5_TOTAL_UUARS", "2", 1);
	setenv("MLX5_NUM_LOW_LAT_UUARS", "1", 1);
	qt_open();
	for (int i = 0; i < 3; i++) {
		q[i] = qt_create(IBV_QPT_UD, 4, 4);
		reg[i] = qp_dv(q[i]).bf.reg;
	}
	ck_assert_ptr_ne(reg[0], reg[1]);
	ck_assert_ptr_eq(reg[1], reg[2]);
	/* The dedicated register is free again once its QP is gone. */
	ck_assert_int_eq(ibv_destroy_qp(q[0]), 0);
	q[3] = qt_create(IBV_QPT_UD, 4, 4);
	reg[3] = qp_dv(q[3]).bf.reg;
	ck_assert_ptr_eq(reg[3], reg[0]);
	for (int i = 1; i < 4; i++)
		ck_assert_int_eq(ibv_destroy_qp(q[i]), 0);
	qt_teardown();
}
END_TEST

/* The default: every QP its own register while the low-latency ones last. */
START_TEST(test_uuar_default)
{
	struct ibv_qp *q[2];

	qt_open();
	q[0] = qt_create(IBV_QPT_RC, 4, 4);
	q[1] = qt_create(IBV_QPT_RC, 4, 4);
	ck_assert_ptr_ne(qp_dv(q[0]).bf.reg, qp_dv(q[1]).bf.reg);
	ck_assert_int_eq(ibv_destroy_qp(q[0]), 0);
	ck_assert_int_eq(ibv_destroy_qp(q[1]), 0);
	qt_teardown();
}
END_TEST

static int qp_err(enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a = qt_init_attr(t, 4, 4, 1, 1);

	return qt_create_err(&a);
}

static int srq_err(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq(qt_pd, &a);
	if (!srq)
		return errno;
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	return 0;
}

START_TEST(test_alloc_types)
{
	bool huge = have_huge();
	int huge_err;

	qt_open();
	setenv("MLX_QP_ALLOC_TYPE", "HUGE", 1);
	huge_err = qp_err(IBV_QPT_RC);
	if (huge)
		ck_assert_int_eq(huge_err, 0);
	else
		ck_assert_int_ne(huge_err, 0);
	/* PREFER_HUGE and ALL fall back to ordinary memory. */
	setenv("MLX_QP_ALLOC_TYPE", "PREFER_HUGE", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	setenv("MLX_QP_ALLOC_TYPE", "ALL", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	setenv("MLX_QP_ALLOC_TYPE", "ANON", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	/* Contiguous pages: the kernel's mmap has none (ENOSYS). */
	setenv("MLX_QP_ALLOC_TYPE", "CONTIG", 1);
	ck_assert_int_ne(qp_err(IBV_QPT_RC), 0);
	setenv("MLX_QP_ALLOC_TYPE", "PREFER_CONTIG", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	unsetenv("MLX_QP_ALLOC_TYPE");

	/* HUGE_RC=y: huge pages the default for RC QPs only. */
	setenv("HUGE_RC", "y", 1);
	huge_err = qp_err(IBV_QPT_RC);
	ck_assert_int_eq(huge_err == 0, huge);
	ck_assert_int_eq(qp_err(IBV_QPT_UD), 0);
	/* ... and an explicit type wins. */
	setenv("MLX_QP_ALLOC_TYPE", "ANON", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	unsetenv("MLX_QP_ALLOC_TYPE");
	unsetenv("HUGE_RC");
	setenv("HUGE_UD", "y", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_UD) == 0, huge);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	unsetenv("HUGE_UD");

	/* SRQs: MLX_SRQ_ALLOC_TYPE. */
	setenv("MLX_SRQ_ALLOC_TYPE", "HUGE", 1);
	ck_assert_int_eq(srq_err() == 0, huge);
	setenv("MLX_SRQ_ALLOC_TYPE", "PREFER_HUGE", 1);
	ck_assert_int_eq(srq_err(), 0);
	unsetenv("MLX_SRQ_ALLOC_TYPE");
	/* CQs: MLX_CQ_ALLOC_TYPE. */
	setenv("MLX_CQ_ALLOC_TYPE", "HUGE", 1);
	{
		struct ibv_cq *cq = ibv_create_cq(qt_ctx, 16, NULL, NULL, 0);

		ck_assert_int_eq(cq != NULL, huge);
		if (cq)
			ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	}
	unsetenv("MLX_CQ_ALLOC_TYPE");
	qt_teardown();
}
END_TEST

/* WQE signatures: libmlx5 asks for them, the device does not offer
 * them, the firmware refuses the queue. */
START_TEST(test_signature)
{
	qt_open();
	setenv("MLX5_QP_SIGNATURE", "1", 1);
	ck_assert_int_eq(qp_err(IBV_QPT_RC), EINVAL);
	unsetenv("MLX5_QP_SIGNATURE");
	ck_assert_int_eq(qp_err(IBV_QPT_RC), 0);
	qt_teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_env");
	TCase *tc = tcase_create("env");

	tcase_add_checked_fixture(tc, env_setup, env_teardown);
	tcase_add_test(tc, test_shut_up_bf);
	tcase_add_test(tc, test_uuar_counts);
	tcase_add_test(tc, test_uuar_default);
	tcase_add_test(tc, test_alloc_types);
	tcase_add_test(tc, test_signature);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
