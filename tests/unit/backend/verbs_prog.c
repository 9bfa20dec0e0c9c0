/* SPDX-License-Identifier: MIT */
/*
 * verbs_prog: one ordinary verbs program, run on the drop-in libraries in
 * emu mode and in hw mode against the test double, so the commands the
 * provider issues in each can be compared (compare.py):
 *
 *   open mlx5_0, query the device and port 1, GID 1
 *   PD, MR (4 pages, local write / remote read+write), CQ of 64
 *   RC QP (16 send, 16 recv) RESET -> INIT -> RTR -> RTS, connected to
 *   itself over GID 1
 *   destroy QP, CQ, MR, PD; close
 *
 * Prints one line per step, "STEP ok" or "STEP failed: ERRNO_NAME", and
 * stops at the first failure (cleaning up what exists).  Exits 0 after a
 * clean run, 1 after a failure, so a fault rule's effect on the program
 * is in its output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static int step(const char *what, int ok)
{
	if (ok) {
		printf("%s ok\n", what);
		return 0;
	}
	printf("%s failed: %s\n", what, strerrorname_np(errno) ?
	       strerrorname_np(errno) : "?");
	return -1;
}

/* ibv_modify_qp's result is the errno itself. */
static int modify(const char *what, struct ibv_qp *qp, struct ibv_qp_attr *a,
		  int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		errno = ret;
	return step(what, !ret);
}

static int to_rts(struct ibv_qp *qp, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	if (modify("modify_qp INIT", qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = 0x123456;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	if (modify("modify_qp RTR", qp, &a, IBV_QP_STATE | IBV_QP_AV |
		   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x654321;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return modify("modify_qp RTS", qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
		      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(void)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_device **list;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	union ibv_gid gid;
	void *buf = NULL;
	int n = 0, bad = 1;

	list = ibv_get_device_list(&n);
	if (step("get_device_list", list && n > 0))
		return 1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (step("open_device", ctx != NULL))
		return 1;
	if (step("query_device", !ibv_query_device(ctx, &da)) ||
	    step("query_port", !ibv_query_port(ctx, 1, &pa)) ||
	    step("query_gid", !ibv_query_gid(ctx, 1, 1, &gid)))
		goto out;
	pd = ibv_alloc_pd(ctx);
	if (step("alloc_pd", pd != NULL))
		goto out;
	buf = aligned_alloc(4096, 4 * 4096);
	mr = buf ? ibv_reg_mr(pd, buf, 4 * 4096, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (step("reg_mr", mr != NULL))
		goto out;
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (step("create_cq", cq != NULL))
		goto out;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	if (step("create_qp", qp != NULL))
		goto out;
	if (to_rts(qp, &gid))
		goto out;
	bad = 0;
out:
	if (qp)
		step("destroy_qp", !(errno = ibv_destroy_qp(qp)));
	if (cq)
		step("destroy_cq", !(errno = ibv_destroy_cq(cq)));
	if (mr)
		step("dereg_mr", !(errno = ibv_dereg_mr(mr)));
	if (pd)
		step("dealloc_pd", !(errno = ibv_dealloc_pd(pd)));
	step("close_device", !(errno = ibv_close_device(ctx)));
	free(buf);
	return bad;
}
