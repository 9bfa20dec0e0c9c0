/* SPDX-License-Identifier: MIT */
/*
 * The ibv_wr_* API of a QP created with send_ops_flags, and mlx5dv_qp_ex,
 * as libmlx5 44 builds WQEs through them (qp.c's mlx5_send_wr_* family).
 *
 * ibv_wr_start takes the send queue; each builder (wr_send, wr_rdma_write,
 * ...) starts a WQE from the QP's wr_id and wr_flags; its setters fill the
 * rest, and the WQE is complete after one setter (RC, UC) or two (UD: the
 * address and the data; XRC: the SRQ number and the data).  ibv_wr_complete
 * posts the batch and rings the doorbell once, or, after any error in the
 * batch, posts nothing and returns that error (the first one); outside RTS
 * it is always EINVAL.  ibv_wr_abort drops the batch.  Errors:
 *
 *   ENOMEM   the queue is full; more SGEs than max_send_sge; inline data
 *            past max_inline_data
 *   EINVAL   a UD address without an AH (libmlx5 would fault)
 *
 * A raw packet QP offers wr_send and wr_send_tso, as libmlx5 does: the
 * WQE carries the Ethernet segment (qp_eth.c) and is complete after one
 * setter; with inline headers (eth_min_inline) the setter's data gives
 * them first.  As in libmlx5, wr_set_sge and wr_set_inline_data skip only
 * the header bytes taken from a longer element, and inline data past the
 * maximum is EINVAL for wr_set_inline_data_list (ENOMEM elsewhere); a
 * checksum offload the device does not do is EINVAL.
 *
 * wr_bind_mw and wr_local_inv build the UMR WQE of ibv_post_send's
 * IBV_WR_BIND_MW and IBV_WR_LOCAL_INV, always as for a type 2 window (as
 * libmlx5's _build_umr_wqe does, whatever the window's type), and fence
 * the next WQE; a bind longer than 2 GiB is EOPNOTSUPP.
 *
 * Creation (EOPNOTSUPP unless noted): send_ops_flags outside what libmlx5
 * offers for the QP type; atomics when the device does none; send with
 * invalidate without the memory management
 * extensions (as ibv_query_device advertises them); mlx5dv memcpy (no DMA
 * MMO engine; without a PD it is EINVAL); DCI streams (not offered).  The
 * mkey ops (MR_LIST, MR_INTERLEAVED, MKEY_CONFIGURE) are RC's alone, as
 * in libmlx5, which asks the device nothing for them (qp_wr_mkey.c).  A builder's work is kept
 * in struct prov_wr_batch (qp.h).  Unlike libmlx5, a builder that found
 * the queue full leaves its setters nothing to write, so no WQE outside
 * the batch is touched.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/mkey.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"

/* libmlx5's MLX5_SUPPORTED_SEND_OPS_FLAGS_* per QP type. */
#define WR_OPS_RAW (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO)
#define WR_OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define WR_OPS_UC                                                             \
	(WR_OPS_UD | IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |  \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_LOCAL_INV |        \
	 IBV_QP_EX_WITH_BIND_MW)
#define WR_OPS_RC                                                             \
	(WR_OPS_UC | IBV_QP_EX_WITH_RDMA_READ |                                \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define WR_OPS_ATOMIC                                                         \
	(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define WR_DV_OPS                                                             \
	(MLX5DV_QP_EX_WITH_MR_INTERLEAVED | MLX5DV_QP_EX_WITH_MR_LIST |         \
	 MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_RAW_WQE |         \
	 MLX5DV_QP_EX_WITH_MEMCPY)

static struct prov_qp *wr_qp(struct ibv_qp_ex *ex)
{
	return (struct prov_qp *)ex;
}

static struct prov_qp *dv_qp(struct mlx5dv_qp_ex *dv)
{
	return (struct prov_qp *)((char *)dv - offsetof(struct prov_qp, dv_qp));
}

MLX5EMU_ABI(mlx5dv_qp_ex_from_ibv_qp_ex);
struct mlx5dv_qp_ex *mlx5emu_abi_mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	return &wr_qp(qp)->dv_qp;
}

/* ---- the batch ---- */

static void wr_start(struct ibv_qp_ex *ex)
{
	struct prov_qp *qp = wr_qp(ex);

	prov_spin_lock(&qp->sq.lock);
	qp->wr.cur_post_rb = qp->sq.cur_post;
	qp->wr.fm_cache_rb = qp->fm_cache;
	qp->wr.err = 0;
	qp->wr.nreq = 0;
	qp->wr.inl = false;
	qp->wr.ctrl = NULL;
	qp->wr.mkey = NULL;
}

static void wr_drop(struct prov_qp *qp)
{
	qp->sq.cur_post = qp->wr.cur_post_rb;
	qp->fm_cache = qp->wr.fm_cache_rb;
	prov_spin_unlock(&qp->sq.lock);
}

static int wr_complete(struct ibv_qp_ex *ex)
{
	struct prov_qp *qp = wr_qp(ex);
	unsigned int nreq = qp->wr.nreq;
	int err = qp->wr.err;

	if (err) {
		wr_drop(qp);
		return err;
	}
	prov_sq_ring(qp, nreq, qp->wr.inl, qp->wr.size, qp->wr.ctrl);
	prov_spin_unlock(&qp->sq.lock);
	if (nreq)
		prov_progress(qp->pctx, MLX5BE_PROGRESS_DOORBELL);
	return 0;
}

/* wr_complete while the QP cannot send. */
static int wr_complete_error(struct ibv_qp_ex *ex)
{
	wr_drop(wr_qp(ex));
	return EINVAL;
}

static void wr_abort(struct ibv_qp_ex *ex)
{
	wr_drop(wr_qp(ex));
}

static void wr_fail(struct prov_qp *qp, int err)
{
	if (!qp->wr.err)
		qp->wr.err = err;
}

void prov_wr_fail(struct prov_qp *qp, int err)
{
	wr_fail(qp, err);
}

void prov_qp_wr_set_state(struct prov_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;

	if (!ex->wr_complete)
		return;
	if (state == IBV_QPS_RESET)
		ex->wr_complete = wr_complete_error;
	else if (state == IBV_QPS_RTS)
		ex->wr_complete = wr_complete;
}

/* ---- builders ---- */

/* The segment between the control segment and the rest. */
static size_t wr_transport_size(const struct prov_qp *qp)
{
	switch (qp->vqp.qp.qp_type) {
	case IBV_QPT_UD:
	case IBV_QPT_DRIVER:	/* a DCI: the DC address */
		return sizeof(struct mlx5_wqe_datagram_seg);
	case IBV_QPT_XRC_SEND:
		return sizeof(struct prov_wqe_xrc_seg);
	default:
		return 0;
	}
}

/* _common_wqe_init_op(): NULL (and ENOMEM) when the queue is full. */
static struct mlx5_wqe_ctrl_seg *wr_begin(struct prov_qp *qp, uint8_t opcode,
					  uint32_t wc_opcode)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	struct mlx5_wqe_ctrl_seg *ctrl;

	qp->wr.ctrl = NULL;
	if (prov_wq_overflow(&qp->sq, qp->wr.nreq, ex->qp_base.send_cq)) {
		wr_fail(qp, ENOMEM);
		return NULL;
	}
	ctrl = prov_sq_begin(qp, qp->wr.nreq, ex->wr_id, ex->wr_flags, opcode,
			     wc_opcode);
	qp->wr.ctrl = ctrl;
	qp->wr.setters = 0;
	qp->wr.nreq++;
	return ctrl;
}

struct mlx5_wqe_ctrl_seg *prov_wr_begin(struct prov_qp *qp, uint8_t opcode,
					uint32_t wc_opcode)
{
	return wr_begin(qp, opcode, wc_opcode);
}

/* A builder whose segments end @bytes after the control segment. */
static struct mlx5_wqe_ctrl_seg *wr_begin_segs(struct prov_qp *qp,
					       uint8_t opcode, size_t bytes)
{
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, opcode, 0);

	if (!ctrl)
		return NULL;
	qp->wr.data = prov_sq_wrap(qp, (char *)(ctrl + 1) + bytes);
	qp->wr.size = (unsigned int)((sizeof(*ctrl) + bytes) / 16);
	return ctrl;
}

static void wr_send(struct ibv_qp_ex *ex)
{
	struct prov_qp *qp = wr_qp(ex);

	wr_begin_segs(qp, MLX5_OPCODE_SEND, wr_transport_size(qp));
}

static void wr_send_imm(struct ibv_qp_ex *ex, __be32 imm_data)
{
	struct prov_qp *qp = wr_qp(ex);
	struct mlx5_wqe_ctrl_seg *ctrl =
		wr_begin_segs(qp, MLX5_OPCODE_SEND_IMM, wr_transport_size(qp));

	if (ctrl)
		ctrl->imm = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *ex, uint32_t invalidate_rkey)
{
	struct prov_qp *qp = wr_qp(ex);
	struct mlx5_wqe_ctrl_seg *ctrl =
		wr_begin_segs(qp, MLX5_OPCODE_SEND_INVAL, wr_transport_size(qp));

	if (ctrl)
		ctrl->imm = htobe32(invalidate_rkey);
}

/* The remote address segment after the transport one (it may wrap). */
static void *wr_raddr(struct prov_qp *qp, struct mlx5_wqe_ctrl_seg *ctrl,
		      uint32_t rkey, uint64_t remote_addr)
{
	void *seg = prov_sq_wrap(qp, (char *)(ctrl + 1) + wr_transport_size(qp));

	prov_set_raddr_seg(seg, remote_addr, rkey);
	return seg;
}

static struct mlx5_wqe_ctrl_seg *wr_rdma(struct prov_qp *qp, uint8_t opcode,
					 uint32_t rkey, uint64_t remote_addr)
{
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, opcode, 0);
	char *raddr;

	if (!ctrl)
		return NULL;
	raddr = wr_raddr(qp, ctrl, rkey, remote_addr);
	qp->wr.data = raddr + sizeof(struct mlx5_wqe_raddr_seg);
	qp->wr.size = (unsigned int)((sizeof(*ctrl) + wr_transport_size(qp) +
				      sizeof(struct mlx5_wqe_raddr_seg)) / 16);
	return ctrl;
}

static void wr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey,
			  uint64_t remote_addr)
{
	wr_rdma(wr_qp(ex), MLX5_OPCODE_RDMA_WRITE, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct mlx5_wqe_ctrl_seg *ctrl =
		wr_rdma(wr_qp(ex), MLX5_OPCODE_RDMA_WRITE_IMM, rkey, remote_addr);

	if (ctrl)
		ctrl->imm = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey,
			 uint64_t remote_addr)
{
	wr_rdma(wr_qp(ex), MLX5_OPCODE_RDMA_READ, rkey, remote_addr);
}

static void wr_atomic(struct prov_qp *qp, uint8_t opcode, uint32_t rkey,
		      uint64_t remote_addr, uint64_t compare_add, uint64_t swap)
{
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, opcode, 0);
	char *raddr;

	if (!ctrl)
		return;
	raddr = wr_raddr(qp, ctrl, rkey, remote_addr);
	prov_set_atomic_seg(raddr + sizeof(struct mlx5_wqe_raddr_seg),
			    opcode == MLX5_OPCODE_ATOMIC_CS, swap, compare_add);
	qp->wr.data = prov_sq_wrap(qp, raddr + sizeof(struct mlx5_wqe_raddr_seg) +
				   sizeof(struct mlx5_wqe_atomic_seg));
	qp->wr.size = (unsigned int)((sizeof(*ctrl) + wr_transport_size(qp) +
				      sizeof(struct mlx5_wqe_raddr_seg) +
				      sizeof(struct mlx5_wqe_atomic_seg)) / 16);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	wr_atomic(wr_qp(ex), MLX5_OPCODE_ATOMIC_CS, rkey, remote_addr, compare,
		  swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	wr_atomic(wr_qp(ex), MLX5_OPCODE_ATOMIC_FA, rkey, remote_addr, add, 0);
}

/* _build_umr_wqe(): a whole WQE, no setter; the next one fenced. */
static void wr_umr(struct prov_qp *qp, uint32_t wc_opcode, uint32_t orig_rkey,
		   uint32_t new_rkey, const struct ibv_mw_bind_info *bi)
{
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, MLX5_OPCODE_UMR, wc_opcode);
	unsigned int ds = sizeof(*ctrl) / 16;
	void *seg;
	int err;

	if (!ctrl)
		return;
	ctrl->imm = htobe32(orig_rkey);
	seg = prov_sq_wrap(qp, ctrl + 1);
	err = prov_sq_bind_segs(qp, &seg, &ds, IBV_MW_TYPE_2, new_rkey, bi);
	if (err) {
		wr_fail(qp, err);
		return;
	}
	qp->wr.size = ds;
	qp->fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	prov_sq_end(qp, ctrl, ds);
}

static void wr_bind_mw(struct ibv_qp_ex *ex, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	wr_umr(wr_qp(ex), IBV_WC_BIND_MW, mw->rkey, rkey, bind_info);
}

static void wr_local_inv(struct ibv_qp_ex *ex, uint32_t invalidate_rkey)
{
	const struct ibv_mw_bind_info none = { 0 };

	wr_umr(wr_qp(ex), IBV_WC_LOCAL_INV, invalidate_rkey, 0, &none);
}

/* ---- setters ---- */

/* A setter was called: the WQE is complete after the type's count. */
static void wr_setter_done(struct prov_qp *qp)
{
	unsigned int needed = wr_transport_size(qp) ? 2 : 1;

	if (++qp->wr.setters == needed)
		prov_sq_end(qp, qp->wr.ctrl, qp->wr.size);
}

static void wr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct prov_qp *qp = wr_qp(ex);

	if (!qp->wr.ctrl)
		return;
	if (length) {
		prov_set_data_seg(qp->wr.data, length, lkey, addr);
		qp->wr.size++;
	}
	wr_setter_done(qp);
}

static void wr_set_sge_list(struct ibv_qp_ex *ex, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct prov_qp *qp = wr_qp(ex);
	char *seg;

	if (!qp->wr.ctrl)
		return;
	if (num_sge > (size_t)qp->sq.max_gs) {
		wr_fail(qp, ENOMEM);
		return;
	}
	seg = qp->wr.data;
	for (size_t i = 0; i < num_sge; i++) {
		if (!sg_list[i].length)
			continue;
		prov_set_data_seg(seg, sg_list[i].length, sg_list[i].lkey,
				  sg_list[i].addr);
		seg = prov_sq_wrap(qp, seg + sizeof(struct mlx5_wqe_data_seg));
		qp->wr.size++;
	}
	wr_setter_done(qp);
}

/* Inline data from @n buffers after the inline header, the first @off
 * bytes of the first skipped; @too_long (ENOMEM, EINVAL) past the QP's
 * maximum. */
static void wr_inline(struct prov_qp *qp, size_t n,
		      const struct ibv_data_buf *bufs, size_t off, int too_long)
{
	char *dst = prov_sq_wrap(qp, (char *)qp->wr.data +
				 sizeof(struct mlx5_wqe_inl_data_seg));
	size_t total = 0;

	for (size_t i = 0; i < n; i++, off = 0) {
		total += bufs[i].length - off;
		if (total > (size_t)qp->max_inline_data) {
			wr_fail(qp, too_long);
			return;
		}
		dst = prov_sq_copy(qp, dst, (const char *)bufs[i].addr + off,
				   bufs[i].length - off);
	}
	qp->wr.inl = true;
	if (total)
		qp->wr.size += prov_close_inline_seg(qp->wr.data, (uint32_t)total);
}

static void wr_set_inline_data(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	struct prov_qp *qp = wr_qp(ex);
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	if (!qp->wr.ctrl)
		return;
	wr_inline(qp, 1, &buf, 0, ENOMEM);
	wr_setter_done(qp);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *ex, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct prov_qp *qp = wr_qp(ex);

	if (!qp->wr.ctrl)
		return;
	wr_inline(qp, num_buf, buf_list, 0, ENOMEM);
	wr_setter_done(qp);
}

static void wr_set_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct prov_qp *qp = wr_qp(ex);

	if (!qp->wr.ctrl)
		return;
	/* libmlx5 would fault on a missing AH. */
	if (!ah) {
		wr_fail(qp, EINVAL);
		return;
	}
	prov_set_datagram_seg(qp->wr.ctrl + 1, ah, remote_qpn, remote_qkey);
	wr_setter_done(qp);
}

/* mlx5dv_wr_set_dc_addr(): the AH's address vector, the DCT number and
 * its access key in the datagram segment. */
static void wr_set_dc_addr(struct mlx5dv_qp_ex *dv, struct ibv_ah *ah,
			   uint32_t remote_dctn, uint64_t remote_dc_key)
{
	struct prov_qp *qp = dv_qp(dv);
	struct mlx5_wqe_datagram_seg *d;

	if (!qp->wr.ctrl)
		return;
	if (!ah) {
		wr_fail(qp, EINVAL);
		return;
	}
	d = (struct mlx5_wqe_datagram_seg *)(qp->wr.ctrl + 1);
	memcpy(&d->av, prov_ah_av(ah), sizeof(d->av));
	d->av.dqp_dct |= htobe32(remote_dctn | MLX5_EXTENDED_UD_AV);
	d->av.key.dc_key = htobe64(remote_dc_key);
	wr_setter_done(qp);
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *ex, uint32_t remote_srqn)
{
	struct prov_qp *qp = wr_qp(ex);
	struct prov_wqe_xrc_seg *xrc;

	if (!qp->wr.ctrl)
		return;
	xrc = (struct prov_wqe_xrc_seg *)(qp->wr.ctrl + 1);
	xrc->xrc_srqn = htobe32(remote_srqn);
	wr_setter_done(qp);
}

/* mlx5dv_wr_raw_wqe(): the application's WQE, our index in it. */
static void wr_raw_wqe(struct mlx5dv_qp_ex *dv, const void *wqe)
{
	struct prov_qp *qp = dv_qp(dv);
	const struct mlx5_wqe_ctrl_seg *src = wqe;
	unsigned int ds = be32toh(src->qpn_ds) & 0x3f;
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, 0, IBV_WC_DRIVER2);

	if (!ctrl)
		return;
	prov_sq_copy(qp, ctrl, wqe, (size_t)ds * 16);
	ctrl->opmod_idx_opcode = htobe32((be32toh(src->opmod_idx_opcode) &
					  0xff0000ffu) |
					 (qp->sq.cur_post & 0xffff) << 8);
	qp->wr.size = ds;
	prov_sq_commit(qp, ctrl, ds);
}

/* ---- raw packet QPs ---- */

/* mlx5_send_wr_send_eth(): the Ethernet segment, its inline headers left
 * to the setter. */
static void wr_send_eth(struct ibv_qp_ex *ex)
{
	struct prov_qp *qp = wr_qp(ex);
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, MLX5_OPCODE_SEND, 0);
	struct mlx5_wqe_eth_seg *eseg;

	qp->wr.eth = NULL;
	if (!ctrl)
		return;
	eseg = (struct mlx5_wqe_eth_seg *)(ctrl + 1);
	if (prov_eth_seg_init(qp, eseg, ex->wr_flags)) {
		wr_fail(qp, EINVAL);
		qp->wr.ctrl = NULL;
		return;
	}
	if (qp->eth_min_inline)
		qp->wr.eth = eseg;
	qp->wr.data = prov_sq_wrap(qp, (char *)eseg + prov_eth_seg_size(qp));
	qp->wr.size = (unsigned int)((sizeof(*ctrl) + prov_eth_seg_size(qp)) / 16);
}

/* mlx5_send_wr_send_tso(): the MSS and the headers, the data after. */
static void wr_send_tso(struct ibv_qp_ex *ex, void *hdr, uint16_t hdr_sz,
			uint16_t mss)
{
	struct prov_qp *qp = wr_qp(ex);
	struct mlx5_wqe_ctrl_seg *ctrl = wr_begin(qp, MLX5_OPCODE_TSO, 0);
	struct mlx5_wqe_eth_seg *eseg;
	unsigned int ds = sizeof(*ctrl) / 16;
	void *seg;
	int err;

	qp->wr.eth = NULL;
	if (!ctrl)
		return;
	eseg = (struct mlx5_wqe_eth_seg *)(ctrl + 1);
	err = prov_eth_seg_init(qp, eseg, ex->wr_flags);
	if (!err)
		err = prov_eth_tso_hdrs(qp, eseg, hdr, hdr_sz, mss, &seg, &ds);
	if (err) {
		wr_fail(qp, err);
		qp->wr.ctrl = NULL;
		return;
	}
	qp->wr.data = seg;
	qp->wr.size = ds;
}

/* The inline headers from the setter's data (none asked: nothing);
 * false after an error. */
static bool wr_eth_hdrs(struct prov_qp *qp, const struct ibv_sge *sges,
			const struct ibv_data_buf *bufs, size_t n,
			unsigned int *index, size_t *offset)
{
	int err;

	*index = 0;
	*offset = 0;
	if (!qp->wr.eth)
		return true;
	err = prov_eth_inline_hdrs(qp, qp->wr.eth, sges, bufs, n, index, offset);
	if (err)
		wr_fail(qp, err);
	return !err;
}

static void wr_set_sge_eth(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
			   uint32_t length)
{
	struct prov_qp *qp = wr_qp(ex);
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	unsigned int index;
	size_t off;

	if (!qp->wr.ctrl || !wr_eth_hdrs(qp, &sge, NULL, 1, &index, &off))
		return;
	wr_set_sge(ex, lkey, addr + off, length - (uint32_t)off);
}

static void wr_set_sge_list_eth(struct ibv_qp_ex *ex, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct prov_qp *qp = wr_qp(ex);
	unsigned int index;
	char *seg;
	size_t off;

	if (!qp->wr.ctrl)
		return;
	if (num_sge > (size_t)qp->sq.max_gs) {
		wr_fail(qp, ENOMEM);
		return;
	}
	if (!wr_eth_hdrs(qp, sg_list, NULL, num_sge, &index, &off))
		return;
	seg = qp->wr.data;
	for (size_t i = index; i < num_sge; i++, off = 0) {
		uint32_t len = sg_list[i].length - (uint32_t)off;

		if (!len)
			continue;
		prov_set_data_seg(seg, len, sg_list[i].lkey, sg_list[i].addr + off);
		seg = prov_sq_wrap(qp, seg + sizeof(struct mlx5_wqe_data_seg));
		qp->wr.size++;
	}
	wr_setter_done(qp);
}

static void wr_set_inline_data_eth(struct ibv_qp_ex *ex, void *addr,
				   size_t length)
{
	struct prov_qp *qp = wr_qp(ex);
	struct ibv_data_buf buf = { .addr = addr, .length = length };
	unsigned int index;
	size_t off;

	if (!qp->wr.ctrl || !wr_eth_hdrs(qp, NULL, &buf, 1, &index, &off))
		return;
	wr_inline(qp, 1, &buf, off, ENOMEM);
	wr_setter_done(qp);
}

static void wr_set_inline_data_list_eth(struct ibv_qp_ex *ex, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct prov_qp *qp = wr_qp(ex);
	unsigned int index;
	size_t off;

	if (!qp->wr.ctrl ||
	    !wr_eth_hdrs(qp, NULL, buf_list, num_buf, &index, &off))
		return;
	wr_inline(qp, num_buf - index, buf_list + index, off, EINVAL);
	wr_setter_done(qp);
}

/* ---- creation ---- */

/* What libmlx5 offers per QP type; the op slots of the type. */
static int wr_fill_type(struct prov_qp *qp, enum ibv_qp_type type,
			uint64_t ops, uint64_t dv_ops)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	bool rd = false;

	switch (type) {
	case IBV_QPT_RC:
		if (ops & ~(uint64_t)WR_OPS_RC)
			return EOPNOTSUPP;
		rd = true;
		/* libmlx5 gives an RC QP every mlx5dv op once any is asked. */
		if (dv_ops)
			prov_qp_wr_mkey_init(qp);
		break;
	case IBV_QPT_XRC_SEND:
		if ((ops & ~(uint64_t)WR_OPS_RC) ||
		    (dv_ops & ~(uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE))
			return EOPNOTSUPP;
		rd = true;
		ex->wr_set_xrc_srqn = wr_set_xrc_srqn;
		break;
	case IBV_QPT_UC:
		if ((ops & ~(uint64_t)WR_OPS_UC) ||
		    (dv_ops & ~(uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_UD:
		if ((ops & ~(uint64_t)WR_OPS_UD) ||
		    (dv_ops & ~(uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE))
			return EOPNOTSUPP;
		ex->wr_set_ud_addr = wr_set_ud_addr;
		break;
	case IBV_QPT_DRIVER:
		/* A DCI (prov_qp_check_lib refused any other): RC's
		 * operations; DCI streams are not offered. */
		if (qp->dc != PROV_QP_DCI || (ops & ~(uint64_t)WR_OPS_RC) ||
		    (dv_ops & ~(uint64_t)(MLX5DV_QP_EX_WITH_RAW_WQE |
					  MLX5DV_QP_EX_WITH_MEMCPY)))
			return EOPNOTSUPP;
		rd = true;
		qp->dv_qp.wr_set_dc_addr = wr_set_dc_addr;
		break;
	case IBV_QPT_RAW_PACKET:
		if ((ops & ~(uint64_t)WR_OPS_RAW) ||
		    (dv_ops & ~(uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE))
			return EOPNOTSUPP;
		ex->wr_send = wr_send_eth;
		ex->wr_send_tso = wr_send_tso;
		ex->wr_set_sge = wr_set_sge_eth;
		ex->wr_set_sge_list = wr_set_sge_list_eth;
		ex->wr_set_inline_data = wr_set_inline_data_eth;
		ex->wr_set_inline_data_list = wr_set_inline_data_list_eth;
		return 0;
	default:
		return EOPNOTSUPP;
	}
	ex->wr_send = wr_send;
	ex->wr_send_imm = wr_send_imm;
	ex->wr_set_sge = wr_set_sge;
	ex->wr_set_sge_list = wr_set_sge_list;
	ex->wr_set_inline_data = wr_set_inline_data;
	ex->wr_set_inline_data_list = wr_set_inline_data_list;
	if (type == IBV_QPT_UD)
		return 0;
	ex->wr_send_inv = wr_send_inv;
	ex->wr_bind_mw = wr_bind_mw;
	ex->wr_local_inv = wr_local_inv;
	ex->wr_rdma_write = wr_rdma_write;
	ex->wr_rdma_write_imm = wr_rdma_write_imm;
	if (rd) {
		ex->wr_rdma_read = wr_rdma_read;
		ex->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
		ex->wr_atomic_fetch_add = wr_atomic_fetch_add;
	}
	return 0;
}

/* What the device advertises beyond libmlx5's per-type sets. */
static int wr_check_device(struct prov_qp *qp,
			   const struct ibv_qp_init_attr_ex *attr,
			   uint64_t ops, uint64_t dv_ops)
{
	struct prov_context *pctx = qp->pctx;

	if ((ops & IBV_QP_EX_WITH_SEND_WITH_INV) && !prov_caps_mem_mgt_ext(pctx))
		return EOPNOTSUPP;
	/* qp_init_wr_memcpy(): a PD first, then the DMA MMO caps (none). */
	if (dv_ops & MLX5DV_QP_EX_WITH_MEMCPY)
		return (attr->comp_mask & IBV_QP_INIT_ATTR_PD) ? EOPNOTSUPP : EINVAL;
	return 0;
}

int prov_qp_wr_init(struct prov_qp *qp, const struct ibv_qp_init_attr_ex *attr,
		    const struct mlx5dv_qp_init_attr *dv)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;
	uint64_t ops = (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ?
		       attr->send_ops_flags : 0;
	uint64_t dv_ops = 0;
	int err;

	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		dv_ops = dv->send_ops_flags;
	ex->wr_start = wr_start;
	ex->wr_complete = wr_complete;
	ex->wr_abort = wr_abort;
	if (!qp->atomics_enabled && (ops & WR_OPS_ATOMIC))
		return EOPNOTSUPP;
	if (dv_ops) {
		if (dv_ops & ~(uint64_t)WR_DV_OPS)
			return EOPNOTSUPP;
		qp->dv_qp.wr_raw_wqe = wr_raw_wqe;
	}
	err = wr_fill_type(qp, attr->qp_type, ops, dv_ops);
	if (err)
		return err;
	return wr_check_device(qp, attr, ops, dv_ops);
}
