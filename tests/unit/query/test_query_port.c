/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_port over the drop-in libraries: the inline wrapper's op and the
 * exported IBVERBS_1.1 symbol, a RoCE port as mlx5_query_port_roce() makes
 * it from the capability pages, libibverbs' port_attr_len rules, and EINVAL
 * for a port the device does not have.
 */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "query_test.h"

/* The exported symbol itself (verbs.h hides it behind a macro). */
static int exported_query_port(struct ibv_context *c, uint8_t port,
			       struct ibv_port_attr *attr)
{
	return (ibv_query_port)(c, port, (struct _compat_ibv_port_attr *)attr);
}

static struct ibv_context *ctx;
static struct qt_caps caps;

static void setup(void)
{
	ctx = qt_open(false);
	qt_read_caps(ctx, &caps);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* mlx5_query_port_roce() + copy_port_attr_to_resp() on an up port. */
static void check_roce_port(const struct ibv_port_attr *a)
{
	ck_assert_int_eq(a->state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(a->phys_state, 5);	/* LINK_UP */
	ck_assert_int_eq(a->max_mtu, IBV_MTU_4096);
	ck_assert_int_ge(a->active_mtu, IBV_MTU_256);
	ck_assert_int_le(a->active_mtu, a->max_mtu);
	ck_assert_uint_eq(a->link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_uint_eq(QT_GEN(&caps, port_type), MLX5_CAP_PORT_TYPE_ETH);
	ck_assert_uint_eq(a->max_msg_sz, 1u << QT_GEN(&caps, log_max_msg));
	ck_assert_int_eq(a->gid_tbl_len, (int)QT_ROCE(&caps, roce_address_table_size));
	ck_assert_uint_eq(a->pkey_tbl_len, 1);
	/* IB_PORT_CM_SUP | IB_UVERBS_PCF_IP_BASED_GIDS */
	ck_assert_uint_eq(a->port_cap_flags & (IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS),
			  IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS);
	ck_assert_uint_eq(a->lid, 0);
	ck_assert_uint_eq(a->sm_lid, 0);
	ck_assert_uint_eq(a->max_vl_num, 0);
	ck_assert_uint_eq(a->flags, 0);
	/* pyverbs' verify_port_attr. */
	ck_assert(a->active_width == 1 || a->active_width == 2 ||
		  a->active_width == 4 || a->active_width == 16);
	ck_assert(a->active_speed <= 128 &&
		  (a->active_speed == 0 || !(a->active_speed & (a->active_speed - 1))));
	ck_assert_uint_gt(a->max_msg_sz, 0x1000);
}

START_TEST(test_query_port_inline)
{
	unsigned int n = qt_num_ports(&caps);

	ck_assert_ptr_nonnull(verbs_get_ctx_op(ctx, query_port));
	for (unsigned int p = 1; p <= n; p++) {
		struct ibv_port_attr a;

		memset(&a, 0xa5, sizeof(a));
		ck_assert_int_eq(ibv_query_port(ctx, p, &a), 0);
		check_roce_port(&a);
	}
}
END_TEST

START_TEST(test_query_port_exported)
{
	struct ibv_port_attr a, b;

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	ck_assert_int_eq(exported_query_port(ctx, 1, &a), 0);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &b), 0);
	check_roce_port(&a);
	/* The exported symbol fills the compat layout only, as libibverbs'. */
	ck_assert(!memcmp(&a, &b, offsetof(struct ibv_port_attr, flags) + 1));
}
END_TEST

START_TEST(test_query_port_bad_port)
{
	unsigned int n = qt_num_ports(&caps);
	uint8_t bad[] = { 0, (uint8_t)(n + 1), (uint8_t)(n + 10), 255 };
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	for (size_t i = 0; i < sizeof(bad); i++) {
		struct ibv_port_attr a;

		ck_assert_int_eq(ibv_query_port(ctx, bad[i], &a), EINVAL);
		ck_assert_int_eq(exported_query_port(ctx, bad[i], &a), EINVAL);
		ck_assert_int_eq(vctx->query_port(ctx, bad[i], &a, sizeof(a)), EINVAL);
		ck_assert_int_eq(vctx->query_port(ctx, bad[i], &a, 8), EINVAL);
	}
}
END_TEST

/* A short caller structure gets the prefix of the full answer, no more. */
START_TEST(test_query_port_short_len)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);
	size_t len = offsetof(struct ibv_port_attr, active_width);
	struct ibv_port_attr full, a;

	ck_assert_int_eq(ibv_query_port(ctx, 1, &full), 0);
	memset(&a, 0x5a, sizeof(a));
	ck_assert_int_eq(vctx->query_port(ctx, 1, &a, len), 0);
	ck_assert(!memcmp(&a, &full, len));
	for (size_t b = len; b < sizeof(a); b++)
		ck_assert_uint_eq(((uint8_t *)&a)[b], 0x5a);
}
END_TEST

/* A longer caller structure is zeroed past ours. */
START_TEST(test_query_port_long_len)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);
	struct {
		struct ibv_port_attr a;
		uint8_t tail[16];
	} big;
	struct ibv_port_attr full;

	ck_assert_int_eq(ibv_query_port(ctx, 1, &full), 0);
	memset(&big, 0x5a, sizeof(big));
	ck_assert_int_eq(vctx->query_port(ctx, 1, &big.a, sizeof(big)), 0);
	ck_assert(!memcmp(&big.a, &full, sizeof(full)));
	for (size_t i = 0; i < sizeof(big.tail); i++)
		ck_assert_uint_eq(big.tail[i], 0);
}
END_TEST

/* The sysfs-like tree shows the same port. */
START_TEST(test_query_port_sysfs)
{
	struct ibv_port_attr a;
	char buf[64];

	ck_assert_int_eq(ibv_query_port(ctx, 1, &a), 0);
	ck_assert_int_gt(qt_read_ibdev(ctx, "ports/1/state", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "4: ACTIVE");
	ck_assert_int_gt(qt_read_ibdev(ctx, "ports/1/link_layer", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "Ethernet");
}
END_TEST

/*
 * A configuration that lowers log_max_msg lowers max_msg_sz with it (the
 * kernel reports 1 << log_max_msg), and the default port of a ConnectX-6
 * Dx 100GbE shows 4X EDR at the active MTU of a 1500-byte netdev.
 */
START_TEST(test_query_port_follows_caps)
{
	struct ibv_port_attr a;
	struct ibv_context *c;
	struct qt_caps k;

	setenv("MLX5EMU_CAPS", "log_max_msg=20", 1);
	c = qt_open(false);
	qt_read_caps(c, &k);
	ck_assert_uint_eq(QT_GEN(&k, log_max_msg), 20);
	ck_assert_int_eq(ibv_query_port(c, 1, &a), 0);
	ck_assert_uint_eq(a.max_msg_sz, 0x100000);
	ck_assert_uint_eq(a.active_width, 2);	/* 4X */
	ck_assert_uint_eq(a.active_speed, 32);	/* EDR */
	ck_assert_int_eq(a.active_mtu, IBV_MTU_1024);
	ck_assert_int_eq(ibv_close_device(c), 0);
}
END_TEST

/*
 * device.mtu is the netdev MTU `ip link set mtu` would set: active_mtu is
 * the kernel's iboe_get_mtu() of it, the largest IB MTU whose packet (96
 * bytes of GRH, UDP, BTH, extended headers and ICRC) fits: 1124 bytes
 * hold 1024, 1123 only 512; 4192 holds 4096.
 */
START_TEST(test_query_port_follows_mtu)
{
	static const struct { const char *mtu; enum ibv_mtu want; } t[] = {
		{ "4330", IBV_MTU_4096 }, { "4192", IBV_MTU_4096 },
		{ "4191", IBV_MTU_2048 }, { "1500", IBV_MTU_1024 },
		{ "1280", IBV_MTU_1024 },
	};
	struct ibv_port_attr a;
	struct ibv_context *c;

	setenv("MLX5EMU_MTU", t[_i].mtu, 1);
	c = qt_open(false);
	ck_assert_int_eq(ibv_query_port(c, 1, &a), 0);
	ck_assert_int_eq(a.active_mtu, t[_i].want);
	ck_assert_int_eq(a.max_mtu, IBV_MTU_4096);
	ck_assert_int_eq(ibv_close_device(c), 0);
}
END_TEST

static Suite *query_port_suite(void)
{
	Suite *s = suite_create("query_port");
	TCase *tc = tcase_create("port");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_query_port_inline);
	tcase_add_test(tc, test_query_port_exported);
	tcase_add_test(tc, test_query_port_bad_port);
	tcase_add_test(tc, test_query_port_short_len);
	tcase_add_test(tc, test_query_port_long_len);
	tcase_add_test(tc, test_query_port_sysfs);
	suite_add_tcase(s, tc);
	/* Its own process and environment (Check forks each test). */
	tc = tcase_create("port_caps");
	tcase_add_test(tc, test_query_port_follows_caps);
	tcase_add_loop_test(tc, test_query_port_follows_mtu, 0, 5);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_port_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
