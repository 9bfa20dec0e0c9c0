/* SPDX-License-Identifier: MIT */
/*
 * emu/engine/eng_event.c -- event queue entries: what the device writes
 * into an EQ's ring when something happens, and the interrupt.
 *
 * EQE n of an EQ of 2^log_size entries sits at n mod size with owner bit
 * (n >> log_size) & 1, the parity the consumer expects at its counter
 * (mlx5_core lib/eq.h next_eqe_sw; entries start with owner 1).  The
 * entry is written with emu_mem_publish, its owner byte last.  The
 * consumer counter comes from the EQ doorbell (eng_uar.c): an EQ that
 * holds 2^log_size entries the consumer has not taken loses the next one
 * (counted in hw.lost) rather than overwrite one.  An EQE written into an
 * armed EQ disarms it and fires its interrupt vector (eqc.intr), as
 * MSI-X does; the consumer re-arms through the doorbell.
 *
 * Completion events go to the CQ's EQ (c_eqn), whatever its event mask
 * (mlx5_core's completion EQs ask for none); every other event goes to the
 * EQ of the device whose event_bitmask asks for its type (the lowest
 * number if several do, none if none does).  Data layouts are prm/'s
 * eqe and event_auto (Linux include/linux/mlx5/mlx5_ifc.h, device.h).
 */
#include <string.h>

#include "emu/engine/eng_int.h"
#include "emu/mem/mem.h"

static void eng_eqe_post(struct eng_dev *dev, struct emu_fw_eq *eq,
			 const uint8_t eqe[64])
{
	uint32_t pi = atomic_load(&eq->pi);
	uint32_t size = UINT32_C(1) << eq->log_size;
	uint8_t e[64];

	eng_uar_eq_doorbell(eq);
	if (((pi - eq->hw.ci) & 0xffffff) >= size) {
		atomic_fetch_add(&eq->hw.lost, 1);
		return;
	}
	memcpy(e, eqe, sizeof(e));
	PRM_SET(eqe, e, owner, (pi >> eq->log_size) & 1);
	if (emu_mem_publish(eq->buf.addr + (size_t)(pi & (size - 1)) * 64, e,
			    sizeof(e)))
		return;
	atomic_store(&eq->pi, pi + 1);
	if (!eq->hw.armed)
		return;
	eq->hw.armed = false;
	if (dev && dev->irq)
		dev->irq(dev->irq_arg, eq->intr);
}

static void eng_eqe_init(uint8_t e[64], uint8_t type, uint8_t sub_type)
{
	memset(e, 0, 64);
	PRM_SET(eqe, e, event_type, type);
	PRM_SET(eqe, e, event_sub_type, sub_type);
}

static void *eng_eqe_data(uint8_t e[64])
{
	return PRM_ADDR_OF(eqe, e, event_data);
}

struct eng_eq_pick {
	uint8_t type;
	struct emu_fw_eq *eq;
};

static int eng_eq_pick_one(struct emu_fw_obj *obj, void *arg)
{
	struct eng_eq_pick *p = arg;
	struct emu_fw_eq *eq = emu_fw_to_eq(obj);

	if ((eq->event_bitmask[p->type / 64] >> (p->type % 64)) & 1 &&
	    (!p->eq || obj->id < p->eq->obj.id))
		p->eq = eq;
	return 0;
}

/* Into the EQ asking for the type (inside the firmware's RCU read side). */
static void eng_event_async(struct eng_dev *dev, const uint8_t e[64])
{
	struct eng_eq_pick p = { .type = (uint8_t)PRM_GET(eqe, e, event_type) };

	if (!dev || dev->fatal)
		return;
	emu_fw_rcu_lock();
	emu_fw_obj_for_each(dev->fw, EMU_FW_OBJ_EQ, eng_eq_pick_one, &p);
	if (p.eq)
		eng_eqe_post(dev, p.eq, e);
	emu_fw_rcu_unlock();
}

void eng_event_comp(struct eng_dev *dev, struct emu_fw_cq *cq)
{
	struct emu_fw_eq *eq = atomic_load(&cq->eq);
	uint8_t e[64];

	if (!eq || !dev || dev->fatal)
		return;
	eng_eqe_init(e, MLX5_EVENT_TYPE_COMP, 0);
	PRM_SET(comp_event, eng_eqe_data(e), cq_number, cq->obj.id);
	eng_eqe_post(dev, eq, e);
}

void eng_event_queue(struct eng_dev *dev, uint8_t type, uint32_t number)
{
	uint8_t e[64];

	/* Queue type 0 (device.h MLX5_EVENT_QUEUE_TYPE_QP): QP events name
	 * the QP, SRQ events the SRQ in the same place (mlx5_core srq.c reads
	 * only the number). */
	eng_eqe_init(e, type, 0);
	PRM_SET(qp_events, eng_eqe_data(e), type, 0);
	PRM_SET(qp_events, eng_eqe_data(e), qpn_rqn_sqn, number);
	eng_event_async(dev, e);
}

void eng_event_dct(struct eng_dev *dev, uint8_t type, uint32_t dctn)
{
	uint8_t e[64];

	/* Queue type DCT (device.h MLX5_EVENT_QUEUE_TYPE_DCT): the number in
	 * the PRM's DCT event layout. */
	eng_eqe_init(e, type, 0);
	PRM_SET(dct_events, eng_eqe_data(e), dct_number, dctn);
	eng_event_async(dev, e);
}

void eng_event_cq_error(struct eng_dev *dev, const struct emu_fw_cq *cq,
			uint8_t syndrome)
{
	uint8_t e[64];

	eng_eqe_init(e, MLX5_EVENT_TYPE_CQ_ERROR, 0);
	PRM_SET(cq_error, eng_eqe_data(e), cqn, cq->obj.id);
	PRM_SET(cq_error, eng_eqe_data(e), syndrome, syndrome);
	eng_event_async(dev, e);
}

void eng_event_port(struct eng_dev *dev, unsigned int port, bool up)
{
	uint8_t e[64];

	eng_eqe_init(e, MLX5_EVENT_TYPE_PORT_CHANGE,
		     up ? MLX5_PORT_CHANGE_SUBTYPE_ACTIVE :
			  MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	PRM_SET(port_state_change_event, eng_eqe_data(e), port_num, port);
	eng_event_async(dev, e);
}
