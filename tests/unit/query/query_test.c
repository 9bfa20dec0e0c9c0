/* SPDX-License-Identifier: MIT */
/* Shared helpers of the query tests (see query_test.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_test.h"

/* Exported by libibverbs, declared only in its (uninstalled) driver.h. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

int qt_query_cap_page(struct ibv_context *ctx, unsigned int type, void *page)
{
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	int ret;

	ck_assert_ptr_nonnull(out);
	ret = ut_query_hca_cap(ctx, type, out);
	if (!ret)
		memcpy(page, PRM_ADDR_OF(query_hca_cap_out, out, capability),
		       QT_PAGE_BYTES);
	free(out);
	return ret;
}

void qt_read_caps(struct ibv_context *ctx, struct qt_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_GENERAL, caps->gen), 0);
	if (QT_GEN(caps, eth_net_offloads))
		ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_ETHERNET_OFFLOADS,
						   caps->eth), 0);
	if (QT_GEN(caps, roce))
		ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_ROCE, caps->roce), 0);
	if (QT_GEN(caps, atomic))
		ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_ATOMIC,
						   caps->atomic), 0);
	if (QT_GEN(caps, pg))
		ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_ODP, caps->odp), 0);
}

void qt_nic_vport_guids(struct ibv_context *ctx, uint64_t *node_guid,
			uint64_t *sys_image_guid)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_nic_vport_context_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_nic_vport_context_out));

	ck_assert_ptr_nonnull(out);
	PRM_SET(query_nic_vport_context_in, in, opcode,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
			 PRM_ST_SZ_BYTES(query_nic_vport_context_out)), 0);
	*node_guid = PRM_GET64(query_nic_vport_context_out, out,
			       nic_vport_context.node_guid);
	*sys_image_guid = PRM_GET64(query_nic_vport_context_out, out,
				    nic_vport_context.system_image_guid);
	free(out);
}

uint32_t qt_ieee_vendor_id(struct ibv_context *ctx)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_adapter_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_adapter_out));
	uint32_t v;

	ck_assert_ptr_nonnull(out);
	PRM_SET(query_adapter_in, in, opcode, MLX5_CMD_OP_QUERY_ADAPTER);
	ck_assert_int_eq(mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
			 PRM_ST_SZ_BYTES(query_adapter_out)), 0);
	v = PRM_GET(query_adapter_out, out, query_adapter_struct.ieee_vendor_id);
	free(out);
	return v;
}

unsigned int qt_num_ports(const struct qt_caps *caps)
{
	unsigned int n = QT_GEN(caps, num_ports);
	unsigned int v = QT_GEN(caps, num_vhca_ports);

	return n > v ? n : v;
}

int qt_read_ibdev(struct ibv_context *ctx, const char *file, char *buf, size_t len)
{
	return ibv_read_sysfs_file(ctx->device->ibdev_path, file, buf, len);
}

uint32_t qt_odp_bits(const struct qt_caps *caps, unsigned int off)
{
	uint8_t b = caps->odp[off / 8];
	uint32_t v = 0;

	for (unsigned int k = 0; k < 6; k++)
		if (b & (0x80u >> k))
			v |= 1u << k;
	return v;
}
