/* SPDX-License-Identifier: MIT */
/* Shared helpers of the QP tests (see qp_test.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

struct ibv_context *qt_ctx;
struct ibv_pd *qt_pd;
struct ibv_cq *qt_cq;

static const char *const qt_env[] = {
	"MLX_QP_ALLOC_TYPE", "MLX_SRQ_ALLOC_TYPE", "MLX_CQ_ALLOC_TYPE",
	"MLX5_SHUT_UP_BF", "MLX5_TOTAL_UUARS", "MLX5_NUM_LOW_LAT_UUARS",
	"MLX5_QP_SIGNATURE", "MLX5_SRQ_SIGNATURE", "HUGE_RC", "HUGE_UD",
	"HUGE_UC", "MLX5_SCATTER_TO_CQE", "MLX5_CQE_SIZE",
};

void qt_clear_env(void)
{
	for (size_t i = 0; i < sizeof(qt_env) / sizeof(qt_env[0]); i++)
		unsetenv(qt_env[i]);
}

void qt_setup(void)
{
	qt_clear_env();
	qt_open();
}

void qt_open(void)
{
	qt_ctx = vt_open(true);
	qt_pd = ibv_alloc_pd(qt_ctx);
	ck_assert_ptr_nonnull(qt_pd);
	qt_cq = ibv_create_cq(qt_ctx, 255, NULL, NULL, 0);
	ck_assert_ptr_nonnull(qt_cq);
}

void qt_teardown(void)
{
	ck_assert_int_eq(ibv_destroy_cq(qt_cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(qt_pd), 0);
	ck_assert_int_eq(ibv_close_device(qt_ctx), 0);
	qt_clear_env();
}

struct ibv_qp_init_attr qt_init_attr(enum ibv_qp_type type, uint32_t swr,
				     uint32_t rwr, uint32_t ssge, uint32_t rsge)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = qt_cq;
	a.recv_cq = qt_cq;
	a.cap.max_send_wr = swr;
	a.cap.max_recv_wr = rwr;
	a.cap.max_send_sge = ssge;
	a.cap.max_recv_sge = rsge;
	return a;
}

struct ibv_qp *qt_create(enum ibv_qp_type type, uint32_t swr, uint32_t rwr)
{
	struct ibv_qp_init_attr a = qt_init_attr(type, swr, rwr, 1, 1);
	struct ibv_qp *qp = ibv_create_qp(qt_pd, &a);

	ck_assert_msg(qp, "create type %d: %s", type, strerror(errno));
	return qp;
}

int qt_create_err(struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(qt_pd, attr);
	if (qp) {
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		return 0;
	}
	return errno;
}

struct ibv_qp_init_attr_ex qt_raw_rx_attr(uint32_t rwr)
{
	struct ibv_qp_init_attr_ex ax;

	memset(&ax, 0, sizeof(ax));
	ax.qp_type = IBV_QPT_RAW_PACKET;
	ax.send_cq = ax.recv_cq = qt_cq;
	ax.cap.max_recv_wr = rwr;
	ax.cap.max_recv_sge = 1;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = qt_pd;
	return ax;
}

struct ibv_qp *qt_raw_dv_create(struct ibv_qp_init_attr_ex *ax,
				uint64_t flags)
{
	struct mlx5dv_qp_init_attr dv;

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	dv.create_flags = flags;
	errno = 0;
	return mlx5dv_create_qp(qt_ctx, ax, &dv);
}

int qt_create_ex_err(struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp_ex(qt_ctx, attr);
	if (qp) {
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		return 0;
	}
	return errno;
}

union ibv_gid qt_gid(int index)
{
	union ibv_gid gid;

	ck_assert_int_eq(ibv_query_gid(qt_ctx, 1, index, &gid), 0);
	return gid;
}

void qt_rc_connect(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *dgid,
		   int sgid, unsigned int access, uint32_t rq_psn,
		   uint32_t sq_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)sgid;
	a.ah_attr.grh.hop_limit = 64;
	if (qp->qp_type == IBV_QPT_UC)
		ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
					       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					       IBV_QP_RQ_PSN), 0);
	else
		ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
					       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					       IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC |
					       IBV_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (qp->qp_type == IBV_QPT_UC)
		ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE |
					       IBV_QP_SQ_PSN), 0);
	else
		ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					       IBV_QP_RNR_RETRY |
					       IBV_QP_MAX_QP_RD_ATOMIC), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
}

void qt_rc_to_rts(struct ibv_qp *qp, uint32_t rqpn, int sgid)
{
	union ibv_gid gid = qt_gid(sgid);

	qt_rc_connect(qp, rqpn, &gid, sgid, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ, 0x123456, 0x654321);
}

void qt_ud_to_rts(struct ibv_qp *qp, uint32_t qkey, uint32_t sq_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
}

int qt_devx_query_qp(struct ibv_qp *qp, void *out)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_qp_in)] = { 0 };

	memset(out, 0, PRM_ST_SZ_BYTES(query_qp_out));
	PRM_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	PRM_SET(query_qp_in, in, qpn, qp->qp_num);
	return mlx5dv_devx_qp_query(qp, in, sizeof(in), out,
				    PRM_ST_SZ_BYTES(query_qp_out));
}

uint32_t qt_fw_state(struct ibv_qp *qp)
{
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_qp_out));
	uint32_t st;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	st = PRM_GET(query_qp_out, out, qpc.state);
	free(out);
	return st;
}

void qt_put_dseg(uint8_t *p, uint32_t len, uint32_t lkey, uint64_t addr)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(len >> (24 - 8 * i));
		p[4 + i] = (uint8_t)(lkey >> (24 - 8 * i));
	}
	for (int i = 0; i < 8; i++)
		p[8 + i] = (uint8_t)(addr >> (56 - 8 * i));
}
