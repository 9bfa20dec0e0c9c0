/* SPDX-License-Identifier: MIT */
/*
 * The NIC steering lookup with hand-built match parameters: exact MAC,
 * masked IPv4 prefix, L4 port, group order, miss chains, drop, allow,
 * counters, flow tags, value bits outside the criteria, no root.
 */
#include <errno.h>

#include "test_fw_steer_util.h"
#include "ut_run.h"

static struct emu_fw *fw;
static uint32_t root, cnt;

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };

static void setup(void)
{
	fw = fwt_create(NULL);
	root = fts_rx_root(fw, 4);
	cnt = fwt_alloc(fw, 0, ALLOC_FLOW_COUNTER, alloc_flow_counter,
			flow_counter_id);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

static struct emu_fw_steer_res lookup(unsigned int type, const void *pkt,
				      uint32_t bytes)
{
	struct emu_fw_steer_res r;

	memset(&r, 0xee, sizeof(r));
	emu_fw_rcu_lock();
	ck_assert_int_eq(emu_fw_steer_lookup(fw, 0, type, pkt, bytes, &r), 0);
	emu_fw_rcu_unlock();
	return r;
}

static void ck_tir(const struct emu_fw_steer_res *r, uint32_t tirn)
{
	ck_assert_uint_eq(r->action, EMU_FW_STEER_FWD);
	ck_assert_uint_eq(r->n_dest, 1);
	ck_assert_uint_eq(r->dest[0].type, MLX5_IFC_FLOW_DESTINATION_TYPE_TIR);
	ck_assert_uint_eq(r->dest[0].id, tirn);
}

static const struct fts_fte *to_tir(struct fts_fte *e, uint32_t tirn,
				    const void *value)
{
	*e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
			       .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR,
			       .dest_id = tirn, .value = value };
	return e;
}

START_TEST(no_root)
{
	uint8_t pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fwt_mbox m;

	/* TX has no root: nothing matches (the frame leaves) */
	r = lookup(TX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	ck_assert_uint_eq(r.n_dest, 0);
	/* the RX root is empty: the default miss */
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	fts_root_m(fw, &m, 0, 1, RX, 0);
	ck_fw_ok(&m);
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	/* other vports and types are not the engine's to ask */
	emu_fw_rcu_lock();
	ck_assert_int_eq(emu_fw_steer_lookup(fw, 1, RX, pkt, 60, &r), -EINVAL);
	ck_assert_int_eq(emu_fw_steer_lookup(fw, 0, 4, pkt, 60, &r), -EINVAL);
	emu_fw_rcu_unlock();
}
END_TEST

START_TEST(exact_mac)
{
	uint8_t crit[0x200] = { 0 }, va[0x200] = { 0 }, pkt[0x200] = { 0 };
	static const uint8_t ones[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct emu_fw_steer_res r;
	struct fts_fte e;
	uint32_t g;

	fts_set_dmac(crit, ones);
	/* dmac: bits 0x40..0x6f of the outer headers, bytes 8..13 */
	ck_assert_uint_eq(crit[8], 0xff);
	ck_assert_uint_eq(crit[13], 0xff);
	ck_assert_uint_eq(crit[14], 0);
	fts_set_dmac(va, mac_a);
	g = fts_fg(fw, 0, RX, root, 0, 3, MLX5_MATCH_OUTER_HEADERS, crit);
	fts_fte(fw, 0, RX, root, g, 2, to_tir(&e, 0x41, va));

	memcpy(pkt + 8, mac_a, 6);
	pkt[0] = 0x55;		/* smac: not in the criteria */
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 0x41);
	ck_assert_uint_eq(r.flow_tag, 0);
	memcpy(pkt + 8, mac_b, 6);
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	ck_assert_uint_eq(r.n_dest, 0);
}
END_TEST

START_TEST(ipv4_prefix_and_port)
{
	uint8_t crit[0x200] = { 0 }, v1[0x200] = { 0 }, v2[0x200] = { 0 };
	uint8_t pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fts_fte e;
	uint32_t g1, g2;

	/* group 1: dst 10.1.0.0/16; group 2: UDP dport 4791 */
	PRM_SET(fte_match_param, crit,
		outer_headers.dst_ipv4_dst_ipv6.ipv4_layout.ipv4, 0xffff0000);
	g1 = fts_fg(fw, 0, RX, root, 0, 0, MLX5_MATCH_OUTER_HEADERS, crit);
	PRM_SET(fte_match_param, v1,
		outer_headers.dst_ipv4_dst_ipv6.ipv4_layout.ipv4, 0x0a010000);
	fts_fte(fw, 0, RX, root, g1, 0, to_tir(&e, 1, v1));
	memset(crit, 0, sizeof(crit));
	PRM_SET(fte_match_param, crit, outer_headers.udp_dport, 0xffff);
	g2 = fts_fg(fw, 0, RX, root, 1, 1, MLX5_MATCH_OUTER_HEADERS, crit);
	PRM_SET(fte_match_param, v2, outer_headers.udp_dport, 4791);
	fts_fte(fw, 0, RX, root, g2, 1, to_tir(&e, 2, v2));

	/* dst ip: outer headers bits 0x180..0x1ff, the IPv4 in bytes
	 * 0x3c..0x3f; udp_dport bits 0xf0..0xff, bytes 0x1e..0x1f */
	pkt[0x3c] = 10; pkt[0x3d] = 1; pkt[0x3e] = 200; pkt[0x3f] = 7;
	r = lookup(RX, pkt, 100);
	ck_tir(&r, 1);
	pkt[0x3d] = 2;		/* 10.2.200.7: not in the prefix */
	r = lookup(RX, pkt, 100);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	pkt[0x1e] = 4791 >> 8; pkt[0x1f] = 4791 & 0xff;
	r = lookup(RX, pkt, 100);
	ck_tir(&r, 2);
	/* both match: the group of the lower flow indexes wins */
	pkt[0x3d] = 1;
	r = lookup(RX, pkt, 100);
	ck_tir(&r, 1);
}
END_TEST

START_TEST(group_order_not_creation_order)
{
	uint8_t pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fts_fte e;
	uint32_t hi, lo;

	/* created first but at higher indexes: a catch-all */
	hi = fts_fg(fw, 0, RX, root, 8, 15, 0, NULL);
	fts_fte(fw, 0, RX, root, hi, 15, to_tir(&e, 0x15, NULL));
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 0x15);
	lo = fts_fg(fw, 0, RX, root, 0, 7, 0, NULL);
	fts_fte(fw, 0, RX, root, lo, 3, to_tir(&e, 0x3, NULL));
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 0x3);
}
END_TEST

START_TEST(miss_chain_drop_allow_tag)
{
	uint8_t crit[0x200] = { 0 }, vudp[0x200] = { 0 }, pkt[0x200] = { 0 };
	uint32_t l2 = fts_ft(fw, 0, RX, 2, 1, 0);
	uint32_t l1 = fts_ft(fw, 0, RX, 1, 1, l2);
	uint32_t g0, g1, g2;
	struct emu_fw_steer_res r;
	struct fts_fte e;
	struct fwt_mbox m;

	/* root: UDP frames go to l1 with tag 5, the rest miss (default) */
	PRM_SET(fte_match_param, crit, outer_headers.ip_protocol, 0xff);
	PRM_SET(fte_match_param, vudp, outer_headers.ip_protocol, 17);
	g0 = fts_fg(fw, 0, RX, root, 0, 0, MLX5_MATCH_OUTER_HEADERS, crit);
	e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
			      .flow_tag = 5, .value = vudp,
			      .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE,
			      .dest_id = l1 };
	fts_fte(fw, 0, RX, root, g0, 0, &e);
	/* l1: allow (no destination: on to its miss, l2); l2: TIR 9 */
	g1 = fts_fg(fw, 0, RX, l1, 0, 1, 0, NULL);
	e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_ALLOW,
			      .dest_type = -1 };
	fts_fte(fw, 0, RX, l1, g1, 0, &e);
	g2 = fts_fg(fw, 0, RX, l2, 0, 1, 0, NULL);
	fts_fte(fw, 0, RX, l2, g2, 1, to_tir(&e, 9, NULL));

	pkt[0x10] = 17;		/* ip_protocol: bits 0x80..0x87 */
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 9);
	ck_assert_uint_eq(r.flow_tag, 5);
	pkt[0x10] = 6;
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
	ck_assert_uint_eq(r.flow_tag, 0);

	/* l2 drops instead (modify the action and the list) */
	e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_DROP,
			      .dest_type = -1 };
	fts_fte_m(fw, &m, 0, 1,
		  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION |
		  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST,
		  RX, l2, g2, 1, &e);
	ck_fw_ok(&m);
	pkt[0x10] = 17;
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_DROP);
	ck_assert_uint_eq(r.flow_tag, 5);
	/* with l2's entry gone, l1's allow ends in l2's default miss */
	fts_fte_del_m(fw, &m, 0, RX, l2, 1);
	ck_fw_ok(&m);
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_ALLOW);
	ck_assert_uint_eq(r.n_dest, 0);
}
END_TEST

START_TEST(counters)
{
	uint8_t pkt[0x200] = { 0 };
	struct fts_fte e = {
		.action = MLX5_FLOW_CONTEXT_ACTION_DROP |
			  MLX5_FLOW_CONTEXT_ACTION_COUNT,
		.dest_type = -1,
	};
	struct fwt_mbox m;
	const void *st;
	uint32_t g = fts_fg(fw, 0, RX, root, 0, 0, 0, NULL);

	e.counter = cnt;
	fts_fte(fw, 0, RX, root, g, 0, &e);
	lookup(RX, pkt, 60);
	lookup(RX, pkt, 1514);
	lookup(RX, pkt, 64);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_FLOW_COUNTER, 0, 0,
		      PRM_ST_SZ_BYTES(query_flow_counter_in),
		      PRM_ST_SZ_BYTES(query_flow_counter_out) +
		      PRM_ST_SZ_BYTES(traffic_counter));
	PRM_SET(query_flow_counter_in, m.in, flow_counter_id, cnt);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	st = PRM_ARRAY_ADDR(query_flow_counter_out, m.out, flow_statistics, 0);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, packets), 3);
	ck_assert_uint_eq(PRM_GET64(traffic_counter, st, octets),
			  60 + 1514 + 64);
}
END_TEST

START_TEST(value_outside_criteria_ignored)
{
	uint8_t crit[0x200] = { 0 }, val[0x200] = { 0 }, pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fts_fte e;
	uint32_t g;

	PRM_SET(fte_match_param, crit, outer_headers.ethertype, 0xffff);
	PRM_SET(fte_match_param, val, outer_headers.ethertype, 0x86dd);
	/* a value bit the criteria do not cover: the udp port */
	PRM_SET(fte_match_param, val, outer_headers.udp_dport, 53);
	g = fts_fg(fw, 0, RX, root, 0, 0, MLX5_MATCH_OUTER_HEADERS, crit);
	fts_fte(fw, 0, RX, root, g, 0, to_tir(&e, 4, val));
	pkt[6] = 0x86;
	pkt[7] = 0xdd;
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 4);
}
END_TEST

START_TEST(tx_table)
{
	uint32_t t = fts_ft(fw, 0, TX, 0, 0, 0);
	uint32_t g = fts_fg(fw, 0, TX, t, 0, 0, 0, NULL);
	struct fts_fte e = { .action = MLX5_FLOW_CONTEXT_ACTION_DROP,
			     .dest_type = -1 };
	uint8_t pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fwt_mbox m;

	fts_fte(fw, 0, TX, t, g, 0, &e);
	r = lookup(TX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);	/* not the root */
	fts_root_m(fw, &m, 0, 0, TX, t);
	ck_fw_ok(&m);
	r = lookup(TX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_DROP);
	/* RX is unaffected */
	r = lookup(RX, pkt, 60);
	ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
}
END_TEST

/* Many entries of one group (its hash index), collisions in small
 * buckets, deletes from the middle of a chain, equal masked values. */
START_TEST(group_index)
{
	uint8_t crit[0x200] = { 0 }, pkt[0x200] = { 0 };
	struct emu_fw_steer_res r;
	struct fwt_mbox m;
	struct fts_fte e;
	uint32_t g, gs;

	PRM_SET(fte_match_param, crit, outer_headers.udp_dport, 0xffff);
	g = fts_fg(fw, 0, RX, root, 0, 11, MLX5_MATCH_OUTER_HEADERS, crit);
	for (uint32_t i = 0; i < 12; i++) {
		uint8_t v[0x200] = { 0 };

		PRM_SET(fte_match_param, v, outer_headers.udp_dport, 1000 + i);
		fts_fte(fw, 0, RX, root, g, i, to_tir(&e, 0x100 + i, v));
	}
	for (uint32_t i = 0; i < 12; i++) {
		pkt[0x1e] = (uint8_t)((1000 + i) >> 8);
		pkt[0x1f] = (uint8_t)(1000 + i);
		r = lookup(RX, pkt, 60);
		ck_tir(&r, 0x100 + i);
	}
	for (uint32_t i = 1; i < 12; i += 2) {
		fts_fte_del_m(fw, &m, 0, RX, root, i);
		ck_fw_ok(&m);
	}
	for (uint32_t i = 0; i < 12; i++) {
		pkt[0x1e] = (uint8_t)((1000 + i) >> 8);
		pkt[0x1f] = (uint8_t)(1000 + i);
		r = lookup(RX, pkt, 60);
		if (i & 1)
			ck_assert_uint_eq(r.action, EMU_FW_STEER_NONE);
		else
			ck_tir(&r, 0x100 + i);
	}

	/* a small group (2 buckets): values equal under its mask at 13 and
	 * 12; the lower flow index wins, then the other once it goes */
	memset(crit, 0, sizeof(crit));
	PRM_SET(fte_match_param, crit, outer_headers.ip_protocol, 0xff);
	gs = fts_fg(fw, 0, RX, root, 12, 13, MLX5_MATCH_OUTER_HEADERS, crit);
	{
		uint8_t v13[0x200] = { 0 }, v12[0x200] = { 0 };

		PRM_SET(fte_match_param, v13, outer_headers.ip_protocol, 6);
		PRM_SET(fte_match_param, v12, outer_headers.ip_protocol, 6);
		PRM_SET(fte_match_param, v12, outer_headers.ttl_hoplimit, 9);
		fts_fte(fw, 0, RX, root, gs, 13, to_tir(&e, 13, v13));
		fts_fte(fw, 0, RX, root, gs, 12, to_tir(&e, 12, v12));
	}
	memset(pkt, 0, sizeof(pkt));
	pkt[0x10] = 6;
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 12);
	fts_fte_del_m(fw, &m, 0, RX, root, 12);
	ck_fw_ok(&m);
	r = lookup(RX, pkt, 60);
	ck_tir(&r, 13);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_steer_lookup");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_root);
	tcase_add_test(tc, exact_mac);
	tcase_add_test(tc, ipv4_prefix_and_port);
	tcase_add_test(tc, group_order_not_creation_order);
	tcase_add_test(tc, miss_chain_drop_allow_tag);
	tcase_add_test(tc, counters);
	tcase_add_test(tc, value_outside_criteria_ignored);
	tcase_add_test(tc, tx_table);
	tcase_add_test(tc, group_index);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
