/* SPDX-License-Identifier: MIT */
/*
 * The device's local loopback reference, as mlx5_ib keeps it
 * (mlx5_ib_enable_lb / mlx5_ib_disable_lb): every ucontext holds a
 * transport domain, and a raw packet QP whose TIR allows self loopback
 * (a nonzero tirc.self_lb_block) holds a QP use.  The vport's local
 * loopback goes on (MODIFY_NIC_VPORT_CONTEXT clearing disable_uc_local_lb
 * and disable_mc_local_lb, mlx5_nic_vport_update_local_lb) when a second
 * ucontext or a first such QP comes, and off again once one ucontext and
 * no such QP remain.  Nothing is counted or sent unless the device is an
 * Ethernet one with transport domains and either disable_local_lb
 * capability (mlx5_ib_alloc_transport_domain's rule); a failed MODIFY
 * undoes the count it was for.
 */
#include <errno.h>

#include "emu/kernel/kern.h"
#include "prm/prm_cmd.h"

/* mlx5_ib_alloc_transport_domain's rule for counting a ucontext's
 * transport domain. */
static bool kern_lb_counted(struct kern_dev *kdev)
{
	return KERN_CAP_GEN(kdev, log_max_transport_domain) &&
	       KERN_CAP_GEN(kdev, port_type) == MLX5_CAP_PORT_TYPE_ETH &&
	       (KERN_CAP_GEN(kdev, disable_local_lb_uc) ||
		KERN_CAP_GEN(kdev, disable_local_lb_mc));
}

/* mlx5_nic_vport_update_local_lb: both bits to !@enable, each selected
 * where the firmware offers it; nothing without either capability. */
static int kern_lb_update(struct kern_dev *kdev, bool enable)
{
	uint8_t in[PRM_ST_SZ_BYTES(modify_nic_vport_context_in)] = {};
	uint8_t out[PRM_ST_SZ_BYTES(modify_nic_vport_context_out)] = {};
	void *ctx = PRM_ADDR_OF(modify_nic_vport_context_in, in,
				nic_vport_context);
	void *sel = PRM_ADDR_OF(modify_nic_vport_context_in, in, field_select);

	if (!KERN_CAP_GEN(kdev, disable_local_lb_mc) &&
	    !KERN_CAP_GEN(kdev, disable_local_lb_uc))
		return 0;
	PRM_SET(modify_nic_vport_context_in, in, opcode,
		MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
	PRM_SET(nic_vport_context, ctx, disable_mc_local_lb, !enable);
	PRM_SET(nic_vport_context, ctx, disable_uc_local_lb, !enable);
	if (KERN_CAP_GEN(kdev, disable_local_lb_mc))
		PRM_SET(modify_nic_vport_field_select, sel,
			disable_mc_local_lb, 1);
	if (KERN_CAP_GEN(kdev, disable_local_lb_uc))
		PRM_SET(modify_nic_vport_field_select, sel,
			disable_uc_local_lb, 1);
	return kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
}

int kern_lb_enable(struct kern_dev *kdev, bool td, bool qp)
{
	struct kern_lb *lb = &kdev->lb;
	int ret = 0;

	if (td && !kern_lb_counted(kdev))
		return 0;
	pthread_mutex_lock(&lb->lock);
	lb->user_td += td;
	lb->qps += qp;
	if ((lb->user_td == 2 || lb->qps == 1) && !lb->enabled) {
		ret = kern_lb_update(kdev, true);
		if (ret) {
			lb->user_td -= td;
			lb->qps -= qp;
		} else {
			lb->enabled = true;
		}
	}
	pthread_mutex_unlock(&lb->lock);
	return ret;
}

void kern_lb_disable(struct kern_dev *kdev, bool td, bool qp)
{
	struct kern_lb *lb = &kdev->lb;

	if (td && !kern_lb_counted(kdev))
		return;
	pthread_mutex_lock(&lb->lock);
	lb->user_td -= td;
	lb->qps -= qp;
	if (lb->user_td == 1 && lb->qps == 0 && lb->enabled) {
		(void)kern_lb_update(kdev, false);
		lb->enabled = false;
	}
	pthread_mutex_unlock(&lb->lock);
}

/*
 * create_raw_packet_qp_tir's use: a TIR of the caller's that allows self
 * loopback holds a QP use until it is destroyed (kern_obj.c gives it
 * back first, as destroy_raw_packet_qp_tir does), with the ucontext's
 * teardown if need be.  -EINVAL: no TIR, or one already holding.
 */
int kern_lb_tir_hold(struct mlx5be_obj *obj)
{
	struct kern_uctx *uctx = obj->uctx;
	int ret;

	if (kern_devx_enc_opcode(obj->enc_id) != MLX5_CMD_OP_CREATE_TIR)
		return -EINVAL;
	pthread_mutex_lock(&uctx->lock);
	if (obj->lb_qp) {
		pthread_mutex_unlock(&uctx->lock);
		return -EINVAL;
	}
	ret = kern_lb_enable(uctx->kdev, false, true);
	if (!ret)
		obj->lb_qp = true;
	pthread_mutex_unlock(&uctx->lock);
	return ret;
}
