/* SPDX-License-Identifier: MIT */
/*
 * TISes: CREATE/MODIFY/QUERY/DESTROY_TIS -- what is kept and answered,
 * every refusal with its syndrome, the transport domain's uid rules and
 * use, and the TIS's use by an SQ.
 */
#include "test_fw_eth_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static struct etht_env env;

static void setup(void)
{
	etht_init(&fw, &env);
}

static void teardown(void)
{
	etht_fini(&fw, &env);
}

/* A good CREATE_TIS with one change, refused with ID. */
#define ck_tis_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_tis_mbox(&env, &m_), c, ETHT_TISC(&m_),	\
		      stmt, ID)

static void tis_query(uint32_t tisn, struct fwt_mbox *m)
{
	etht_id_cmd(&env, m, MLX5_CMD_OP_QUERY_TIS, tisn,
		    PRM_ST_SZ_BYTES(query_tis_out));
	ck_fw_ok(m);
}

#define Q_TISC(m) PRM_ADDR_OF(query_tis_out, (m)->out, tis_context)

START_TEST(tis_lifecycle)
{
	struct fwt_mbox c, m;
	struct emu_fw_tis *tis;
	uint32_t tisn;
	const uint8_t *q;

	etht_tis_mbox(&env, &c);
	tisn = etht_create(&env, &c);
	ck_assert_uint_ne(tisn, 0);
	tis_query(tisn, &m);
	q = Q_TISC(&m);
	ck_assert_mem_eq(q, ETHT_TISC(&c), PRM_ST_SZ_BYTES(tisc));
	/* prio at tisc bits 0xc..0xf (byte 1, low nibble), the domain at
	 * bytes 0x25..0x27. */
	ck_assert_uint_eq(q[1] & 0xf, 6);
	ck_assert_uint_eq((uint32_t)q[0x25] << 16 | q[0x26] << 8 | q[0x27],
			  env.td);
	tis = emu_fw_to_tis(etht_get(&env, EMU_FW_OBJ_TIS, tisn));
	ck_assert_uint_eq(atomic_load(&tis->prio), 6);
	ck_assert_uint_eq(tis->td->obj.id, env.td);
	ck_assert_int_eq(atomic_load(&tis->td->obj.users), 1);
	emu_fw_obj_put(&tis->obj);
	/* The domain cannot go while the TIS uses it. */
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
			   env.q.uid, env.td, TD_IN_USE);
	etht_id_cmd(&env, &m, MLX5_CMD_OP_DESTROY_TIS, tisn,
		    PRM_ST_SZ_BYTES(destroy_tis_out));
	ck_fw_ok(&m);
	etht_id_cmd(&env, &m, MLX5_CMD_OP_QUERY_TIS, tisn,
		    PRM_ST_SZ_BYTES(query_tis_out));
	ck_fw_synd(&m, TIS_INVALID);
	etht_id_cmd(&env, &m, MLX5_CMD_OP_DESTROY_TIS, tisn,
		    PRM_ST_SZ_BYTES(destroy_tis_out));
	ck_fw_synd(&m, TIS_INVALID);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
				      env.q.uid, env.td), MLX5_CMD_STAT_OK);
}
END_TEST

START_TEST(tis_refusals)
{
	uint32_t other = fwt_uctx(fw);
	struct emu_fw_obj *td;
	uint32_t td_other = fwt_alloc(fw, other, ALLOC_TRANSPORT_DOMAIN,
				      alloc_transport_domain,
				      transport_domain);

	ck_tis_synd(PRM_SET(tisc, c, transport_domain, 0), TIS_BAD_TD);
	ck_tis_synd(PRM_SET(tisc, c, transport_domain, env.td + 100),
		    TIS_BAD_TD);
	/* Another user context's domain. */
	ck_tis_synd(PRM_SET(tisc, c, transport_domain, td_other), TIS_BAD_TD);
	/* No LAG on this device: no port affinity, strict or not. */
	ck_tis_synd(PRM_SET(tisc, c, lag_tx_port_affinity, 1), TIS_BAD_LAG);
	ck_tis_synd(PRM_SET(tisc, c, strict_lag_tx_port_affinity, 1),
		    TIS_BAD_LAG);
	/* tls_tx is not advertised; IPoIB underlay and TLS pd neither. */
	ck_tis_synd(PRM_SET(tisc, c, tls_en, 1), TIS_FEATURE_NOT_SUPPORTED);
	ck_tis_synd(PRM_SET(tisc, c, underlay_qpn, 0x100),
		    TIS_FEATURE_NOT_SUPPORTED);
	ck_tis_synd(PRM_SET(tisc, c, pd, env.q.pd), TIS_FEATURE_NOT_SUPPORTED);
	/* Nothing was created. */
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_TIS), 0);
	td = etht_get(&env, EMU_FW_OBJ_TD, env.td);
	ck_assert_int_eq(atomic_load(&td->users), 0);
	emu_fw_obj_put(td);
}
END_TEST

START_TEST(tis_kernel_td)
{
	/* The kernel's domain serves a user context's TIS. */
	uint32_t ktd = fwt_alloc(fw, 0, ALLOC_TRANSPORT_DOMAIN,
				 alloc_transport_domain, transport_domain);
	struct fwt_mbox m;

	etht_tis_mbox(&env, &m);
	PRM_SET(tisc, ETHT_TISC(&m), transport_domain, ktd);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

static void tis_modify_mbox(uint32_t tisn, struct fwt_mbox *m, bool prio,
			    bool lag, bool strict, uint32_t prio_v)
{
	void *bm = PRM_ADDR_OF(modify_tis_in, m->in, bitmask);
	void *c = PRM_ADDR_OF(modify_tis_in, m->in, ctx);

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_TIS, 0, env.q.uid,
		      PRM_ST_SZ_BYTES(modify_tis_in),
		      PRM_ST_SZ_BYTES(modify_tis_out));
	PRM_SET(modify_tis_in, m->in, tisn, tisn);
	PRM_SET(modify_tis_bitmask, bm, prio, prio);
	PRM_SET(modify_tis_bitmask, bm, lag_tx_port_affinity, lag);
	PRM_SET(modify_tis_bitmask, bm, strict_lag_tx_port_affinity, strict);
	PRM_SET(tisc, c, prio, prio_v);
	PRM_SET(tisc, c, lag_tx_port_affinity, lag);
	PRM_SET(tisc, c, strict_lag_tx_port_affinity, strict);
}

static uint8_t tis_modify(uint32_t tisn, struct fwt_mbox *m, bool prio,
			  bool lag, bool strict, uint32_t prio_v)
{
	tis_modify_mbox(tisn, m, prio, lag, strict, prio_v);
	return fwt_exec(fw, m);
}

START_TEST(tis_modify_fields)
{
	uint32_t tisn = etht_tis(&env);
	struct fwt_mbox m, q;
	uint8_t *bm;

	/* prio changes; a bitmask without prio leaves it. */
	tis_modify(tisn, &m, true, false, false, 10);
	ck_fw_ok(&m);
	tis_query(tisn, &q);
	ck_assert_uint_eq(PRM_GET(tisc, Q_TISC(&q), prio), 10);
	tis_modify(tisn, &m, false, false, false, 2);
	ck_fw_ok(&m);
	tis_query(tisn, &q);
	ck_assert_uint_eq(PRM_GET(tisc, Q_TISC(&q), prio), 10);
	/* The LAG fields: no LAG; nothing changes on a refusal. */
	tis_modify(tisn, &m, true, true, false, 4);
	ck_fw_synd(&m, TIS_BAD_LAG);
	tis_modify(tisn, &m, true, false, true, 4);
	ck_fw_synd(&m, TIS_BAD_LAG);
	tis_query(tisn, &q);
	ck_assert_uint_eq(PRM_GET(tisc, Q_TISC(&q), prio), 10);
	/* A bit the layout does not name (bit 0x3c). */
	tis_modify_mbox(tisn, &m, true, false, false, 4);
	bm = PRM_ADDR_OF(modify_tis_in, m.in, bitmask);
	bm[7] |= 0x08;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIS_BAD_BITMASK);
	tis_query(tisn, &q);
	ck_assert_uint_eq(PRM_GET(tisc, Q_TISC(&q), prio), 10);
	tis_modify(tisn + 1, &m, true, false, false, 4);
	ck_fw_synd(&m, TIS_INVALID);
}
END_TEST

START_TEST(tis_uid)
{
	uint32_t tisn = etht_tis(&env);
	uint16_t other = fwt_uctx(fw);
	struct fwt_mbox m;

	/* Another user context neither queries nor destroys it. */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_TIS, 0, other,
		      PRM_ST_SZ_BYTES(query_tis_in),
		      PRM_ST_SZ_BYTES(query_tis_out));
	PRM_SET(query_tis_in, m.in, tisn, tisn);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIS_INVALID);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_TIS, other, tisn,
			   TIS_INVALID);
	/* Nor does its SQ use it. */
	etht_sq_mbox(&env, &m, tisn);
	PRM_SET(create_sq_in, m.in, uid, other);
	fwt_exec(fw, &m);
	ck_assert_uint_ne(emu_fw_out_status(m.out), MLX5_CMD_STAT_OK);
}
END_TEST

START_TEST(tis_used_by_sq)
{
	uint32_t tisn = etht_tis(&env);
	uint32_t sqn = etht_sq(&env, tisn);

	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_TIS, env.q.uid, tisn,
			   TIS_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_SQ, env.q.uid,
				      sqn), MLX5_CMD_STAT_OK);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_TIS, env.q.uid,
				      tisn), MLX5_CMD_STAT_OK);
}
END_TEST

static void two_tises(struct emu_fw_caps *caps)
{
	PRM_SET(cmd_hca_cap, emu_fw_caps_page_mut(caps, MLX5_CAP_GENERAL),
		log_max_tis, 1);
}

START_TEST(tis_limit)
{
	struct emu_fw *f = fwt_create(two_tises);
	uint32_t td = fwt_alloc(f, 0, ALLOC_TRANSPORT_DOMAIN,
				alloc_transport_domain, transport_domain);
	struct fwt_mbox m;

	for (int i = 0; i < 3; i++) {
		fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_TIS, 0, 0,
			      PRM_ST_SZ_BYTES(create_tis_in),
			      PRM_ST_SZ_BYTES(create_tis_out));
		PRM_SET(tisc, ETHT_TISC(&m), transport_domain, td);
		fwt_exec(f, &m);
		if (i < 2)
			ck_fw_ok(&m);
		else
			ck_fw_synd(&m, TIS_LIMIT);
	}
	/* The refused one dropped its use of the domain. */
	ck_assert_uint_eq(fwt_destroy(f, MLX5_CMD_OP_DESTROY_TIS, 0, 1),
			  MLX5_CMD_STAT_OK);
	ck_assert_uint_eq(fwt_destroy(f, MLX5_CMD_OP_DESTROY_TIS, 0, 2),
			  MLX5_CMD_STAT_OK);
	ck_assert_uint_eq(fwt_destroy(f, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
				      0, td), MLX5_CMD_STAT_OK);
	emu_fw_destroy(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_eth_tis");
	TCase *tc = tcase_create("tis");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tis_lifecycle);
	tcase_add_test(tc, tis_refusals);
	tcase_add_test(tc, tis_kernel_td);
	tcase_add_test(tc, tis_modify_fields);
	tcase_add_test(tc, tis_uid);
	tcase_add_test(tc, tis_used_by_sq);
	tcase_add_test(tc, tis_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? 1 : 0;
}
