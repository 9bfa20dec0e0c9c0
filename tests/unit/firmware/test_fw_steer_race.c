/* SPDX-License-Identifier: MIT */
/*
 * Lookups racing the commands that change what they read: an engine-like
 * thread steers frames while the test thread sets, modifies and deletes
 * entries, creates and destroys groups and a forward target, and swaps
 * the root.  Every result must be one the tables could give; ASan and
 * TSan watch the memory (entries and group lists freed after a grace
 * period).
 */
#include <pthread.h>

#include "test_fw_steer_util.h"
#include "ut_run.h"

#define ROUNDS 2000

static struct emu_fw *fw;
static atomic_bool stop;
static atomic_ulong steered, bad;

static void *engine(void *arg)
{
	uint8_t pkt[0x200] = { 0 };

	(void)arg;
	pkt[0x10] = 17;		/* ip_protocol UDP */
	while (!atomic_load(&stop)) {
		struct emu_fw_steer_res r = { 0 };

		emu_fw_rcu_lock();
		if (emu_fw_steer_lookup(fw, 0, RX, pkt, 100, &r))
			atomic_fetch_add(&bad, 1);
		emu_fw_rcu_unlock();
		switch (r.action) {
		case EMU_FW_STEER_NONE:
		case EMU_FW_STEER_DROP:
			break;
		case EMU_FW_STEER_FWD:
			if (r.n_dest != 1 || (r.dest[0].id != 1 &&
					      r.dest[0].id != 2)) {
				atomic_fetch_add(&bad, 1);
			}
			break;
		default:
			atomic_fetch_add(&bad, 1);
		}
		atomic_fetch_add(&steered, 1);
	}
	return NULL;
}

START_TEST(lookup_vs_commands)
{
	uint8_t crit[0x200] = { 0 }, val[0x200] = { 0 };
	uint32_t root, cnt;
	struct fwt_mbox m;
	pthread_t th;

	fw = fwt_create(NULL);
	root = fts_rx_root(fw, 3);
	cnt = fwt_alloc(fw, 0, ALLOC_FLOW_COUNTER, alloc_flow_counter,
			flow_counter_id);
	PRM_SET(fte_match_param, crit, outer_headers.ip_protocol, 0xff);
	PRM_SET(fte_match_param, val, outer_headers.ip_protocol, 17);
	atomic_store(&stop, false);
	ck_assert_int_eq(pthread_create(&th, NULL, engine, NULL), 0);

	for (int i = 0; i < ROUNDS; i++) {
		uint32_t next = fts_ft(fw, 0, RX, 1, 0, 0);
		uint32_t gn = fts_fg(fw, 0, RX, next, 0, 0, 0, NULL);
		uint32_t g = fts_fg(fw, 0, RX, root, 0, 3,
				    MLX5_MATCH_OUTER_HEADERS, crit);
		struct fts_fte e = {
			.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST |
				  MLX5_FLOW_CONTEXT_ACTION_COUNT,
			.dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR,
			.dest_id = 1, .counter = cnt, .value = val,
		};

		fts_fte(fw, 0, RX, root, g, (uint32_t)i & 3, &e);
		e.dest_id = 2;
		fts_fte_m(fw, &m, 0, 1,
			  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST,
			  RX, root, g, (uint32_t)i & 3, &e);
		ck_fw_ok(&m);
		/* through a forward to a deeper table */
		e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				      .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_TIR,
				      .dest_id = 1 };
		fts_fte(fw, 0, RX, next, gn, 0, &e);
		e = (struct fts_fte){ .action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
				      .dest_type = MLX5_IFC_FLOW_DESTINATION_TYPE_FLOW_TABLE,
				      .dest_id = next, .value = val };
		fts_fte_m(fw, &m, 0, 1,
			  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_DESTINATION_LIST |
			  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_FLOW_COUNTERS |
			  1 << MLX5_SET_FTE_MODIFY_ENABLE_MASK_ACTION,
			  RX, root, g, (uint32_t)i & 3, &e);
		ck_fw_ok(&m);
		fts_fte_del_m(fw, &m, 0, RX, root, (uint32_t)i & 3);
		ck_fw_ok(&m);
		fts_fte_del_m(fw, &m, 0, RX, next, 0);
		ck_fw_ok(&m);
		fts_fg_destroy_m(fw, &m, 0, RX, next, gn);
		ck_fw_ok(&m);
		fts_ft_destroy_m(fw, &m, 0, RX, next);
		ck_fw_ok(&m);
		fts_fg_destroy_m(fw, &m, 0, RX, root, g);
		ck_fw_ok(&m);
		if (i % 64 == 0) {
			fts_root_m(fw, &m, 0, 1, RX, 0);
			ck_fw_ok(&m);
			fts_root_m(fw, &m, 0, 0, RX, root);
			ck_fw_ok(&m);
		}
	}
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	ck_assert_uint_eq(atomic_load(&bad), 0);
	ck_assert_uint_gt(atomic_load(&steered), 0);
	emu_fw_destroy(fw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_steer_race");
	TCase *tc = tcase_create("race");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, lookup_vs_commands);
	suite_add_tcase(s, tc);
	return ut_run(s) ? 1 : 0;
}
