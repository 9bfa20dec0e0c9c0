/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_ece / ibv_set_ece as libibverbs and libmlx5 44 answer them
 * over mlx5_ib: the options the device answered at create (libmlx5 opens
 * with version 1, 0x10000000), options set for the next transition and
 * the device's answer to them (version 1, no option bit: what it
 * implements), the errno of each bad request with nothing changed, and a
 * device without ECE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "qp_test.h"

static uint32_t query_options(struct ibv_qp *qp)
{
	struct ibv_ece e;

	memset(&e, 0xff, sizeof(e));
	ck_assert_int_eq(ibv_query_ece(qp, &e), 0);
	ck_assert_uint_eq(e.vendor_id, 0x15b3);
	ck_assert_uint_eq(e.comp_mask, 0);
	return e.options;
}

static int set(struct ibv_qp *qp, uint32_t vendor, uint32_t options,
	       uint32_t comp_mask)
{
	struct ibv_ece e = { .vendor_id = vendor, .options = options,
			     .comp_mask = comp_mask };

	errno = 0;
	return ibv_set_ece(qp, &e);
}

static uint32_t fw_ece(struct ibv_qp *qp)
{
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)] = { 0 };

	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	return PRM_GET(query_qp_out, out, ece);
}

START_TEST(test_negotiate)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	/* The device's answer to libmlx5's opening. */
	ck_assert_uint_eq(query_options(qp), 0x10000000);
	ck_assert_uint_eq(fw_ece(qp), 0x10000000);

	/* Bad requests: libibverbs, then libmlx5; nothing changes. */
	ck_assert_int_eq(set(qp, 0, 0x20000001, 0), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(set(qp, 0x15b3, 0x20000001, 1), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(set(qp, 0x02c9, 0x20000001, 0), EINVAL);
	ck_assert_uint_eq(query_options(qp), 0x10000000);

	/* A version-2 peer with option bit 0: cleared until the transition,
	 * which answers what the device accepts. */
	ck_assert_int_eq(set(qp, 0x15b3, 0x20000001, 0), 0);
	ck_assert_uint_eq(query_options(qp), 0);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_uint_eq(query_options(qp), 0x10000000);
	ck_assert_uint_eq(fw_ece(qp), 0x10000000);

	/* Options used once: the next transition leaves the answer. */
	qt_rc_to_rts(qp, qp->qp_num, 1);
	ck_assert_uint_eq(query_options(qp), 0x10000000);

	/* Set, then a transition without an ece word (to ERR): 0. */
	ck_assert_int_eq(set(qp, 0x15b3, 0x10000000, 0), 0);
	a.qp_state = IBV_QPS_ERR;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	ck_assert_uint_eq(query_options(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* A device configured without ece_support. */
START_TEST(test_not_advertised)
{
	struct ibv_qp *qp;

	qt_clear_env();
	setenv("MLX5EMU_CAPS", "ece_support=0", 1);
	qt_open();
	qp = qt_create(IBV_QPT_RC, 4, 4);
	ck_assert_uint_eq(query_options(qp), 0);
	ck_assert_uint_eq(fw_ece(qp), 0);
	ck_assert_int_eq(set(qp, 0x15b3, 0x10000000, 0), EOPNOTSUPP);
	ck_assert_int_eq(set(qp, 0x15b3, 0x10000000, 1), EINVAL);
	ck_assert_uint_eq(query_options(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_ece");
	TCase *tc = tcase_create("ece");
	TCase *bare = tcase_create("bare");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_negotiate);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(bare, NULL, qt_teardown);
	tcase_add_test(bare, test_not_advertised);
	suite_add_tcase(s, bare);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
