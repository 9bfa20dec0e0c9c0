/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_devx_objid.c -- object ids as devx.c encodes them: the id
 * a create command made (devx_get_created_obj_id), the id a modify or query
 * command targets (devx_get_obj_id), and matching one against a handle.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/kernel/kern_devx_rules.h"
#include "emu/kernel/kern_devx_rules_int.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

/* get_enc_obj_id for an object made by op: a general object's obj_type
 * is folded into the opcode. */
static uint64_t enc_obj(uint32_t op, bool general_obj, const void *in,
			uint32_t id)
{
	if (general_obj)
		op |= PRM_GET(general_obj_in_cmd_hdr, in, obj_type) << 16;
	return kern_devx_enc_obj_id(op, id);
}

int kern_devx_created_obj_id(const void *in, const void *out, uint64_t *enc_id)
{
	const struct kcreate *c = kern_kcreate_find(kern_mbox_opcode(in));

	if (!c)
		return -EINVAL;
	*enc_id = enc_obj(c->op, c->general_obj, in,
			  kfld_get(c->id_in_inbox ? in : out, c->id));
	return 0;
}

int kern_devx_target_obj_id(const void *in, uint64_t *enc_id)
{
	const struct ktarget *t = kern_ktarget_find(kern_mbox_opcode(in));

	if (!t)
		return -EINVAL;
	*enc_id = enc_obj(t->create_op, t->general_obj, in, kfld_get(in, t->id));
	return 0;
}

bool kern_devx_obj_id_matches(uint64_t handle_enc_id,
			      uint32_t flow_counter_bulk, const void *in)
{
	uint64_t enc;

	if (kern_devx_target_obj_id(in, &enc))
		return false;
	if (kern_mbox_opcode(in) == MLX5_CMD_OP_QUERY_FLOW_COUNTER &&
	    flow_counter_bulk)
		return handle_enc_id <= enc &&
		       handle_enc_id + flow_counter_bulk > enc;
	return handle_enc_id == enc;
}

uint32_t kern_devx_flow_counter_bulk(const void *create_in)
{
	uint32_t log;

	if (kern_mbox_opcode(create_in) != MLX5_CMD_OP_ALLOC_FLOW_COUNTER)
		return 0;
	log = PRM_GET(alloc_flow_counter_in, create_in, flow_counter_bulk_log_size);
	if (log)
		return UINT32_C(1) << log;
	return 128 * PRM_GET(alloc_flow_counter_in, create_in, flow_counter_bulk);
}
