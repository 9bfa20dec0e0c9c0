/* SPDX-License-Identifier: MIT */
/*
 * device.allow_net_raw: with it on, a process without CAP_NET_RAW in its
 * effective set creates raw packet QPs (the kernel's EPERM otherwise,
 * test_qp_raw.c).  Set before the first device comes up.  The hw
 * backend keeps the kernel's rule.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp_test.h"
#include "ut_env.h"

START_TEST(test_raw_allowed)
{
	struct ibv_qp_init_attr a = qt_init_attr(IBV_QPT_RAW_PACKET, 4, 4, 1, 1);

	ck_assert_int_ge(ut_net_raw_set(0), 0);
	/* The hw backend asks the real kernel's rule: no setting there. */
	ck_assert_int_eq(qt_create_err(&a), vt_backend_hw() ? EPERM : 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("qp_raw_allow");
	TCase *tc = tcase_create("allow");

	setenv("MLX5EMU_ALLOW_NET_RAW", "1", 1);
	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_raw_allowed);
	suite_add_tcase(s, tc);
	return vt_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
