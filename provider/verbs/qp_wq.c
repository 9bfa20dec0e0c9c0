/* SPDX-License-Identifier: MIT */
/*
 * Work-queue memory as libmlx5 44 lays it out for QPs and SRQs alike: the
 * ring in application memory, a 64-byte doorbell record, both registered
 * as umems that the CREATE command names; and the count of async events
 * the application read, which destroy waits to see acknowledged (as
 * libibverbs does).
 *
 * A QP's ring (RQ at offset 0, SQ after it) is page-aligned memory of the
 * MLX_QP_ALLOC_TYPE kind (HUGE_RC/HUGE_UC/HUGE_UD=y make HUGE the
 * default); an XRC target's queues are never used and not registered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "provider/core/context.h"
#include "provider/core/bits.h"
#include "provider/core/qbuf.h"
#include "provider/verbs/pd.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/verbs_ctx.h"

int prov_wq_db_alloc(struct prov_context *pctx, struct prov_qbuf *mem,
		     __be32 **db, struct ibv_pd *pd)
{
	int err = prov_qbuf_dbr_alloc(mem, pd ? prov_pd_ext(pd) : NULL,
				      &pctx->xalloc);

	*db = err ? NULL : mem->buf;
	return err;
}

int prov_wq_umem_reg(struct prov_context *pctx, struct prov_qbuf *buf,
		     __be32 *db, struct mlx5be_umem **buf_umem,
		     struct mlx5be_umem **db_umem, uint32_t *buf_id,
		     uint32_t *db_id)
{
	errno = 0;
	*buf_umem = prov_umem_reg(pctx, buf->buf, buf->length,
				  IBV_ACCESS_LOCAL_WRITE, buf_id);
	if (!*buf_umem)
		return errno ? errno : ENOMEM;
	*db_umem = prov_umem_reg(pctx, db, 8, IBV_ACCESS_LOCAL_WRITE, db_id);
	if (!*db_umem)
		return errno ? errno : ENOMEM;
	return 0;
}

void prov_wq_mem_free(struct prov_context *pctx, struct prov_qbuf *buf,
		      struct prov_qbuf *db_mem, __be32 **db,
		      struct mlx5be_umem **buf_umem, struct mlx5be_umem **db_umem)
{
	prov_umem_dereg(pctx, *db_umem);
	prov_umem_dereg(pctx, *buf_umem);
	*db_umem = NULL;
	*buf_umem = NULL;
	prov_qbuf_free(db_mem);
	*db = NULL;
	prov_qbuf_free(buf);
}

void prov_wq_wait_events(pthread_mutex_t *mutex, pthread_cond_t *cond,
			 const uint32_t *completed, const uint32_t *reported)
{
	pthread_mutex_lock(mutex);
	while (*completed != *reported)
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
}

void prov_wq_event_reported(pthread_mutex_t *mutex, uint32_t *reported)
{
	pthread_mutex_lock(mutex);
	(*reported)++;
	pthread_mutex_unlock(mutex);
}

/* ---- a QP's queues ---- */

static const char *qp_huge_key(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return "HUGE_RC";
	case IBV_QPT_UC:
		return "HUGE_UC";
	case IBV_QPT_UD:
		return "HUGE_UD";
	case IBV_QPT_RAW_PACKET:
		return "HUGE_RAW_ETH";
	default:
		return "HUGE_NA";
	}
}

static bool qp_use_huge(enum ibv_qp_type t)
{
	const char *e = getenv(qp_huge_key(t));

	return e && !strcmp(e, "y");
}

/* The QPC's page_offset counts 64ths of a page (libmlx5's
 * MLX5_QPC_PAGE_OFFSET_QUANTA). */
#define PROV_QPC_PAGE_OFFSET_QUANTA 64u

/*
 * mlx5_set_custom_qp_alignment(): what the QPC's page offset can express
 * (a 64th of the buffer's power-of-two page) and the larger WQE stride.
 */
static size_t qp_custom_align(const struct prov_qp *qp)
{
	size_t page = prov_roundup_pow2(prov_align(qp->buf_size, PROV_PAGE_SIZE));
	size_t stride = (size_t)1 << (qp->sq.wqe_shift > qp->rq.wqe_shift ?
				      qp->sq.wqe_shift : qp->rq.wqe_shift);
	size_t quanta = page / PROV_QPC_PAGE_OFFSET_QUANTA;

	return stride > quanta ? stride : quanta;
}

/* The ring: the application's allocator (MLX5DV_RES_TYPE_QP) when the PD
 * has one and it does not hand back, else MLX_QP_ALLOC_TYPE's kind,
 * zeroed; the allocator's memory is left as it comes, as libmlx5 does. */
static int qp_buf_alloc(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr)
{
	const struct prov_qbuf_ext *ext = attr->pd ? prov_pd_ext(attr->pd) : NULL;
	size_t align = PROV_PAGE_SIZE;
	bool dflt;
	int err;

	/* A raw packet QP keeps page alignment (libmlx5; none here yet). */
	if (ext && attr->qp_type != IBV_QPT_RAW_PACKET)
		align = qp_custom_align(qp);
	err = prov_qbuf_alloc_ext(&qp->buf, ext, &qp->pctx->xalloc,
				  prov_align(qp->buf_size, align), align,
				  MLX5DV_RES_TYPE_QP, &dflt);
	if (err || !dflt)
		return err;
	err = prov_qbuf_alloc_dflt(&qp->buf, qp->buf_size, "MLX_QP",
				   qp_use_huge(attr->qp_type));
	if (err)
		return err;
	memset(qp->buf.buf, 0, qp->buf_size);
	return 0;
}

/* A raw packet QP's SQ ring: a buffer of its own, page aligned, asked
 * of the allocator after the RQ's (libmlx5's sq_buf), zeroed unless the
 * allocator's. */
static int qp_sq_buf_alloc(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr)
{
	const struct prov_qbuf_ext *ext = attr->pd ? prov_pd_ext(attr->pd) : NULL;
	size_t size = prov_align(qp->sq_buf_size, PROV_PAGE_SIZE);
	bool dflt;
	int err;

	err = prov_qbuf_alloc_ext(&qp->sq_buf, ext, &qp->pctx->xalloc, size,
				  PROV_PAGE_SIZE, MLX5DV_RES_TYPE_QP, &dflt);
	if (err || !dflt)
		return err;
	err = prov_qbuf_alloc_dflt(&qp->sq_buf, size, "MLX_QP",
				   qp_use_huge(attr->qp_type));
	if (err)
		return err;
	memset(qp->sq_buf.buf, 0, size);
	return 0;
}

void prov_qp_free_mem(struct prov_qp *qp)
{
	prov_umem_dereg(qp->pctx, qp->sq_buf_umem);
	qp->sq_buf_umem = NULL;
	prov_qbuf_free(&qp->sq_buf);
	prov_wq_mem_free(qp->pctx, &qp->buf, &qp->db_mem, &qp->db,
			 &qp->buf_umem, &qp->db_umem);
	free(qp->sq.wrid);
	free(qp->sq.wqe_head);
	free(qp->sq.wr_data);
	free(qp->rq.wrid);
	qp->sq.wrid = NULL;
	qp->sq.wqe_head = NULL;
	qp->sq.wr_data = NULL;
	qp->rq.wrid = NULL;
}

/* A raw packet QP's rings (either may be absent) and its record. */
static int qp_raw_umem_reg(struct prov_qp *qp, struct prov_qp_mem_ids *ids)
{
	struct prov_context *pctx = qp->pctx;

	errno = 0;
	if (qp->buf_size) {
		qp->buf_umem = prov_umem_reg(pctx, qp->buf.buf, qp->buf.length,
					     IBV_ACCESS_LOCAL_WRITE, &ids->buf);
		if (!qp->buf_umem)
			return errno ? errno : ENOMEM;
	}
	if (qp->sq_buf_size) {
		qp->sq_buf_umem = prov_umem_reg(pctx, qp->sq_buf.buf,
						qp->sq_buf.length,
						IBV_ACCESS_LOCAL_WRITE,
						&ids->sq_buf);
		if (!qp->sq_buf_umem)
			return errno ? errno : ENOMEM;
	}
	qp->db_umem = prov_umem_reg(pctx, qp->db, 8, IBV_ACCESS_LOCAL_WRITE,
				    &ids->db);
	return qp->db_umem ? 0 : (errno ? errno : ENOMEM);
}

/* mlx5_alloc_qp_buf() and the doorbell record; 0 or an errno.  The umem
 * ids in @ids (0: none, an XRC target has no queues).  A raw packet QP's
 * SQ is a ring of its own (sq.offset 0 in it), the RQ alone in buf. */
int prov_qp_alloc_mem(struct prov_qp *qp, struct ibv_qp_init_attr_ex *attr,
		      struct prov_qp_mem_ids *ids)
{
	bool raw = attr->qp_type == IBV_QPT_RAW_PACKET;
	int err;

	memset(ids, 0, sizeof(*ids));
	if (raw) {
		qp->sq_buf_size = qp->buf_size - qp->sq.offset;
		qp->buf_size = qp->sq.offset;
		qp->sq.offset = 0;
	}
	if (qp->sq.wqe_cnt) {
		qp->sq.wrid = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wrid));
		qp->sq.wqe_head = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wqe_head));
		qp->sq.wr_data = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wr_data));
		if (!qp->sq.wrid || !qp->sq.wqe_head || !qp->sq.wr_data)
			return ENOMEM;
	}
	if (qp->rq.wqe_cnt) {
		qp->rq.wrid = calloc(qp->rq.wqe_cnt, sizeof(*qp->rq.wrid));
		if (!qp->rq.wrid)
			return ENOMEM;
	}
	/* The ring first, then the record, as libmlx5 asks an allocator. */
	if (qp->buf_size) {
		err = qp_buf_alloc(qp, attr);
		if (err)
			return err;
	}
	if (qp->sq_buf_size) {
		err = qp_sq_buf_alloc(qp, attr);
		if (err)
			return err;
	}
	err = prov_wq_db_alloc(qp->pctx, &qp->db_mem, &qp->db, attr->pd);
	if (err || !(qp->buf_size || qp->sq_buf_size))
		return err;
	/* A raw QP without a send queue has no ring to point into. */
	qp->sq_start = raw ? qp->sq_buf.buf : qp->buf.buf;
	if (qp->sq_start) {
		qp->sq_start = (char *)qp->sq_start + qp->sq.offset;
		qp->sq_end = (char *)qp->sq_start +
			     (size_t)qp->sq.wqe_cnt * PROV_SEND_WQE_BB;
	}
	/* An XRC target's queues are never used: nothing to register. */
	if (prov_qp_is_xrc_tgt(attr->qp_type))
		return 0;
	if (raw)
		return qp_raw_umem_reg(qp, ids);
	return prov_wq_umem_reg(qp->pctx, &qp->buf, qp->db, &qp->buf_umem,
				&qp->db_umem, &ids->buf, &ids->db);
}
