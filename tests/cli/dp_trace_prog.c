/* SPDX-License-Identifier: MIT */
/*
 * A known data-path sequence for the WQE/CQE trace's golden file
 * (test_dp_trace_golden.sh): an unmodified verbs program.  Two RC QPs of
 * mlx5_0 connected to each other; B posts two receives, A one RDMA WRITE
 * and two SENDs (signaled), then both CQs are polled until quiet.  Whatever
 * fault rules the environment gives apply.  Prints each completion.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define MSG 64

static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t buf[4096];

static int to_rts(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void drain(struct ibv_cq *cq, const char *who)
{
	struct timespec t0, t;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		while (ibv_poll_cq(cq, 1, &wc) > 0) {
			printf("%s: wr %llu %s vendor_err 0x%x\n", who,
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), wc.vendor_err);
			clock_gettime(CLOCK_MONOTONIC, &t0);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < 200);
}

int main(void)
{
	struct ibv_qp_init_attr init = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
	struct ibv_send_wr swr[3], *bad;
	struct ibv_recv_wr rwr[2], *rbad;
	struct ibv_sge sge[5];
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qa, *qb;
	union ibv_gid gid;

	if (!ctx || ibv_query_gid(ctx, 1, 1, &gid)) {
		printf("cannot open a device: %s\n", strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	cqa = ibv_create_cq(ctx, 7, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 7, NULL, NULL, 0);
	init.send_cq = init.recv_cq = cqa;
	qa = ibv_create_qp(pd, &init);
	init.send_cq = init.recv_cq = cqb;
	qb = ibv_create_qp(pd, &init);
	if (!mr || !qa || !qb || to_rts(qa, qb->qp_num, &gid) ||
	    to_rts(qb, qa->qp_num, &gid)) {
		printf("cannot set up: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < 5; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + (unsigned int)i * 512,
					   MSG, mr->lkey };
	for (int i = 0; i < 2; i++)
		rwr[i] = (struct ibv_recv_wr){ .wr_id = 100 + (uint64_t)i,
			.sg_list = &sge[3 + i], .num_sge = 1,
			.next = i ? NULL : &rwr[1] };
	for (int i = 0; i < 3; i++)
		swr[i] = (struct ibv_send_wr){ .wr_id = 1 + (uint64_t)i,
			.sg_list = &sge[i], .num_sge = 1,
			.opcode = i ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i < 2 ? &swr[i + 1] : NULL };
	swr[0].wr.rdma.remote_addr = (uintptr_t)buf + 2048;
	swr[0].wr.rdma.rkey = mr->rkey;
	if (ibv_post_recv(qb, rwr, &rbad) || ibv_post_send(qa, swr, &bad)) {
		printf("cannot post: %s\n", strerror(errno));
		return 1;
	}
	drain(cqa, "A");
	drain(cqb, "B");
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
