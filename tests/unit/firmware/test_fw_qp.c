/* SPDX-License-Identifier: MIT */
/*
 * CREATE_QP / QUERY_QP / DESTROY_QP: every type, every validation rule of
 * the create with its exact status and syndrome, the uses a QP holds on
 * what it names, uid rules and limits.
 */
#include <errno.h>
#include <stdlib.h>

#include "test_fw_qp_util.h"

static struct emu_fw *fw;
static struct qpt_env env;

static void setup(void)
{
	qpt_fixture_init(&fw, &env);
}

static void teardown(void)
{
	qpt_fixture_fini(&fw, &env);
}

/* Create with one field changed; expect the syndrome. */
#define ck_create_synd(t, stmt, ID)					\
	ck_fw_variant(fw, qpt_create_mbox(&env, &m_, (t)), qpc, QPT_QPC(&m_), \
		      stmt, ID)

/* ---- good creates, QUERY_QP echo, DESTROY_QP ---- */

START_TEST(qp_create_each_type)
{
	enum qpt_type t = (enum qpt_type)_i;
	unsigned int before = emu_fw_obj_count(fw, EMU_FW_OBJ_QP);
	struct fwt_mbox c, q;
	struct emu_fw_qp *qp;
	uint32_t qpn;

	qpt_create_mbox(&env, &c, t);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	qpn = PRM_GET(create_qp_out, c.out, qpn);
	ck_assert_uint_ge(qpn, 0x100);	/* QP0/QP1 and low numbers reserved */
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_QP), before + 1);

	/* QUERY_QP: the context as created, state RST. */
	qpt_query(&env, qpn, &q);
	ck_assert_uint_eq(PRM_GET(qpc, QPT_Q_QPC(&q), state),
			  MLX5_QPC_STATE_RST);
	PRM_SET(qpc, QPT_QPC(&c), state, MLX5_QPC_STATE_RST);
	ck_assert_mem_eq(QPT_Q_QPC(&q), QPT_QPC(&c), PRM_ST_SZ_BYTES(qpc));

	/* What the engines see. */
	qp = qpt_get(fw, qpn);
	ck_assert_uint_eq(qp->kind, EMU_FW_QP_KIND_QP);
	ck_assert_uint_eq(emu_fw_qp_state(qp), MLX5_QPC_STATE_RST);
	ck_assert_ptr_eq(qp->pd, emu_fw_to_pd(emu_fw_obj_lookup_rcu(
				 fw, EMU_FW_OBJ_PD, env.pd)));
	ck_assert_uint_eq(qp->user_index,
			  PRM_GET(qpc, QPT_QPC(&c), user_index));
	switch (t) {
	case QPT_RC:
	case QPT_UC:
	case QPT_UD:
		ck_assert_uint_eq(qp->sq.cnt, 64);
		ck_assert_uint_eq(qp->sq.log_stride, 6);
		ck_assert_uint_eq(qp->rq.cnt, 64);
		ck_assert_uint_eq(qp->rq.log_stride, 6);
		ck_assert_ptr_eq(qp->rq.addr, qp->buf.addr);
		ck_assert_ptr_eq(qp->sq.addr, qp->buf.addr + 64 * 64);
		ck_assert_ptr_eq(atomic_load(&qp->cq_snd)->obj.fw, fw);
		ck_assert_uint_eq(atomic_load(&qp->cq_snd)->obj.id, env.cq);
		ck_assert_uint_eq(atomic_load(&qp->cq_rcv)->obj.id, env.cq2);
		ck_assert_ptr_nonnull(qp->dbr.addr);
		break;
	case QPT_XRC_INI:
		ck_assert_uint_eq(qp->sq.cnt, 64);
		ck_assert_uint_eq(qp->rq.cnt, 0);
		ck_assert_ptr_eq(qp->sq.addr, qp->buf.addr);
		ck_assert_uint_eq(qp->xrcd->obj.id, env.xrcd);
		ck_assert(!qp->xrc_tgt);
		break;
	case QPT_XRC_TGT:
		ck_assert(qp->xrc_tgt);
		ck_assert_uint_eq(qp->sq.cnt, 0);
		ck_assert_ptr_null(qp->buf.addr);	/* no ring */
		ck_assert_ptr_null(atomic_load(&qp->cq_snd));
		break;
	case QPT_DCI:
		ck_assert_uint_eq(qp->st, MLX5_QPC_ST_DCI);
		ck_assert_uint_eq(qp->sq.cnt, 64);
		ck_assert_ptr_null(atomic_load(&qp->cq_rcv));
		break;
	default:
		break;
	}
	emu_fw_obj_put(&qp->obj);

	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid, qpn),
			  0);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_QP), before);
	/* Gone: query and a second destroy. */
	{
		struct fwt_mbox m;

		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, env.uid,
			      PRM_ST_SZ_BYTES(query_qp_in),
			      PRM_BYTE_OFF(query_qp_out, pas));
		PRM_SET(query_qp_in, m.in, qpn, qpn);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID);
		fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_QP, env.uid, qpn);
		ck_fw_synd(&m, QP_INVALID);
	}
}
END_TEST

/* The page-list form: pas[] entries inside registered memory. */
START_TEST(qp_create_page_list)
{
	struct fwt_mbox m;
	uint8_t *buf = (uint8_t *)env.mem.addr + 40 * QPT_SLOT_BYTES;
	struct emu_fw_qp *qp;

	qpt_create_mbox(&env, &m, QPT_RC);
	PRM_SET(create_qp_in, m.in, wq_umem_valid, 0);
	m.inlen = PRM_ST_SZ_BYTES(create_qp_in) + 2 * 8;
	for (int i = 0; i < 2; i++) {
		uint64_t pa = htobe64((uint64_t)(uintptr_t)(buf + i * 4096));

		memcpy(PRM_ARRAY_ADDR(create_qp_in, m.in, pas, i), &pa, 8);
	}
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qp = qpt_get(fw, PRM_GET(create_qp_out, m.out, qpn));
	ck_assert_ptr_eq(qp->rq.addr, buf);
	ck_assert_ptr_eq(qp->sq.addr, buf + 4096);
	emu_fw_obj_put(&qp->obj);

	/* Too few entries for the 8 KiB ring. */
	qpt_create_mbox(&env, &m, QPT_RC);
	PRM_SET(create_qp_in, m.in, wq_umem_valid, 0);
	m.inlen = PRM_ST_SZ_BYTES(create_qp_in) + 8;
	{
		uint64_t pa = htobe64((uint64_t)(uintptr_t)buf);

		memcpy(PRM_ARRAY_ADDR(create_qp_in, m.in, pas, 0), &pa, 8);
	}
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_INLEN);
	/* Neither umem nor page list. */
	qpt_create_mbox(&env, &m, QPT_RC);
	PRM_SET(create_qp_in, m.in, wq_umem_valid, 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UMEM_REQUIRED);
}
END_TEST

/* ---- validation rules, one at a time ---- */

START_TEST(qp_create_bad_st)
{
	static const uint32_t bad[] = { 4, 6, MLX5_QPC_ST_QP0, MLX5_QPC_ST_QP1,
					MLX5_QPC_ST_RAW_DATAGRAM,
					MLX5_QPC_ST_REG_UMR, 0xff };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, st, bad[i]), QP_BAD_ST);
}
END_TEST

static void no_xrc_dc(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "xrc", 0), 0);
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "dct", 0), 0);
}

/* A device configured without XRC and DC refuses those types. */
START_TEST(qp_create_st_not_advertised)
{
	struct emu_fw *f2 = qpt_fw(no_xrc_dc);
	struct qpt_env e2;
	struct fwt_mbox m;

	qpt_env_init(&e2, f2, true);
	ck_assert_uint_eq(e2.xrcd, 0);
	qpt_create_mbox(&e2, &m, QPT_XRC_INI);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_ST);
	qpt_create_mbox(&e2, &m, QPT_DCI);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_ST);
	fwt_mbox_init(&m, MLX5_CMD_OP_ALLOC_XRCD, 0, e2.uid,
		      PRM_ST_SZ_BYTES(alloc_xrcd_in),
		      PRM_ST_SZ_BYTES(alloc_xrcd_out));
	fwt_exec(f2, &m);
	ck_fw_synd(&m, OPCODE_NOT_SUPPORTED);
	qpt_create(&e2, QPT_RC);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

START_TEST(qp_create_features)
{
	ck_create_synd(QPT_RC, PRM_SET(create_qp_in, m_.in, qpc_ext, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(create_qp_in, m_.in, input_qpn, 0x200),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, offload_type, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, wq_signature, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, rlky, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cd_master, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cd_slave_send, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cd_slave_receive, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_DCI,
		       PRM_SET(qpc, qpc, log_num_dci_stream_channels, 2),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_DCI,
		       PRM_SET(qpc, qpc, log_num_dci_errored_streams, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, end_padding_mode, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, data_in_order, 1),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cs_req,
				       MLX5_QPC_CS_REQ_UP_TO_32B),
		       QP_FEATURE_NOT_SUPPORTED);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cs_res,
				       MLX5_QPC_CS_RES_UP_TO_32B),
		       QP_FEATURE_NOT_SUPPORTED);
}
END_TEST

/* roce_cap.qp_ts_format 2 (both): every format but the reserved 3; the
 * format is kept for the engine's stamps. */
START_TEST(qp_create_ts_format)
{
	struct emu_fw_qp *qp;
	struct fwt_mbox c;

	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, ts_format,
				       MLX5_TIMESTAMP_FORMAT_FREE_RUNNING), OK);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, ts_format,
				       MLX5_TIMESTAMP_FORMAT_DEFAULT), OK);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, ts_format,
				       MLX5_TIMESTAMP_FORMAT_REAL_TIME), OK);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, ts_format, 3),
		       QP_BAD_TS_FORMAT);
	qpt_create_mbox(&env, &c, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&c), ts_format, 2);
	fwt_exec(fw, &c);
	ck_fw_ok(&c);
	qp = qpt_get(fw, PRM_GET(create_qp_out, c.out, qpn));
	ck_assert_uint_eq(qp->ts_format, MLX5_TIMESTAMP_FORMAT_REAL_TIME);
	emu_fw_obj_put(&qp->obj);
}
END_TEST

static void ts_cap_fr_only(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_ROCE, "qp_ts_format", 0), 0);
}

static void ts_cap_rt_only(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_ROCE, "qp_ts_format", 1), 0);
}

/* A format the capability does not offer is refused (UCX saw a free
 * running QP refused on a real-time-only ConnectX-6 Dx); default always. */
START_TEST(qp_create_ts_format_cap)
{
	static const struct {
		void (*tweak)(struct emu_fw_caps *caps);
		unsigned int refused;
	} t[] = {
		{ ts_cap_fr_only, MLX5_TIMESTAMP_FORMAT_REAL_TIME },
		{ ts_cap_rt_only, MLX5_TIMESTAMP_FORMAT_FREE_RUNNING },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct emu_fw *f2 = qpt_fw(t[i].tweak);
		struct qpt_env e2;
		struct fwt_mbox m;

		qpt_env_init(&e2, f2, true);
		for (unsigned int ts = 0; ts < 3; ts++) {
			qpt_create_mbox(&e2, &m, QPT_RC);
			PRM_SET(qpc, QPT_QPC(&m), ts_format, ts);
			fwt_exec(f2, &m);
			if (ts == t[i].refused)
				ck_fw_synd(&m, QP_BAD_TS_FORMAT);
			else
				ck_fw_ok(&m);
		}
		emu_fw_destroy(f2);
		qpt_env_fini(&e2);
	}
}
END_TEST

START_TEST(qp_create_rq_type)
{
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, rq_type, 2), QP_BAD_RQ_TYPE);
	/* An XRC QP has no receive queue of its own. */
	ck_create_synd(QPT_XRC_INI, PRM_SET(qpc, qpc, rq_type,
					    EMU_FW_RQ_REGULAR),
		       QP_BAD_RQ_TYPE);
	/* A DCI only sends. */
	ck_create_synd(QPT_DCI, PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_REGULAR),
		       QP_BAD_RQ_TYPE);
	ck_create_synd(QPT_DCI, PRM_SET(qpc, qpc, no_sq, 1), QP_BAD_RQ_TYPE);
	/* RC/UD with no RQ, or with an SRQ: fine. */
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_ZERO), OK);
	ck_create_synd(QPT_UD, { PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
				 PRM_SET(qpc, qpc, srqn_rmpn_xrqn, env.srq); },
		       OK);
}
END_TEST

START_TEST(qp_create_sizes)
{
	/* The largest rings log_max_qp_sz (15) allows, in the 4 MiB umem. */
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, log_sq_size, 15);
				 PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					   0); }, OK);
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, log_rq_size, 15);
				 PRM_SET(qpc, qpc, log_rq_stride, 0);
				 PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					   0); }, OK);
	/* 2 MiB of SQ past the middle of the umem */
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, log_sq_size, 15);
				 PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					   (uint64_t)QPT_SLOTS / 2 *
					   QPT_SLOT_BYTES); },
		       UMEM_OUT_OF_RANGE);
}
END_TEST

static void small_qp_sz(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL,
					 "log_max_qp_sz", 10), 0);
}

START_TEST(qp_create_size_caps)
{
	struct emu_fw *f2 = qpt_fw(small_qp_sz);
	struct qpt_env e2;
	struct fwt_mbox m;

	qpt_env_init(&e2, f2, true);
	qpt_create_mbox(&e2, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), log_sq_size, 11);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_SQ_SIZE);
	qpt_create_mbox(&e2, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), log_rq_size, 11);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_RQ_SIZE);
	qpt_create_mbox(&e2, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), log_sq_size, 10);
	PRM_SET(qpc, QPT_QPC(&m), log_rq_size, 10);
	PRM_SET(qpc, QPT_QPC(&m), log_rq_stride, 0);
	fwt_exec(f2, &m);
	ck_fw_ok(&m);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

START_TEST(qp_create_rq_stride)
{
	/* 16 << 5 = 512 = max_wqe_sz_rq: the largest receive WQE. */
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, log_rq_stride, 5);
				 PRM_SET(qpc, qpc, log_rq_size, 3); }, OK);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, log_rq_stride, 6),
		       QP_BAD_RQ_STRIDE);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, log_rq_stride, 7),
		       QP_BAD_RQ_STRIDE);
	/* 16 bytes: one scatter entry, allowed on a QP's RQ. */
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, log_rq_stride, 0), OK);
}
END_TEST

START_TEST(qp_create_pd)
{
	uint16_t other = fwt_uctx(fw);
	uint32_t opd = fwt_pd(fw, other);
	uint32_t kpd = fwt_pd(fw, 0);

	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, pd, 0), BAD_PD);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, pd, 0xabcdef), BAD_PD);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, pd, opd), BAD_PD);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, pd, kpd), OK);
}
END_TEST

START_TEST(qp_create_cqs)
{
	uint16_t other = fwt_uctx(fw);
	struct fwt_mem a, b;
	uint32_t ocq;

	fwt_mem_reg(fw, other, 4096, &a);
	fwt_mem_reg(fw, other, 8, &b);
	ocq = fwt_cq(fw, other, env.eqn, fwt_uar(fw, other), 6, a.umem_id,
		     b.umem_id);
	/* A send queue needs its CQ, a receive queue its own. */
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cqn_snd, 0), QP_BAD_CQN);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cqn_rcv, 0), QP_BAD_CQN);
	ck_create_synd(QPT_UD, PRM_SET(qpc, qpc, cqn_snd, 0x777777),
		       QP_BAD_CQN);
	ck_create_synd(QPT_UD, PRM_SET(qpc, qpc, cqn_rcv, ocq), QP_BAD_CQN);
	ck_create_synd(QPT_DCI, PRM_SET(qpc, qpc, cqn_snd, 0), QP_BAD_CQN);
	ck_create_synd(QPT_UD, { PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
				 PRM_SET(qpc, qpc, srqn_rmpn_xrqn, env.srq);
				 PRM_SET(qpc, qpc, cqn_rcv, 0); }, QP_BAD_CQN);
	/* No receive side: the receive CQ is optional but checked if named. */
	ck_create_synd(QPT_DCI, PRM_SET(qpc, qpc, cqn_rcv, 0x777777),
		       QP_BAD_CQN);
	ck_create_synd(QPT_XRC_INI, PRM_SET(qpc, qpc, cqn_rcv, env.cq2), OK);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, cqn_snd, env.cq2), OK);
	fwt_mem_free(&a);
	fwt_mem_free(&b);
}
END_TEST

START_TEST(qp_create_srq_xrcd_uar)
{
	uint16_t other = fwt_uctx(fw);
	struct qpt_env e2;
	uint32_t osrq;

	qpt_env_init(&e2, fw, true);
	osrq = e2.srq;
	(void)other;
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ),
		       QP_BAD_SRQN);
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
				 PRM_SET(qpc, qpc, srqn_rmpn_xrqn, 0x5555); },
		       QP_BAD_SRQN);
	ck_create_synd(QPT_RC, { PRM_SET(qpc, qpc, rq_type, EMU_FW_RQ_SRQ);
				 PRM_SET(qpc, qpc, srqn_rmpn_xrqn, osrq); },
		       QP_BAD_SRQN);
	/* XRC target: the SRQ comes with each packet, none is needed. */
	ck_create_synd(QPT_XRC_TGT, PRM_SET(qpc, qpc, srqn_rmpn_xrqn, 0), OK);
	ck_create_synd(QPT_XRC_INI, PRM_SET(qpc, qpc, xrcd, 0), QP_BAD_XRCD);
	ck_create_synd(QPT_XRC_TGT, PRM_SET(qpc, qpc, xrcd, e2.xrcd),
		       QP_BAD_XRCD);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, uar_page, 0), BAD_UAR);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, uar_page, e2.uar), BAD_UAR);
	/* No send queue: no UAR needed. */
	ck_create_synd(QPT_XRC_TGT, PRM_SET(qpc, qpc, uar_page, 0), OK);
	qpt_env_fini(&e2);
}
END_TEST

START_TEST(qp_create_memory)
{
	struct fwt_mem small;

	fwt_mem_reg(fw, env.uid, 4096, &small);
	/* wq umem */
	ck_create_synd(QPT_RC, PRM_SET(create_qp_in, m_.in, wq_umem_id, 0x999),
		       UMEM_INVALID);
	/* 8 KiB ring in a 4 KiB umem */
	ck_create_synd(QPT_RC, { PRM_SET(create_qp_in, m_.in, wq_umem_id,
					 small.umem_id);
				 PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					   0); }, UMEM_OUT_OF_RANGE);
	/* beyond the end of the slot umem */
	ck_create_synd(QPT_RC, PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					 (uint64_t)QPT_SLOTS * QPT_SLOT_BYTES -
					 4096), UMEM_OUT_OF_RANGE);
	/* page_offset moves the ring further */
	ck_create_synd(QPT_RC, { PRM_SET64(create_qp_in, m_.in, wq_umem_offset,
					   (uint64_t)QPT_SLOTS *
					   QPT_SLOT_BYTES - 8192);
				 PRM_SET(qpc, qpc, page_offset, 1); },
		       UMEM_OUT_OF_RANGE);
	/* doorbell record */
	ck_create_synd(QPT_RC, PRM_SET64(qpc, qpc, dbr_addr, 4), DBR_MISALIGNED);
	ck_create_synd(QPT_RC, PRM_SET64(qpc, qpc, dbr_addr, QPT_SLOTS * 64),
		       DBR_OUT_OF_RANGE);
	ck_create_synd(QPT_RC, PRM_SET(qpc, qpc, dbr_umem_id, 0x999),
		       UMEM_INVALID);
	ck_create_synd(QPT_RC, PRM_SET64(qpc, qpc, dbr_addr, QPT_SLOTS * 64 - 8),
		       OK);
	/* another uid's umem */
	{
		uint16_t other = fwt_uctx(fw);
		struct fwt_mem om;

		fwt_mem_reg(fw, other, 65536, &om);
		ck_create_synd(QPT_RC, PRM_SET(create_qp_in, m_.in, wq_umem_id,
					       om.umem_id), UMEM_INVALID);
		fwt_mem_free(&om);
	}
	fwt_mem_free(&small);
}
END_TEST

/* ---- uses: what a QP names cannot go away under it ---- */

START_TEST(qp_uses)
{
	uint32_t srq = qpt_srq(&env);
	uint32_t xrcd = qpt_xrcd(fw, env.uid);
	uint32_t qc = qpt_q_counter(fw, env.uid);
	uint32_t rc, ini;
	struct fwt_mbox m;

	qpt_create_mbox(&env, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), rq_type, EMU_FW_RQ_SRQ);
	PRM_SET(qpc, QPT_QPC(&m), srqn_rmpn_xrqn, srq);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	rc = PRM_GET(create_qp_out, m.out, qpn);
	qpt_create_mbox(&env, &m, QPT_XRC_INI);
	PRM_SET(qpc, QPT_QPC(&m), xrcd, xrcd);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ini = PRM_GET(create_qp_out, m.out, qpn);
	/* RST2INIT takes the counter set. */
	qpt_tr_mbox(&m, MLX5_CMD_OP_RST2INIT_QP, env.uid, rc, 0);
	qpt_tr_fill(&env, &m, MLX5_CMD_OP_RST2INIT_QP, QPT_RC);
	PRM_SET(qpc, QPT_TR_QPC(&m), counter_set_id, qc);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);

	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, env.uid, env.cq);
	ck_fw_synd(&m, CQ_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_CQ, env.uid, env.cq2);
	ck_fw_synd(&m, CQ_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_PD, env.uid, env.pd);
	ck_fw_synd(&m, PD_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_UAR, env.uid, env.uar);
	ck_fw_synd(&m, UAR_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_SRQ, env.uid, srq);
	ck_fw_synd(&m, SRQ_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_XRCD, env.uid, xrcd);
	ck_fw_synd(&m, XRCD_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DEALLOC_Q_COUNTER, env.uid, qc);
	ck_fw_synd(&m, Q_COUNTER_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, env.uid,
			   env.mem.umem_id, UMEM_IN_USE);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_UMEM, env.uid,
			   env.dbr.umem_id, UMEM_IN_USE);
	fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_UCTX, 0, env.uid);
	ck_fw_synd(&m, UCTX_IN_USE);

	/* The QPs go: everything may. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid, rc),
			  0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP, env.uid, ini),
			  0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_SRQ, env.uid,
				      srq), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_XRCD, env.uid,
				      xrcd), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_Q_COUNTER,
				      env.uid, qc), 0);
	/* The env SRQ still uses the PD: destroy it, then the PD may go. */
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_SRQ, env.uid,
				      env.srq), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_PD, env.uid,
				      env.pd), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_CQ, env.uid,
				      env.cq), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_UMEM, env.uid, env.mem.umem_id), 0);
}
END_TEST

/* ---- uid rules ---- */

START_TEST(qp_uid_rules)
{
	uint16_t other = fwt_uctx(fw);
	uint32_t qpn = qpt_create(&env, QPT_RC);
	struct fwt_mbox m;

	/* Another uid, and the kernel, cannot touch the QP. */
	for (int k = 0; k < 2; k++) {
		uint16_t uid = k ? 0 : other;

		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, uid,
			      PRM_ST_SZ_BYTES(query_qp_in),
			      PRM_BYTE_OFF(query_qp_out, pas));
		PRM_SET(query_qp_in, m.in, qpn, qpn);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID);
		qpt_tr_mbox(&m, MLX5_CMD_OP_RST2INIT_QP, uid, qpn, 0);
		qpt_tr_fill(&env, &m, MLX5_CMD_OP_RST2INIT_QP, QPT_RC);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID);
		qpt_tr_mbox(&m, MLX5_CMD_OP_2ERR_QP, uid, qpn, 0);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID_QPN);
		qpt_tr_mbox(&m, MLX5_CMD_OP_2RST_QP, uid, qpn, 0);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, QP_INVALID_QPN);
		fwt_destroy_mbox(fw, &m, MLX5_CMD_OP_DESTROY_QP, uid, qpn);
		ck_fw_synd(&m, QP_INVALID);
	}
	ck_assert_uint_eq(qpt_state(&env, qpn), MLX5_QPC_STATE_RST);
	/* A uid that is no context at all: refused at the header. */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, 0x7777,
		      PRM_ST_SZ_BYTES(query_qp_in),
		      PRM_BYTE_OFF(query_qp_out, pas));
	PRM_SET(query_qp_in, m.in, qpn, qpn);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_UID);
}
END_TEST

/* The kernel's objects (uid 0) serve every uid; a uid-0 QP works too. */
START_TEST(qp_uid0_objects)
{
	struct qpt_env k;
	struct fwt_mbox m;
	uint32_t qpn;

	qpt_env_init(&k, fw, false);
	qpn = qpt_create(&k, QPT_RC);
	qpt_to_rts(&k, qpn, QPT_RC);
	ck_assert_uint_eq(qpt_state(&k, qpn), MLX5_QPC_STATE_RTS);
	/* a user QP on the kernel's PD and CQs */
	qpt_create_mbox(&env, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), pd, k.pd);
	PRM_SET(qpc, QPT_QPC(&m), cqn_snd, k.cq);
	PRM_SET(qpc, QPT_QPC(&m), cqn_rcv, k.cq2);
	PRM_SET(qpc, QPT_QPC(&m), uar_page, k.uar);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qpt_env_fini(&k);
}
END_TEST

/* ---- limits ---- */

static void few_qps(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "log_max_qp",
					 2), 0);
}

START_TEST(qp_limit)
{
	struct emu_fw *f2 = qpt_fw(few_qps);
	struct qpt_env e2;
	struct fwt_mbox m;
	uint32_t q[4];

	qpt_env_init(&e2, f2, true);
	for (int i = 0; i < 4; i++)
		q[i] = qpt_create(&e2, QPT_UD);
	qpt_create_mbox(&e2, &m, QPT_RC);
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_NO_RESOURCES);	/* BAD_RES 0x65b500, cited */
	ck_assert_uint_eq(emu_fw_out_status(m.out), MLX5_CMD_STAT_BAD_RES_ERR);
	ck_assert_uint_eq(fwt_destroy(f2, MLX5_CMD_OP_DESTROY_QP, e2.uid, q[1]),
			  0);
	fwt_exec(f2, &m);
	ck_fw_ok(&m);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

START_TEST(qp_query_rules)
{
	uint32_t qpn = qpt_create(&env, QPT_UD);
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, env.uid,
		      PRM_ST_SZ_BYTES(query_qp_in),
		      PRM_BYTE_OFF(query_qp_out, pas));
	PRM_SET(query_qp_in, m.in, qpn, qpn);
	PRM_SET(query_qp_in, m.in, qpc_ext, 1);	/* qpc_extension: 0 */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, QP_FEATURE_NOT_SUPPORTED);
	/* Outbox too short for the context. */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_QP, 0, env.uid,
		      PRM_ST_SZ_BYTES(query_qp_in), 64);
	PRM_SET(query_qp_in, m.in, qpn, qpn);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
}
END_TEST

/* Firmware teardown with QPs in every state frees everything. */
START_TEST(qp_destroy_any_state)
{
	for (int t = 0; t < QPT_NTYPES; t++) {
		uint32_t a = qpt_create(&env, t), b = qpt_create(&env, t);

		qpt_to_rts(&env, a, t);
		qpt_tr(&env, b, MLX5_CMD_OP_2ERR_QP, t, NULL);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP,
					      env.uid, a), 0);
		ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_QP,
					      env.uid, b), 0);
	}
	/* Left alive on purpose: emu_fw_destroy reclaims them. */
	for (int t = 0; t < QPT_NTYPES; t++)
		qpt_to_rts(&env, qpt_create(&env, t), t);
}
END_TEST

/* ---- limits consistent with the capability pages ---- */

static void small_wqe_rq(struct emu_fw_caps *caps)
{
	ck_assert_int_eq(emu_fw_caps_set(caps, MLX5_CAP_GENERAL,
					 "max_wqe_sz_rq", 256), 0);
}

START_TEST(qp_caps_consistency)
{
	struct emu_fw_caps *c = emu_fw_caps_new();
	const void *gen = emu_fw_caps_page(c, MLX5_CAP_GENERAL);
	char why[200];

	/* What this work advertises. */
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, xrc), 1);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, dct), 1);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, log_max_xrcd), 16);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, log_max_rmp), 12);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, log_max_msg), 30);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, gen, rts2rts_qp_counters_set_id),
			  1);
	ck_assert_uint_eq(PRM_GET(atomic_caps,
				  emu_fw_caps_page(c, MLX5_CAP_ATOMIC),
				  atomic_size_dc), 8);
	/* UD max_send_sge = (min(max_wqe_sz_sq, 512) - ctrl - raddr) / 16,
	 * well above 1; an SRQ WQE of 32 bytes fits max_wqe_sz_rq. */
	ck_assert_uint_ge((PRM_GET(cmd_hca_cap, gen, max_wqe_sz_sq) < 512 ?
			   PRM_GET(cmd_hca_cap, gen, max_wqe_sz_sq) : 512) - 32,
			  2 * 16);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	/* The checks. */
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "max_wqe_sz_rq",
					 16), 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "max_wqe_sz_rq"));
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "max_wqe_sz_rq",
					 512), 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "max_wqe_sz_sq",
					 32), 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "max_wqe_sz_sq"));
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "max_wqe_sz_sq",
					 1024), 0);
	/* Sizes the 4-bit context fields cannot hold. */
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_qp_sz",
					 16), 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "log_max_qp_sz",
					 15), 0);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL,
					 "log_max_srq_sz", 16), 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	emu_fw_caps_free(c);
}
END_TEST

/* Lowering max_wqe_sz_rq lowers the largest receive WQE everywhere. */
START_TEST(qp_wqe_sz_rq_follows_caps)
{
	struct emu_fw *f2 = qpt_fw(small_wqe_rq);
	struct qpt_env e2;
	struct fwt_mbox m;

	qpt_env_init(&e2, f2, true);
	qpt_create_mbox(&e2, &m, QPT_RC);
	PRM_SET(qpc, QPT_QPC(&m), log_rq_stride, 5);	/* 512 > 256 */
	fwt_exec(f2, &m);
	ck_fw_synd(&m, QP_BAD_RQ_STRIDE);
	PRM_SET(qpc, QPT_QPC(&m), log_rq_stride, 4);	/* 256 */
	fwt_exec(f2, &m);
	ck_fw_ok(&m);
	emu_fw_destroy(f2);
	qpt_env_fini(&e2);
}
END_TEST

static Suite *qp_suite(void)
{
	Suite *s = suite_create("fw_qp");
	TCase *tc = tcase_create("create");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, qp_create_each_type, 0, QPT_NTYPES);
	tcase_add_test(tc, qp_create_page_list);
	tcase_add_test(tc, qp_create_bad_st);
	tcase_add_test(tc, qp_create_features);
	tcase_add_test(tc, qp_create_ts_format);
	tcase_add_test(tc, qp_create_ts_format_cap);
	tcase_add_test(tc, qp_create_rq_type);
	tcase_add_test(tc, qp_create_sizes);
	tcase_add_test(tc, qp_create_size_caps);
	tcase_add_test(tc, qp_create_rq_stride);
	tcase_add_test(tc, qp_create_pd);
	tcase_add_test(tc, qp_create_cqs);
	tcase_add_test(tc, qp_create_srq_xrcd_uar);
	tcase_add_test(tc, qp_create_memory);
	suite_add_tcase(s, tc);

	tc = tcase_create("rules");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, qp_create_st_not_advertised);
	tcase_add_test(tc, qp_uses);
	tcase_add_test(tc, qp_uid_rules);
	tcase_add_test(tc, qp_uid0_objects);
	tcase_add_test(tc, qp_limit);
	tcase_add_test(tc, qp_query_rules);
	tcase_add_test(tc, qp_destroy_any_state);
	tcase_add_test(tc, qp_caps_consistency);
	tcase_add_test(tc, qp_wqe_sz_rq_follows_caps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(qp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
