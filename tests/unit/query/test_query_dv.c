/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_query_device and mlx5dv_query_port over the drop-in libraries:
 * flags and comp_mask-gated fields as libmlx5 44 derives them from the
 * kernel's answer and the capability pages, and _mlx5dv_query_port on an
 * Ethernet port outside switchdev mode.
 */
#include <errno.h>
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

static bool rt_ts(unsigned int cap)
{
	return cap == 1 || cap == 2;	/* REAL_TIME, FREE_RUNNING_AND_REAL_TIME */
}

static uint64_t expected_flags(void)
{
	uint64_t f = 0;

	if (QT_GEN(&caps, cqe_version) >= 1)
		f |= MLX5DV_CONTEXT_FLAGS_CQE_V1;
	if (QT_ETH(&caps, multi_pkt_send_wqe))
		f |= MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED;
	if (QT_ETH(&caps, enhanced_multi_pkt_send_wqe))
		f |= MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW;
	if (QT_GEN(&caps, cqe_compression_128))
		f |= MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP;
	if (QT_GEN(&caps, cqe_128_always))
		f |= MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD;
	if (QT_GEN(&caps, qp_packet_based))
		f |= MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE;
	if (rt_ts(QT_GEN(&caps, sq_ts_format)) && rt_ts(QT_GEN(&caps, rq_ts_format)) &&
	    rt_ts(QT_ROCE(&caps, qp_ts_format)))
		f |= MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS;
	return f;
}



START_TEST(test_dv_query_device_all)
{
	struct mlx5dv_context dv;
	uint64_t want_mask;

	memset(&dv, 0xa5, sizeof(dv));
	dv.comp_mask = ~UINT64_C(0);
	ck_assert_int_eq(mlx5dv_query_device(ctx, &dv), 0);
	ck_assert_uint_eq(dv.version, 0);
	ck_assert_uint_eq(dv.flags, expected_flags());

	want_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |
		    MLX5DV_CONTEXT_MASK_STRIDING_RQ | MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
		    MLX5DV_CONTEXT_MASK_DYN_BFREGS | MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS |
		    MLX5DV_CONTEXT_MASK_DC_ODP_CAPS | MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD |
		    MLX5DV_CONTEXT_MASK_DCI_STREAMS | MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH |
		    MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD;
	if (QT_GEN(&caps, num_lag_ports))
		want_mask |= MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS;
	/* The clock-info bit depends on the kernel clock info; the mapped
	 * core clock is never handed out. */
	ck_assert_uint_eq(dv.comp_mask & ~(uint64_t)MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE,
			  want_mask);
	if (dv.comp_mask & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE)
		ck_assert_uint_gt(dv.max_clock_info_update_nsec, 0);

	/* cqe_comp_caps: only with cqe_compression. */
	if (QT_GEN(&caps, cqe_compression)) {
		ck_assert_uint_eq(dv.cqe_comp_caps.max_num,
				  QT_GEN(&caps, cqe_compression_max_num));
		ck_assert_uint_eq(dv.cqe_comp_caps.supported_format,
				  MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM |
				  (QT_GEN(&caps, mini_cqe_resp_stride_index) ?
				   MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX : 0));
	} else {
		ck_assert_uint_eq(dv.cqe_comp_caps.max_num, 0);
		ck_assert_uint_eq(dv.cqe_comp_caps.supported_format, 0);
	}
	if (QT_ETH(&caps, swp)) {
		ck_assert_uint_ne(dv.sw_parsing_caps.sw_parsing_offloads, 0);
		ck_assert_uint_eq(dv.sw_parsing_caps.supported_qpts, 1u << IBV_QPT_RAW_PACKET);
	} else {
		ck_assert_uint_eq(dv.sw_parsing_caps.sw_parsing_offloads, 0);
		ck_assert_uint_eq(dv.sw_parsing_caps.supported_qpts, 0);
	}
	if (QT_GEN(&caps, striding_rq)) {
		ck_assert_uint_eq(dv.striding_rq_caps.min_single_stride_log_num_of_bytes, 6);
		ck_assert_uint_eq(dv.striding_rq_caps.max_single_stride_log_num_of_bytes, 13);
		ck_assert_uint_eq(dv.striding_rq_caps.min_single_wqe_log_num_of_strides,
				  QT_GEN(&caps, ext_stride_num_range) ? 3 : 9);
		ck_assert_uint_eq(dv.striding_rq_caps.max_single_wqe_log_num_of_strides, 16);
		ck_assert_uint_eq(dv.striding_rq_caps.supported_qpts, 1u << IBV_QPT_RAW_PACKET);
	} else {
		ck_assert_uint_eq(dv.striding_rq_caps.min_single_stride_log_num_of_bytes, 0);
		ck_assert_uint_eq(dv.striding_rq_caps.supported_qpts, 0);
	}
	ck_assert_uint_eq(dv.tunnel_offloads_caps,
			  (QT_ETH(&caps, tunnel_stateless_vxlan) ? 1u : 0) |
			  (QT_ETH(&caps, tunnel_stateless_gre) ? 2u : 0) |
			  (QT_ETH(&caps, tunnel_stateless_geneve_rx) ? 4u : 0) |
			  (QT_ETH(&caps, tunnel_stateless_mpls_over_gre) ? 8u : 0) |
			  (QT_ETH(&caps, tunnel_stateless_mpls_over_udp) ? 16u : 0));
	ck_assert_uint_eq(dv.max_dynamic_bfregs, 0);
	ck_assert_uint_eq(dv.flow_action_flags, 0);
	/* get_dc_odp_caps(): the ODP page's DC dword at bit 0x100, read
	 * whatever the backend (libmlx5 asks the device itself). */
	ck_assert_uint_eq(dv.dc_odp_caps, qt_odp_bits(&caps, 0x100));
	ck_assert_uint_eq(dv.dci_streams_caps.max_log_num_concurent,
			  QT_GEN(&caps, log_max_dci_stream_channels));
	ck_assert_uint_eq(dv.dci_streams_caps.max_log_num_errored,
			  QT_GEN(&caps, log_max_dci_errored_streams));
	if (QT_GEN(&caps, sho) && QT_GEN(&caps, sigerr_domain_and_sig_type)) {
		ck_assert_uint_ne(dv.sig_caps.block_prot, 0);
	} else {
		ck_assert_uint_eq(dv.sig_caps.block_size, 0);
		ck_assert_uint_eq(dv.sig_caps.block_prot, 0);
		ck_assert_uint_eq(dv.sig_caps.t10dif_bg, 0);
		ck_assert_uint_eq(dv.sig_caps.crc_type, 0);
	}
	if (QT_GEN(&caps, dma_mmo_sq) || QT_GEN(&caps, dma_mmo_qp))
		ck_assert_uint_eq(dv.max_wr_memcpy_length,
				  QT_GEN(&caps, log_dma_mmo_max_size) ?
				  UINT64_C(1) << QT_GEN(&caps, log_dma_mmo_max_size) :
				  UINT64_C(1) << 31);
	else
		ck_assert_uint_eq(dv.max_wr_memcpy_length, 0);
	ck_assert_uint_eq(dv.crypto_caps.flags,
			  QT_GEN(&caps, crypto) ? MLX5DV_CRYPTO_CAPS_CRYPTO : 0);
	if (!QT_GEN(&caps, aes_xts_single_block_le_tweak) &&
	    !QT_GEN(&caps, aes_xts_multi_block_be_tweak))
		ck_assert_uint_eq(dv.crypto_caps.crypto_engines, 0);
}
END_TEST

/* Nothing asked, nothing gated answered; the flags always are. */
START_TEST(test_dv_query_device_no_mask)
{
	struct mlx5dv_context dv;

	memset(&dv, 0xa5, sizeof(dv));
	dv.comp_mask = 0;
	ck_assert_int_eq(mlx5dv_query_device(ctx, &dv), 0);
	ck_assert_uint_eq(dv.comp_mask, 0);
	ck_assert_uint_eq(dv.version, 0);
	ck_assert_uint_eq(dv.flags, expected_flags());
	/* Gated fields are left alone. */
	ck_assert_uint_eq(dv.tunnel_offloads_caps, 0xa5a5a5a5);
}
END_TEST

/* Unknown bits are dropped from comp_mask, known ones kept one by one. */
START_TEST(test_dv_query_device_some_mask)
{
	struct mlx5dv_context dv;

	memset(&dv, 0xa5, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_DYN_BFREGS | (UINT64_C(1) << 40) |
		       MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK;
	ck_assert_int_eq(mlx5dv_query_device(ctx, &dv), 0);
	ck_assert_uint_eq(dv.comp_mask, MLX5DV_CONTEXT_MASK_DYN_BFREGS);
	ck_assert_uint_eq(dv.max_dynamic_bfregs, 0);
}
END_TEST

/* A plain ibv_open_device context is an mlx5 context as well. */
START_TEST(test_dv_query_device_plain)
{
	struct ibv_context *plain = qt_open(false);
	struct mlx5dv_context dv = { .comp_mask = 0 };

	ck_assert_int_eq(mlx5dv_query_device(plain, &dv), 0);
	ck_assert_uint_eq(dv.flags, expected_flags());
	ck_assert_int_eq(ibv_close_device(plain), 0);
}
END_TEST

START_TEST(test_dv_query_port)
{
	unsigned int n = qt_num_ports(&caps);

	for (unsigned int p = 1; p <= n; p++) {
		struct mlx5dv_port info;

		memset(&info, 0xa5, sizeof(info));
		ck_assert_int_eq(mlx5dv_query_port(ctx, p, &info), 0);
		/* Not in switchdev mode: nothing to report. */
		ck_assert_uint_eq(info.flags, 0);
		ck_assert_uint_eq(info.vport, 0);
		ck_assert_uint_eq(info.vport_vhca_id, 0);
		ck_assert_uint_eq(info.esw_owner_vhca_id, 0);
		ck_assert_uint_eq(info.vport_steering_icm_rx, 0);
		ck_assert_uint_eq(info.vport_steering_icm_tx, 0);
		ck_assert_uint_eq(info.reg_c0.value, 0);
		ck_assert_uint_eq(info.reg_c0.mask, 0);
	}
}
END_TEST

START_TEST(test_dv_query_port_bad)
{
	unsigned int n = qt_num_ports(&caps);
	struct {
		struct mlx5dv_port info;
		uint8_t tail[8];
	} big;
	struct mlx5dv_port before;

	memset(&big, 0x5a, sizeof(big));
	before = big.info;
	ck_assert_int_eq(mlx5dv_query_port(ctx, 0, &big.info), EINVAL);
	ck_assert_int_eq(mlx5dv_query_port(ctx, n + 1, &big.info), EINVAL);
	ck_assert_int_eq(mlx5dv_query_port(ctx, UINT32_MAX, &big.info), EINVAL);
	ck_assert_int_eq(_mlx5dv_query_port(ctx, 1, &big.info, sizeof(big.info) - 1),
			 EINVAL);
	ck_assert_int_eq(_mlx5dv_query_port(ctx, 1, &big.info, sizeof(big)), EINVAL);
	ck_assert_int_eq(_mlx5dv_query_port(ctx, 1, &big.info, 0), EINVAL);
	ck_assert(!memcmp(&big.info, &before, sizeof(before)));
}
END_TEST

static Suite *query_dv_suite(void)
{
	Suite *s = suite_create("query_dv");
	TCase *tc = tcase_create("dv");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dv_query_device_all);
	tcase_add_test(tc, test_dv_query_device_no_mask);
	tcase_add_test(tc, test_dv_query_device_some_mask);
	tcase_add_test(tc, test_dv_query_device_plain);
	tcase_add_test(tc, test_dv_query_port);
	tcase_add_test(tc, test_dv_query_port_bad);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_dv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
