/* SPDX-License-Identifier: MIT */
/*
 * provider/mana/mana_ctx.c -- a MANA context: open (the doorbell page
 * mapped from cmd_fd offset 0, as libmana's mana_alloc_context maps it),
 * close, the device and port queries, async_fd, and
 * manadv_set_context_attr.  rdma-core 44's providers/mana/mana.c and
 * manadv.c give the behaviour.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provider/mana/mana_prov.h"
#include "shell/abi_export.h"

enum { MANA_DB_PAGE_SIZE = 4096 };

/* The open contexts, by their cmd_fd's file. */
static pthread_mutex_t mana_open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prov_mana_context *mana_open;

static void mana_open_link(struct prov_mana_context *m, int cmd_fd)
{
	struct stat st;

	if (fstat(cmd_fd, &st))
		return;
	m->cmd_dev = st.st_dev;
	m->cmd_ino = st.st_ino;
	pthread_mutex_lock(&mana_open_lock);
	m->next_open = mana_open;
	mana_open = m;
	pthread_mutex_unlock(&mana_open_lock);
}

static void mana_open_unlink(struct prov_mana_context *m)
{
	pthread_mutex_lock(&mana_open_lock);
	for (struct prov_mana_context **p = &mana_open; *p; p = &(*p)->next_open)
		if (*p == m) {
			*p = m->next_open;
			break;
		}
	pthread_mutex_unlock(&mana_open_lock);
}

bool prov_mana_owns_cmd_fd(int cmd_fd)
{
	struct stat st;
	bool found = false;

	if (fstat(cmd_fd, &st))
		return false;
	pthread_mutex_lock(&mana_open_lock);
	for (struct prov_mana_context *m = mana_open; m && !found;
	     m = m->next_open)
		found = m->cmd_dev == st.st_dev && m->cmd_ino == st.st_ino;
	pthread_mutex_unlock(&mana_open_lock);
	return found;
}

/* rdma-core 44's libmana has no op for these: libibverbs' dummy ops
 * answer, and a raw QP is polled and posted by the application. */
static int mana_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	(void)wc;
	return EOPNOTSUPP;	/* mana_poll_cq's return, as a count */
}

static int mana_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp;
	(void)wr;
	(void)bad;
	return EOPNOTSUPP;
}

static int mana_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)wr;
	(void)bad;
	return EOPNOTSUPP;
}

static int mana_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return EOPNOTSUPP;
}

static void mana_fill_attr(const struct manabe_device_attr *a,
			   struct ibv_device_attr *o)
{
	memset(o, 0, sizeof(*o));
	/* ibv_cmd_query_device_any(): "%d.%d.%d" of the kernel's fw_ver (0) */
	snprintf(o->fw_ver, sizeof(o->fw_ver), "0.0.0");
	o->node_guid = a->node_guid;
	o->sys_image_guid = a->sys_image_guid;
	o->max_mr_size = a->max_mr_size;
	o->page_size_cap = a->page_size_cap;
	o->vendor_id = a->vendor_id;
	o->vendor_part_id = a->vendor_part_id;
	o->hw_ver = a->hw_ver;
	o->max_qp = (int)a->max_qp;
	o->max_qp_wr = (int)a->max_qp_wr;
	o->device_cap_flags = a->device_cap_flags;
	/* the verbs ABI has one max_sge: the kernel reports the send one */
	o->max_sge = (int)a->max_send_sge;
	o->max_cq = (int)a->max_cq;
	o->max_cqe = (int)a->max_cqe;
	o->max_mr = (int)a->max_mr;
	o->max_pd = (int)a->max_pd;
	o->max_pkeys = 1;
	o->phys_port_cnt = a->phys_port_cnt;
}

int prov_mana_query_device(struct ibv_context *context,
			   struct ibv_device_attr *attr)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct manabe_device_attr a;
	int ret = m->be->query_device(m->bectx, &a);

	if (ret)
		return -ret;
	mana_fill_attr(&a, attr);
	return 0;
}

static int mana_query_device_ex(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct ibv_device_attr_ex full;
	struct manabe_device_attr a;
	int ret;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	ret = m->be->query_device(m->bectx, &a);
	if (ret)
		return -ret;
	memset(&full, 0, sizeof(full));
	mana_fill_attr(&a, &full.orig_attr);
	full.raw_packet_caps = a.raw_packet_caps;
	memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
	return 0;
}

static int mana_query_port(struct ibv_context *context, uint8_t port,
			   struct ibv_port_attr *attr, size_t len)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct mlx5be_port_attr p;
	struct ibv_port_attr full;
	int ret = m->be->query_port(m->bectx, port, &p);

	if (ret)
		return -ret;
	memset(&full, 0, sizeof(full));
	full.state = p.state;
	full.max_mtu = p.max_mtu;
	full.active_mtu = p.active_mtu;
	full.gid_tbl_len = p.gid_tbl_len;
	full.max_msg_sz = p.max_msg_sz;
	full.pkey_tbl_len = p.pkey_tbl_len;
	full.active_width = p.active_width;
	full.active_speed = (uint8_t)p.active_speed;
	full.phys_state = p.phys_state;
	full.link_layer = p.link_layer;
	memcpy(attr, &full, len < sizeof(full) ? len : sizeof(full));
	return 0;
}

struct ibv_context *prov_mana_open(struct prov_device *dev)
{
	struct prov_mana_context *m = calloc(1, sizeof(*m));
	struct ibv_context *ctx;
	int cmd_fd, pipefd[2], ret;

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->dev = dev;
	m->be = manabe_get();
	/* async_fd: the device's events, read as the kernel's event file */
	if (pipe2(pipefd, O_CLOEXEC)) {
		free(m);
		return NULL;
	}
	(void)fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
	ret = m->be->open(dev->be_index, pipefd[1], &m->bectx, &cmd_fd);
	if (ret) {
		close(pipefd[0]);
		close(pipefd[1]);
		free(m);
		errno = -ret;
		return NULL;
	}
	/* mana_alloc_context(): the doorbell page; a failure is ENOENT.  The
	 * emulated device gives the mapping it watches. */
	m->db_page = m->be->doorbell_page ? m->be->doorbell_page(m->bectx) : NULL;
	m->own_db_page = !m->db_page;
	if (m->own_db_page)
		m->db_page = mmap(NULL, MANA_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
				  cmd_fd, 0);
	if (m->db_page == MAP_FAILED) {
		close(pipefd[0]);
		close(pipefd[1]);
		ret = ENOENT;
		goto close_be;
	}
	m->async_wr_fd = pipefd[1];
	ctx = &m->vctx.context;
	ctx->device = &dev->ibdev;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = pipefd[0];
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	pthread_mutex_init(&m->cq_lock, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	m->vctx.sz = sizeof(m->vctx);
	ctx->ops.poll_cq = mana_poll_cq;
	ctx->ops.post_send = mana_post_send;
	ctx->ops.post_recv = mana_post_recv;
	ctx->ops.req_notify_cq = mana_req_notify_cq;
	m->vctx.query_device_ex = mana_query_device_ex;
	m->vctx.query_port = mana_query_port;
	prov_mana_obj_set_ops(&m->vctx);
	prov_mana_qp_set_ops(&m->vctx);
	mana_open_link(m, cmd_fd);
	return ctx;
close_be:
	m->be->close(m->bectx);
	close(cmd_fd);
	free(m);
	errno = ret;
	return NULL;
}

int prov_mana_close(struct ibv_context *context)
{
	struct prov_mana_context *m = to_prov_mana(context);

	mana_open_unlink(m);
	if (m->own_db_page)
		munmap(m->db_page, MANA_DB_PAGE_SIZE);
	m->be->close(m->bectx);
	close(context->cmd_fd);
	close(context->async_fd);
	close(m->async_wr_fd);
	pthread_mutex_destroy(&context->mutex);
	pthread_mutex_destroy(&m->cq_lock);
	free(m);
	return 0;
}

/*
 * mana_ib of Linux 6.2-6.6 sizes its ports' GID tables by
 * mana_ib_get_port_immutable, which sets only RDMA_CORE_PORT_RAW_PACKET:
 * not a RoCE port, so the core's GID cache never fills an entry.
 * rdma_get_gid_attr() then answers EINVAL for a bad port or an index past
 * the table (the port's gid_tbl_len here) and ENODATA inside it.
 */
int prov_mana_query_gid(struct ibv_context *context, uint32_t port,
			uint32_t index)
{
	struct prov_mana_context *m = to_prov_mana(context);
	struct mlx5be_port_attr p;
	int ret = m->be->query_port(m->bectx, port, &p);

	if (ret)
		return -ret;
	if (index >= (uint32_t)(p.gid_tbl_len > 0 ? p.gid_tbl_len : 0))
		return EINVAL;
	return ENODATA;
}

int prov_mana_get_async_event(struct ibv_context *context,
			      struct ibv_async_event *event)
{
	struct manabe_event ev;
	ssize_t n = read(context->async_fd, &ev, sizeof(ev));

	if (n != (ssize_t)sizeof(ev)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = (enum ibv_event_type)ev.type;
	if (ev.type != IBV_EVENT_DEVICE_FATAL)
		event->element.port_num = (int)ev.port;
	return 0;
}

MLX5EMU_ABI(manadv_set_context_attr);
int mlx5emu_abi_manadv_set_context_attr(struct ibv_context *ibv_ctx,
					enum manadv_set_ctx_attr_type type,
					void *attr)
{
	struct prov_mana_context *m = to_prov_mana(ibv_ctx);

	switch (type) {
	case MANADV_CTX_ATTR_BUF_ALLOCATORS:
		/* copied: DPDK passes a compound literal on its stack */
		m->extern_alloc = *(struct manadv_ctx_allocators *)attr;
		return 0;
	default:
		return EOPNOTSUPP;
	}
}
