/* SPDX-License-Identifier: MIT */
/*
 * ud_probe: a verbs program (only libibverbs) that talks UD over RoCE v2
 * to a host that is not emulated, here the Linux stack behind a vxlan
 * netdev (linux_vxlan.py).  It sends "ping <n>" datagrams from mlx5_0
 * port 1 (IPv4-mapped GID, index 3) to the peer's IPv4 address, waits for
 * the peer's UDP reply to land in its receive queue, and checks it.
 *
 *   ud_probe PEER_IPV4 QKEY COUNT [expect-reply|no-reply]
 *
 * Prints "qpn 0x..." first, then one line per datagram received:
 * "reply <bytes> from <source address> <payload>".  Exit 0 when every send
 * completed and, with expect-reply, a reply came for each; 1 otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define GID_V2_V4 3		/* RoCE v2, IPv4-mapped (ibv_devinfo -v) */
#define BUF 2048		/* GRH (40) + payload */

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) +
		    (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > secs)
			return 0;
	}
}

static int to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = qkey };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

int main(int argc, char **argv)
{
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = GID_V2_V4,
					   .hop_limit = 64 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_UD,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct in_addr peer;
	static char buf[2][BUF];
	uint32_t qkey;
	int count, expect, bad = 0;

	if (argc != 5 || inet_pton(AF_INET, argv[1], &peer) != 1) {
		fprintf(stderr, "usage: ud_probe PEER_IPV4 QKEY COUNT "
				"expect-reply|no-reply\n");
		return 2;
	}
	qkey = (uint32_t)strtoul(argv[2], NULL, 0);
	count = atoi(argv[3]);
	expect = !strcmp(argv[4], "expect-reply");
	devs = ibv_get_device_list(NULL);
	if (!devs || !devs[0] || !(ctx = ibv_open_device(devs[0]))) {
		fprintf(stderr, "ud_probe: no device\n");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	qa.send_cq = qa.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &qa) : NULL;
	mr = qp ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	/* ::ffff:a.b.c.d, the peer's IPv4 address as a GID */
	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	memcpy(&aa.grh.dgid.raw[12], &peer, 4);
	ah = mr ? ibv_create_ah(pd, &aa) : NULL;
	if (!ah || to_rts(qp, qkey)) {
		perror("ud_probe: setup");
		return 1;
	}
	printf("qpn 0x%06x\n", qp->qp_num);
	fflush(stdout);
	for (int i = 0; i < count; i++) {
		struct ibv_sge rs = { .addr = (uintptr_t)buf[1], .length = BUF,
				      .lkey = mr->lkey };
		struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)buf[0],
				      .lkey = mr->lkey };
		struct ibv_send_wr sw = {
			.sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = 0x000001,
				   .remote_qkey = qkey },
		}, *sbad;
		struct ibv_wc wc;
		int got = 0;

		ss.length = (uint32_t)snprintf(buf[0], BUF, "ping %d", i);
		if ((expect && ibv_post_recv(qp, &rw, &rbad)) ||
		    ibv_post_send(qp, &sw, &sbad)) {
			perror("ud_probe: post");
			return 1;
		}
		/* The send's completion, then (perhaps) the reply's. */
		while (got < 1 + expect && poll_one(cq, &wc, 10)) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "ud_probe: %s: %s\n",
					wc.opcode == IBV_WC_SEND ? "send" : "recv",
					ibv_wc_status_str(wc.status));
				return 1;
			}
			if (wc.opcode == IBV_WC_RECV) {
				char src[INET6_ADDRSTRLEN];

				/* RoCE v2 over IPv4: the 40-byte GRH area holds
				 * the IPv4 header in its last 20 bytes; else a
				 * GRH whose bytes 8..23 are the source GID. */
				if ((buf[1][20] >> 4) == 4)
					inet_ntop(AF_INET, buf[1] + 32, src,
						  sizeof(src));
				else
					inet_ntop(AF_INET6, buf[1] + 8, src,
						  sizeof(src));
				printf("reply %u from %s %.*s\n",
				       wc.byte_len - 40, src,
				       (int)(wc.byte_len - 40), buf[1] + 40);
				fflush(stdout);
			}
			got++;
		}
		if (got < 1 + expect) {
			fprintf(stderr, "ud_probe: datagram %d: %s\n", i,
				got ? "no reply" : "no send completion");
			bad = 1;
		}
	}
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return bad;
}
