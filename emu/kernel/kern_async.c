/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous DEVX queries (devx.c MLX5_IB_METHOD_DEVX_OBJ_ASYNC_QUERY):
 * the checks run at once, in the kernel's order (the async fd must be one
 * of the object's ucontext, else EBADF as uverbs' FD-attribute lookup
 * answers; vhca_tunnel_id, uid, query class, object id: EINVAL; more than
 * 1 MiB of responses outstanding on the fd: EAGAIN), and a bad command
 * fails the call.  The command itself completes onto the fd, which turns
 * readable; the completion always carries the outbox, status included.
 *
 * Reading (devx_async_cmd_event_read): nothing queued blocks, or EAGAIN
 * with O_NONBLOCK; a response larger than the caller's buffer is ENOSPC and
 * stays queued.  When the ucontext goes, its fds are destroyed as uverbs
 * destroys FD objects: queued responses are dropped, the fd polls readable
 * and a read fails with EIO (EAGAIN with O_NONBLOCK).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emu/kernel/kern.h"

struct kern_async_resp {
	struct cds_list_head node;
	uint64_t wr_id;
	size_t outlen;
	uint8_t out[];
};

struct mlx5be_cmd_comp {
	struct kern_uctx *uctx;		/* NULL once the ucontext is gone */
	struct cds_list_head node;	/* in uctx->comps */
	int efd;			/* counts queued responses */
	bool destroyed;
	pthread_mutex_t lock;
	struct cds_list_head resps;
	size_t bytes;			/* out_len of responses outstanding */
};

/* Guards comp->uctx, comp->node and uctx->comps. */
static pthread_mutex_t kern_comps_lock = PTHREAD_MUTEX_INITIALIZER;

static void kern_comp_drop_resps(struct mlx5be_cmd_comp *comp)
{
	struct kern_async_resp *r, *tmp;

	cds_list_for_each_entry_safe(r, tmp, &comp->resps, node) {
		cds_list_del(&r->node);
		free(r);
	}
	comp->bytes = 0;
}

struct mlx5be_cmd_comp *kern_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	struct mlx5be_cmd_comp *comp;

	if (kern_uctx_lost(ctx->uctx)) {
		errno = EIO;
		return NULL;
	}
	comp = calloc(1, sizeof(*comp));
	if (!comp) {
		errno = ENOMEM;
		return NULL;
	}
	comp->efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (comp->efd < 0) {
		free(comp);
		return NULL;
	}
	pthread_mutex_init(&comp->lock, NULL);
	CDS_INIT_LIST_HEAD(&comp->resps);
	pthread_mutex_lock(&kern_comps_lock);
	comp->uctx = ctx->uctx;
	cds_list_add_tail(&comp->node, &ctx->uctx->comps);
	pthread_mutex_unlock(&kern_comps_lock);
	return comp;
}

void kern_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	pthread_mutex_lock(&kern_comps_lock);
	if (comp->uctx)
		cds_list_del(&comp->node);
	pthread_mutex_unlock(&kern_comps_lock);
	kern_comp_drop_resps(comp);
	close(comp->efd);
	pthread_mutex_destroy(&comp->lock);
	free(comp);
}

void kern_cmd_comp_detach_all(struct kern_uctx *uctx)
{
	struct mlx5be_cmd_comp *comp, *tmp;
	uint64_t one = 1;

	pthread_mutex_lock(&kern_comps_lock);
	cds_list_for_each_entry_safe(comp, tmp, &uctx->comps, node) {
		cds_list_del(&comp->node);
		comp->uctx = NULL;
		pthread_mutex_lock(&comp->lock);
		comp->destroyed = true;
		kern_comp_drop_resps(comp);
		pthread_mutex_unlock(&comp->lock);
		/* Readable from now on (and wakes a blocked reader). */
		if (write(comp->efd, &one, sizeof(one)) != sizeof(one))
			continue;
	}
	pthread_mutex_unlock(&kern_comps_lock);
}

/*
 * In a forked child: each inherited fd gets a fresh eventfd under its
 * number (same blocking mode), and is then closed as at teardown, its
 * ucontext's device being gone here.
 */
void kern_cmd_comp_fork_child(struct cds_list_head *uctxs)
{
	struct mlx5be_cmd_comp *comp;
	struct kern_uctx *uctx;

	pthread_mutex_init(&kern_comps_lock, NULL);
	cds_list_for_each_entry(uctx, uctxs, node) {
		cds_list_for_each_entry(comp, &uctx->comps, node) {
			int fl = fcntl(comp->efd, F_GETFL);
			int fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE |
					 (fl > 0 && (fl & O_NONBLOCK) ?
					  EFD_NONBLOCK : 0));

			pthread_mutex_init(&comp->lock, NULL);
			if (fd < 0)
				continue;
			dup3(fd, comp->efd, O_CLOEXEC);
			close(fd);
		}
		kern_cmd_comp_detach_all(uctx);
	}
}

int kern_cmd_comp_fd(struct mlx5be_cmd_comp *comp)
{
	return comp->efd;
}

int kern_obj_query_async(struct mlx5be_obj *obj, const void *in, size_t inlen,
			 size_t outlen, uint64_t wr_id,
			 struct mlx5be_cmd_comp *comp)
{
	struct kern_async_resp *r;
	struct kern_uctx *owner;
	uint64_t one = 1;
	void *buf;
	int ret;

	if (kern_uctx_lost(obj->uctx))
		return -EIO;
	/* lookup_get_fd_uobject(): an fd of another ufile is EBADF. */
	pthread_mutex_lock(&kern_comps_lock);
	owner = comp->uctx;
	pthread_mutex_unlock(&kern_comps_lock);
	if (owner != obj->uctx)
		return -EBADF;
	buf = kern_obj_cmd_prepare(obj, in, inlen, outlen,
				   KERN_DEVX_OBJ_ASYNC_QUERY, &ret);
	if (!buf)
		return ret;
	pthread_mutex_lock(&comp->lock);
	if (comp->bytes + outlen > KERN_DEVX_ASYNC_BYTES_MAX) {
		pthread_mutex_unlock(&comp->lock);
		free(buf);
		return -EAGAIN;
	}
	comp->bytes += outlen;
	pthread_mutex_unlock(&comp->lock);

	r = calloc(1, sizeof(*r) + outlen);
	if (!r) {
		ret = -ENOMEM;
		goto err_unreserve;
	}
	r->wr_id = wr_id;
	r->outlen = outlen;
	ret = kern_obj_cmd_run(obj, buf, inlen, r->out, outlen);
	/* A firmware error still completes: the outbox says what happened. */
	if (ret && ret != -EREMOTEIO) {
		free(r);
		goto err_unreserve;
	}
	free(buf);
	pthread_mutex_lock(&comp->lock);
	cds_list_add_tail(&r->node, &comp->resps);
	pthread_mutex_unlock(&comp->lock);
	if (write(comp->efd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	return 0;

err_unreserve:
	free(buf);
	pthread_mutex_lock(&comp->lock);
	comp->bytes -= outlen;
	pthread_mutex_unlock(&comp->lock);
	return ret;
}

int kern_cmd_comp_get(struct mlx5be_cmd_comp *comp,
		      struct mlx5be_async_cmd_resp *resp)
{
	struct kern_async_resp *r;
	uint64_t cnt, one = 1;

	/* Blocks unless the application made the fd non-blocking. */
	if (read(comp->efd, &cnt, sizeof(cnt)) != sizeof(cnt))
		return -errno;
	pthread_mutex_lock(&comp->lock);
	if (comp->destroyed) {
		/* Stays readable; an empty queue of a destroyed fd. */
		pthread_mutex_unlock(&comp->lock);
		if (write(comp->efd, &one, sizeof(one)) != sizeof(one))
			return -errno;
		return fcntl(comp->efd, F_GETFL) & O_NONBLOCK ? -EAGAIN : -EIO;
	}
	r = cds_list_first_entry(&comp->resps, struct kern_async_resp, node);
	if (r->outlen > resp->outlen) {
		/* The response stays queued, as the kernel keeps the event. */
		pthread_mutex_unlock(&comp->lock);
		if (write(comp->efd, &one, sizeof(one)) != sizeof(one))
			return -errno;
		return -ENOSPC;
	}
	cds_list_del(&r->node);
	comp->bytes -= r->outlen;
	pthread_mutex_unlock(&comp->lock);
	resp->wr_id = r->wr_id;
	memcpy(resp->out, r->out, r->outlen);
	resp->outlen = r->outlen;
	free(r);
	return 0;
}
