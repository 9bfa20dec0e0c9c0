/* SPDX-License-Identifier: MIT */
/*
 * NIC flow steering through DEVX, as a DPDK-style program drives it: its
 * own flow tables, groups and entries work and go with the context; the
 * kernel's commands (SET_FLOW_TABLE_ROOT, MODIFY_NIC_VPORT_CONTEXT) are
 * refused with EINVAL before the firmware sees them, as mlx5_ib's devx.c
 * lists leave them out of every method.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devx_test.h"
#include "ut_run.h"

static struct ibv_context *ctx;

static void setup(void)
{
	ctx = dt_open(true);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* The kernel's commands, by every DEVX method: EINVAL, outbox untouched. */
START_TEST(test_kernel_commands_refused)
{
	static const uint16_t ops[] = {
		MLX5_CMD_OP_SET_FLOW_TABLE_ROOT,
		MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT,
	};
	uint8_t in[PRM_ST_SZ_BYTES(modify_nic_vport_context_in)] = { 0 };
	uint8_t out[64];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		memset(in, 0, sizeof(in));
		PRM_SET(mbox_in, in, opcode, ops[i]);
		memset(out, 0, sizeof(out));
		errno = 0;
		ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in),
							 out, sizeof(out)),
				 EINVAL);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(DT_OUT_STATUS(out), 0);
		errno = 0;
		ck_assert_ptr_null(mlx5dv_devx_obj_create(ctx, in, sizeof(in),
							  out, sizeof(out)));
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(DT_OUT_STATUS(out), 0);
	}
}
END_TEST

static struct mlx5dv_devx_obj *create_ft(unsigned int level, uint32_t *id)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_flow_table_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_flow_table_out)] = { 0 };
	struct mlx5dv_devx_obj *obj;

	PRM_SET(create_flow_table_in, in, opcode,
		MLX5_CMD_OP_CREATE_FLOW_TABLE);
	PRM_SET(create_flow_table_in, in, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(create_flow_table_in, in, flow_table_context.level, level);
	PRM_SET(create_flow_table_in, in, flow_table_context.log_size, 2);
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(obj, "CREATE_FLOW_TABLE: %s, status 0x%x syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(out),
		      DT_OUT_SYNDROME(out));
	*id = PRM_GET(create_flow_table_out, out, table_id);
	return obj;
}

static struct mlx5dv_devx_obj *create_fg(uint32_t table, uint32_t *id)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_flow_group_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_flow_group_out)] = { 0 };
	struct mlx5dv_devx_obj *obj;

	PRM_SET(create_flow_group_in, in, opcode,
		MLX5_CMD_OP_CREATE_FLOW_GROUP);
	PRM_SET(create_flow_group_in, in, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(create_flow_group_in, in, table_id, table);
	PRM_SET(create_flow_group_in, in, end_flow_index, 3);
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(obj, "CREATE_FLOW_GROUP: %s, status 0x%x syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(out),
		      DT_OUT_SYNDROME(out));
	*id = PRM_GET(create_flow_group_out, out, group_id);
	return obj;
}

/* A forward to table @to at flow index 1. */
static struct mlx5dv_devx_obj *create_fte(uint32_t table, uint32_t group,
					  uint32_t to)
{
	uint8_t in[PRM_ST_SZ_BYTES(set_fte_in) + 8] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(set_fte_out)] = { 0 };
	uint8_t *dest = in + PRM_ST_SZ_BYTES(set_fte_in);
	struct mlx5dv_devx_obj *obj;

	PRM_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	PRM_SET(set_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(set_fte_in, in, table_id, table);
	PRM_SET(set_fte_in, in, flow_index, 1);
	PRM_SET(set_fte_in, in, flow_context.group_id, group);
	PRM_SET(set_fte_in, in, flow_context.action,
		MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
	PRM_SET(set_fte_in, in, flow_context.destination_list_size, 1);
	PRM_SET(dest_format_struct, dest, destination_type,
		MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE);
	PRM_SET(dest_format_struct, dest, destination_id, to);
	obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	ck_assert_msg(obj, "SET_FLOW_TABLE_ENTRY: %s, status 0x%x syndrome 0x%x",
		      strerror(errno), DT_OUT_STATUS(out),
		      DT_OUT_SYNDROME(out));
	return obj;
}

START_TEST(test_tables_groups_entries)
{
	uint8_t qin[PRM_ST_SZ_BYTES(query_flow_table_in)] = { 0 };
	uint8_t qout[PRM_ST_SZ_BYTES(query_flow_table_out)] = { 0 };
	struct mlx5dv_devx_obj *t0, *t1, *g, *e;
	uint32_t id0, id1, gid;

	t1 = create_ft(1, &id1);
	t0 = create_ft(0, &id0);
	g = create_fg(id0, &gid);
	e = create_fte(id0, gid, id1);

	PRM_SET(query_flow_table_in, qin, opcode, MLX5_CMD_OP_QUERY_FLOW_TABLE);
	PRM_SET(query_flow_table_in, qin, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(query_flow_table_in, qin, table_id, id0);
	ck_assert_int_eq(mlx5dv_devx_obj_query(t0, qin, sizeof(qin), qout,
					       sizeof(qout)), 0);
	ck_assert_uint_eq(PRM_GET(query_flow_table_out, qout,
				  flow_table_context.log_size), 2);

	/* the forward target and the group are in use */
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(t1), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(g), EINVAL);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(e), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(g), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(t0), 0);
	ck_assert_int_eq(mlx5dv_devx_obj_destroy(t1), 0);
}
END_TEST

/* Left to the context, they go with it (the kernel destroys newest
 * first: entry, group, tables): three contexts of 400 tables each would
 * pass the device's 1024 (log_max_ft_num 10) if any were left behind. */
START_TEST(test_left_at_close)
{
	struct ibv_context *mine = ctx;
	uint32_t id0, id1, gid;

	for (int round = 0; round < 3; round++) {
		ctx = dt_open(true);
		(void)create_ft(1, &id1);
		(void)create_ft(0, &id0);
		(void)create_fg(id0, &gid);
		(void)create_fte(id0, gid, id1);
		for (int i = 0; i < 398; i++)
			(void)create_ft(2, &id1);
		ck_assert_int_eq(ibv_close_device(ctx), 0);
	}
	ctx = mine;
}
END_TEST

static Suite *devx_steer_suite(void)
{
	Suite *s = suite_create("devx_steer");
	TCase *tc = tcase_create("steer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_kernel_commands_refused);
	tcase_add_test(tc, test_tables_groups_entries);
	tcase_add_test(tc, test_left_at_close);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(devx_steer_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
