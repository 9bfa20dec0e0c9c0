/* SPDX-License-Identifier: MIT */
/*
 * GID and P_Key queries, as rdma-core 44 answers them over a kernel with the
 * QUERY_GID_ENTRY/QUERY_GID_TABLE ioctl methods (libibverbs cmd_device.c,
 * verbs.c) and the kernel's GID cache behind them (rdma_get_gid_attr,
 * rdma_query_gid_table): the entries come from the backend's GID service.
 *
 *   _ibv_query_gid_ex    0 or an errno: EINVAL for flags, entry_size,
 *                        port or index out of range; ENODATA for an
 *                        empty entry
 *   ibv_query_gid        0 (an empty entry reads as zeroes) or -1 + errno
 *   ibv_query_gid_type   0 (empty: RoCE v1 / IB) or -1 + errno
 *   _ibv_query_gid_table the number of valid entries or a negative errno
 *                        (-EINVAL when they do not fit)
 *   ibv_query_pkey       0 or -1 + errno, read from the device's
 *                        ports/N/pkeys/I file as libibverbs does
 *   ibv_get_pkey_index   the index or -1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "provider/rdma_private.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/query.h"
#include "provider/core/sysfs.h"
#include "provider/mana/mana_prov.h"

static bool gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, sizeof(zero));
}

/* The port's link layer and GID table size (the kernel's table->sz). */
static int port_gid_info(struct prov_context *pctx, uint32_t port_num,
			 uint8_t *link_layer, uint32_t *tbl_len)
{
	struct mlx5be_port_attr pa;
	int ret;

	ret = prov_port_attr(pctx, port_num, &pa);
	if (ret)
		return ret;
	*link_layer = pa.link_layer;
	*tbl_len = pa.gid_tbl_len > 0 ? (uint32_t)pa.gid_tbl_len : 0;
	return 0;
}

/* One entry, its port already checked; ENODATA for an empty one. */
static int read_gid_entry(struct prov_context *pctx, uint32_t port_num,
			  uint32_t index, uint8_t link_layer,
			  struct ibv_gid_entry *entry)
{
	struct mlx5be_gid_entry ge;
	int ret;

	memset(&ge, 0, sizeof(ge));
	ret = pctx->be->query_gid(pctx->bectx, port_num, index, &ge);
	if (ret)
		return -ret;
	if (gid_is_zero(ge.gid))
		return ENODATA;
	memset(entry, 0, sizeof(*entry));
	memcpy(entry->gid.raw, ge.gid, sizeof(entry->gid.raw));
	entry->gid_index = index;
	entry->port_num = port_num;
	if (ge.gid_type)
		entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	else
		entry->gid_type = link_layer == IBV_LINK_LAYER_ETHERNET ?
				  IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	entry->ndev_ifindex = ge.ndev_ifindex;
	return 0;
}

int prov_query_gid_entry(struct prov_context *pctx, uint32_t port_num,
			 uint32_t index, struct ibv_gid_entry *entry)
{
	uint8_t link_layer;
	uint32_t tbl_len;
	int ret;

	ret = port_gid_info(pctx, port_num, &link_layer, &tbl_len);
	if (ret)
		return ret;
	/* rdma_get_gid_attr(): an index past the table is EINVAL. */
	if (index >= tbl_len)
		return EINVAL;
	return read_gid_entry(pctx, port_num, index, link_layer, entry);
}

int prov_query_gid_entry_any(struct ibv_context *context, uint32_t port_num,
			     uint32_t index, struct ibv_gid_entry *entry)
{
	if (prov_mana_is(context))
		return prov_mana_query_gid(context, port_num, index);
	return prov_query_gid_entry(to_prov_context(context), port_num, index,
				    entry);
}

MLX5EMU_ABI(_ibv_query_gid_ex);
int mlx5emu_abi__ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
				  uint32_t gid_index, struct ibv_gid_entry *entry,
				  uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	/* The method's RESP_ENTRY is exactly a struct ib_uverbs_gid_entry. */
	if (entry_size != sizeof(struct ibv_gid_entry))
		return EINVAL;
	if (flags)
		return EINVAL;
	ret = prov_query_gid_entry_any(context, port_num, gid_index, &e);
	if (ret)
		return ret;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

MLX5EMU_ABI(ibv_query_gid);
int mlx5emu_abi_ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			      int index, union ibv_gid *gid)
{
	struct ibv_gid_entry entry;
	int ret;

	ret = prov_query_gid_entry_any(context, port_num, (uint32_t)index,
				       &entry);
	/* Preserved API behaviour: an empty GID reads as zeroes. */
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	memcpy(gid, &entry.gid, sizeof(*gid));
	return 0;
}

MLX5EMU_ABI(ibv_query_gid_type);
int mlx5emu_abi_ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				   unsigned int index,
				   enum ibv_gid_type_sysfs_emu *type)
{
	struct ibv_gid_entry entry;
	int ret;

	ret = prov_query_gid_entry_any(context, port_num, index, &entry);
	if (ret == ENODATA) {
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = entry.gid_type == IBV_GID_TYPE_ROCE_V2 ?
		IBV_GID_TYPE_SYSFS_ROCE_V2 : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

MLX5EMU_ABI(_ibv_query_gid_table);
ssize_t mlx5emu_abi__ibv_query_gid_table(struct ibv_context *context,
					 struct ibv_gid_entry *entries,
					 size_t max_entries, uint32_t flags,
					 size_t entry_size)
{
	struct prov_context *pctx;
	unsigned int num_ports;
	size_t num = 0;

	/* UVERBS_METHOD_QUERY_GID_TABLE's argument checks, in its order. */
	if (flags || !entry_size)
		return -EINVAL;
	if (!max_entries || max_entries > SIZE_MAX / entry_size)
		return -EINVAL;
	/* rdma_query_gid_table(): a MANA port has no GID (mana_ctx.c) */
	if (prov_mana_is(context))
		return 0;
	pctx = to_prov_context(context);
	num_ports = prov_caps_num_ports(pctx);
	for (uint32_t port = 1; port <= num_ports; port++) {
		uint8_t link_layer;
		uint32_t tbl_len;
		int ret = port_gid_info(pctx, port, &link_layer, &tbl_len);

		if (ret)
			return -ret;
		for (uint32_t i = 0; i < tbl_len; i++) {
			struct ibv_gid_entry e;
			uint8_t *dst;

			ret = read_gid_entry(pctx, port, i, link_layer, &e);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (num >= max_entries)
				return -EINVAL;
			dst = (uint8_t *)entries + num * entry_size;
			if (entry_size >= sizeof(e)) {
				memcpy(dst, &e, sizeof(e));
				memset(dst + sizeof(e), 0, entry_size - sizeof(e));
			} else {
				memcpy(dst, &e, entry_size);
			}
			num++;
		}
	}
	return (ssize_t)num;
}

MLX5EMU_ABI(ibv_query_pkey);
int mlx5emu_abi_ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			       int index, __be16 *pkey)
{
	char attr[8];
	uint16_t val;

	if (prov_read_ibdev_file(context->device, attr, sizeof(attr),
				 "ports/%d/pkeys/%d", port_num, index) < 0)
		return -1;
	if (sscanf(attr, "%hx", &val) != 1)
		return -1;
	*pkey = htobe16(val);
	return 0;
}

MLX5EMU_ABI(ibv_get_pkey_index);
int mlx5emu_abi_ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
				   __be16 pkey)
{
	__be16 pkey_i;
	int ret;

	for (int i = 0;; i++) {
		ret = mlx5emu_abi_ibv_query_pkey(context, port_num, i, &pkey_i);
		if (ret < 0)
			return ret;
		if (pkey == pkey_i)
			return i;
	}
}
