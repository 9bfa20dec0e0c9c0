/* SPDX-License-Identifier: MIT */
/*
 * provider/mana/mana_prov.h -- rdma-core 44's libmana for the MANA devices:
 * manadv_set_context_attr, manadv_init_obj and the verbs of a MANA context,
 * with that provider's checks, errnos (and its odd return values) exactly,
 * over backend/mana.h.
 *
 * The inline verbs reach a MANA context through its op slots; the exported
 * verbs (provider/verbs) hand a MANA object to the prov_mana_* entries
 * below when prov_mana_is() says its context is one.
 */
#ifndef MLX5EMU_PROVIDER_MANA_MANA_PROV_H
#define MLX5EMU_PROVIDER_MANA_MANA_PROV_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "backend/mana.h"
#include "provider/core/device.h"

struct prov_mana_context {
	struct prov_device *dev;
	const struct manabe_ops *be;
	struct manabe_ctx *bectx;
	struct manadv_ctx_allocators extern_alloc;
	void *db_page;			/* cmd_fd offset 0, handed out */
	bool own_db_page;		/* mapped here (else the backend's) */
	int async_wr_fd;		/* the write end of async_fd's pipe */
	pthread_mutex_t cq_lock;	/* cqs, cq_serial */
	struct prov_mana_cq *cqs;	/* live CQs, by channel cookie */
	uint64_t cq_serial;
	dev_t cmd_dev;			/* cmd_fd's file, for ibv_import_device */
	ino_t cmd_ino;
	struct prov_mana_context *next_open;
	struct verbs_context vctx;	/* must hold ibv_context last */
};

static inline struct prov_mana_context *to_prov_mana(struct ibv_context *c)
{
	return (struct prov_mana_context *)((char *)c -
		offsetof(struct prov_mana_context, vctx.context));
}

/* Whether @context is a MANA device's. */
static inline bool prov_mana_is(const struct ibv_context *context)
{
	return prov_device_mana_ctx(context);
}

/*
 * What a verb whose op libmana 44 leaves to libibverbs' dummy ops (or an
 * mlx5dv entry, for a device libmlx5 does not own) answers when it returns
 * an object: NULL with errno EOPNOTSUPP.  Int-returning ones answer
 * EOPNOTSUPP as their value.
 */
static inline void *prov_mana_unsupported(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* mana_ctx.c */
struct ibv_context *prov_mana_open(struct prov_device *dev);
int prov_mana_close(struct ibv_context *context);
/* Whether @cmd_fd is (a duplicate of) an open MANA context's cmd_fd. */
bool prov_mana_owns_cmd_fd(int cmd_fd);
int prov_mana_query_device(struct ibv_context *context,
			   struct ibv_device_attr *attr);
int prov_mana_get_async_event(struct ibv_context *context,
			      struct ibv_async_event *event);
/* The GID query method's answer for entry @index of @port: EINVAL or
 * ENODATA, mana_ib never holding a GID (positive errnos). */
int prov_mana_query_gid(struct ibv_context *context, uint32_t port,
			uint32_t index);

/* mana_chan.c: completion channels and CQ events */
struct prov_mana_cq;
struct ibv_comp_channel *prov_mana_create_comp_channel(struct ibv_context *context);
int prov_mana_destroy_comp_channel(struct ibv_comp_channel *channel);
int prov_mana_get_cq_event(struct ibv_comp_channel *channel,
			   struct ibv_cq **cq, void **cq_context);
/* The write end the device writes a CQ's events to (-1: no channel). */
int prov_mana_channel_wr_fd(struct ibv_comp_channel *channel);
/* A CQ named for events; unlinking waits for its events' acknowledgement. */
void prov_mana_cq_link(struct prov_mana_context *m, struct prov_mana_cq *cq);
void prov_mana_cq_unlink(struct prov_mana_context *m, struct prov_mana_cq *cq);

/* mana_obj.c, mana_qp.c */
struct ibv_pd *prov_mana_alloc_pd(struct ibv_context *context);
int prov_mana_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *prov_mana_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, int access);
int prov_mana_dereg_mr(struct ibv_mr *mr);
struct ibv_cq *prov_mana_create_cq(struct ibv_context *context, int cqe,
				   struct ibv_comp_channel *channel,
				   int comp_vector);
int prov_mana_destroy_cq(struct ibv_cq *cq);
struct ibv_qp *prov_mana_create_qp(struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr);
int prov_mana_destroy_qp(struct ibv_qp *qp);
/* The context's op slots for objects (mana_obj.c, mana_qp.c). */
void prov_mana_obj_set_ops(struct verbs_context *vctx);
void prov_mana_qp_set_ops(struct verbs_context *vctx);

#endif /* MLX5EMU_PROVIDER_MANA_MANA_PROV_H */
