/* SPDX-License-Identifier: MIT */
/*
 * The vport's local loopback as mlx5_ib turns it (mlx5_ib_enable_lb /
 * mlx5_ib_disable_lb): every open context holds a transport domain, and a
 * raw packet QP created with MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC
 * or _MC holds a QP use.  A second context or a first such QP turns the
 * loopback on (disable_uc_local_lb and disable_mc_local_lb cleared); one
 * context and no such QP left turn it off (both set).  Read back with
 * QUERY_NIC_VPORT_CONTEXT at literal offsets.  The hw backend's TIRs are
 * the caller's DEVX objects, which no kernel counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

/* nic_vport_context starts at byte 0x10 of the outbox; its byte 3 holds
 * disable_mc_local_lb (bit 0x1d: 0x04) and disable_uc_local_lb (bit
 * 0x1e: 0x02), mlx5_ifc.h. */
#define LB_OFF 0x13
#define LB_MC 0x04
#define LB_UC 0x02
#define LB_ON 0x00
#define LB_OFF_BOTH (LB_MC | LB_UC)

static unsigned int vport_lb(void)
{
	uint8_t in[0x10] = { 0 }, out[0x110] = { 0 };

	in[0] = 0x07;	/* QUERY_NIC_VPORT_CONTEXT, 0x754 */
	in[1] = 0x54;
	ck_assert_int_eq(mlx5dv_devx_general_cmd(qt_ctx, in, sizeof(in), out,
						 sizeof(out)), 0);
	ck_assert_uint_eq(out[0], 0);
	return out[LB_OFF] & LB_OFF_BOTH;
}

static struct ibv_qp *lb_qp(uint64_t flags)
{
	struct ibv_qp_init_attr_ex ax = qt_raw_rx_attr(4);
	struct ibv_qp *qp = qt_raw_dv_create(&ax, flags);

	ck_assert_msg(qp, "%s", strerror(errno));
	return qp;
}

/* Contexts: the second turns loopback on, going back to one turns it off. */
START_TEST(test_lb_contexts)
{
	struct ibv_context *b, *c;

	/* The firmware's own state before any change: loopback allowed. */
	ck_assert_uint_eq(vport_lb(), LB_ON);
	b = vt_open(true);
	ck_assert_uint_eq(vport_lb(), LB_ON);
	ck_assert_int_eq(ibv_close_device(b), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);

	b = vt_open(true);
	ck_assert_uint_eq(vport_lb(), LB_ON);
	c = vt_open(true);
	ck_assert_uint_eq(vport_lb(), LB_ON);
	ck_assert_int_eq(ibv_close_device(c), 0);
	ck_assert_uint_eq(vport_lb(), LB_ON);		/* two remain */
	ck_assert_int_eq(ibv_close_device(b), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);
}
END_TEST

/* QPs allowing self loopback: the first turns it on, the last off; a QP
 * without the flags counts for nothing. */
START_TEST(test_lb_qps)
{
	struct ibv_qp *plain, *uc, *mc;
	struct ibv_context *b;
	bool hw = vt_backend_hw();

	b = vt_open(true);
	ck_assert_int_eq(ibv_close_device(b), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);

	plain = lb_qp(0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);
	uc = lb_qp(MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC);
	ck_assert_uint_eq(vport_lb(), hw ? LB_OFF_BOTH : LB_ON);
	mc = lb_qp(MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC);
	ck_assert_uint_eq(vport_lb(), hw ? LB_OFF_BOTH : LB_ON);
	ck_assert_int_eq(ibv_destroy_qp(uc), 0);
	ck_assert_uint_eq(vport_lb(), hw ? LB_OFF_BOTH : LB_ON);
	ck_assert_int_eq(ibv_destroy_qp(mc), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);
	ck_assert_int_eq(ibv_destroy_qp(plain), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);

	/* A QP and a second context: on until both are gone. */
	uc = lb_qp(MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC);
	b = vt_open(true);
	ck_assert_uint_eq(vport_lb(), LB_ON);
	ck_assert_int_eq(ibv_destroy_qp(uc), 0);
	ck_assert_uint_eq(vport_lb(), LB_ON);
	ck_assert_int_eq(ibv_close_device(b), 0);
	ck_assert_uint_eq(vport_lb(), LB_OFF_BOTH);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qp_raw_lb");
	TCase *tc = tcase_create("lb");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_lb_contexts);
	tcase_add_test(tc, test_lb_qps);
	suite_add_tcase(s, tc);
	return vt_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
