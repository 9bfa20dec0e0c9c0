/*
 * tests/unit/kernel/test_kern_devx_rules.c -- the kernel DEVX layer's pure
 * mailbox rules (emu/kernel/kern_devx_rules.[ch]).
 *
 * Expectations are written out independently of the module's tables: the
 * opcode lists are transcribed by name from Linux
 * drivers/infiniband/hw/mlx5/devx.c (devx_is_general_cmd,
 * devx_is_obj_create_cmd, devx_is_obj_modify_cmd, devx_is_obj_query_cmd,
 * devx_obj_build_destroy_cmd), field positions are absolute bit offsets
 * from include/linux/mlx5/mlx5_ifc.h, and mailboxes are read and written
 * with a bit-at-a-time big-endian helper of this file.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/kernel/kern_devx_rules.h"
#include "prm/prm_cmd.h"

/* ---- independent bit access (PRM: bit 0 is the MSB of byte 0) ---- */
static void put_bits(void *buf, unsigned int off, unsigned int width, uint64_t v)
{
	uint8_t *b = buf;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int bit = off + i;
		unsigned int shift = 7 - bit % 8;
		uint8_t m = (uint8_t)(1u << shift);

		if ((v >> (width - 1 - i)) & 1)
			b[bit / 8] |= m;
		else
			b[bit / 8] &= (uint8_t)~m;
	}
}

static uint64_t get_bits(const void *buf, unsigned int off, unsigned int width)
{
	const uint8_t *b = buf;
	uint64_t v = 0;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int bit = off + i;

		v = v << 1 | ((b[bit / 8] >> (7 - bit % 8)) & 1);
	}
	return v;
}

static unsigned int popcount_buf(const uint8_t *b, size_t n)
{
	unsigned int c = 0;

	for (size_t i = 0; i < n; i++)
		c += (unsigned int)__builtin_popcount(b[i]);
	return c;
}

/* Deterministic noise for "other bytes" of a mailbox. */
static void fill_noise(uint8_t *b, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

static uint64_t mask_of(unsigned int width)
{
	return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

/* Header: opcode bits 0..15, uid 16..31, vhca_tunnel_id 32..47, op_mod /
 * obj_type 48..63, obj_id 64..95 (mbox_in / general_obj_in_cmd_hdr). */
#define OFF_OPCODE 0x00
#define OFF_UID 0x10
#define OFF_VHCA_TUNNEL 0x20
#define OFF_OP_MOD 0x30
#define OFF_OBJ_TYPE 0x30
#define OFF_OBJ_ID 0x40

enum { MBOX = 4096 };

static void set_op(void *in, uint16_t op)
{
	put_bits(in, OFF_OPCODE, 16, op);
}

/* ---- all opcodes known to prm/ ---- */
struct opname {
	const char *name;
	uint16_t value;
};

static const struct opname all_ops[] = {
#define PRM_OPCODE(n, v) { #n, (v) },
#include "prm/opcodes.def"
#undef PRM_OPCODE
};

#define NOPS (sizeof(all_ops) / sizeof(all_ops[0]))

static int op_by_name(const char *name)
{
	for (size_t i = 0; i < NOPS; i++)
		if (!strcmp(all_ops[i].name, name))
			return all_ops[i].value;
	return -1;
}

/* ---- the expectation lists, from devx.c, by name ---- */
static const char *const exp_general[] = {	/* devx_is_general_cmd */
	"QUERY_HCA_CAP", "QUERY_HCA_VPORT_CONTEXT", "QUERY_ESW_VPORT_CONTEXT",
	"QUERY_VPORT_STATE", "QUERY_ADAPTER", "QUERY_ISSI",
	"QUERY_NIC_VPORT_CONTEXT", "QUERY_ROCE_ADDRESS", "QUERY_VNIC_ENV",
	"QUERY_VPORT_COUNTER", "GET_DROPPED_PACKET_LOG", "NOP",
	"QUERY_CONG_STATUS", "QUERY_CONG_PARAMS", "QUERY_CONG_STATISTICS",
	"QUERY_LAG", "QUERY_ESW_FUNCTIONS",
	/* MLX5_CMD_OP_GENERAL_START (0xb00) <= op < GENERAL_END (0xd00) */
	"SYNC_STEERING", "QUERY_VHCA_STATE", "MODIFY_VHCA_STATE", "SYNC_CRYPTO",
	"ALLOW_OTHER_VHCA_ACCESS", "GENERATE_WQE",
};

static const char *const exp_create[] = {	/* devx_is_obj_create_cmd */
	"CREATE_GENERAL_OBJECT", "CREATE_MKEY", "CREATE_CQ", "ALLOC_PD",
	"ALLOC_TRANSPORT_DOMAIN", "CREATE_RMP", "CREATE_SQ", "CREATE_RQ",
	"CREATE_RQT", "CREATE_TIR", "CREATE_TIS", "ALLOC_Q_COUNTER",
	"CREATE_FLOW_TABLE", "CREATE_FLOW_GROUP", "ALLOC_FLOW_COUNTER",
	"ALLOC_PACKET_REFORMAT_CONTEXT", "ALLOC_MODIFY_HEADER_CONTEXT",
	"CREATE_SCHEDULING_ELEMENT", "ADD_VXLAN_UDP_DPORT", "SET_L2_TABLE_ENTRY",
	"CREATE_QP", "CREATE_SRQ", "CREATE_XRC_SRQ", "CREATE_DCT", "CREATE_XRQ",
	"ATTACH_TO_MCG", "ALLOC_XRCD",
	"SET_FLOW_TABLE_ENTRY",	/* op_mod == 0 */
	"CREATE_PSV",		/* num_psv == 1 */
};

static const char *const exp_modify[] = {	/* devx_is_obj_modify_cmd */
	"MODIFY_GENERAL_OBJECT", "MODIFY_CQ", "MODIFY_RMP", "MODIFY_SQ",
	"MODIFY_RQ", "MODIFY_RQT", "MODIFY_TIR", "MODIFY_TIS",
	"MODIFY_FLOW_TABLE", "MODIFY_SCHEDULING_ELEMENT",
	"ADD_VXLAN_UDP_DPORT", "SET_L2_TABLE_ENTRY", "RST2INIT_QP",
	"INIT2RTR_QP", "INIT2INIT_QP", "RTR2RTS_QP", "RTS2RTS_QP",
	"SQERR2RTS_QP", "2ERR_QP", "2RST_QP", "ARM_XRC_SRQ", "ARM_RQ",
	"ARM_DCT_FOR_KEY_VIOLATION", "ARM_XRQ", "SET_XRQ_DC_PARAMS_ENTRY",
	"RELEASE_XRQ_ERROR", "MODIFY_XRQ",
	"SET_FLOW_TABLE_ENTRY",	/* op_mod == 1 */
};

static const char *const exp_query[] = {	/* devx_is_obj_query_cmd */
	"QUERY_GENERAL_OBJECT", "QUERY_MKEY", "QUERY_CQ", "QUERY_RMP",
	"QUERY_SQ", "QUERY_RQ", "QUERY_RQT", "QUERY_TIR", "QUERY_TIS",
	"QUERY_Q_COUNTER", "QUERY_FLOW_TABLE", "QUERY_FLOW_GROUP",
	"QUERY_FLOW_TABLE_ENTRY", "QUERY_FLOW_COUNTER",
	"QUERY_MODIFY_HEADER_CONTEXT", "QUERY_SCHEDULING_ELEMENT",
	"QUERY_L2_TABLE_ENTRY", "QUERY_QP", "QUERY_SRQ", "QUERY_XRC_SRQ",
	"QUERY_DCT", "QUERY_XRQ", "QUERY_XRQ_DC_PARAMS_ENTRY",
	"QUERY_XRQ_ERROR_PARAMS", "QUERY_PACKET_REFORMAT_CONTEXT",
};

static const char *const exp_destroy[] = {	/* devx_obj_build_destroy_cmd */
	"DESTROY_GENERAL_OBJECT", "DESTROY_UMEM", "DESTROY_MKEY", "DESTROY_CQ",
	"DEALLOC_PD", "DEALLOC_TRANSPORT_DOMAIN", "DESTROY_RMP", "DESTROY_SQ",
	"DESTROY_RQ", "DESTROY_RQT", "DESTROY_TIR", "DESTROY_TIS",
	"DEALLOC_Q_COUNTER", "DESTROY_FLOW_TABLE", "DESTROY_FLOW_GROUP",
	"DELETE_FLOW_TABLE_ENTRY", "DEALLOC_FLOW_COUNTER",
	"DEALLOC_PACKET_REFORMAT_CONTEXT", "DEALLOC_MODIFY_HEADER_CONTEXT",
	"DESTROY_SCHEDULING_ELEMENT", "DELETE_VXLAN_UDP_DPORT",
	"DELETE_L2_TABLE_ENTRY", "DESTROY_QP", "DESTROY_SRQ", "DESTROY_XRC_SRQ",
	"DESTROY_DCT", "DESTROY_XRQ", "DETACH_FROM_MCG", "DEALLOC_XRCD",
	"DESTROY_PSV",
};

/* The kernel's own commands (the brief's minimum set first). */
static const char *const exp_kernel_only[] = {
	"CREATE_EQ", "DESTROY_EQ", "ALLOC_UAR", "DEALLOC_UAR", "SET_ROCE_ADDRESS",
	"CREATE_UCTX", "DESTROY_UCTX", "CREATE_UMEM", "DRAIN_DCT",
	"INIT_HCA", "TEARDOWN_HCA", "ENABLE_HCA", "DISABLE_HCA", "QUERY_PAGES",
	"MANAGE_PAGES", "SET_HCA_CAP", "SET_ISSI", "SET_DRIVER_VERSION",
	"QUERY_SPECIAL_CONTEXTS", "PAGE_FAULT_RESUME", "ALLOC_MEMIC",
	"DEALLOC_MEMIC", "MODIFY_MEMIC", "QUERY_EQ", "MODIFY_VPORT_STATE",
	"MODIFY_ESW_VPORT_CONTEXT", "MODIFY_NIC_VPORT_CONTEXT",
	"MODIFY_HCA_VPORT_CONTEXT", "QUERY_HCA_VPORT_GID",
	"QUERY_HCA_VPORT_PKEY", "SET_PP_RATE_LIMIT", "ACCESS_REG", "MAD_IFC",
	"QUERY_MAD_DEMUX", "SET_MAD_DEMUX", "SET_DELAY_DROP_PARAMS",
	"CREATE_LAG", "MODIFY_LAG", "DESTROY_LAG", "CREATE_VPORT_LAG",
	"DESTROY_VPORT_LAG", "SET_FLOW_TABLE_ROOT",
};

#define LIST(a) { a, sizeof(a) / sizeof(a[0]) }
static const struct {
	const char *const *names;
	size_t n;
} exp_lists[] = {
	[KERN_CMD_GENERAL] = LIST(exp_general),
	[KERN_CMD_CREATE] = LIST(exp_create),
	[KERN_CMD_MODIFY] = LIST(exp_modify),
	[KERN_CMD_QUERY] = LIST(exp_query),
	[KERN_CMD_DESTROY] = LIST(exp_destroy),
	[KERN_CMD_KERNEL_ONLY] = LIST(exp_kernel_only),
};

static bool in_list(enum kern_cmd_class cls, const char *name)
{
	for (size_t i = 0; i < exp_lists[cls].n; i++)
		if (!strcmp(exp_lists[cls].names[i], name))
			return true;
	return false;
}

/* The opcode-only class: general, then create (primary), modify, query,
 * destroy, kernel-only, else unknown. */
static enum kern_cmd_class expected_class(const char *name, uint16_t value)
{
	static const enum kern_cmd_class order[] = {
		KERN_CMD_GENERAL, KERN_CMD_CREATE, KERN_CMD_MODIFY, KERN_CMD_QUERY,
		KERN_CMD_DESTROY, KERN_CMD_KERNEL_ONLY,
	};

	if (value >= 0xb00 && value < 0xd00)
		return KERN_CMD_GENERAL;
	for (size_t i = 0; name && i < sizeof(order) / sizeof(order[0]); i++)
		if (in_list(order[i], name))
			return order[i];
	return KERN_CMD_UNKNOWN;
}

START_TEST(test_expectation_names_exist)
{
	for (size_t c = 0; c < sizeof(exp_lists) / sizeof(exp_lists[0]); c++)
		for (size_t i = 0; i < exp_lists[c].n; i++)
			ck_assert_msg(op_by_name(exp_lists[c].names[i]) >= 0,
				      "%s not in prm/opcodes.def", exp_lists[c].names[i]);
}
END_TEST

START_TEST(test_classify_every_known_opcode)
{
	unsigned int n[KERN_CMD_UNKNOWN + 1] = { 0 };

	for (size_t i = 0; i < NOPS; i++) {
		enum kern_cmd_class want = expected_class(all_ops[i].name, all_ops[i].value);
		enum kern_cmd_class got = kern_devx_classify(all_ops[i].value);

		ck_assert_msg(got == want, "%s (0x%x): %s, want %s", all_ops[i].name,
			      all_ops[i].value, kern_cmd_class_str(got),
			      kern_cmd_class_str(want));
		n[got]++;
	}
	/* Every listed command is among the known opcodes and got its class
	 * (opcodes in two lists count once, under the first class); the
	 * general range may grow with prm/opcodes.def. */
	ck_assert_uint_ge(n[KERN_CMD_GENERAL], 23);
	ck_assert_uint_eq(n[KERN_CMD_CREATE], 29);
	ck_assert_uint_eq(n[KERN_CMD_MODIFY], 25);
	ck_assert_uint_eq(n[KERN_CMD_QUERY], 25);
	ck_assert_uint_eq(n[KERN_CMD_DESTROY], 30);
	ck_assert_uint_eq(n[KERN_CMD_KERNEL_ONLY], 42);
}
END_TEST

START_TEST(test_classify_every_16bit_value)
{
	for (uint32_t v = 0; v <= UINT16_MAX; v++) {
		const char *name = NULL;

		for (size_t i = 0; i < NOPS; i++)
			if (all_ops[i].value == v)
				name = all_ops[i].name;
		ck_assert_msg(kern_devx_classify((uint16_t)v) == expected_class(name, (uint16_t)v),
			      "0x%x", v);
	}
	ck_assert_int_eq(kern_devx_classify(0xaff), KERN_CMD_UNKNOWN);
	ck_assert_int_eq(kern_devx_classify(0xb00), KERN_CMD_GENERAL);
	ck_assert_int_eq(kern_devx_classify(0xcff), KERN_CMD_GENERAL);
	ck_assert_int_eq(kern_devx_classify(0xd00), KERN_CMD_UNKNOWN);
	ck_assert_int_eq(kern_devx_classify(0), KERN_CMD_UNKNOWN);
	ck_assert_int_eq(kern_devx_classify(0xffff), KERN_CMD_UNKNOWN);
}
END_TEST

START_TEST(test_class_str)
{
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_GENERAL), "general");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_CREATE), "create");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_MODIFY), "modify");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_QUERY), "query");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_DESTROY), "destroy");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_KERNEL_ONLY), "kernel-only");
	ck_assert_str_eq(kern_cmd_class_str(KERN_CMD_UNKNOWN), "unknown");
	ck_assert_str_eq(kern_cmd_class_str((enum kern_cmd_class)99), "invalid");
}
END_TEST

/* The mailbox predicates agree with the lists for every known opcode with
 * a zeroed body (op_mod 0, num_psv 0). */
START_TEST(test_predicates_follow_lists)
{
	uint8_t in[MBOX];

	for (size_t i = 0; i < NOPS; i++) {
		const char *n = all_ops[i].name;
		bool general = expected_class(n, all_ops[i].value) == KERN_CMD_GENERAL;

		memset(in, 0, sizeof(in));
		set_op(in, all_ops[i].value);
		ck_assert_msg(kern_devx_is_general_cmd(in, false) == general, "%s", n);
		/* CREATE_PSV needs num_psv == 1; SET_FLOW_TABLE_ENTRY op_mod 0. */
		ck_assert_msg(kern_devx_is_create_cmd(in) ==
			      (in_list(KERN_CMD_CREATE, n) && strcmp(n, "CREATE_PSV")), "%s", n);
		ck_assert_msg(kern_devx_is_modify_cmd(in) ==
			      (in_list(KERN_CMD_MODIFY, n) && strcmp(n, "SET_FLOW_TABLE_ENTRY")),
			      "%s", n);
		ck_assert_msg(kern_devx_is_query_cmd(in) == in_list(KERN_CMD_QUERY, n), "%s", n);
	}
}
END_TEST

START_TEST(test_predicates_mailbox_conditions)
{
	uint8_t in[MBOX] = { 0 };

	set_op(in, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	put_bits(in, OFF_OP_MOD, 16, 0);
	ck_assert(kern_devx_is_create_cmd(in));
	ck_assert(!kern_devx_is_modify_cmd(in));
	put_bits(in, OFF_OP_MOD, 16, 1);
	ck_assert(!kern_devx_is_create_cmd(in));
	ck_assert(kern_devx_is_modify_cmd(in));
	put_bits(in, OFF_OP_MOD, 16, 2);
	ck_assert(!kern_devx_is_create_cmd(in));
	ck_assert(!kern_devx_is_modify_cmd(in));

	/* create_psv_in.num_psv: bits 0x40..0x43 */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_PSV);
	ck_assert(!kern_devx_is_create_cmd(in));
	put_bits(in, 0x40, 4, 1);
	ck_assert(kern_devx_is_create_cmd(in));
	put_bits(in, 0x40, 4, 2);
	ck_assert(!kern_devx_is_create_cmd(in));
	put_bits(in, 0x40, 4, 1);
	put_bits(in, 0x48, 24, 0xabcdef);	/* pd: irrelevant */
	ck_assert(kern_devx_is_create_cmd(in));

	/* Both create and modify, whatever op_mod says. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_ADD_VXLAN_UDP_DPORT);
	put_bits(in, OFF_OP_MOD, 16, 7);
	ck_assert(kern_devx_is_create_cmd(in) && kern_devx_is_modify_cmd(in));
	set_op(in, MLX5_CMD_OP_SET_L2_TABLE_ENTRY);
	ck_assert(kern_devx_is_create_cmd(in) && kern_devx_is_modify_cmd(in));

	/* vhca_tunnel: every command is general with the capability. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_EQ);
	ck_assert(!kern_devx_is_general_cmd(in, true));
	put_bits(in, OFF_VHCA_TUNNEL, 16, 3);
	ck_assert(kern_devx_is_general_cmd(in, true));
	ck_assert(!kern_devx_is_general_cmd(in, false));
}
END_TEST

START_TEST(test_whitelist_and_uid)
{
	uint8_t in[64] = { 0 };

	ck_assert(kern_devx_is_whitelist_cmd(MLX5_CMD_OP_QUERY_HCA_CAP));
	ck_assert(kern_devx_is_whitelist_cmd(MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT));
	ck_assert(kern_devx_is_whitelist_cmd(MLX5_CMD_OP_QUERY_ESW_VPORT_CONTEXT));
	ck_assert(kern_devx_is_whitelist_cmd(MLX5_CMD_OP_QUERY_ESW_FUNCTIONS));
	ck_assert(!kern_devx_is_whitelist_cmd(MLX5_CMD_OP_QUERY_ADAPTER));
	ck_assert(!kern_devx_is_whitelist_cmd(MLX5_CMD_OP_CREATE_CQ));

	set_op(in, MLX5_CMD_OP_QUERY_HCA_CAP);
	ck_assert_int_eq(kern_devx_pick_uid(7, 9, in), 7);
	ck_assert_int_eq(kern_devx_pick_uid(0, 9, in), 9);
	ck_assert_int_eq(kern_devx_pick_uid(0, 0, in), -EOPNOTSUPP);
	set_op(in, MLX5_CMD_OP_QUERY_ADAPTER);
	ck_assert_int_eq(kern_devx_pick_uid(7, 9, in), 7);
	ck_assert_int_eq(kern_devx_pick_uid(0, 9, in), -EINVAL);
	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_int_eq(kern_devx_pick_uid(0xffff, 0, in), 0xffff);
	ck_assert_int_eq(kern_devx_pick_uid(0, 0, in), -EINVAL);
}
END_TEST

/* ---- header fields ---- */
START_TEST(test_uid_stamp_leaves_other_bytes)
{
	uint8_t in[256], ref[256];

	for (uint32_t seed = 1; seed <= 8; seed++) {
		uint16_t uid = (uint16_t)(seed * 0x1357);

		fill_noise(in, sizeof(in), seed);
		memcpy(ref, in, sizeof(in));
		kern_mbox_set_uid(in, uid);
		ck_assert_uint_eq(in[2], uid >> 8);
		ck_assert_uint_eq(in[3], uid & 0xff);
		ck_assert_uint_eq(kern_mbox_uid(in), uid);
		for (size_t i = 0; i < sizeof(in); i++)
			if (i != 2 && i != 3)
				ck_assert_msg(in[i] == ref[i], "byte %zu changed", i);
	}
	/* Overwrites whatever the caller put there. */
	memset(in, 0xff, sizeof(in));
	kern_mbox_set_uid(in, 0);
	ck_assert_uint_eq(in[2], 0);
	ck_assert_uint_eq(in[3], 0);
	ck_assert_uint_eq(in[1], 0xff);
	ck_assert_uint_eq(in[4], 0xff);
}
END_TEST

START_TEST(test_header_getters)
{
	uint8_t in[32], out[32];

	fill_noise(in, sizeof(in), 5);
	put_bits(in, OFF_OPCODE, 16, 0x0a00);
	put_bits(in, OFF_UID, 16, 0x1234);
	put_bits(in, OFF_VHCA_TUNNEL, 16, 0xbeef);
	put_bits(in, OFF_OP_MOD, 16, 0x5a5a);
	ck_assert_uint_eq(kern_mbox_opcode(in), 0x0a00);
	ck_assert_uint_eq(kern_mbox_uid(in), 0x1234);
	ck_assert_uint_eq(kern_mbox_vhca_tunnel_id(in), 0xbeef);
	ck_assert_uint_eq(kern_mbox_op_mod(in), 0x5a5a);

	fill_noise(out, sizeof(out), 6);
	put_bits(out, 0, 8, 0x03);
	put_bits(out, 0x20, 32, 0xdeadbeef);
	ck_assert_uint_eq(kern_mbox_status(out), 0x03);
	ck_assert_uint_eq(kern_mbox_syndrome(out), 0xdeadbeef);
}
END_TEST

/* ---- created ids ---- */
struct exp_created {
	const char *op;
	bool in_inbox;
	unsigned int off, width;	/* mlx5_ifc.h */
};

static const struct exp_created exp_created[] = {
	{ "CREATE_GENERAL_OBJECT", false, 0x40, 32 },	/* general_obj_out_cmd_hdr.obj_id */
	{ "CREATE_UMEM", false, 0x48, 24 },		/* create_umem_out.umem_id */
	{ "CREATE_MKEY", false, 0x48, 24 },		/* mkey_index */
	{ "CREATE_CQ", false, 0x48, 24 },
	{ "ALLOC_PD", false, 0x48, 24 },
	{ "ALLOC_TRANSPORT_DOMAIN", false, 0x48, 24 },
	{ "CREATE_RMP", false, 0x48, 24 },
	{ "CREATE_SQ", false, 0x48, 24 },
	{ "CREATE_RQ", false, 0x48, 24 },
	{ "CREATE_RQT", false, 0x48, 24 },
	{ "CREATE_TIR", false, 0x48, 24 },
	{ "CREATE_TIS", false, 0x48, 24 },
	{ "ALLOC_Q_COUNTER", false, 0x58, 8 },		/* counter_set_id */
	{ "CREATE_FLOW_TABLE", false, 0x48, 24 },
	{ "CREATE_FLOW_GROUP", false, 0x48, 24 },
	{ "SET_FLOW_TABLE_ENTRY", true, 0x100, 32 },	/* set_fte_in.flow_index */
	{ "ALLOC_FLOW_COUNTER", false, 0x40, 32 },
	{ "ALLOC_PACKET_REFORMAT_CONTEXT", false, 0x40, 32 },
	{ "ALLOC_MODIFY_HEADER_CONTEXT", false, 0x40, 32 },
	{ "CREATE_SCHEDULING_ELEMENT", false, 0x80, 32 },
	{ "ADD_VXLAN_UDP_DPORT", true, 0x70, 16 },	/* vxlan_udp_port */
	{ "SET_L2_TABLE_ENTRY", true, 0xa8, 24 },	/* table_index */
	{ "CREATE_QP", false, 0x48, 24 },
	{ "CREATE_SRQ", false, 0x48, 24 },
	{ "CREATE_XRC_SRQ", false, 0x48, 24 },
	{ "CREATE_DCT", false, 0x48, 24 },
	{ "CREATE_XRQ", false, 0x48, 24 },
	{ "ATTACH_TO_MCG", true, 0x48, 24 },		/* attach_to_mcg_in.qpn */
	{ "ALLOC_XRCD", false, 0x48, 24 },
	{ "CREATE_PSV", false, 0x88, 24 },		/* psv0_index */
};

#define NCREATED (sizeof(exp_created) / sizeof(exp_created[0]))

START_TEST(test_created_obj_id_each_type)
{
	const struct exp_created *e = &exp_created[_i];
	uint8_t in[MBOX], out[MBOX];
	uint16_t op;
	uint64_t enc = 0;
	uint64_t id = UINT64_C(0xa5c3e1f7) & mask_of(e->width);

	ck_assert_int_ge(op_by_name(e->op), 0);
	op = (uint16_t)op_by_name(e->op);
	fill_noise(in, sizeof(in), (uint32_t)_i + 11);
	fill_noise(out, sizeof(out), (uint32_t)_i + 111);
	set_op(in, op);
	put_bits(e->in_inbox ? in : out, e->off, e->width, id);
	ck_assert_int_eq(kern_devx_created_obj_id(in, out, &enc), 0);
	if (op == MLX5_CMD_OP_CREATE_GENERAL_OBJECT) {
		uint16_t type = (uint16_t)get_bits(in, OFF_OBJ_TYPE, 16);

		ck_assert_uint_eq(enc, ((uint64_t)(op | (uint32_t)type << 16) << 32) | id);
		ck_assert_uint_eq(kern_devx_enc_obj_type(enc), type);
	} else {
		ck_assert_uint_eq(enc, (uint64_t)op << 32 | id);
		ck_assert_uint_eq(kern_devx_enc_obj_type(enc), 0);
	}
	ck_assert_uint_eq(kern_devx_enc_opcode(enc), op);
	ck_assert_uint_eq(kern_devx_dec_obj_id(enc), id);
	/* The span covers where the id is read from. */
	if (e->in_inbox)
		ck_assert_uint_ge(kern_devx_in_span(op), (e->off + e->width + 7) / 8);
	else
		ck_assert_uint_ge(kern_devx_out_span(op), (e->off + e->width + 7) / 8);
}
END_TEST

START_TEST(test_created_obj_id_general_types)
{
	uint8_t in[64] = { 0 }, out[64] = { 0 };
	uint64_t enc;

	set_op(in, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	put_bits(in, OFF_OBJ_TYPE, 16, 0xff01);
	put_bits(out, 0x40, 32, 0x00123456);
	ck_assert_int_eq(kern_devx_created_obj_id(in, out, &enc), 0);
	ck_assert_uint_eq(enc, UINT64_C(0xff010a0000123456));
	put_bits(in, OFF_OBJ_TYPE, 16, 0x0013);
	ck_assert_int_eq(kern_devx_created_obj_id(in, out, &enc), 0);
	ck_assert_uint_eq(enc, UINT64_C(0x00130a0000123456));
	ck_assert_uint_eq(kern_devx_enc_obj_id(0x0a00 | 0x13 << 16, 0x123456), enc);
}
END_TEST

START_TEST(test_created_obj_id_rejects_non_creates)
{
	uint8_t in[MBOX] = { 0 }, out[MBOX] = { 0 };
	uint64_t enc = 42;

	for (size_t i = 0; i < NOPS; i++) {
		bool creates = false;

		for (size_t j = 0; j < NCREATED; j++)
			creates |= !strcmp(exp_created[j].op, all_ops[i].name);
		set_op(in, all_ops[i].value);
		ck_assert_msg((kern_devx_created_obj_id(in, out, &enc) == 0) == creates,
			      "%s", all_ops[i].name);
		if (!creates)
			ck_assert_int_eq(kern_devx_created_obj_id(in, out, &enc), -EINVAL);
	}
}
END_TEST

/* ---- target ids ---- */
struct exp_target {
	const char *op, *create_op;
	unsigned int off, width;
};

static const struct exp_target exp_targets[] = {
	{ "MODIFY_GENERAL_OBJECT", "CREATE_GENERAL_OBJECT", 0x40, 32 },
	{ "QUERY_GENERAL_OBJECT", "CREATE_GENERAL_OBJECT", 0x40, 32 },
	{ "QUERY_MKEY", "CREATE_MKEY", 0x48, 24 },
	{ "QUERY_CQ", "CREATE_CQ", 0x48, 24 },
	{ "MODIFY_CQ", "CREATE_CQ", 0x48, 24 },
	{ "QUERY_SQ", "CREATE_SQ", 0x48, 24 },
	{ "MODIFY_SQ", "CREATE_SQ", 0x48, 24 },
	{ "QUERY_RQ", "CREATE_RQ", 0x48, 24 },
	{ "MODIFY_RQ", "CREATE_RQ", 0x48, 24 },
	{ "QUERY_RMP", "CREATE_RMP", 0x48, 24 },
	{ "MODIFY_RMP", "CREATE_RMP", 0x48, 24 },
	{ "QUERY_RQT", "CREATE_RQT", 0x48, 24 },
	{ "MODIFY_RQT", "CREATE_RQT", 0x48, 24 },
	{ "QUERY_TIR", "CREATE_TIR", 0x48, 24 },
	{ "MODIFY_TIR", "CREATE_TIR", 0x48, 24 },
	{ "QUERY_TIS", "CREATE_TIS", 0x48, 24 },
	{ "MODIFY_TIS", "CREATE_TIS", 0x48, 24 },
	{ "QUERY_FLOW_TABLE", "CREATE_FLOW_TABLE", 0xa8, 24 },
	{ "MODIFY_FLOW_TABLE", "CREATE_FLOW_TABLE", 0xa8, 24 },
	{ "QUERY_FLOW_GROUP", "CREATE_FLOW_GROUP", 0xc0, 32 },
	{ "QUERY_FLOW_TABLE_ENTRY", "SET_FLOW_TABLE_ENTRY", 0x100, 32 },
	{ "SET_FLOW_TABLE_ENTRY", "SET_FLOW_TABLE_ENTRY", 0x100, 32 },
	{ "QUERY_Q_COUNTER", "ALLOC_Q_COUNTER", 0xf8, 8 },
	{ "QUERY_FLOW_COUNTER", "ALLOC_FLOW_COUNTER", 0xe0, 32 },
	{ "QUERY_MODIFY_HEADER_CONTEXT", "ALLOC_MODIFY_HEADER_CONTEXT", 0x40, 32 },
	{ "QUERY_SCHEDULING_ELEMENT", "CREATE_SCHEDULING_ELEMENT", 0x60, 32 },
	{ "MODIFY_SCHEDULING_ELEMENT", "CREATE_SCHEDULING_ELEMENT", 0x60, 32 },
	{ "ADD_VXLAN_UDP_DPORT", "ADD_VXLAN_UDP_DPORT", 0x70, 16 },
	{ "QUERY_L2_TABLE_ENTRY", "SET_L2_TABLE_ENTRY", 0xa8, 24 },
	{ "SET_L2_TABLE_ENTRY", "SET_L2_TABLE_ENTRY", 0xa8, 24 },
	{ "QUERY_QP", "CREATE_QP", 0x48, 24 },
	{ "RST2INIT_QP", "CREATE_QP", 0x48, 24 },
	{ "INIT2INIT_QP", "CREATE_QP", 0x48, 24 },
	{ "INIT2RTR_QP", "CREATE_QP", 0x48, 24 },
	{ "RTR2RTS_QP", "CREATE_QP", 0x48, 24 },
	{ "RTS2RTS_QP", "CREATE_QP", 0x48, 24 },
	{ "SQERR2RTS_QP", "CREATE_QP", 0x48, 24 },
	{ "2ERR_QP", "CREATE_QP", 0x48, 24 },
	{ "2RST_QP", "CREATE_QP", 0x48, 24 },
	{ "QUERY_DCT", "CREATE_DCT", 0x48, 24 },
	{ "QUERY_XRQ", "CREATE_XRQ", 0x48, 24 },
	{ "QUERY_XRQ_DC_PARAMS_ENTRY", "CREATE_XRQ", 0x48, 24 },
	{ "QUERY_XRQ_ERROR_PARAMS", "CREATE_XRQ", 0x48, 24 },
	{ "QUERY_XRC_SRQ", "CREATE_XRC_SRQ", 0x48, 24 },
	{ "ARM_XRC_SRQ", "CREATE_XRC_SRQ", 0x48, 24 },
	{ "QUERY_SRQ", "CREATE_SRQ", 0x48, 24 },
	{ "ARM_RQ", "CREATE_RQ", 0x48, 24 },
	{ "ARM_DCT_FOR_KEY_VIOLATION", "CREATE_DCT", 0x48, 24 },
	{ "ARM_XRQ", "CREATE_XRQ", 0x48, 24 },
	{ "SET_XRQ_DC_PARAMS_ENTRY", "CREATE_XRQ", 0x48, 24 },
	{ "RELEASE_XRQ_ERROR", "CREATE_XRQ", 0x48, 24 },
	{ "MODIFY_XRQ", "CREATE_XRQ", 0x48, 24 },
	{ "QUERY_PACKET_REFORMAT_CONTEXT", "ALLOC_PACKET_REFORMAT_CONTEXT", 0x40, 32 },
};

#define NTARGETS (sizeof(exp_targets) / sizeof(exp_targets[0]))

START_TEST(test_target_obj_id_each_command)
{
	const struct exp_target *e = &exp_targets[_i];
	uint8_t in[MBOX];
	uint16_t op, cop;
	uint64_t enc = 0, id = UINT64_C(0x5b3d1f29) & mask_of(e->width);
	uint32_t enc_op;

	ck_assert_int_ge(op_by_name(e->op), 0);
	ck_assert_int_ge(op_by_name(e->create_op), 0);
	op = (uint16_t)op_by_name(e->op);
	cop = (uint16_t)op_by_name(e->create_op);
	fill_noise(in, sizeof(in), (uint32_t)_i + 7);
	set_op(in, op);
	put_bits(in, e->off, e->width, id);
	ck_assert_int_eq(kern_devx_target_obj_id(in, &enc), 0);
	enc_op = cop;
	if (cop == MLX5_CMD_OP_CREATE_GENERAL_OBJECT)
		enc_op |= (uint32_t)get_bits(in, OFF_OBJ_TYPE, 16) << 16;
	ck_assert_uint_eq(enc, (uint64_t)enc_op << 32 | id);
	ck_assert_uint_ge(kern_devx_in_span(op), (e->off + e->width + 7) / 8);
	/* The handle of the object with that id matches, a neighbour doesn't. */
	ck_assert(kern_devx_obj_id_matches(enc, 0, in));
	ck_assert(!kern_devx_obj_id_matches(enc ^ 1, 0, in));
	ck_assert(!kern_devx_obj_id_matches(enc ^ (UINT64_C(1) << 32), 0, in));
}
END_TEST

/* Every modify/query command has a target; nothing else does. */
START_TEST(test_target_obj_id_coverage)
{
	uint8_t in[MBOX] = { 0 };
	uint64_t enc;

	for (size_t i = 0; i < NOPS; i++) {
		const char *n = all_ops[i].name;
		bool has = in_list(KERN_CMD_MODIFY, n) || in_list(KERN_CMD_QUERY, n);
		bool listed = false;

		for (size_t j = 0; j < NTARGETS; j++)
			listed |= !strcmp(exp_targets[j].op, n);
		ck_assert_msg(has == listed, "%s: expectation tables disagree", n);
		set_op(in, all_ops[i].value);
		ck_assert_msg((kern_devx_target_obj_id(in, &enc) == 0) == has, "%s", n);
		if (!has) {
			ck_assert_int_eq(kern_devx_target_obj_id(in, &enc), -EINVAL);
			ck_assert(!kern_devx_obj_id_matches(0, 0, in));
		}
	}
}
END_TEST

START_TEST(test_general_obj_type_must_match)
{
	uint8_t cin[64] = { 0 }, cout[64] = { 0 }, q[64] = { 0 };
	uint64_t handle;

	set_op(cin, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	put_bits(cin, OFF_OBJ_TYPE, 16, 0x0041);	/* RTC */
	put_bits(cout, 0x40, 32, 77);
	ck_assert_int_eq(kern_devx_created_obj_id(cin, cout, &handle), 0);

	set_op(q, MLX5_CMD_OP_QUERY_GENERAL_OBJECT);
	put_bits(q, OFF_OBJ_TYPE, 16, 0x0041);
	put_bits(q, OFF_OBJ_ID, 32, 77);
	ck_assert(kern_devx_obj_id_matches(handle, 0, q));
	put_bits(q, OFF_OBJ_TYPE, 16, 0x0040);		/* same id, other type */
	ck_assert(!kern_devx_obj_id_matches(handle, 0, q));
	put_bits(q, OFF_OBJ_TYPE, 16, 0x0041);
	put_bits(q, OFF_OBJ_ID, 32, 78);
	ck_assert(!kern_devx_obj_id_matches(handle, 0, q));

	/* Same number, other object kind: a CQ 77 is not QP 77. */
	memset(q, 0, sizeof(q));
	set_op(q, MLX5_CMD_OP_QUERY_QP);
	put_bits(q, 0x48, 24, 77);
	ck_assert(!kern_devx_obj_id_matches(kern_devx_enc_obj_id(MLX5_CMD_OP_CREATE_CQ, 77), 0, q));
	ck_assert(kern_devx_obj_id_matches(kern_devx_enc_obj_id(MLX5_CMD_OP_CREATE_QP, 77), 0, q));
}
END_TEST

START_TEST(test_flow_counter_bulk)
{
	uint8_t in[64] = { 0 }, q[64] = { 0 };
	uint64_t handle = kern_devx_enc_obj_id(MLX5_CMD_OP_ALLOC_FLOW_COUNTER, 0x1000);

	set_op(in, MLX5_CMD_OP_ALLOC_FLOW_COUNTER);
	ck_assert_uint_eq(kern_devx_flow_counter_bulk(in), 0);
	put_bits(in, 0x78, 8, 2);			/* flow_counter_bulk */
	ck_assert_uint_eq(kern_devx_flow_counter_bulk(in), 256);
	put_bits(in, 0x73, 5, 4);			/* flow_counter_bulk_log_size wins */
	ck_assert_uint_eq(kern_devx_flow_counter_bulk(in), 16);
	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_uint_eq(kern_devx_flow_counter_bulk(in), 0);

	set_op(q, MLX5_CMD_OP_QUERY_FLOW_COUNTER);
	put_bits(q, 0xe0, 32, 0x1000);
	ck_assert(kern_devx_obj_id_matches(handle, 16, q));
	put_bits(q, 0xe0, 32, 0x100f);
	ck_assert(kern_devx_obj_id_matches(handle, 16, q));
	ck_assert(!kern_devx_obj_id_matches(handle, 0, q));
	put_bits(q, 0xe0, 32, 0x1010);
	ck_assert(!kern_devx_obj_id_matches(handle, 16, q));
	put_bits(q, 0xe0, 32, 0x0fff);
	ck_assert(!kern_devx_obj_id_matches(handle, 16, q));
}
END_TEST

/* ---- umem_valid ---- */
struct exp_umem {
	const char *op;
	unsigned int bits[2];	/* absolute bit offsets, 0 = none */
};

static const struct exp_umem exp_umem[] = {
	{ "CREATE_MKEY", { 0x61 } },			/* mkey_umem_valid */
	{ "CREATE_CQ", { 0x2e0, 0x80 + 0x6 } },		/* cq_umem_valid, cqc.dbr_umem_valid */
	{ "CREATE_QP", { 0xc0 + 0x683, 0x860 } },	/* qpc.dbr_umem_valid, wq_umem_valid */
	{ "CREATE_RQ", { 0x100 + 0x180 + 0x120, 0x100 + 0x180 + 0x121 } },	/* ctx.wq.* */
	{ "CREATE_SQ", { 0x100 + 0x180 + 0x120, 0x100 + 0x180 + 0x121 } },
	{ "MODIFY_CQ", { 0x2e0 } },			/* cq_umem_valid */
	{ "CREATE_RMP", { 0x100 + 0x180 + 0x120, 0x100 + 0x180 + 0x121 } },
	{ "CREATE_XRQ", { 0x80 + 0x400 + 0x120, 0x80 + 0x400 + 0x121 } },	/* xrq_context.wq.* */
	{ "CREATE_XRC_SRQ", { 0x2e0, 0x80 + 0x47 } },	/* xrc_srq_umem_valid, ctx.dbr_umem_valid */
};

#define NUMEM (sizeof(exp_umem) / sizeof(exp_umem[0]))

START_TEST(test_umem_valid_each_command)
{
	const struct exp_umem *e = &exp_umem[_i];
	uint16_t op = (uint16_t)op_by_name(e->op);
	uint8_t in[MBOX], ref[MBOX];
	unsigned int nbits = e->bits[1] ? 2 : 1;

	/* Zeroed: exactly the listed bits (and the opcode) come out. */
	memset(in, 0, sizeof(in));
	set_op(in, op);
	memcpy(ref, in, sizeof(in));
	kern_devx_set_umem_valid(in);
	for (unsigned int i = 0; i < nbits; i++)
		ck_assert_msg(get_bits(in, e->bits[i], 1) == 1, "%s bit 0x%x", e->op, e->bits[i]);
	ck_assert_uint_eq(popcount_buf(in, sizeof(in)), popcount_buf(ref, sizeof(ref)) + nbits);
	for (unsigned int i = 0; i < nbits; i++)
		ck_assert_uint_ge(kern_devx_in_span(op), e->bits[i] / 8 + 1);

	/* Noise: only those bits may change, and only to 1. */
	fill_noise(in, sizeof(in), (uint32_t)_i + 3);
	set_op(in, op);
	memcpy(ref, in, sizeof(in));
	kern_devx_set_umem_valid(in);
	for (unsigned int i = 0; i < nbits; i++) {
		ck_assert(get_bits(in, e->bits[i], 1) == 1);
		put_bits(in, e->bits[i], 1, get_bits(ref, e->bits[i], 1));
	}
	ck_assert(!memcmp(in, ref, sizeof(in)));
}
END_TEST

START_TEST(test_umem_valid_other_commands_untouched)
{
	uint8_t in[MBOX], ref[MBOX];

	for (size_t i = 0; i < NOPS; i++) {
		bool listed = false;

		for (size_t j = 0; j < NUMEM; j++)
			listed |= !strcmp(exp_umem[j].op, all_ops[i].name);
		if (listed)
			continue;
		fill_noise(in, sizeof(in), (uint32_t)i);
		set_op(in, all_ops[i].value);
		memcpy(ref, in, sizeof(in));
		kern_devx_set_umem_valid(in);
		ck_assert_msg(!memcmp(in, ref, sizeof(in)), "%s touched", all_ops[i].name);
		memset(in, 0, sizeof(in));
		set_op(in, all_ops[i].value);
		memcpy(ref, in, sizeof(in));
		kern_devx_set_umem_valid(in);
		ck_assert_msg(!memcmp(in, ref, sizeof(in)), "%s touched", all_ops[i].name);
	}
}
END_TEST

/* mkc at 0x80: access_mode_4_2 bits 0x3..0x5, access_mode_1_0 0x16..0x17. */
static void set_mkey_mode(uint8_t *in, unsigned int mode)
{
	put_bits(in, 0x80 + 0x3, 3, mode >> 2);
	put_bits(in, 0x80 + 0x16, 2, mode & 3);
}

START_TEST(test_prepare_create_mkey)
{
	uint8_t in[MBOX];
	static const struct {
		unsigned int mode;
		bool indirect;
	} modes[] = {
		{ MLX5_MKC_ACCESS_MODE_PA, false }, { MLX5_MKC_ACCESS_MODE_MTT, false },
		{ MLX5_MKC_ACCESS_MODE_KLMS, true }, { MLX5_MKC_ACCESS_MODE_KSM, true },
		{ MLX5_MKC_ACCESS_MODE_SW_ICM, false }, { MLX5_MKC_ACCESS_MODE_MEMIC, false },
		{ MLX5_MKC_ACCESS_MODE_CROSSING, false },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		memset(in, 0, sizeof(in));
		set_op(in, MLX5_CMD_OP_CREATE_MKEY);
		put_bits(in, OFF_UID, 16, 0xdead);
		set_mkey_mode(in, modes[i].mode);
		ck_assert(kern_devx_mkey_is_indirect(in) == modes[i].indirect);
		ck_assert_int_eq(kern_devx_prepare_create(in, KERN_DEVX_MKEY_IN_MIN, 0x42), 0);
		ck_assert_uint_eq(get_bits(in, OFF_UID, 16), 0x42);
		ck_assert_uint_eq(get_bits(in, 0x61, 1), modes[i].indirect ? 0 : 1);
	}
	/* An indirect mkey keeps what the caller set. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_MKEY);
	set_mkey_mode(in, MLX5_MKC_ACCESS_MODE_KLMS);
	put_bits(in, 0x61, 1, 1);
	ck_assert_int_eq(kern_devx_prepare_create(in, 0x400, 1), 0);
	ck_assert_uint_eq(get_bits(in, 0x61, 1), 1);

	/* Too short for the mkey context: EINVAL. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_MKEY);
	ck_assert_int_eq(kern_devx_prepare_create(in, KERN_DEVX_MKEY_IN_MIN - 1, 1), -EINVAL);
	ck_assert_int_eq(kern_devx_prepare_create(in, 16, 1), -EINVAL);
	ck_assert_int_eq(kern_devx_prepare_create(in, 15, 1), -EINVAL);
	/* Other opcodes: no mkey rule. */
	set_op(in, MLX5_CMD_OP_ALLOC_PD);
	ck_assert_int_eq(kern_devx_prepare_create(in, 16, 9), 0);
	ck_assert_uint_eq(get_bits(in, OFF_UID, 16), 9);
	ck_assert_uint_eq(kern_devx_in_span(MLX5_CMD_OP_CREATE_MKEY), KERN_DEVX_MKEY_IN_MIN);
	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert(!kern_devx_mkey_is_indirect(in));
}
END_TEST

START_TEST(test_prepare_create_bounded_by_inlen)
{
	uint8_t in[MBOX];

	/* CREATE_QP: qpc.dbr_umem_valid at byte 0xe8, wq_umem_valid at 0x10c. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_QP);
	ck_assert_int_eq(kern_devx_prepare_create(in, 0x100, 5), 0);
	ck_assert_uint_eq(get_bits(in, 0xc0 + 0x683, 1), 1);
	ck_assert_uint_eq(get_bits(in, 0x860, 1), 0);
	ck_assert_uint_eq(popcount_buf(in + 0x100, sizeof(in) - 0x100), 0);
	ck_assert_int_eq(kern_devx_prepare_create(in, 0x10d, 5), 0);
	ck_assert_uint_eq(get_bits(in, 0x860, 1), 1);

	/* CREATE_CQ with only the header: nothing written past it. */
	memset(in, 0, sizeof(in));
	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_int_eq(kern_devx_prepare_create(in, 16, 5), 0);
	ck_assert_uint_eq(popcount_buf(in + 16, sizeof(in) - 16), 0);
}
END_TEST

START_TEST(test_cq_eqn_and_apu)
{
	uint8_t in[MBOX] = { 0 };

	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	put_bits(in, 0x80 + 0xb8, 8, 0x17);		/* cqc.c_eqn */
	ck_assert_uint_eq(kern_devx_cq_eqn(in), 0x17);
	ck_assert(!kern_devx_cq_is_apu(in, true));
	put_bits(in, 0x80 + 0x7, 1, 1);			/* cqc.apu_cq */
	ck_assert(kern_devx_cq_is_apu(in, true));
	ck_assert(!kern_devx_cq_is_apu(in, false));
	ck_assert_int_eq(kern_devx_destroy_flow(in, true), KERN_DESTROY_PLAIN);
	ck_assert_int_eq(kern_devx_destroy_flow(in, false), KERN_DESTROY_CQ);
	ck_assert_uint_ge(kern_devx_in_span(MLX5_CMD_OP_CREATE_CQ), (0x80 + 0xb8 + 8) / 8);
}
END_TEST

/* ---- destroy ---- */
struct exp_copy {
	unsigned int src, dst, width;
};

struct exp_destroy {
	const char *create_op, *destroy_op;
	unsigned int id_off, id_width;	/* in the destroy inbox */
	size_t inlen;
	struct exp_copy copy[4];
};

static const struct exp_destroy exp_destroys[] = {
	{ "CREATE_GENERAL_OBJECT", "DESTROY_GENERAL_OBJECT", 0x40, 32, 16,
	  { { OFF_OBJ_TYPE, OFF_OBJ_TYPE, 16 } } },
	{ "CREATE_UMEM", "DESTROY_UMEM", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_MKEY", "DESTROY_MKEY", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_CQ", "DESTROY_CQ", 0x48, 24, 16, { { 0 } } },
	{ "ALLOC_PD", "DEALLOC_PD", 0x48, 24, 16, { { 0 } } },
	{ "ALLOC_TRANSPORT_DOMAIN", "DEALLOC_TRANSPORT_DOMAIN", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_RMP", "DESTROY_RMP", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_SQ", "DESTROY_SQ", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_RQ", "DESTROY_RQ", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_RQT", "DESTROY_RQT", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_TIR", "DESTROY_TIR", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_TIS", "DESTROY_TIS", 0x48, 24, 16, { { 0 } } },
	{ "ALLOC_Q_COUNTER", "DEALLOC_Q_COUNTER", 0x58, 8, 16, { { 0 } } },
	/* other_vport 0x40, vport_number 0x50, table_type 0x80 */
	{ "CREATE_FLOW_TABLE", "DESTROY_FLOW_TABLE", 0xa8, 24, 64,
	  { { 0x40, 0x40, 1 }, { 0x50, 0x50, 16 }, { 0x80, 0x80, 8 } } },
	/* ... and table_id 0xa8 */
	{ "CREATE_FLOW_GROUP", "DESTROY_FLOW_GROUP", 0xc0, 32, 64,
	  { { 0x40, 0x40, 1 }, { 0x50, 0x50, 16 }, { 0x80, 0x80, 8 }, { 0xa8, 0xa8, 24 } } },
	{ "SET_FLOW_TABLE_ENTRY", "DELETE_FLOW_TABLE_ENTRY", 0x100, 32, 64,
	  { { 0x40, 0x40, 1 }, { 0x50, 0x50, 16 }, { 0x80, 0x80, 8 }, { 0xa8, 0xa8, 24 } } },
	{ "ALLOC_FLOW_COUNTER", "DEALLOC_FLOW_COUNTER", 0x40, 32, 16, { { 0 } } },
	{ "ALLOC_PACKET_REFORMAT_CONTEXT", "DEALLOC_PACKET_REFORMAT_CONTEXT", 0x40, 32, 16, { { 0 } } },
	{ "ALLOC_MODIFY_HEADER_CONTEXT", "DEALLOC_MODIFY_HEADER_CONTEXT", 0x40, 32, 16, { { 0 } } },
	/* scheduling_hierarchy 0x40 */
	{ "CREATE_SCHEDULING_ELEMENT", "DESTROY_SCHEDULING_ELEMENT", 0x60, 32, 64,
	  { { 0x40, 0x40, 8 } } },
	{ "ADD_VXLAN_UDP_DPORT", "DELETE_VXLAN_UDP_DPORT", 0x70, 16, 16, { { 0 } } },
	{ "SET_L2_TABLE_ENTRY", "DELETE_L2_TABLE_ENTRY", 0xa8, 24, 64, { { 0 } } },
	{ "CREATE_QP", "DESTROY_QP", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_SRQ", "DESTROY_SRQ", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_XRC_SRQ", "DESTROY_XRC_SRQ", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_DCT", "DESTROY_DCT", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_XRQ", "DESTROY_XRQ", 0x48, 24, 16, { { 0 } } },
	/* multicast_gid 0x80..0xff */
	{ "ATTACH_TO_MCG", "DETACH_FROM_MCG", 0x48, 24, 32, { { 0x80, 0x80, 128 } } },
	{ "ALLOC_XRCD", "DEALLOC_XRCD", 0x48, 24, 16, { { 0 } } },
	{ "CREATE_PSV", "DESTROY_PSV", 0x48, 24, 16, { { 0 } } },
};

#define NDESTROYS (sizeof(exp_destroys) / sizeof(exp_destroys[0]))

static const struct exp_created *created_of(const char *op)
{
	for (size_t i = 0; i < NCREATED; i++)
		if (!strcmp(exp_created[i].op, op))
			return &exp_created[i];
	return NULL;
}

START_TEST(test_build_destroy_each_type)
{
	const struct exp_destroy *e = &exp_destroys[_i];
	const struct exp_created *c = created_of(e->create_op);
	uint8_t in[MBOX], out[MBOX], din[MBOX], want[MBOX];
	uint16_t op, dop;
	uint64_t id;
	size_t dinlen = 0, doutlen = 0;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_ge(op_by_name(e->create_op), 0);
	ck_assert_int_ge(op_by_name(e->destroy_op), 0);
	op = (uint16_t)op_by_name(e->create_op);
	dop = (uint16_t)op_by_name(e->destroy_op);
	id = UINT64_C(0x3c5a7e91) & mask_of(c->width);

	fill_noise(in, sizeof(in), (uint32_t)_i + 21);
	fill_noise(out, sizeof(out), (uint32_t)_i + 221);
	set_op(in, op);
	put_bits(in, OFF_UID, 16, 0x0f00 + _i);
	if (op == MLX5_CMD_OP_ALLOC_PD)
		put_bits(in, OFF_UID, 16, 0);		/* uid 0 is copied too */
	put_bits(c->in_inbox ? in : out, c->off, c->width, id);
	memset(din, 0xee, sizeof(din));

	ck_assert_int_eq(kern_devx_build_destroy(in, out, din, &dinlen, &doutlen), 0);
	ck_assert_uint_eq(dinlen, e->inlen);
	ck_assert_uint_le(dinlen, KERN_DEVX_DESTROY_INBOX_MAX);
	ck_assert_uint_eq(doutlen, KERN_DEVX_DESTROY_OUTLEN);

	memset(want, 0, sizeof(want));
	put_bits(want, OFF_OPCODE, 16, dop);
	put_bits(want, OFF_UID, 16, get_bits(in, OFF_UID, 16));
	for (size_t i = 0; i < 4 && e->copy[i].width; i++) {
		if (e->copy[i].width <= 64)
			put_bits(want, e->copy[i].dst, e->copy[i].width,
				 get_bits(in, e->copy[i].src, e->copy[i].width));
		else
			memcpy(want + e->copy[i].dst / 8, in + e->copy[i].src / 8,
			       e->copy[i].width / 8);
	}
	put_bits(want, e->id_off, e->id_width, id);
	ck_assert_msg(!memcmp(din, want, dinlen), "%s: destroy inbox differs", e->create_op);
	/* Nothing written past the destroy inbox. */
	for (size_t i = dinlen; i < sizeof(din); i++)
		ck_assert_uint_eq(din[i], 0xee);
	ck_assert_int_eq(kern_devx_classify(dop), KERN_CMD_DESTROY);

	/* Copy sources lie within the create's in span. */
	for (size_t i = 0; i < 4 && e->copy[i].width; i++)
		ck_assert_uint_ge(kern_devx_in_span(op),
				  (e->copy[i].src + e->copy[i].width + 7) / 8);
}
END_TEST

START_TEST(test_build_destroy_general_obj_type)
{
	uint8_t in[64] = { 0 }, out[64] = { 0 }, din[64];
	size_t l, ol;

	set_op(in, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	put_bits(in, OFF_UID, 16, 3);
	put_bits(in, OFF_OBJ_TYPE, 16, 0xff15);
	put_bits(in, OFF_OBJ_ID, 32, 0x11111111);	/* the caller's, ignored */
	put_bits(out, 0x40, 32, 0x00abcdef);
	ck_assert_int_eq(kern_devx_build_destroy(in, out, din, &l, &ol), 0);
	ck_assert_uint_eq(l, 16);
	ck_assert_uint_eq(get_bits(din, OFF_OPCODE, 16), MLX5_CMD_OP_DESTROY_GENERAL_OBJECT);
	ck_assert_uint_eq(get_bits(din, OFF_UID, 16), 3);
	ck_assert_uint_eq(get_bits(din, OFF_OBJ_TYPE, 16), 0xff15);
	ck_assert_uint_eq(get_bits(din, OFF_OBJ_ID, 32), 0x00abcdef);
	ck_assert_uint_eq(get_bits(din, OFF_VHCA_TUNNEL, 16), 0);
}
END_TEST

START_TEST(test_build_destroy_rejects_non_creates)
{
	uint8_t in[MBOX] = { 0 }, out[MBOX] = { 0 }, din[MBOX];
	size_t l = 1234, ol = 5678;

	for (size_t i = 0; i < NOPS; i++) {
		if (created_of(all_ops[i].name))
			continue;
		set_op(in, all_ops[i].value);
		memset(din, 0x5a, sizeof(din));
		ck_assert_int_eq(kern_devx_build_destroy(in, out, din, &l, &ol), -EINVAL);
		ck_assert_uint_eq(l, 1234);
		ck_assert_uint_eq(din[0], 0x5a);
	}
	ck_assert_uint_eq(NDESTROYS, NCREATED);
}
END_TEST

START_TEST(test_destroy_flow_and_drain_dct)
{
	uint8_t in[64] = { 0 }, out[64] = { 0 }, din[64], drain[64];
	size_t l, ol, dl = 0;

	set_op(in, MLX5_CMD_OP_CREATE_DCT);
	put_bits(in, OFF_UID, 16, 0x77);
	put_bits(out, 0x48, 24, 0x654321);
	ck_assert_int_eq(kern_devx_destroy_flow(in, false), KERN_DESTROY_DCT);
	ck_assert_int_eq(kern_devx_build_destroy(in, out, din, &l, &ol), 0);
	memset(drain, 0xee, sizeof(drain));
	ck_assert_int_eq(kern_devx_build_drain_dct(din, drain, &dl), 0);
	ck_assert_uint_eq(dl, 16);
	ck_assert_uint_eq(get_bits(drain, OFF_OPCODE, 16), MLX5_CMD_OP_DRAIN_DCT);
	ck_assert_uint_eq(get_bits(drain, OFF_UID, 16), 0x77);
	ck_assert_uint_eq(get_bits(drain, 0x48, 24), 0x654321);
	ck_assert_uint_eq(get_bits(drain, 0x20, 0x28), 0);
	ck_assert_uint_eq(get_bits(drain, 0x60, 0x20), 0);
	ck_assert_uint_eq(drain[16], 0xee);
	ck_assert_int_eq(kern_devx_classify(MLX5_CMD_OP_DRAIN_DCT), KERN_CMD_KERNEL_ONLY);

	set_op(din, MLX5_CMD_OP_DESTROY_QP);
	ck_assert_int_eq(kern_devx_build_drain_dct(din, drain, &dl), -EINVAL);

	set_op(in, MLX5_CMD_OP_CREATE_QP);
	ck_assert_int_eq(kern_devx_destroy_flow(in, false), KERN_DESTROY_PLAIN);
	set_op(in, MLX5_CMD_OP_CREATE_GENERAL_OBJECT);
	ck_assert_int_eq(kern_devx_destroy_flow(in, false), KERN_DESTROY_PLAIN);
}
END_TEST

/* ---- status -> errno ---- */
START_TEST(test_status_to_errno_table)
{
	/* cmd_status_to_err(), core/cmd.c */
	static const struct {
		uint8_t status;
		int err;
	} want[] = {
		{ 0x00, 0 },		/* OK */
		{ 0x01, -EIO },		/* INT_ERR */
		{ 0x02, -EINVAL },	/* BAD_OP_ERR */
		{ 0x03, -EINVAL },	/* BAD_PARAM_ERR */
		{ 0x04, -EIO },		/* BAD_SYS_STATE_ERR */
		{ 0x05, -EINVAL },	/* BAD_RES_ERR */
		{ 0x06, -EBUSY },	/* RES_BUSY */
		{ 0x07, -EAGAIN },	/* NOT_READY */
		{ 0x08, -ENOMEM },	/* LIM_ERR */
		{ 0x09, -EINVAL },	/* BAD_RES_STATE_ERR */
		{ 0x0a, -EINVAL },	/* IX_ERR */
		{ 0x0f, -EAGAIN },	/* NO_RES_ERR */
		{ 0x10, -EINVAL },	/* BAD_QP_STATE_ERR */
		{ 0x30, -EINVAL },	/* BAD_PKT_ERR */
		{ 0x40, -EINVAL },	/* BAD_SIZE_OUTS_CQES_ERR */
		{ 0x50, -EIO },		/* BAD_INP_LEN_ERR */
		{ 0x51, -EIO },		/* BAD_OUTP_LEN_ERR */
	};

	for (unsigned int s = 0; s < 256; s++) {
		int exp = -EIO;		/* default */

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (want[i].status == s)
				exp = want[i].err;
		ck_assert_msg(kern_status_to_errno((uint8_t)s) == exp, "status 0x%x", s);
	}
}
END_TEST

START_TEST(test_status_errno_by_class)
{
	static const enum kern_cmd_class devx[] = {
		KERN_CMD_GENERAL, KERN_CMD_CREATE, KERN_CMD_MODIFY, KERN_CMD_QUERY,
	};

	for (unsigned int s = 0; s < 256; s++) {
		for (size_t i = 0; i < sizeof(devx) / sizeof(devx[0]); i++)
			ck_assert_int_eq(kern_devx_status_errno(devx[i], (uint8_t)s),
					 s ? -EREMOTEIO : 0);
		ck_assert_int_eq(kern_devx_status_errno(KERN_CMD_DESTROY, (uint8_t)s),
				 kern_status_to_errno((uint8_t)s));
		ck_assert_int_eq(kern_devx_status_errno(KERN_CMD_KERNEL_ONLY, (uint8_t)s),
				 kern_status_to_errno((uint8_t)s));
	}
	ck_assert_int_eq(kern_devx_status_errno(KERN_CMD_DESTROY, MLX5_CMD_STAT_RES_BUSY), -EBUSY);
}
END_TEST

/* ---- kern_devx_check ---- */
static int check(enum kern_devx_method m, const void *in, size_t inlen, size_t outlen,
		 uint16_t ctx_uid, uint16_t wl_uid, bool cap, uint16_t *uid)
{
	return kern_devx_check(m, in, inlen, outlen, ctx_uid, wl_uid, cap, uid);
}

START_TEST(test_check_lengths)
{
	uint8_t in[64] = { 0 };
	uint16_t uid = 0;

	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 16, 5, 0, false, &uid), 0);
	ck_assert_uint_eq(uid, 5);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 15, 16, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 15, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 0, 16, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 65535, 65535, 5, 0, false, &uid), 0);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 65536, 16, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 65536, 5, 0, false, &uid), -EINVAL);
	/* Bad lengths win over everything else. */
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 15, 16, 0, 0, false, &uid), -EINVAL);

	/* Async query: out_len is a u16 constant without a minimum. */
	set_op(in, MLX5_CMD_OP_QUERY_CQ);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_ASYNC_QUERY, in, 16, 0, 5, 0, false, &uid), 0);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_ASYNC_QUERY, in, 16, 65535, 5, 0, false, &uid), 0);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_ASYNC_QUERY, in, 16, 65536, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_ASYNC_QUERY, in, 8, 64, 5, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_QUERY, in, 16, 0, 5, 0, false, &uid), -EINVAL);
}
END_TEST

START_TEST(test_check_order_and_classes)
{
	uint8_t in[64] = { 0 };
	uint16_t uid = 0;

	/* vhca_tunnel_id: EINVAL on object methods, before the uid. */
	set_op(in, MLX5_CMD_OP_QUERY_HCA_CAP);
	put_bits(in, OFF_VHCA_TUNNEL, 16, 1);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_QUERY, in, 16, 16, 0, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 16, 0, 0, false, &uid), -EINVAL);
	/* ... not on the general method, which reaches the uid step. */
	ck_assert_int_eq(check(KERN_DEVX_GENERAL, in, 16, 16, 0, 0, false, &uid), -EOPNOTSUPP);
	ck_assert_int_eq(check(KERN_DEVX_GENERAL, in, 16, 16, 0, 8, false, &uid), 0);
	ck_assert_uint_eq(uid, 8);
	set_op(in, MLX5_CMD_OP_CREATE_EQ);
	ck_assert_int_eq(check(KERN_DEVX_GENERAL, in, 16, 16, 4, 0, false, &uid), -EINVAL);
	ck_assert_int_eq(check(KERN_DEVX_GENERAL, in, 16, 16, 4, 0, true, &uid), 0);
	put_bits(in, OFF_VHCA_TUNNEL, 16, 0);

	/* Each method accepts only its class. */
	static const struct {
		const char *op;
		enum kern_devx_method ok;
	} cases[] = {
		{ "QUERY_ADAPTER", KERN_DEVX_GENERAL },
		{ "SYNC_STEERING", KERN_DEVX_GENERAL },
		{ "CREATE_CQ", KERN_DEVX_OBJ_CREATE },
		{ "MODIFY_CQ", KERN_DEVX_OBJ_MODIFY },
		{ "QUERY_CQ", KERN_DEVX_OBJ_QUERY },
		{ "DESTROY_CQ", (enum kern_devx_method)-1 },
		{ "CREATE_EQ", (enum kern_devx_method)-1 },
		{ "ALLOC_UAR", (enum kern_devx_method)-1 },
		{ "SET_ROCE_ADDRESS", (enum kern_devx_method)-1 },
		{ "SQD_RTS_QP", (enum kern_devx_method)-1 },
	};
	static const enum kern_devx_method methods[] = {
		KERN_DEVX_GENERAL, KERN_DEVX_OBJ_CREATE, KERN_DEVX_OBJ_MODIFY,
		KERN_DEVX_OBJ_QUERY, KERN_DEVX_OBJ_ASYNC_QUERY,
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_ge(op_by_name(cases[i].op), 0);
		set_op(in, (uint16_t)op_by_name(cases[i].op));
		for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
			bool ok = methods[m] == cases[i].ok ||
				  (methods[m] == KERN_DEVX_OBJ_ASYNC_QUERY &&
				   cases[i].ok == KERN_DEVX_OBJ_QUERY);

			uid = 0;
			ck_assert_msg(check(methods[m], in, 16, 16, 6, 0, false, &uid) ==
				      (ok ? 0 : -EINVAL), "%s via method %d", cases[i].op, (int)m);
			if (ok)
				ck_assert_uint_eq(uid, 6);
		}
	}

	/* No context uid: EINVAL for ordinary commands (after class? no: the
	 * uid step comes first, so even a wrong-class command gets EINVAL). */
	set_op(in, MLX5_CMD_OP_CREATE_CQ);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 16, 0, 9, false, &uid), -EINVAL);
	/* Whitelisted with neither uid: EOPNOTSUPP even on a wrong method. */
	set_op(in, MLX5_CMD_OP_QUERY_HCA_CAP);
	ck_assert_int_eq(check(KERN_DEVX_OBJ_CREATE, in, 16, 16, 0, 0, false, &uid), -EOPNOTSUPP);
	ck_assert_int_eq(check((enum kern_devx_method)77, in, 16, 16, 1, 0, false, &uid), -EINVAL);
}
END_TEST

START_TEST(test_spans_minimum)
{
	for (size_t i = 0; i < NOPS; i++) {
		ck_assert_uint_ge(kern_devx_in_span(all_ops[i].value), 16);
		ck_assert_uint_ge(kern_devx_out_span(all_ops[i].value), 16);
		ck_assert_uint_le(kern_devx_in_span(all_ops[i].value), 512);
		ck_assert_uint_le(kern_devx_out_span(all_ops[i].value), 64);
	}
	ck_assert_uint_eq(kern_devx_in_span(MLX5_CMD_OP_NOP), 16);
	ck_assert_uint_eq(kern_devx_out_span(MLX5_CMD_OP_CREATE_PSV), 20);
	/* Whole dwords: wq_umem_valid (bit 0x860) lives in bytes 268..271. */
	ck_assert_uint_eq(kern_devx_in_span(MLX5_CMD_OP_CREATE_QP), 272);
	ck_assert_uint_eq(kern_devx_in_span(MLX5_CMD_OP_ATTACH_TO_MCG), 32);
}
END_TEST

/*
 * A span is whole 32-bit words, since the accessors read and write whole
 * words: a buffer of exactly kern_devx_in_span bytes takes every rule,
 * the *_umem_valid writes included, without a byte past its end changing
 * (AddressSanitizer also sees the span's heap block).
 */
START_TEST(test_spans_cover_words)
{
	for (size_t i = 0; i < NOPS; i++) {
		uint16_t op = (uint16_t)all_ops[i].value;
		size_t span = kern_devx_in_span(op);
		uint8_t *buf = malloc(span + 4);

		ck_assert_msg(span % 4 == 0, "%s: in span %zu", all_ops[i].name, span);
		ck_assert_msg(kern_devx_out_span(op) % 4 == 0, "%s: out span %zu",
			      all_ops[i].name, kern_devx_out_span(op));
		ck_assert_ptr_nonnull(buf);
		memset(buf, 0, span);
		memset(buf + span, 0xa5, 4);
		set_op(buf, op);
		kern_devx_set_umem_valid(buf);
		for (size_t b = span; b < span + 4; b++)
			ck_assert_msg(buf[b] == 0xa5, "%s: byte %zu past the span of %zu written",
				      all_ops[i].name, b, span);
		free(buf);
	}
}
END_TEST

static Suite *kern_devx_rules_suite(void)
{
	Suite *s = suite_create("kern_devx_rules");
	TCase *tc;

	tc = tcase_create("classes");
	tcase_add_test(tc, test_expectation_names_exist);
	tcase_add_test(tc, test_classify_every_known_opcode);
	tcase_add_test(tc, test_classify_every_16bit_value);
	tcase_add_test(tc, test_class_str);
	tcase_add_test(tc, test_predicates_follow_lists);
	tcase_add_test(tc, test_predicates_mailbox_conditions);
	tcase_add_test(tc, test_whitelist_and_uid);
	suite_add_tcase(s, tc);

	tc = tcase_create("header");
	tcase_add_test(tc, test_uid_stamp_leaves_other_bytes);
	tcase_add_test(tc, test_header_getters);
	suite_add_tcase(s, tc);

	tc = tcase_create("ids");
	tcase_add_loop_test(tc, test_created_obj_id_each_type, 0, (int)NCREATED);
	tcase_add_test(tc, test_created_obj_id_general_types);
	tcase_add_test(tc, test_created_obj_id_rejects_non_creates);
	tcase_add_loop_test(tc, test_target_obj_id_each_command, 0, (int)NTARGETS);
	tcase_add_test(tc, test_target_obj_id_coverage);
	tcase_add_test(tc, test_general_obj_type_must_match);
	tcase_add_test(tc, test_flow_counter_bulk);
	suite_add_tcase(s, tc);

	tc = tcase_create("umem_valid");
	tcase_add_loop_test(tc, test_umem_valid_each_command, 0, (int)NUMEM);
	tcase_add_test(tc, test_umem_valid_other_commands_untouched);
	tcase_add_test(tc, test_prepare_create_mkey);
	tcase_add_test(tc, test_prepare_create_bounded_by_inlen);
	tcase_add_test(tc, test_cq_eqn_and_apu);
	suite_add_tcase(s, tc);

	tc = tcase_create("destroy");
	tcase_add_loop_test(tc, test_build_destroy_each_type, 0, (int)NDESTROYS);
	tcase_add_test(tc, test_build_destroy_general_obj_type);
	tcase_add_test(tc, test_build_destroy_rejects_non_creates);
	tcase_add_test(tc, test_destroy_flow_and_drain_dct);
	suite_add_tcase(s, tc);

	tc = tcase_create("errno");
	tcase_add_test(tc, test_status_to_errno_table);
	tcase_add_test(tc, test_status_errno_by_class);
	tcase_add_test(tc, test_check_lengths);
	tcase_add_test(tc, test_check_order_and_classes);
	tcase_add_test(tc, test_spans_minimum);
	tcase_add_test(tc, test_spans_cover_words);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kern_devx_rules_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
