/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_qp_modify.c -- the QP state machine: RST2INIT,
 * INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS, SQERR2RTS, SQD2RTS (SQD_RTS_QP),
 * 2ERR and 2RST, one handler driven by the tables of fw_qp_rules.c.
 *
 *   states:  RST --RST2INIT--> INIT --INIT2RTR--> RTR --RTR2RTS--> RTS
 *            INIT --INIT2INIT--> INIT, RTS --RTS2RTS--> RTS
 *            SQER --SQERR2RTS--> RTS (SQER: engines, UD/UC send errors)
 *            SQD --SQD2RTS--> RTS (SQD: no command enters it, see
 *                                   prm/README.md on RTS2SQD)
 *            any --2ERR--> ERR, any --2RST--> RST
 *
 * One transition, in order:
 *   1. the QP: of the caller's uid and a QP (not a DCT); 2ERR/2RST answer
 *      an unknown qpn with QP_INVALID_QPN (BAD_RES_STATE 0x7EA02D, the
 *      syndrome real firmware gives), the others with QP_INVALID;
 *   2. the source state: not one the command leaves from ->
 *      QP_BAD_STATE_TRANSITION (status BAD_QP_STATE);
 *   3. opt_param_mask (and RTS2RTS's opt_param_mask_95_32, when the
 *      inbox reaches it): a bit the transition does not allow for the
 *      QP's service type -> QP_BAD_OPT_PARAM;
 *   4. the fields taken (the type's required groups and the optional
 *      groups the mask names) are validated, objects they name are taken;
 *   5. commit: the fields are copied into the QP's context, uses swapped,
 *      the state set (release), the generation bumped; the transitions
 *      that carry an ece word (RST2INIT to RTS2RTS) take the options the
 *      device accepts of a non-zero one (fw_qp_ece) and answer with the
 *      options in force.
 * Nothing changes on a failure.  Fields not taken are ignored, so
 * QUERY_QP echoes exactly what was set by the create and the transitions.
 */
#include <errno.h>
#include <string.h>

#include "emu/firmware/fw_qp_int.h"

/* Every transition inbox has the same head as rst2init_qp_in. */
#define SAME_OFF(st, fld)						\
	_Static_assert(PRM_BIT_OFF(st, fld) == PRM_BIT_OFF(rst2init_qp_in, fld), \
		       #st "." #fld)
SAME_OFF(init2init_qp_in, qpc);
SAME_OFF(init2rtr_qp_in, qpc);
SAME_OFF(rtr2rts_qp_in, qpc);
SAME_OFF(rts2rts_qp_in, qpc);
SAME_OFF(sqerr2rts_qp_in, qpc);
SAME_OFF(sqd2rts_qp_in, qpc);
SAME_OFF(init2init_qp_in, opt_param_mask);
SAME_OFF(init2rtr_qp_in, opt_param_mask);
SAME_OFF(rtr2rts_qp_in, opt_param_mask);
SAME_OFF(rts2rts_qp_in, opt_param_mask);
SAME_OFF(sqerr2rts_qp_in, opt_param_mask);
SAME_OFF(sqd2rts_qp_in, opt_param_mask);
SAME_OFF(init2init_qp_in, ece);
SAME_OFF(init2rtr_qp_in, ece);
SAME_OFF(rtr2rts_qp_in, ece);
SAME_OFF(rts2rts_qp_in, ece);
_Static_assert(PRM_BIT_OFF(init2init_qp_out, ece) ==
	       PRM_BIT_OFF(rst2init_qp_out, ece) &&
	       PRM_BIT_OFF(init2rtr_qp_out, ece) ==
	       PRM_BIT_OFF(rst2init_qp_out, ece) &&
	       PRM_BIT_OFF(rtr2rts_qp_out, ece) ==
	       PRM_BIT_OFF(rst2init_qp_out, ece) &&
	       PRM_BIT_OFF(rts2rts_qp_out, ece) ==
	       PRM_BIT_OFF(rst2init_qp_out, ece), "ece out");
SAME_OFF(qp_2err_in, qpn);
SAME_OFF(qp_2rst_in, qpn);
SAME_OFF(init2rtr_qp_in, qpn);
#undef SAME_OFF

/* Objects a transition names, taken before the commit. */
struct fw_qp_take {
	struct emu_fw_q_counter *counter;
	struct emu_fw_srq *srq;
	struct emu_fw_cq *cq_rcv;
};

static void fw_qp_take_drop(struct fw_qp_take *t)
{
	if (t->counter)
		fw_obj_unuse(&t->counter->obj);
	if (t->srq)
		fw_obj_unuse(&t->srq->obj);
	if (t->cq_rcv)
		fw_obj_unuse(&t->cq_rcv->obj);
	memset(t, 0, sizeof(*t));
}

static enum fw_synd fw_qp_take(struct fw_cmd *cmd, uint32_t g,
			       const void *qpc, struct fw_qp_take *t)
{
	struct emu_fw_obj *obj;
	enum fw_synd s = FW_SYND_OK;

	memset(t, 0, sizeof(*t));
	if (g & FW_QPF_COUNTER)
		s = fw_check_counter(cmd, PRM_GET(qpc, qpc, counter_set_id),
				     &t->counter);
	if (!s && (g & FW_QPF_SRQN))
		s = fw_srq_use(cmd, PRM_GET(qpc, qpc, srqn_rmpn_xrqn),
			       FW_SYND_QP_BAD_SRQN, &t->srq);
	if (!s && (g & FW_QPF_CQN_RCV)) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_CQ,
				   PRM_GET(qpc, qpc, cqn_rcv),
				   FW_SYND_QP_BAD_CQN, &obj);
		if (!s)
			t->cq_rcv = emu_fw_to_cq(obj);
	}
	if (s)
		fw_qp_take_drop(t);
	return s;
}

/* Engine-side progress a reset forgets. */
static void fw_qp_reset_counters(struct emu_fw_qp *qp)
{
	atomic_store(&qp->hw.sq_wqebb_counter, 0);
	atomic_store(&qp->hw.rq_counter, 0);
	atomic_store(&qp->hw.sq_psn, 0);
	atomic_store(&qp->hw.rq_psn, 0);
	PRM_SET(qpc, qp->ctx, hw_sq_wqebb_counter, 0);
	PRM_SET(qpc, qp->ctx, sw_sq_wqebb_counter, 0);
	PRM_SET(qpc, qp->ctx, hw_rq_counter, 0);
	PRM_SET(qpc, qp->ctx, sw_rq_counter, 0);
	PRM_SET(qpc, qp->ctx, last_acked_psn, 0);
	PRM_SET(qpc, qp->ctx, ssn, 0);
	PRM_SET(qpc, qp->ctx, rmsn, 0);
	PRM_SET(qpc, qp->ctx, cur_rnr_retry, 0);
	PRM_SET(qpc, qp->ctx, cur_retry_count, 0);
}

static void fw_qp_set_state_locked(struct emu_fw_qp *qp, unsigned int st)
{
	atomic_store_explicit(&qp->state, st, memory_order_release);
	atomic_fetch_add_explicit(&qp->gen, 1, memory_order_release);
}

enum fw_synd fw_cmd_modify_qp(struct fw_cmd *cmd)
{
	int tr = fw_qp_tr_of_opcode(cmd->opcode);
	const struct fw_qp_transition *t = fw_qp_transition(tr);
	uint32_t qpn = PRM_GET(rst2init_qp_in, cmd->in, qpn);
	const void *qpc = PRM_ADDR_OF(rst2init_qp_in, cmd->in, qpc);
	enum fw_synd invalid, s;
	struct fw_qp_take take;
	enum fw_qp_class cls;
	uint32_t opt, g;
	uint64_t ext = 0;
	/* RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS, RTS2RTS carry an ece. */
	bool has_ece = tr >= FW_TR_RST2INIT && tr <= FW_TR_RTS2RTS;
	struct emu_fw_qp *qp = NULL;

	if (!t)
		return FW_SYND_BAD_OPCODE;
	invalid = t->has_qpc ? FW_SYND_QP_INVALID : FW_SYND_QP_INVALID_QPN;
	s = fw_qp_own(cmd, qpn, EMU_FW_QP_KIND_QP, invalid, &qp);
	if (s)
		return s;
	pthread_mutex_lock(&qp->lock);
	if (fw_qp_dying(qp)) {
		s = invalid;
		goto out;
	}
	if (!(t->from & (1u << emu_fw_qp_state(qp)))) {
		s = FW_SYND_QP_BAD_STATE_TRANSITION;
		goto out;
	}
	if (t->has_qpc) {
		cls = fw_qp_class_of(qp);
		opt = PRM_GET(rst2init_qp_in, cmd->in, opt_param_mask);
		if (tr == FW_TR_RTS2RTS &&
		    cmd->inlen >= PRM_BYTE_OFF(rts2rts_qp_in,
					       opt_param_mask_95_32) + 8)
			ext = PRM_GET64(rts2rts_qp_in, cmd->in,
					opt_param_mask_95_32);
		if ((opt & ~fw_qp_opt_allowed(cmd->fw, (enum fw_qp_tr)tr, cls)) ||
		    (ext & ~fw_qp_opt_ext_allowed(cmd->fw, (enum fw_qp_tr)tr,
						  cls))) {
			s = FW_SYND_QP_BAD_OPT_PARAM;
			goto out;
		}
		g = fw_qp_required((enum fw_qp_tr)tr, cls, qpc) |
		    fw_qp_opt_groups(opt) | fw_qp_opt_ext_groups(ext);
		s = fw_qp_check_groups(cmd, qp, g, qpc);
		if (s)
			goto out;
		s = fw_qp_take(cmd, g, qpc, &take);
		if (s)
			goto out;
		/* Commit. */
		fw_qp_copy_groups(qp->ctx, qpc, g);
		if (g & FW_QPF_COUNTER)
			FW_USE_SWAP(&qp->counter, take.counter);
		if (g & FW_QPF_SRQN)
			FW_USE_SWAP(&qp->srq, take.srq);
		if (g & FW_QPF_CQN_RCV)
			FW_USE_SWAP(&qp->cq_rcv, take.cq_rcv);
		fw_qp_attr_from_qpc(&qp->attr, qp->ctx);
		/* The PSNs a transition sets start the engine's. */
		if (g & FW_QPF_SQ_PSN)
			atomic_store(&qp->hw.sq_psn, qp->attr.next_send_psn);
		if (g & FW_QPF_RQ_PSN)
			atomic_store(&qp->hw.rq_psn, qp->attr.next_rcv_psn);
		if (has_ece && PRM_GET(rst2init_qp_in, cmd->in, ece))
			qp->ece = fw_qp_ece(cmd->fw, PRM_GET(rst2init_qp_in,
							     cmd->in, ece));
	}
	if (has_ece)
		PRM_SET(rst2init_qp_out, cmd->out, ece, qp->ece);
	if (t->to == MLX5_QPC_STATE_RST)
		fw_qp_reset_counters(qp);
	fw_qp_set_state_locked(qp, t->to);
out:
	pthread_mutex_unlock(&qp->lock);
	if (!s)
		fw_engine_qp_changed(qp);
	emu_fw_obj_put(&qp->obj);
	return s;
}

int emu_fw_qp_set_state(struct emu_fw_qp *qp, unsigned int to)
{
	enum fw_qp_class cls;
	unsigned int cur;
	bool ok = false;

	if (!qp || qp->kind != EMU_FW_QP_KIND_QP)
		return -EINVAL;
	cls = fw_qp_class_of(qp);
	pthread_mutex_lock(&qp->lock);
	cur = emu_fw_qp_state(qp);
	switch (to) {
	case MLX5_QPC_STATE_ERR:
		ok = cur != MLX5_QPC_STATE_RST;
		break;
	case MLX5_QPC_STATE_SQER:
		/* IBA: every type but the reliable ones has SQE. */
		ok = cur == MLX5_QPC_STATE_RTS &&
		     (cls == FW_QPCL_UD || cls == FW_QPCL_UC);
		break;
	case MLX5_QPC_STATE_SQD:
		ok = cur == MLX5_QPC_STATE_RTS || cur == MLX5_QPC_STATE_SQD;
		break;
	default:
		break;
	}
	if (ok && !fw_qp_dying(qp))
		fw_qp_set_state_locked(qp, to);
	pthread_mutex_unlock(&qp->lock);
	return ok ? 0 : -EINVAL;
}
