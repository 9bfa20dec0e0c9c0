/* SPDX-License-Identifier: MIT */
/*
 * Fork support, as rdma-core 44 (libibverbs/memory.c) answers on a kernel
 * with copy-on-fork for pinned pages: nothing to initialise, and
 * ibv_is_fork_initialized() says IBV_FORK_UNNEEDED.  That is true here as
 * well: the device model reaches registered memory in-process, so a child
 * never shares DMA-visible pages with its parent behind its back.
 */
#include <stddef.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/rdma_private.h"

MLX5EMU_ABI(ibv_fork_init);
int mlx5emu_abi_ibv_fork_init(void)
{
	/* memory.c: ibv_is_fork_initialized() == IBV_FORK_UNNEEDED -> 0. */
	return 0;
}

MLX5EMU_ABI(ibv_is_fork_initialized);
enum ibv_fork_status mlx5emu_abi_ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

/* Without fork tracking (mm_root NULL) libibverbs returns 0 for both. */
MLX5EMU_ABI(ibv_dontfork_range);
int mlx5emu_abi_ibv_dontfork_range(void *base, size_t size)
{
	return 0;
}

MLX5EMU_ABI(ibv_dofork_range);
int mlx5emu_abi_ibv_dofork_range(void *base, size_t size)
{
	return 0;
}
