/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_flow.c -- the kernel-owned NIC receive steering root and
 * the rules verbs and mlx5dv programs put there (ibv_create_flow,
 * mlx5dv_create_flow: mlx5_ib's fs.c over mlx5_core's fs_core).
 *
 * A DEVX context may not set a flow table root (firmware refuses
 * SET_FLOW_TABLE_ROOT from a uid; kern_devx_rules.c refuses it as devx.c
 * does), so everything a program steers passes the kernel's table first.
 * As mlx5_core does, the kernel makes that table at the first rule (uid 0,
 * NIC RX, level 0) and sets it as the root.  mlx5_ib keeps one table per
 * bypass priority (MLX5_BY_PASS_NUM_PRIOS = 33: regular and don't-trap
 * priorities interleaved, then multicast; priority 0 first) chained by
 * misses; here one table holds the priorities as bands of flow indexes,
 * 256 each, and every rule gets a flow group of its own (its
 * match criteria) and one entry.  Groups are searched in flow-index order,
 * so a rule of priority p is looked at before every rule of p + 1, and
 * rules of one priority in the order they were made; what a frame sees is
 * the same.
 *
 * A rule forwards to a TIR or to a flow table of its own context (DEVX
 * objects; a table must lie deeper than level 0, as firmware requires of a
 * forward) or drops, and may tag and count (a flow counter of its
 * context).  The rule is an object of the context that made it, destroyed
 * with it (newest first, so before its destination and counter).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/kernel/kern.h"
#include "emu/kernel/kern_devx_rules.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_FLOW_LOG_SIZE 14	/* room for every band (kern.h) */
_Static_assert(KERN_FLOW_PRIOS * KERN_FLOW_PER_PRIO <= 1 << KERN_FLOW_LOG_SIZE,
	       "the root table holds every band");

/* The table, made at the first rule, under kdev->flow.lock. */
static int kern_flow_root(struct kern_dev *kdev)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_flow_table_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_flow_table_out)] = {};
	uint8_t rin[PRM_ST_SZ_BYTES(set_flow_table_root_in)] = {};
	uint8_t rout[PRM_ST_SZ_BYTES(set_flow_table_root_out)] = {};
	void *ftc = PRM_ADDR_OF(create_flow_table_in, in, flow_table_context);
	uint32_t id;
	int ret;

	if (kdev->flow.root_valid)
		return 0;
	PRM_SET(create_flow_table_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
	PRM_SET(create_flow_table_in, in, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(flow_table_context, ftc, level, 0);
	PRM_SET(flow_table_context, ftc, log_size, KERN_FLOW_LOG_SIZE);
	ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	id = PRM_GET(create_flow_table_out, out, table_id);
	PRM_SET(set_flow_table_root_in, rin, opcode,
		MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	PRM_SET(set_flow_table_root_in, rin, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(set_flow_table_root_in, rin, table_id, id);
	ret = kern_fw_exec_checked(kdev, rin, sizeof(rin), rout, sizeof(rout));
	if (ret) {
		uint8_t din[PRM_ST_SZ_BYTES(destroy_flow_table_in)] = {};
		uint8_t dout[PRM_ST_SZ_BYTES(destroy_flow_table_out)] = {};

		PRM_SET(destroy_flow_table_in, din, opcode,
			MLX5_CMD_OP_DESTROY_FLOW_TABLE);
		PRM_SET(destroy_flow_table_in, din, table_type,
			MLX5_FLOW_TABLE_TYPE_NIC_RX);
		PRM_SET(destroy_flow_table_in, din, table_id, id);
		(void)kern_fw_exec_checked(kdev, din, sizeof(din), dout,
					   sizeof(dout));
		return ret;
	}
	kdev->flow.root_id = id;
	kdev->flow.root_valid = true;
	return 0;
}

/* A free flow index in the band of @prio, taken; -ENOMEM when full. */
static int kern_flow_index_take(struct kern_dev *kdev, unsigned int prio)
{
	for (unsigned int i = 0; i < KERN_FLOW_PER_PRIO; i++) {
		unsigned int idx = prio * KERN_FLOW_PER_PRIO + i;

		if (!(kdev->flow.used[idx / 64] & (UINT64_C(1) << (idx % 64)))) {
			kdev->flow.used[idx / 64] |= UINT64_C(1) << (idx % 64);
			return (int)idx;
		}
	}
	return -ENOMEM;
}

static void kern_flow_index_put(struct kern_dev *kdev, unsigned int idx)
{
	kdev->flow.used[idx / 64] &= ~(UINT64_C(1) << (idx % 64));
}

static int kern_flow_group_destroy(struct kern_dev *kdev, uint32_t group)
{
	uint8_t in[PRM_ST_SZ_BYTES(destroy_flow_group_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(destroy_flow_group_out)] = {};

	PRM_SET(destroy_flow_group_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	PRM_SET(destroy_flow_group_in, in, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(destroy_flow_group_in, in, table_id, kdev->flow.root_id);
	PRM_SET(destroy_flow_group_in, in, group_id, group);
	return kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
}

/* The rule's group (its criteria) over flow index @idx. */
static int kern_flow_group(struct kern_dev *kdev, unsigned int idx,
			   const struct mlx5be_flow_match *m, uint32_t *group)
{
	uint8_t *in = calloc(1, PRM_ST_SZ_BYTES(create_flow_group_in));
	uint8_t out[PRM_ST_SZ_BYTES(create_flow_group_out)] = {};
	int ret;

	if (!in)
		return -ENOMEM;
	PRM_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	PRM_SET(create_flow_group_in, in, table_type,
		MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(create_flow_group_in, in, table_id, kdev->flow.root_id);
	PRM_SET(create_flow_group_in, in, start_flow_index, idx);
	PRM_SET(create_flow_group_in, in, end_flow_index, idx);
	PRM_SET(create_flow_group_in, in, match_criteria_enable,
		m->criteria_enable);
	memcpy(PRM_ADDR_OF(create_flow_group_in, in, match_criteria), m->mask,
	       m->len);
	ret = kern_fw_exec_checked(kdev, in, PRM_ST_SZ_BYTES(create_flow_group_in),
				   out, sizeof(out));
	free(in);
	if (!ret)
		*group = PRM_GET(create_flow_group_out, out, group_id);
	return ret;
}

/* What a rule's entry says, resolved from its objects. */
struct kern_flow_fte {
	uint16_t action;		/* MLX5_FLOW_CONTEXT_ACTION_* */
	uint8_t dest_type;
	uint32_t dest_id;
	uint32_t tag;
	bool count;
	uint32_t counter_id;
};

/* The entry: the value, then the destination (if it forwards) and the
 * counter (if it counts), in the destination list. */
static int kern_flow_fte(struct kern_dev *kdev, unsigned int idx,
			 uint32_t group, const struct mlx5be_flow_match *m,
			 const struct kern_flow_fte *f)
{
	size_t inlen = PRM_ST_SZ_BYTES(set_fte_in) +
		       2 * PRM_ST_SZ_BYTES(dest_format_struct);
	uint8_t *in = calloc(1, inlen);
	uint8_t out[PRM_ST_SZ_BYTES(set_fte_out)] = {};
	unsigned int n = 0;
	void *fc;
	int ret;

	if (!in)
		return -ENOMEM;
	fc = PRM_ADDR_OF(set_fte_in, in, flow_context);
	PRM_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	PRM_SET(set_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(set_fte_in, in, table_id, kdev->flow.root_id);
	PRM_SET(set_fte_in, in, flow_index, idx);
	PRM_SET(flow_context, fc, group_id, group);
	PRM_SET(flow_context, fc, action, f->action);
	PRM_SET(flow_context, fc, flow_tag, f->tag);
	memcpy(PRM_ADDR_OF(flow_context, fc, match_value), m->value, m->len);
	if (f->action & MLX5_FLOW_CONTEXT_ACTION_FWD_DEST) {
		void *d = PRM_ARRAY_ADDR(flow_context, fc, destination, n++);

		PRM_SET(dest_format_struct, d, destination_type, f->dest_type);
		PRM_SET(dest_format_struct, d, destination_id, f->dest_id);
		PRM_SET(flow_context, fc, destination_list_size, 1);
	}
	if (f->count) {
		void *c = PRM_ARRAY_ADDR(flow_context, fc, destination, n++);

		PRM_SET(flow_counter_list, c, flow_counter_id, f->counter_id);
		PRM_SET(flow_context, fc, flow_counter_list_size, 1);
	}
	ret = kern_fw_exec_checked(kdev, in, inlen, out, sizeof(out));
	free(in);
	return ret;
}

/*
 * The entry a rule's actions make (mlx5_ib's is_flow_dest and
 * is_flow_counter): a destination must be a TIR or a flow table of the
 * caller's context, a counter one of its flow counters, a tag 24 bits;
 * anything else EINVAL.
 */
static int kern_flow_resolve(const struct mlx5be_ctx *ctx,
			     const struct mlx5be_flow_act *a,
			     struct kern_flow_fte *f)
{
	memset(f, 0, sizeof(*f));
	if (a->dest) {
		if (a->dest->uctx != ctx->uctx ||
		    a->dest->flow == KERN_DESTROY_FLOW_RULE)
			return -EINVAL;
		switch (kern_devx_enc_opcode(a->dest->enc_id)) {
		case MLX5_CMD_OP_CREATE_TIR:
			f->dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR;
			break;
		case MLX5_CMD_OP_CREATE_FLOW_TABLE:
			f->dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE;
			break;
		default:
			return -EINVAL;
		}
		f->dest_id = kern_devx_dec_obj_id(a->dest->enc_id);
		f->action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST;
	} else {
		f->action = MLX5_FLOW_CONTEXT_ACTION_DROP;
	}
	if (a->has_tag) {
		if (a->tag >= (1u << 24))
			return -EINVAL;
		f->tag = a->tag;
	}
	if (a->counter) {
		if (a->counter->uctx != ctx->uctx ||
		    a->counter->flow == KERN_DESTROY_FLOW_RULE ||
		    kern_devx_enc_opcode(a->counter->enc_id) !=
		    MLX5_CMD_OP_ALLOC_FLOW_COUNTER)
			return -EINVAL;
		f->count = true;
		f->counter_id = kern_devx_dec_obj_id(a->counter->enc_id);
		f->action |= MLX5_FLOW_CONTEXT_ACTION_COUNT;
	}
	return 0;
}

struct mlx5be_obj *kern_flow_attach(struct mlx5be_ctx *ctx,
				    const struct mlx5be_flow_match *m,
				    const struct mlx5be_flow_act *act)
{
	struct kern_uctx *uctx = ctx->uctx;
	struct kern_dev *kdev = uctx->kdev;
	struct mlx5be_obj *obj = NULL;
	struct kern_flow_fte f;
	uint32_t group;
	int ret, idx = -1;

	ret = kern_flow_resolve(ctx, act, &f);
	if (ret)
		goto err;
	/* mlx5_ib: a priority past the last bypass priority is ENOMEM (the
	 * callers check the limits of their own verbs first). */
	if (m->priority >= KERN_FLOW_PRIOS) {
		ret = -ENOMEM;
		goto err;
	}
	if (!m->mask || !m->value ||
	    m->len > PRM_ST_SZ_BYTES(fte_match_param)) {
		ret = -EINVAL;
		goto err;
	}
	if (kern_uctx_lost(uctx)) {
		ret = -EIO;
		goto err;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		ret = -ENOMEM;
		goto err;
	}
	obj->uctx = uctx;
	CDS_INIT_LIST_HEAD(&obj->subs);
	pthread_mutex_lock(&uctx->lock);
	pthread_mutex_lock(&kdev->flow.lock);
	ret = kern_flow_root(kdev);
	if (!ret) {
		idx = kern_flow_index_take(kdev, m->priority);
		ret = idx < 0 ? idx : 0;
	}
	if (!ret)
		ret = kern_flow_group(kdev, (unsigned int)idx, m, &group);
	if (!ret) {
		ret = kern_flow_fte(kdev, (unsigned int)idx, group, m, &f);
		if (ret)
			(void)kern_flow_group_destroy(kdev, group);
	}
	if (ret) {
		if (idx >= 0)
			kern_flow_index_put(kdev, (unsigned int)idx);
		pthread_mutex_unlock(&kdev->flow.lock);
		pthread_mutex_unlock(&uctx->lock);
		goto err;
	}
	obj->flow = KERN_DESTROY_FLOW_RULE;
	obj->flow_group = group;
	obj->flow_index = (uint32_t)idx;
	cds_list_add_tail(&obj->node, &uctx->objs);
	pthread_mutex_unlock(&kdev->flow.lock);
	pthread_mutex_unlock(&uctx->lock);
	return obj;
err:
	free(obj);
	errno = -ret;
	return NULL;
}

int kern_flow_detach(struct mlx5be_obj *obj)
{
	struct kern_dev *kdev = obj->uctx->kdev;
	uint8_t in[PRM_ST_SZ_BYTES(delete_fte_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(delete_fte_out)] = {};
	int ret;

	pthread_mutex_lock(&kdev->flow.lock);
	PRM_SET(delete_fte_in, in, opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	PRM_SET(delete_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	PRM_SET(delete_fte_in, in, table_id, kdev->flow.root_id);
	PRM_SET(delete_fte_in, in, flow_index, obj->flow_index);
	ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
	if (!ret)
		ret = kern_flow_group_destroy(kdev, obj->flow_group);
	if (!ret)
		kern_flow_index_put(kdev, obj->flow_index);
	pthread_mutex_unlock(&kdev->flow.lock);
	return ret;
}
