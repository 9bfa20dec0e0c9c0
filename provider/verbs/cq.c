/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: creation and destruction, as rdma-core 44 (libibverbs
 * verbs.c/device.c, libmlx5 verbs.c create_cq) over the upstream kernel
 * (uverbs CQ_CREATE, mlx5_ib_create_cq) behave.  The CQE ring is
 * page-aligned memory of ncqe = roundup_pow_of_two(cqe + 1) entries of 64
 * or 128 bytes, every entry's op_own MLX5_CQE_INVALID << 4; the doorbell
 * record (set_ci, arm) is 8 bytes in its own umem; CREATE_CQ names both
 * umems, the EQ of the comp vector and the context's UAR page.  The CQE
 * size is mlx5dv_create_cq's cqe_size when given, else MLX5_CQE_SIZE, else
 * 64.
 *
 * Errors (NULL + errno), in libmlx5's order, then the kernel's:
 *   EINVAL      cqe <= 0 (ibv_create_cq) or 0; unknown comp_mask bits or
 *               creation flags; unknown mlx5dv comp_mask bits;
 *               IBV_CQ_INIT_ATTR_MASK_PD without a parent domain; more than
 *               2^24 entries; a CQE size (attribute or MLX5_CQE_SIZE) other
 *               than 64 or 128; CQE compression or padding, or unknown
 *               mlx5dv flags (the device offers neither); more than
 *               max_cqe ((1 << log_max_cq_sz) - 1) entries; comp_vector
 *               not below num_comp_vectors
 *   EOPNOTSUPP  wc_flags libibverbs does not know, or whose data the
 *               device does not produce: tag matching, completion
 *               timestamps without a core clock (hca_core_clock), CVLAN
 *               without VLAN stripping, flow tags without flow steering;
 *               completion wallclock without a real-time CQE clock or
 *               clock info
 *   EBADF       a completion channel of another context (uverbs fd lookup)
 *   ENOMEM      the buffer (or MLX_CQ_ALLOC_TYPE=HUGE without huge pages:
 *               the mmap errno)
 * ibv_destroy_cq: EBUSY while QPs/SRQs/WQs use the CQ, no command sent;
 * otherwise it waits, as libibverbs does, until every event read from the
 * channel for this CQ is acknowledged.  ibv_resize_cq is cq_resize.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/bits.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/error.h"
#include "provider/core/context.h"
#include "provider/verbs/cq.h"
#include "provider/verbs/cq_int.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/query.h"
#include "provider/verbs/verbs_ctx.h"
#include "provider/mana/mana_prov.h"

/* libmlx5's MLX5_DV_CREATE_CQ_SUP_COMP_MASK. */
#define PROV_CQ_DV_COMP_MASK                                                  \
	(MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE |                             \
	 MLX5DV_CQ_INIT_ATTR_MASK_FLAGS | MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE)

/* What rdma-core 44's libibverbs knows (IBV_CREATE_CQ_SUP_WC_FLAGS). */
#define PROV_CQ_LIB_WC_FLAGS                                                  \
	(IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |         \
	 IBV_WC_EX_WITH_CVLAN | IBV_WC_EX_WITH_FLOW_TAG |                      \
	 IBV_WC_EX_WITH_TM_INFO |                                              \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

#define PROV_CQ_COMP_MASK (IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)
#define PROV_CQ_FLAGS                                                         \
	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED | IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

int prov_cq_use(struct ibv_cq *ibcq)
{
	struct prov_cq *cq = to_prov_cq(ibcq);
	int v = atomic_load(&cq->use);

	do {
		if (v < 0)
			return EINVAL;
	} while (!atomic_compare_exchange_weak(&cq->use, &v, v + 1));
	return 0;
}

void prov_cq_unuse(struct ibv_cq *ibcq)
{
	atomic_fetch_sub(&to_prov_cq(ibcq)->use, 1);
}

uint32_t prov_cq_cqn(struct ibv_cq *ibcq)
{
	return to_prov_cq(ibcq)->cqn;
}

int prov_cq_dv(struct ibv_cq *ibcq, struct mlx5dv_cq *out)
{
	struct prov_cq *cq = to_prov_cq(ibcq);

	if (!ibcq || !out)
		return EINVAL;
	out->buf = cq->buf.buf;
	out->dbrec = cq->dbrec;
	out->cqe_cnt = cq->ncqe;
	out->cqe_size = cq->cqe_sz;
	out->cq_uar = prov_verbs_ctx(cq->pctx)->cq_uar;
	out->cqn = cq->cqn;
	out->comp_mask = 0;
	cq->dv_owned = true;
	return 0;
}

/* get_cqe_size(): the attribute's, else MLX5_CQE_SIZE, else 64. */
static int cq_cqe_size(const struct mlx5dv_cq_init_attr *dv)
{
	const char *env;
	int size = 64;

	if (dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE)) {
		size = dv->cqe_size;
	} else {
		env = getenv("MLX5_CQE_SIZE");
		if (env)
			size = atoi(env);
	}
	return size == 64 || size == 128 ? size : -EINVAL;
}

/* The data of these wc_flags comes from the device only when it offers it. */
static int cq_check_device(struct prov_context *pctx, uint64_t wc_flags)
{
	if ((wc_flags & IBV_WC_EX_WITH_TM_INFO) && !PROV_CAP_GEN(pctx, tag_matching))
		return EOPNOTSUPP;
	if ((wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) &&
	    !PROV_CAP_GEN(pctx, device_frequency_khz))
		return EOPNOTSUPP;
	if ((wc_flags & IBV_WC_EX_WITH_CVLAN) && !prov_caps_cvlan_strip(pctx))
		return EOPNOTSUPP;
	if ((wc_flags & IBV_WC_EX_WITH_FLOW_TAG) && !prov_caps_flow_steering(pctx))
		return EOPNOTSUPP;
	return 0;
}

/* The mlx5dv attributes checked once the buffer exists, as libmlx5 does:
 * compression and padding only where the device offers them.  Padding
 * changes where nothing is read (the CQE stays in the second half), so it
 * is taken; compression would need CQE parsing this provider lacks. */
static int cq_check_dv(struct prov_context *pctx,
		       const struct mlx5dv_cq_init_attr *dv, uint32_t cqe_sz)
{
	struct prov_device_resp resp;

	if (!dv)
		return 0;
	prov_query_device_resp(pctx, &resp);
	if ((dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE) &&
	    !(resp.cqe_comp_caps.max_num &&
	      (dv->cqe_comp_res_format & resp.cqe_comp_caps.supported_format)))
		return EINVAL;
	if (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (dv->flags & ~(uint32_t)(MLX5DV_CQ_INIT_ATTR_FLAGS_RESERVED - 1))
			return EINVAL;
		if ((dv->flags & MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD) &&
		    (!resp.cqe_128b_pad || cqe_sz != 128))
			return EINVAL;
	}
	if (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE)
		return EOPNOTSUPP;
	return 0;
}

/* mlx5_cq_fill_pfns()'s refusal, and whether wallclock is the raw stamp. */
static int cq_check_wallclock(struct prov_context *pctx, uint64_t wc_flags,
			      bool *rt_ts)
{
	struct mlx5be_clock_info ci = { 0 };
	bool rt = prov_caps_real_time_ts(pctx);

	*rt_ts = false;
	if (!(wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		return 0;
	if (rt && !(wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)) {
		*rt_ts = true;
		return 0;
	}
	if (!pctx->be->clock_info || pctx->be->clock_info(pctx->bectx, &ci) ||
	    !ci.mult)
		return EOPNOTSUPP;
	return 0;
}

/* libmlx5's create_cq() checks, in its order; 0 or an errno. */
static int cq_check_attr(struct prov_context *pctx,
			 const struct ibv_cq_init_attr_ex *attr, bool extended,
			 const struct mlx5dv_cq_init_attr *dv, bool *rt_ts)
{
	int err;

	if (!attr->cqe)
		return EINVAL;
	if (attr->comp_mask & ~(uint32_t)PROV_CQ_COMP_MASK)
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)PROV_CQ_FLAGS))
		return EINVAL;
	if (attr->wc_flags & ~(uint64_t)PROV_CQ_LIB_WC_FLAGS)
		return EOPNOTSUPP;
	/* Fail early (a tag-matching SRQ would fail only later). */
	err = cq_check_device(pctx, attr->wc_flags);
	if (err)
		return err;
	if (dv && (dv->comp_mask & ~(uint64_t)PROV_CQ_DV_COMP_MASK))
		return EINVAL;
	/* Only a parent domain may be given. */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    !prov_pd_is_parent(attr->parent_domain))
		return EINVAL;
	if (extended)
		return cq_check_wallclock(pctx, attr->wc_flags, rt_ts);
	return 0;
}

/* The kernel's checks (uverbs CQ_CREATE, mlx5_ib_create_cq). */
static int cq_check_kernel(struct prov_context *pctx, struct ibv_context *context,
			   const struct ibv_cq_init_attr_ex *attr, uint32_t ncqe)
{
	uint32_t max = UINT32_C(1) << PROV_CAP_GEN(pctx, log_max_cq_sz);

	if (attr->channel && attr->channel->context != context)
		return EBADF;
	if (attr->comp_vector >= (uint32_t)context->num_comp_vectors)
		return EINVAL;
	/* entries = ncqe - 1, then roundup_pow_of_two(entries + 1). */
	if (ncqe > max)
		return EINVAL;
	return 0;
}

static void cq_free_mem(struct prov_cq *cq)
{
	struct prov_context *pctx = cq->pctx;

	prov_umem_dereg(pctx, cq->dbr_umem);
	prov_umem_dereg(pctx, cq->buf_umem);
	prov_qbuf_free(&cq->dbr_mem);
	cq->dbrec = NULL;
	prov_qbuf_free(&cq->buf);
}

const struct prov_qbuf_ext *prov_cq_ext(const struct prov_cq *cq)
{
	return cq->parent ? prov_pd_ext(cq->parent) : NULL;
}

int prov_cq_ring_alloc(struct prov_qbuf *buf, const struct prov_qbuf_ext *ext,
		       struct prov_qbuf_xalloc *xa, uint32_t ncqe,
		       uint32_t cqe_sz)
{
	size_t len = (size_t)ncqe * cqe_sz;
	bool dflt;
	int err;

	/* mlx5_alloc_cq_buf(): the application's allocator is asked for
	 * whole pages; its memory is not zeroed, only the owner bits set. */
	err = prov_qbuf_alloc_ext(buf, ext, xa, prov_align(len, PROV_PAGE_SIZE),
				  PROV_PAGE_SIZE, MLX5DV_RES_TYPE_CQ, &dflt);
	if (!err && dflt) {
		err = prov_qbuf_alloc(buf, len, "MLX_CQ");
		if (!err)
			memset(buf->buf, 0, len);
	}
	if (err)
		return err;
	for (uint32_t i = 0; i < ncqe; i++)
		prov_cqe64_of(prov_cqe_at(buf->buf, ncqe, cqe_sz, i),
			      cqe_sz)->op_own = MLX5_CQE_INVALID << 4;
	return 0;
}

/* Buffer, doorbell record and their umems; 0 or an errno. */
static int cq_alloc_mem(struct prov_cq *cq, uint32_t *buf_id, uint32_t *dbr_id)
{
	struct prov_context *pctx = cq->pctx;
	size_t len = (size_t)cq->ncqe * cq->cqe_sz;
	int err;

	err = prov_cq_ring_alloc(&cq->buf, prov_cq_ext(cq), &pctx->xalloc,
				 cq->ncqe, cq->cqe_sz);
	if (err)
		return err;
	/* set_ci and arm start at 0 whoever allocated the record. */
	err = prov_qbuf_dbr_alloc(&cq->dbr_mem, prov_cq_ext(cq), &pctx->xalloc);
	if (err)
		return err;
	cq->dbrec = cq->dbr_mem.buf;
	errno = 0;
	cq->buf_umem = prov_umem_reg(pctx, cq->buf.buf, len,
				     IBV_ACCESS_LOCAL_WRITE, buf_id);
	if (!cq->buf_umem)
		return errno ? errno : ENOMEM;
	cq->dbr_umem = prov_umem_reg(pctx, cq->dbrec, 8, IBV_ACCESS_LOCAL_WRITE,
				     dbr_id);
	if (!cq->dbr_umem)
		return errno ? errno : ENOMEM;
	return 0;
}

/* CREATE_CQ; 0 or an errno. */
static int cq_create_cmd(struct prov_cq *cq, const struct ibv_cq_init_attr_ex *attr,
			 uint32_t buf_id, uint32_t dbr_id)
{
	struct prov_context *pctx = cq->pctx;
	struct prov_verbs_ctx *vc = prov_verbs_ctx(pctx);
	uint8_t in[PRM_ST_SZ_BYTES(create_cq_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(create_cq_out)] = { 0 };
	uint32_t eqn;
	int ret;

	if (!vc->cq_uar)
		return vc->cq_uar_err ? vc->cq_uar_err : ENOMEM;
	ret = pctx->be->query_eqn(pctx->bectx, attr->comp_vector, &eqn);
	if (ret)
		return -ret;
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	PRM_SET(create_cq_in, in, cq_context.cqe_sz, prov_cq_cqc_sz(cq));
	PRM_SET(create_cq_in, in, cq_context.log_cq_size, prov_log2_floor(cq->ncqe));
	PRM_SET(create_cq_in, in, cq_context.uar_page, vc->cq_uar_page);
	PRM_SET(create_cq_in, in, cq_context.c_eqn, eqn);
	PRM_SET(create_cq_in, in, cq_context.log_page_size, 0);
	PRM_SET(create_cq_in, in, cq_context.page_offset, 0);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_valid, 1);
	PRM_SET(create_cq_in, in, cq_context.dbr_umem_id, dbr_id);
	PRM_SET64(create_cq_in, in, cq_context.dbr_addr, 0);
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		PRM_SET(create_cq_in, in, cq_context.oi, 1);
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
	PRM_SET(create_cq_in, in, cq_umem_id, buf_id);
	PRM_SET64(create_cq_in, in, cq_umem_offset, 0);
	cq->obj = prov_obj_create(pctx, in, sizeof(in), out, sizeof(out));
	if (!cq->obj)
		return errno;
	cq->cqn = PRM_GET(create_cq_out, out, cqn);
	return 0;
}

/* verbs_init_cq(). */
static void cq_init_verbs(struct prov_cq *cq, struct ibv_context *context,
			  struct ibv_comp_channel *channel, void *cq_context)
{
	struct ibv_cq *ibcq = ibv_cq_ex_to_cq(&cq->ex);

	ibcq->context = context;
	ibcq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		++channel->refcnt;
		pthread_mutex_unlock(&context->mutex);
	}
	ibcq->cq_context = cq_context;
	ibcq->comp_events_completed = 0;
	ibcq->async_events_completed = 0;
	pthread_mutex_init(&ibcq->mutex, NULL);
	pthread_cond_init(&ibcq->cond, NULL);
}

static struct prov_cq *create_cq(struct ibv_context *context,
				 const struct ibv_cq_init_attr_ex *attr,
				 bool extended,
				 const struct mlx5dv_cq_init_attr *dv)
{
	struct prov_context *pctx = to_prov_context(context);
	unsigned long long ncqe;
	uint32_t buf_id, dbr_id;
	struct prov_cq *cq;
	bool rt_ts = false;
	int cqe_sz, err;

	err = cq_check_attr(pctx, attr, extended, dv, &rt_ts);
	if (err)
		goto err;
	ncqe = prov_roundup_pow2((uint64_t)attr->cqe + 1);
	if (ncqe > (1u << 24) || ncqe < (unsigned long long)attr->cqe + 1) {
		err = EINVAL;
		goto err;
	}
	cqe_sz = cq_cqe_size(dv);
	if (cqe_sz < 0) {
		err = -cqe_sz;
		goto err;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		err = ENOMEM;
		goto err;
	}
	cq->pctx = pctx;
	cq->ncqe = (uint32_t)ncqe;
	cq->cqe_sz = (uint32_t)cqe_sz;
	cq->extended = extended;
	cq->wc_flags = attr->wc_flags;
	cq->rt_ts = rt_ts;
	cq->single_threaded = (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			      (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	atomic_init(&cq->use, 0);
	/* libmlx5 takes only the parent domain's allocators here: its thread
	 * domain leaves the CQ's locking to IBV_CREATE_CQ_ATTR_SINGLE_THREADED. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		cq->parent = attr->parent_domain;

	err = cq_alloc_mem(cq, &buf_id, &dbr_id);
	if (!err)
		err = cq_check_dv(pctx, dv, cq->cqe_sz);
	if (err)
		goto err_mem;
	cq->cqe_pad = dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_FLAGS) &&
		      (dv->flags & MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD);
	err = cq_check_kernel(pctx, context, attr, cq->ncqe);
	if (err)
		goto err_mem;
	err = cq_create_cmd(cq, attr, buf_id, dbr_id);
	if (err)
		goto err_mem;

	cq->ex.handle = prov_handle_alloc(pctx);
	cq->ex.cqe = (int)(cq->ncqe - 1);
	if (cq->parent)
		prov_pd_parent_hold(cq->parent);
	if (extended)
		prov_cq_ex_set_poll_ops(cq);
	cq_init_verbs(cq, context, attr->channel, attr->cq_context);
	/* Its events: CQ_ERR to async_fd, completions to its channel. */
	prov_ev_register(pctx, &cq->ev, PROV_EV_CQ, cq->obj);
	(void)prov_cq_channel_subscribe(cq);
	return cq;

err_mem:
	cq_free_mem(cq);
	pthread_spin_destroy(&cq->lock);
	free(cq);
err:
	errno = err;
	return NULL;
}

MLX5EMU_ABI(ibv_create_cq);
struct ibv_cq *mlx5emu_abi_ibv_create_cq(struct ibv_context *context, int cqe,
					 void *cq_context,
					 struct ibv_comp_channel *channel,
					 int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = (uint32_t)cqe,
		.cq_context = cq_context,
		.channel = channel,
		.comp_vector = (uint32_t)comp_vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct prov_cq *cq;

	if (context && prov_mana_is(context)) {
		struct ibv_cq *mcq = prov_mana_create_cq(context, cqe, channel,
							 comp_vector);

		if (mcq)
			mcq->cq_context = cq_context;
		return mcq;
	}
	if (!context || cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = create_cq(context, &attr, false, NULL);
	return cq ? ibv_cq_ex_to_cq(&cq->ex) : NULL;
}

/* The verbs_context op behind the inline ibv_create_cq_ex(). */
static struct ibv_cq_ex *prov_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct prov_cq *cq;

	if (!attr) {
		errno = EINVAL;
		return NULL;
	}
	/* __lib_ibv_create_cq_ex. */
	if (attr->wc_flags & ~(uint64_t)PROV_CQ_LIB_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = create_cq(context, attr, true, NULL);
	return cq ? &cq->ex : NULL;
}

MLX5EMU_ABI(mlx5dv_create_cq);
struct ibv_cq_ex *mlx5emu_abi_mlx5dv_create_cq(struct ibv_context *context,
					       struct ibv_cq_init_attr_ex *cq_attr,
					       struct mlx5dv_cq_init_attr *mlx5_cq_attr)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(context))
		return prov_mana_unsupported();
	struct prov_cq *cq;

	if (!context || !cq_attr) {
		errno = EINVAL;
		return NULL;
	}
	cq = create_cq(context, cq_attr, true, mlx5_cq_attr);
	return cq ? &cq->ex : NULL;
}

MLX5EMU_ABI(ibv_destroy_cq);
int mlx5emu_abi_ibv_destroy_cq(struct ibv_cq *ibcq)
{
	if (ibcq && prov_mana_is(ibcq->context))
		return prov_mana_destroy_cq(ibcq);
	struct ibv_comp_channel *channel;
	struct prov_cq *cq;
	int expected = 0;
	int err;

	if (!ibcq) {
		errno = EINVAL;
		return EINVAL;
	}
	cq = to_prov_cq(ibcq);
	channel = ibcq->channel;
	if (!atomic_compare_exchange_strong(&cq->use, &expected, -1)) {
		errno = EBUSY;
		return EBUSY;
	}
	err = prov_obj_destroy(cq->pctx, cq->obj);
	if (err) {
		atomic_store(&cq->use, 0);
		errno = err;
		return err;
	}
	/* ib_uverbs_release_ucq: unread events go; then libibverbs waits
	 * for the acknowledgement of every event that was read. */
	prov_ev_unregister(cq->pctx, &cq->ev);
	if (channel)
		prov_channel_drain(channel);
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != cq->comp_events_reported ||
	       ibcq->async_events_completed != cq->async_events_reported)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);

	cq_free_mem(cq);
	pthread_spin_destroy(&cq->lock);
	if (cq->parent)
		prov_pd_parent_release(cq->parent);
	if (channel) {
		pthread_mutex_lock(&channel->context->mutex);
		--channel->refcnt;
		pthread_mutex_unlock(&channel->context->mutex);
	}
	free(cq);
	return 0;
}

/* The DEVX object methods on the CQ's own object (mlx5_devx_cq_query). */
MLX5EMU_ABI(mlx5dv_devx_cq_query);
int mlx5emu_abi_mlx5dv_devx_cq_query(struct ibv_cq *ibcq, const void *in,
				     size_t inlen, void *out, size_t outlen)
{
	if (ibcq && prov_mana_is(ibcq->context))
		return EOPNOTSUPP;
	struct prov_cq *cq;

	if (!ibcq)
		return prov_err(EINVAL);
	cq = to_prov_cq(ibcq);
	return prov_devx_obj_query(cq->pctx, cq->obj, in, inlen, out, outlen);
}

MLX5EMU_ABI(mlx5dv_devx_cq_modify);
int mlx5emu_abi_mlx5dv_devx_cq_modify(struct ibv_cq *ibcq, const void *in,
				      size_t inlen, void *out, size_t outlen)
{
	if (ibcq && prov_mana_is(ibcq->context))
		return EOPNOTSUPP;
	struct prov_cq *cq;

	if (!ibcq)
		return prov_err(EINVAL);
	cq = to_prov_cq(ibcq);
	return prov_devx_obj_modify(cq->pctx, cq->obj, in, inlen, out, outlen);
}

void prov_cq_set_ops(struct prov_context *pctx)
{
	pctx->vctx.create_cq_ex = prov_create_cq_ex;
	pctx->vctx.context.ops.poll_cq = prov_cq_poll;
	pctx->vctx.context.ops.req_notify_cq = prov_cq_arm;
	pctx->vctx.modify_cq = prov_cq_modify;
}
