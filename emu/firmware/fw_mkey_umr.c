/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_mkey_umr.c -- what a UMR WQE and a SEND_WITH_INV do to
 * a KLM mkey: memory windows, and mlx5dv_create_mkey's indirect mkeys.
 *
 * mlx5_ib makes a window a free KLM mkey with umr_en (en_rinval for type
 * 2); libmlx5 binds it with a UMR WQE (set_bind_wr: mkey context with the
 * rights, start and length, one KLM entry naming the region's lkey) and
 * invalidates it with one whose context is free.  The window state lives
 * in the mkey object and changes only inside an engine pass, where every
 * reader of it runs too.
 *
 * The checks, in order, each with the IBA rule it enforces (the numbers
 * rxe_mw.c cites):
 *
 *   the mkey      an mkey of the QP's uid that UMRs may change; an
 *                 invalidation names the window's current R_Key
 *                 (rxe_invalidate_mw)
 *   CHECK_FREE    a type 2 window is bound only while free (o10-37.2.30)
 *   CHECK_QPN     a type 2 window is invalidated only through the QP it is
 *                 bound to, so a type 1 window (qpn 0xffffff) never by a
 *                 work request (o10-37.2.26)
 *   bind          a type 2 binding names the QP that posts it and shares
 *                 its PD (C10-72); a type 1 window is not zero based
 *                 (o10-36.2.2); the region exists, is a region (not
 *                 another window), shares the window's PD, holds the
 *                 range (C10-75), and has local write when the window
 *                 grants remote write or atomic (C10-74); the translation
 *                 fits what the window was created with
 *
 * Not checked: IBV_ACCESS_MW_BIND on the region (C10-73).  mlx5_ib passes
 * no such right to the device (the mkey context has no bit for it) and
 * libmlx5 checks it only when built with MW_DEBUG, so a ConnectX cannot
 * refuse the bind for it.
 *
 * An invalidation frees the window and keeps its key byte; a bind takes
 * the key byte the context carries (ibv_inc_rkey's, from libmlx5).
 *
 * A UMR that sets no start address gives an mkey a translation list
 * (fw_umr_list): libmlx5's mlx5dv_wr_mr_list, mr_interleaved and
 * mkey_configure on an mkey of mlx5dv_create_mkey (qpn 0xffffff, bound
 * to no QP).  Such an mkey is invalidated (LOCAL_INV's check_qpn; a
 * SEND_WITH_INV when made with en_rinval) through any QP of its uid and
 * PD while it is valid, as rdma-core's pyverbs tests do on a ConnectX.
 */
#include "emu/firmware/fw_int.h"

/* The window @u names, as a QP of @uid may change it. */
static struct emu_fw_mkey *fw_umr_mkey(struct emu_fw *fw, uint16_t uid,
				       uint32_t key)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY,
						       key >> 8);
	struct emu_fw_mkey *mk = obj ? emu_fw_to_mkey(obj) : NULL;

	if (!mk || obj->uid != uid || !mk->umr_en || !mk->indirect)
		return NULL;
	return mk;
}

/* The rules of a bind (the header's list, "bind"). */
static enum emu_fw_umr_res fw_umr_check_bind(struct emu_fw *fw,
					     const struct emu_fw_pd *pd,
					     uint32_t qpn,
					     const struct emu_fw_mkey *mk,
					     const struct emu_fw_umr *u)
{
	const unsigned int remote_wr = EMU_FW_MKEY_RW | EMU_FW_MKEY_A;
	const struct emu_fw_mkey *mr;
	struct emu_fw_obj *obj;
	bool type2 = u->set_qpn && u->qpn != 0xffffff;

	if (type2 && u->qpn != qpn)
		return EMU_FW_UMR_BAD_BIND;
	if (type2 && mk->pd != pd)
		return EMU_FW_UMR_BAD_PD;
	if (!u->len || u->klm_octowords > mk->max_klm || u->klm.bcount < u->len)
		return EMU_FW_UMR_BAD_BIND;
	if (!type2 && u->start_addr != u->klm.addr)
		return EMU_FW_UMR_BAD_BIND;
	obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY, u->klm.mkey >> 8);
	mr = obj ? emu_fw_to_mkey(obj) : NULL;
	if (!mr || mr->indirect || mr->free || mr->key != (u->klm.mkey & 0xff))
		return EMU_FW_UMR_BAD_BIND;
	if (mr->pd != mk->pd)
		return EMU_FW_UMR_BAD_PD;
	if (u->klm.addr < mr->start_addr || u->len > mr->len ||
	    u->klm.addr - mr->start_addr > mr->len - u->len)
		return EMU_FW_UMR_BAD_BIND;
	if ((u->access & u->set_access & remote_wr) &&
	    !(mr->access & EMU_FW_MKEY_LW))
		return EMU_FW_UMR_BAD_BIND;
	return EMU_FW_UMR_OK;
}

static uint32_t fw_umr_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t fw_umr_be64(const uint8_t *p)
{
	return (uint64_t)fw_umr_be32(p) << 32 | fw_umr_be32(p + 4);
}

/*
 * The translation of a UMR that sets no start address (libmlx5's
 * mlx5dv_wr_mr_list / mr_interleaved / mkey_configure): klm_octowords
 * KLM entries {byte_count, mkey, address}, or a repeat block {byte_count,
 * op 0x400, repeat_count, num_ent} and num_ent entries {stride,
 * byte_count, mkey, va}, the rest zero padding.  Entries are checked when
 * they are used, not here: a ConnectX takes the list as given.  With
 * @klms NULL only the shape is checked.
 */
static enum emu_fw_umr_res fw_umr_list(struct emu_fw_mkey *mk,
				       const struct emu_fw_umr *u,
				       struct emu_fw_klm *klms,
				       uint32_t *n, uint32_t *repeat,
				       uint64_t *block)
{
	const uint8_t *x = u->xlat;
	uint32_t cnt = u->klm_octowords;
	uint64_t sum = 0;

	if (!x || !cnt || cnt > mk->max_klm)
		return EMU_FW_UMR_BAD_BIND;
	*repeat = 0;
	if (fw_umr_be32(x + 4) == MLX5_UMR_REPEAT_BLOCK_OP) {
		uint32_t num = fw_umr_be32(x + 12) & 0xffff;

		*repeat = fw_umr_be32(x + 8);
		if (!*repeat || !num || num + 1 > cnt)
			return EMU_FW_UMR_BAD_BIND;
		for (uint32_t i = 0; i < num; i++) {
			const uint8_t *e = x + 16 * (i + 1);
			uint32_t sb = fw_umr_be32(e);

			sum += sb & 0xffff;
			if (!klms)
				continue;
			klms[i].stride = sb >> 16;
			klms[i].bcount = sb & 0xffff;
			klms[i].mkey = fw_umr_be32(e + 4);
			klms[i].addr = fw_umr_be64(e + 8);
		}
		/* The block's byte_count is the sum of its entries'. */
		if (sum != fw_umr_be32(x))
			return EMU_FW_UMR_BAD_BIND;
		cnt = num;
	} else {
		for (uint32_t i = 0; i < cnt; i++) {
			const uint8_t *e = x + 16 * i;

			sum += fw_umr_be32(e);
			if (!klms)
				continue;
			klms[i].bcount = fw_umr_be32(e);
			klms[i].mkey = fw_umr_be32(e + 4);
			klms[i].addr = fw_umr_be64(e + 8);
			klms[i].stride = 0;
		}
	}
	/* The length may not pass what the translation covers. */
	if (u->set_len && u->len > sum * (*repeat ? *repeat : 1))
		return EMU_FW_UMR_BAD_BIND;
	*n = cnt;
	*block = sum;
	return EMU_FW_UMR_OK;
}

/* Whether check_qpn holds: a window bound to this QP; an mkey of
 * mlx5dv_create_mkey (never bound to a QP: qpn 0xffffff) while it is
 * valid. */
static bool fw_umr_qpn_ok(const struct emu_fw_mkey *mk, uint32_t qpn)
{
	if (mk->free)
		return false;
	return mk->qpn == qpn || (!mk->window && mk->qpn == 0xffffff);
}

/* What every UMR that changes the translation sets in the context. */
static void fw_umr_apply(struct emu_fw_mkey *mk, const struct emu_fw_umr *u)
{
	if (u->set_free)
		mk->free = false;
	if (u->set_key)
		mk->key = u->key;
	if (u->set_qpn)
		mk->qpn = u->qpn;
	if (u->set_start)
		mk->start_addr = u->start_addr;
	if (u->set_len)
		mk->len = u->len;
	mk->access = (uint8_t)((mk->access & ~u->set_access) |
			       (u->access & u->set_access) | EMU_FW_MKEY_LR);
}

enum emu_fw_umr_res emu_fw_mkey_umr(struct emu_fw *fw, uint16_t uid,
				    const struct emu_fw_pd *pd, uint32_t qpn,
				    const struct emu_fw_umr *u)
{
	struct emu_fw_mkey *mk = fw_umr_mkey(fw, uid, u->mkey);
	enum emu_fw_umr_res r;

	if (!mk || (u->free && u->check_qpn && mk->key != (u->mkey & 0xff)))
		return EMU_FW_UMR_BAD_MKEY;
	if (u->check_free && !mk->free)
		return EMU_FW_UMR_BAD_STATE;
	if (u->check_qpn && !fw_umr_qpn_ok(mk, qpn))
		return EMU_FW_UMR_BAD_STATE;
	if (u->free) {
		if (u->set_free)
			mk->free = true;
		if (u->set_qpn)
			mk->qpn = u->qpn;
		return EMU_FW_UMR_OK;
	}
	if (!u->set_start) {
		/* A translation list: checked whole before anything changes
		 * (a bad UMR leaves the mkey as it was). */
		uint32_t n, rep;
		uint64_t block;

		r = fw_umr_list(mk, u, NULL, &n, &rep, &block);
		if (r)
			return r;
		fw_umr_list(mk, u, mk->klms, &n, &rep, &block);
		mk->nklm = n;
		mk->repeat = rep;
		mk->block = block;
		mk->window = false;
		fw_umr_apply(mk, u);
		return EMU_FW_UMR_OK;
	}
	r = fw_umr_check_bind(fw, pd, qpn, mk, u);
	if (r)
		return r;
	fw_umr_apply(mk, u);
	mk->klms[0] = u->klm;
	mk->klms[0].stride = 0;
	mk->nklm = 1;
	mk->repeat = 0;
	mk->block = u->klm.bcount;
	mk->window = true;
	return EMU_FW_UMR_OK;
}

enum emu_fw_umr_res emu_fw_mkey_invalidate(struct emu_fw *fw,
					   const struct emu_fw_pd *pd,
					   uint32_t qpn, uint32_t rkey)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY,
						       rkey >> 8);
	struct emu_fw_mkey *mk = obj ? emu_fw_to_mkey(obj) : NULL;

	/* Only what was created for remote invalidation (en_rinval: type 2
	 * windows, o10-37.2.26), by its current R_Key, of the responder's PD,
	 * bound to the QP it arrives on (rxe_invalidate_mw). */
	if (!mk || !mk->indirect || !mk->rinval || mk->key != (rkey & 0xff))
		return EMU_FW_UMR_BAD_MKEY;
	if (mk->pd != pd)
		return EMU_FW_UMR_BAD_PD;
	if (!fw_umr_qpn_ok(mk, qpn))
		return EMU_FW_UMR_BAD_STATE;
	mk->free = true;
	return EMU_FW_UMR_OK;
}
