/* SPDX-License-Identifier: MIT */
/*
 * A raw packet QP's Ethernet segment, as libmlx5 44 fills it for
 * ibv_post_send and for the ibv_wr_* builders alike: the checksum flags;
 * then either the first eth_min_inline bytes of the frame (0 or 18, as
 * the device's wqe_inline_mode asks), copied from the data, or TSO's MSS
 * and whole headers.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "provider/core/bits.h"
#include "provider/verbs/qp.h"
#include "provider/verbs/qp_int.h"
#include "provider/verbs/sq.h"

int prov_eth_seg_init(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
		      unsigned int send_flags)
{
	memset(eseg, 0, sizeof(*eseg));
	if (send_flags & IBV_SEND_IP_CSUM) {
		if (!qp->csum_ok)
			return EINVAL;
		eseg->cs_flags |= MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM;
	}
	return 0;
}

/* Element i of an SGE list or of a list of buffers. */
static const void *eth_elem(const struct ibv_sge *sges,
			    const struct ibv_data_buf *bufs, size_t i,
			    size_t *len)
{
	if (sges) {
		*len = sges[i].length;
		return (const void *)(uintptr_t)sges[i].addr;
	}
	*len = bufs[i].length;
	return bufs[i].addr;
}

int prov_eth_inline_hdrs(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
			 const struct ibv_sge *sges,
			 const struct ibv_data_buf *bufs, size_t n,
			 unsigned int *index, size_t *offset)
{
	size_t inl = qp->eth_min_inline, left = inl, copied = 0, len;
	/* The headers run on past the 2-byte inline_hdr_start field. */
	uint8_t *hdr = (uint8_t *)eseg +
		       offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start);
	const void *addr;
	size_t j = 0;

	if (n < 1)
		return EINVAL;
	addr = eth_elem(sges, bufs, 0, &len);
	if (len >= PROV_ETH_L2_INLINE_HEADER_SIZE) {
		copied = inl;
		memcpy(hdr, addr, copied);
	} else {
		for (j = 0; j < n && left > 0; ++j) {
			addr = eth_elem(sges, bufs, j, &len);
			copied = len < left ? len : left;
			memcpy(hdr + (inl - left), addr, copied);
			left -= copied;
		}
		if (left)
			return EINVAL;
		if (j)
			--j;
	}
	eseg->inline_hdr_sz = htobe16((uint16_t)inl);
	/* An element taken whole: the data starts with the next one. */
	if (len == copied) {
		++j;
		copied = 0;
	}
	*index = (unsigned int)j;
	*offset = copied;
	return 0;
}

int prov_eth_tso_hdrs(struct prov_qp *qp, struct mlx5_wqe_eth_seg *eseg,
		      const void *hdr, size_t hdr_sz, uint16_t mss, void **seg,
		      unsigned int *ds)
{
	size_t room, first;

	if (hdr_sz < PROV_ETH_L2_MIN_HEADER_SIZE || hdr_sz > qp->max_tso_header)
		return EINVAL;
	eseg->mss = htobe16(mss);
	eseg->inline_hdr_sz = htobe16((uint16_t)hdr_sz);
	room = (size_t)((char *)qp->sq_end - (char *)eseg->inline_hdr_start);
	first = hdr_sz < room ? hdr_sz : room;
	memcpy(eseg->inline_hdr_start, hdr, first);
	/* The segment holds 2 + 16 header bytes; the rest 16 at a time. */
	if (first == hdr_sz) {
		size_t tail = prov_align(first - sizeof(eseg->inline_hdr_start), 16);

		*seg = prov_sq_wrap(qp, (char *)eseg + 16 + tail);
		*ds += (unsigned int)(16 + tail) / 16;
	} else {
		size_t rest = hdr_sz - first;

		memcpy(qp->sq_start, (const uint8_t *)hdr + first, rest);
		*seg = (char *)qp->sq_start + prov_align(rest, 16);
		*ds += (unsigned int)(((char *)qp->sq_end - (char *)eseg) / 16 +
				      prov_align(rest, 16) / 16);
	}
	return 0;
}

size_t prov_eth_seg_size(const struct prov_qp *qp)
{
	/* Room for the first two header bytes is always there. */
	return (offsetof(struct mlx5_wqe_eth_seg, inline_hdr) +
		qp->eth_min_inline) & ~(size_t)0xf;
}
