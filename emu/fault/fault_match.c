/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_match.c -- does a rule match a command, a frame or a
 * work request, and does its k-th match fire.  Pure functions: the
 * engine keeps the counts.
 */
#include "emu/base/base.h"
#include "emu/fault/fault_rule.h"
#include "prm/prm_cmd.h"

static bool is_general_object_cmd(uint16_t opcode)
{
	return opcode == MLX5_CMD_OP_CREATE_GENERAL_OBJECT ||
	       opcode == MLX5_CMD_OP_MODIFY_GENERAL_OBJECT ||
	       opcode == MLX5_CMD_OP_QUERY_GENERAL_OBJECT ||
	       opcode == MLX5_CMD_OP_DESTROY_GENERAL_OBJECT;
}

bool emu_fault_matches(const struct mlx5emu_fault_rule *r,
		       const struct emu_fault_cmd *c)
{
	uint32_t m = r->match;

	if ((m & MLX5EMU_FAULT_MATCH_OPCODE) && c->opcode != r->opcode)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_OP_MOD) && c->op_mod != r->op_mod)
		return false;
	/* general_obj_in_cmd_hdr.obj_type sits where op_mod sits. */
	if ((m & MLX5EMU_FAULT_MATCH_OBJ_TYPE) &&
	    (!is_general_object_cmd(c->opcode) || c->op_mod != r->obj_type))
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_CLASS) && c->cls != r->cmd_class)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_UID) && c->uid != r->uid)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_USER) && c->uid == 0)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_DEV) && (c->dev < 0 ||
					      (uint32_t)c->dev != r->dev))
		return false;
	return true;
}

bool emu_fault_frame_matches(const struct mlx5emu_fault_rule *r,
			     const struct emu_fault_frame *f)
{
	uint32_t m = r->match;
	bool rx = (m & MLX5EMU_FAULT_MATCH_DIR) && r->dir == MLX5EMU_FAULT_DIR_RX;

	if (f->rx != rx)	/* without dir=, frames as they are sent */
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_DEV) && (f->dev < 0 ||
					      (uint32_t)f->dev != r->dev))
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_PORT) && f->port != r->port)
		return false;
	if (!(m & (MLX5EMU_FAULT_MATCH_QPN | MLX5EMU_FAULT_MATCH_BTH |
		   MLX5EMU_FAULT_MATCH_PSN)))
		return true;
	if (!f->roce)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_QPN) && f->qpn != r->qpn)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_BTH) && f->opcode != r->bth_opcode)
		return false;
	if (m & MLX5EMU_FAULT_MATCH_PSN) {
		/* A range that wraps at 2^24 runs through 0. */
		if (r->psn_first <= r->psn_last ?
		    f->psn < r->psn_first || f->psn > r->psn_last :
		    f->psn < r->psn_first && f->psn > r->psn_last)
			return false;
	}
	return true;
}

bool emu_fault_wqe_matches(const struct mlx5emu_fault_rule *r,
			   const struct emu_fault_wqe *w)
{
	uint32_t m = r->match;
	bool rq = (m & MLX5EMU_FAULT_MATCH_QUEUE) &&
		  r->queue == MLX5EMU_FAULT_QUEUE_RQ;
	bool arm = (m & MLX5EMU_FAULT_MATCH_QUEUE) &&
		   r->queue == MLX5EMU_FAULT_QUEUE_CQ_ARM;

	/* (only a MANA receive queue has doorbells of its own) */
	if (r->action == MLX5EMU_FAULT_DOORBELL_DROP ?
	    !w->doorbell || w->cq_arm != arm || w->rq != rq :
	    (w->doorbell || w->rq != rq))
		return false;	/* without queue=, send WQEs (doorbells) */
	if ((r->flags & MLX5EMU_FAULT_F_TARGET) && w->cqn != r->target)
		return false;	/* cqn= of an arm */
	if ((m & MLX5EMU_FAULT_MATCH_DEV) && (w->dev < 0 ||
					      (uint32_t)w->dev != r->dev))
		return false;
	/* A MANA queue's CQE types are not ConnectX syndromes: only rules
	 * that name its device act on it. */
	if (w->dev >= EMU_MAX_DEVICES && !emu_fault_rule_is_mana(r))
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_QPN) && w->qpn != r->qpn)
		return false;
	if ((m & MLX5EMU_FAULT_MATCH_WQE) && w->opcode != r->wqe_opcode)
		return false;
	return true;
}

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

double emu_fault_draw(uint64_t seed, uint64_t k)
{
	/* The top 53 bits as a double in [0, 1): exact, no rounding. */
	return (double)(mix64(seed ^ mix64(k)) >> 11) * 0x1.0p-53;
}

bool emu_fault_fires(const struct mlx5emu_fault_rule *r, uint64_t k,
		     uint64_t seed)
{
	switch (r->trigger) {
	case MLX5EMU_FAULT_ALWAYS:
		return true;
	case MLX5EMU_FAULT_NTH:
		return k == r->n;
	case MLX5EMU_FAULT_EVERY:
		return r->n && k % r->n == 0;
	case MLX5EMU_FAULT_PROB:
		return emu_fault_draw(seed, k) < r->probability;
	default:
		return false;
	}
}
