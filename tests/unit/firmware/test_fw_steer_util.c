/* SPDX-License-Identifier: MIT */
/* Helpers of the NIC flow steering suites (see test_fw_steer_util.h). */
#include "test_fw_steer_util.h"
#include "emu/firmware/fw_int.h"

void fts_ft_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	      unsigned int type, unsigned int level, unsigned int log_size,
	      uint32_t miss)
{
	void *ctx;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_FLOW_TABLE, 0, uid,
		      PRM_ST_SZ_BYTES(create_flow_table_in),
		      PRM_ST_SZ_BYTES(create_flow_table_out));
	PRM_SET(create_flow_table_in, m->in, table_type, type);
	ctx = PRM_ADDR_OF(create_flow_table_in, m->in, flow_table_context);
	PRM_SET(flow_table_context, ctx, level, level);
	PRM_SET(flow_table_context, ctx, log_size, log_size);
	if (miss) {
		PRM_SET(flow_table_context, ctx, table_miss_action,
			MLX5_FLOW_TABLE_MISS_ACTION_FWD);
		PRM_SET(flow_table_context, ctx, table_miss_id, miss);
	}
	fwt_exec(fw, m);
}

uint32_t fts_ft(struct emu_fw *fw, uint16_t uid, unsigned int type,
		unsigned int level, unsigned int log_size, uint32_t miss)
{
	struct fwt_mbox m;

	fts_ft_m(fw, &m, uid, type, level, log_size, miss);
	ck_fw_ok(&m);
	return PRM_GET(create_flow_table_out, m.out, table_id);
}

void fts_fg_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	      unsigned int type, uint32_t table, uint32_t start, uint32_t end,
	      unsigned int enable, const void *criteria)
{
	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_FLOW_GROUP, 0, uid,
		      PRM_ST_SZ_BYTES(create_flow_group_in),
		      PRM_ST_SZ_BYTES(create_flow_group_out));
	PRM_SET(create_flow_group_in, m->in, table_type, type);
	PRM_SET(create_flow_group_in, m->in, table_id, table);
	PRM_SET(create_flow_group_in, m->in, start_flow_index, start);
	PRM_SET(create_flow_group_in, m->in, end_flow_index, end);
	PRM_SET(create_flow_group_in, m->in, match_criteria_enable, enable);
	if (criteria)
		memcpy(PRM_ADDR_OF(create_flow_group_in, m->in,
				   match_criteria),
		       criteria, PRM_ST_SZ_BYTES(fte_match_param));
	fwt_exec(fw, m);
}

uint32_t fts_fg(struct emu_fw *fw, uint16_t uid, unsigned int type,
		uint32_t table, uint32_t start, uint32_t end,
		unsigned int enable, const void *criteria)
{
	struct fwt_mbox m;

	fts_fg_m(fw, &m, uid, type, table, start, end, enable, criteria);
	ck_fw_ok(&m);
	return PRM_GET(create_flow_group_out, m.out, group_id);
}

void fts_fte_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
	       unsigned int op_mod, unsigned int mask, unsigned int type,
	       uint32_t table, uint32_t group, uint32_t index,
	       const struct fts_fte *e)
{
	size_t base = PRM_ST_SZ_BYTES(set_fte_in);
	unsigned int nd = e->dest_type >= 0, nc = e->counter != 0;
	uint8_t *list = (uint8_t *)m->in + base;
	void *fc;

	fwt_mbox_init(m, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, op_mod, uid,
		      base + (nd + nc) * 8, PRM_ST_SZ_BYTES(set_fte_out));
	PRM_SET(set_fte_in, m->in, table_type, type);
	PRM_SET(set_fte_in, m->in, table_id, table);
	PRM_SET(set_fte_in, m->in, flow_index, index);
	PRM_SET(set_fte_in, m->in, modify_enable_mask, mask);
	fc = PRM_ADDR_OF(set_fte_in, m->in, flow_context);
	PRM_SET(flow_context, fc, group_id, group);
	PRM_SET(flow_context, fc, action, e->action);
	PRM_SET(flow_context, fc, flow_tag, e->flow_tag);
	PRM_SET(flow_context, fc, destination_list_size, nd);
	PRM_SET(flow_context, fc, flow_counter_list_size, nc);
	if (e->value)
		memcpy(PRM_ADDR_OF(flow_context, fc, match_value), e->value,
		       PRM_ST_SZ_BYTES(fte_match_param));
	if (nd) {
		PRM_SET(dest_format_struct, list, destination_type,
			(unsigned int)e->dest_type);
		PRM_SET(dest_format_struct, list, destination_id, e->dest_id);
		list += 8;
	}
	if (nc)
		PRM_SET(flow_counter_list, list, flow_counter_id, e->counter);
	if (nd && e->dest_type == MLX5_IFC_FLOW_DESTINATION_TYPE_TIR &&
	    e->dest_id != FTS_NO_TIR)
		fts_tir_at(fw, uid, e->dest_id);
	fwt_exec(fw, m);
}

/*
 * A TIR numbered @id of @uid, if there is none: an object with no queue
 * behind it, since these suites steer and never receive (a flow entry's
 * TIR must exist).  The id cursor of the TIR table is set to @id first.
 */
void fts_tir_at(struct emu_fw *fw, uint16_t uid, uint32_t id)
{
	struct fw_table *tb = &fw->tables[EMU_FW_OBJ_TIR];
	struct emu_fw_obj *o;

	emu_fw_rcu_lock();
	o = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_TIR, id);
	emu_fw_rcu_unlock();
	if (o)
		return;
	o = fw_obj_alloc(fw, EMU_FW_OBJ_TIR, uid);
	ck_assert_ptr_nonnull(o);
	pthread_mutex_lock(&tb->lock);
	tb->cursor = id;
	pthread_mutex_unlock(&tb->lock);
	ck_assert_int_eq(fw_obj_insert(o), 0);
	ck_assert_uint_eq(o->id, id);
}

void fts_fte(struct emu_fw *fw, uint16_t uid, unsigned int type,
	     uint32_t table, uint32_t group, uint32_t index,
	     const struct fts_fte *e)
{
	struct fwt_mbox m;

	fts_fte_m(fw, &m, uid, 0, 0, type, table, group, index, e);
	ck_fw_ok(&m);
}

void fts_fte_del_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		   unsigned int type, uint32_t table, uint32_t index)
{
	fwt_mbox_init(m, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, 0, uid,
		      PRM_ST_SZ_BYTES(delete_fte_in),
		      PRM_ST_SZ_BYTES(delete_fte_out));
	PRM_SET(delete_fte_in, m->in, table_type, type);
	PRM_SET(delete_fte_in, m->in, table_id, table);
	PRM_SET(delete_fte_in, m->in, flow_index, index);
	fwt_exec(fw, m);
}

void fts_root_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		unsigned int op_mod, unsigned int type, uint32_t table)
{
	fwt_mbox_init(m, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT, op_mod, uid,
		      PRM_ST_SZ_BYTES(set_flow_table_root_in),
		      PRM_ST_SZ_BYTES(set_flow_table_root_out));
	PRM_SET(set_flow_table_root_in, m->in, table_type, type);
	PRM_SET(set_flow_table_root_in, m->in, table_id, table);
	fwt_exec(fw, m);
}

uint32_t fts_rx_root(struct emu_fw *fw, unsigned int log_size)
{
	uint32_t root = fts_ft(fw, 0, MLX5_FLOW_TABLE_TYPE_NIC_RX, 0, log_size,
			       0);
	struct fwt_mbox m;

	fts_root_m(fw, &m, 0, 0, MLX5_FLOW_TABLE_TYPE_NIC_RX, root);
	ck_fw_ok(&m);
	return root;
}

void fts_ft_destroy_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		      unsigned int type, uint32_t table)
{
	fwt_mbox_init(m, MLX5_CMD_OP_DESTROY_FLOW_TABLE, 0, uid,
		      PRM_ST_SZ_BYTES(destroy_flow_table_in),
		      PRM_ST_SZ_BYTES(destroy_flow_table_out));
	PRM_SET(destroy_flow_table_in, m->in, table_type, type);
	PRM_SET(destroy_flow_table_in, m->in, table_id, table);
	fwt_exec(fw, m);
}

void fts_fg_destroy_m(struct emu_fw *fw, struct fwt_mbox *m, uint16_t uid,
		      unsigned int type, uint32_t table, uint32_t group)
{
	fwt_mbox_init(m, MLX5_CMD_OP_DESTROY_FLOW_GROUP, 0, uid,
		      PRM_ST_SZ_BYTES(destroy_flow_group_in),
		      PRM_ST_SZ_BYTES(destroy_flow_group_out));
	PRM_SET(destroy_flow_group_in, m->in, table_type, type);
	PRM_SET(destroy_flow_group_in, m->in, table_id, table);
	PRM_SET(destroy_flow_group_in, m->in, group_id, group);
	fwt_exec(fw, m);
}

void fts_set_dmac(void *match, const uint8_t *mac)
{
	PRM_SET(fte_match_param, match, outer_headers.dmac_47_16,
		(uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 |
		(uint32_t)mac[2] << 8 | mac[3]);
	PRM_SET(fte_match_param, match, outer_headers.dmac_15_0,
		(uint32_t)mac[4] << 8 | mac[5]);
}

void fts_set_smac(void *match, const uint8_t *mac)
{
	PRM_SET(fte_match_param, match, outer_headers.smac_47_16,
		(uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 |
		(uint32_t)mac[2] << 8 | mac[3]);
	PRM_SET(fte_match_param, match, outer_headers.smac_15_0,
		(uint32_t)mac[4] << 8 | mac[5]);
}
