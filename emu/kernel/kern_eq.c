/* SPDX-License-Identifier: MIT */
/*
 * The kernel's event queues, as mlx5_core makes and consumes them
 * (drivers/net/ethernet/mellanox/mlx5/core/eq.c, lib/eq.h): an async EQ
 * for every event type the device raises but completions (interrupt
 * vector 0), and one completion EQ per vector (1..), whose numbers
 * query_eqn hands out.  Each EQ is 1024 entries in kernel memory, owner
 * bits 1 to start (init_eq_buf), with a UAR page of its own, and is armed
 * at once (eq_update_ci with arm).
 *
 * The interrupt (the engine calls it when it writes an EQE into an armed
 * EQ, emu_eng_set_irq) consumes every new EQE -- valid while its owner
 * bit equals the counter's lap parity (next_eqe_sw) -- hands each to the
 * DEVX event layer (kern_event.c, as mlx5_ib's devx_event_notifier and
 * devx_cq_comp get them), then writes the doorbell: eqn << 24 | ci,
 * big-endian, at 0x40 (update and arm).
 */
#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/engine/eng.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_EQ_LOG_SIZE 10		/* 1024 EQEs, as mlx5_core's */
#define KERN_EQ_DB_ARM 0x40		/* MLX5_EQ_DOORBEL_OFFSET */
#define KERN_ASYNC_VECTOR 0

/* The async EQ asks for what mlx5_core's does (gather_async_events_mask),
 * within what this device raises. */
#define EV(t) (UINT64_C(1) << MLX5_EVENT_TYPE_##t)
#define KERN_ASYNC_EVENTS                                                     \
	(EV(PATH_MIG) | EV(COMM_EST) | EV(SQ_DRAINED) | EV(CQ_ERROR) |         \
	 EV(WQ_CATAS_ERROR) | EV(PATH_MIG_FAILED) | EV(WQ_INVAL_REQ_ERROR) |   \
	 EV(WQ_ACCESS_ERROR) | EV(SRQ_CATAS_ERROR) | EV(INTERNAL_ERROR) |      \
	 EV(PORT_CHANGE) | EV(SRQ_LAST_WQE) | EV(SRQ_RQ_LIMIT))

static void kern_eq_doorbell(struct kern_eq *eq)
{
	uint32_t v = htobe32(eq->eqn << 24 | (eq->ci & 0xffffff));

	__atomic_store_n((uint32_t *)(void *)(eq->page + KERN_EQ_DB_ARM), v,
			 __ATOMIC_RELEASE);
}

static int kern_eq_create(struct kern_dev *kdev, struct kern_eq *eq,
			  unsigned int vector, uint64_t mask)
{
	size_t len = (size_t)64 << KERN_EQ_LOG_SIZE;
	size_t npages = len / KERN_PAGE_SIZE;
	size_t inlen = PRM_ST_SZ_BYTES(create_eq_in) + npages * 8;
	uint8_t uin[PRM_ST_SZ_BYTES(alloc_uar_in)] = {};
	uint8_t uout[PRM_ST_SZ_BYTES(alloc_uar_out)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(create_eq_out)] = {};
	uint8_t *in;
	void *eqc;
	int ret;

	eq->log_size = KERN_EQ_LOG_SIZE;
	eq->vector = vector;
	PRM_SET(alloc_uar_in, uin, opcode, MLX5_CMD_OP_ALLOC_UAR);
	ret = kern_fw_exec_checked(kdev, uin, sizeof(uin), uout, sizeof(uout));
	if (ret)
		return ret;
	eq->uar = PRM_GET(alloc_uar_out, uout, uar);
	if (posix_memalign((void **)&eq->page, KERN_PAGE_SIZE, KERN_PAGE_SIZE) ||
	    posix_memalign((void **)&eq->buf, KERN_PAGE_SIZE, len))
		return -ENOMEM;
	memset(eq->page, 0, KERN_PAGE_SIZE);
	ret = emu_fw_uar_set_page(kdev->fw, eq->uar, eq->page);
	if (ret)
		return ret;
	memset(eq->buf, 0, len);
	for (size_t i = 0; i < len / 64; i++)
		PRM_SET(eqe, eq->buf + i * 64, owner, 1);
	/* The device writes the ring: registered for writing. */
	ret = kern_umem_create(kdev, 0, eq->buf, len, true, KERN_PAGE_SIZE,
			       &eq->umem_id);
	if (ret)
		return ret;
	in = calloc(1, inlen);
	if (!in)
		return -ENOMEM;
	PRM_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	eqc = PRM_ADDR_OF(create_eq_in, in, eq_context_entry);
	PRM_SET(eqc, eqc, log_eq_size, KERN_EQ_LOG_SIZE);
	PRM_SET(eqc, eqc, uar_page, eq->uar);
	PRM_SET(eqc, eqc, intr, vector);
	PRM_SET64(create_eq_in, in, event_bitmask[0], mask);
	/* The page list: process addresses of the EQ's pages. */
	for (size_t p = 0; p < npages; p++)
		prm_set64_(PRM_ARRAY_ADDR(create_eq_in, in, pas, p), 0,
			   (uint64_t)(uintptr_t)eq->buf + p * KERN_PAGE_SIZE);
	ret = kern_fw_exec_checked(kdev, in, inlen, out, sizeof(out));
	free(in);
	if (ret)
		return ret;
	eq->eqn = PRM_GET(create_eq_out, out, eq_number);
	kern_eq_doorbell(eq);	/* armed */
	return 0;
}

/* Every new EQE to the event layer, then the counter, re-armed. */
static void kern_eq_consume(struct kern_dev *kdev, struct kern_eq *eq)
{
	uint32_t mask = (1u << eq->log_size) - 1;

	for (;;) {
		uint8_t *e = eq->buf + (size_t)(eq->ci & mask) * 64;
		uint8_t own = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);
		uint8_t eqe[64];

		if ((own & 1) != ((eq->ci >> eq->log_size) & 1))
			break;
		memcpy(eqe, e, sizeof(eqe));
		eq->ci++;
		kern_event_dispatch(kdev, eqe);
	}
	kern_eq_doorbell(eq);
}

void kern_eq_irq(void *arg, unsigned int vector)
{
	struct kern_dev *kdev = arg;

	if (vector == KERN_ASYNC_VECTOR) {
		kern_eq_consume(kdev, &kdev->async_eq);
		return;
	}
	for (int v = 0; v < KERN_NUM_COMP_VECTORS; v++)
		if (kdev->comp_eq[v].vector == vector)
			kern_eq_consume(kdev, &kdev->comp_eq[v]);
}

int kern_eq_create_all(struct kern_dev *kdev)
{
	int ret = kern_eq_create(kdev, &kdev->async_eq, KERN_ASYNC_VECTOR,
				 KERN_ASYNC_EVENTS);

	for (int v = 0; !ret && v < KERN_NUM_COMP_VECTORS; v++) {
		/* Completion EQs ask for no event type (completions go to
		 * a CQ's EQ whatever it asks for); COMP says what they are. */
		ret = kern_eq_create(kdev, &kdev->comp_eq[v], 1 + v,
				     EV(COMP));
		kdev->eqn[v] = kdev->comp_eq[v].eqn;
	}
	return ret;
}
