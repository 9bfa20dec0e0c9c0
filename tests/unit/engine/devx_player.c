/* SPDX-License-Identifier: MIT */
/*
 * The DEVX-only player (devx_player.h): PRM commands through the emulated
 * kernel layer's backend ops, WQEs and CQEs at literal offsets.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "devx_player.h"

void dp_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: failed: %s\n", file, line, what);
	abort();
}

void *dp_page_alloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	DP_ASSERT(p);
	memset(p, 0, len);
	return p;
}

uint32_t dp_umem(struct dp_player *p, void *addr, size_t len)
{
	uint32_t id;

	DP_ASSERT(DP_BE->umem_reg(p->ctx, addr, len, IBV_ACCESS_LOCAL_WRITE,
				  4096, &id));
	return id;
}

struct mlx5be_obj *dp_last_obj;

uint32_t dp_create(struct dp_player *p, void *in, size_t inlen, size_t outlen,
		   unsigned int id_dw)
{
	uint32_t out[64] = { 0 };

	dp_last_obj = DP_BE->obj_create(p->ctx, in, inlen, out, outlen);
	if (!dp_last_obj)
		fprintf(stderr, "create 0x%x: errno %d status 0x%x syndrome 0x%x\n",
			be32toh(*(const uint32_t *)in) >> 16, errno,
			be32toh(out[0]) >> 24, be32toh(out[1]));
	DP_ASSERT(dp_last_obj);
	return be32toh(out[id_dw]) & 0xffffff;
}

void dp_player_init(struct dp_player *p)
{
	uint8_t in[PRM_ST_SZ_BYTES(create_qp_in)];
	struct mlx5be_gid_entry g;
	void *ctx;

	memset(p, 0, sizeof(*p));
	DP_ASSERT(!DP_BE->open(0, &p->ctx, &p->fd));
	/* PD */
	memset(in, 0, sizeof(in));
	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	p->pd = dp_create(p, in, PRM_ST_SZ_BYTES(alloc_pd_in),
			  PRM_ST_SZ_BYTES(alloc_pd_out), 2);
	DP_ASSERT(!DP_BE->query_eqn(p->ctx, 0, &p->eqn));
	DP_ASSERT(DP_BE->uar_alloc(p->ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &p->uar));
	p->uar_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   p->fd, p->uar.mmap_off);
	DP_ASSERT(p->uar_page != MAP_FAILED);
	DP_ASSERT(!DP_BE->query_gid(p->ctx, 1, 3, &g));
	memcpy(p->gid, g.gid, 16);
	/* MR: an mkey over a umem. */
	p->buf = dp_page_alloc(DP_MSG);
	memset(in, 0, sizeof(in));
	PRM_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	ctx = PRM_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	PRM_SET(mkc, ctx, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	PRM_SET(mkc, ctx, lr, 1);
	PRM_SET(mkc, ctx, lw, 1);
	PRM_SET(mkc, ctx, rr, 1);
	PRM_SET(mkc, ctx, rw, 1);
	PRM_SET(mkc, ctx, qpn, 0xffffff);
	PRM_SET(mkc, ctx, pd, p->pd);
	PRM_SET(mkc, ctx, mkey_7_0, 0x42);
	PRM_SET64(mkc, ctx, start_addr, (uint64_t)(uintptr_t)p->buf);
	PRM_SET64(mkc, ctx, len, DP_MSG);
	PRM_SET(create_mkey_in, in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, in, mkey_umem_id, dp_umem(p, p->buf, DP_MSG));
	p->lkey = dp_create(p, in, PRM_ST_SZ_BYTES(create_mkey_in),
			    PRM_ST_SZ_BYTES(create_mkey_out), 2) << 8 | 0x42;
	/* CQ: 16 CQEs in a umem, an 8-byte doorbell umem.  Each entry starts
	 * invalid (opcode 0xf), as libmlx5 and DPDK's PMD set their CQs up:
	 * the opcode/owner byte, written last, then tells a new CQE. */
	p->cq = dp_page_alloc(64 << DP_LOG_CQ);
	for (unsigned int i = 0; i < 1u << DP_LOG_CQ; i++)
		p->cq[i * 64 + 63] = MLX5_CQE_INVALID << 4;
	p->cq_dbr = aligned_alloc(8, 8);
	memset(p->cq_dbr, 0, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	ctx = PRM_ADDR_OF(create_cq_in, in, cq_context);
	PRM_SET(cqc, ctx, dbr_umem_valid, 1);
	PRM_SET(cqc, ctx, dbr_umem_id, dp_umem(p, p->cq_dbr, 8));
	PRM_SET(cqc, ctx, log_cq_size, DP_LOG_CQ);
	PRM_SET(cqc, ctx, uar_page, p->uar.page_id);
	PRM_SET(cqc, ctx, c_eqn, p->eqn);
	PRM_SET(create_cq_in, in, cq_umem_id, dp_umem(p, p->cq, 64 << DP_LOG_CQ));
	PRM_SET(create_cq_in, in, cq_umem_valid, 1);
	p->cqn = dp_create(p, in, PRM_ST_SZ_BYTES(create_cq_in),
			   PRM_ST_SZ_BYTES(create_cq_out), 2);
	p->cq_obj = dp_last_obj;
	/* RC QP: RQ then SQ in one umem. */
	p->qp = dp_page_alloc((16 << DP_LOG_RQ) + (64 << DP_LOG_SQ));
	p->qp_dbr = aligned_alloc(8, 8);
	memset(p->qp_dbr, 0, 8);
	memset(in, 0, sizeof(in));
	PRM_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	ctx = PRM_ADDR_OF(create_qp_in, in, qpc);
	PRM_SET(qpc, ctx, st, MLX5_QPC_ST_RC);
	PRM_SET(qpc, ctx, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, ctx, pd, p->pd);
	PRM_SET(qpc, ctx, log_rq_size, DP_LOG_RQ);
	PRM_SET(qpc, ctx, log_sq_size, DP_LOG_SQ);
	PRM_SET(qpc, ctx, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, ctx, uar_page, p->uar.page_id);
	PRM_SET(qpc, ctx, cqn_snd, p->cqn);
	PRM_SET(qpc, ctx, cqn_rcv, p->cqn);
	PRM_SET(qpc, ctx, dbr_umem_valid, 1);
	PRM_SET(qpc, ctx, dbr_umem_id, dp_umem(p, p->qp_dbr, 8));
	PRM_SET(create_qp_in, in, wq_umem_id,
		dp_umem(p, p->qp, (16 << DP_LOG_RQ) + (64 << DP_LOG_SQ)));
	PRM_SET(create_qp_in, in, wq_umem_valid, 1);
	p->qpn = dp_create(p, in, PRM_ST_SZ_BYTES(create_qp_in),
			   PRM_ST_SZ_BYTES(create_qp_out), 2);
	p->qp_obj = dp_last_obj;
}

void dp_modify(struct dp_player *p, uint16_t opcode,
		      const struct dp_player *peer, uint32_t psn)
{
	uint8_t in[PRM_ST_SZ_BYTES(rst2init_qp_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(rst2init_qp_out)] = { 0 };
	void *qpc = PRM_ADDR_OF(rst2init_qp_in, in, qpc);

	PRM_SET(rst2init_qp_in, in, opcode, opcode);
	PRM_SET(rst2init_qp_in, in, qpn, p->qpn);
	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	switch (opcode) {
	case MLX5_CMD_OP_RST2INIT_QP:
		PRM_SET(qpc, qpc, rre, 1);
		PRM_SET(qpc, qpc, rwe, 1);
		break;
	case MLX5_CMD_OP_INIT2RTR_QP:
		PRM_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
		PRM_SET(qpc, qpc, log_msg_max, 20);
		PRM_SET(qpc, qpc, remote_qpn, peer->qpn);
		PRM_SET(qpc, qpc, min_rnr_nak, 12);
		PRM_SET(qpc, qpc, next_rcv_psn, psn);
		memcpy(PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
		       peer->gid, 16);
		PRM_SET(qpc, qpc, primary_address_path.src_addr_index, 3);
		PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		PRM_SET(qpc, qpc, primary_address_path.udp_sport, 0xdcba);
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
		PRM_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
		PRM_SET(qpc, qpc, log_sra_max, 4);
		PRM_SET(qpc, qpc, retry_count, 7);
		PRM_SET(qpc, qpc, rnr_retry, 7);
		PRM_SET(qpc, qpc, next_send_psn, psn);
		break;
	}
	DP_ASSERT(!DP_BE->obj_modify(p->qp_obj, in, sizeof(in), out,
				     sizeof(out)));
}

void dp_to_rts(struct dp_player *p, const struct dp_player *peer, uint32_t psn,
	       uint32_t peer_psn)
{
	dp_modify(p, MLX5_CMD_OP_RST2INIT_QP, peer, 0);
	dp_modify(p, MLX5_CMD_OP_INIT2RTR_QP, peer, peer_psn);
	dp_modify(p, MLX5_CMD_OP_RTR2RTS_QP, peer, psn);
}

void dp_post_recv(struct dp_player *p)
{
	uint8_t *w = p->qp + (size_t)(p->rq_pi & ((1u << DP_LOG_RQ) - 1)) * 16;
	uint32_t v[4] = { htobe32(DP_MSG), htobe32(p->lkey) };
	uint64_t a = htobe64((uint64_t)(uintptr_t)p->buf);

	memcpy(v + 2, &a, 8);
	memcpy(w, v, 16);
	p->rq_pi++;
	__atomic_store_n(&p->qp_dbr[0], htobe32(p->rq_pi & 0xffff),
			 __ATOMIC_RELEASE);
}

uint8_t *dp_post_send(struct dp_player *p, uint32_t imm, bool uar)
{
	uint8_t *w = p->qp + (16 << DP_LOG_RQ) +
		     (size_t)(p->sq_pi & ((1u << DP_LOG_SQ) - 1)) * 64;
	uint32_t ctrl[4] = {
		htobe32((p->sq_pi & 0xffff) << 8 | MLX5_OPCODE_SEND_IMM),
		htobe32(p->qpn << 8 | 2), htobe32(MLX5_WQE_CTRL_CQ_UPDATE),
		htobe32(imm),
	};
	uint32_t d[4] = { htobe32(DP_MSG), htobe32(p->lkey) };
	uint64_t a = htobe64((uint64_t)(uintptr_t)p->buf), db;

	memcpy(d + 2, &a, 8);
	memcpy(w, ctrl, 16);
	memcpy(w + 16, d, 16);
	p->sq_pi++;
	__atomic_store_n(&p->qp_dbr[1], htobe32(p->sq_pi & 0xffff),
			 __ATOMIC_RELEASE);
	if (uar) {
		memcpy(&db, w, 8);
		__atomic_store_n((uint64_t *)(void *)(p->uar_page + 0x800), db,
				 __ATOMIC_RELEASE);
	}
	return w;
}

/* The next CQE is the device's: its opcode/owner byte (acquire, the
 * device's release store orders the rest of the entry before it) is
 * valid and of this lap. */
bool dp_cq_ready(const struct dp_player *p)
{
	const uint8_t *e = p->cq + (size_t)(p->ci & ((1u << DP_LOG_CQ) - 1)) * 64;
	uint8_t op = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);

	return op >> 4 != MLX5_CQE_INVALID &&
	       (op & 1) == ((p->ci >> DP_LOG_CQ) & 1);
}

const uint8_t *dp_poll_cq(struct dp_player *p, void (*spin)(void))
{
	const uint8_t *e = p->cq + (size_t)(p->ci & ((1u << DP_LOG_CQ) - 1)) * 64;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!dp_cq_ready(p)) {
		if (spin)
			spin();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 5) {
			fprintf(stderr, "no CQE %u\n", p->ci);
			DP_ASSERT(!"a CQE within 5 s");
		}
	}
	p->ci++;
	__atomic_store_n(&p->cq_dbr[0], htobe32(p->ci & 0xffffff),
			 __ATOMIC_RELEASE);
	return e;
}

void dp_player_fini(struct dp_player *p)
{
	DP_BE->close(p->ctx);
	munmap(p->uar_page, 4096);
	free(p->buf);
	free(p->cq);
	free(p->cq_dbr);
	free(p->qp);
	free(p->qp_dbr);
}

