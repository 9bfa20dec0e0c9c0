/* SPDX-License-Identifier: MIT */
/*
 * query_port as mlx5_query_port_roce derives it: the width and speed from
 * PTYS (read through ACCESS_REG on every query), the active MTU from the
 * netdev MTU kept in PMTU, max_msg_sz from the capability log_max_msg; the
 * port's registers changed the way a driver changes them, and the numbers
 * expected written out (IB width 1X 1, 2X 16, 4X 2; speed QDR 4, EDR 32).
 */
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "test_kern_backend.h"

#define REG_HDR PRM_BYTE_OFF(access_register_in, register_data)

static struct mlx5be_ctx *ctx;

static void setup(void)
{
	ctx = kbt_open(NULL);
}

static void teardown(void)
{
	BE->close(ctx);
}

static void port_attr(struct mlx5be_port_attr *a)
{
	memset(a, 0xa5, sizeof(*a));
	ck_assert_int_eq(BE->query_port(ctx, 1, a), 0);
}

/* The kernel's ACCESS_REG PTYS write of ext_eth_proto_admin (ethtool -s). */
static void ptys_admin(uint32_t admin)
{
	uint8_t in[REG_HDR + PRM_ST_SZ_BYTES(ptys_reg)] = {};
	uint8_t out[sizeof(in)] = {};

	PRM_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	PRM_SET(access_register_in, in, register_id, MLX5_REG_PTYS);
	PRM_SET(ptys_reg, in + REG_HDR, local_port, 1);
	PRM_SET(ptys_reg, in + REG_HDR, proto_mask, MLX5_PTYS_EN);
	PRM_SET(ptys_reg, in + REG_HDR, ext_eth_proto_admin, admin);
	ck_assert_int_eq(kern_fw_exec_checked(ctx->uctx->kdev, in, sizeof(in), out,
					      sizeof(out)), 0);
}

START_TEST(test_default_port)
{
	struct mlx5be_port_attr a;
	unsigned long cmds = kbt_fw_cmds();

	port_attr(&a);
	ck_assert_uint_eq(a.state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(a.phys_state, 5);
	ck_assert_uint_eq(a.max_mtu, IBV_MTU_4096);
	ck_assert_uint_eq(a.active_mtu, IBV_MTU_1024);	/* netdev MTU 1500 */
	ck_assert_uint_eq(a.active_width, 2);		/* 100GBASE-CR4: 4X */
	ck_assert_uint_eq(a.active_speed, 32);		/* EDR */
	ck_assert_uint_eq(a.max_msg_sz, 1u << 30);
	ck_assert_int_eq(a.gid_tbl_len, 256);
	ck_assert_uint_eq(a.pkey_tbl_len, 1);
	/* Both registers were read from firmware for this answer. */
	ck_assert_uint_eq(kbt_fw_cmds(), cmds + 2);
	ck_assert_uint_eq(kbt_fw_opcode(0), MLX5_CMD_OP_ACCESS_REG);
	ck_assert_uint_eq(kbt_fw_opcode(1), MLX5_CMD_OP_ACCESS_REG);
	ck_assert_int_eq(BE->query_port(ctx, 2, &a), -EINVAL);
	ck_assert_int_eq(BE->query_port(ctx, 0, &a), -EINVAL);
}
END_TEST

/* The netdev's MTU, through iboe_get_mtu: GRH, UDP, BTH, extended headers
 * and ICRC (96 bytes) come off before the IB MTU is chosen. */
START_TEST(test_active_mtu_from_pmtu)
{
	static const struct { uint32_t mtu; uint8_t ib; } m[] = {
		{ 9000, IBV_MTU_4096 }, { 4192, IBV_MTU_4096 },
		{ 4191, IBV_MTU_2048 }, { 2144, IBV_MTU_2048 },
		{ 2143, IBV_MTU_1024 }, { 1120, IBV_MTU_1024 },
		{ 1119, IBV_MTU_512 }, { 352, IBV_MTU_256 },
		{ 351, 0 }, { 68, 0 },
	};
	struct mlx5be_port_attr a;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		ck_assert_int_eq(kern_port_set_mtu(ctx->uctx->kdev, 1, m[i].mtu), 0);
		port_attr(&a);
		ck_assert_msg(a.active_mtu == m[i].ib, "netdev MTU %u: active_mtu %u, want %u",
			      m[i].mtu, a.active_mtu, m[i].ib);
		ck_assert_uint_eq(a.max_mtu, IBV_MTU_4096);
	}
}
END_TEST

START_TEST(test_width_speed_from_ptys)
{
	static const struct { uint32_t admin; uint8_t width; uint16_t speed; } p[] = {
		{ 1u << 6, 1, 32 },	/* 25GAUI-1: 1X EDR */
		{ 1u << 7, 16, 32 },	/* 50GAUI-2: 2X EDR */
		{ 1u << 8, 1, 64 },	/* 50GAUI-1: 1X HDR */
		{ 1u << 5, 2, 4 },	/* 40GBASE-XLAUI-4: 4X QDR */
		{ 1u << 4, 1, 4 },	/* 10GBASE: 1X QDR */
		{ 1u << 10, 16, 64 },	/* 100GAUI-2: 2X HDR */
		{ 1u << 9, 2, 32 },	/* back to 100GBASE-CR4 */
	};
	struct mlx5be_port_attr a;

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		ptys_admin(p[i].admin);
		port_attr(&a);
		ck_assert_msg(a.active_width == p[i].width &&
			      a.active_speed == p[i].speed,
			      "admin 0x%x: width %u speed %u, want %u %u", p[i].admin,
			      a.active_width, a.active_speed, p[i].width, p[i].speed);
	}
	/* Link down: no mode runs, mlx5_ib's 4X QDR, DOWN/Disabled. */
	ck_assert_int_eq(emu_fw_port_set_link(kbt_fw(ctx), 1, false), 0);
	port_attr(&a);
	ck_assert_uint_eq(a.state, IBV_PORT_DOWN);
	ck_assert_uint_eq(a.phys_state, 3);
	ck_assert_uint_eq(a.active_width, 2);
	ck_assert_uint_eq(a.active_speed, 4);
}
END_TEST

/* max_msg_sz is the capability, also when a configuration lowers it. */
START_TEST(test_max_msg_from_caps)
{
	struct mlx5be_port_attr a;

	setenv("MLX5EMU_CAPS", "log_max_msg=20", 1);
	ctx = kbt_open(NULL);
	ck_assert_uint_eq(KBT_CAP(ctx, log_max_msg), 20);
	port_attr(&a);
	ck_assert_uint_eq(a.max_msg_sz, 1u << 20);
	BE->close(ctx);
}
END_TEST

Suite *kbt_port_suite(void)
{
	Suite *s = suite_create("kern_backend_port");
	TCase *tc = tcase_create("port");
	TCase *tc_env = tcase_create("port_env");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_default_port);
	tcase_add_test(tc, test_active_mtu_from_pmtu);
	tcase_add_test(tc, test_width_speed_from_ptys);
	suite_add_tcase(s, tc);
	tcase_add_test(tc_env, test_max_msg_from_caps);
	suite_add_tcase(s, tc_env);
	return s;
}
