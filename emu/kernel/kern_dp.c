/* SPDX-License-Identifier: MIT */
/*
 * The data path's hooks: the engine asks the fault rules about the work
 * requests it executes and hands the WQE/CQE records to the trace
 * (emu_eng_set_dp_hooks).  The engine calls them only while they are on:
 * faults while a data-path rule exists (emu/fault tells), the trace while
 * trace.datapath is (checked when a device comes up).
 */
#include <stdio.h>

#include "emu/engine/eng.h"
#include "emu/fault/fault.h"
#include "emu/kernel/kern.h"
#include "emu/trace/trace.h"

static bool kern_dp_verdict(void *arg, const struct emu_eng_wqe *w,
			    struct emu_eng_verdict *v)
{
	struct emu_fault_wqe f = {
		.dev = w->dev, .qpn = w->qpn, .rq = w->rq,
		.doorbell = w->doorbell, .cq_arm = w->cq_arm, .cqn = w->cqn,
		.opcode = w->opcode,
	};
	struct emu_fault_dp_verdict fv;

	(void)arg;
	if (!emu_fault_dp_verdict(&f, &fv))
		return false;
	v->error = fv.error;
	v->syndrome = fv.syndrome;
	v->vendor = (uint8_t)fv.vendor;	/* ConnectX rules: 8 bits */
	v->delay_us = fv.delay_us;
	v->drop = fv.drop;
	return true;
}

static void kern_dp_trace_wqe(void *arg, const struct emu_eng_wqe *w)
{
	struct emu_trace_sge sge[64];
	char dev[16];
	struct emu_trace_wqe t = {
		.dev = dev, .rq = w->rq, .qpn = w->qpn,
		.wqe_counter = w->wqe_counter, .opcode = w->opcode,
		.opmod = w->opmod, .ds = w->ds, .fm_ce_se = w->fm_ce_se,
		.imm = w->imm, .has_raddr = w->has_raddr,
		.raddr = w->raddr, .rkey = w->rkey, .srqn = w->srqn,
		.inl = w->inl, .byte_count = w->len, .sge = sge,
	};

	(void)arg;
	snprintf(dev, sizeof(dev), "mlx5_%d", w->dev);
	for (unsigned int i = 0; i < w->nsge && i < 64; i++, t.nsge++)
		sge[i] = (struct emu_trace_sge){ w->sge[i].len, w->sge[i].lkey,
						 w->sge[i].addr };
	emu_trace_wqe(&t);
}

static void kern_dp_trace_cqe(void *arg, const struct emu_eng_cqe *c)
{
	char dev[16];
	struct emu_trace_cqe t = {
		.dev = dev, .cqn = c->cqn, .index = c->index,
		.cqe64 = c->cqe64,
	};

	(void)arg;
	snprintf(dev, sizeof(dev), "mlx5_%d", c->dev);
	emu_trace_cqe(&t);
}

static const struct emu_eng_dp_hooks kern_dp_hooks = {
	.verdict = kern_dp_verdict,
	.trace_wqe = kern_dp_trace_wqe,
	.trace_cqe = kern_dp_trace_cqe,
};

static void kern_dp_faults(bool any)
{
	emu_eng_dp_enable(EMU_ENG_DP_FAULTS, any);
}

void kern_dp_register(void)
{
	emu_eng_set_dp_hooks(&kern_dp_hooks);
	emu_fault_set_dp_notify(kern_dp_faults);
}

void kern_dp_device_up(void)
{
	if (emu_trace_datapath())
		emu_eng_dp_enable(EMU_ENG_DP_TRACE, true);
}
