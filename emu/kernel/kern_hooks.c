/* SPDX-License-Identifier: MIT */
/*
 * The command hooks the filter (backend/filter) runs for an implementation
 * whose firmware is not ours (backend/backend_impl.h): emu/fault's rule
 * set and emu/trace's sink, with the kernel's destroy derivation and errno
 * mapping.  The emulated devices themselves never pass through these
 * hooks: their firmware calls the same engine (kern_dev.c attaches it).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "emu/fault/fault.h"
#include "emu/kernel/kern.h"
#include "emu/trace/trace.h"

static void kern_hooks_start(void)
{
	emu_fault_start();
	emu_trace_start();
}

static bool kern_hooks_active(void)
{
	return emu_fault_any() || emu_trace_enabled();
}

static bool kern_hooks_pre_cmd(int dev, const void *in, size_t inlen,
			       uint8_t *status, uint32_t *syndrome)
{
	if (inlen < KERN_DEVX_CMD_IN_MIN)
		return false;
	return emu_fault_pre_cmd((void *)(intptr_t)dev, in, inlen,
				 kern_mbox_opcode(in), kern_mbox_op_mod(in),
				 kern_mbox_uid(in), status, syndrome);
}

static void kern_hooks_post_cmd(const char *dev, const void *in, size_t inlen,
				const void *out, size_t outlen, int err,
				uint64_t duration_ns, bool injected)
{
	emu_trace_command(dev, in, inlen, out, outlen, err, duration_ns,
			  injected);
}

static int kern_hooks_destroy_cmd(const void *create_in, const void *create_out,
				  void *in, size_t inmax, size_t *inlen,
				  size_t *outlen)
{
	uint8_t buf[KERN_DEVX_DESTROY_INBOX_MAX];
	int ret = kern_devx_build_destroy(create_in, create_out, buf, inlen,
					  outlen);

	if (ret)
		return ret;
	if (*inlen > inmax)
		return -EINVAL;
	memcpy(in, buf, *inlen);
	return 0;
}

static int kern_hooks_status_errno(uint8_t status)
{
	return -kern_status_to_errno(status);
}

static bool kern_hooks_dp_verdict(int dev, const struct mlx5be_dp_cqe *c,
				  uint8_t *syndrome, uint8_t *vendor)
{
	struct emu_fault_wqe w = {
		.dev = dev, .qpn = c->qpn, .rq = c->rq, .opcode = c->opcode,
		.completed = true,
	};
	struct emu_fault_dp_verdict v;

	if (!emu_fault_dp_active() || !emu_fault_dp_verdict(&w, &v) ||
	    !v.error)
		return false;
	*syndrome = v.syndrome;
	*vendor = (uint8_t)v.vendor;
	return true;
}

const struct mlx5be_cmd_hooks mlx5be_emu_cmd_hooks = {
	.start = kern_hooks_start,
	.active = kern_hooks_active,
	.pre_cmd = kern_hooks_pre_cmd,
	.post_cmd = kern_hooks_post_cmd,
	.destroy_cmd = kern_hooks_destroy_cmd,
	.status_errno = kern_hooks_status_errno,
	.dp_verdict = kern_hooks_dp_verdict,
};
