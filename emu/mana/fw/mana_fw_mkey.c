/* SPDX-License-Identifier: MIT */
/*
 * emu/mana/fw/mana_fw_mkey.c -- the data path's view of the memory
 * regions: what an lkey covers, read by the engine for every SGE without
 * the firmware's lock.
 *
 * One entry per object slot (an lkey names its MR's slot), each behind a
 * sequence count: the firmware, the only writer and under its lock, makes
 * the count odd, writes, and makes it even again; a reader retries while
 * the count is odd or changed under it.  Every field is an atomic, so a
 * torn read is only ever retried, never acted on.
 */
#include <errno.h>

#include "emu/mana/fw/mana_fw_int.h"

static void mkey_write(struct mana_fw_mkey *k, uint32_t lkey, uint64_t va,
		       uint64_t length, uint32_t access)
{
	uint32_t s = atomic_load_explicit(&k->seq, memory_order_relaxed);

	atomic_store_explicit(&k->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&k->lkey, lkey, memory_order_relaxed);
	atomic_store_explicit(&k->va, va, memory_order_relaxed);
	atomic_store_explicit(&k->length, length, memory_order_relaxed);
	atomic_store_explicit(&k->access, access, memory_order_relaxed);
	atomic_store_explicit(&k->seq, s + 2, memory_order_release);
}

void mfw_mkey_publish(struct mana_fw *fw, uint32_t slot, uint32_t lkey,
		      uint64_t va, uint64_t length, uint32_t access)
{
	mkey_write(&fw->mkeys[slot], lkey, va, length, access);
}

void mfw_mkey_clear(struct mana_fw *fw, uint32_t slot)
{
	mkey_write(&fw->mkeys[slot], 0, 0, 0, 0);
}

int mana_fw_mr_check(struct mana_fw *fw, uint32_t lkey, uint64_t addr,
		     uint64_t len, bool write)
{
	uint32_t slot = (lkey >> 8) - 1, s, key, access;
	const struct mana_fw_mkey *k;
	uint64_t va, length;

	if (slot >= MANA_FW_MAX_OBJS)
		return -ENOENT;
	k = &fw->mkeys[slot];
	do {
		s = atomic_load_explicit(&k->seq, memory_order_acquire);
		key = atomic_load_explicit(&k->lkey, memory_order_relaxed);
		va = atomic_load_explicit(&k->va, memory_order_relaxed);
		length = atomic_load_explicit(&k->length, memory_order_relaxed);
		access = atomic_load_explicit(&k->access, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
	} while ((s & 1) ||
		 s != atomic_load_explicit(&k->seq, memory_order_relaxed));
	/* key 0 is no MR: a real lkey has its slot + 1 above the low byte */
	if (!key || key != lkey)
		return -ENOENT;
	if (addr < va || len > length || addr - va > length - len)
		return -ERANGE;
	if (write && !(access & MANA_FW_ACCESS_LOCAL_WRITE))
		return -EACCES;
	return 0;
}
