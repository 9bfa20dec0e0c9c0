/* SPDX-License-Identifier: MIT */
/* fork(): the child's inherited contexts (fork.c). */
#ifndef MLX5EMU_PROVIDER_VERBS_FORK_H
#define MLX5EMU_PROVIDER_VERBS_FORK_H

/* Registers the fork handler, once (the first context does). */
void prov_fork_handlers_init(void);

#endif /* MLX5EMU_PROVIDER_VERBS_FORK_H */
