/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_mr.c -- moving data through mkeys.
 *
 * Every buffer a WQE names is resolved through an mkey of the QP's PD with
 * the access the operation needs and inside its bounds
 * (emu_fw_mkey_resolve_run: an indirect mkey's range comes in pieces, one
 * per KLM entry); memory is then touched only through emu/mem, so
 * memory unmapped after registration is a status, not a crash.  In process
 * a payload is not copied twice: the requester hands the responder the
 * resolved source fragments and the responder copies straight into the
 * destination.  When such a copy faults, the source is probed to tell
 * whose memory went away: the sender's (a local error of the requester,
 * nothing at the responder) or the receiver's.
 */
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

static enum eng_mr_res eng_mr_res_of(enum emu_fw_mkey_res r)
{
	return r == EMU_FW_MKEY_OK ? ENG_MR_OK : ENG_MR_PROT;
}

enum eng_mr_res eng_mr_gather(struct eng_qp *qp, const struct eng_wqe *w,
			      struct eng_pkt *pkt)
{
	struct emu_fw *fw = qp->dev->fw;

	pkt->len = w->len;
	if (w->inl) {
		pkt->pay = ENG_PAY_BUF;
		pkt->buf = w->inl_data;
		pkt->nfrags = 0;
		return ENG_MR_OK;
	}
	pkt->pay = ENG_PAY_FRAGS;
	pkt->nfrags = 0;
	for (unsigned int i = 0; i < w->nsge; i++) {
		uint64_t addr = w->sge[i].addr, left = w->sge[i].len, run;
		uint8_t *host;
		enum emu_fw_mkey_res r;

		/* An indirect mkey gives its range in pieces, one per KLM
		 * entry; the whole range is checked with the first. */
		do {
			r = emu_fw_mkey_resolve_run(fw, w->sge[i].lkey,
						    qp->fq->pd, qp->fq->obj.id,
						    EMU_FW_MKEY_LR, addr, left,
						    &host, &run);
			if (r != EMU_FW_MKEY_OK)
				return eng_mr_res_of(r);
			if (pkt->nfrags == ENG_MAX_SGE)
				return ENG_MR_PROT;	/* past the model's pieces */
			pkt->frags[pkt->nfrags].addr = host;
			pkt->frags[pkt->nfrags].len = (uint32_t)run;
			pkt->nfrags++;
			addr += run;
			left -= run;
		} while (left);
	}
	return ENG_MR_OK;
}

/* Whether any page of the source fragments is gone. */
static bool eng_mr_src_faults(const struct eng_pkt *pkt, uint32_t upto)
{
	uint32_t done = 0;

	for (unsigned int i = 0; i < pkt->nfrags && done < upto; i++) {
		const uint8_t *a = pkt->frags[i].addr;
		uint32_t len = pkt->frags[i].len;
		uint8_t b;

		for (uint32_t o = 0; o < len; o = (o | 4095) + 1)
			if (emu_mem_read(&b, a + o, 1))
				return true;
		if (emu_mem_read(&b, a + len - 1, 1))
			return true;
		done += len;
	}
	return false;
}

/*
 * Copy pkt's payload bytes [from, from + len) to dst.  -EFAULT with
 * *src_fault telling whose memory faulted.
 */
int eng_mr_copy_range(uint8_t *dst, const struct eng_pkt *pkt,
		      uint32_t from, uint32_t len, bool *src_fault)
{
	uint32_t pos = 0;

	if (!len)
		return 0;
	if (pkt->pay == ENG_PAY_BUF) {
		if (!emu_mem_write(dst, pkt->buf + from, len))
			return 0;
		*src_fault = false;
		return -EFAULT;
	}
	for (unsigned int i = 0; i < pkt->nfrags && len; i++) {
		const struct eng_frag *f = &pkt->frags[i];
		uint32_t off, n;

		if (from >= pos + f->len) {
			pos += f->len;
			continue;
		}
		off = from - pos;
		n = f->len - off < len ? f->len - off : len;
		if (emu_mem_copy(dst, f->addr + off, n)) {
			*src_fault = eng_mr_src_faults(pkt, pkt->len);
			return -EFAULT;
		}
		dst += n;
		from += n;
		len -= n;
		pos += f->len;
	}
	return 0;
}

int eng_mr_copy_payload(uint8_t *dst, const struct eng_pkt *pkt,
			bool *src_fault)
{
	return eng_mr_copy_range(dst, pkt, 0, pkt->len, src_fault);
}

enum eng_mr_res eng_mr_scatter(struct emu_fw *fw, uint32_t qpn,
			       const struct emu_fw_pd *pd,
			       const struct eng_sge *sge, unsigned int nsge,
			       uint32_t skip, const struct eng_pkt *pkt,
			       bool *src_fault)
{
	uint32_t room = 0, from = 0;

	*src_fault = false;
	for (unsigned int i = 0; i < nsge; i++)
		room += sge[i].len;
	/* IBA C9-92 / o10-2: a message longer than the scatter list is a
	 * local length error at the receiver. */
	if ((uint64_t)pkt->len + skip > room)
		return ENG_MR_LEN;
	for (unsigned int i = 0; i < nsge && from < pkt->len; i++) {
		uint32_t s = skip < sge[i].len ? skip : sge[i].len;
		uint32_t n = sge[i].len - s;
		enum emu_fw_mkey_res r;
		uint64_t addr, run;
		uint8_t *host;

		skip -= s;
		if (!n)
			continue;
		if (n > pkt->len - from)
			n = pkt->len - from;
		addr = sge[i].addr + s;
		do {
			r = emu_fw_mkey_resolve_run(fw, sge[i].lkey, pd, qpn,
						    EMU_FW_MKEY_LW, addr, n,
						    &host, &run);
			if (r != EMU_FW_MKEY_OK)
				return ENG_MR_PROT;
			if (eng_mr_copy_range(host, pkt, from, (uint32_t)run,
					      src_fault))
				return ENG_MR_FAULT;
			from += (uint32_t)run;
			addr += run;
			n -= (uint32_t)run;
		} while (n);
	}
	return ENG_MR_OK;
}
