/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous DEVX queries: the checks run at once (a bad command fails
 * the call), the command itself completes later onto a completion object
 * whose fd turns readable; the completion always carries the outbox, status
 * included.  As devx.c, at most 1 MiB of responses may wait unread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emu/kernel/kern.h"

#define KERN_ASYNC_MAX_BYTES (1024 * 1024)

struct kern_async_resp {
	struct cds_list_head node;
	uint64_t wr_id;
	size_t outlen;
	uint8_t out[];
};

struct mlx5be_cmd_comp {
	struct mlx5be_ctx *ctx;
	int efd;			/* readable while responses wait */
	pthread_mutex_t lock;
	struct cds_list_head resps;
	size_t bytes;			/* bytes of responses waiting */
};

struct mlx5be_cmd_comp *kern_cmd_comp_create(struct mlx5be_ctx *ctx)
{
	struct mlx5be_cmd_comp *comp = calloc(1, sizeof(*comp));

	if (!comp) {
		errno = ENOMEM;
		return NULL;
	}
	comp->efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (comp->efd < 0) {
		free(comp);
		return NULL;
	}
	comp->ctx = ctx;
	pthread_mutex_init(&comp->lock, NULL);
	CDS_INIT_LIST_HEAD(&comp->resps);
	return comp;
}

void kern_cmd_comp_destroy(struct mlx5be_cmd_comp *comp)
{
	struct kern_async_resp *r, *tmp;

	cds_list_for_each_entry_safe(r, tmp, &comp->resps, node)
		free(r);
	close(comp->efd);
	pthread_mutex_destroy(&comp->lock);
	free(comp);
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
	uint64_t one = 1;
	int ret;

	if (comp->ctx != obj->ctx)
		return -EINVAL;
	pthread_mutex_lock(&comp->lock);
	if (comp->bytes + outlen > KERN_ASYNC_MAX_BYTES) {
		pthread_mutex_unlock(&comp->lock);
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
	ret = kern_obj_query(obj, in, inlen, r->out, outlen);
	/* A firmware error still completes: the outbox says what happened. */
	if (ret && ret != -EREMOTEIO) {
		free(r);
		goto err_unreserve;
	}
	pthread_mutex_lock(&comp->lock);
	cds_list_add_tail(&r->node, &comp->resps);
	pthread_mutex_unlock(&comp->lock);
	if (write(comp->efd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	return 0;

err_unreserve:
	pthread_mutex_lock(&comp->lock);
	comp->bytes -= outlen;
	pthread_mutex_unlock(&comp->lock);
	return ret;
}

int kern_cmd_comp_get(struct mlx5be_cmd_comp *comp,
		      struct mlx5be_async_cmd_resp *resp)
{
	struct kern_async_resp *r;
	uint64_t cnt;

	/* Blocks unless the application made the fd non-blocking. */
	if (read(comp->efd, &cnt, sizeof(cnt)) != sizeof(cnt))
		return -errno;
	pthread_mutex_lock(&comp->lock);
	r = cds_list_first_entry(&comp->resps, struct kern_async_resp, node);
	if (r->outlen > resp->outlen) {
		/* The response stays queued, as the kernel keeps the event. */
		uint64_t one = 1;

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
