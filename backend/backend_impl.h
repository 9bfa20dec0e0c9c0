/* SPDX-License-Identifier: MIT */
/*
 * What backend.c binds together, beside the interface itself (backend.h):
 * the implementations, the settings that choose one, and the command hooks
 * (fault injection, the command trace) for an implementation below which
 * they cannot be interposed.  The provider never includes this header: it
 * reaches a device through mlx5be_get() alone.
 *
 * Where the settings come from: the project has one settings table
 * (emu/device: defaults, the config file, the environment, one validator
 * and one message per setting, `mlx5emu info`).  The selection asks the emu
 * implementation, which is always linked, to read it (mlx5be_emu_settings)
 * instead of parsing the same file and variables a second time; backend/
 * thereby includes nothing of emu/.
 *
 * Where commands are interposed: as low as each implementation allows, and
 * once.  The emulator interposes at its firmware (the kernel layer's own
 * commands and the stamped uid are seen there); for hw the firmware is the
 * NIC's, so the filter (backend/filter/) interposes above the backend.  Both
 * run one engine, emu/fault's rule set and emu/trace's sink, through
 * mlx5be_emu_cmd_hooks: the same rules, counters, public API, trace format
 * and sequence numbers in both modes.
 */
#ifndef MLX5EMU_BACKEND_BACKEND_IMPL_H
#define MLX5EMU_BACKEND_BACKEND_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "backend/backend.h"

/* ---- the implementations; only backend.c and the tests name them ---- */

extern const struct mlx5be_ops mlx5be_emu_ops;	/* emu/kernel/kern_backend.c */
extern const struct mlx5be_ops mlx5be_hw_ops;	/* backend/hw/ */
struct manabe_ops;
extern const struct manabe_ops manabe_emu_ops;	/* emu/mana/kern/ */

/*
 * Loads rdma-core (the system's; with @libdir, the libibverbs.so.1 and
 * libmlx5.so.1 of that directory: a test hook) into a namespace of its
 * own, once per process; later calls return the first result.  With
 * @report, every problem of the hw backend (this load, no device, devices
 * it cannot drive) is told on stderr, once.  0, or a negative errno; the
 * hw ops then list no device.
 */
int mlx5be_hw_load(const char *libdir, bool report);

/* ---- the selection's settings ---- */

enum mlx5be_kind {
	MLX5BE_KIND_EMU,	/* emulated devices */
	MLX5BE_KIND_HW,		/* real ConnectX devices through rdma-core */
	MLX5BE_KIND_AUTO,	/* real ones when there are, else emulated */
};

#define MLX5BE_LIBDIR_MAX 1024

struct mlx5be_settings {
	enum mlx5be_kind kind;			/* backend.kind */
	char hw_libdir[MLX5BE_LIBDIR_MAX];	/* backend.hw_libdir; "" system */
};

/*
 * The backend settings from the project's settings table.  0, or -EINVAL
 * when the configuration is bad (the emulator's device initialisation
 * reports it; the selection then stays with emu).
 */
int mlx5be_emu_settings(struct mlx5be_settings *s);	/* emu/kernel */

/* ---- command hooks ---- */

struct mlx5be_cmd_hooks {
	/* Reads the configured rules and trace settings; once, when bound. */
	void (*start)(void);
	/* Whether a command needs pre_cmd/post_cmd now (rules or a trace). */
	bool (*active)(void);
	/*
	 * Before a command reaches device @dev (its index): true fails it
	 * with *status and *syndrome (a delay rule has slept already).
	 */
	bool (*pre_cmd)(int dev, const void *in, size_t inlen, uint8_t *status,
			uint32_t *syndrome);
	/*
	 * After it, the trace line of device @dev_name.  @out is the outbox
	 * DEVX gave back; NULL when the call failed with errno @err and no
	 * outbox (the kernel refused it, or a destroy failed).
	 */
	void (*post_cmd)(const char *dev_name, const void *in, size_t inlen,
			 const void *out, size_t outlen, int err,
			 uint64_t duration_ns, bool injected);
	/*
	 * The destroy command the kernel derives from a create and runs on
	 * obj_destroy (devx_obj_build_destroy_cmd): its inbox in @in
	 * (@inmax bytes) and lengths.  0, or -EINVAL when there is none.
	 */
	int (*destroy_cmd)(const void *create_in, const void *create_out,
			   void *in, size_t inmax, size_t *inlen,
			   size_t *outlen);
	/* The errno the kernel's mlx5_cmd_exec gives for a failed status. */
	int (*status_errno)(uint8_t status);
	/* The data-path rules on a completion of device @dev (index), for
	 * mlx5be_ops.dp_verdict. */
	bool (*dp_verdict)(int dev, const struct mlx5be_dp_cqe *c,
			   uint8_t *syndrome, uint8_t *vendor);
};

/* emu/fault's rule set and emu/trace's sink (emu/kernel/kern_hooks.c). */
extern const struct mlx5be_cmd_hooks mlx5be_emu_cmd_hooks;

/* ---- the filter (backend/filter/) ---- */

/*
 * The ops of @impl with @hooks interposed on every command (general,
 * create, modify, query, async query, destroy).  One filter per process;
 * the first call binds it.
 */
const struct mlx5be_ops *mlx5be_filter_bind(const struct mlx5be_ops *impl,
					    const struct mlx5be_cmd_hooks *hooks);

/*
 * capable(CAP_NET_RAW) as uverbs asks it of the calling process: its
 * effective set.  Both implementations' net_raw_check start here.
 */
static inline bool mlx5be_proc_net_raw(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return (data[CAP_NET_RAW / 32].effective & (1u << (CAP_NET_RAW % 32))) != 0;
}

#endif /* MLX5EMU_BACKEND_BACKEND_IMPL_H */
