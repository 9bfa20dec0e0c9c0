/* SPDX-License-Identifier: MIT */
/*
 * ibv_query_device, ibv_query_device_ex and the query_device_ex op over the
 * drop-in libraries: every attribute equal to its derivation from the
 * capability pages (mlx5_ib_query_device + libmlx5 44), the identity the
 * device reports elsewhere, and libibverbs' input and attr_size rules.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_test.h"

static struct ibv_context *ctx;
static struct qt_caps caps;

static void setup(void)
{
	ctx = qt_open(true);
	qt_read_caps(ctx, &caps);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* The oracle: what the kernel and libmlx5 make of the pages. */

static bool odp_hw(void)
{
	const char *be = getenv("MLX5EMU_BACKEND");

	return be && !strcmp(be, "hw");
}


static void expected_attr(struct ibv_device_attr_ex *e)
{
	struct ibv_device_attr *a = &e->orig_attr;
	unsigned int rq_sg, sq_desc, sq_sg, ops;
	uint64_t node_guid, sys_guid;
	char buf[64];
	uint8_t atomic_now[QT_PAGE_BYTES];

	memset(e, 0, sizeof(*e));
	qt_nic_vport_guids(ctx, &node_guid, &sys_guid);
	a->node_guid = htobe64(node_guid);
	a->sys_image_guid = htobe64(sys_guid);
	a->vendor_id = qt_ieee_vendor_id(ctx);
	a->vendor_part_id = 4125;	/* the PCI device id, 0x101d */
	ck_assert_int_gt(qt_read_ibdev(ctx, "device/revision", buf, sizeof(buf)), 0);
	a->hw_ver = (uint32_t)strtoul(buf, NULL, 0);
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = ~((UINT64_C(1) << QT_GEN(&caps, log_pg_sz)) - 1);
	a->max_qp = 1 << QT_GEN(&caps, log_max_qp);
	a->max_qp_wr = 1 << QT_GEN(&caps, log_max_qp_sz);
	a->device_cap_flags = IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
			      IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN;
	if (QT_GEN(&caps, pkv))
		a->device_cap_flags |= IBV_DEVICE_BAD_PKEY_CNTR;
	if (QT_GEN(&caps, qkv))
		a->device_cap_flags |= IBV_DEVICE_BAD_QKEY_CNTR;
	if (QT_GEN(&caps, apm))
		a->device_cap_flags |= IBV_DEVICE_AUTO_PATH_MIG;
	if (QT_GEN(&caps, xrc))
		a->device_cap_flags |= IBV_DEVICE_XRC;
	if (QT_GEN(&caps, imaicl)) {
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		a->max_mw = 1 << QT_GEN(&caps, log_max_mkey);
	}
	if (!QT_GEN(&caps, umr_modify_entity_size_disabled))
		a->device_cap_flags |= IBV_DEVICE_MEM_MGT_EXTENSIONS;
	if (QT_GEN(&caps, eth_net_offloads) && QT_ETH(&caps, csum_cap)) {
		a->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM;
		e->raw_packet_caps |= IBV_RAW_PACKET_CAP_IP_CSUM;
	}
	if (QT_GEN(&caps, eth_net_offloads) && QT_ETH(&caps, vlan_cap))
		e->raw_packet_caps |= IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	if (QT_GEN(&caps, eth_net_offloads) && QT_ETH(&caps, max_lso_cap)) {
		e->tso_caps.max_tso = 1u << QT_ETH(&caps, max_lso_cap);
		e->tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	}
	if (QT_GEN(&caps, eth_net_offloads)) {
		e->rss_caps.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
		e->rss_caps.rx_hash_fields_mask = 0xff | IBV_RX_HASH_INNER;
	}
	if (QT_GEN(&caps, eth_net_offloads) && QT_ETH(&caps, scatter_fcs)) {
		e->device_cap_flags_ex |= IBV_DEVICE_RAW_SCATTER_FCS;
		e->raw_packet_caps |= IBV_RAW_PACKET_CAP_SCATTER_FCS;
	}
	if (QT_GEN(&caps, ipoib_basic_offloads))
		a->device_cap_flags |= IBV_DEVICE_UD_IP_CSUM;
	if (QT_GEN(&caps, rq_delay_drop) && QT_GEN(&caps, general_notification_event))
		e->raw_packet_caps |= IBV_RAW_PACKET_CAP_DELAY_DROP;
	if (QT_GEN(&caps, end_pad))
		e->device_cap_flags_ex |= IBV_DEVICE_PCI_WRITE_END_PADDING;
	/* mlx5_ib: the NIC RX namespace exists on an Ethernet port with
	 * nic_flow_table (and its page). */
	if (QT_GEN(&caps, port_type) == MLX5_CAP_PORT_TYPE_ETH &&
	    QT_GEN(&caps, nic_flow_table))
		a->device_cap_flags |= IBV_DEVICE_MANAGED_FLOW_STEERING;
	e->device_cap_flags_ex |= a->device_cap_flags;

	rq_sg = QT_GEN(&caps, max_wqe_sz_rq) / 16;
	sq_desc = QT_GEN(&caps, max_wqe_sz_sq) < 512 ? QT_GEN(&caps, max_wqe_sz_sq) : 512;
	sq_sg = (sq_desc - 32) / 16;
	a->max_sge = sq_sg < rq_sg ? sq_sg : rq_sg;
	a->max_sge_rd = 30;
	a->max_cq = 1 << QT_GEN(&caps, log_max_cq);
	a->max_cqe = (1 << QT_GEN(&caps, log_max_cq_sz)) - 1;
	a->max_mr = 1 << QT_GEN(&caps, log_max_mkey);
	a->max_pd = 1 << QT_GEN(&caps, log_max_pd);
	a->max_qp_rd_atom = 1 << QT_GEN(&caps, log_max_ra_req_qp);
	a->max_qp_init_rd_atom = 1 << QT_GEN(&caps, log_max_ra_res_qp);
	a->max_res_rd_atom = a->max_qp_rd_atom * a->max_qp;
	a->max_srq = 1 << QT_GEN(&caps, log_max_srq);
	a->max_srq_wr = (1 << QT_GEN(&caps, log_max_srq_sz)) - 1;
	a->max_srq_sge = rq_sg - 1;
	a->local_ca_ack_delay = QT_GEN(&caps, local_ca_ack_delay);
	ops = QT_ATOMIC(&caps, atomic_operations);
	a->atomic_cap = ((ops & 3) == 3 && (QT_ATOMIC(&caps, atomic_size_qp) & 8) &&
			 QT_ATOMIC(&caps, atomic_req_8B_endianness_mode)) ?
			IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
	a->max_mcast_grp = 1 << QT_GEN(&caps, log_max_mcg);
	a->max_mcast_qp_attach = QT_GEN(&caps, max_qp_mcg);
	a->max_total_mcast_qp_attach = a->max_mcast_qp_attach * a->max_mcast_grp;
	a->max_ah = INT_MAX;
	a->max_pkeys = 128 << QT_GEN(&caps, pkey_table_size);
	a->phys_port_cnt = qt_num_ports(&caps);

	e->completion_timestamp_mask = UINT64_C(0x7fffffffffffffff);
	e->hca_core_clock = QT_GEN(&caps, device_frequency_khz);
	/* ODP (mlx5_ib_internal_fill_odp_caps) where verbs MRs can be ODP
	 * ones: not on the hw backend, whose MRs are DEVX umems.  The page's
	 * per-transport dwords at bits 0x80 (RC), 0xc0 (UD), 0xe0 (XRC):
	 * send, receive, write, read, atomic, srq_receive from the top bit
	 * down, the order of the IBV_ODP_SUPPORT_* bits from the bottom. */
	if (QT_GEN(&caps, pg) && !odp_hw()) {
		e->odp_caps.general_caps = IBV_ODP_SUPPORT |
					   IBV_ODP_SUPPORT_IMPLICIT;
		e->odp_caps.per_transport_caps.rc_odp_caps = qt_odp_bits(&caps, 0x80);
		e->odp_caps.per_transport_caps.ud_odp_caps =
			qt_odp_bits(&caps, 0xc0) &
			(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV);
		e->xrc_odp_caps = qt_odp_bits(&caps, 0xe0);
	}
	if (QT_GEN(&caps, port_type) == MLX5_CAP_PORT_TYPE_ETH) {
		e->rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		e->rss_caps.max_rwq_indirection_tables = 1u << QT_GEN(&caps, log_max_rqt);
		e->rss_caps.max_rwq_indirection_table_size =
			1u << QT_GEN(&caps, log_max_rqt_size);
		e->max_wq_type_rq = 1u << QT_GEN(&caps, log_max_rq);
	}
	/* No tag matching advertised: tm_caps all zero. */
	ck_assert_int_eq(QT_GEN(&caps, tag_matching), 0);
	if (QT_GEN(&caps, cq_moderation)) {
		e->cq_mod_caps.max_cq_count = 0xffff;
		e->cq_mod_caps.max_cq_period = 0xfff;
	}
	ck_assert_int_eq(qt_query_cap_page(ctx, MLX5_CAP_ATOMIC, atomic_now), 0);
	e->pci_atomic_caps.fetch_add = PRM_GET(atomic_caps, atomic_now, fetch_add_pci_atomic);
	e->pci_atomic_caps.swap = PRM_GET(atomic_caps, atomic_now, swap_pci_atomic);
	e->pci_atomic_caps.compare_swap =
		PRM_GET(atomic_caps, atomic_now, compare_swap_pci_atomic);
	e->phys_port_cnt_ex = a->phys_port_cnt;
}

static void check_orig(const struct ibv_device_attr *got, const struct ibv_device_attr *exp)
{
	unsigned int maj, min, sub;
	char fw[64], want[64];

	/* fw_ver: the kernel's fw_ver file, as "%d.%d.%04d". */
	ck_assert_int_gt(qt_read_ibdev(ctx, "fw_ver", fw, sizeof(fw)), 0);
	ck_assert_int_eq(sscanf(fw, "%u.%u.%u", &maj, &min, &sub), 3);
	snprintf(want, sizeof(want), "%u.%u.%04u", maj, min, sub);
	ck_assert_str_eq(got->fw_ver, want);
#define EQ(f) ck_assert_msg(got->f == exp->f, #f ": got %llu, expected %llu", \
			    (unsigned long long)got->f, (unsigned long long)exp->f)
	EQ(node_guid); EQ(sys_image_guid); EQ(max_mr_size); EQ(page_size_cap);
	EQ(vendor_id); EQ(vendor_part_id); EQ(hw_ver); EQ(max_qp); EQ(max_qp_wr);
	EQ(device_cap_flags); EQ(max_sge); EQ(max_sge_rd); EQ(max_cq); EQ(max_cqe);
	EQ(max_mr); EQ(max_pd); EQ(max_qp_rd_atom); EQ(max_ee_rd_atom);
	EQ(max_res_rd_atom); EQ(max_qp_init_rd_atom); EQ(max_ee_init_rd_atom);
	EQ(atomic_cap); EQ(max_ee); EQ(max_rdd); EQ(max_mw); EQ(max_raw_ipv6_qp);
	EQ(max_raw_ethy_qp); EQ(max_mcast_grp); EQ(max_mcast_qp_attach);
	EQ(max_total_mcast_qp_attach); EQ(max_ah); EQ(max_fmr); EQ(max_map_per_fmr);
	EQ(max_srq); EQ(max_srq_wr); EQ(max_srq_sge); EQ(max_pkeys);
	EQ(local_ca_ack_delay); EQ(phys_port_cnt);
#undef EQ
}

START_TEST(test_query_device_derived)
{
	struct ibv_device_attr_ex exp;
	struct ibv_device_attr attr;

	expected_attr(&exp);
	memset(&attr, 0xa5, sizeof(attr));
	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	check_orig(&attr, &exp.orig_attr);
}
END_TEST

/* The identity the rest of the device shows agrees. */
START_TEST(test_query_device_identity)
{
	struct ibv_device_attr attr;
	char buf[64];

	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	ck_assert_uint_eq(attr.vendor_id, 0x02c9);
	ck_assert_uint_eq(attr.vendor_part_id, 4125);
	ck_assert(attr.node_guid == ibv_get_device_guid(ctx->device));
	ck_assert(attr.node_guid != 0 && attr.sys_image_guid != 0);
	ck_assert_int_gt(qt_read_ibdev(ctx, "device/device", buf, sizeof(buf)), 0);
	ck_assert_uint_eq(strtoul(buf, NULL, 0), attr.vendor_part_id);
	ck_assert_uint_eq(attr.phys_port_cnt, QT_GEN(&caps, num_ports));
	/* pyverbs' verify_device_attr. */
	ck_assert(attr.max_mr_size > 4096 && attr.page_size_cap >= 4096);
	ck_assert(attr.max_qp > 0 && attr.max_qp_wr > 0 && attr.max_sge > 0);
	ck_assert(attr.max_cq > 0 && attr.max_cqe > 0 && attr.max_mr > 0);
	ck_assert(attr.max_pd > 0 && attr.max_pkeys > 0);
}
END_TEST

static void check_ex(const struct ibv_device_attr_ex *got,
		     const struct ibv_device_attr_ex *exp)
{
	check_orig(&got->orig_attr, &exp->orig_attr);
	ck_assert_uint_eq(got->comp_mask, 0);
	ck_assert(!memcmp(&got->odp_caps, &exp->odp_caps, sizeof(got->odp_caps)));
#define EQ(f) ck_assert_msg(got->f == exp->f, #f ": got %llu, expected %llu", \
			    (unsigned long long)got->f, (unsigned long long)exp->f)
	EQ(completion_timestamp_mask); EQ(hca_core_clock); EQ(device_cap_flags_ex);
	EQ(tso_caps.max_tso); EQ(tso_caps.supported_qpts);
	EQ(rss_caps.supported_qpts); EQ(rss_caps.max_rwq_indirection_tables);
	EQ(rss_caps.max_rwq_indirection_table_size); EQ(rss_caps.rx_hash_fields_mask);
	EQ(rss_caps.rx_hash_function); EQ(max_wq_type_rq);
	EQ(packet_pacing_caps.qp_rate_limit_min); EQ(packet_pacing_caps.qp_rate_limit_max);
	EQ(packet_pacing_caps.supported_qpts); EQ(raw_packet_caps);
	EQ(tm_caps.max_rndv_hdr_size); EQ(tm_caps.max_num_tags); EQ(tm_caps.flags);
	EQ(tm_caps.max_ops); EQ(tm_caps.max_sge);
	EQ(cq_mod_caps.max_cq_count); EQ(cq_mod_caps.max_cq_period); EQ(max_dm_size);
	EQ(pci_atomic_caps.fetch_add); EQ(pci_atomic_caps.swap);
	EQ(pci_atomic_caps.compare_swap); EQ(xrc_odp_caps); EQ(phys_port_cnt_ex);
#undef EQ
}

START_TEST(test_query_device_ex_derived)
{
	struct ibv_device_attr_ex exp, attr;

	expected_attr(&exp);
	memset(&attr, 0xa5, sizeof(attr));
	ck_assert_int_eq(ibv_query_device_ex(ctx, NULL, &attr), 0);
	check_ex(&attr, &exp);
	/* A zeroed input is accepted too. */
	{
		struct ibv_query_device_ex_input in = { 0 };

		memset(&attr, 0xa5, sizeof(attr));
		ck_assert_int_eq(ibv_query_device_ex(ctx, &in, &attr), 0);
		check_ex(&attr, &exp);
	}
}
END_TEST

/* The op is installed: the inline wrapper does not fall back to legacy. */
START_TEST(test_query_device_ex_op)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct ibv_device_attr_ex exp, attr;

	ck_assert_ptr_nonnull(vctx);
	expected_attr(&exp);
	memset(&attr, 0xa5, sizeof(attr));
	ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &attr, sizeof(attr)), 0);
	check_ex(&attr, &exp);
}
END_TEST

START_TEST(test_query_device_ex_comp_mask)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_device_attr_ex attr, before;

	memset(&attr, 0x5a, sizeof(attr));
	before = attr;
	ck_assert_int_eq(ibv_query_device_ex(ctx, &in, &attr), EINVAL);
	ck_assert_int_eq(vctx->query_device_ex(ctx, &in, &attr, sizeof(attr)), EINVAL);
	in.comp_mask = 1u << 31;
	ck_assert_int_eq(vctx->query_device_ex(ctx, &in, &attr, sizeof(attr)), EINVAL);
	/* Bad input changes nothing. */
	ck_assert(!memcmp(&attr, &before, sizeof(attr)));
}
END_TEST

START_TEST(test_query_device_ex_short_size)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct ibv_device_attr_ex attr, before;

	memset(&attr, 0x5a, sizeof(attr));
	before = attr;
	ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &attr,
					       sizeof(attr.orig_attr) - 1), EINVAL);
	ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &attr, 0), EINVAL);
	ck_assert(!memcmp(&attr, &before, sizeof(attr)));
}
END_TEST

/* Only what attr_size covers is written; a field is copied only whole. */
START_TEST(test_query_device_ex_attr_size)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct ibv_device_attr_ex exp, attr;
	size_t sizes[] = {
		sizeof(struct ibv_device_attr),
		offsetof(struct ibv_device_attr_ex, phys_port_cnt_ex),
		offsetof(struct ibv_device_attr_ex, pci_atomic_caps) + 2,
		offsetof(struct ibv_device_attr_ex, tso_caps),
	};

	expected_attr(&exp);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t sz = sizes[i];
		const uint8_t *p = (const uint8_t *)&attr;

		memset(&attr, 0x5a, sizeof(attr));
		ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &attr, sz), 0);
		check_orig(&attr.orig_attr, &exp.orig_attr);
		for (size_t b = sz; b < sizeof(attr); b++)
			ck_assert_msg(p[b] == 0x5a, "size %zu: byte %zu written", sz, b);
		if (sz > offsetof(struct ibv_device_attr_ex, completion_timestamp_mask) + 8)
			ck_assert(attr.completion_timestamp_mask ==
				  exp.completion_timestamp_mask);
		if (sz > offsetof(struct ibv_device_attr_ex, pci_atomic_caps) &&
		    sz < offsetof(struct ibv_device_attr_ex, xrc_odp_caps))
			/* Partly covered: zeroed, not copied. */
			ck_assert_uint_eq(attr.pci_atomic_caps.fetch_add, 0);
	}
}
END_TEST

/* A caller with a larger structure gets the tail zeroed. */
START_TEST(test_query_device_ex_larger_size)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct {
		struct ibv_device_attr_ex attr;
		uint8_t tail[24];
	} big;
	struct ibv_device_attr_ex exp;

	expected_attr(&exp);
	memset(&big, 0x5a, sizeof(big));
	ck_assert_int_eq(vctx->query_device_ex(ctx, NULL, &big.attr, sizeof(big)), 0);
	check_ex(&big.attr, &exp);
	for (size_t i = 0; i < sizeof(big.tail); i++)
		ck_assert_uint_eq(big.tail[i], 0);
}
END_TEST

/* A plain ibv_open_device context answers the same. */
START_TEST(test_query_device_plain_context)
{
	struct ibv_context *plain = qt_open(false);
	struct ibv_device_attr_ex exp, attr;

	expected_attr(&exp);
	ck_assert_int_eq(ibv_query_device_ex(plain, NULL, &attr), 0);
	check_ex(&attr, &exp);
	ck_assert_int_eq(ibv_close_device(plain), 0);
}
END_TEST

static Suite *query_device_suite(void)
{
	Suite *s = suite_create("query_device");
	TCase *tc = tcase_create("device");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_query_device_derived);
	tcase_add_test(tc, test_query_device_identity);
	tcase_add_test(tc, test_query_device_ex_derived);
	tcase_add_test(tc, test_query_device_ex_op);
	tcase_add_test(tc, test_query_device_ex_comp_mask);
	tcase_add_test(tc, test_query_device_ex_short_size);
	tcase_add_test(tc, test_query_device_ex_attr_size);
	tcase_add_test(tc, test_query_device_ex_larger_size);
	tcase_add_test(tc, test_query_device_plain_context);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_device_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
