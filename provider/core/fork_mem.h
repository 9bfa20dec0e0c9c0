/* SPDX-License-Identifier: MIT */
/* Fork tracking of registered memory (fork_mem.c). */
#ifndef MLX5EMU_PROVIDER_CORE_FORK_MEM_H
#define MLX5EMU_PROVIDER_CORE_FORK_MEM_H

#include <stddef.h>

/* ibv_fork_init(): 0, EINVAL (too late), ENOSYS, ENOMEM. */
int prov_fork_init(void);
/* ibv_dontfork_range()/ibv_dofork_range(): 0, or -1 with errno. */
int prov_dontfork_range(void *base, size_t size);
int prov_dofork_range(void *base, size_t size);

#endif /* MLX5EMU_PROVIDER_CORE_FORK_MEM_H */
