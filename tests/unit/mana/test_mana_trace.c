/* SPDX-License-Identifier: MIT */
/*
 * The WQE/CQE records of a MANA device in the trace (trace.datapath, JSON):
 * a program sends two frames as DPDK's PMD does (mana_rig.h), a rule fails
 * the second, port 2 receives the first.  Every line must parse as JSON;
 * the records name the device mana_0 and carry the fields by their Linux
 * gdma.h/mana.h names with the values the program wrote or read.
 */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mana_pmd.h"
#include "mana_rig.h"
#include "mlx5emu/mlx5emu.h"
#include "ut_run.h"

static char trace_file[64];

static int64_t num(struct json_object *o, const char *key)
{
	struct json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s",
		      key, json_object_to_json_string(o));
	return json_object_get_int64(v);
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s",
		      key, json_object_to_json_string(o));
	return json_object_get_string(v);
}

START_TEST(records_name_their_fields)
{
	struct rig r;
	char text[128], line[4096];
	struct json_object *rec[16];
	int n = 0, events = 0;
	uint32_t lkey;
	FILE *f;

	rig_open(&r, true);
	snprintf(text, sizeof(text), "cqe_error dev=mana_0 qp=%u nth=2 "
		 "vendor_syndrome=0x777", r.dq.sq_id);
	ck_assert_int_gt(mlx5emu_fault_add(text), 0);
	rig_post(&r, 0, 2);
	rig_ring_sq(&r);
	ck_assert(mp_cqe_wait(r.dtc.buf, r.dtc.count, 1) != NULL);
	ck_assert(rig_rx_cqe(&r, 5000) != NULL);
	lkey = r.mr->lkey;
	rig_close(&r);
	mlx5emu_fault_clear();

	f = fopen(trace_file, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		struct json_object *o = json_tokener_parse(line);
		struct json_object *v;

		ck_assert_msg(o != NULL, "not JSON: %s", line);
		if (json_object_object_get_ex(o, "event", &v) ||
		    json_object_object_get_ex(o, "action", &v)) {
			/* named by the work queue the rule failed */
			if (!strcmp(str(o, "dev"), "mana_0") &&
			    num(o, "wq_id") == r.dq.sq_id)
				events++;
			json_object_put(o);
			continue;
		}
		if ((json_object_object_get_ex(o, "wqe", &v) ||
		     json_object_object_get_ex(o, "cqe", &v)) && n < 16) {
			ck_assert_str_eq(str(o, "dev"), "mana_0");
			rec[n++] = o;
			continue;
		}
		json_object_put(o);
	}
	fclose(f);
	/* in order: the two send WQEs with their CQEs, the receive */
	ck_assert_int_eq(n, 6);
	for (int i = 0; i < 2; i++) {
		struct json_object *w = rec[2 * i], *c = rec[2 * i + 1], *sge, *s0;

		ck_assert_str_eq(str(w, "wqe"), "sq");
		ck_assert_int_eq(num(w, "wq_id"), r.dq.sq_id);
		ck_assert_int_eq(num(w, "offset"), 32 * i);
		ck_assert_int_eq(num(w, "num_sge"), 1);
		ck_assert_int_eq(num(w, "inline_oob_size"), 8);
		ck_assert_int_eq(num(w, "pkt_fmt"), 0);
		ck_assert_int_eq(num(w, "comp_tcp_csum"), 0);
		ck_assert_int_eq(num(w, "suppress_txcqe_gen"), 0);
		ck_assert_int_eq(num(w, "vcq_num"), r.dtc.cq_id);
		ck_assert_int_eq(num(w, "vp_offset"), r.dq.tx_vp_offset);
		ck_assert_int_eq(num(w, "inject_vlan_pri_tag"), 0);
		ck_assert_int_eq(num(w, "byte_count"), RIG_FRAME_LEN);
		ck_assert(json_object_object_get_ex(w, "sge", &sge));
		ck_assert_int_eq(json_object_array_length(sge), 1);
		s0 = json_object_array_get_idx(sge, 0);
		ck_assert_int_eq(num(s0, "size"), RIG_FRAME_LEN);
		ck_assert_int_eq(num(s0, "mem_key"), lkey);
		snprintf(text, sizeof(text), "0x%lx", (unsigned long)(uintptr_t)
			 (r.mem + (size_t)(RIG_RQ_DEPTH + i) * RIG_BUF));
		ck_assert_str_eq(str(s0, "address"), text);

		ck_assert_int_eq(num(c, "cq_id"), r.dtc.cq_id);
		ck_assert_int_eq(num(c, "index"), i);
		ck_assert_str_eq(str(c, "cqe"), i ? "TX_INVALID_OOB" : "TX_OKAY");
		ck_assert_str_eq(str(c, "cqe_type"), i ? "TX_INVALID_OOB" : "TX_OKAY");
		ck_assert_int_eq(num(c, "cqe_type_value"), i ? 35 : 32);
		ck_assert_int_eq(num(c, "client_type"), 1);
		ck_assert_int_eq(num(c, "vendor_err"), i ? 0x777 : 0);
		ck_assert_int_eq(num(c, "tx_wqe_offset"), i);
		ck_assert_int_eq(num(c, "wq_num"), r.dq.sq_id);
		ck_assert_int_eq(num(c, "is_sq"), 1);
		ck_assert_int_eq(num(c, "owner_bits"), 1);
	}
	ck_assert_str_eq(str(rec[4], "wqe"), "rq");
	ck_assert_int_eq(num(rec[4], "wq_id"), r.drw.wq_id);
	ck_assert_int_eq(num(rec[4], "pkt_len"), RIG_FRAME_LEN);
	ck_assert_int_eq(num(rec[4], "byte_count"), RIG_BUF);
	ck_assert_str_eq(str(rec[5], "cqe"), "RX_OKAY");
	ck_assert_int_eq(num(rec[5], "cq_id"), r.drc.cq_id);
	ck_assert_int_eq(num(rec[5], "pkt_len"), RIG_FRAME_LEN);
	ck_assert_int_eq(num(rec[5], "rx_hashtype"), 0x1b6);	/* MANA_HASH_L4 */
	ck_assert_int_eq(num(rec[5], "rx_wqe_offset"), 0);
	ck_assert_int_eq(num(rec[5], "wq_num"), r.drw.wq_id);
	ck_assert_int_eq(num(rec[5], "is_sq"), 0);
	/* the injection is an event line of its own */
	ck_assert_int_eq(events, 1);
	for (int i = 0; i < n; i++)
		json_object_put(rec[i]);
	unlink(trace_file);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mana_trace");
	TCase *tc = tcase_create("json");
	char mode[96];

	snprintf(trace_file, sizeof(trace_file), "/tmp/mana_trace.%ld.jsonl",
		 (long)getpid());
	snprintf(mode, sizeof(mode), "json:%s", trace_file);
	unlink(trace_file);
	setenv("MLX5EMU_MANA_DEVICES", "1", 1);
	setenv("MLX5EMU_NUM_PORTS", "2", 1);
	/* one receive CQE per frame, so each frame's CQE is checked on its
	 * own (coalesced CQEs are test_mana_traffic's) */
	setenv("MLX5EMU_MANA_RX_COALESCING", "0", 1);
	setenv("MLX5EMU_TRACE", mode, 1);
	setenv("MLX5EMU_TRACE_DATAPATH", "1", 1);
	tcase_add_test(tc, records_name_their_fields);
	suite_add_tcase(s, tc);
	return ut_run(s);
}
