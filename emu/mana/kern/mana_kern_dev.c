/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/kern/mana_kern_dev.c -- the MANA devices as mana_ib shows them:
 * enumeration, contexts and their doorbell pages, the device and port
 * queries; the control-message and DMA-region helpers the object commands
 * use; and backend/mana.h's ops table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "emu/device/dev.h"
#include "emu/mana/kern/mana_kern.h"
#include "emu/mana/mana.h"
#include "emu/mem/mem.h"
#include "emu/trace/trace.h"
#include "prm/prm_le.h"

static pthread_mutex_t mk_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mana_kdev *mk_devs[EMU_MAX_MANA_DEVICES];

/* The firmware's control messages into the process's trace. */
static void mk_trace(void *arg, uint32_t type, const void *req, size_t req_len,
		     const void *resp, size_t resp_len)
{
	const struct mana_kdev *d = arg;

	emu_trace_mana_message(d->name, type, req, req_len, resp, resp_len);
}

/* The device behind mana_<index>, its firmware made on first use. */
static struct mana_kdev *mk_dev_get(int index, int *err)
{
	const struct emu_dev_identity *id;
	struct mana_fw_config cfg = { 0 };
	struct mana_kdev *d;

	*err = emu_devices_init();
	if (*err)
		return NULL;
	id = emu_mana_device_identity(index);
	if (!id) {
		*err = -ENODEV;
		return NULL;
	}
	pthread_mutex_lock(&mk_devs_lock);
	d = mk_devs[index];
	if (!d) {
		d = calloc(1, sizeof(*d));
		cfg.num_ports = id->num_ports;
		cfg.max_sq = cfg.max_rq = MK_MAX_QUEUES;
		for (int p = 0; p < id->num_ports; p++)
			memcpy(cfg.mac[p], id->ports[p].mac, 6);
		if (!d || mana_fw_create(&cfg, &d->fw)) {
			free(d);
			d = NULL;
			*err = -ENOMEM;
		} else if ((*err = mana_edev_create(id, d->fw, &d->edev))) {
			/* the firmware stays unused: a later open tries again */
			mana_fw_destroy(d->fw);
			free(d);
			d = NULL;
		} else {
			d->index = index;
			snprintf(d->name, sizeof(d->name), "%s", id->name);
			if (!emu_trace_start() && emu_trace_enabled())
				mana_fw_set_trace(d->fw, mk_trace, d);
			d->num_ports = id->num_ports;
			pthread_mutex_init(&d->lock, NULL);
			mk_devs[index] = d;
		}
	}
	pthread_mutex_unlock(&mk_devs_lock);
	return d;
}

struct mana_kdev *mk_dev_find(int index)
{
	struct mana_kdev *d = NULL;

	if (index < 0 || index >= EMU_MAX_MANA_DEVICES)
		return NULL;
	pthread_mutex_lock(&mk_devs_lock);
	d = mk_devs[index];
	pthread_mutex_unlock(&mk_devs_lock);
	return d;
}

static int mk_get_devices(struct mlx5be_device_info *infos, int max)
{
	int n, ret = emu_devices_init();

	if (ret)
		return ret;
	n = emu_mana_devices_count();
	for (int i = 0; i < n && i < max; i++) {
		const struct emu_dev_identity *id = emu_mana_device_identity(i);
		struct mlx5be_device_info *inf = &infos[i];

		memset(inf, 0, sizeof(*inf));
		snprintf(inf->name, sizeof(inf->name), "%s", id->name);
		snprintf(inf->dev_name, sizeof(inf->dev_name), "%s", id->dev_name);
		snprintf(inf->dev_path, sizeof(inf->dev_path), "%s", id->dev_path);
		snprintf(inf->ibdev_path, sizeof(inf->ibdev_path), "%s",
			 id->ibdev_path);
		inf->node_guid = htobe64(id->node_guid);
		inf->vendor_id = id->vendor_id;
		inf->vendor_part_id = id->vendor_part_id;
	}
	return n < max ? n : max;
}

int mk_hwc(struct mana_kdev *d, uint32_t type, void *req, size_t req_len,
	   void *resp, size_t resp_len)
{
	return mk_hwc_v(d, type, 1, req, req_len, resp, resp_len);
}

int mk_hwc_v(struct mana_kdev *d, uint32_t type, uint32_t version, void *req,
	     size_t req_len, void *resp, size_t resp_len)
{
	long st;

	/* mana_gd_init_req_hdr(): standard header, version 1 unless the
	 * message's newer form is meant */
	PRM_LE_SET(gdma_req_hdr, req, req.msg_type, type);
	PRM_LE_SET(gdma_req_hdr, req, req.msg_version, version);
	PRM_LE_SET(gdma_req_hdr, req, req.msg_size, (uint32_t)req_len);
	PRM_LE_SET(gdma_req_hdr, req, resp.msg_type, type);
	PRM_LE_SET(gdma_req_hdr, req, resp.msg_version, 1);
	PRM_LE_SET(gdma_req_hdr, req, resp.msg_size, (uint32_t)resp_len);
	PRM_LE_SET(gdma_req_hdr, req, dev_id.type, 2);	/* GDMA_DEVICE_MANA */
	st = mana_fw_exec(d->fw, req, req_len, resp, resp_len);
	if (st < 0)
		return (int)st;
	return st ? -EPROTO : 0;
}

int mk_region_create(struct mana_kdev *d, const void *addr, size_t len,
		     bool write, uint64_t *handle)
{
	uintptr_t a = (uintptr_t)addr, first = a & ~(uintptr_t)(MK_PAGE - 1);
	uint32_t pages, off = (uint32_t)(a - first);
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_create_dma_region_resp)] = { 0 };
	size_t head = PRM_LE_ST_SZ_BYTES(gdma_create_dma_region_req), rl;
	uint8_t *req;
	int ret;

	/* ib_umem_get(): an empty or wrapping range, then the pinning. */
	if (!len || a + len < a)
		return -EINVAL;
	ret = emu_mem_pinnable(addr, len, write);
	if (ret)
		return ret;
	pages = (uint32_t)((off + len + MK_PAGE - 1) / MK_PAGE);
	rl = head + 8ull * pages;
	req = calloc(1, rl);
	if (!req)
		return -ENOMEM;
	PRM_LE_SET64(gdma_create_dma_region_req, req, length, len);
	PRM_LE_SET(gdma_create_dma_region_req, req, offset_in_page, off);
	PRM_LE_SET(gdma_create_dma_region_req, req, page_count, pages);
	PRM_LE_SET(gdma_create_dma_region_req, req, page_addr_list_len, pages);
	for (uint32_t i = 0; i < pages; i++) {
		uint64_t pa = htole64(first + (uint64_t)i * MK_PAGE);

		memcpy(req + head + 8 * i, &pa, 8);
	}
	ret = mk_hwc(d, MANA_MSG_GDMA_CREATE_DMA_REGION, req, rl, resp, sizeof(resp));
	free(req);
	if (!ret)
		*handle = PRM_LE_GET64(gdma_create_dma_region_resp, resp,
				       dma_region_handle);
	return ret;
}

void mk_region_destroy(struct mana_kdev *d, uint64_t handle)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_destroy_dma_region_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_resp_hdr)];

	if (!handle)
		return;
	PRM_LE_SET64(gdma_destroy_dma_region_req, req, dma_region_handle, handle);
	(void)mk_hwc(d, MANA_MSG_GDMA_DESTROY_DMA_REGION, req, sizeof(req), resp, sizeof(resp));
}

/* ---- contexts ---- */

static void mk_db_page_free(struct mana_kdev *d, uint32_t id)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_destroy_resource_range_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_resp_hdr)];

	PRM_LE_SET(gdma_destroy_resource_range_req, req, resource_type,
		   MANA_FW_RESOURCE_DOORBELL_PAGE);
	PRM_LE_SET(gdma_destroy_resource_range_req, req, num_resources, 1);
	PRM_LE_SET(gdma_destroy_resource_range_req, req, allocated_resources, id);
	(void)mk_hwc(d, MANA_MSG_GDMA_DESTROY_RESOURCE_RANGE, req, sizeof(req), resp, sizeof(resp));
}

static int mk_open(int index, int event_fd, struct manabe_ctx **out,
		   int *cmd_fd)
{
	uint8_t req[PRM_LE_ST_SZ_BYTES(gdma_allocate_resource_range_req)] = { 0 };
	uint8_t resp[PRM_LE_ST_SZ_BYTES(gdma_allocate_resource_range_resp)] = { 0 };
	struct manabe_ctx *ctx;
	struct mana_kdev *d;
	int ret;

	d = mk_dev_get(index, &ret);
	if (!d)
		return ret;
	if (mk_fatal(d))
		return -EIO;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->dev = d;
	ctx->event_fd = -1;
	if (event_fd >= 0) {
		ctx->event_fd = fcntl(event_fd, F_DUPFD_CLOEXEC, 0);
		if (ctx->event_fd < 0) {
			ret = -errno;
			free(ctx);
			return ret;
		}
	}
	/* mana_ib_alloc_ucontext(): one doorbell page per context */
	PRM_LE_SET(gdma_allocate_resource_range_req, req, resource_type,
		   MANA_FW_RESOURCE_DOORBELL_PAGE);
	PRM_LE_SET(gdma_allocate_resource_range_req, req, num_resources, 1);
	PRM_LE_SET(gdma_allocate_resource_range_req, req, alignment, 1);
	ret = mk_hwc(d, MANA_MSG_GDMA_ALLOCATE_RESOURCE_RANGE, req, sizeof(req), resp, sizeof(resp));
	if (ret) {
		free(ctx);
		return ret;
	}
	ctx->db_page_id = PRM_LE_GET(gdma_allocate_resource_range_resp, resp,
				     allocated_resources);
	ctx->memfd = memfd_create("mlx5emu-mana-ctx", MFD_CLOEXEC);
	if (ctx->memfd < 0 || ftruncate(ctx->memfd, MK_PAGE)) {
		ret = -errno;
		goto fail;
	}
	ctx->db_page = mmap(NULL, MK_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			    ctx->memfd, 0);
	if (ctx->db_page == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	ret = mana_edev_ctx_create(d->edev, ctx->memfd, &ctx->app_page,
				   &ctx->ectx);
	if (ret) {
		munmap(ctx->db_page, MK_PAGE);
		goto fail;
	}
	mk_ctx_link(ctx);
	*out = ctx;
	*cmd_fd = ctx->memfd;
	/* as mlx5_ib's device comes up under the first open: rules waiting
	 * for it fire, and this context hears their events */
	if (!__atomic_exchange_n(&d->up, true, __ATOMIC_ACQ_REL))
		mk_fault_up(d);
	return 0;
fail:
	if (ctx->memfd >= 0)
		close(ctx->memfd);
	if (ctx->event_fd >= 0)
		close(ctx->event_fd);
	mk_db_page_free(d, ctx->db_page_id);
	free(ctx);
	return ret;
}

static void mk_close(struct manabe_ctx *ctx)
{
	if (!ctx)
		return;
	mk_ctx_unlink(ctx);
	if (ctx->event_fd >= 0)
		close(ctx->event_fd);
	mana_edev_ctx_destroy(ctx->ectx);
	mk_db_page_free(ctx->dev, ctx->db_page_id);
	munmap(ctx->db_page, MK_PAGE);
	/* The application owns cmd_fd and closes it (ibv_close_device). */
	free(ctx);
}

/* ---- queries ---- */

static int mk_query_device(struct manabe_ctx *ctx, struct manabe_device_attr *a)
{
	const struct emu_dev_identity *id =
		emu_mana_device_identity(ctx->dev->index);

	if (!id)
		return -ENODEV;
	if (mk_fatal(ctx->dev))
		return -EIO;
	memset(a, 0, sizeof(*a));
	a->node_guid = htobe64(id->node_guid);
	a->sys_image_guid = htobe64(id->sys_image_guid);
	/* mana_ib_query_device(), raw-packet device */
	a->vendor_id = id->vendor_id;
	a->vendor_part_id = id->vendor_part_id;
	a->max_mr_size = UINT32_MAX;		/* MANA_IB_MAX_MR_SIZE */
	a->page_size_cap = MK_PAGE;
	a->max_qp = MK_MAX_QUEUES;
	a->max_qp_wr = MK_MAX_WR;
	a->max_cqe = MK_MAX_WR;
	a->max_cq = MK_MAX_QUEUES;
	a->max_send_sge = MK_MAX_SEND_SGE;
	a->max_recv_sge = MK_MAX_RECV_SGE;
	a->max_mr = INT32_MAX;
	a->max_pd = INT32_MAX;
	a->device_cap_flags = 0;
	a->raw_packet_caps = IBV_RAW_PACKET_CAP_IP_CSUM;
	a->phys_port_cnt = (uint8_t)id->num_ports;
	return 0;
}

static int mk_query_port(struct manabe_ctx *ctx, uint32_t port,
			 struct mlx5be_port_attr *attr)
{
	const struct emu_dev_identity *id =
		emu_mana_device_identity(ctx->dev->index);
	const struct emu_port_identity *p;

	if (!id || port < 1 || port > (uint32_t)id->num_ports)
		return -EINVAL;
	p = &id->ports[port - 1];
	memset(attr, 0, sizeof(*attr));
	if (mk_fatal(ctx->dev))
		return -EIO;
	/* mana_ib_query_port(): the netdev's carrier and MTU, 4096 at most */
	if (mk_link_up(ctx->dev, (int)port - 1)) {
		attr->state = IBV_PORT_ACTIVE;
		attr->phys_state = 5;		/* LinkUp */
	} else {
		attr->state = IBV_PORT_DOWN;
		attr->phys_state = 3;		/* Disabled */
	}
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = p->netdev_mtu >= 4096 ? IBV_MTU_4096 :
			   p->netdev_mtu >= 2048 ? IBV_MTU_2048 :
			   p->netdev_mtu >= 1024 ? IBV_MTU_1024 : IBV_MTU_512;
	attr->active_width = 1;			/* IB_WIDTH_1X */
	attr->active_speed = 0x80;		/* IB_SPEED_NDR: the VF's 200G */
	attr->gid_tbl_len = 0;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 0x40000000;
	return 0;
}

static void *mk_doorbell_page(struct manabe_ctx *ctx)
{
	return ctx->app_page;
}

static int mk_obj_destroy_op(struct manabe_obj *o)
{
	return mk_obj_destroy(o);
}

const struct manabe_ops manabe_emu_ops = {
	.name = "emu",
	.get_devices = mk_get_devices,
	.open = mk_open,
	.close = mk_close,
	.doorbell_page = mk_doorbell_page,
	.query_device = mk_query_device,
	.query_port = mk_query_port,
	.alloc_pd = mk_alloc_pd,
	.reg_mr = mk_reg_mr,
	.create_cq = mk_create_cq,
	.create_wq = mk_create_wq,
	.create_qp_raw = mk_create_qp_raw,
	.create_ind_table = mk_create_ind_table,
	.create_qp_rss = mk_create_qp_rss,
	.obj_destroy = mk_obj_destroy_op,
};
