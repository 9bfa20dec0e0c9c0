/* SPDX-License-Identifier: MIT */
/*
 * fork(): what a forked child finds, and rdma-core 44's fork support
 * (libibverbs/memory.c) as it answers on a kernel with copy-on-fork for
 * pinned pages.
 *
 * The child.  A backend whose device stays with the parent (the emulator:
 * the device model lives in the parent's memory) reports the child's
 * inherited contexts lost (ctx_lost).  Each then behaves as a context of
 * an mlx5 device after a fatal error: IBV_EVENT_DEVICE_FATAL (port 1, as
 * mlx5_ib reports it) waits on its async_fd, commands fail with EIO,
 * teardown succeeds, posts succeed and nothing completes.  The child
 * reads and writes none of the parent's descriptors: async_fd and the
 * completion channels get fresh ones under the same numbers (pending
 * completion events stay readable; the parent keeps its own).  A real
 * device (hw backend) is shared with the child through the kernel, and
 * nothing changes.
 *
 * Fork support.  "This kernel" is the one the device is emulated on: its
 * device reaches application memory in-process, never through pages
 * pinned at registration, so a child's copy-on-write can never take a
 * page away from the device behind the parent's back; that is what a
 * kernel with copy-on-fork guarantees (Linux 5.13 and later, which
 * reports RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK), so ibv_is_fork_initialized()
 * answers IBV_FORK_UNNEEDED whatever the host kernel.  (rdma-core 44 on a
 * host without the RDMA netlink, as in a container, says DISABLED, then
 * ENABLED after ibv_fork_init(): it cannot ask that kernel.)  As there,
 * the answer does not stop ibv_fork_init() and RDMAV_FORK_SAFE from
 * turning fork tracking on (provider/core/fork_mem.c): registered memory
 * and queue buffers are then not inherited by a child, which must not
 * touch them, as with rdma-core.
 */
#include <pthread.h>
#include <stddef.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/core/context.h"
#include "provider/core/fork_mem.h"
#include "provider/rdma_private.h"
#include "provider/verbs/async_event.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/fork.h"

static pthread_once_t prov_fork_once = PTHREAD_ONCE_INIT;

static void prov_fork_child_context(struct prov_context *pctx)
{
	if (!pctx->be->ctx_lost || !pctx->be->ctx_lost(pctx->bectx))
		return;
	prov_context_renew_async(pctx);
	prov_comp_channels_fork_child(pctx);
	prov_async_event_post(pctx, IBV_EVENT_DEVICE_FATAL, 1);
}

static void prov_fork_child(void)
{
	prov_context_for_each_forked(prov_fork_child_context);
}

static void prov_fork_register(void)
{
	pthread_atfork(NULL, NULL, prov_fork_child);
}

void prov_fork_handlers_init(void)
{
	pthread_once(&prov_fork_once, prov_fork_register);
}

MLX5EMU_ABI(ibv_fork_init);
int mlx5emu_abi_ibv_fork_init(void)
{
	return prov_fork_init();
}

MLX5EMU_ABI(ibv_is_fork_initialized);
enum ibv_fork_status mlx5emu_abi_ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

MLX5EMU_ABI(ibv_dontfork_range);
int mlx5emu_abi_ibv_dontfork_range(void *base, size_t size)
{
	return prov_dontfork_range(base, size);
}

MLX5EMU_ABI(ibv_dofork_range);
int mlx5emu_abi_ibv_dofork_range(void *base, size_t size)
{
	return prov_dofork_range(base, size);
}
