/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_rqt.c -- CREATE_RQT / MODIFY_RQT / QUERY_RQT /
 * DESTROY_RQT.
 *
 * A receive queue table: rqt_actual_size RQ numbers (repeats allowed, as
 * mlx5e and DPDK fill their indirection tables) among which an indirect TIR
 * spreads packets.  rqt_max_size, fixed at create, is at least 1 and at most
 * 1 << log_max_rqt_size; rqt_actual_size at least 1 and at most
 * rqt_max_size, and the inbox must hold that many entries.  Each entry must
 * be an RQ of the caller's uid or the kernel's, and holds a use on it (an RQ
 * in a table cannot be destroyed).  Lists of SQs (list_q_type) and entries
 * with a vhca id (rq_vhca_id_format) are not advertised.
 *
 * The list is one allocation, published through an RCU pointer: MODIFY_RQT
 * (bitmask rqn_list) builds and takes the new list whole, publishes it, then
 * drops the old list's uses and frees it after a grace period, so an engine
 * that loaded the old list inside its read side keeps a valid list and
 * valid RQs (an RQ freed meanwhile is destroyed only after a grace period).
 * QUERY_RQT answers the sizes and as many entries as the outbox holds.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_eth_int.h"

static void fw_rqt_list_free_rcu(struct rcu_head *head)
{
	EMU_FW_TSAN_ACQUIRE();	/* after every reader of the grace period */
	free(EMU_FW_OBJ_OF(head, struct emu_fw_rqt_list, rcu));
}

/* Drop the uses of a list no longer published (or never). */
static void fw_rqt_list_unuse(struct emu_fw_rqt_list *l, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		fw_obj_unuse(&l->rq[i]->obj);
}

void fw_rqt_release(struct emu_fw_obj *obj)
{
	struct emu_fw_rqt *rqt = emu_fw_to_rqt(obj);
	struct emu_fw_rqt_list *l;

	/* Serialised with MODIFY_RQT's swap.  The list stays for readers;
	 * fini frees it with the RQT. */
	pthread_mutex_lock(&rqt->lock);
	l = atomic_load(&rqt->list);
	if (l)
		fw_rqt_list_unuse(l, l->size);
	pthread_mutex_unlock(&rqt->lock);
}

void fw_rqt_fini(struct emu_fw_obj *obj)
{
	struct emu_fw_rqt *rqt = emu_fw_to_rqt(obj);

	free(atomic_load(&rqt->list));
	pthread_mutex_destroy(&rqt->lock);
}

/*
 * The list of a command's rqtc (at byte @ctx_off of the inbox), for a
 * table of at most @max entries: checked and taken whole, or not at all.
 */
static enum fw_synd fw_rqt_list_take(struct fw_cmd *cmd, size_t ctx_off,
				     uint32_t max,
				     struct emu_fw_rqt_list **lp)
{
	const void *rqtc = (const uint8_t *)cmd->in + ctx_off;
	uint32_t n = PRM_GET(rqtc, rqtc, rqt_actual_size);
	size_t first = ctx_off + PRM_BYTE_OFF(rqtc, rq_num);
	struct emu_fw_rqt_list *l;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!n || n > max)
		return FW_SYND_RQT_BAD_SIZE;
	if (cmd->inlen < first + (size_t)n * PRM_ARRAY_ELEM_BYTES(rqtc, rq_num))
		return FW_SYND_BAD_INLEN;
	l = malloc(sizeof(*l) + n * sizeof(l->rq[0]));
	if (!l)
		return FW_SYND_INTERNAL_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const void *e = PRM_ARRAY_ADDR(rqtc, rqtc, rq_num, i);

		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_RQ,
				   PRM_GET(rq_num, e, rq_num),
				   FW_SYND_RQT_BAD_RQN, &obj);
		if (s) {
			fw_rqt_list_unuse(l, i);
			free(l);
			return s;
		}
		l->rq[i] = emu_fw_to_rq(obj);
	}
	l->size = n;
	*lp = l;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_rqt(struct fw_cmd *cmd)
{
	const size_t ctx_off = PRM_BYTE_OFF(create_rqt_in, rqt_context);
	const void *rqtc = PRM_ADDR_OF(create_rqt_in, cmd->in, rqt_context);
	uint32_t max = PRM_GET(rqtc, rqtc, rqt_max_size);
	struct emu_fw_rqt_list *l = NULL;
	struct emu_fw_obj *obj;
	struct emu_fw_rqt *rqt;
	enum fw_synd s;

	if (PRM_GET(rqtc, rqtc, list_q_type) ||
	    PRM_GET(rqtc, rqtc, rq_vhca_id_format))
		return FW_SYND_RQT_FEATURE_NOT_SUPPORTED;
	if (!max || max > UINT32_C(1) << FW_CAP_GEN(cmd->fw, log_max_rqt_size))
		return FW_SYND_RQT_BAD_SIZE;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_RQT, &obj);
	if (s)
		return s;
	rqt = emu_fw_to_rqt(obj);
	pthread_mutex_init(&rqt->lock, NULL);
	rqt->max_size = max;
	s = fw_rqt_list_take(cmd, ctx_off, max, &l);
	if (s) {
		fw_cmd_obj_abort(obj);
		return s;
	}
	atomic_init(&rqt->list, l);
	s = fw_cmd_obj_publish(obj, FW_SYND_RQT_LIMIT);
	if (s)
		return s;
	PRM_SET(create_rqt_out, cmd->out, rqtn, obj->id);
	return FW_SYND_OK;
}

static enum fw_synd fw_rqt_own(struct fw_cmd *cmd, uint32_t rqtn,
			       struct emu_fw_rqt **rqtp)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_RQT, rqtn, FW_SYND_RQT_INVALID,
			   &obj);
	if (!s)
		*rqtp = emu_fw_to_rqt(obj);
	return s;
}

enum fw_synd fw_cmd_modify_rqt(struct fw_cmd *cmd)
{
	const uint8_t *bm = PRM_ADDR_OF(modify_rqt_in, cmd->in, bitmask);
	struct emu_fw_rqt_list *l = NULL, *old;
	struct emu_fw_rqt *rqt = NULL;
	uint8_t other[8];
	enum fw_synd s;

	s = fw_rqt_own(cmd, PRM_GET(modify_rqt_in, cmd->in, rqtn), &rqt);
	if (s)
		return s;
	memcpy(other, bm, sizeof(other));
	PRM_SET(rqt_bitmask, other, rqn_list, 0);
	if (!fw_all_zero(other, sizeof(other)))
		s = FW_SYND_RQT_BAD_BITMASK;
	if (!s && !PRM_GET(rqt_bitmask, bm, rqn_list)) {
		emu_fw_obj_put(&rqt->obj);	/* nothing to change */
		return FW_SYND_OK;
	}
	if (!s)
		s = fw_rqt_list_take(cmd, PRM_BYTE_OFF(modify_rqt_in, ctx),
				     rqt->max_size, &l);
	if (s) {
		emu_fw_obj_put(&rqt->obj);
		return s;
	}
	pthread_mutex_lock(&rqt->lock);
	if (atomic_load(&rqt->obj.users) < 0) {
		/* A destroy got in first: its release owns the list. */
		pthread_mutex_unlock(&rqt->lock);
		fw_rqt_list_unuse(l, l->size);
		free(l);
		emu_fw_obj_put(&rqt->obj);
		return FW_SYND_RQT_INVALID;
	}
	old = atomic_exchange(&rqt->list, l);
	pthread_mutex_unlock(&rqt->lock);
	fw_rqt_list_unuse(old, old->size);
	call_rcu(&old->rcu, fw_rqt_list_free_rcu);
	emu_fw_obj_put(&rqt->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_query_rqt(struct fw_cmd *cmd)
{
	const size_t first = PRM_BYTE_OFF(query_rqt_out, rqt_context) +
			     PRM_BYTE_OFF(rqtc, rq_num);
	void *rqtc = PRM_ADDR_OF(query_rqt_out, cmd->out, rqt_context);
	uint32_t room = (uint32_t)((cmd->outlen - first) /
				   PRM_ARRAY_ELEM_BYTES(rqtc, rq_num));
	struct emu_fw_rqt *rqt = NULL;
	struct emu_fw_rqt_list *l;
	enum fw_synd s;

	s = fw_rqt_own(cmd, PRM_GET(query_rqt_in, cmd->in, rqtn), &rqt);
	if (s)
		return s;
	pthread_mutex_lock(&rqt->lock);
	l = atomic_load(&rqt->list);
	PRM_SET(rqtc, rqtc, rqt_max_size, rqt->max_size);
	PRM_SET(rqtc, rqtc, rqt_actual_size, l->size);
	for (uint32_t i = 0; i < l->size && i < room; i++)
		PRM_SET(rq_num, PRM_ARRAY_ADDR(rqtc, rqtc, rq_num, i), rq_num,
			l->rq[i]->obj.id);
	pthread_mutex_unlock(&rqt->lock);
	emu_fw_obj_put(&rqt->obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_rqt(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_RQT,
				  PRM_GET(destroy_rqt_in, cmd->in, rqtn),
				  FW_SYND_RQT_INVALID, FW_SYND_RQT_IN_USE);
}
