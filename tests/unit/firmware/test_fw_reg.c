/* SPDX-License-Identifier: MIT */
/*
 * ACCESS_REG: PTYS and PMTU read and written as mlx5_core does
 * (mlx5_core_access_reg: op_mod 1 reads, 0 writes), every refusal, and the
 * device configuration they start from.  Expected values are written out
 * by hand: the extended link modes 1, 4..10 (0x7f2), 100GBASE-CR4 is bit 9.
 */
#include <errno.h>
#include <stdlib.h>

#include "ut_run.h"

#include "fw_test_util.h"

#define HDR PRM_BYTE_OFF(access_register_in, register_data)
#define REG(m) ((uint8_t *)(m)->in + HDR)
#define OUTREG(m) ((uint8_t *)(m)->out + HDR)

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

/* An ACCESS_REG of register @id (@bytes of it) at @port, read or write. */
static void reg_mbox(struct fwt_mbox *m, uint16_t id, size_t bytes,
		     bool write, uint32_t port)
{
	fwt_mbox_init(m, MLX5_CMD_OP_ACCESS_REG, write ? 0 : 1, 0, HDR + bytes,
		      HDR + bytes);
	PRM_SET(access_register_in, m->in, register_id, id);
	if (id == MLX5_REG_PTYS) {
		PRM_SET(ptys_reg, REG(m), local_port, port);
		PRM_SET(ptys_reg, REG(m), proto_mask, 4);	/* Ethernet */
	} else {
		PRM_SET(pmtu_reg, REG(m), local_port, port);
	}
}

#define PTYS(m, w, p) reg_mbox((m), 0x5004, PRM_ST_SZ_BYTES(ptys_reg), (w), (p))
#define PMTU(m, w, p) reg_mbox((m), 0x5003, PRM_ST_SZ_BYTES(pmtu_reg), (w), (p))

START_TEST(ptys_read)
{
	struct fwt_mbox m;

	PTYS(&m, false, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), local_port), 1);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), proto_mask), 4);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_capability), 0x7f2);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_admin), 0x7f2);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_oper), 1u << 9);
	/* No legacy modes and no IB protocols on this port. */
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), eth_proto_capability), 0);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), eth_proto_oper), 0);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ib_proto_oper), 0);
	/* With the link down no mode runs. */
	ck_assert_int_eq(emu_fw_port_set_link(fw, 1, false), 0);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_oper), 0);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_capability), 0x7f2);
}
END_TEST

/* The link comes up at the fastest admin mode, the lowest bit among equals. */
START_TEST(ptys_write)
{
	static const struct { uint32_t admin, oper; } w[] = {
		{ 1u << 6, 1u << 6 },			/* 25G only */
		{ 1u << 6 | 1u << 9, 1u << 9 },		/* 25G, 100G: 100G */
		{ 1u << 7 | 1u << 8, 1u << 7 },		/* 50G x2 lanes, x1 */
		{ 1u << 9 | 1u << 10, 1u << 9 },	/* 100G x4, x2 */
		{ 1u << 1 | 1u << 4 | 1u << 5, 1u << 5 },	/* 1G, 10G, 40G */
		{ 0x7f2, 1u << 9 },
	};
	struct fwt_mbox m, r;

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		PTYS(&m, true, 1);
		PRM_SET(ptys_reg, REG(&m), ext_eth_proto_admin, w[i].admin);
		fwt_exec(fw, &m);
		ck_fw_ok(&m);
		PTYS(&r, false, 1);
		fwt_exec(fw, &r);
		ck_fw_ok(&r);
		ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&r), ext_eth_proto_admin),
				  w[i].admin);
		ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&r), ext_eth_proto_oper),
				  w[i].oper);
	}
}
END_TEST

START_TEST(ptys_refused)
{
	static const uint32_t bad_admin[] = {
		0, 1u << 0, 1u << 11, 1u << 9 | 1u << 12, 0xffffffff,
	};
	struct fwt_mbox m, r;

	for (size_t i = 0; i < sizeof(bad_admin) / sizeof(bad_admin[0]); i++) {
		PTYS(&m, true, 1);
		PRM_SET(ptys_reg, REG(&m), ext_eth_proto_admin, bad_admin[i]);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, REG_BAD_ETH_PROTO);
	}
	for (uint32_t port = 0; port < 256; port += 2) {	/* 0, 2, ... */
		PTYS(&m, false, port);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, REG_BAD_PORT);
	}
	PTYS(&m, false, 1);
	PRM_SET(ptys_reg, REG(&m), proto_mask, 1);	/* InfiniBand only */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, REG_BAD_PROTO);
	/* Nothing changed: still 100G. */
	PTYS(&r, false, 1);
	fwt_exec(fw, &r);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&r), ext_eth_proto_oper), 1u << 9);
}
END_TEST

START_TEST(pmtu_read_write)
{
	struct fwt_mbox m, v;

	PMTU(&m, false, 1);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), local_port), 1);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), max_mtu), 10000);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), admin_mtu), 1522);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), oper_mtu), 1522);

	PMTU(&m, true, 1);
	PRM_SET(pmtu_reg, REG(&m), admin_mtu, 9022);
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	PMTU(&m, false, 1);
	fwt_exec(fw, &m);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), admin_mtu), 9022);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), oper_mtu), 9022);
	/* The NIC vport context shows the MTU the port runs with. */
	fwt_mbox_init(&v, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, 0, 16,
		      PRM_ST_SZ_BYTES(query_nic_vport_context_out));
	fwt_exec(fw, &v);
	ck_fw_ok(&v);
	ck_assert_uint_eq(PRM_GET(nic_vport_context,
				  PRM_ADDR_OF(query_nic_vport_context_out, v.out,
					      nic_vport_context), mtu), 9022);
}
END_TEST

START_TEST(pmtu_refused)
{
	static const uint32_t bad[] = { 0, 63, 10001, 0xffff };
	struct fwt_mbox m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		PMTU(&m, true, 1);
		PRM_SET(pmtu_reg, REG(&m), admin_mtu, bad[i]);
		fwt_exec(fw, &m);
		ck_fw_synd(&m, REG_BAD_MTU);
	}
	PMTU(&m, true, 1);
	PRM_SET(pmtu_reg, REG(&m), admin_mtu, 64);	/* the smallest */
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	PMTU(&m, true, 1);
	PRM_SET(pmtu_reg, REG(&m), admin_mtu, 10000);	/* max_mtu */
	fwt_exec(fw, &m);
	ck_fw_ok(&m);
	PMTU(&m, false, 3);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, REG_BAD_PORT);
}
END_TEST

/* The command itself: register ids, lengths, op_mod, the kernel only. */
START_TEST(access_reg_command)
{
	struct fwt_mbox m;
	uint16_t uid = fwt_uctx(fw);

	PTYS(&m, false, 1);
	PRM_SET(access_register_in, m.in, register_id, 0x5006);	/* PAOS */
	fwt_exec(fw, &m);
	ck_fw_synd(&m, REG_NOT_SUPPORTED);
	PTYS(&m, false, 1);
	m.inlen -= 4;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_INLEN);
	PMTU(&m, false, 1);
	m.outlen -= 4;
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OUTLEN);
	PMTU(&m, false, 1);
	PRM_SET(mbox_in, m.in, op_mod, 2);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, BAD_OP_MOD);
	PMTU(&m, false, 1);
	PRM_SET(mbox_in, m.in, uid, uid);
	fwt_exec(fw, &m);
	ck_fw_synd(&m, UID_NOT_ALLOWED);
}
END_TEST

/* A second port has registers of its own. */
static void two_ports_cfg(struct emu_fw_config *cfg)
{
	cfg->num_ports = 2;
	cfg->port[1].eth_link_mode = 6;		/* 25GAUI-1 */
	cfg->port[1].mtu = 4200;
}

START_TEST(config_per_port)
{
	struct emu_fw_config cfg;
	struct emu_fw *fw2;
	struct fwt_mbox m;

	emu_fw_config_default(&cfg);
	ck_assert_uint_eq(cfg.port[0].eth_link_mode, 9);
	ck_assert_uint_eq(cfg.port[0].mtu, 1522);
	two_ports_cfg(&cfg);
	fw2 = emu_fw_create(&cfg);
	ck_assert_ptr_nonnull(fw2);
	PTYS(&m, false, 2);
	fwt_exec(fw2, &m);
	ck_fw_ok(&m);
	ck_assert_uint_eq(PRM_GET(ptys_reg, OUTREG(&m), ext_eth_proto_oper), 1u << 6);
	PMTU(&m, false, 2);
	fwt_exec(fw2, &m);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), oper_mtu), 4200);
	PMTU(&m, false, 1);
	fwt_exec(fw2, &m);
	ck_assert_uint_eq(PRM_GET(pmtu_reg, OUTREG(&m), oper_mtu), 1522);
	emu_fw_destroy(fw2);

	/* A mode the port does not have, an MTU out of range: refused. */
	emu_fw_config_default(&cfg);
	cfg.port[0].eth_link_mode = 11;
	errno = 0;
	ck_assert_ptr_null(emu_fw_create(&cfg));
	ck_assert_int_eq(errno, EINVAL);
	emu_fw_config_default(&cfg);
	cfg.port[0].mtu = 10001;
	ck_assert_ptr_null(emu_fw_create(&cfg));
	emu_fw_config_default(&cfg);
	cfg.port[0].mtu = 63;
	ck_assert_ptr_null(emu_fw_create(&cfg));
}
END_TEST

static Suite *fw_reg_suite(void)
{
	Suite *s = suite_create("fw_reg");
	TCase *tc = tcase_create("reg");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ptys_read);
	tcase_add_test(tc, ptys_write);
	tcase_add_test(tc, ptys_refused);
	tcase_add_test(tc, pmtu_read_write);
	tcase_add_test(tc, pmtu_refused);
	tcase_add_test(tc, access_reg_command);
	tcase_add_test(tc, config_per_port);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return ut_run(fw_reg_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
