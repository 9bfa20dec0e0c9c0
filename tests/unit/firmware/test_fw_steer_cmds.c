/* SPDX-License-Identifier: MIT */
/*
 * NIC flow steering commands: tables, groups, entries, roots; every
 * refusal with its syndrome, and that a refused command changes nothing.
 */
#include "test_fw_steer_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static uint16_t u1, u2;

static void setup(void)
{
	fw = fwt_create(NULL);
	u1 = fwt_uctx(fw);
	u2 = fwt_uctx(fw);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

static void query_ft(struct fwt_mbox *m, uint16_t uid, unsigned int type,
		     uint32_t table)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_FLOW_TABLE, 0, uid,
		      PRM_ST_SZ_BYTES(query_flow_table_in),
		      PRM_ST_SZ_BYTES(query_flow_table_out));
	PRM_SET(query_flow_table_in, m->in, table_type, type);
	PRM_SET(query_flow_table_in, m->in, table_id, table);
	fwt_exec(fw, m);
}

#define QFT(m, fld) \
	PRM_GET(flow_table_context, \
		PRM_ADDR_OF(query_flow_table_out, (m)->out, flow_table_context), \
		fld)

static void query_fte(struct fwt_mbox *m, uint16_t uid, unsigned int type,
		      uint32_t table, uint32_t index)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_FLOW_TABLE_ENTRY, 0, uid,
		      PRM_ST_SZ_BYTES(query_fte_in),
		      PRM_ST_SZ_BYTES(query_fte_out) + 16);
	PRM_SET(query_fte_in, m->in, table_type, type);
	PRM_SET(query_fte_in, m->in, table_id, table);
	PRM_SET(query_fte_in, m->in, flow_index, index);
	fwt_exec(fw, m);
}

#define QFC(m, fld) \
	PRM_GET(flow_context, \
		PRM_ADDR_OF(query_fte_out, (m)->out, flow_context), fld)
/* The i-th entry of the queried destination list (literal: 8 bytes each
 * after the 0x300-byte flow_context, which starts at byte 0x40). */
#define QDEST(m, i) ((uint8_t *)(m)->out + 0x40 + 0x300 + 8 * (i))

START_TEST(layout_offsets)
{
	/* Independent of the generator: byte offsets from mlx5_ifc.h. */
	ck_assert_uint_eq(PRM_BYTE_OFF(set_fte_in, flow_context), 0x40);
	ck_assert_uint_eq(PRM_BYTE_OFF(flow_context, destination), 0x300);
	ck_assert_uint_eq(PRM_BYTE_OFF(flow_context, match_value), 0x40);
	ck_assert_uint_eq(PRM_BYTE_OFF(create_flow_group_in, match_criteria),
			  0x40);
	ck_assert_uint_eq(PRM_BYTE_OFF(query_fte_out, flow_context), 0x40);
	ck_assert_uint_eq(MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, 0x92f);
}
END_TEST

START_TEST(caps_page)
{
	struct fwt_mbox m;
	const void *p;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_CAP,
		      MLX5_CAP_FLOW_TABLE << 1 | 1, 0,
		      PRM_ST_SZ_BYTES(query_hca_cap_in),
		      PRM_ST_SZ_BYTES(query_hca_cap_out));
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	p = PRM_ADDR_OF(query_hca_cap_out, m.out, capability);
	/* flow_table_properties_nic_receive at bit 0x200: byte 0x40 */
	ck_assert_uint_eq(((const uint8_t *)p)[0x40] >> 7, 1);	/* ft_support */
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.flow_tag), 1);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_transmit.flow_tag), 0);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_transmit.ft_support), 1);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.log_max_ft_size), 16);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.max_ft_level), 63);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.ft_field_support.outer_dmac),
		1);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.ft_field_support.outer_vxlan_vni),
		0);
	/* not advertised: RDMA and sniffer tables, reformat */
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive_rdma.ft_support), 0);
	ck_assert_uint_eq(PRM_GET(flow_table_nic_cap, p,
		flow_table_properties_nic_receive.reformat), 0);
}
END_TEST

START_TEST(table_create_query)
{
	uint32_t t2 = fts_ft(fw, u1, RX, 2, 4, 0);
	uint32_t t1 = fts_ft(fw, u1, RX, 1, 3, t2);
	uint32_t tx = fts_ft(fw, u1, TX, 0, 0, 0);
	struct fwt_mbox m;

	ck_assert_uint_ne(t1, t2);
	query_ft(&m, u1, RX, t1);
	ck_fw_ok(&m);
	ck_assert_uint_eq(QFT(&m, level), 1);
	ck_assert_uint_eq(QFT(&m, log_size), 3);
	ck_assert_uint_eq(QFT(&m, table_miss_action),
			  MLX5_FLOW_TABLE_MISS_ACTION_FWD);
	ck_assert_uint_eq(QFT(&m, table_miss_id), t2);
	query_ft(&m, u1, RX, t2);
	ck_assert_uint_eq(QFT(&m, table_miss_action), 0);
	query_ft(&m, u1, TX, tx);
	ck_fw_ok(&m);
	/* the type is part of the name; another uid sees nothing */
	query_ft(&m, u1, TX, t1);
	ck_fw_synd(&m, FT_INVALID);
	query_ft(&m, u2, RX, t1);
	ck_fw_synd(&m, FT_INVALID);
}
END_TEST

START_TEST(table_refusals)
{
	uint32_t deep = fts_ft(fw, u1, RX, 5, 0, 0);
	uint32_t other = fts_ft(fw, u2, RX, 9, 0, 0);
	uint32_t tx = fts_ft(fw, u1, TX, 9, 0, 0);
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_FLOW_TABLE);
	struct fwt_mbox m;
	void *ctx;

	fts_ft_m(fw, &m, u1, MLX5_FLOW_TABLE_TYPE_FDB, 0, 0, 0);
	ck_fw_synd(&m, FT_BAD_TYPE);
	fts_ft_m(fw, &m, u1, MLX5_FLOW_TABLE_TYPE_RDMA_RX, 0, 0, 0);
	ck_fw_synd(&m, FT_BAD_TYPE);
	fts_ft_m(fw, &m, u1, RX, 64, 0, 0);
	ck_fw_synd(&m, FT_BAD_LEVEL);
	fts_ft_m(fw, &m, u1, RX, 0, 17, 0);
	ck_fw_synd(&m, FT_BAD_SIZE);
	/* a miss goes deeper, to a table of the same type and uid */
	fts_ft_m(fw, &m, u1, RX, 5, 0, deep);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);
	fts_ft_m(fw, &m, u1, RX, 6, 0, deep);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);
	fts_ft_m(fw, &m, u1, RX, 0, 0, other);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);
	fts_ft_m(fw, &m, u1, RX, 0, 0, tx);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);
	fts_ft_m(fw, &m, u1, RX, 0, 0, 0xabcd);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);

	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_FLOW_TABLE, 0, u1,
		      PRM_ST_SZ_BYTES(create_flow_table_in),
		      PRM_ST_SZ_BYTES(create_flow_table_out));
	ctx = PRM_ADDR_OF(create_flow_table_in, m.in, flow_table_context);
	PRM_SET(flow_table_context, ctx, table_miss_action, 3);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, FT_BAD_MISS_ACTION);
	PRM_SET(flow_table_context, ctx, table_miss_action, 0);
	PRM_SET(flow_table_context, ctx, reformat_en, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, FT_NOT_SUPPORTED);
	PRM_SET(flow_table_context, ctx, reformat_en, 0);
	PRM_SET(create_flow_table_in, m.in, other_vport, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);

	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_FLOW_TABLE), before);
	/* nothing was taken: the tables refused as misses go */
	fts_ft_destroy_m(fw, &m, u1, RX, deep);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, u2, RX, other);
	ck_fw_ok(&m);
}
END_TEST

static void modify_miss(struct fwt_mbox *m, uint16_t uid, uint32_t table,
			unsigned int sel, uint32_t miss)
{
	void *ctx;

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_FLOW_TABLE, 0, uid,
		      PRM_ST_SZ_BYTES(modify_flow_table_in),
		      PRM_ST_SZ_BYTES(modify_flow_table_out));
	PRM_SET(modify_flow_table_in, m->in, table_type, RX);
	PRM_SET(modify_flow_table_in, m->in, table_id, table);
	PRM_SET(modify_flow_table_in, m->in, modify_field_select, sel);
	ctx = PRM_ADDR_OF(modify_flow_table_in, m->in, flow_table_context);
	PRM_SET(flow_table_context, ctx, table_miss_action,
		miss ? MLX5_FLOW_TABLE_MISS_ACTION_FWD : 0);
	PRM_SET(flow_table_context, ctx, table_miss_id, miss);
	fwt_exec(fw, m);
}

START_TEST(table_modify_miss)
{
	uint32_t a = fts_ft(fw, u1, RX, 3, 0, 0);
	uint32_t b = fts_ft(fw, u1, RX, 4, 0, 0);
	uint32_t t = fts_ft(fw, u1, RX, 1, 0, a);
	struct fwt_mbox m;

	modify_miss(&m, u1, t, MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID, b);
	ck_fw_ok(&m);
	query_ft(&m, u1, RX, t);
	ck_assert_uint_eq(QFT(&m, table_miss_id), b);
	/* a is free again, b is used */
	fts_ft_destroy_m(fw, &m, u1, RX, a);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, u1, RX, b);
	ck_fw_synd(&m, FT_REFERENCED);
	/* refused: nothing changes */
	modify_miss(&m, u1, t, MLX5_MODIFY_FLOW_TABLE_LAG_NEXT_TABLE_ID, 0);
	ck_fw_synd(&m, FT_BAD_MODIFY_SELECT);
	modify_miss(&m, u1, t, MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID, t);
	ck_fw_synd(&m, FT_BAD_MISS_TABLE);
	query_ft(&m, u1, RX, t);
	ck_assert_uint_eq(QFT(&m, table_miss_id), b);
	/* back to the default miss */
	modify_miss(&m, u1, t, MLX5_MODIFY_FLOW_TABLE_MISS_TABLE_ID, 0);
	ck_fw_ok(&m);
	query_ft(&m, u1, RX, t);
	ck_assert_uint_eq(QFT(&m, table_miss_action), 0);
	fts_ft_destroy_m(fw, &m, u1, RX, b);
	ck_fw_ok(&m);
}
END_TEST

START_TEST(group_create_query)
{
	uint8_t crit[0x200] = { 0 };
	uint32_t t = fts_ft(fw, u1, RX, 0, 4, 0);
	uint32_t g1, g2;
	struct fwt_mbox m;

	PRM_SET(fte_match_param, crit, outer_headers.ethertype, 0xffff);
	g2 = fts_fg(fw, u1, RX, t, 8, 15, MLX5_MATCH_OUTER_HEADERS, crit);
	g1 = fts_fg(fw, u1, RX, t, 0, 7, 0, NULL);
	ck_assert_uint_ne(g1, g2);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_FLOW_GROUP, 0, u1,
		      PRM_ST_SZ_BYTES(query_flow_group_in),
		      PRM_ST_SZ_BYTES(query_flow_group_out));
	PRM_SET(query_flow_group_in, m.in, table_type, RX);
	PRM_SET(query_flow_group_in, m.in, table_id, t);
	PRM_SET(query_flow_group_in, m.in, group_id, g2);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(query_flow_group_out, m.out,
				  start_flow_index), 8);
	ck_assert_uint_eq(PRM_GET(query_flow_group_out, m.out,
				  end_flow_index), 15);
	ck_assert_uint_eq(PRM_GET(query_flow_group_out, m.out,
				  match_criteria_enable), 1);
	/* ethertype: bits 0x30..0x3f of the outer headers, bytes 6-7 */
	ck_assert_uint_eq(((uint8_t *)m.out)[0x40 + 6], 0xff);
	ck_assert_uint_eq(((uint8_t *)m.out)[0x40 + 7], 0xff);
	ck_assert_uint_eq(((uint8_t *)m.out)[0x40 + 5], 0);
	/* another uid, or a group of another table */
	PRM_SET(query_flow_group_in, m.in, uid, u2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, FT_INVALID);
}
END_TEST

START_TEST(group_refusals)
{
	uint8_t crit[0x200] = { 0 };
	uint32_t t = fts_ft(fw, u1, RX, 0, 4, 0);
	unsigned int n;
	struct fwt_mbox m;

	fts_fg(fw, u1, RX, t, 4, 7, 0, NULL);
	n = emu_fw_obj_count(fw, EMU_FW_OBJ_FLOW_GROUP);
	fts_fg_m(fw, &m, u1, RX, t, 9, 8, 0, NULL);
	ck_fw_synd(&m, FG_BAD_RANGE);
	fts_fg_m(fw, &m, u1, RX, t, 8, 16, 0, NULL);
	ck_fw_synd(&m, FG_BAD_RANGE);
	fts_fg_m(fw, &m, u1, RX, t, 0, 4, 0, NULL);
	ck_fw_synd(&m, FG_OVERLAP);
	fts_fg_m(fw, &m, u1, RX, t, 7, 9, 0, NULL);
	ck_fw_synd(&m, FG_OVERLAP);
	fts_fg_m(fw, &m, u1, RX, t, 0, 3, MLX5_MATCH_MISC_PARAMETERS_4, NULL);
	ck_fw_synd(&m, FG_BAD_CRITERIA);
	/* a mask bit in the misc block, which the enable leaves off */
	PRM_SET(fte_match_param, crit, misc_parameters.source_port, 1);
	fts_fg_m(fw, &m, u1, RX, t, 0, 3, MLX5_MATCH_OUTER_HEADERS, crit);
	ck_fw_synd(&m, FG_CRITERIA_NOT_ENABLED);
	fts_fg_m(fw, &m, u2, RX, t, 0, 3, 0, NULL);
	ck_fw_synd(&m, FT_INVALID);
	fts_fg_m(fw, &m, u1, TX, t, 0, 3, 0, NULL);
	ck_fw_synd(&m, FT_INVALID);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_FLOW_GROUP), n);
	/* the same misc mask with its block enabled is fine */
	fts_fg(fw, u1, RX, t, 0, 3, MLX5_MATCH_OUTER_HEADERS |
	       MLX5_MATCH_MISC_PARAMETERS, crit);
}
END_TEST

START_TEST(fte_create_query_delete)
{
	uint8_t crit[0x200] = { 0 }, val[0x200] = { 0 };
	uint32_t t = fts_ft(fw, u1, RX, 0, 4, 0);
	uint32_t next = fts_ft(fw, u1, RX, 1, 0, 0);
	uint32_t cnt = fwt_alloc(fw, u1, ALLOC_FLOW_COUNTER,
				 alloc_flow_counter, flow_counter_id);
	uint32_t g;
	struct fwt_mbox m;
	struct fts_fte e = {
		.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
			  MLX5_FLOW_CONTEXT_ACTION_COUNT,
		.flow_tag = 0x123456, .dest_type = 2, .dest_id = 0x77,
		.counter = cnt, .value = val,
	};

	PRM_SET(fte_match_param, crit, outer_headers.ethertype, 0xffff);
	PRM_SET(fte_match_param, val, outer_headers.ethertype, 0x0800);
	g = fts_fg(fw, u1, RX, t, 0, 15, MLX5_MATCH_OUTER_HEADERS, crit);
	fts_fte(fw, u1, RX, t, g, 5, &e);

	query_fte(&m, u1, RX, t, 5);
	ck_fw_ok(&m);
	ck_assert_uint_eq(QFC(&m, group_id), g);
	ck_assert_uint_eq(QFC(&m, action), e.action);
	ck_assert_uint_eq(QFC(&m, flow_tag), 0x123456);
	ck_assert_uint_eq(QFC(&m, destination_list_size), 1);
	ck_assert_uint_eq(QFC(&m, flow_counter_list_size), 1);
	ck_assert_uint_eq(QDEST(&m, 0)[0], 2);	/* TIR */
	ck_assert_uint_eq(QDEST(&m, 0)[3], 0x77);
	ck_assert_uint_eq(QDEST(&m, 1)[3], cnt & 0xff);
	/* match_value: byte 0x40 of flow_context, ethertype at byte 6 */
	ck_assert_uint_eq(((uint8_t *)m.out)[0x40 + 0x40 + 6], 0x08);

	/* the counter is used now */
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER, u1, cnt,
			   FLOW_COUNTER_IN_USE);
	/* a group with entries stays */
	fts_fg_destroy_m(fw, &m, u1, RX, t, g);
	ck_fw_synd(&m, FG_IN_USE);
	fts_ft_destroy_m(fw, &m, u1, RX, t);
	ck_fw_synd(&m, FT_HAS_GROUPS);

	/* forward to a deeper table: that table is referenced */
	e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
			      .dest_type = 1, .dest_id = next, .value = val };
	fts_fte(fw, u1, RX, t, g, 6, &e);
	fts_ft_destroy_m(fw, &m, u1, RX, next);
	ck_fw_synd(&m, FT_REFERENCED);

	fts_fte_del_m(fw, &m, u1, RX, t, 5);
	ck_fw_ok(&m);
	fts_fte_del_m(fw, &m, u1, RX, t, 5);
	ck_fw_synd(&m, FTE_INVALID);
	query_fte(&m, u1, RX, t, 5);
	ck_fw_synd(&m, FTE_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_FLOW_COUNTER,
				      u1, cnt), 0);
	fts_fte_del_m(fw, &m, u1, RX, t, 6);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, u1, RX, next);
	ck_fw_ok(&m);
	fts_fg_destroy_m(fw, &m, u1, RX, t, g);
	ck_fw_ok(&m);
	fts_fg_destroy_m(fw, &m, u1, RX, t, g);
	ck_fw_synd(&m, FG_INVALID);
	fts_ft_destroy_m(fw, &m, u1, RX, t);
	ck_fw_ok(&m);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_FLOW_TABLE), 0);
}
END_TEST

START_TEST(fte_refusals)
{
	uint32_t t = fts_ft(fw, u1, RX, 3, 4, 0);
	uint32_t same = fts_ft(fw, u1, RX, 3, 0, 0);
	uint32_t tx = fts_ft(fw, u1, TX, 0, 4, 0);
	uint32_t g = fts_fg(fw, u1, RX, t, 0, 7, 0, NULL);
	uint32_t gtx = fts_fg(fw, u1, TX, tx, 0, 7, 0, NULL);
	uint32_t cnt2 = fwt_alloc(fw, u2, ALLOC_FLOW_COUNTER,
				  alloc_flow_counter, flow_counter_id);
	const struct fts_fte drop = {
		.action = MLX5_FLOW_CONTEXT_ACTION_DROP, .dest_type = -1,
	};
	struct fts_fte e;
	struct fwt_mbox m;

#define CK_FTE(tbl, grp, idx, ID, ...)					\
	do {								\
		e = (struct fts_fte){ __VA_ARGS__ };			\
		fts_fte_m(fw, &m, u1, 0, 0, (tbl) == tx ? TX : RX, tbl, grp, \
			  idx, &e);					\
		ck_fw_synd(&m, ID);					\
	} while (0)

	CK_FTE(t, g, 8, FTE_BAD_INDEX, .action = 2, .dest_type = -1);
	CK_FTE(t, g + 1, 0, FTE_BAD_INDEX, .action = 2, .dest_type = -1);
	CK_FTE(t, g, 0, FTE_BAD_ACTION, .action = 0, .dest_type = -1);
	CK_FTE(t, g, 0, FTE_BAD_ACTION,
	       .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			 MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = 2, .dest_id = 1);
	CK_FTE(t, g, 0, FTE_BAD_ACTION,
	       .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			 MLX5_FLOW_CONTEXT_ACTION_MOD_HDR, .dest_type = -1);
	CK_FTE(t, g, 0, FTE_BAD_LIST_SIZE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, .dest_type = -1);
	CK_FTE(t, g, 0, FTE_BAD_LIST_SIZE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_DROP, .dest_type = 2);
	CK_FTE(t, g, 0, FTE_BAD_LIST_SIZE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			 MLX5_FLOW_CONTEXT_ACTION_COUNT, .dest_type = -1);
	CK_FTE(t, g, 0, FTE_BAD_DEST_TYPE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_VPORT);
	CK_FTE(t, g, 0, FTE_BAD_DEST_TYPE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_UPLINK);
	CK_FTE(tx, gtx, 0, FTE_BAD_DEST_TYPE,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR, .dest_id = 1);
	/* a forward goes deeper */
	CK_FTE(t, g, 0, FTE_BAD_DEST,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE,
	       .dest_id = same);
	CK_FTE(t, g, 0, FTE_BAD_DEST,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE,
	       .dest_id = tx);
	/* a TIR that does not exist, another uid's TIR */
	CK_FTE(t, g, 0, FTE_BAD_DEST,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR,
	       .dest_id = FTS_NO_TIR);
	fts_tir_at(fw, u2, 0x321);
	CK_FTE(t, g, 0, FTE_BAD_DEST,
	       .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
	       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR, .dest_id = 0x321);
	/* another uid's counter */
	CK_FTE(t, g, 0, FTE_BAD_COUNTER,
	       .action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			 MLX5_FLOW_CONTEXT_ACTION_COUNT,
	       .dest_type = -1, .counter = cnt2);

	/* nothing of those was kept */
	query_fte(&m, u1, RX, t, 0);
	ck_fw_synd(&m, FTE_INVALID);
	fts_ft_destroy_m(fw, &m, u1, RX, same);
	ck_fw_ok(&m);

	fts_fte(fw, u1, RX, t, g, 0, &drop);
	fts_fte_m(fw, &m, u1, 0, 0, RX, t, g, 0, &drop);
	ck_fw_synd(&m, FTE_EXISTS);
	/* another uid cannot touch the table's entries */
	fts_fte_m(fw, &m, u2, 0, 0, RX, t, g, 1, &drop);
	ck_fw_synd(&m, FT_INVALID);
	fts_fte_del_m(fw, &m, u2, RX, t, 0);
	ck_fw_synd(&m, FT_INVALID);
}
END_TEST

START_TEST(fte_modify)
{
	uint32_t t = fts_ft(fw, u1, RX, 0, 2, 0);
	uint32_t g = fts_fg(fw, u1, RX, t, 0, 3, 0, NULL);
	struct fts_fte e = {
		.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST, .flow_tag = 7,
		.dest_type = 2, .dest_id = 9,
	};
	struct fwt_mbox m;

	/* modify of an empty index */
	fts_fte_m(fw, &m, u1, 1, 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_TAG,
		  RX, t, g, 0, &e);
	ck_fw_synd(&m, FTE_INVALID);
	fts_fte(fw, u1, RX, t, g, 0, &e);
	/* only the flow tag changes: the destination list given is ignored */
	e.flow_tag = 8;
	e.dest_id = 10;
	fts_fte_m(fw, &m, u1, 1, 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_TAG,
		  RX, t, g, 0, &e);
	ck_fw_ok(&m);
	query_fte(&m, u1, RX, t, 0);
	ck_assert_uint_eq(QFC(&m, flow_tag), 8);
	ck_assert_uint_eq(QDEST(&m, 0)[3], 9);
	/* the action and the list together */
	e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_DROP,
			      .dest_type = -1 };
	fts_fte_m(fw, &m, u1, 1,
		  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION |
		  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST,
		  RX, t, g, 0, &e);
	ck_fw_ok(&m);
	query_fte(&m, u1, RX, t, 0);
	ck_assert_uint_eq(QFC(&m, action), MLX5_FLOW_CONTEXT_ACTION_DROP);
	ck_assert_uint_eq(QFC(&m, destination_list_size), 0);
	ck_assert_uint_eq(QFC(&m, flow_tag), 8);
	/* an action alone that contradicts the kept list */
	e.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST;
	fts_fte_m(fw, &m, u1, 1, 1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION,
		  RX, t, g, 0, &e);
	ck_fw_synd(&m, FTE_BAD_LIST_SIZE);
	fts_fte_m(fw, &m, u1, 1, 0, RX, t, g, 0, &e);
	ck_fw_synd(&m, FTE_BAD_MODIFY_MASK);
	fts_fte_m(fw, &m, u1, 1, 1 << 5, RX, t, g, 0, &e);
	ck_fw_synd(&m, FTE_BAD_MODIFY_MASK);
	query_fte(&m, u1, RX, t, 0);
	ck_assert_uint_eq(QFC(&m, action), MLX5_FLOW_CONTEXT_ACTION_DROP);
}
END_TEST

START_TEST(root)
{
	uint32_t k = fts_ft(fw, 0, RX, 0, 0, 0);
	uint32_t k2 = fts_ft(fw, 0, RX, 0, 0, 0);
	uint32_t d = fts_ft(fw, u1, RX, 0, 0, 0);
	struct fwt_mbox m;

	/* the kernel's command */
	fts_root_m(fw, &m, u1, 0, RX, d);
	ck_fw_synd(&m, UID_NOT_ALLOWED);
	/* its own tables only */
	fts_root_m(fw, &m, 0, 0, RX, d);
	ck_fw_synd(&m, FT_ROOT_BAD_TABLE);
	fts_root_m(fw, &m, 0, 0, TX, k);
	ck_fw_synd(&m, FT_ROOT_BAD_TABLE);
	fts_root_m(fw, &m, 0, 0, MLX5_FLOW_TABLE_TYPE_FDB, k);
	ck_fw_synd(&m, FT_BAD_TYPE);
	fts_root_m(fw, &m, 0, 2, RX, k);
	ck_fw_synd(&m, BAD_OP_MOD);

	fts_root_m(fw, &m, 0, 0, RX, k);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, 0, RX, k);
	ck_fw_synd(&m, FT_IS_ROOT);
	/* set again, then another: the first one is free */
	fts_root_m(fw, &m, 0, 0, RX, k);
	ck_fw_ok(&m);
	fts_root_m(fw, &m, 0, 0, RX, k2);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, 0, RX, k);
	ck_fw_ok(&m);
	/* disconnect (op_mod 1) */
	fts_root_m(fw, &m, 0, 1, RX, 0);
	ck_fw_ok(&m);
	fts_ft_destroy_m(fw, &m, 0, RX, k2);
	ck_fw_ok(&m);
}
END_TEST

/* The device goes away with everything in place (the teardown frees). */
START_TEST(teardown_with_objects)
{
	uint32_t t2 = fts_ft(fw, u1, RX, 1, 0, 0);
	uint32_t t = fts_ft(fw, u1, RX, 0, 2, t2);
	uint32_t g = fts_fg(fw, u1, RX, t, 0, 3, 0, NULL);
	uint32_t cnt = fwt_alloc(fw, u1, ALLOC_FLOW_COUNTER,
				 alloc_flow_counter, flow_counter_id);
	struct fts_fte e = {
		.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
			  MLX5_FLOW_CONTEXT_ACTION_COUNT,
		.dest_type = 1, .dest_id = t2, .counter = cnt,
	};
	uint32_t k = fts_ft(fw, 0, TX, 0, 0, 0);
	struct fwt_mbox m;

	fts_fte(fw, u1, RX, t, g, 1, &e);
	fts_root_m(fw, &m, 0, 0, TX, k);
	ck_fw_ok(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_steer_cmds");
	TCase *tc = tcase_create("cmds");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, layout_offsets);
	tcase_add_test(tc, caps_page);
	tcase_add_test(tc, table_create_query);
	tcase_add_test(tc, table_refusals);
	tcase_add_test(tc, table_modify_miss);
	tcase_add_test(tc, group_create_query);
	tcase_add_test(tc, group_refusals);
	tcase_add_test(tc, fte_create_query_delete);
	tcase_add_test(tc, fte_refusals);
	tcase_add_test(tc, fte_modify);
	tcase_add_test(tc, root);
	tcase_add_test(tc, teardown_with_objects);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
