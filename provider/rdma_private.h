/* SPDX-License-Identifier: MIT */
/*
 * How the core defines an entry point of the drop-in ABI.
 *
 * Each exported name@version of the shells (provider/shell/NAME.syms) jumps to
 * mlx5emu_abi_<name> in this library.  Defining it through MLX5EMU_ABI()
 * gives it exactly the type rdma-core's public header declares for <name>,
 * so a wrong signature fails to compile, and makes it visible to the shells.
 * Entries not defined this way fall back to the generated weak stubs that
 * fail as rdma-core does for a missing feature (shell/gen_shell.py).
 */
#ifndef MLX5EMU_PROVIDER_ABI_H
#define MLX5EMU_PROVIDER_ABI_H

#include <stddef.h>
#include <stdint.h>

#define MLX5EMU_ABI(name)                                                     \
	extern __typeof__(name) mlx5emu_abi_##name                             \
		__attribute__((visibility("default")))

/* rdma-core private symbols that no public header declares. */
struct ibv_context;
union ibv_gid;
enum ibv_gid_type_sysfs_emu {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs_emu *type);
/* Exported by libibverbs but declared only in its uninstalled driver.h. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#endif /* MLX5EMU_PROVIDER_ABI_H */
