/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_engine.c -- what the firmware tells the engine: a QP
 * changed state or is going, an object is about to be released.
 *
 * Commands call these with no firmware lock held, so the engine may take
 * its run lock here while its passes take QP locks under that run lock (the
 * one lock order: run lock, then QP lock).  A port's link changing and a
 * CQ's creation are told the same way: the engine raises the device's
 * PORT_CHANGE event, and watches the CQ's arm requests.
 */
#include "emu/firmware/fw_int.h"

void emu_fw_set_engine(struct emu_fw *fw, const struct emu_fw_engine_ops *ops)
{
	atomic_store_explicit(&fw->engine, ops, memory_order_release);
}

void fw_engine_qp_changed(struct emu_fw_qp *qp)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&qp->obj.fw->engine, memory_order_acquire);

	if (ops && ops->qp_changed)
		ops->qp_changed(ops->arg, qp);
}

void fw_engine_sync(struct emu_fw *fw)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&fw->engine, memory_order_acquire);

	if (ops && ops->sync)
		ops->sync(ops->arg);
}

void fw_engine_run_locked(struct emu_fw *fw, void (*fn)(void *), void *fnarg)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&fw->engine, memory_order_acquire);

	if (ops && ops->run_locked)
		ops->run_locked(ops->arg, fn, fnarg);
	else
		fn(fnarg);	/* no engine: nothing writes the ring */
}

void fw_engine_port_changed(struct emu_fw *fw, unsigned int port, bool up)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&fw->engine, memory_order_acquire);

	if (ops && ops->port_changed)
		ops->port_changed(ops->arg, port, up);
}

void fw_engine_cq_created(struct emu_fw_cq *cq)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&cq->obj.fw->engine, memory_order_acquire);

	if (ops && ops->cq_created)
		ops->cq_created(ops->arg, cq);
}

/* ---- Ethernet queues ---- */

void fw_engine_sq_changed(struct emu_fw_sq *sq)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&sq->obj.fw->engine, memory_order_acquire);

	if (ops && ops->sq_changed)
		ops->sq_changed(ops->arg, sq);
}

void fw_engine_rq_changed(struct emu_fw_rq *rq)
{
	const struct emu_fw_engine_ops *ops =
		atomic_load_explicit(&rq->obj.fw->engine, memory_order_acquire);

	if (ops && ops->rq_changed)
		ops->rq_changed(ops->arg, rq);
}
