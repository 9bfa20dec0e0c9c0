/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the query tests.  The tests are ordinary rdma-core
 * programs linked against the drop-in libibverbs.so.1/libmlx5.so.1.  They
 * read the device's capability pages (and the NIC vport context and adapter
 * data) themselves through mlx5dv_devx_general_cmd, as an application or
 * pyverbs would, and recompute every attribute the way the kernel's mlx5_ib
 * and libmlx5 44 derive it, to compare with what the verbs report.
 */
#ifndef MLX5EMU_TESTS_UNIT_QUERY_QUERY_TEST_H
#define MLX5EMU_TESTS_UNIT_QUERY_QUERY_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "ut_dropin.h"

#define QT_PAGE_BYTES PRM_ST_SZ_BYTES(hca_cap_union)

/* The pages the tests recompute from (zeroes when not advertised). */
struct qt_caps {
	uint8_t gen[QT_PAGE_BYTES];
	uint8_t eth[QT_PAGE_BYTES];
	uint8_t roce[QT_PAGE_BYTES];
	uint8_t atomic[QT_PAGE_BYTES];
	uint8_t odp[QT_PAGE_BYTES];
};

#define QT_GEN(c, fld) PRM_GET(cmd_hca_cap, (c)->gen, fld)
#define QT_ETH(c, fld) PRM_GET(per_protocol_networking_offload_caps, (c)->eth, fld)
#define QT_ROCE(c, fld) PRM_GET(roce_cap, (c)->roce, fld)
#define QT_ATOMIC(c, fld) PRM_GET(atomic_caps, (c)->atomic, fld)

/* Opens mlx5_0 (with MLX5DV_CONTEXT_FLAGS_DEVX if @devx); asserts. */
static inline struct ibv_context *qt_open(bool devx)
{
	return ut_open(devx);
}

/* QUERY_HCA_CAP (type, current) through DEVX into @page; the errno. */
int qt_query_cap_page(struct ibv_context *ctx, unsigned int type, void *page);

/* The general page and, gated as the kernel reads them, the others. */
void qt_read_caps(struct ibv_context *ctx, struct qt_caps *caps);

/* QUERY_NIC_VPORT_CONTEXT's GUIDs (host order) and QUERY_ADAPTER's vendor. */
void qt_nic_vport_guids(struct ibv_context *ctx, uint64_t *node_guid,
			uint64_t *sys_image_guid);
uint32_t qt_ieee_vendor_id(struct ibv_context *ctx);

/* The number of ports the kernel gives the device. */
unsigned int qt_num_ports(const struct qt_caps *caps);

/* The IBV_ODP_SUPPORT_* bits of the ODP page's transport dword at bit @off
 * (0x80 RC, 0xa0 UC, 0xc0 UD, 0xe0 XRC, 0x100 DC): send, receive, write,
 * read, atomic, srq_receive from its top bit down. */
uint32_t qt_odp_bits(const struct qt_caps *caps, unsigned int off);

/* A file of the device's sysfs-like tree, or -1. */
int qt_read_ibdev(struct ibv_context *ctx, const char *file, char *buf, size_t len);

#endif /* MLX5EMU_TESTS_UNIT_QUERY_QUERY_TEST_H */
