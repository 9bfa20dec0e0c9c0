/* SPDX-License-Identifier: MIT */
/*
 * rdma-core symbols the provider defines or calls that no installed public
 * header declares: libibverbs exports them, but declares them only in its
 * uninstalled headers (driver.h, the sysfs GID type).
 */
#ifndef MLX5EMU_PROVIDER_RDMA_PRIVATE_H
#define MLX5EMU_PROVIDER_RDMA_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

struct ibv_context;
union ibv_gid;

enum ibv_gid_type_sysfs_emu {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs_emu *type);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#endif /* MLX5EMU_PROVIDER_RDMA_PRIVATE_H */
