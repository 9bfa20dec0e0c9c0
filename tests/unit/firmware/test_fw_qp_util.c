/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "test_fw_qp_util.h"

const char *qpt_type_name(enum qpt_type t)
{
	static const char *const n[QPT_NTYPES] = {
		"RC", "UC", "UD", "XRC_INI", "XRC_TGT", "DCI",
	};

	return (unsigned int)t < QPT_NTYPES ? n[t] : "?";
}

static void qpt_set_gid(struct emu_fw *fw, unsigned int index, bool v2,
			bool ipv4)
{
	struct fwt_mbox m;
	uint8_t *a;
	void *ra;

	fwt_mbox_init(&m, MLX5_CMD_OP_SET_ROCE_ADDRESS, 0, 0,
		      PRM_ST_SZ_BYTES(set_roce_address_in),
		      PRM_ST_SZ_BYTES(set_roce_address_out));
	PRM_SET(set_roce_address_in, m.in, roce_address_index, index);
	PRM_SET(set_roce_address_in, m.in, vhca_port_num, 1);
	ra = PRM_ADDR_OF(set_roce_address_in, m.in, roce_address);
	a = PRM_ADDR_OF(roce_addr_layout, ra, source_l3_address);
	if (ipv4) {
		a[10] = 0xff;
		a[11] = 0xff;
		a[12] = 127;
		a[13] = 0;
		a[14] = 0;
		a[15] = 2;
	} else {
		a[0] = 0xfe;
		a[1] = 0x80;
		a[8] = 0x00;
		a[15] = 0x01;
	}
	PRM_SET(roce_addr_layout, ra, source_mac_47_32, 0x02c9);
	PRM_SET(roce_addr_layout, ra, source_mac_31_0, 0x7f000001);
	PRM_SET(roce_addr_layout, ra, roce_version, v2 ? 2 : 0);
	PRM_SET(roce_addr_layout, ra, roce_l3_type, ipv4 ? 0 : 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}

struct emu_fw *qpt_fw(void (*tweak)(struct emu_fw_caps *caps))
{
	struct emu_fw *fw = fwt_create(tweak);

	qpt_set_gid(fw, 0, false, false);
	qpt_set_gid(fw, 1, true, false);
	qpt_set_gid(fw, 2, false, true);
	qpt_set_gid(fw, 3, true, true);
	return fw;
}

uint32_t qpt_xrcd(struct emu_fw *fw, uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_XRCD, alloc_xrcd, xrcd);
}

uint32_t qpt_q_counter(struct emu_fw *fw, uint16_t uid)
{
	return fwt_alloc(fw, uid, ALLOC_Q_COUNTER, alloc_q_counter,
			 counter_set_id);
}

unsigned int qpt_slot(struct qpt_env *e)
{
	unsigned int s = e->slot;

	e->slot = (e->slot + 1) % QPT_SLOTS;
	return s;
}

uint32_t qpt_srq(struct qpt_env *e)
{
	unsigned int slot = qpt_slot(e);
	uint8_t *buf = (uint8_t *)e->mem.addr + (size_t)slot * QPT_SLOT_BYTES;
	uint64_t pa = htobe64((uint64_t)(uintptr_t)buf);
	struct fwt_mbox m;
	void *srqc;

	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_SRQ, 0, e->uid,
		      PRM_ST_SZ_BYTES(create_srq_in) + 8,
		      PRM_ST_SZ_BYTES(create_srq_out));
	srqc = PRM_ADDR_OF(create_srq_in, m.in, srq_context_entry);
	PRM_SET(srqc, srqc, log_srq_size, 4);
	PRM_SET(srqc, srqc, log_rq_stride, 1);	/* 32 bytes: one scatter */
	PRM_SET(srqc, srqc, pd, e->pd);
	PRM_SET64(srqc, srqc, dbr_addr, (uint64_t)(uintptr_t)e->dbr.addr +
		  slot * 64 + 8);
	memcpy(PRM_ARRAY_ADDR(create_srq_in, m.in, pas, 0), &pa, 8);
	fwt_exec(e->fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_srq_out, m.out, srqn);
}

void qpt_env_init(struct qpt_env *e, struct emu_fw *fw, bool uctx)
{
	uint32_t kuar;

	memset(e, 0, sizeof(*e));
	e->fw = fw;
	e->uid = uctx ? fwt_uctx(fw) : 0;
	e->pd = fwt_pd(fw, e->uid);
	e->uar = fwt_uar(fw, e->uid);
	/* The completion EQ is the kernel's, as on a real device. */
	kuar = fwt_uar(fw, 0);
	fwt_mem_reg(fw, 0, 4096, &e->eqmem);
	e->eqn = fwt_eq(fw, 0, kuar, 6, &e->eqmem);
	for (int i = 0; i < 2; i++) {
		fwt_mem_reg(fw, e->uid, 4096, &e->cqmem[i]);
		fwt_mem_reg(fw, e->uid, 8, &e->cqdbr[i]);
	}
	e->cq = fwt_cq(fw, e->uid, e->eqn, e->uar, 6, e->cqmem[0].umem_id,
		       e->cqdbr[0].umem_id);
	e->cq2 = fwt_cq(fw, e->uid, e->eqn, e->uar, 6, e->cqmem[1].umem_id,
			e->cqdbr[1].umem_id);
	fwt_mem_reg(fw, e->uid, (size_t)QPT_SLOTS * QPT_SLOT_BYTES, &e->mem);
	fwt_mem_reg(fw, e->uid, QPT_SLOTS * 64, &e->dbr);
	if (PRM_GET(cmd_hca_cap, emu_fw_caps_page(emu_fw_get_caps(fw),
						 MLX5_CAP_GENERAL), xrc))
		e->xrcd = qpt_xrcd(fw, e->uid);
	e->srq = qpt_srq(e);
}

void qpt_fixture_init(struct emu_fw **fw, struct qpt_env *e)
{
	*fw = qpt_fw(NULL);
	qpt_env_init(e, *fw, true);
}

void qpt_fixture_fini(struct emu_fw **fw, struct qpt_env *e)
{
	emu_fw_destroy(*fw);
	*fw = NULL;
	qpt_env_fini(e);
}

void qpt_env_fini(struct qpt_env *e)
{
	fwt_mem_free(&e->eqmem);
	for (int i = 0; i < 2; i++) {
		fwt_mem_free(&e->cqmem[i]);
		fwt_mem_free(&e->cqdbr[i]);
	}
	fwt_mem_free(&e->mem);
	fwt_mem_free(&e->dbr);
}

void qpt_create_mbox(struct qpt_env *e, struct fwt_mbox *m, enum qpt_type t)
{
	unsigned int slot = qpt_slot(e);
	void *qpc;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_QP, 0, e->uid,
		      PRM_ST_SZ_BYTES(create_qp_in),
		      PRM_ST_SZ_BYTES(create_qp_out));
	qpc = QPT_QPC(m);
	PRM_SET(qpc, qpc, pd, e->pd);
	PRM_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	PRM_SET(qpc, qpc, uar_page, e->uar);
	PRM_SET(qpc, qpc, user_index, 0x1000 + slot);
	PRM_SET(qpc, qpc, ts_format, MLX5_TIMESTAMP_FORMAT_DEFAULT);
	PRM_SET(qpc, qpc, log_sq_size, 6);	/* 64 x 64 bytes */
	PRM_SET(qpc, qpc, cqn_snd, e->cq);
	PRM_SET(qpc, qpc, dbr_umem_valid, 1);
	PRM_SET(qpc, qpc, dbr_umem_id, e->dbr.umem_id);
	PRM_SET64(qpc, qpc, dbr_addr, slot * 64);
	PRM_SET(create_qp_in, m->in, wq_umem_valid, 1);
	PRM_SET(create_qp_in, m->in, wq_umem_id, e->mem.umem_id);
	PRM_SET64(create_qp_in, m->in, wq_umem_offset,
		  (uint64_t)slot * QPT_SLOT_BYTES);
	switch (t) {
	case QPT_RC:
	case QPT_UC:
	case QPT_UD:
		PRM_SET(qpc, qpc, st, t == QPT_RC ? MLX5_QPC_ST_RC :
			t == QPT_UC ? MLX5_QPC_ST_UC : MLX5_QPC_ST_UD);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_REGULAR);
		PRM_SET(qpc, qpc, log_rq_size, 6);
		PRM_SET(qpc, qpc, log_rq_stride, 2);	/* 64 bytes */
		PRM_SET(qpc, qpc, cqn_rcv, e->cq2);
		break;
	case QPT_XRC_INI:
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_XRC);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_ZERO);
		PRM_SET(qpc, qpc, xrcd, e->xrcd);
		break;
	case QPT_XRC_TGT:
		/* As mlx5_ib's create_xrc_tgt_qp: no SQ, SRQ receive type,
		 * the domain; no ring. */
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_XRC);
		PRM_SET(qpc, qpc, no_sq, 1);
		PRM_SET(qpc, qpc, log_sq_size, 0);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
		PRM_SET(qpc, qpc, cqn_snd, 0);
		PRM_SET(qpc, qpc, xrcd, e->xrcd);
		break;
	case QPT_DCI:
		PRM_SET(qpc, qpc, st, MLX5_QPC_ST_DCI);
		PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_ZERO);
		break;
	default:
		ck_abort_msg("type %d", t);
	}
}

uint32_t qpt_create(struct qpt_env *e, enum qpt_type t)
{
	struct fwt_mbox m;

	qpt_create_mbox(e, &m, t);
	fwt_exec(e->fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_qp_out, m.out, qpn);
}

void qpt_tr_mbox(struct fwt_mbox *m, uint16_t opcode, uint16_t uid,
		 uint32_t qpn, uint32_t opt)
{
	fwt_mbox_init(m, opcode, 0, uid, PRM_ST_SZ_BYTES(rst2init_qp_in),
		      PRM_ST_SZ_BYTES(rst2init_qp_out));
	PRM_SET(rst2init_qp_in, m->in, qpn, qpn);
	if (opcode != MLX5_CMD_OP_2ERR_QP && opcode != MLX5_CMD_OP_2RST_QP)
		PRM_SET(rst2init_qp_in, m->in, opt_param_mask, opt);
}

static void qpt_fill_path(void *qpc)
{
	uint8_t *rgid = PRM_ADDR_OF(qpc, qpc, primary_address_path.rgid_rip);

	PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	PRM_SET(qpc, qpc, primary_address_path.src_addr_index, QPT_GID_V2);
	PRM_SET(qpc, qpc, primary_address_path.hop_limit, 64);
	PRM_SET(qpc, qpc, primary_address_path.tclass, 0x20);
	PRM_SET(qpc, qpc, primary_address_path.flow_label, 0x12345);
	PRM_SET(qpc, qpc, primary_address_path.udp_sport, 0xc123);
	PRM_SET(qpc, qpc, primary_address_path.dscp, 8);
	PRM_SET(qpc, qpc, primary_address_path.eth_prio, 3);
	PRM_SET(qpc, qpc, primary_address_path.rmac_47_32, 0x0200);
	PRM_SET(qpc, qpc, primary_address_path.rmac_31_0, 0x00000002);
	rgid[0] = 0xfe;
	rgid[1] = 0x80;
	rgid[15] = 0x02;
}

void qpt_tr_fill(struct qpt_env *e, struct fwt_mbox *m, uint16_t opcode,
		 enum qpt_type t)
{
	void *qpc = QPT_TR_QPC(m);
	bool reliable = t == QPT_RC || t == QPT_XRC_INI || t == QPT_XRC_TGT;

	(void)e;
	switch (opcode) {
	case MLX5_CMD_OP_RST2INIT_QP:
		PRM_SET(qpc, qpc, primary_address_path.pkey_index, 0);
		PRM_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
		if (t == QPT_UD) {
			PRM_SET(qpc, qpc, q_key, 0x11111111);
		} else if (t != QPT_DCI) {
			PRM_SET(qpc, qpc, rwe, 1);
			if (t != QPT_UC) {
				PRM_SET(qpc, qpc, rre, 1);
				PRM_SET(qpc, qpc, rae, 1);
				PRM_SET(qpc, qpc, atomic_mode,
					MLX5_QPC_ATOMIC_MODE_IB_SPEC);
			}
		}
		break;
	case MLX5_CMD_OP_INIT2RTR_QP:
		PRM_SET(qpc, qpc, mtu, MLX5_QPC_MTU_1K_BYTES);
		PRM_SET(qpc, qpc, log_msg_max, 30);
		if (t == QPT_UD)
			break;
		qpt_fill_path(qpc);
		if (t == QPT_DCI)
			break;
		PRM_SET(qpc, qpc, remote_qpn, 0x345);
		PRM_SET(qpc, qpc, next_rcv_psn, 0x111);
		if (reliable) {
			PRM_SET(qpc, qpc, min_rnr_nak, 12);
			PRM_SET(qpc, qpc, log_rra_max, 2);
		}
		break;
	case MLX5_CMD_OP_RTR2RTS_QP:
		PRM_SET(qpc, qpc, next_send_psn, 0x222);
		if (reliable || t == QPT_DCI) {
			PRM_SET(qpc, qpc, retry_count, 7);
			PRM_SET(qpc, qpc, rnr_retry, 6);
			PRM_SET(qpc, qpc, log_sra_max, 3);
			PRM_SET(qpc, qpc, primary_address_path.ack_timeout, 14);
			PRM_SET(qpc, qpc, log_ack_req_freq, 8);
		}
		break;
	default:		/* nothing required */
		break;
	}
}

uint8_t qpt_tr(struct qpt_env *e, uint32_t qpn, uint16_t opcode,
	       enum qpt_type t, struct fwt_mbox *mp)
{
	struct fwt_mbox m, *p = mp ? mp : &m;

	qpt_tr_mbox(p, opcode, e->uid, qpn, 0);
	qpt_tr_fill(e, p, opcode, t);
	return fwt_exec(e->fw, p);
}

void qpt_to_rts(struct qpt_env *e, uint32_t qpn, enum qpt_type t)
{
	static const uint16_t ops[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP,
	};
	struct fwt_mbox m;

	for (size_t i = 0; i < 3; i++) {
		qpt_tr(e, qpn, ops[i], t, &m);
		ck_assert_msg(emu_fw_out_status(m.out) == 0,
			      "%s qpn 0x%x op 0x%x: status 0x%x syndrome 0x%x",
			      qpt_type_name(t), qpn, ops[i],
			      emu_fw_out_status(m.out),
			      emu_fw_out_syndrome(m.out));
	}
}

void qpt_query(struct qpt_env *e, uint32_t qpn, struct fwt_mbox *m)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_QP, 0, e->uid,
		      PRM_ST_SZ_BYTES(query_qp_in),
		      PRM_BYTE_OFF(query_qp_out, pas));
	PRM_SET(query_qp_in, m->in, qpn, qpn);
	fwt_exec(e->fw, m);
	ck_fw_ok(m);
}

uint32_t qpt_state(struct qpt_env *e, uint32_t qpn)
{
	struct fwt_mbox m;

	qpt_query(e, qpn, &m);
	return PRM_GET(qpc, QPT_Q_QPC(&m), state);
}

struct emu_fw_qp *qpt_get(struct emu_fw *fw, uint32_t qpn)
{
	struct emu_fw_obj *obj = emu_fw_obj_get(fw, EMU_FW_OBJ_QP, qpn);

	ck_assert_ptr_nonnull(obj);
	return emu_fw_to_qp(obj);
}

void qpt_dct_mbox(struct qpt_env *e, struct fwt_mbox *m)
{
	void *c;

	fwt_mbox_init(m, MLX5_CMD_OP_CREATE_DCT, 0, e->uid,
		      PRM_ST_SZ_BYTES(create_dct_in),
		      PRM_ST_SZ_BYTES(create_dct_out));
	c = QPT_DCTC(m);
	PRM_SET(dctc, c, pd, e->pd);
	PRM_SET(dctc, c, srqn_xrqn, e->srq);
	PRM_SET(dctc, c, cqn, e->cq);
	PRM_SET64(dctc, c, dc_access_key, UINT64_C(0x1122334455667788));
	PRM_SET(dctc, c, user_index, 0x77);
	PRM_SET(dctc, c, rre, 1);
	PRM_SET(dctc, c, rwe, 1);
	PRM_SET(dctc, c, rae, 1);
	PRM_SET(dctc, c, atomic_mode, MLX5_QPC_ATOMIC_MODE_IB_SPEC);
	PRM_SET(dctc, c, pkey_index, 0);
	PRM_SET(dctc, c, port, 1);
	PRM_SET(dctc, c, min_rnr_nak, 12);
	PRM_SET(dctc, c, mtu, MLX5_QPC_MTU_1K_BYTES);
	PRM_SET(dctc, c, my_addr_index, QPT_GID_V2);
	PRM_SET(dctc, c, hop_limit, 64);
	PRM_SET(dctc, c, tclass, 0x10);
	PRM_SET(dctc, c, flow_label, 0x54321);
}
