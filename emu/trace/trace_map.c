/* SPDX-License-Identifier: MIT */
/*
 * emu/trace/trace_map.c -- which prm/ layout decodes which mailbox, and the
 * names of opcodes, statuses, syndromes and general object types.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/trace/trace_fmt.h"
#include "emu/trace/trace_int.h"
#include "prm/prm_cmd.h"

/* Opcodes whose layouts the PRM names otherwise than "<opcode>_in/_out". */
static const struct {
	uint16_t opcode;
	const char *base;
} trace_renamed[] = {
	{ MLX5_CMD_OP_2ERR_QP, "qp_2err" },
	{ MLX5_CMD_OP_2RST_QP, "qp_2rst" },
	{ MLX5_CMD_OP_SQD_RTS_QP, "sqd2rts_qp" },
	{ MLX5_CMD_OP_ARM_DCT_FOR_KEY_VIOLATION, "arm_dct" },
	{ MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY, "set_fte" },
	{ MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY, "delete_fte" },
	{ MLX5_CMD_OP_QUERY_FLOW_TABLE_ENTRY, "query_fte" },
	{ MLX5_CMD_OP_ACCESS_REG, "access_register" },
};

const char *emu_trace_opcode_name(uint16_t opcode)
{
	switch (opcode) {
#define PRM_OPCODE(name, val) case (val): return #name;
#include "prm/opcodes.def"
#undef PRM_OPCODE
	default:
		return NULL;
	}
}

static bool trace_is_general_obj(uint16_t opcode)
{
	return opcode >= MLX5_CMD_OP_CREATE_GENERAL_OBJECT &&
	       opcode <= MLX5_CMD_OP_DESTROY_GENERAL_OBJECT;
}

static const struct prm_struct_desc *trace_layout(uint16_t opcode,
						  const char *suffix)
{
	const char *name = emu_trace_opcode_name(opcode);
	char buf[96];
	size_t i, n;

	if (!name)
		return NULL;
	if (trace_is_general_obj(opcode)) {
		snprintf(buf, sizeof(buf), "general_obj%s_cmd_hdr", suffix);
		return prm_struct_find(buf);
	}
	for (i = 0; i < sizeof(trace_renamed) / sizeof(trace_renamed[0]); i++)
		if (trace_renamed[i].opcode == opcode) {
			snprintf(buf, sizeof(buf), "%s%s", trace_renamed[i].base,
				 suffix);
			return prm_struct_find(buf);
		}
	n = strlen(name);
	if (n + strlen(suffix) >= sizeof(buf))
		return NULL;
	for (i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)name[i]);
	strcpy(buf + n, suffix);
	return prm_struct_find(buf);
}

bool emu_trace_opcode_described(uint16_t opcode)
{
	return trace_layout(opcode, "_in") != NULL;
}

const struct prm_struct_desc *emu_trace_in_struct(uint16_t opcode)
{
	const struct prm_struct_desc *sd = trace_layout(opcode, "_in");

	return sd ? sd : prm_struct_find("mbox_in");
}

const struct prm_struct_desc *emu_trace_out_struct(uint16_t opcode)
{
	const struct prm_struct_desc *sd = trace_layout(opcode, "_out");

	return sd ? sd : prm_struct_find("mbox_out");
}

int emu_trace_opcode_parse(const char *name)
{
	static const char prefix[] = "MLX5_CMD_OP_";
	char *end;
	unsigned long v;

	if (!name || !*name)
		return -1;
	if (!strncasecmp(name, prefix, sizeof(prefix) - 1))
		name += sizeof(prefix) - 1;
#define PRM_OPCODE(nm, val) if (!strcasecmp(name, #nm)) return (val);
#include "prm/opcodes.def"
#undef PRM_OPCODE
	if (!isdigit((unsigned char)name[0]))
		return -1;
	errno = 0;
	v = strtoul(name, &end, 0);
	if (errno || *end || v > 0xffff)
		return -1;
	return (int)v;
}

/* MLX5_CMD_STAT_BAD_PARAM_ERR -> BAD_PARAM: the names users grep for,
 * built once. */
static const struct {
	uint8_t value;
	const char *full;
} trace_statuses[] = {
#define PRM_X(name, val, str) { (val), #name },
	PRM_CMD_STATUSES(PRM_X)
#undef PRM_X
};

#define TRACE_NSTATUS (sizeof(trace_statuses) / sizeof(trace_statuses[0]))

static char trace_status_brief[TRACE_NSTATUS][48];
static pthread_once_t trace_status_once = PTHREAD_ONCE_INIT;

static void trace_status_init(void)
{
	static const char prefix[] = "MLX5_CMD_STAT_";

	for (size_t i = 0; i < TRACE_NSTATUS; i++) {
		const char *name = trace_statuses[i].full;
		size_t n;

		if (!strncmp(name, prefix, sizeof(prefix) - 1))
			name += sizeof(prefix) - 1;
		n = strlen(name);
		/* ..._ERR is dropped, except from INT_ERR (no short name) */
		if (n > 4 && !strcmp(name + n - 4, "_ERR") && strcmp(name, "INT_ERR"))
			n -= 4;
		if (n >= sizeof(trace_status_brief[i]))
			n = sizeof(trace_status_brief[i]) - 1;
		memcpy(trace_status_brief[i], name, n);
		trace_status_brief[i][n] = '\0';
	}
}

const char *emu_trace_status_name(uint8_t status)
{
	pthread_once(&trace_status_once, trace_status_init);
	for (size_t i = 0; i < TRACE_NSTATUS; i++)
		if (trace_statuses[i].value == status)
			return trace_status_brief[i];
	return NULL;
}

static const struct {
	uint32_t value;
	const char *name;
} trace_syndromes[] = {
#define FW_SYND(id, value, status, text, source) { (value), #id },
#include "prm/syndromes.def"
#undef FW_SYND
};

const char *emu_trace_syndrome_name(uint32_t syndrome)
{
	if (!syndrome)
		return NULL;
	for (size_t i = 0; i < sizeof(trace_syndromes) / sizeof(trace_syndromes[0]); i++)
		if (trace_syndromes[i].value == syndrome)
			return trace_syndromes[i].name;
	return NULL;
}

const char *emu_trace_obj_type_name(uint16_t obj_type)
{
	switch (obj_type) {
#define OBJ(n) case MLX5_OBJ_TYPE_##n: return #n;
	OBJ(SW_ICM) OBJ(GENEVE_TLV_OPT) OBJ(VIRTIO_NET_Q) OBJ(MATCH_DEFINER)
	OBJ(VIRTIO_Q_COUNTERS) OBJ(HEADER_MODIFY_ARGUMENT) OBJ(STC) OBJ(RTC)
	OBJ(STE) OBJ(MODIFY_HDR_PATTERN) OBJ(PAGE_TRACK) OBJ(MKEY) OBJ(QP)
	OBJ(PSV) OBJ(RMP) OBJ(XRC_SRQ) OBJ(RQ) OBJ(SQ) OBJ(TIR) OBJ(TIS)
	OBJ(DCT) OBJ(XRQ) OBJ(RQT) OBJ(FLOW_COUNTER) OBJ(CQ) OBJ(FT_ALIAS)
#undef OBJ
#define GOBJ(n) case MLX5_GENERAL_OBJECT_TYPES_##n: return #n;
	GOBJ(ENCRYPTION_KEY) GOBJ(IPSEC) GOBJ(SAMPLER) GOBJ(FLOW_METER_ASO)
	GOBJ(MACSEC) GOBJ(INT_KEK) GOBJ(RDMA_CTRL)
#undef GOBJ
	default:
		return NULL;
	}
}

/* QUERY_HCA_CAP/SET_HCA_CAP: op_mod = (cap type << 1) | current. */
static const char *trace_cap_page(uint16_t op_mod)
{
	switch (op_mod >> 1) {
	case MLX5_CAP_GENERAL: return "cmd_hca_cap";
	case MLX5_CAP_ETHERNET_OFFLOADS: return "per_protocol_networking_offload_caps";
	case MLX5_CAP_ODP: return "odp_cap";
	case MLX5_CAP_ATOMIC: return "atomic_caps";
	case MLX5_CAP_ROCE: return "roce_cap";
	case MLX5_CAP_GENERAL_2: return "cmd_hca_cap_2";
	default: return NULL;
	}
}

int trace_union_member(const struct prm_struct_desc *u, uint16_t opcode,
		       uint16_t op_mod)
{
	const char *want = NULL;

	if (!strcmp(u->name, "hca_cap_union")) {
		if (opcode == MLX5_CMD_OP_QUERY_HCA_CAP ||
		    opcode == MLX5_CMD_OP_SET_HCA_CAP)
			want = trace_cap_page(op_mod);
	} else if (!strcmp(u->name, "general_obj_op_param")) {
		if (opcode == MLX5_CMD_OP_CREATE_GENERAL_OBJECT)
			want = "create";
		else if (opcode == MLX5_CMD_OP_QUERY_GENERAL_OBJECT)
			want = "query";
	} else if (!strcmp(u->name,
			   "modify_field_select_resize_field_select_auto")) {
		if (opcode == MLX5_CMD_OP_MODIFY_CQ)
			want = op_mod == 1 ? "resize_field_select" :
					     "modify_field_select";
	}
	if (!want)
		return -1;
	for (uint32_t i = 0; i < u->nfields; i++)
		if (!strcmp(u->fields[i].name, want))
			return (int)i;
	return -1;
}
