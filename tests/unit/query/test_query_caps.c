/* SPDX-License-Identifier: MIT */
/*
 * provider/core/caps.c against the emulated device, inside the core
 * (linked with the internal library): the pages cached at context open are
 * the device's pages, fetched with the kernel's gates; absent pages read as
 * zeroes; the shared derivations; prov_cmd_exec's status mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/cmd.h"
#include "provider/core/context.h"
#include "ut_core.h"

MLX5EMU_ABI(ibv_get_device_list);
MLX5EMU_ABI(ibv_free_device_list);
MLX5EMU_ABI(ibv_open_device);
MLX5EMU_ABI(ibv_close_device);

static struct ibv_context *ctx;
static struct prov_context *pctx;

static void setup(void)
{
	ctx = ut_core_open();
	pctx = to_prov_context(ctx);
}

static void teardown(void)
{
	ut_core_close(ctx);
}

/* The page as the device answers it now, or NULL. */
static uint8_t *device_page(unsigned int type)
{
	uint8_t *page = malloc(PROV_CAP_PAGE_BYTES);

	ck_assert_ptr_nonnull(page);
	if (prov_caps_query_page(pctx->be, pctx->bectx, type,
				 HCA_CAP_OPMOD_GET_CUR, page)) {
		free(page);
		return NULL;
	}
	return page;
}

START_TEST(test_general_page)
{
	const void *cached = prov_caps_get(pctx, MLX5_CAP_GENERAL);
	uint8_t *now = device_page(MLX5_CAP_GENERAL);

	ck_assert_ptr_nonnull(cached);
	ck_assert_ptr_nonnull(now);
	ck_assert(!memcmp(cached, now, PROV_CAP_PAGE_BYTES));
	ck_assert_ptr_eq(prov_caps_page(pctx, MLX5_CAP_GENERAL), cached);
	ck_assert_uint_eq(PROV_CAP_GEN(pctx, port_type), MLX5_CAP_PORT_TYPE_ETH);
	free(now);
}
END_TEST

/* Each page is cached exactly when the kernel would fetch it. */
START_TEST(test_gated_pages)
{
	static const struct {
		unsigned int type;
		const char *gate;
		unsigned int off;	/* bit offset of the gate in cmd_hca_cap */
	} gates[] = {
		{ MLX5_CAP_ETHERNET_OFFLOADS, "eth_net_offloads",
		  PRM_BIT_OFF(cmd_hca_cap, eth_net_offloads) },
		{ MLX5_CAP_ROCE, "roce", PRM_BIT_OFF(cmd_hca_cap, roce) },
		{ MLX5_CAP_ATOMIC, "atomic", PRM_BIT_OFF(cmd_hca_cap, atomic) },
		{ MLX5_CAP_ODP, "pg", PRM_BIT_OFF(cmd_hca_cap, pg) },
		{ MLX5_CAP_QOS, "qos", PRM_BIT_OFF(cmd_hca_cap, qos) },
		{ MLX5_CAP_DEV_MEM, "device_memory", PRM_BIT_OFF(cmd_hca_cap, device_memory) },
		{ MLX5_CAP_GENERAL_2, "hca_cap_2", PRM_BIT_OFF(cmd_hca_cap, hca_cap_2) },
		{ MLX5_CAP_CRYPTO, "crypto", PRM_BIT_OFF(cmd_hca_cap, crypto) },
		{ MLX5_CAP_DEBUG, "debug", PRM_BIT_OFF(cmd_hca_cap, debug) },
	};
	const uint8_t *gen = prov_caps_get(pctx, MLX5_CAP_GENERAL);

	for (size_t i = 0; i < sizeof(gates) / sizeof(gates[0]); i++) {
		unsigned int off = gates[i].off;
		bool advertised = gen[off / 8] & (0x80 >> (off % 8));
		const void *cached = prov_caps_get(pctx, gates[i].type);

		if (!advertised) {
			ck_assert_msg(!cached, "%s not advertised, page cached", gates[i].gate);
			continue;
		}
		ck_assert_msg(cached, "%s advertised, page missing", gates[i].gate);
		{
			uint8_t *now = device_page(gates[i].type);

			ck_assert_ptr_nonnull(now);
			ck_assert(!memcmp(cached, now, PROV_CAP_PAGE_BYTES));
			free(now);
		}
	}
	/* This device advertises Ethernet offloads, RoCE, atomics and ODP. */
	ck_assert_ptr_nonnull(prov_caps_get(pctx, MLX5_CAP_ODP));
	ck_assert_uint_eq(PROV_CAP_ODP(pctx, transport_page_fault_scheme_cap.rc_odp_caps.send), 1);
	ck_assert_ptr_nonnull(prov_caps_get(pctx, MLX5_CAP_ETHERNET_OFFLOADS));
	ck_assert_ptr_nonnull(prov_caps_get(pctx, MLX5_CAP_ROCE));
	ck_assert_ptr_nonnull(prov_caps_get(pctx, MLX5_CAP_ATOMIC));
}
END_TEST

START_TEST(test_absent_pages)
{
	/* No device memory: its page is not read, and reads as zeros. */
	const uint8_t *zero = prov_caps_page(pctx, MLX5_CAP_DEV_MEM);

	ck_assert_ptr_null(prov_caps_get(pctx, MLX5_CAP_DEV_MEM));
	for (size_t i = 0; i < PROV_CAP_PAGE_BYTES; i++)
		ck_assert_uint_eq(zero[i], 0);
	ck_assert_ptr_null(prov_caps_get(pctx, MLX5_CAP_NUM));
	ck_assert_ptr_null(prov_caps_get(pctx, 0xffff));
	ck_assert_ptr_nonnull(prov_caps_page(pctx, 0xffff));
}
END_TEST

START_TEST(test_derivations)
{
	unsigned int n = PROV_CAP_GEN(pctx, num_ports);
	unsigned int v = PROV_CAP_GEN(pctx, num_vhca_ports);
	unsigned int cqe = PROV_CAP_GEN(pctx, cqe_version);

	ck_assert_uint_eq(prov_caps_num_ports(pctx), n > v ? n : v);
	ck_assert_uint_eq(prov_caps_cqe_version(pctx), cqe > 1 ? 1 : cqe);
	ck_assert_uint_eq(prov_caps_cqe_version(pctx), 1);
	ck_assert_uint_eq(prov_caps_atomic_cap(pctx), IBV_ATOMIC_HCA);
}
END_TEST

START_TEST(test_cmd_exec_status)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = { 0 };
	uint8_t *out = calloc(1, PRM_ST_SZ_BYTES(query_hca_cap_out));
	uint8_t page[PROV_CAP_PAGE_BYTES];

	ck_assert_ptr_nonnull(out);
	/* A capability type this firmware does not know: BAD_PARAM. */
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod, (MLX5_CAP_SHAMPO << 1) | 1);
	ck_assert_int_eq(pctx->be->general_cmd(pctx->bectx, in, sizeof(in), out,
					       PRM_ST_SZ_BYTES(query_hca_cap_out)),
			 -EREMOTEIO);
	ck_assert_uint_eq(PRM_GET(mbox_out, out, status), MLX5_CMD_STAT_BAD_PARAM_ERR);
	ck_assert_int_eq(prov_cmd_exec(pctx, in, sizeof(in), out,
				       PRM_ST_SZ_BYTES(query_hca_cap_out)), EINVAL);
	ck_assert_int_eq(prov_caps_query_page(pctx->be, pctx->bectx, MLX5_CAP_SHAMPO,
					      HCA_CAP_OPMOD_GET_CUR, page), EREMOTEIO);
	/* And a good one maps to 0. */
	PRM_SET(query_hca_cap_in, in, op_mod, (MLX5_CAP_GENERAL << 1) | 1);
	ck_assert_int_eq(prov_cmd_exec(pctx, in, sizeof(in), out,
				       PRM_ST_SZ_BYTES(query_hca_cap_out)), 0);
	free(out);
}
END_TEST

/* Contexts have pages of their own; closing one leaves the other's. */
START_TEST(test_per_context)
{
	struct ibv_device **list = mlx5emu_abi_ibv_get_device_list(NULL);
	struct ibv_context *other = mlx5emu_abi_ibv_open_device(list[0]);
	const void *mine = prov_caps_get(pctx, MLX5_CAP_GENERAL);
	const void *theirs;

	mlx5emu_abi_ibv_free_device_list(list);
	ck_assert_ptr_nonnull(other);
	theirs = prov_caps_get(to_prov_context(other), MLX5_CAP_GENERAL);
	ck_assert_ptr_ne(mine, theirs);
	ck_assert(!memcmp(mine, theirs, PROV_CAP_PAGE_BYTES));
	ck_assert_int_eq(mlx5emu_abi_ibv_close_device(other), 0);
	ck_assert_uint_eq(PROV_CAP_GEN(pctx, port_type), MLX5_CAP_PORT_TYPE_ETH);
}
END_TEST

static Suite *query_caps_suite(void)
{
	Suite *s = suite_create("query_caps");
	TCase *tc = tcase_create("caps");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_general_page);
	tcase_add_test(tc, test_gated_pages);
	tcase_add_test(tc, test_absent_pages);
	tcase_add_test(tc, test_derivations);
	tcase_add_test(tc, test_cmd_exec_status);
	tcase_add_test(tc, test_per_context);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(query_caps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
