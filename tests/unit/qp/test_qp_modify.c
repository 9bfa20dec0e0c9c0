/* SPDX-License-Identifier: MIT */
/*
 * ibv_modify_qp / ibv_query_qp / ibv_query_qp_data_in_order and the DEVX
 * entries on verbs QPs: every transition mlx5_ib issues, the attributes
 * read back exactly as set (verbs and firmware view), the RoCE path
 * (source GID index, destination GID and MAC, UDP source port), and the
 * errnos of libibverbs, uverbs, ib_core and mlx5_ib for bad transitions
 * and bad attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp_test.h"

#define RC_INIT_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
		      IBV_QP_ACCESS_FLAGS)
#define RC_RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
		     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTS_MASK (IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | \
		     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
		     IBV_QP_MAX_QP_RD_ATOMIC)

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	errno = 0;
	return ibv_modify_qp(qp, a, mask);
}

static void rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK), 0);
}

static struct ibv_qp_attr rtr_attr(uint32_t rqpn, int sgid)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_2048;
	a.dest_qp_num = rqpn;
	a.rq_psn = 0xabcdef;
	a.max_dest_rd_atomic = 2;
	a.min_rnr_timer = 5;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = qt_gid(sgid);
	a.ah_attr.grh.sgid_index = (uint8_t)sgid;
	a.ah_attr.grh.hop_limit = 33;
	a.ah_attr.grh.traffic_class = 0x28;
	a.ah_attr.sl = 3;
	return a;
}

START_TEST(test_rc_walk_and_query)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 16, 16);
	struct ibv_qp *peer = qt_create(IBV_QPT_RC, 16, 16);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	union ibv_gid gid = qt_gid(1);

	qt_rc_to_rts(qp, peer->qp_num, 1);
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_CAP, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_RTS);
	ck_assert_int_eq(q.cur_qp_state, IBV_QPS_RTS);
	ck_assert_int_eq(q.path_mtu, IBV_MTU_1024);
	ck_assert_int_eq(q.path_mig_state, IBV_MIG_MIGRATED);
	ck_assert_uint_eq(q.dest_qp_num, peer->qp_num);
	ck_assert_uint_eq(q.rq_psn, 0x123456);
	ck_assert_uint_eq(q.sq_psn, 0x654321);
	ck_assert_uint_eq(q.qp_access_flags,
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(q.max_rd_atomic, 4);
	ck_assert_uint_eq(q.max_dest_rd_atomic, 4);
	ck_assert_uint_eq(q.min_rnr_timer, 12);
	ck_assert_uint_eq(q.timeout, 14);
	ck_assert_uint_eq(q.retry_cnt, 7);
	ck_assert_uint_eq(q.rnr_retry, 7);
	ck_assert_uint_eq(q.port_num, 1);
	ck_assert_uint_eq(q.pkey_index, 0);
	ck_assert_uint_eq(q.ah_attr.is_global, 1);
	ck_assert_uint_eq(q.ah_attr.port_num, 1);
	ck_assert_uint_eq(q.ah_attr.grh.sgid_index, 1);
	ck_assert_uint_eq(q.ah_attr.grh.hop_limit, 64);
	ck_assert_mem_eq(q.ah_attr.grh.dgid.raw, gid.raw, 16);
	/* The caps as libmlx5 reports them. */
	ck_assert_uint_eq(init.cap.max_send_wr, 16);
	ck_assert_uint_eq(init.cap.max_recv_wr, 16);
	ck_assert_uint_eq(init.cap.max_send_sge, 1);
	ck_assert_uint_eq(init.cap.max_recv_sge, 1);
	ck_assert_uint_eq(init.cap.max_inline_data, 60);
	ck_assert_mem_eq(&q.cap, &init.cap, sizeof(q.cap));
	ck_assert_ptr_eq(init.send_cq, qt_cq);
	ck_assert_int_eq(init.qp_type, IBV_QPT_RC);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);

	/* RTS->RTS: the optional attributes. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.min_rnr_timer = 20;
	a.qp_access_flags = IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER |
				IBV_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE, &init), 0);
	ck_assert_uint_eq(q.min_rnr_timer, 20);
	ck_assert_uint_eq(q.qp_access_flags,
			  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_WRITE);

	/* To ERR, then RESET. */
	a.qp_state = IBV_QPS_ERR;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_ERR);
	ck_assert_uint_eq(qt_fw_state(qp), MLX5_QPC_STATE_ERR);
	a.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RESET);
	ck_assert_uint_eq(qt_fw_state(qp), MLX5_QPC_STATE_RST);
	/* RESET->RESET: nothing to do. */
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), 0);
	/* And again to RTS after RESET. */
	qt_rc_to_rts(qp, peer->qp_num, 1);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(peer), 0);
}
END_TEST

/* The RoCE path in the firmware's context, as mlx5_set_path builds it. */
START_TEST(test_rc_path_fw)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp *v1 = qt_create(IBV_QPT_RC, 4, 4);
	uint8_t out[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp_attr a;
	union ibv_gid gid = qt_gid(1);
	uint64_t v;
	uint32_t fl;
	uint8_t mac[6];

	rc_init(qp);
	a = rtr_attr(0x4321, 1);
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), 0);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.state), MLX5_QPC_STATE_RTR);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.mtu), IBV_MTU_2048);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_msg_max), 30);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.remote_qpn), 0x4321);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.next_rcv_psn), 0xabcdef);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_rra_max), 1);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.min_rnr_nak), 5);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.src_addr_index), 1);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.hop_limit), 33);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.tclass), 0x28);
	/* RoCE v2: DSCP from the traffic class, priority from the SL. */
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.dscp), 0x28 >> 2);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.eth_prio), 3);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.vhca_port_num), 1);
	ck_assert_mem_eq(PRM_ADDR_OF(query_qp_out, out,
				     qpc.primary_address_path.rgid_rip),
			 gid.raw, 16);
	/* The destination MAC of a link-local GID: its interface id. */
	mac[0] = gid.raw[8] ^ 0x02;
	mac[1] = gid.raw[9];
	mac[2] = gid.raw[10];
	mac[3] = gid.raw[13];
	mac[4] = gid.raw[14];
	mac[5] = gid.raw[15];
	ck_assert_mem_eq(PRM_ADDR_OF(query_qp_out, out,
				     qpc.primary_address_path.rmac_47_32), mac, 6);
	/* The UDP source port from both QP numbers (flow label 0). */
	v = (uint64_t)qp->qp_num * 0x4321;
	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)(v & 0xfffff);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.udp_sport),
			  ibv_flow_label_to_udp_sport(fl));

	/* RTS: timeouts, retries, SQ PSN, 1 << log_sra_max. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1000001;	/* cut to 24 bits by ib_core */
	a.timeout = 9;
	a.retry_cnt = 3;
	a.rnr_retry = 6;
	a.max_rd_atomic = 5;	/* ilog2: 2 */
	ck_assert_int_eq(modify(qp, &a, RC_RTS_MASK), 0);
	ck_assert_int_eq(qt_devx_query_qp(qp, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.next_send_psn), 1);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.ack_timeout), 9);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.retry_count), 3);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.rnr_retry), 6);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_sra_max), 2);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out, qpc.log_ack_req_freq), 8);

	/* A RoCE v1 source GID: no UDP source port, no DSCP. */
	rc_init(v1);
	a = rtr_attr(0x55, 0);
	ck_assert_int_eq(modify(v1, &a, RC_RTR_MASK), 0);
	ck_assert_int_eq(qt_devx_query_qp(v1, out), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.udp_sport), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, out,
				  qpc.primary_address_path.dscp), 0);
	ck_assert_int_eq(ibv_destroy_qp(v1), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_ud_walk)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_UD, 4, 4);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;

	qt_ud_to_rts(qp, 0x11223344, 0x45);
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_QKEY | IBV_QP_SQ_PSN, &init), 0);
	ck_assert_uint_eq(q.qkey, 0x11223344);
	ck_assert_uint_eq(q.sq_psn, 0x45);
	ck_assert_int_eq(q.path_mtu, IBV_MTU_4096);	/* mlx5_ib's UD MTU */
	ck_assert_uint_eq(q.port_num, 1);
	ck_assert_uint_eq(q.ah_attr.is_global, 0);	/* UD: no path */
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
	ck_assert_int_eq(ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_uc_walk)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_UC, 4, 4);
	struct ibv_qp_attr a;

	rc_init(qp);
	/* UC has no responder resources nor RNR timer: EINVAL. */
	a = rtr_attr(0x99, 1);
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), EINVAL);
	ck_assert_int_eq(qp->state, IBV_QPS_INIT);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = qt_create(IBV_QPT_UC, 4, 4);
	qt_rc_to_rts(qp, 0x99, 1);
	ck_assert_uint_eq(qt_fw_state(qp), MLX5_QPC_STATE_RTS);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* ib_modify_qp_is_ok(): the transition and its required/allowed mask. */
START_TEST(test_bad_transitions)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp *ud = qt_create(IBV_QPT_UD, 4, 4);
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), EINVAL);	/* RESET->RTR */
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), EINVAL);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	/* Missing ACCESS_FLAGS; an attribute RC does not take (Q_Key). */
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT), EINVAL);
	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK | IBV_QP_QKEY), EINVAL);
	/* UD INIT needs the Q_Key. */
	ck_assert_int_eq(modify(ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT), EINVAL);
	ck_assert_int_eq(qp->state, IBV_QPS_RESET);
	ck_assert_uint_eq(qt_fw_state(qp), MLX5_QPC_STATE_RST);
	rc_init(qp);
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(modify(qp, &a, RC_RTS_MASK), EINVAL);	/* INIT->RTS */
	/* INIT->INIT with its optional attributes. */
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				IBV_QP_PKEY_INDEX), 0);
	/* A state past ERR; CUR_STATE from INIT (only RTR..SQE may say). */
	a.qp_state = (enum ibv_qp_state)(IBV_QPS_ERR + 1);
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), EINVAL);
	a.qp_state = IBV_QPS_INIT;
	a.cur_qp_state = IBV_QPS_INIT;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
	/* RTS->SQD is legal in IBA but mlx5_ib has no command for it. */
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	qp = qt_create(IBV_QPT_RC, 4, 4);
	qt_rc_to_rts(qp, ud->qp_num, 1);
	a.qp_state = IBV_QPS_SQD;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
	/* RTS->RTS with a required-only attribute. */
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
	/* Mask bits libibverbs or mlx5_ib do not know. */
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | (1 << 26)), EOPNOTSUPP);
	ck_assert_int_eq(modify(qp, &a, IBV_QP_STATE | (1 << 21)), EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);
}
END_TEST

START_TEST(test_bad_attributes)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 2;		/* one port */
	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK), EINVAL);
	a.port_num = 0;
	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK), EINVAL);
	a.port_num = 1;
	a.pkey_index = 128;	/* past the 128-entry table */
	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK), EINVAL);
	a.pkey_index = 0;
	ck_assert_int_eq(modify(qp, &a, RC_INIT_MASK), 0);

	a = rtr_attr(0x77, 1);
	a.ah_attr.port_num = 0;	/* uverbs: the AV's port */
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), EINVAL);
	a = rtr_attr(0x77, 1);
	a.ah_attr.is_global = 0;	/* RoCE needs the GRH */
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), EINVAL);
	a = rtr_attr(0x77, 1);
	a.ah_attr.grh.sgid_index = 10;	/* an empty GID entry */
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), ENODATA);
	a = rtr_attr(0x77, 1);
	a.path_mtu = (enum ibv_mtu)6;
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), EINVAL);
	a = rtr_attr(0x77, 1);
	a.max_dest_rd_atomic = 17;	/* 1 << log_max_ra_req_qp is 16 */
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), EINVAL);
	ck_assert_int_eq(qp->state, IBV_QPS_INIT);
	a = rtr_attr(0x77, 1);
	ck_assert_int_eq(modify(qp, &a, RC_RTR_MASK), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.max_rd_atomic = 17;
	ck_assert_int_eq(modify(qp, &a, RC_RTS_MASK), EINVAL);
	ck_assert_int_eq(qp->state, IBV_QPS_RTR);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(test_query_masks)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_RC, 4, 4);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;

	errno = 0;
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_RATE_LIMIT, &init),
			 EOPNOTSUPP);
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_RESET);
	/* The state comes from firmware: libibverbs updates qp->state. */
	qp->state = IBV_QPS_ERR;
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RESET);
	/* A fresh QP: 1 << log_sra_max is 1, as mlx5_ib reports it. */
	ck_assert_uint_eq(q.max_rd_atomic, 1);
	ck_assert_uint_eq(q.max_dest_rd_atomic, 1);
	ck_assert_int_eq(ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* DEVX on a verbs QP: the firmware moves, qp->state does not. */
START_TEST(test_devx_qp_modify)
{
	struct ibv_qp *qp = qt_create(IBV_QPT_UD, 4, 4);
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	uint8_t qout[PRM_ST_SZ_BYTES(query_qp_out)];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);

	PRM_SET(rst2init_qp_in, in, opcode, MLX5_CMD_OP_RST2INIT_QP);
	PRM_SET(rst2init_qp_in, in, qpn, qp->qp_num);
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, q_key, 0x42);
	ck_assert_int_eq(mlx5dv_devx_qp_modify(qp, in, sizeof(in), out,
					       sizeof(out)), 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RESET);
	ck_assert_int_eq(qt_devx_query_qp(qp, qout), 0);
	ck_assert_uint_eq(PRM_GET(query_qp_out, qout, qpc.state),
			  MLX5_QPC_STATE_INIT);
	ck_assert_uint_eq(PRM_GET(query_qp_out, qout, qpc.q_key), 0x42);
	/* ibv_query_qp reads the firmware's state. */
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_QKEY, &init), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_INIT);
	ck_assert_uint_eq(q.qkey, 0x42);
	ck_assert_int_eq(qp->state, IBV_QPS_INIT);
	/* A firmware refusal: EREMOTEIO with the outbox (INIT->INIT is
	 * fine, RST2INIT again is a bad transition). */
	errno = 0;
	ck_assert_int_eq(mlx5dv_devx_qp_modify(qp, in, sizeof(in), out,
					       sizeof(out)), EREMOTEIO);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status),
			  MLX5_CMD_STAT_BAD_QP_STATE_ERR);
	/* Another QP's number: the kernel's object check. */
	PRM_SET(rst2init_qp_in, in, qpn, qp->qp_num + 1);
	ck_assert_int_eq(mlx5dv_devx_qp_modify(qp, in, sizeof(in), out,
					       sizeof(out)), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("qp_modify");
	TCase *tc = tcase_create("modify");

	tcase_add_checked_fixture(tc, qt_setup, qt_teardown);
	tcase_add_test(tc, test_rc_walk_and_query);
	tcase_add_test(tc, test_rc_path_fw);
	tcase_add_test(tc, test_ud_walk);
	tcase_add_test(tc, test_uc_walk);
	tcase_add_test(tc, test_bad_transitions);
	tcase_add_test(tc, test_bad_attributes);
	tcase_add_test(tc, test_query_masks);
	tcase_add_test(tc, test_devx_qp_modify);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
