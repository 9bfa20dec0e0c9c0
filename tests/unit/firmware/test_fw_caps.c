/* SPDX-License-Identifier: MIT */
/*
 * Capabilities: QUERY_HCA_CAP for every type, the table's consistency,
 * overrides, and QUERY_ADAPTER.
 */
#include <errno.h>
#include <stdlib.h>

#include "fw_test_util.h"

static struct emu_fw *fw;

static void setup(void)
{
	fw = fwt_create(NULL);
}

static void teardown(void)
{
	emu_fw_destroy(fw);
	fw = NULL;
}

#define CAP_OUTLEN PRM_ST_SZ_BYTES(query_hca_cap_out)

static uint8_t query_cap(struct fwt_mbox *m, unsigned int type,
			 unsigned int cur, size_t outlen)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_HCA_CAP, (uint16_t)(type << 1 | cur),
		      0, PRM_ST_SZ_BYTES(query_hca_cap_in), outlen);
	return fwt_exec(fw, m);
}

static const void *cap_page(struct fwt_mbox *m)
{
	return PRM_ADDR_OF(query_hca_cap_out, m->out, capability);
}

START_TEST(cap_general)
{
	struct fwt_mbox m;
	const void *c;

	for (unsigned int cur = 0; cur < 2; cur++) {
		query_cap(&m, MLX5_CAP_GENERAL, cur, CAP_OUTLEN);
		ck_fw_ok(&m);
		c = cap_page(&m);
		/* identity of a ConnectX-6 Dx RoCE function */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, port_type),
				  MLX5_CAP_PORT_TYPE_ETH);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, num_ports), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, log_max_msg), 30);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, cqe_version), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, roce), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, rc), 1);
		/* XRC and DC are implemented */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, xrc), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, dct), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, cq_resize), 1);
		/* modest limits */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, log_max_cq_sz), 15);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, log_max_qp_sz), 15);
		ck_assert_uint_ne(PRM_GET(cmd_hca_cap, c, log_max_uctx), 0);
		/* on-demand paging: the engine takes memory as it finds it */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, pg), 1);
		/* not implemented, not advertised */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, cd), 0);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, device_memory), 0);
		/* NIC flow tables: test_fw_steer_caps reads their page */
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, nic_flow_table), 1);
		ck_assert_uint_eq(PRM_GET(cmd_hca_cap, c, lag_master), 0);
	}
}
END_TEST

/* pyverbs reads the general page with a 2064-byte outbox. */
START_TEST(cap_short_outbox)
{
	struct fwt_mbox m;

	query_cap(&m, MLX5_CAP_GENERAL, 1, 2064);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, cap_page(&m), port_type), 1);
	query_cap(&m, MLX5_CAP_GENERAL, 1,
		  16 + PRM_ST_SZ_BYTES(cmd_hca_cap) - 1);
	ck_fw_synd(&m, BAD_OUTLEN);
}
END_TEST

START_TEST(cap_pages)
{
	struct fwt_mbox m;
	const void *c;

	query_cap(&m, MLX5_CAP_ROCE, 1, CAP_OUTLEN);
	ck_fw_ok(&m);
	c = cap_page(&m);
	ck_assert_uint_eq(PRM_GET(roce_cap, c, roce_version), 0x5);
	ck_assert_uint_eq(PRM_GET(roce_cap, c, l3_type), 0x6);
	ck_assert_uint_eq(PRM_GET(roce_cap, c, r_roce_dest_udp_port), 4791);
	ck_assert_uint_eq(PRM_GET(roce_cap, c, roce_address_table_size), 256);

	query_cap(&m, MLX5_CAP_ATOMIC, 1, CAP_OUTLEN);
	ck_fw_ok(&m);
	c = cap_page(&m);
	ck_assert_uint_eq(PRM_GET(atomic_caps, c, atomic_operations), 0x3);
	ck_assert_uint_eq(PRM_GET(atomic_caps, c, atomic_size_qp), 0x8);
	ck_assert_uint_eq(PRM_GET(atomic_caps, c,
				  atomic_req_8B_endianness_mode), 1);

	/* ODP: RC, XRC and DC for everything, UD sends and SRQ receives,
	 * nothing on UC (bits 0..5 of each transport's dword). */
	query_cap(&m, MLX5_CAP_ODP, 1, CAP_OUTLEN);
	ck_fw_ok(&m);
	c = cap_page(&m);
	ck_assert_uint_eq(((const uint8_t *)c)[0x80 / 8] >> 2, 0x3f);	/* rc */
	ck_assert_uint_eq(((const uint8_t *)c)[0xa0 / 8], 0);		/* uc */
	ck_assert_uint_eq(((const uint8_t *)c)[0xc0 / 8] >> 2, 0x21);	/* ud */
	ck_assert_uint_eq(((const uint8_t *)c)[0xe0 / 8] >> 2, 0x3f);	/* xrc */
	ck_assert_uint_eq(((const uint8_t *)c)[0x100 / 8] >> 2, 0x3f);	/* dc */
	ck_assert_uint_eq(PRM_GET(odp_cap, c,
				  transport_page_fault_scheme_cap.ud_odp_caps.write),
			  0);

	query_cap(&m, MLX5_CAP_ETHERNET_OFFLOADS, 0, CAP_OUTLEN);
	ck_fw_ok(&m);
	c = cap_page(&m);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  wqe_inline_mode), 2);
	/* The offloads the engine performs, and no tunnel or LRO ones. */
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  csum_cap), 1);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  vlan_cap), 1);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  max_lso_cap), 18);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  lro_cap), 0);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  tunnel_stateless_vxlan), 0);
	ck_assert_uint_eq(PRM_GET(per_protocol_networking_offload_caps, c,
				  enhanced_multi_pkt_send_wqe), 0);

	query_cap(&m, MLX5_CAP_GENERAL_2, 1, CAP_OUTLEN);
	ck_fw_ok(&m);
}
END_TEST

static bool page_zero(struct fwt_mbox *m)
{
	const uint8_t *p = cap_page(m);

	for (size_t i = 0; i < EMU_FW_CAP_PAGE_BYTES; i++)
		if (p[i])
			return false;
	return true;
}

/* Types the Dx knows but nothing of which is advertised: OK, all zero
 * (pyverbs' DM tests query 0x1f and must skip). */
START_TEST(cap_known_zero)
{
	static const unsigned int types[] = {
		MLX5_CAP_ESWITCH_FLOW_TABLE,
		MLX5_CAP_ESWITCH, MLX5_CAP_QOS, MLX5_CAP_DEBUG,
		MLX5_CAP_DEV_MEM, MLX5_CAP_TLS, MLX5_CAP_VDPA_EMULATION,
		MLX5_CAP_DEV_EVENT, MLX5_CAP_IPSEC, MLX5_CAP_CRYPTO,
		MLX5_CAP_GENERAL_2,
	};
	struct fwt_mbox m;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		query_cap(&m, types[i], 1, CAP_OUTLEN);
		ck_fw_ok(&m);
		ck_assert_msg(page_zero(&m), "type 0x%x not zero", types[i]);
	}
	/* op_mod as pyverbs sends them */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_CAP, 0x1f, 0, 16, CAP_OUTLEN);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_CAP, 0xf, 0, 16, CAP_OUTLEN);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
}
END_TEST

START_TEST(cap_unknown_type)
{
	static const unsigned int types[] = {
		MLX5_CAP_IPOIB_OFFLOADS, MLX5_CAP_IPOIB_ENHANCED_OFFLOADS,
		MLX5_CAP_SHAMPO, MLX5_CAP_MACSEC, MLX5_CAP_PORT_SELECTION,
		MLX5_CAP_ADV_RDMA, 0x30, 0x7fff,
	};
	struct fwt_mbox m;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ck_assert_uint_eq(query_cap(&m, types[i], 1, CAP_OUTLEN),
				  MLX5_CMD_STAT_BAD_PARAM_ERR);
		ck_fw_synd(&m, CAP_BAD_TYPE);
	}
	/* another function's caps need a vhca group manager */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_CAP, 1, 0, 16, CAP_OUTLEN);
	PRM_SET(query_hca_cap_in, m.in, other_function, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);
}
END_TEST

/* Every advertising bit's page is filled, every other page is zero. */
START_TEST(cap_consistency)
{
	static const unsigned int types[] = {
		MLX5_CAP_ETHERNET_OFFLOADS, MLX5_CAP_ODP, MLX5_CAP_ATOMIC,
		MLX5_CAP_ROCE, MLX5_CAP_FLOW_TABLE, MLX5_CAP_QOS,
		MLX5_CAP_DEBUG, MLX5_CAP_DEV_MEM, MLX5_CAP_TLS,
		MLX5_CAP_DEV_EVENT, MLX5_CAP_IPSEC, MLX5_CAP_CRYPTO,
		MLX5_CAP_GENERAL_2, MLX5_CAP_ESWITCH,
	};
	struct fwt_mbox gen, m;
	char why[160];

	ck_assert_int_eq(emu_fw_caps_check(emu_fw_get_caps(fw), why,
					   sizeof(why)), 0);
	query_cap(&gen, MLX5_CAP_GENERAL, 1, CAP_OUTLEN);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *gate = emu_fw_cap_type_gate(types[i]);
		uint64_t bit = 0;

		ck_assert_ptr_nonnull(gate);
		ck_assert_int_eq(emu_fw_caps_get(emu_fw_get_caps(fw),
						 MLX5_CAP_GENERAL, gate, &bit),
				 0);
		query_cap(&m, types[i], 1, CAP_OUTLEN);
		ck_fw_ok(&m);
		ck_assert_msg(bit ? !page_zero(&m) : page_zero(&m),
			      "type 0x%x: %s=%d but page %s", types[i], gate,
			      (int)bit, page_zero(&m) ? "empty" : "filled");
	}
}
END_TEST

static void set_ok(struct emu_fw_caps *c, unsigned int t, const char *f,
		   uint64_t v)
{
	ck_assert_int_eq(emu_fw_caps_set(c, t, f, v), 0);
}

START_TEST(cap_overrides)
{
	struct emu_fw_caps *c = emu_fw_caps_new();
	char why[200];
	uint64_t v;

	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	/* lower a limit, raise one within the emulator's bound */
	set_ok(c, MLX5_CAP_GENERAL, "log_max_cq_sz", 10);
	set_ok(c, MLX5_CAP_GENERAL, "log_max_qp", 16);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	ck_assert_int_eq(emu_fw_caps_get(c, MLX5_CAP_GENERAL,
					 "log_max_cq_sz", &v), 0);
	ck_assert_uint_eq(v, 10);
	/* beyond the emulator's bound */
	set_ok(c, MLX5_CAP_GENERAL, "log_max_cq_sz", 23);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "log_max_cq_sz"));
	set_ok(c, MLX5_CAP_GENERAL, "log_max_cq_sz", 15);
	/* a feature the emulator does not implement */
	set_ok(c, MLX5_CAP_GENERAL, "cd", 1);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "cd"));
	set_ok(c, MLX5_CAP_GENERAL, "cd", 0);
	/* more atomic sizes than implemented */
	set_ok(c, MLX5_CAP_ATOMIC, "atomic_size_qp", 0xc);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	set_ok(c, MLX5_CAP_ATOMIC, "atomic_size_qp", 0x8);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	/* clearing a feature is fine, if its page goes too */
	set_ok(c, MLX5_CAP_GENERAL, "atomic", 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "not advertised"));
	memset(emu_fw_caps_page_mut(c, MLX5_CAP_ATOMIC), 0,
	       EMU_FW_CAP_PAGE_BYTES);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	/* an advertising bit without its page */
	set_ok(c, MLX5_CAP_GENERAL, "atomic", 1);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "empty"));
	set_ok(c, MLX5_CAP_GENERAL, "atomic", 0);
	/* identity that is not ours */
	set_ok(c, MLX5_CAP_GENERAL, "port_type", 0);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	set_ok(c, MLX5_CAP_GENERAL, "port_type", 1);
	/* user capabilities: RDMA_CTRL (bit 0x53 - 64 of the second page's
	 * object types) and uctx_cap bits 3 and 4 by configuration only,
	 * no other uctx_cap bit */
	set_ok(c, MLX5_CAP_GENERAL, "uctx_cap", 0x18);
	set_ok(c, MLX5_CAP_GENERAL, "hca_cap_2", 1);
	set_ok(c, MLX5_CAP_GENERAL_2, "general_obj_types_127_64",
	       UINT64_C(1) << 19);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	set_ok(c, MLX5_CAP_GENERAL, "uctx_cap", 0x4);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "uctx_cap"));
	set_ok(c, MLX5_CAP_GENERAL, "uctx_cap", 0);
	set_ok(c, MLX5_CAP_GENERAL_2, "general_obj_types_127_64",
	       UINT64_C(1) << 20);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), -EINVAL);
	set_ok(c, MLX5_CAP_GENERAL_2, "general_obj_types_127_64", 0);
	set_ok(c, MLX5_CAP_GENERAL, "hca_cap_2", 0);
	/* names and widths */
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "no_such", 1),
			 -ENOENT);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_DEV_MEM, "x", 1),
			 -ENOENT);
	ck_assert_int_eq(emu_fw_caps_set(c, MLX5_CAP_GENERAL, "num_ports",
					 0x100), -ERANGE);
	ck_assert_int_eq(emu_fw_caps_check(c, why, sizeof(why)), 0);
	emu_fw_caps_free(c);
}
END_TEST

static void no_atomic(struct emu_fw_caps *c)
{
	set_ok(c, MLX5_CAP_GENERAL, "atomic", 0);
	memset(emu_fw_caps_page_mut(c, MLX5_CAP_ATOMIC), 0,
	       EMU_FW_CAP_PAGE_BYTES);
}

/* Overridden caps reach QUERY_HCA_CAP; a bad set refuses to create. */
START_TEST(cap_override_device)
{
	struct emu_fw_config cfg;
	struct emu_fw_caps *c;
	struct fwt_mbox m;

	emu_fw_destroy(fw);
	fw = fwt_create(no_atomic);
	query_cap(&m, MLX5_CAP_GENERAL, 1, CAP_OUTLEN);
	ck_assert_uint_eq(PRM_GET(cmd_hca_cap, cap_page(&m), atomic), 0);
	query_cap(&m, MLX5_CAP_ATOMIC, 1, CAP_OUTLEN);
	ck_fw_ok(&m);
	ck_assert(page_zero(&m));

	c = emu_fw_caps_new();
	set_ok(c, MLX5_CAP_GENERAL, "cd", 1);
	emu_fw_config_default(&cfg);
	cfg.caps = c;
	errno = 0;
	ck_assert_ptr_null(emu_fw_create(&cfg));
	ck_assert_int_eq(errno, EINVAL);
	emu_fw_caps_free(c);
}
END_TEST

START_TEST(adapter)
{
	struct fwt_mbox m;
	const void *qa;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_ADAPTER, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_adapter_out));
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	qa = PRM_ADDR_OF(query_adapter_out, m.out, query_adapter_struct);
	ck_assert_uint_eq(PRM_GET(query_adapter_param_block, qa,
				  ieee_vendor_id), 0x02c9);
	ck_assert_uint_eq(PRM_GET(query_adapter_param_block, qa,
				  vsd_vendor_id), 0x15b3);
	ck_assert_mem_eq(PRM_ADDR_OF(query_adapter_param_block, qa,
				     vsd_contd_psid), "MT_0000000359", 14);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_ADAPTER, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
}
END_TEST

static Suite *fw_caps_suite(void)
{
	Suite *s = suite_create("fw_caps");
	TCase *tc = tcase_create("query");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cap_general);
	tcase_add_test(tc, cap_short_outbox);
	tcase_add_test(tc, cap_pages);
	tcase_add_test(tc, cap_known_zero);
	tcase_add_test(tc, cap_unknown_type);
	tcase_add_test(tc, cap_consistency);
	tcase_add_test(tc, cap_overrides);
	tcase_add_test(tc, cap_override_device);
	tcase_add_test(tc, adapter);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_caps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
