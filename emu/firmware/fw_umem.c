/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_umem.c -- memory the device may reach.
 *
 * A umem is a range of process memory the kernel layer registered for a uid
 * with CREATE_UMEM (DEVX umem_reg, or its own allocations under uid 0): a
 * list of MTT entries, each a page address with its rights (rd_en, wr_en),
 * the page size and the offset of the first byte in the first page.  The
 * pages must be virtually contiguous (the engines address a umem as one
 * range); what is not is refused.  Commands reach memory in two ways, as on
 * hardware:
 *
 *  - by umem: *_umem_id plus *_umem_offset; the buffer starts page_offset
 *    quanta (page size / 64, page size 4 KiB << log_page_size) further on,
 *    and must end inside the umem;
 *  - by page list (pas[]): 64-bit "physical" addresses, which in this
 *    process are virtual addresses; every byte must lie in a umem of the
 *    caller's uid (our IOMMU: the kernel's own queues lie in uid 0's), and
 *    the pages must be virtually contiguous (the engines address a queue
 *    as one range).
 *
 * A umem belongs to its uid alone, by id or by page list: the kernel
 * stamps CREATE_UMEM with the caller's DEVX uid, and the firmware keeps
 * each uid's resources apart (the DEVX introduction, kernel commit
 * a8b92ca1b0e5 "IB/mlx5: Introduce DEVX": "the firmware manages the
 * isolation between processes' resources").  So a DEVX queue cannot lie
 * in the kernel's EQ memory, nor the kernel's in a user's.
 *
 * A doorbell record is 8 bytes at dbr_addr: an offset in dbr_umem, or an
 * address in registered memory; it must be 8-byte aligned (an 8-byte umem
 * holding just the record is fine).
 *
 * A ring the device writes (a CQ's CQEs, an EQ's EQEs) must lie in a umem
 * whose MTT entries carry wr_en, as mlx5_ib pins a CQ buffer for write
 * (create_cq_user: IB_ACCESS_LOCAL_WRITE); a ConnectX would fail the first
 * CQE write, this device refuses the create (UMEM_NOT_WRITABLE).  Work
 * queue rings and doorbell records are only read by the device: mlx5_ib
 * pins them without write access (create_user_qp, mlx5_ib_db_map_user).
 *
 * Every resolved range holds a use on its umem, so a umem cannot be
 * destroyed while a queue or an mkey lies in it (UMEM_IN_USE).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

/* Address and rights of MTT entry i (the mtt layout: ptag, wr_en, rd_en). */
static uint64_t fw_mtt_get(const void *umem, uint64_t i, uint8_t *access)
{
	const void *mtt = PRM_ARRAY_ADDR(umem, umem, mtt, i);

	*access = (PRM_GET(mtt, mtt, rd_en) ? EMU_FW_UMEM_READ : 0) |
		  (PRM_GET(mtt, mtt, wr_en) ? EMU_FW_UMEM_WRITE : 0);
	return (uint64_t)PRM_GET(mtt, mtt, ptag_63_32) << 32 |
	       (uint64_t)PRM_GET(mtt, mtt, ptag_31_8) << 8;
}

/*
 * The umem a CREATE_UMEM describes, checked: its pages must form one range
 * that does not wrap, each page aligned to the page size and following the
 * previous one (the emulator addresses a umem as one range), with the same
 * rights throughout.
 */
static enum fw_synd fw_umem_parse(struct fw_cmd *cmd, struct emu_fw_umem *um)
{
	const void *umem = PRM_ADDR_OF(create_umem_in, cmd->in, umem);
	uint64_t n = PRM_GET64(umem, umem, num_of_mtt);
	uint32_t shift = 12 + PRM_GET(umem, umem, log_page_size);
	uint32_t offset = PRM_GET(umem, umem, page_offset);
	uint64_t page = UINT64_C(1) << shift;
	uint64_t base, room;
	uint8_t access;

	if (PRM_GET(umem, umem, ats) && !FW_CAP_GEN(cmd->fw, ats))
		return FW_SYND_UMEM_ATS_NOT_SUPPORTED;
	if (!n || n > (UINT64_MAX >> shift))
		return FW_SYND_UMEM_BAD_NUM_MTT;
	room = (cmd->inlen - PRM_BYTE_OFF(create_umem_in, umem.mtt)) / 8;
	if (n > room)
		return FW_SYND_BAD_INLEN;
	if (offset >= page)
		return FW_SYND_BAD_PAGE_OFFSET;
	base = fw_mtt_get(umem, 0, &access);
	if (base & (page - 1))
		return FW_SYND_UMEM_MTT_MISALIGNED;
	if (base + (n << shift) - 1 < base || base + (n << shift) > UINTPTR_MAX)
		return FW_SYND_UMEM_BAD_NUM_MTT;
	for (uint64_t i = 1; i < n; i++) {
		uint8_t a;
		uint64_t pa = fw_mtt_get(umem, i, &a);

		if (pa & (page - 1))
			return FW_SYND_UMEM_MTT_MISALIGNED;
		if (pa != base + (i << shift))
			return FW_SYND_UMEM_MTT_NOT_CONTIGUOUS;
		if (a != access)
			return FW_SYND_UMEM_MTT_MIXED_ACCESS;
	}
	um->addr = (uint8_t *)(uintptr_t)(base + offset);
	um->size = (size_t)((n << shift) - offset);
	um->page_shift = shift;
	um->access = access;
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_create_umem(struct fw_cmd *cmd)
{
	struct emu_fw_obj *obj;
	enum fw_synd s;

	s = fw_cmd_obj_alloc(cmd, EMU_FW_OBJ_UMEM, &obj);
	if (s)
		return s;
	s = fw_umem_parse(cmd, emu_fw_to_umem(obj));
	if (s) {
		fw_cmd_obj_abort(obj);
		return s;
	}
	s = fw_cmd_obj_publish(obj, FW_SYND_UMEM_LIMIT);
	if (s)
		return s;
	PRM_SET(create_umem_out, cmd->out, umem_id, obj->id);
	return FW_SYND_OK;
}

enum fw_synd fw_cmd_destroy_umem(struct fw_cmd *cmd)
{
	return fw_cmd_obj_destroy(cmd, EMU_FW_OBJ_UMEM,
				  PRM_GET(destroy_umem_in, cmd->in, umem_id),
				  FW_SYND_UMEM_INVALID, FW_SYND_UMEM_IN_USE);
}

struct fw_umem_find {
	uint16_t uid;
	uintptr_t addr;
	size_t len;
	struct emu_fw_obj *found;
};

static int fw_umem_match(struct emu_fw_obj *obj, void *arg)
{
	struct fw_umem_find *f = arg;
	struct emu_fw_umem *umem = emu_fw_to_umem(obj);
	uintptr_t base = (uintptr_t)umem->addr;

	if (obj->uid != f->uid)
		return 0;
	if (f->addr < base || f->addr - base > umem->size ||
	    f->len > umem->size - (f->addr - base))
		return 0;
	if (!fw_obj_use(obj))
		return 0;
	f->found = obj;
	return 1;
}

/* A umem of cmd->uid containing [addr, addr + len), used. */
static struct emu_fw_umem *fw_umem_find_range(struct fw_cmd *cmd,
					      uintptr_t addr, size_t len)
{
	struct fw_umem_find f = {
		.uid = cmd->uid, .addr = addr, .len = len,
	};

	emu_fw_obj_for_each(cmd->fw, EMU_FW_OBJ_UMEM, fw_umem_match, &f);
	return f.found ? emu_fw_to_umem(f.found) : NULL;
}

static uint64_t fw_pas_get(const void *pas, size_t i)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)pas + i * 8, sizeof(v));
	return be64toh(v) & ~UINT64_C(0xfff);
}

enum fw_synd fw_buf_resolve(struct fw_cmd *cmd, const struct fw_buf_desc *d,
			    struct emu_fw_buf *buf)
{
	uint64_t page_size, start;
	struct emu_fw_umem *umem;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	memset(buf, 0, sizeof(*buf));
	if (d->log_page_size > 18)	/* 1 GiB pages at most */
		return FW_SYND_BAD_PAGE_OFFSET;
	page_size = UINT64_C(4096) << d->log_page_size;
	start = (uint64_t)d->page_offset * (page_size / 64);

	if (d->umem_valid) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UMEM, d->umem_id,
				   FW_SYND_UMEM_INVALID, &obj);
		if (s)
			return s;
		umem = emu_fw_to_umem(obj);
		if (d->umem_offset > umem->size ||
		    start > umem->size - d->umem_offset ||
		    d->len > umem->size - d->umem_offset - start)
			s = FW_SYND_UMEM_OUT_OF_RANGE;
		else if (d->device_writes && !emu_fw_umem_writable(umem))
			s = FW_SYND_UMEM_NOT_WRITABLE;
		if (s) {
			fw_obj_unuse(obj);
			return s;
		}
		buf->umem = umem;
		buf->addr = umem->addr + d->umem_offset + start;
		buf->len = d->len;
		return FW_SYND_OK;
	}

	if (d->npas) {
		uint64_t need = (start + d->len + page_size - 1) / page_size;
		uint64_t base = fw_pas_get(d->pas, 0);

		if (start >= page_size)
			return FW_SYND_BAD_PAGE_OFFSET;
		if (need > d->npas)
			return FW_SYND_BAD_INLEN;
		for (uint64_t i = 1; i < need; i++)
			if (fw_pas_get(d->pas, i) != base + i * page_size)
				return FW_SYND_PAS_NOT_CONTIGUOUS;
		if (base + start < base || base + start + d->len < base + start)
			return FW_SYND_PAS_NOT_MAPPED;
		umem = fw_umem_find_range(cmd, (uintptr_t)(base + start),
					  d->len);
		if (!umem)
			return FW_SYND_PAS_NOT_MAPPED;
		if (d->device_writes && !emu_fw_umem_writable(umem)) {
			fw_obj_unuse(&umem->obj);
			return FW_SYND_UMEM_NOT_WRITABLE;
		}
		buf->umem = umem;
		buf->addr = (uint8_t *)(uintptr_t)(base + start);
		buf->len = d->len;
		return FW_SYND_OK;
	}
	return FW_SYND_UMEM_REQUIRED;
}

enum fw_synd fw_dbr_resolve(struct fw_cmd *cmd, bool umem_valid,
			    uint32_t umem_id, uint64_t addr,
			    struct emu_fw_buf *buf)
{
	struct emu_fw_umem *umem;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	memset(buf, 0, sizeof(*buf));
	if (addr % 8)
		return FW_SYND_DBR_MISALIGNED;
	if (umem_valid) {
		s = fw_cmd_obj_use(cmd, EMU_FW_OBJ_UMEM, umem_id,
				   FW_SYND_UMEM_INVALID, &obj);
		if (s)
			return s;
		umem = emu_fw_to_umem(obj);
		if (umem->size < 8 || addr > umem->size - 8) {
			fw_obj_unuse(obj);
			return FW_SYND_DBR_OUT_OF_RANGE;
		}
		buf->umem = umem;
		buf->addr = umem->addr + addr;
		buf->len = 8;
		return FW_SYND_OK;
	}
	if (!addr || addr + 8 < addr)
		return FW_SYND_UMEM_REQUIRED;
	umem = fw_umem_find_range(cmd, (uintptr_t)addr, 8);
	if (!umem)
		return FW_SYND_PAS_NOT_MAPPED;
	buf->umem = umem;
	buf->addr = (uint8_t *)(uintptr_t)addr;
	buf->len = 8;
	return FW_SYND_OK;
}

void fw_buf_release(struct emu_fw_buf *buf)
{
	if (buf->umem)
		fw_obj_unuse(&buf->umem->obj);
}

/* ---- work queue contexts (wq): RMPs, SQs, RQs ---- */

void fw_wq_buf_desc(const struct fw_cmd *cmd, size_t wq_off, size_t len,
		    struct fw_buf_desc *d)
{
	const void *wq = (const uint8_t *)cmd->in + wq_off;
	size_t pas_off = wq_off + PRM_BYTE_OFF(wq, pas);

	memset(d, 0, sizeof(*d));
	d->umem_valid = PRM_GET(wq, wq, wq_umem_valid);
	d->umem_id = PRM_GET(wq, wq, wq_umem_id);
	d->umem_offset = PRM_GET64(wq, wq, wq_umem_offset);
	d->page_offset = PRM_GET(wq, wq, page_offset);
	d->log_page_size = PRM_GET(wq, wq, log_wq_pg_sz);
	d->len = len;
	d->pas = (const uint8_t *)cmd->in + pas_off;
	d->npas = cmd->inlen > pas_off ? (cmd->inlen - pas_off) / 8 : 0;
}

enum fw_synd fw_wq_dbr_resolve(struct fw_cmd *cmd, const void *wq,
			       struct emu_fw_buf *buf)
{
	return fw_dbr_resolve(cmd, PRM_GET(wq, wq, dbr_umem_valid),
			      PRM_GET(wq, wq, dbr_umem_id),
			      PRM_GET64(wq, wq, dbr_addr), buf);
}

bool fw_wq_unsupported(const void *wq)
{
	return PRM_GET(wq, wq, wq_signature) ||
	       PRM_GET(wq, wq, end_padding_mode) ||
	       PRM_GET(wq, wq, cd_slave) ||
	       PRM_GET(wq, wq, hds_skip_first_sge) ||
	       PRM_GET(wq, wq, log2_hds_buf_size) ||
	       PRM_GET(wq, wq, log_hairpin_num_packets) ||
	       PRM_GET(wq, wq, log_hairpin_data_sz) ||
	       PRM_GET(wq, wq, log_wqe_num_of_strides) ||
	       PRM_GET(wq, wq, two_byte_shift_en) ||
	       PRM_GET(wq, wq, log_wqe_stride_size) ||
	       PRM_GET(wq, wq, headers_mkey) ||
	       PRM_GET(wq, wq, shampo_enable);
}
