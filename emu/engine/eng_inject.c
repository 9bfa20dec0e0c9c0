/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_inject.c -- events on demand: what fault injection asks
 * the device to suffer now (emu_eng_inject).
 *
 *   QP_FATAL      WQ_CATAS_ERROR on the QP, which then moves to ERR
 *                 (flushing; SRQ_LAST_WQE if it is on an SRQ), as a
 *                 local work queue catastrophic error does (IBA 11.6.3.1)
 *   CQ_OVERRUN    the CQ overruns: its error state and CQ_ERROR (eng_cq.c)
 *   SRQ_LIMIT     SRQ_RQ_LIMIT, the limit disarmed as when it is crossed
 *   DEVICE_FATAL  the device stops: no WQE executes, no CQE or EQE is
 *                 written, packets to it are lost (the kernel layer tells
 *                 its users, as mlx5's health poller finds such an error)
 */
#include <errno.h>

#include "emu/engine/eng_int.h"

static int eng_inject_qp_fatal(struct eng_dev *dev, uint32_t qpn)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_QP, qpn);
	struct emu_fw_qp *fq;
	struct eng_qp *qp;

	if (!obj)
		return -ENOENT;
	fq = emu_fw_to_qp(obj);
	if (fq->kind != EMU_FW_QP_KIND_QP ||
	    emu_fw_qp_state(fq) == MLX5_QPC_STATE_RST)
		return -EINVAL;
	eng_event_queue(dev, MLX5_EVENT_TYPE_WQ_CATAS_ERROR, fq->obj.id);
	qp = eng_qp_of(fq);
	if (qp)
		eng_qp_to_err(qp);
	else
		emu_fw_qp_set_state(fq, MLX5_QPC_STATE_ERR);
	return 0;
}

static int eng_inject_cq_overrun(struct eng_dev *dev, uint32_t cqn)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_CQ, cqn);

	if (!obj)
		return -ENOENT;
	if (atomic_load(&emu_fw_to_cq(obj)->hw.error))
		return -EINVAL;
	eng_cq_overrun(emu_fw_to_cq(obj));
	return 0;
}

static int eng_inject_srq_limit(struct eng_dev *dev, uint32_t srqn)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_SRQ, srqn);
	struct emu_fw_srq *srq;

	if (!obj)
		return -ENOENT;
	srq = emu_fw_to_srq(obj);
	atomic_store(&srq->lwm, 0);
	eng_event_queue(dev, MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, srq->obj.id);
	return 0;
}

int emu_eng_inject(struct emu_fw *fw, enum emu_eng_inject what, uint32_t id)
{
	struct eng *e = &eng_g;
	struct eng_dev *dev;
	int ret;

	pthread_mutex_lock(&e->run);
	dev = eng_dev_of(fw);
	if (!dev) {
		ret = -ENODEV;
	} else if (dev->fatal) {
		ret = what == EMU_ENG_INJECT_DEVICE_FATAL ? 0 : -ENODEV;
	} else {
		emu_fw_rcu_lock();
		switch (what) {
		case EMU_ENG_INJECT_QP_FATAL:
			ret = eng_inject_qp_fatal(dev, id);
			break;
		case EMU_ENG_INJECT_CQ_OVERRUN:
			ret = eng_inject_cq_overrun(dev, id);
			break;
		case EMU_ENG_INJECT_SRQ_LIMIT:
			ret = eng_inject_srq_limit(dev, id);
			break;
		case EMU_ENG_INJECT_DEVICE_FATAL:
			dev->fatal = true;
			ret = 0;
			break;
		default:
			ret = -EINVAL;
			break;
		}
		emu_fw_rcu_unlock();
	}
	pthread_mutex_unlock(&e->run);
	/* A QP moved to ERR flushes at the next pass: run one. */
	emu_eng_progress(EMU_ENG_WHY_DOORBELL);
	return ret;
}
