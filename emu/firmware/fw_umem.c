/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_umem.c -- memory the device may reach.
 *
 * A umem is a range of process memory the kernel layer registered for a uid
 * (DEVX umem_reg, or its own allocations under uid 0).  Commands reach
 * memory in two ways, as on hardware:
 *
 *  - by umem: *_umem_id plus *_umem_offset; the buffer starts page_offset
 *    quanta (page size / 64, page size 4 KiB << log_page_size) further on,
 *    and must end inside the umem;
 *  - by page list (pas[]): 64-bit "physical" addresses, which in this
 *    process are virtual addresses; every byte must lie in a umem of the
 *    caller's uid or of uid 0 (our IOMMU), and the pages must be virtually
 *    contiguous (the engines address a queue as one range).
 *
 * A doorbell record is 8 bytes at dbr_addr: an offset in dbr_umem, or an
 * address in registered memory; it must be 8-byte aligned (an 8-byte umem
 * holding just the record is fine).
 *
 * Every resolved range holds a use on its umem, so a umem cannot be
 * deregistered while a queue or an mkey lies in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

int emu_fw_umem_register(struct emu_fw *fw, uint16_t uid, void *addr,
			 size_t size, unsigned int page_shift,
			 uint32_t access)
{
	struct fw_cmd cmd = { .fw = fw, .uid = uid };
	struct emu_fw_umem *umem;
	struct emu_fw_obj *obj;
	enum fw_synd s;

	if (!fw || !addr || !size ||
	    (uintptr_t)addr + size - 1 < (uintptr_t)addr ||
	    page_shift < 12 || page_shift > 30)
		return -EINVAL;
	s = fw_cmd_obj_alloc(&cmd, EMU_FW_OBJ_UMEM, &obj);
	if (s == FW_SYND_BAD_UID)
		return -ENOENT;
	if (s)
		return -ENOMEM;
	umem = emu_fw_to_umem(obj);
	umem->addr = addr;
	umem->size = size;
	umem->page_shift = page_shift;
	umem->access = access;
	if (fw_cmd_obj_publish(obj, FW_SYND_INTERNAL_NOMEM))
		return -ENOSPC;
	return (int)obj->id;
}

int emu_fw_umem_deregister(struct emu_fw *fw, uint16_t uid, uint32_t umem_id)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, EMU_FW_OBJ_UMEM, umem_id);
	int ret;

	if (!obj)
		return -ENOENT;
	if (obj->uid != uid) {
		emu_fw_obj_put(obj);
		return -EPERM;
	}
	ret = fw_obj_kill(obj);
	if (ret == 0)
		fw_obj_remove(obj);
	emu_fw_obj_put(obj);
	return ret;
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

	if (obj->uid != f->uid && obj->uid != 0)
		return 0;
	if (f->addr < base || f->addr - base > umem->size ||
	    f->len > umem->size - (f->addr - base))
		return 0;
	if (!fw_obj_use(obj))
		return 0;
	f->found = obj;
	return 1;
}

/* A umem of cmd->uid or uid 0 containing [addr, addr + len), used. */
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
		    d->len > umem->size - d->umem_offset - start) {
			fw_obj_unuse(obj);
			return FW_SYND_UMEM_OUT_OF_RANGE;
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
