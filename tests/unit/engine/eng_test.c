/* SPDX-License-Identifier: MIT */
#include "eng_test.h"

#include <endian.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm_fields.h"

static void ent_set_gid(struct ent_dev *d, unsigned int index, bool v2,
			bool ipv4)
{
	struct fwt_mbox m;
	uint8_t *a;
	void *ra;

	fwt_mbox_init(&m, MLX5_CMD_OP_SET_ROCE_ADDRESS, 0, 0,
		      PRM_ST_SZ_BYTES(set_roce_address_in),
		      PRM_ST_SZ_BYTES(set_roce_address_out));
	PRM_SET(set_roce_address_in, m.in, roce_address_index, index);
	ra = PRM_ADDR_OF(set_roce_address_in, m.in, roce_address);
	a = PRM_ADDR_OF(roce_addr_layout, ra, source_l3_address);
	if (ipv4) {		/* ::ffff:127.0.<dev>.2 */
		a[10] = 0xff;
		a[11] = 0xff;
		a[12] = 127;
		a[14] = (uint8_t)d->index;
		a[15] = 2;
	} else {		/* fe80::<dev>:1 */
		a[0] = 0xfe;
		a[1] = 0x80;
		a[13] = (uint8_t)d->index;
		a[15] = 0x01;
	}
	memcpy(d->gid[index], a, 16);
	PRM_SET(roce_addr_layout, ra, source_mac_47_32, 0x02c9);
	PRM_SET(roce_addr_layout, ra, source_mac_31_0,
		0x7f000000u | (uint32_t)d->index << 8 | 1);
	PRM_SET(roce_addr_layout, ra, roce_version, v2 ? 2 : 0);
	PRM_SET(roce_addr_layout, ra, roce_l3_type, ipv4 ? 0 : 1);
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
}

void ent_dev_init(struct ent_dev *d, int index)
{
	ent_dev_init_caps(d, index, NULL);
}

/* The mode the suite runs in: MLX5EMU_ENGINE_MODE as the settings name
 * it (the ctest entries say which), threaded when unset. */
static void ent_mode_from_env(void)
{
	const char *m = getenv("MLX5EMU_ENGINE_MODE");
	enum emu_eng_mode mode = EMU_ENG_THREADED;

	if (m && !strcmp(m, "inline"))
		mode = EMU_ENG_INLINE;
	else if (m && !strcmp(m, "deterministic"))
		mode = EMU_ENG_DETERMINISTIC;
	else
		ck_assert_msg(!m || !strcmp(m, "threaded"), "mode %s", m);
	ck_assert_int_eq(emu_eng_set_mode(mode), 0);
}

void ent_dev_init_caps(struct ent_dev *d, int index,
		       void (*tweak)(struct emu_fw_caps *caps))
{
	uint32_t kuar;

	ent_mode_from_env();
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->fw = fwt_create(tweak);
	ent_set_gid(d, ENT_GID_V1, false, false);
	ent_set_gid(d, ENT_GID_V2, true, false);
	ent_set_gid(d, ENT_GID_V1_V4, false, true);
	ent_set_gid(d, ENT_GID_V2_V4, true, true);
	ck_assert_int_eq(emu_eng_device_add(d->fw, index), 0);
	d->uid = fwt_uctx(d->fw);
	d->pd = fwt_pd(d->fw, d->uid);
	d->pd2 = fwt_pd(d->fw, d->uid);
	d->uar = fwt_uar(d->fw, d->uid);
	d->uar_page = aligned_alloc(4096, 4096);
	memset(d->uar_page, 0, 4096);
	ck_assert_int_eq(emu_fw_uar_set_page(d->fw, d->uar, d->uar_page), 0);
	kuar = fwt_uar(d->fw, 0);
	fwt_mem_reg(d->fw, 0, 4096, &d->eqmem);
	d->eqn = fwt_eq(d->fw, 0, kuar, 6, &d->eqmem);
	d->xrcd = fwt_alloc(d->fw, d->uid, ALLOC_XRCD, alloc_xrcd, xrcd);
}

void ent_dev_fini(struct ent_dev *d)
{
	emu_eng_device_remove(d->fw);
	emu_fw_destroy(d->fw);
	fwt_mem_free(&d->eqmem);
	free(d->uar_page);
	for (unsigned int i = 0; i < d->nallocs; i++)
		free(d->allocs[i]);
}

void ent_mem_reg(struct ent_dev *d, size_t size, struct fwt_mem *mem)
{
	fwt_mem_reg(d->fw, d->uid, size, mem);
	ck_assert_uint_lt(d->nallocs, 256);
	d->allocs[d->nallocs++] = mem->addr;
}

void ent_cq_init(struct ent_dev *d, struct ent_cq *cq, unsigned int log_size,
		 unsigned int cqe_size, bool oi)
{
	struct fwt_mbox m;
	void *cqc;

	memset(cq, 0, sizeof(*cq));
	cq->d = d;
	cq->log_size = log_size;
	cq->cqe_size = cqe_size;
	ent_mem_reg(d, (size_t)cqe_size << log_size, &cq->mem);
	ent_mem_reg(d, 8, &cq->dbr);
	fwt_cq_mbox(&m, d->uid, d->eqn, d->uar, log_size, cq->mem.umem_id, 0,
		    cq->dbr.umem_id, 0);
	cqc = PRM_ADDR_OF(create_cq_in, m.in, cq_context);
	PRM_SET(cqc, cqc, cqe_sz, cqe_size == 128 ? 1 : 0);
	PRM_SET(cqc, cqc, oi, oi);
	/* As libmlx5 initialises a CQ: every entry invalid (opcode 0xf), so
	 * polling reads only the opcode/owner byte until an entry is valid. */
	for (unsigned int i = 0; i < 1u << log_size; i++)
		((uint8_t *)cq->mem.addr)[(size_t)i * cqe_size + cqe_size - 1] =
			MLX5_CQE_INVALID << 4;
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	cq->cqn = PRM_GET(create_cq_out, m.out, cqn);
}

static const uint8_t *ent_cqe_at(struct ent_cq *cq, uint32_t n)
{
	const uint8_t *e = (const uint8_t *)cq->mem.addr +
			   (size_t)(n & ((1u << cq->log_size) - 1)) * cq->cqe_size;

	return cq->cqe_size == 128 ? e + 64 : e;
}

/* libmlx5's get_sw_cqe: the opcode/owner byte (acquire), nothing else
 * until it says the entry is the device's new one. */
static bool ent_cqe_valid(struct ent_cq *cq, const uint8_t *e)
{
	uint8_t op = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);

	return op >> 4 != MLX5_CQE_INVALID &&
	       (op & 1) == ((cq->ci >> cq->log_size) & 1);
}

const uint8_t *ent_cq_next(struct ent_cq *cq)
{
	const uint8_t *e = ent_cqe_at(cq, cq->ci);
	struct timespec t0, t;
	uint32_t ci;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ent_cqe_valid(cq, e)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < 5,
			      "no CQE %u on CQ 0x%x", cq->ci, cq->cqn);
		ent_poll_progress();
	}
	cq->ci++;
	ci = htobe32(cq->ci & 0xffffff);
	__atomic_store_n((uint32_t *)cq->dbr.addr, ci, __ATOMIC_RELEASE);
	return e;
}

void ent_poll_progress(void)
{
	if (emu_eng_threaded())
		sched_yield();
	else
		emu_eng_progress(EMU_ENG_WHY_POLL);
}

void ent_tick(void)
{
	if (!emu_eng_threaded())
		emu_eng_progress(EMU_ENG_WHY_POLL);
	usleep(1000);
}

bool ent_cq_quiet(struct ent_cq *cq, unsigned int ms)
{
	const uint8_t *e = ent_cqe_at(cq, cq->ci);

	for (unsigned int i = 0; i < ms; i++) {
		if (ent_cqe_valid(cq, e))
			return false;
		ent_tick();
	}
	return !ent_cqe_valid(cq, e);
}

void ent_mr_init(struct ent_dev *d, struct ent_mr *mr, uint32_t pd,
		 size_t len, unsigned int access, uint32_t umem_access)
{
	void *buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	ck_assert_ptr_nonnull(buf);
	memset(buf, 0, len);
	ck_assert_uint_lt(d->nallocs, 256);
	d->allocs[d->nallocs++] = buf;
	ent_mr_init_buf(d, mr, pd, buf, len, access, umem_access);
}

void ent_mr_init_buf(struct ent_dev *d, struct ent_mr *mr, uint32_t pd,
		     void *buf, size_t len, unsigned int access,
		     uint32_t umem_access)
{
	static uint8_t key = 0x20;
	struct fwt_mbox m;
	void *mkc;

	memset(mr, 0, sizeof(*mr));
	mr->len = len;
	mr->mem.size = len;
	mr->mem.addr = buf;
	mr->buf = mr->mem.addr;
	/* The MTT rights the kernel gives memory registered with these
	 * flags: read, and write when pinned for write. */
	mr->mem.umem_id = fwt_umem_reg_access(
		d->fw, d->uid, mr->buf, len,
		EMU_FW_UMEM_READ |
		(umem_access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) ?
		 EMU_FW_UMEM_WRITE : 0));
	ck_assert_uint_ne(mr->mem.umem_id, 0);
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_MKEY, 0, d->uid,
		      PRM_ST_SZ_BYTES(create_mkey_in),
		      PRM_ST_SZ_BYTES(create_mkey_out));
	mkc = PRM_ADDR_OF(create_mkey_in, m.in, memory_key_mkey_entry);
	PRM_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT & 3);
	PRM_SET(mkc, mkc, lr, !!(access & EMU_FW_MKEY_LR));
	PRM_SET(mkc, mkc, lw, !!(access & EMU_FW_MKEY_LW));
	PRM_SET(mkc, mkc, rr, !!(access & EMU_FW_MKEY_RR));
	PRM_SET(mkc, mkc, rw, !!(access & EMU_FW_MKEY_RW));
	PRM_SET(mkc, mkc, a, !!(access & EMU_FW_MKEY_A));
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, pd, pd);
	PRM_SET(mkc, mkc, mkey_7_0, ++key);
	PRM_SET64(mkc, mkc, start_addr, (uint64_t)(uintptr_t)mr->buf);
	PRM_SET64(mkc, mkc, len, len);
	PRM_SET(create_mkey_in, m.in, mkey_umem_valid, 1);
	PRM_SET(create_mkey_in, m.in, mkey_umem_id, mr->mem.umem_id);
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	mr->mkey_index = PRM_GET(create_mkey_out, m.out, mkey_index);
	mr->key = mr->mkey_index << 8 | key;
}

void ent_qp_create(struct ent_dev *d, struct ent_qp *qp,
		   const struct ent_qp_cfg *cfg)
{
	size_t rq_len, sq_len;
	struct fwt_mbox m;
	void *qpc;

	memset(qp, 0, sizeof(*qp));
	qp->d = d;
	qp->cfg = *cfg;
	rq_len = cfg->srqn || cfg->type == ENT_XRC_INI ||
		 cfg->type == ENT_XRC_TGT || cfg->type == ENT_DCI ? 0 :
		 (size_t)(16u << cfg->log_rq_stride) << cfg->log_rq;
	sq_len = cfg->type == ENT_XRC_TGT ? 0 : (size_t)64 << cfg->log_sq;
	ent_mem_reg(d, rq_len + sq_len + 4096, &qp->mem);
	ent_mem_reg(d, 8, &qp->dbr);
	qp->rq = qp->mem.addr;
	qp->sq = (uint8_t *)qp->mem.addr + rq_len;
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_QP, 0, d->uid,
		      PRM_ST_SZ_BYTES(create_qp_in),
		      PRM_ST_SZ_BYTES(create_qp_out));
	qpc = PRM_ADDR_OF(create_qp_in, m.in, qpc);
	PRM_SET(qpc, qpc, pd, cfg->pd ? cfg->pd : d->pd);
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, qpc, uar_page, d->uar);
	PRM_SET(qpc, qpc, user_index, cfg->user_index);
	PRM_SET(qpc, qpc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, qpc, dbr_umem_valid, 1);
	PRM_SET(qpc, qpc, dbr_umem_id, qp->dbr.umem_id);
	PRM_SET(create_qp_in, m.in, wq_umem_valid, 1);
	PRM_SET(create_qp_in, m.in, wq_umem_id, qp->mem.umem_id);
	if (cfg->type != ENT_XRC_TGT) {
		PRM_SET(qpc, qpc, log_sq_size, cfg->log_sq);
		PRM_SET(qpc, qpc, cqn_snd, cfg->scq->cqn);
	}
	switch (cfg->type) {
	case ENT_RC:
	case ENT_UC:
	case ENT_UD:
		PRM_SET(qpc, qpc, st, cfg->type == ENT_RC ? MLX5_QPC_ST_RC :
			cfg->type == ENT_UC ? MLX5_QPC_ST_UC : MLX5_QPC_ST_UD);
		if (cfg->srqn) {
			PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
			PRM_SET(qpc, qpc, srqn_rmpn_xrqn, cfg->srqn);
		} else {
			PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_REGULAR);
			PRM_SET(qpc, qpc, log_rq_size, cfg->log_rq);
			PRM_SET(qpc, qpc, log_rq_stride, cfg->log_rq_stride);
		}
		PRM_SET(qpc, qpc, cqn_rcv, cfg->rcq->cqn);
		break;
	case ENT_XRC_INI:
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_XRC);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_ZERO);
		PRM_SET(qpc, qpc, xrcd, d->xrcd);
		break;
	case ENT_DCI:	/* a send queue only */
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_DCI);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_ZERO);
		break;
	case ENT_XRC_TGT:
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_XRC);
		PRM_SET(qpc, qpc, no_sq, 1);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
		PRM_SET(qpc, qpc, xrcd, d->xrcd);
		break;
	}
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	qp->qpn = PRM_GET(create_qp_out, m.out, qpn);
}

void ent_conn_default(struct ent_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->sgid_index = ENT_GID_V2;
	c->sq_psn = 0x100;
	c->rq_psn = 0x100;
	c->min_rnr = 1;		/* 0.01 ms */
	c->rnr_retry = 7;
	c->retry_count = 7;
	c->ack_timeout = 8;	/* ~1 ms */
	c->qkey = 0x11111111;
}

static uint8_t ent_tr(struct ent_qp *qp, uint16_t opcode,
		      const struct ent_dev *peer, const struct ent_conn *c)
{
	bool ud = qp->cfg.type == ENT_UD;
	bool reliable = qp->cfg.type != ENT_UD && qp->cfg.type != ENT_UC;
	struct fwt_mbox m;
	void *qpc;

	fwt_mbox_init(&m, opcode, 0, qp->d->uid,
		      PRM_ST_SZ_BYTES(rst2init_qp_in),
		      PRM_ST_SZ_BYTES(rst2init_qp_out));
	PRM_SET(rst2init_qp_in, m.in, qpn, qp->qpn);
	qpc = PRM_ADDR_OF(rst2init_qp_in, m.in, qpc);
	switch (opcode) {
	case MLX5_CMD_OP_RST2INIT_QP:
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		PRM_SET(qpc, qpc, counter_set_id, c->counter);
		if (ud) {
			PRM_SET(qpc, qpc, q_key, c->qkey);
			break;
		}
		PRM_SET(qpc, qpc, rwe, !c->no_rwe);
		if (qp->cfg.type != ENT_UC) {
			PRM_SET(qpc, qpc, rre, !c->no_rre);
			PRM_SET(qpc, qpc, rae, !c->no_rae);
			PRM_SET(qpc, qpc, atomic_mode,
				MLX5_QPC_ATOMIC_MODE_IB_SPEC);
		}
		break;
	case MLX5_CMD_OP_INIT2RTR_QP:
		PRM_SET(qpc, qpc, mtu, c->mtu ? c->mtu : MLX5_QPC_MTU_1K_BYTES);
		PRM_SET(qpc, qpc, log_msg_max, 30);
		if (ud)
			break;
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		PRM_SET(qpc, qpc, primary_address_path.src_addr_index,
			c->sgid_index);
		PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
		memcpy(PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip),
		       c->rgid ? c->rgid : peer->gid[ENT_GID_V2], 16);
		PRM_SET(qpc, qpc, remote_qpn, c->remote_qpn);
		PRM_SET(qpc, qpc, next_rcv_psn, c->rq_psn);
		if (reliable) {
			PRM_SET(qpc, qpc, min_rnr_nak, c->min_rnr);
			PRM_SET(qpc, qpc, log_rra_max, 2);
		}
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
		PRM_SET(qpc, qpc, next_send_psn, c->sq_psn);
		if (reliable) {
			PRM_SET(qpc, qpc, retry_count, c->retry_count);
			PRM_SET(qpc, qpc, rnr_retry, c->rnr_retry);
			PRM_SET(qpc, qpc, log_sra_max, 3);
			PRM_SET(qpc, qpc, primary_address_path.ack_timeout,
				c->ack_timeout);
		}
		break;
	default:
		break;
	}
	return fwt_exec(qp->d->fw, &m) ? emu_fw_out_status(m.out) : 0;
}

void ent_qp_to_rts(struct ent_qp *qp, const struct ent_dev *peer,
		   const struct ent_conn *c)
{
	static const uint16_t ops[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP,
	};
	unsigned int n = qp->cfg.type == ENT_XRC_TGT ? 2 : 3;

	for (unsigned int i = 0; i < n; i++)
		ck_assert_msg(ent_tr(qp, ops[i], peer, c) == 0,
			      "qp 0x%x transition 0x%x", qp->qpn, ops[i]);
}

void ent_qp_pair(struct ent_qp *a, struct ent_qp *b)
{
	struct ent_conn c;

	ent_conn_default(&c);
	c.remote_qpn = b->qpn;
	ent_qp_to_rts(a, b->d, &c);
	c.remote_qpn = a->qpn;
	ent_qp_to_rts(b, a->d, &c);
}

uint8_t ent_qp_modify(struct ent_qp *qp, uint16_t opcode)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, opcode, 0, qp->d->uid, PRM_ST_SZ_BYTES(qp_2err_in),
		      PRM_ST_SZ_BYTES(qp_2err_out));
	PRM_SET(qp_2err_in, m.in, qpn, qp->qpn);
	return fwt_exec(qp->d->fw, &m);
}

void ent_qp_query(struct ent_qp *qp, struct fwt_mbox *m)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_QP, 0, qp->d->uid,
		      PRM_ST_SZ_BYTES(query_qp_in),
		      PRM_BYTE_OFF(query_qp_out, pas));
	PRM_SET(query_qp_in, m->in, qpn, qp->qpn);
	fwt_exec(qp->d->fw, m);
	ck_fw_ok(m);
}

uint8_t *ent_sq_bb(struct ent_qp *qp, uint16_t idx)
{
	return qp->sq + (size_t)(idx & ((1u << qp->cfg.log_sq) - 1)) * 64;
}

void ent_ctrl(uint8_t *w, uint16_t idx, uint8_t opcode, uint32_t qpn,
	      uint8_t ds, uint8_t fm_ce_se, uint32_t imm_be)
{
	memset(w, 0, 16);
	w[1] = (uint8_t)(idx >> 8);
	w[2] = (uint8_t)idx;
	w[3] = opcode;
	w[4] = (uint8_t)(qpn >> 16);
	w[5] = (uint8_t)(qpn >> 8);
	w[6] = (uint8_t)qpn;
	w[7] = ds;
	w[11] = fm_ce_se;
	memcpy(w + 12, &imm_be, 4);
}

void ent_dseg(uint8_t *s, uint32_t len, uint32_t lkey, uint64_t addr)
{
	uint32_t v = htobe32(len);
	uint64_t a = htobe64(addr);

	memcpy(s, &v, 4);
	v = htobe32(lkey);
	memcpy(s + 4, &v, 4);
	memcpy(s + 8, &a, 8);
}

void ent_raddr(uint8_t *s, uint64_t addr, uint32_t rkey)
{
	uint64_t a = htobe64(addr);
	uint32_t k = htobe32(rkey);

	memset(s, 0, 16);
	memcpy(s, &a, 8);
	memcpy(s + 8, &k, 4);
}

void ent_sq_put(struct ent_qp *qp, const uint8_t *w, unsigned int nbb)
{
	for (unsigned int i = 0; i < nbb; i++)
		memcpy(ent_sq_bb(qp, (uint16_t)(qp->sq_pi + i)), w + i * 64, 64);
	qp->sq_pi = (uint16_t)(qp->sq_pi + nbb);
}

void ent_sq_ring(struct ent_qp *qp)
{
	__atomic_store_n((uint32_t *)qp->dbr.addr + 1, htobe32(qp->sq_pi),
			 __ATOMIC_RELEASE);
}

void ent_post1(struct ent_qp *qp, uint8_t opcode, uint8_t fm_ce_se,
	       uint32_t imm_be, const struct ent_mr *mr, uint32_t off,
	       uint32_t len, uint64_t raddr, uint32_t rkey)
{
	uint8_t w[128] = { 0 };
	unsigned int o = 16;

	if (opcode == MLX5_OPCODE_RDMA_WRITE ||
	    opcode == MLX5_OPCODE_RDMA_WRITE_IMM ||
	    opcode == MLX5_OPCODE_RDMA_READ) {
		ent_raddr(w + o, raddr, rkey);
		o += 16;
	}
	ent_dseg(w + o, len, mr->key, (uint64_t)(uintptr_t)(mr->buf + off));
	o += 16;
	ent_ctrl(w, qp->sq_pi, opcode, qp->qpn, (uint8_t)(o / 16), fm_ce_se,
		 imm_be);
	ent_sq_put(qp, w, (o + 63) / 64);
	ent_sq_ring(qp);
}

void ent_post_recv(struct ent_qp *qp, uint32_t lkey, uint64_t addr,
		   uint32_t len)
{
	unsigned int stride = 16u << qp->cfg.log_rq_stride;
	uint8_t *w = qp->rq + (size_t)(qp->rq_pi & ((1u << qp->cfg.log_rq) - 1)) *
			      stride;

	memset(w, 0, stride);
	ent_dseg(w, len, lkey, addr);
	if (stride > 16)
		ent_dseg(w + 16, 0, MLX5_INVALID_LKEY, 0);
	qp->rq_pi++;
	__atomic_store_n((uint32_t *)qp->dbr.addr, htobe32(qp->rq_pi),
			 __ATOMIC_RELEASE);
}

void ent_srq_init(struct ent_dev *d, struct ent_srq *s, unsigned int log_size,
		  bool xrc, struct ent_cq *cq, uint32_t user_index)
{
	unsigned int n = 1u << log_size;
	struct fwt_mbox m;
	uint64_t pa;
	void *ctx;

	memset(s, 0, sizeof(*s));
	s->d = d;
	s->log_size = log_size;
	s->log_stride = 1;	/* 32 bytes: next segment + one scatter */
	ent_mem_reg(d, (size_t)32 << log_size, &s->mem);
	ent_mem_reg(d, 8, &s->dbr);
	/* libmlx5's list: WQE i points at i + 1, the last at 0... */
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *w = (uint8_t *)s->mem.addr + i * 32;
		uint16_t next = htobe16((uint16_t)((i + 1) & (n - 1)));

		memcpy(w + 2, &next, 2);
	}
	s->head = 0;
	s->tail = (uint16_t)(n - 1);
	pa = htobe64((uint64_t)(uintptr_t)s->mem.addr);
	if (xrc) {
		fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_XRC_SRQ, 0, d->uid,
			      PRM_ST_SZ_BYTES(create_xrc_srq_in) + 8,
			      PRM_ST_SZ_BYTES(create_xrc_srq_out));
		ctx = PRM_ADDR_OF(create_xrc_srq_in, m.in, xrc_srq_context_entry);
		PRM_SET(xrc_srqc, ctx, log_xrc_srq_size, log_size);
		PRM_SET(xrc_srqc, ctx, log_rq_stride, s->log_stride);
		PRM_SET(xrc_srqc, ctx, pd, d->pd);
		PRM_SET(xrc_srqc, ctx, xrcd, d->xrcd);
		PRM_SET(xrc_srqc, ctx, cqn, cq->cqn);
		PRM_SET(xrc_srqc, ctx, user_index, user_index);
		PRM_SET(xrc_srqc, ctx, dbr_umem_valid, 1);
		PRM_SET(create_xrc_srq_in, m.in, xrc_srq_umem_valid, 1);
		PRM_SET(create_xrc_srq_in, m.in, xrc_srq_umem_id, s->mem.umem_id);
		PRM_SET(xrc_srqc, ctx, dbr_umem_id, s->dbr.umem_id);
		fwt_exec(d->fw, &m);
		ck_fw_ok(&m);
		s->srqn = PRM_GET(create_xrc_srq_out, m.out, xrc_srqn);
		return;
	}
	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_SRQ, 0, d->uid,
		      PRM_ST_SZ_BYTES(create_srq_in) + 8,
		      PRM_ST_SZ_BYTES(create_srq_out));
	ctx = PRM_ADDR_OF(create_srq_in, m.in, srq_context_entry);
	PRM_SET(srqc, ctx, log_srq_size, log_size);
	PRM_SET(srqc, ctx, log_rq_stride, s->log_stride);
	PRM_SET(srqc, ctx, pd, d->pd);
	PRM_SET64(srqc, ctx, dbr_addr, (uint64_t)(uintptr_t)s->dbr.addr);
	memcpy(PRM_ARRAY_ADDR(create_srq_in, m.in, pas, 0), &pa, 8);
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	s->srqn = PRM_GET(create_srq_out, m.out, srqn);
}

uint16_t ent_srq_post(struct ent_srq *s, uint32_t lkey, uint64_t addr,
		      uint32_t len)
{
	uint16_t idx = s->head, next;
	uint8_t *w = (uint8_t *)s->mem.addr + (size_t)idx * 32;

	memcpy(&next, w + 2, 2);
	ent_dseg(w + 16, len, lkey, addr);
	s->head = be16toh(next);
	s->cnt++;
	__atomic_store_n((uint32_t *)s->dbr.addr, htobe32(s->cnt),
			 __ATOMIC_RELEASE);
	return idx;
}

void ent_srq_free(struct ent_srq *s, uint16_t idx)
{
	uint8_t *tail = (uint8_t *)s->mem.addr + (size_t)s->tail * 32;
	uint16_t v = htobe16(idx);

	memcpy(tail + 2, &v, 2);
	s->tail = idx;
}

void ent_cqe_check(const uint8_t *cqe, const struct ent_cqe_exp *e)
{
	uint8_t exp[64] = { 0 }, got[64];
	bool err = e->opcode == MLX5_CQE_REQ_ERR ||
		   e->opcode == MLX5_CQE_RESP_ERR;

	memcpy(got, cqe, 64);
	exp[24] = (uint8_t)(e->flags_rqpn >> 24);
	exp[25] = (uint8_t)(e->flags_rqpn >> 16);
	exp[26] = (uint8_t)(e->flags_rqpn >> 8);
	exp[27] = (uint8_t)e->flags_rqpn;
	exp[33] = (uint8_t)(e->srqn_uidx >> 16);
	exp[34] = (uint8_t)(e->srqn_uidx >> 8);
	exp[35] = (uint8_t)e->srqn_uidx;
	exp[36] = (uint8_t)(e->imm >> 24);
	exp[37] = (uint8_t)(e->imm >> 16);
	exp[38] = (uint8_t)(e->imm >> 8);
	exp[39] = (uint8_t)e->imm;
	exp[44] = (uint8_t)(e->byte_cnt >> 24);
	exp[45] = (uint8_t)(e->byte_cnt >> 16);
	exp[46] = (uint8_t)(e->byte_cnt >> 8);
	exp[47] = (uint8_t)e->byte_cnt;
	if (err) {
		exp[54] = e->vendor;
		exp[55] = e->syndrome;
	} else {
		memset(got + 48, 0, 8);	/* timestamp */
	}
	exp[56] = e->wqe_op;
	exp[57] = (uint8_t)(e->qpn >> 16);
	exp[58] = (uint8_t)(e->qpn >> 8);
	exp[59] = (uint8_t)e->qpn;
	exp[60] = (uint8_t)(e->wqe_counter >> 8);
	exp[61] = (uint8_t)e->wqe_counter;
	exp[63] = (uint8_t)(e->opcode << 4 | (err || e->se ? 2 : 0));
	got[63] &= 0xfe;	/* owner: ent_cq_next checked it */
	for (int i = 0; i < 64; i++)
		ck_assert_msg(got[i] == exp[i],
			      "CQE byte %d: got 0x%02x, expected 0x%02x "
			      "(opcode %x syndrome %x vendor %x byte_cnt %u)",
			      i, got[i], exp[i], got[63] >> 4, got[55], got[54],
			      ent_be32(got + 44));
}

uint32_t ent_q_counter(struct ent_dev *d)
{
	return fwt_alloc(d->fw, d->uid, ALLOC_Q_COUNTER, alloc_q_counter,
			 counter_set_id);
}

uint32_t ent_q_counter_get(struct ent_dev *d, uint32_t set, const char *fld)
{
	const struct prm_struct_desc *sd = prm_struct_find("query_q_counter_out");
	const struct prm_field_desc *fd;
	struct fwt_mbox m;
	uint32_t off = 0;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_Q_COUNTER, 0, d->uid,
		      PRM_ST_SZ_BYTES(query_q_counter_in),
		      PRM_ST_SZ_BYTES(query_q_counter_out));
	PRM_SET(query_q_counter_in, m.in, counter_set_id, set);
	fwt_exec(d->fw, &m);
	ck_fw_ok(&m);
	ck_assert_ptr_nonnull(sd);
	fd = prm_field_find(sd, fld, &off);
	ck_assert_ptr_nonnull(fd);
	return (uint32_t)prm_field_read(m.out, off, fd->bit_width);
}
