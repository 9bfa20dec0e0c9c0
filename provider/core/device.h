/* SPDX-License-Identifier: MIT */
/* The provider's device object (one per emulated or real device). */
#ifndef MLX5EMU_PROVIDER_CORE_DEVICE_H
#define MLX5EMU_PROVIDER_CORE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct prov_device {
	struct ibv_device ibdev;
	int be_index;		/* index in the backend's enumeration */
	bool mana;		/* a MANA device (backend/mana.h's list) */
	__be64 node_guid;
};

static inline struct prov_device *to_prov_device(struct ibv_device *ibdev)
{
	return (struct prov_device *)((char *)ibdev -
				      offsetof(struct prov_device, ibdev));
}

/* Whether @context is a MANA device's (provider/mana serves those). */
static inline bool prov_device_mana_ctx(const struct ibv_context *context)
{
	return context && to_prov_device(context->device)->mana;
}

/* The mlx5 device the backend enumerates at @index (scanning if needed). */
struct prov_device *prov_device_by_index(int index);

#endif /* MLX5EMU_PROVIDER_CORE_DEVICE_H */
