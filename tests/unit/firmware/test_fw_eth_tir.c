/* SPDX-License-Identifier: MIT */
/*
 * TIRs: CREATE/MODIFY/QUERY/DESTROY_TIR -- direct and indirect, the hash
 * the engine gets, every refusal with its syndrome, MODIFY_TIR's bitmask,
 * the uses a TIR holds (RQ or RQT, transport domain).
 */
#include "test_fw_eth_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static struct etht_env env;
static uint32_t rqn, rqtn;

static void setup(void)
{
	uint32_t rqs[2];

	etht_init(&fw, &env);
	rqn = etht_rq(&env);
	rqs[0] = etht_rq(&env);
	rqs[1] = etht_rq(&env);
	rqtn = etht_rqt(&env, 2, rqs, 2);
}

static void teardown(void)
{
	etht_fini(&fw, &env);
}

#define ck_dtir_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_tir_direct_mbox(&env, &m_, rqn), c,	\
		      ETHT_TIRC(&m_), stmt, ID)
#define ck_itir_synd(stmt, ID)						\
	ck_fw_variant(fw, etht_tir_indirect_mbox(&env, &m_, rqtn), c,	\
		      ETHT_TIRC(&m_), stmt, ID)
#define OUTER(c) PRM_ADDR_OF(tirc, (c), rx_hash_field_selector_outer)
#define INNER(c) PRM_ADDR_OF(tirc, (c), rx_hash_field_selector_inner)
#define Q_TIRC(m) PRM_ADDR_OF(query_tir_out, (m)->out, tir_context)

static void tir_query(uint32_t tirn, struct fwt_mbox *m)
{
	etht_id_cmd(&env, m, MLX5_CMD_OP_QUERY_TIR, tirn,
		    PRM_ST_SZ_BYTES(query_tir_out));
	ck_fw_ok(m);
}

START_TEST(tir_direct)
{
	struct emu_fw_tir *tir;
	struct fwt_mbox c, m;
	uint32_t tirn;

	etht_tir_direct_mbox(&env, &c, rqn);
	PRM_SET(tirc, ETHT_TIRC(&c), tunneled_offload_en, 1);
	tirn = etht_create(&env, &c);
	tir = emu_fw_to_tir(etht_get(&env, EMU_FW_OBJ_TIR, tirn));
	ck_assert_uint_eq(tir->disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	ck_assert_uint_eq(tir->rq->obj.id, rqn);
	ck_assert_ptr_null(tir->rqt);
	ck_assert_ptr_null(atomic_load(&tir->hash));
	ck_assert_uint_eq(tir->td->obj.id, env.td);
	ck_assert(tir->tunneled_offload_en);
	ck_assert_uint_eq(atomic_load(&tir->self_lb_block),
			  MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST);
	emu_fw_obj_put(&tir->obj);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rqn), 1);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TD, env.td), 1);
	tir_query(tirn, &m);
	ck_assert_mem_eq(Q_TIRC(&m), ETHT_TIRC(&c), PRM_ST_SZ_BYTES(tirc));
	/* inline_rqn: tirc bytes 0x1d..0x1f. */
	ck_assert_uint_eq(((const uint8_t *)Q_TIRC(&m))[0x1f], rqn & 0xff);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN,
			   env.q.uid, env.td, TD_IN_USE);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_TIR, env.q.uid,
				      tirn), MLX5_CMD_STAT_OK);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rqn), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TD, env.td), 0);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_TIR, env.q.uid, tirn,
			   TIR_INVALID);
}
END_TEST

/* Transport domain 0: none, and no use of a domain. */
START_TEST(tir_without_td)
{
	struct emu_fw_tir *tir;
	struct fwt_mbox c;
	uint32_t tirn;

	etht_tir_direct_mbox(&env, &c, rqn);
	PRM_SET(tirc, ETHT_TIRC(&c), transport_domain, 0);
	tirn = etht_create(&env, &c);
	tir = emu_fw_to_tir(etht_get(&env, EMU_FW_OBJ_TIR, tirn));
	ck_assert_ptr_null(tir->td);
	emu_fw_obj_put(&tir->obj);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TD, env.td), 0);
	ck_assert_uint_eq(fwt_destroy(fw, MLX5_CMD_OP_DESTROY_TIR, env.q.uid,
				      tirn), MLX5_CMD_STAT_OK);
}
END_TEST

START_TEST(tir_indirect)
{
	struct emu_fw_tir_hash *h;
	struct emu_fw_tir *tir;
	struct fwt_mbox c, m;
	uint32_t tirn;

	etht_tir_indirect_mbox(&env, &c, rqtn);
	PRM_SET(tirc, ETHT_TIRC(&c), rx_hash_symmetric, 1);
	PRM_SET(rx_hash_field_select, INNER(ETHT_TIRC(&c)), l3_prot_type,
		MLX5_L3_PROT_TYPE_IPV6);
	PRM_SET(rx_hash_field_select, INNER(ETHT_TIRC(&c)), l4_prot_type,
		MLX5_L4_PROT_TYPE_UDP);
	PRM_SET(rx_hash_field_select, INNER(ETHT_TIRC(&c)), selected_fields,
		MLX5_HASH_FIELD_SEL_IPSEC_SPI);
	tirn = etht_create(&env, &c);
	tir = emu_fw_to_tir(etht_get(&env, EMU_FW_OBJ_TIR, tirn));
	ck_assert_uint_eq(tir->disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	ck_assert_uint_eq(tir->rqt->obj.id, rqtn);
	ck_assert_ptr_null(tir->rq);
	h = atomic_load(&tir->hash);
	ck_assert_uint_eq(h->fn, MLX5_RX_HASH_FN_TOEPLITZ);
	ck_assert(h->symmetric);
	for (int i = 0; i < 40; i++)
		ck_assert_uint_eq(h->key[i], i);
	ck_assert_uint_eq(h->outer.l3_prot_type, MLX5_L3_PROT_TYPE_IPV4);
	ck_assert_uint_eq(h->outer.l4_prot_type, MLX5_L4_PROT_TYPE_TCP);
	ck_assert_uint_eq(h->outer.selected_fields, 0xf);
	ck_assert_uint_eq(h->inner.l3_prot_type, MLX5_L3_PROT_TYPE_IPV6);
	ck_assert_uint_eq(h->inner.l4_prot_type, MLX5_L4_PROT_TYPE_UDP);
	ck_assert_uint_eq(h->inner.selected_fields, 0x10);
	emu_fw_obj_put(&tir->obj);
	ck_fw_destroy_synd(fw, MLX5_CMD_OP_DESTROY_RQT, env.q.uid, rqtn,
			   RQT_IN_USE);
	tir_query(tirn, &m);
	ck_assert_mem_eq(Q_TIRC(&m), ETHT_TIRC(&c), PRM_ST_SZ_BYTES(tirc));
	/* The key at tirc byte 0x28, the outer selector at 0x50: l3 bit 31,
	 * l4 bit 30, fields below. */
	ck_assert_uint_eq(((const uint8_t *)Q_TIRC(&m))[0x28 + 39], 39);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)((const uint8_t *)
			  Q_TIRC(&m) + 0x50)), 0x0000000f);
	ck_assert_uint_eq(be32toh(*(const uint32_t *)((const uint8_t *)
			  Q_TIRC(&m) + 0x54)), 0xc0000010);
	/* XOR8 is as good as Toeplitz. */
	etht_tir_indirect_mbox(&env, &c, rqtn);
	PRM_SET(tirc, ETHT_TIRC(&c), rx_hash_fn, MLX5_RX_HASH_FN_INVERTED_XOR8);
	etht_create(&env, &c);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQT, rqtn), 2);
}
END_TEST

START_TEST(tir_refusals)
{
	uint16_t other = fwt_uctx(fw);
	struct fwt_mbox m;

	ck_dtir_synd(PRM_SET(tirc, c, disp_type, 2), TIR_BAD_DISP_TYPE);
	ck_dtir_synd(PRM_SET(tirc, c, inline_rqn, 0), TIR_BAD_RQN);
	ck_dtir_synd(PRM_SET(tirc, c, inline_rqn, rqn + 100), TIR_BAD_RQN);
	ck_dtir_synd(PRM_SET(tirc, c, transport_domain, env.td + 1),
		     TIR_BAD_TD);
	/* LRO and TLS are not advertised. */
	ck_dtir_synd(PRM_SET(tirc, c, packet_merge_mask,
			     MLX5_TIRC_PACKET_MERGE_MASK_IPV4_LRO),
		     TIR_FEATURE_NOT_SUPPORTED);
	ck_dtir_synd(PRM_SET(tirc, c, tls_en, 1), TIR_FEATURE_NOT_SUPPORTED);
	ck_itir_synd(PRM_SET(tirc, c, indirect_table, rqtn + 5), TIR_BAD_RQT);
	ck_itir_synd(PRM_SET(tirc, c, indirect_table, 0), TIR_BAD_RQT);
	ck_itir_synd(PRM_SET(tirc, c, rx_hash_fn, MLX5_RX_HASH_FN_NONE),
		     TIR_BAD_HASH);
	ck_itir_synd(PRM_SET(tirc, c, rx_hash_fn, 3), TIR_BAD_HASH);
	ck_itir_synd(PRM_SET(rx_hash_field_select, OUTER(c), selected_fields,
			     0x20), TIR_BAD_HASH);
	ck_itir_synd(PRM_SET(rx_hash_field_select, INNER(c), selected_fields,
			     0x1f | 0x100), TIR_BAD_HASH);
	ck_assert_uint_eq(emu_fw_obj_count(fw, EMU_FW_OBJ_TIR), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQ, rqn), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_RQT, rqtn), 0);
	ck_assert_int_eq(etht_users(&env, EMU_FW_OBJ_TD, env.td), 0);
	/* Another uid's RQ (the kernel's TD would do). */
	etht_tir_direct_mbox(&env, &m, rqn);
	PRM_SET(create_tir_in, m.in, uid, other);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_BAD_RQN);
}
END_TEST

/* MODIFY_TIR inbox: bitmask bits 0x3b self_lb_en, 0x3d hash, 0x3f
 * packet_merge. */
static void tir_modify_mbox(uint32_t tirn, struct fwt_mbox *m, bool lb,
			    bool hash, bool merge)
{
	void *bm;

	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_TIR, 0, env.q.uid,
		      PRM_ST_SZ_BYTES(modify_tir_in),
		      PRM_ST_SZ_BYTES(modify_tir_out));
	PRM_SET(modify_tir_in, m->in, tirn, tirn);
	bm = PRM_ADDR_OF(modify_tir_in, m->in, bitmask);
	PRM_SET(modify_tir_bitmask, bm, self_lb_en, lb);
	PRM_SET(modify_tir_bitmask, bm, hash, hash);
	PRM_SET(modify_tir_bitmask, bm, packet_merge, merge);
}

START_TEST(tir_modify)
{
	struct fwt_mbox c, m;
	struct emu_fw_tir_hash *h0, *h1;
	struct emu_fw_tir *tir;
	uint32_t tirn, dtirn;
	uint8_t *key, *bm;
	void *mc;

	etht_tir_indirect_mbox(&env, &c, rqtn);
	tirn = etht_create(&env, &c);
	tir = emu_fw_to_tir(etht_get(&env, EMU_FW_OBJ_TIR, tirn));
	h0 = atomic_load(&tir->hash);

	/* self_lb_en: both bits. */
	tir_modify_mbox(tirn, &m, true, false, false);
	PRM_SET(tirc, PRM_ADDR_OF(modify_tir_in, m.in, ctx), self_lb_block,
		MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST |
		MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(atomic_load(&tir->self_lb_block), 3);
	ck_assert_ptr_eq(atomic_load(&tir->hash), h0);

	/* hash: a new function, key and selector, published whole. */
	tir_modify_mbox(tirn, &m, false, true, false);
	mc = PRM_ADDR_OF(modify_tir_in, m.in, ctx);
	PRM_SET(tirc, mc, rx_hash_fn, MLX5_RX_HASH_FN_INVERTED_XOR8);
	key = PRM_ADDR_OF(tirc, mc, rx_hash_toeplitz_key);
	memset(key, 0xa5, 40);
	PRM_SET(rx_hash_field_select, OUTER(mc), selected_fields,
		MLX5_HASH_FIELD_SEL_SRC_IP);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	h1 = atomic_load(&tir->hash);
	ck_assert_ptr_ne(h1, h0);
	ck_assert_uint_eq(h1->fn, MLX5_RX_HASH_FN_INVERTED_XOR8);
	ck_assert_uint_eq(h1->key[17], 0xa5);
	ck_assert_uint_eq(h1->outer.selected_fields, 1);
	tir_query(tirn, &m);
	ck_assert_uint_eq(PRM_GET(tirc, Q_TIRC(&m), rx_hash_fn),
			  MLX5_RX_HASH_FN_INVERTED_XOR8);
	ck_assert_uint_eq(((const uint8_t *)Q_TIRC(&m))[0x28], 0xa5);
	ck_assert_uint_eq(PRM_GET(tirc, Q_TIRC(&m), self_lb_block), 3);
	/* The RQT is still the one created with. */
	ck_assert_uint_eq(PRM_GET(tirc, Q_TIRC(&m), indirect_table), rqtn);

	/* A bad hash changes nothing. */
	tir_modify_mbox(tirn, &m, true, true, false);
	PRM_SET(tirc, PRM_ADDR_OF(modify_tir_in, m.in, ctx), rx_hash_fn,
		MLX5_RX_HASH_FN_NONE);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_BAD_HASH);
	ck_assert_ptr_eq(atomic_load(&tir->hash), h1);
	ck_assert_uint_eq(atomic_load(&tir->self_lb_block), 3);
	/* LRO is not advertised; other bits are not modifiable. */
	tir_modify_mbox(tirn, &m, false, false, true);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_FEATURE_NOT_SUPPORTED);
	tir_modify_mbox(tirn, &m, false, false, false);
	bm = PRM_ADDR_OF(modify_tir_in, m.in, bitmask);
	bm[7] = 0x08;	/* bit 0x3c */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_BAD_BITMASK);
	emu_fw_obj_put(&tir->obj);

	/* A direct TIR has no hash to modify. */
	etht_tir_direct_mbox(&env, &c, rqn);
	dtirn = etht_create(&env, &c);
	tir_modify_mbox(dtirn, &m, false, true, false);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_BAD_BITMASK);
	tir_modify_mbox(dtirn + 100, &m, true, false, false);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, TIR_INVALID);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_eth_tir");
	TCase *tc = tcase_create("tir");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tir_direct);
	tcase_add_test(tc, tir_without_td);
	tcase_add_test(tc, tir_indirect);
	tcase_add_test(tc, tir_refusals);
	tcase_add_test(tc, tir_modify);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(suite()) ? 1 : 0;
}
