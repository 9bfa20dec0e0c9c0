/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_uar.c -- what UAR writes tell the engine.  The one file
 * that knows UAR offsets.
 *
 * A UAR page (4 KiB) holds, from 0x800, BlueFlame registers of
 * 1 << log_bf_reg_size (512) bytes; each is two halves of 256 bytes that
 * the writer alternates between (bfreg 0 of the shared page has no
 * BlueFlame buffer and is always written at its first half).  A half gets
 * either the 8-byte doorbell (the first 8 bytes of the WQE's control
 * segment: index and opcode, then qpn << 8 | ds) or the whole WQE in
 * 64-byte chunks, which starts with the same 8 bytes.  The CQ doorbell
 * (arm) is the 8 bytes at 0x20: sn/cmd/ci, then cqn.  The EQ doorbell is
 * the 32-bit eqn << 24 | ci at 0x40 (update and arm) or 0x48 (update
 * only), as mlx5_core's eq_update_ci() writes it.
 *
 * Many QPs share a page and the last write wins, so these are hints only:
 * the doorbell records in memory are the truth.  A new value in a half
 * names a QP the pass looks at first; the WQE itself is always read from
 * the send queue.  A new CQ doorbell names a CQ whose arm request the
 * engine takes from its doorbell record.  EQ doorbells have no record: an
 * EQ's consumer (the emulated kernel) gives each EQ a page of its own, so
 * the last word there is the EQ's latest counter.
 */
#include <endian.h>
#include <string.h>

#include "emu/engine/eng_int.h"

#define ENG_UAR_CQ_DB 0x20	/* MLX5_CQ_DOORBELL */
#define ENG_UAR_EQ_DB 0x40	/* MLX5_EQ_DOORBEL_OFFSET: arm; +8 no arm */
#define ENG_UAR_BF_BASE 0x800	/* MLX5_BF_OFFSET */
#define ENG_UAR_BF_REG 0x200	/* 1 << log_bf_reg_size */
#define ENG_UAR_NREGS ((4096 - ENG_UAR_BF_BASE) / ENG_UAR_BF_REG)
#define ENG_UAR_TRACK 64	/* distinct UAR pages looked at per pass */

_Static_assert(1 + ENG_UAR_NREGS * 2 == EMU_FW_UAR_DB_PLACES,
	       "a place for the CQ doorbell and each BlueFlame half");

static uint64_t eng_uar_load(const uint8_t *page, unsigned int off)
{
	return __atomic_load_n((const uint64_t *)(const void *)(page + off),
			       __ATOMIC_ACQUIRE);
}

/* A doorbell value names QP qpn of device dev: look at it first. */
static void eng_uar_hint(struct eng_dev *dev, uint64_t db)
{
	const uint8_t *b = (const uint8_t *)&db;
	uint32_t qpn_ds;
	struct emu_fw_obj *obj;
	struct eng_qp *qp;

	memcpy(&qpn_ds, b + 4, 4);
	obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_QP, be32toh(qpn_ds) >> 8);
	if (!obj)
		return;
	qp = eng_qp_of(emu_fw_to_qp(obj));
	if (qp && qp->dev == dev)
		qp->hinted = true;
}

/* A CQ doorbell names a CQ (sn/cmd/ci, then cqn): look at its record.
 * True when the arm it carried was lost. */
static bool eng_uar_cq_arm(struct eng_dev *dev, uint64_t db)
{
	const uint8_t *b = (const uint8_t *)&db;
	struct emu_fw_obj *obj;
	uint32_t word, cqn;

	memcpy(&word, b, 4);
	memcpy(&cqn, b + 4, 4);
	obj = emu_fw_obj_lookup_rcu(dev->fw, EMU_FW_OBJ_CQ, be32toh(cqn) & 0xffffff);
	return obj && eng_cq_arm_hint(dev, emu_fw_to_cq(obj), be32toh(word));
}

void eng_uar_eq_doorbell(struct emu_fw_eq *eq)
{
	const uint8_t *page = eq->uar ?
		atomic_load_explicit(&eq->uar->page, memory_order_acquire) : NULL;

	if (!page)
		return;
	for (unsigned int i = 0; i < 2; i++) {
		uint32_t v = be32toh(__atomic_load_n(
			(const uint32_t *)(const void *)(page + ENG_UAR_EQ_DB + 8 * i),
			__ATOMIC_ACQUIRE));

		if (v == eq->hw.db_seen[i])
			continue;
		eq->hw.db_seen[i] = v;
		if (v >> 24 != (eq->obj.id & 0xff))
			continue;	/* another EQ's word on a shared page */
		/* The counter only moves on: the older of two words loses. */
		if (((v - eq->hw.ci) & 0xffffff) < 0x800000)
			eq->hw.ci = v & 0xffffff;
		if (i == 0)
			eq->hw.armed = true;
	}
}

void eng_uar_scan_cq_db(struct eng_dev *dev, struct emu_fw_uar *uar)
{
	const uint8_t *page = atomic_load_explicit(&uar->page,
						   memory_order_acquire);
	uint64_t v;

	if (!page)
		return;
	v = eng_uar_load(page, ENG_UAR_CQ_DB);
	if (v == uar->hw.seen[0])
		return;
	uar->hw.seen[0] = v;
	/* A lost doorbell leaves nothing in the device's register (unless
	 * another was written since): the same value again is news. */
	if (eng_uar_cq_arm(dev, v) &&
	    __atomic_compare_exchange_n((uint64_t *)(uintptr_t)(page + ENG_UAR_CQ_DB),
					&v, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		uar->hw.seen[0] = 0;
}

static unsigned int eng_uar_scan_page(struct eng_dev *dev,
				      struct emu_fw_uar *uar,
				      const uint8_t *page)
{
	unsigned int n = 0;
	uint64_t v;

	eng_uar_scan_cq_db(dev, uar);
	for (unsigned int i = 0; i < ENG_UAR_NREGS * 2; i++) {
		v = eng_uar_load(page, ENG_UAR_BF_BASE + i * (ENG_UAR_BF_REG / 2));
		if (v == uar->hw.seen[1 + i])
			continue;
		uar->hw.seen[1 + i] = v;
		eng_uar_hint(dev, v);
		n++;
	}
	return n;
}

/* Look at the UAR pages of attached QPs; returns the hints found. */
unsigned int eng_uar_scan(struct eng *e)
{
	const struct emu_fw_uar *done[ENG_UAR_TRACK];
	unsigned int ndone = 0, n = 0;
	struct eng_qp *qp;

	cds_list_for_each_entry(qp, &e->qps, node) {
		struct emu_fw_uar *uar = qp->fq->uar;
		const uint8_t *page = uar ?
			atomic_load_explicit(&uar->page, memory_order_acquire) :
			NULL;
		bool seen = false;

		if (!page)
			continue;
		for (unsigned int i = 0; i < ndone && !seen; i++)
			seen = done[i] == uar;
		if (seen || ndone == ENG_UAR_TRACK)
			continue;
		done[ndone++] = uar;
		n += eng_uar_scan_page(qp->dev, uar, page);
	}
	return n;
}
