/* SPDX-License-Identifier: MIT */
/*
 * Vport and port queries of an Ethernet (RoCE) function, the RoCE address
 * table, QUERY_LAG.
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

START_TEST(nic_vport_context)
{
	const struct emu_fw_config *cfg = emu_fw_config_get(fw);
	struct fwt_mbox m;
	void *ctx, *perm;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_nic_vport_context_out));
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ctx = PRM_ADDR_OF(query_nic_vport_context_out, m.out,
			  nic_vport_context);
	perm = PRM_ADDR_OF(nic_vport_context, ctx, permanent_address);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, roce_en), 1);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, mtu), 1500 + 22);
	ck_assert_uint_eq(PRM_GET64(nic_vport_context, ctx, node_guid),
			  cfg->node_guid);
	ck_assert_uint_eq(PRM_GET64(nic_vport_context, ctx, system_image_guid),
			  cfg->system_image_guid);
	ck_assert_uint_eq(PRM_GET(mac_address_layout, perm, mac_addr_47_32),
			  (uint32_t)cfg->port[0].mac[0] << 8 |
			  cfg->port[0].mac[1]);
	ck_assert_uint_eq(PRM_GET(mac_address_layout, perm, mac_addr_31_0),
			  (uint32_t)cfg->port[0].mac[2] << 24 |
			  (uint32_t)cfg->port[0].mac[3] << 16 |
			  (uint32_t)cfg->port[0].mac[4] << 8 |
			  cfg->port[0].mac[5]);

	PRM_SET(query_nic_vport_context_in, m.in, other_vport, 1);
	PRM_SET(query_nic_vport_context_in, m.in, vport_number, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);
}
END_TEST

static void *query_nvc(struct fwt_mbox *m, unsigned int list_type,
		       size_t extra)
{
	fwt_mbox_init(m, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, 0,
		      PRM_ST_SZ_BYTES(query_nic_vport_context_in),
		      PRM_ST_SZ_BYTES(query_nic_vport_context_out) + extra);
	PRM_SET(query_nic_vport_context_in, m->in, allowed_list_type,
		list_type);
	fwt_exec(fw, m);
	ck_fw_ok(m);
	return PRM_ADDR_OF(query_nic_vport_context_out, m->out,
			   nic_vport_context);
}

/* A MODIFY_NIC_VPORT_CONTEXT mailbox (uid, @extra list bytes); its
 * context, for the caller to fill with field_select. */
static void *modify_nvc(struct fwt_mbox *m, uint16_t uid, size_t extra)
{
	fwt_mbox_init(m, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT, 0, uid,
		      PRM_ST_SZ_BYTES(modify_nic_vport_context_in) + extra,
		      PRM_ST_SZ_BYTES(modify_nic_vport_context_out));
	return PRM_ADDR_OF(modify_nic_vport_context_in, m->in,
			   nic_vport_context);
}

START_TEST(nic_vport_modify)
{
	struct fwt_mbox m;
	void *ctx, *sel;
	uint8_t *e;

	/* field_select at bit 0x60; promisc is its bit 0x1b: byte 0xf */
	ck_assert_uint_eq(PRM_BIT_OFF(modify_nic_vport_context_in,
				      field_select.promisc), 0x7b);
	ctx = modify_nvc(&m, 0, 0);
	sel = PRM_ADDR_OF(modify_nic_vport_context_in, m.in, field_select);
	((uint8_t *)m.in)[0xf] |= 0x10;		/* promisc, by hand */
	PRM_SET(modify_nic_vport_field_select, sel, mtu, 1);
	PRM_SET(modify_nic_vport_field_select, sel, disable_uc_local_lb, 1);
	PRM_SET(nic_vport_context, ctx, promisc_mc, 1);
	PRM_SET(nic_vport_context, ctx, promisc_all, 1);
	PRM_SET(nic_vport_context, ctx, mtu, 9000);
	PRM_SET(nic_vport_context, ctx, disable_uc_local_lb, 1);
	PRM_SET(nic_vport_context, ctx, disable_mc_local_lb, 1); /* not selected */
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ctx = query_nvc(&m, 0, 0);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, promisc_uc), 0);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, promisc_mc), 1);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, promisc_all), 1);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, mtu), 9000);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, disable_uc_local_lb),
			  1);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, disable_mc_local_lb),
			  0);

	/* the permanent address and a unicast list of one */
	ctx = modify_nvc(&m, 0, 8);
	sel = PRM_ADDR_OF(modify_nic_vport_context_in, m.in, field_select);
	PRM_SET(modify_nic_vport_field_select, sel, permanent_address, 1);
	PRM_SET(modify_nic_vport_field_select, sel, addresses_list, 1);
	e = PRM_ADDR_OF(nic_vport_context, ctx, permanent_address);
	e[2] = 0x02; e[7] = 0x99;
	PRM_SET(nic_vport_context, ctx, allowed_list_type,
		MLX5_NVPRT_LIST_TYPE_UC);
	PRM_SET(nic_vport_context, ctx, allowed_list_size, 1);
	/* the list: after the 0x100-byte context, 8 bytes an entry */
	e = (uint8_t *)ctx + 0x100;
	e[2] = 0x02; e[3] = 0x11; e[7] = 0x77;
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ctx = query_nvc(&m, MLX5_NVPRT_LIST_TYPE_UC, 8);
	e = PRM_ADDR_OF(nic_vport_context, ctx, permanent_address);
	ck_assert_uint_eq(e[2], 0x02);
	ck_assert_uint_eq(e[7], 0x99);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, allowed_list_size),
			  1);
	e = (uint8_t *)ctx + 0x100;
	ck_assert_uint_eq(e[3], 0x11);
	ck_assert_uint_eq(e[7], 0x77);
	ctx = query_nvc(&m, MLX5_NVPRT_LIST_TYPE_MC, 8);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, allowed_list_size),
			  0);
}
END_TEST

START_TEST(nic_vport_modify_refusals)
{
	struct fwt_mbox m;
	void *ctx, *sel;

	/* the kernel's command */
	modify_nvc(&m, fwt_uctx(fw), 0);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UID_NOT_ALLOWED);
	ctx = modify_nvc(&m, 0, 0);
	sel = PRM_ADDR_OF(modify_nic_vport_context_in, m.in, field_select);
	PRM_SET(modify_nic_vport_field_select, sel, node_guid, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, VPORT_BAD_SELECT);
	ctx = modify_nvc(&m, 0, 0);
	sel = PRM_ADDR_OF(modify_nic_vport_context_in, m.in, field_select);
	PRM_SET(modify_nic_vport_field_select, sel, mtu, 1);
	PRM_SET(modify_nic_vport_field_select, sel, promisc, 1);
	PRM_SET(nic_vport_context, ctx, promisc_all, 1);
	PRM_SET(nic_vport_context, ctx, mtu, EMU_FW_PORT_MAX_MTU + 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, VPORT_BAD_MTU);
	/* a list longer than log_max_current_uc_list allows, a VLAN list */
	ctx = modify_nvc(&m, 0, 8 * 64);
	sel = PRM_ADDR_OF(modify_nic_vport_context_in, m.in, field_select);
	PRM_SET(modify_nic_vport_field_select, sel, addresses_list, 1);
	PRM_SET(nic_vport_context, ctx, allowed_list_size, 64);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, VPORT_BAD_LIST);
	PRM_SET(nic_vport_context, ctx, allowed_list_size, 0);
	PRM_SET(nic_vport_context, ctx, allowed_list_type,
		MLX5_NVPRT_LIST_TYPE_VLAN);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, VPORT_BAD_LIST);
	PRM_SET(modify_nic_vport_context_in, m.in, other_vport, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);
	/* none of it changed anything */
	ctx = query_nvc(&m, 0, 0);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, promisc_all), 0);
	ck_assert_uint_eq(PRM_GET(nic_vport_context, ctx, mtu), 1500 + 22);
}
END_TEST

START_TEST(hca_vport_context)
{
	struct fwt_mbox m;
	void *ctx;

	/* what pyverbs sends: 16 bytes in, 528 out, port_num 0 */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 16, 528);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ctx = PRM_ADDR_OF(query_hca_vport_context_out, m.out,
			  hca_vport_context);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, lid), 0);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, grh_required), 1);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, port_state), 4);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, port_physical_state),
			  5);
	ck_assert_uint_eq(PRM_GET64(hca_vport_context, ctx, node_guid),
			  emu_fw_config_get(fw)->node_guid);

	/* link down shows */
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	fwt_exec(fw, &m);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, port_state), 1);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 16, 528);
	PRM_SET(query_hca_vport_context_in, m.in, port_num, 2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_PORT);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 16, 527);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
}
END_TEST

START_TEST(vport_state)
{
	struct fwt_mbox m;
	bool up;

	for (uint16_t op_mod = 0; op_mod <= 2; op_mod++) {
		fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_VPORT_STATE, op_mod, 0, 16,
			      16);
		fwt_exec(fw, &m);
		ck_fw_ok(&m);
		ck_assert_uint_eq(PRM_GET(query_vport_state_out, m.out, state),
				  1);
	}
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	ck_assert_int_eq(emu_fw_port_get_link(fw, 1, &up), 0);
	ck_assert(!up);
	fwt_exec(fw, &m);
	ck_assert_uint_eq(PRM_GET(query_vport_state_out, m.out, state), 0);
	ck_assert_int_eq(emu_fw_port_set_link(fw, 2, true), -EINVAL);
	PRM_SET(query_vport_state_in, m.in, other_vport, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, OTHER_VPORT_NOT_SUPPORTED);
}
END_TEST

static void set_gid(struct fwt_mbox *m, uint16_t index, uint8_t ver,
		    uint8_t l3, uint8_t last)
{
	void *a;
	uint8_t *gid;

	fwt_mbox_init(m, MLX5_CMD_OP_SET_ROCE_ADDRESS, 0, 0,
		      PRM_ST_SZ_BYTES(set_roce_address_in), 16);
	PRM_SET(set_roce_address_in, m->in, roce_address_index, index);
	a = PRM_ADDR_OF(set_roce_address_in, m->in, roce_address);
	gid = PRM_ADDR_OF(roce_addr_layout, a, source_l3_address);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[15] = last;
	PRM_SET(roce_addr_layout, a, source_mac_47_32, 0x02c9);
	PRM_SET(roce_addr_layout, a, source_mac_31_0, 0x7f000001);
	PRM_SET(roce_addr_layout, a, roce_version, ver);
	PRM_SET(roce_addr_layout, a, roce_l3_type, l3);
}

START_TEST(roce_address)
{
	struct emu_fw_gid_entry e;
	struct fwt_mbox m;
	const uint8_t *gid;
	void *a;

	ck_assert_uint_eq(emu_fw_gid_table_size(fw), 256);
	set_gid(&m, 1, 2, 1, 0x11);	/* RoCE v2, IPv6 */
	fwt_exec(fw, &m);
	ck_fw_ok(&m);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_ROCE_ADDRESS, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_roce_address_out));
	PRM_SET(query_roce_address_in, m.in, roce_address_index, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	a = PRM_ADDR_OF(query_roce_address_out, m.out, roce_address);
	gid = PRM_ADDR_OF(roce_addr_layout, a, source_l3_address);
	ck_assert_uint_eq(gid[0], 0xfe);
	ck_assert_uint_eq(gid[15], 0x11);
	ck_assert_uint_eq(PRM_GET(roce_addr_layout, a, roce_version), 2);

	ck_assert_int_eq(emu_fw_gid_get(fw, 1, 1, &e), 0);
	ck_assert(e.valid);
	ck_assert_uint_eq(e.gid[15], 0x11);
	ck_assert_uint_eq(e.mac[0], 0x02);
	ck_assert_uint_eq(e.mac[5], 0x01);
	ck_assert_uint_eq(e.roce_version, 2);
	ck_assert_uint_eq(e.roce_l3_type, 1);
	ck_assert_int_eq(emu_fw_gid_get(fw, 1, 0, &e), 0);
	ck_assert(!e.valid);
	ck_assert_int_eq(emu_fw_gid_get(fw, 1, 256, &e), -EINVAL);
	ck_assert_int_eq(emu_fw_gid_get(fw, 2, 0, &e), -EINVAL);

	/* deleting is writing zeros */
	fwt_mbox_init(&m, MLX5_CMD_OP_SET_ROCE_ADDRESS, 0, 0,
		      PRM_ST_SZ_BYTES(set_roce_address_in), 16);
	PRM_SET(set_roce_address_in, m.in, roce_address_index, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_int_eq(emu_fw_gid_get(fw, 1, 1, &e), 0);
	ck_assert(!e.valid);

	/* refused */
	set_gid(&m, 256, 2, 0, 1);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, ROCE_ADDR_BAD_INDEX);
	set_gid(&m, 2, 1, 0, 1);	/* version 1 is not an encoding */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, ROCE_ADDR_BAD_VERSION);
	set_gid(&m, 2, 0, 2, 1);	/* l3 type 2 */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, ROCE_ADDR_BAD_VERSION);
	set_gid(&m, 2, 2, 0, 1);
	PRM_SET(set_roce_address_in, m.in, vhca_port_num, 2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_PORT);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_ROCE_ADDRESS, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_roce_address_out));
	PRM_SET(query_roce_address_in, m.in, roce_address_index, 300);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, ROCE_ADDR_BAD_INDEX);
}
END_TEST

START_TEST(hca_vport_gid)
{
	struct fwt_mbox m;
	const uint8_t *g;

	set_gid(&m, 0, 0, 1, 0x01);
	fwt_exec(fw, &m);
	set_gid(&m, 1, 2, 1, 0x02);
	fwt_exec(fw, &m);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 16, 32);
	PRM_SET(query_hca_vport_gid_in, m.in, gid_index, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(query_hca_vport_gid_out, m.out, gids_num), 1);
	g = PRM_ARRAY_ADDR(query_hca_vport_gid_out, m.out, gid, 0);
	ck_assert_uint_eq(g[0], 0xfe);
	ck_assert_uint_eq(g[15], 0x02);

	/* the whole table needs room for it */
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 16, 32);
	PRM_SET(query_hca_vport_gid_in, m.in, gid_index, 0xffff);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 16,
		      16 + 256 * 16);
	PRM_SET(query_hca_vport_gid_in, m.in, gid_index, 0xffff);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(query_hca_vport_gid_out, m.out, gids_num),
			  256);
	g = PRM_ARRAY_ADDR(query_hca_vport_gid_out, m.out, gid, 0);
	ck_assert_uint_eq(g[15], 0x01);

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 16, 32);
	PRM_SET(query_hca_vport_gid_in, m.in, gid_index, 256);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, GID_BAD_INDEX);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_GID, 0, 0, 16, 16);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
}
END_TEST

START_TEST(lag)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_LAG, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_lag_out));
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(query_lag_out, m.out, ctx.lag_state), 0);
	ck_assert_uint_eq(PRM_GET(query_lag_out, m.out, ctx.tx_remap_affinity_1),
			  0);
}
END_TEST

START_TEST(two_ports)
{
	struct emu_fw_gid_entry e;
	struct emu_fw_config cfg;
	struct fwt_mbox m;
	void *ctx;

	emu_fw_destroy(fw);
	emu_fw_config_default(&cfg);
	cfg.num_ports = 2;
	cfg.port[1].link_up = false;
	fw = emu_fw_create(&cfg);
	ck_assert_ptr_nonnull(fw);
	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0, 0, 16, 528);
	PRM_SET(query_hca_vport_context_in, m.in, port_num, 2);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ctx = PRM_ADDR_OF(query_hca_vport_context_out, m.out,
			  hca_vport_context);
	ck_assert_uint_eq(PRM_GET(hca_vport_context, ctx, port_state), 1);
	ck_assert_uint_ne(PRM_GET64(hca_vport_context, ctx, port_guid),
			  cfg.node_guid);
	set_gid(&m, 3, 2, 0, 9);
	PRM_SET(set_roce_address_in, m.in, vhca_port_num, 2);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_int_eq(emu_fw_gid_get(fw, 2, 3, &e), 0);
	ck_assert(e.valid);
	ck_assert_uint_eq(e.gid[15], 9);
	ck_assert_int_eq(emu_fw_gid_get(fw, 1, 3, &e), 0);
	ck_assert(!e.valid);
}
END_TEST

static Suite *fw_vport_suite(void)
{
	Suite *s = suite_create("fw_vport");
	TCase *tc = tcase_create("vport");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nic_vport_context);
	tcase_add_test(tc, nic_vport_modify);
	tcase_add_test(tc, nic_vport_modify_refusals);
	tcase_add_test(tc, hca_vport_context);
	tcase_add_test(tc, vport_state);
	tcase_add_test(tc, roce_address);
	tcase_add_test(tc, hca_vport_gid);
	tcase_add_test(tc, lag);
	tcase_add_test(tc, two_ports);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fw_vport_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
