/* SPDX-License-Identifier: MIT */
/*
 * Events on demand, and a device after a fatal error.
 *
 * Fault rules of the event kinds (emu/fault) are carried out here, on the
 * device a rule names: a port's link down or up (the device raises
 * PORT_CHANGE, mlx5_ib reports PORT_ERR / PORT_ACTIVE to verbs users); a
 * fatal device error; a CQ overrun, a QP's catastrophic error, an SRQ's
 * limit (the engine raises them, emu_eng_inject).
 *
 * A fatal error is what mlx5_core's health poller finds: the device stops
 * (nothing executes or completes), every ucontext gets DEVICE_FATAL, and
 * from then on commands answer as mlx5_cmd_exec() does in the internal
 * error state (mlx5_internal_err_ret_value): destroys and deallocations
 * succeed (what they release is released), every other command fails with
 * EIO, its outbox status MLX5_DRIVER_STATUS_ABORTED and syndrome
 * MLX5_DRIVER_SYND.  The device stays so until the process ends.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/engine/eng.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_DRIVER_STATUS_ABORTED 0xfe	/* MLX5_DRIVER_STATUS_ABORTED */
#define KERN_DRIVER_SYND 0xbadd00de		/* MLX5_DRIVER_SYND */

int kern_fatal_exec(struct kern_dev *kdev, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	struct emu_fw_cmd_info info;
	int ret;

	if (inlen >= 8 && outlen >= 8 &&
	    !emu_fw_cmd_info(kern_mbox_opcode(in), &info) &&
	    info.cls == EMU_FW_CMD_DESTROY) {
		ret = emu_fw_cmd_exec(kdev->fw, in, inlen, out, outlen);
		if (!ret)
			memset(out, 0, 8);	/* status OK, syndrome 0 */
		return ret;
	}
	if (outlen >= 8) {
		memset(out, 0, outlen);
		PRM_SET(mbox_out, out, status, KERN_DRIVER_STATUS_ABORTED);
		PRM_SET(mbox_out, out, syndrome, KERN_DRIVER_SYND);
	}
	return -EIO;
}

static int kern_dev_fatal(struct kern_dev *kdev)
{
	if (__atomic_exchange_n(&kdev->fatal, true, __ATOMIC_ACQ_REL))
		return 0;
	emu_eng_inject(kdev->fw, EMU_ENG_INJECT_DEVICE_FATAL, 0);
	kern_ibev_post_dev(kdev, IBV_EVENT_DEVICE_FATAL, 0);
	return 0;
}

static int kern_inject(int dev, uint32_t action, uint32_t port, uint32_t id)
{
	struct kern_dev *kdev = kern_dev_find(dev);

	if (!kdev)
		return -ENODEV;
	switch (action) {
	case MLX5EMU_FAULT_PORT_DOWN:
	case MLX5EMU_FAULT_PORT_UP:
		return emu_fw_port_set_link(kdev->fw, port ? port : 1,
					    action == MLX5EMU_FAULT_PORT_UP);
	case MLX5EMU_FAULT_DEVICE_FATAL:
		return kern_dev_fatal(kdev);
	case MLX5EMU_FAULT_CQ_OVERRUN:
		return emu_eng_inject(kdev->fw, EMU_ENG_INJECT_CQ_OVERRUN, id);
	case MLX5EMU_FAULT_QP_FATAL:
		return emu_eng_inject(kdev->fw, EMU_ENG_INJECT_QP_FATAL, id);
	case MLX5EMU_FAULT_SRQ_LIMIT:
		return emu_eng_inject(kdev->fw, EMU_ENG_INJECT_SRQ_LIMIT, id);
	default:
		return -EINVAL;
	}
}

void kern_inject_register(void)
{
	emu_fault_set_event_fn(kern_inject);
}
