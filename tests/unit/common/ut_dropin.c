/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"

#include "ut_dropin.h"

struct ibv_context *ut_open(bool devx)
{
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	ck_assert_msg(list, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n && !ctx; i++) {
		if (strcmp(ibv_get_device_name(list[i]), "mlx5_0"))
			continue;
		ctx = devx ? mlx5dv_open_device(list[i], &attr) :
			     ibv_open_device(list[i]);
		ck_assert_msg(ctx, "opening mlx5_0: %s", strerror(errno));
	}
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "no mlx5_0 among %d devices", n);
	return ctx;
}

int ut_rc_connect(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *gid,
		  uint8_t min_rnr)
{
	return ut_rc_connect_access(qp, rqpn, gid, min_rnr,
				    IBV_ACCESS_REMOTE_WRITE);
}

int ut_rc_connect_access(struct ibv_qp *qp, uint32_t rqpn,
			 const union ibv_gid *gid, uint8_t min_rnr,
			 unsigned int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access };
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0x10;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = min_rnr;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 3;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x10;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int ut_query_hca_cap(struct ibv_context *ctx, unsigned int type, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };

	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, (type << 1) | HCA_CAP_OPMOD_GET_CUR);
	memset(out, 0, PRM_ST_SZ_BYTES(query_hca_cap_out));
	return mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out,
				       PRM_ST_SZ_BYTES(query_hca_cap_out));
}
