/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_mkey.c -- CREATE_MKEY / QUERY_MKEY / DESTROY_MKEY.
 *
 * The device implements direct MTT mkeys backed by a umem (DEVX's
 * mkey_umem_valid form, which is also how the emulated kernel registers a
 * verbs MR): iova [start_addr, start_addr + len) maps to the umem from
 * mkey_umem_offset on; and KLM mkeys created free with umr_en, as
 * mlx5_ib_alloc_mw makes memory windows, which UMR WQEs bind and
 * invalidate (fw_mkey_umr.c).  KSM, KLM mkeys with translations given at
 * creation, UMR on MTT mkeys, ODP (pg_access), signature, crypto and
 * relaxed-ordering mkeys are not advertised and are refused.  The mkey value is mkey_index << 8 | mkey_7_0:
 * the firmware picks the index, software the key byte.  The kernel may
 * change an mkey's PD and rights in place (emu_fw_mkey_rereg, the UMR
 * mlx5_ib posts for ibv_rereg_mr).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

/* The pointers stay: readers that found the mkey use them until they
 * unlock. */
void fw_mkey_release(struct emu_fw_obj *obj)
{
	struct emu_fw_mkey *mk = emu_fw_to_mkey(obj);

	fw_buf_release(&mk->mem);
	free(mk->klms);
	if (mk->pd)
		fw_obj_unuse(&mk->pd->obj);
}

/* Features of an mkc this device does not advertise. */
static enum fw_synd fw_mkc_check(struct fw_cmd *cmd, const void *mkc)
{
	unsigned int mode = PRM_GET(mkc, mkc, access_mode_4_2) << 2 |
			    PRM_GET(mkc, mkc, access_mode_1_0);

	if (PRM_GET(create_mkey_in, cmd->in, pg_access))
		return FW_SYND_MKEY_UMEM_PG_ACCESS;
	if (mode == MLX5_MKC_ACCESS_MODE_KLMS) {
		/* Only the window form: free, UMR-owned, no umem. */
		if (!PRM_GET(mkc, mkc, free) || !PRM_GET(mkc, mkc, umr_en) ||
		    PRM_GET(create_mkey_in, cmd->in, mkey_umem_valid))
			return FW_SYND_MKEY_BAD_ACCESS_MODE;
	} else if (PRM_GET(mkc, mkc, free) || PRM_GET(mkc, mkc, umr_en)) {
		return FW_SYND_MKEY_UMR_NOT_SUPPORTED;
	} else if (mode != MLX5_MKC_ACCESS_MODE_MTT) {
		return FW_SYND_MKEY_BAD_ACCESS_MODE;
	}
	if (PRM_GET(mkc, mkc, bsf_en) || PRM_GET(mkc, mkc, crypto_en) ||
	    PRM_GET(mkc, mkc, expected_sigerr_count) ||
	    PRM_GET(mkc, mkc, sync_umr) ||
	    PRM_GET(mkc, mkc, relaxed_ordering_write) ||
	    PRM_GET(mkc, mkc, relaxed_ordering_read) ||
	    PRM_GET(mkc, mkc, ma_translation_mode) ||
	    PRM_GET(create_mkey_in, cmd->in, data_direct))
		return FW_SYND_MKEY_FEATURE_NOT_SUPPORTED;
	if (PRM_GET(mkc, mkc, a) && !FW_CAP_GEN(cmd->fw, atomic))
		return FW_SYND_MKEY_ATOMIC_NOT_SUPPORTED;
	if (!PRM_GET(mkc, mkc, length64) && PRM_GET64(mkc, mkc, len) == 0 &&
	    mode != MLX5_MKC_ACCESS_MODE_KLMS)
		return FW_SYND_MKEY_ZERO_LEN;
	return FW_SYND_OK;
}

/* The state of a KLM mkey: free, translating nothing yet. */
static enum fw_synd fw_mkey_klm_init(struct fw_cmd *cmd, const void *mkc,
				     struct emu_fw_mkey *mk)
{
	mk->max_klm = PRM_GET(mkc, mkc, translations_octword_size);
	if (!mk->max_klm || PRM_GET(create_mkey_in, cmd->in,
				    translations_octword_actual_size))
		return FW_SYND_MKEY_BAD_ACCESS_MODE;
	if (mk->max_klm > 1u << FW_CAP_GEN(cmd->fw, log_max_klm_list_size))
		return FW_SYND_MKEY_KLM_LIST_TOO_LONG;
	mk->klms = calloc(mk->max_klm, sizeof(*mk->klms));
	if (!mk->klms)
		return FW_SYND_INTERNAL_NOMEM;
	mk->indirect = true;
	mk->umr_en = true;
	mk->free = true;
	mk->rinval = PRM_GET(mkc, mkc, en_rinval);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_mkey(struct fw_cmd *cmd)
{
	const void *mkc = PRM_ADDR_OF(create_mkey_in, cmd->in,
				      memory_key_mkey_entry);
	struct fw_buf_desc d = { 0 };
	struct emu_fw_mkey *mk;
	struct emu_fw_obj *obj, *pd;
	enum fw_synd s;

	s = fw_mkc_check(cmd, mkc);
	if (s)
		return s;
	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_MKEY, &obj);
	if (s)
		return s;
	mk = emu_fw_to_mkey(obj);

	s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_PD, PRM_GET(mkc, mkc, pd),
			   FW_SYND_BAD_PD, &pd);
	if (s)
		goto err;
	mk->pd = emu_fw_to_pd(pd);

	if (PRM_GET(mkc, mkc, length64)) {
		/* No registration covers the whole address space. */
		s = FW_SYND_MKEY_OUT_OF_RANGE;
		goto err;
	}
	if ((PRM_GET(mkc, mkc, access_mode_4_2) << 2 |
	     PRM_GET(mkc, mkc, access_mode_1_0)) == MLX5_MKC_ACCESS_MODE_KLMS) {
		s = fw_mkey_klm_init(cmd, mkc, mk);
		if (s)
			goto err;
		goto fill;
	}
	d.umem_valid = PRM_GET(create_mkey_in, cmd->in, mkey_umem_valid);
	d.umem_id = PRM_GET(create_mkey_in, cmd->in, mkey_umem_id);
	d.umem_offset = PRM_GET64(create_mkey_in, cmd->in, mkey_umem_offset);
	d.len = PRM_GET64(mkc, mkc, len);
	if (!d.umem_valid) {
		s = FW_SYND_UMEM_REQUIRED;	/* no physical page lists */
		goto err;
	}
	s = fw_buf_resolve(cmd, &d, &mk->mem);
	if (s == FW_SYND_UMEM_OUT_OF_RANGE)
		s = FW_SYND_MKEY_OUT_OF_RANGE;
	if (s)
		goto err;

fill:
	mk->start_addr = PRM_GET64(mkc, mkc, start_addr);
	mk->len = PRM_GET64(mkc, mkc, len);
	mk->key = (uint8_t)PRM_GET(mkc, mkc, mkey_7_0);
	mk->qpn = PRM_GET(mkc, mkc, qpn);
	mk->access = (PRM_GET(mkc, mkc, lr) ? EMU_FW_MKEY_LR : 0) |
		     (PRM_GET(mkc, mkc, lw) ? EMU_FW_MKEY_LW : 0) |
		     (PRM_GET(mkc, mkc, rr) ? EMU_FW_MKEY_RR : 0) |
		     (PRM_GET(mkc, mkc, rw) ? EMU_FW_MKEY_RW : 0) |
		     (PRM_GET(mkc, mkc, a) ? EMU_FW_MKEY_A : 0);
	_Static_assert(sizeof(mk->mkc) == PRM_ST_SZ_BYTES(mkc), "mkc size");
	memcpy(mk->mkc, mkc, sizeof(mk->mkc));

	s = fw_cmd_obj_publish(obj, FW_SYND_MKEY_LIMIT);
	if (s)
		return s;
	PRM_SET(create_mkey_out, cmd->out, mkey_index, obj->id);
	return FW_SYND_OK;

err:
	fw_mkey_release(obj);
	fw_cmd_obj_abort(obj);
	return s;
}

enum fw_synd fw_cmd_query_mkey(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_own(cmd, EMU_FW_OBJ_MKEY,
			   PRM_GET(query_mkey_in, cmd->in, mkey_index),
			   FW_SYND_MKEY_INVALID, &obj);
	if (s)
		return s;
	memcpy(PRM_ADDR_OF(query_mkey_out, cmd->out, memory_key_mkey_entry),
	       emu_fw_to_mkey(obj)->mkc, PRM_ST_SZ_BYTES(mkc));
	emu_fw_obj_put(obj);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_mkey(struct fw_cmd *cmd)
{
	/* Nothing uses an mkey at the firmware level: no "in use" case. */
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_MKEY,
				  PRM_GET(destroy_mkey_in, cmd->in, mkey_index),
				  FW_SYND_MKEY_INVALID, FW_SYND_MKEY_INVALID);
}

/* The change a rereg makes, with no engine pass running. */
struct fw_mkey_rereg_job {
	struct emu_fw_mkey *mk;
	struct emu_fw_pd *pd;	/* the new PD in; the old one out */
	uint8_t access;
};

static void fw_mkey_rereg_apply(void *arg)
{
	struct fw_mkey_rereg_job *j = arg;
	struct emu_fw_mkey *mk = j->mk;
	struct emu_fw_pd *old = mk->pd;

	mk->pd = j->pd;
	mk->access = j->access;
	PRM_SET(mkc, mk->mkc, pd, j->pd->obj.id);
	PRM_SET(mkc, mk->mkc, lw, !!(j->access & EMU_FW_MKEY_LW));
	PRM_SET(mkc, mk->mkc, rr, !!(j->access & EMU_FW_MKEY_RR));
	PRM_SET(mkc, mk->mkc, rw, !!(j->access & EMU_FW_MKEY_RW));
	PRM_SET(mkc, mk->mkc, a, !!(j->access & EMU_FW_MKEY_A));
	j->pd = old;
}

/* An object of @uid, or the kernel's when others may use it too. */
static struct emu_fw_obj *fw_mkey_rereg_use(struct emu_fw *fw,
					    enum emu_fw_obj_type type,
					    uint32_t id, uint16_t uid,
					    bool own_only)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, type, id);
	bool ok;

	if (!obj)
		return NULL;
	ok = (obj->uid == uid || (!own_only && obj->uid == 0)) &&
	     fw_obj_use(obj);
	emu_fw_obj_put(obj);	/* the use keeps it published */
	return ok ? obj : NULL;
}

int emu_fw_mkey_rereg(struct emu_fw *fw, uint16_t uid, uint32_t index,
		      uint32_t pdn, unsigned int access)
{
	struct fw_mkey_rereg_job j = {
		.access = (uint8_t)(access | EMU_FW_MKEY_LR),
	};
	struct emu_fw_obj *mobj, *pobj;

	if ((access & EMU_FW_MKEY_A) && !FW_CAP_GEN(fw, atomic))
		return -EINVAL;
	/* In use while it changes: a concurrent destroy is refused. */
	mobj = fw_mkey_rereg_use(fw, EMU_FW_OBJ_MKEY, index, uid, true);
	if (!mobj)
		return -ENOENT;
	pobj = fw_mkey_rereg_use(fw, EMU_FW_OBJ_PD, pdn, uid, false);
	if (!pobj) {
		fw_obj_unuse(mobj);
		return -ENOENT;
	}
	j.mk = emu_fw_to_mkey(mobj);
	j.pd = emu_fw_to_pd(pobj);
	fw_engine_run_locked(fw, fw_mkey_rereg_apply, &j);
	/* The mkey's use moves to the new PD (the same one: it had two). */
	fw_obj_unuse(&j.pd->obj);
	fw_obj_unuse(mobj);
	return 0;
}

/* Write and atomic rights need memory the kernel pinned for write (MTT
 * entries with wr_en). */
static bool fw_umem_writable(const struct emu_fw_umem *umem)
{
	return umem && emu_fw_umem_writable(umem);
}

/* The entry of @mk's translation holding byte @off: the address of that
 * byte in the entry's mkey and the bytes left in the entry; false when
 * no entry holds it (a list shorter than the mkey's length). */
static bool fw_klm_at(const struct emu_fw_mkey *mk, uint64_t off,
		      uint32_t *key, uint64_t *addr, uint64_t *left)
{
	uint64_t rep = 0;

	if (mk->repeat) {
		if (!mk->block || off / mk->block >= mk->repeat)
			return false;
		rep = off / mk->block;
		off %= mk->block;
	}
	for (uint32_t i = 0; i < mk->nklm; i++) {
		const struct emu_fw_klm *e = &mk->klms[i];

		if (off < e->bcount) {
			*key = e->mkey;
			*addr = e->addr + rep * e->stride + off;
			*left = e->bcount - off;
			return true;
		}
		off -= e->bcount;
	}
	return false;
}

enum emu_fw_mkey_res emu_fw_mkey_resolve_run(struct emu_fw *fw, uint32_t key,
					     const struct emu_fw_pd *pd,
					     uint32_t qpn, unsigned int access,
					     uint64_t addr, uint64_t len,
					     uint8_t **host, uint64_t *run)
{
	struct emu_fw_obj *obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY,
						       key >> 8);
	const unsigned int wr = EMU_FW_MKEY_LW | EMU_FW_MKEY_RW | EMU_FW_MKEY_A;
	const struct emu_fw_mkey *mk, *mr;
	uint64_t off, eaddr, left;
	uint32_t ekey;

	*run = len;
	if (!obj)
		return EMU_FW_MKEY_BAD_KEY;
	mk = emu_fw_to_mkey(obj);
	/* A free mkey (a window not bound, or invalidated) grants nothing;
	 * a type 2 window only to the QP it is bound to (IBA 10.6.7.2, type
	 * 2B windows; rxe_lookup_mw's mw->qp check). */
	if (mk->free || mk->key != (key & 0xff) ||
	    (mk->indirect && mk->qpn != 0xffffff && mk->qpn != qpn))
		return EMU_FW_MKEY_BAD_KEY;
	if (mk->pd != pd)
		return EMU_FW_MKEY_BAD_PD;
	/* Local read is implied by every mkey (mkc.lr is always set). */
	if ((access & ~mk->access & ~EMU_FW_MKEY_LR) ||
	    (!mk->indirect && (access & wr) && !fw_umem_writable(mk->mem.umem)))
		return EMU_FW_MKEY_BAD_ACCESS;
	if (!len) {
		*host = NULL;
		return EMU_FW_MKEY_OK;
	}
	if (addr < mk->start_addr || len > mk->len ||
	    addr - mk->start_addr > mk->len - len)
		return EMU_FW_MKEY_BAD_BOUNDS;
	off = addr - mk->start_addr;
	if (!mk->indirect) {
		*host = mk->mem.addr + off;
		return EMU_FW_MKEY_OK;
	}
	/* Through the entry holding addr to the mkey it names, as it is
	 * now: still there, a direct mkey of the same PD, holding the
	 * range, writable for what writes through the indirect one. */
	if (!fw_klm_at(mk, off, &ekey, &eaddr, &left))
		return EMU_FW_MKEY_BAD_BOUNDS;
	if (left < len)
		*run = left;
	obj = emu_fw_obj_lookup_rcu(fw, EMU_FW_OBJ_MKEY, ekey >> 8);
	mr = obj ? emu_fw_to_mkey(obj) : NULL;
	if (!mr || mr->indirect || mr->free)
		return EMU_FW_MKEY_BAD_KEY;
	return emu_fw_mkey_resolve_run(fw, ekey, pd, qpn,
				       (access & wr) ? EMU_FW_MKEY_LW :
						       EMU_FW_MKEY_LR,
				       eaddr, *run, host, &left);
}

enum emu_fw_mkey_res emu_fw_mkey_resolve_qp(struct emu_fw *fw, uint32_t key,
					    const struct emu_fw_pd *pd,
					    uint32_t qpn, unsigned int access,
					    uint64_t addr, uint64_t len,
					    uint8_t **host)
{
	uint64_t run;
	enum emu_fw_mkey_res r = emu_fw_mkey_resolve_run(fw, key, pd, qpn,
							 access, addr, len,
							 host, &run);

	return r == EMU_FW_MKEY_OK && run < len ? EMU_FW_MKEY_BAD_BOUNDS : r;
}

enum emu_fw_mkey_res emu_fw_mkey_resolve(struct emu_fw *fw, uint32_t key,
					 const struct emu_fw_pd *pd,
					 unsigned int access, uint64_t addr,
					 uint64_t len, uint8_t **host)
{
	return emu_fw_mkey_resolve_qp(fw, key, pd, EMU_FW_MKEY_NO_QP, access,
				      addr, len, host);
}
