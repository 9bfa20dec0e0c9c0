/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_rule_wire.c -- the part of the rule language that acts
 * on frames (docs/fault-injection.md, "Wire faults"):
 *
 *     action = "drop" / "duplicate" / "reorder" / "corrupt" / "delay"
 *     keys   = port=N  qp=N  bth=OPCODE  psn=A[-B]  dir=tx|rx  us=N
 *
 * A delay is a wire rule when it names a frame key or gives us=; with
 * ms= and command keys (or none) it delays commands, as before.  BTH
 * opcodes are named as emu/wire's table names them (RC_SEND_ONLY,
 * UD_SEND_ONLY_WITH_IMMEDIATE ...) or given as numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emu/base/base.h"
#include "emu/fault/fault_rule.h"
#include "emu/wire/wire.h"

#define WIRE_MATCH (MLX5EMU_FAULT_MATCH_PORT | MLX5EMU_FAULT_MATCH_QPN | \
		    MLX5EMU_FAULT_MATCH_PSN | MLX5EMU_FAULT_MATCH_BTH | \
		    MLX5EMU_FAULT_MATCH_DIR)
#define CMD_MATCH (MLX5EMU_FAULT_MATCH_OPCODE | MLX5EMU_FAULT_MATCH_OP_MOD | \
		   MLX5EMU_FAULT_MATCH_OBJ_TYPE | MLX5EMU_FAULT_MATCH_CLASS | \
		   MLX5EMU_FAULT_MATCH_UID | MLX5EMU_FAULT_MATCH_USER)

bool emu_fault_rule_is_wire(const struct mlx5emu_fault_rule *r)
{
	switch (r->action) {
	case MLX5EMU_FAULT_DROP:
	case MLX5EMU_FAULT_DUPLICATE:
	case MLX5EMU_FAULT_REORDER:
	case MLX5EMU_FAULT_CORRUPT:
		return true;
	case MLX5EMU_FAULT_DELAY:
		return r->delay_us || (r->match & WIRE_MATCH);
	default:
		return false;
	}
}

static int wire_opcode(const char *v, uint16_t *out)
{
	uint64_t n;

	for (unsigned int op = 0; op < 256; op++) {
		const struct emu_wire_opinfo *oi = emu_wire_opinfo((uint8_t)op);

		if (oi && emu_text_eq_nocase(v, oi->name)) {
			*out = (uint16_t)op;
			return 0;
		}
	}
	if (emu_text_parse_u64(v, 0xff, &n))
		return -EINVAL;
	*out = (uint16_t)n;
	return 0;
}

int emu_fault_wire_key(struct mlx5emu_fault_rule *r, const char *key,
		       const char *v, char *err, size_t errlen)
{
	uint64_t n, m;
	const char *dash;

	if (emu_text_eq_nocase(key, "port")) {
		if (emu_text_parse_u64(v, EMU_MAX_PORTS, &n) || !n)
			return emu_fault_errf(err, errlen, "bad port \"%s\": expected 1 "
				     "to %d", v, EMU_MAX_PORTS);
		r->port = (uint32_t)n;
		r->match |= MLX5EMU_FAULT_MATCH_PORT;
	} else if (emu_text_eq_nocase(key, "qp")) {
		if (emu_text_parse_u64(v, 0xffffff, &n))
			return emu_fault_errf(err, errlen, "bad qp \"%s\": expected a QP "
				     "number from 0 to 0xffffff", v);
		r->qpn = (uint32_t)n;
		r->match |= MLX5EMU_FAULT_MATCH_QPN;
	} else if (emu_text_eq_nocase(key, "bth")) {
		if (wire_opcode(v, &r->bth_opcode))
			return emu_fault_errf(err, errlen, "bad bth \"%s\": expected a BTH "
				     "opcode such as RC_SEND_ONLY, or a number "
				     "from 0 to 255", v);
		r->match |= MLX5EMU_FAULT_MATCH_BTH;
	} else if (emu_text_eq_nocase(key, "psn")) {
		char a[32];

		dash = strchr(v, '-');
		snprintf(a, sizeof(a), "%.*s",
			 (int)(dash ? (size_t)(dash - v) : strlen(v)), v);
		if (emu_text_parse_u64(a, 0xffffff, &n) ||
		    emu_text_parse_u64(dash ? dash + 1 : a, 0xffffff, &m))
			return emu_fault_errf(err, errlen, "bad psn \"%s\": expected a PSN "
				     "or a range A-B of PSNs (0 to 0xffffff)", v);
		r->psn_first = (uint32_t)n;
		r->psn_last = (uint32_t)m;
		r->match |= MLX5EMU_FAULT_MATCH_PSN;
	} else if (emu_text_eq_nocase(key, "dir")) {
		if (emu_text_eq_nocase(v, "tx"))
			r->dir = MLX5EMU_FAULT_DIR_TX;
		else if (emu_text_eq_nocase(v, "rx"))
			r->dir = MLX5EMU_FAULT_DIR_RX;
		else
			return emu_fault_errf(err, errlen, "bad dir \"%s\": expected tx "
				     "or rx", v);
		r->match |= MLX5EMU_FAULT_MATCH_DIR;
	} else if (emu_text_eq_nocase(key, "us")) {
		if (emu_text_parse_u64(v, EMU_FAULT_MAX_DELAY_US, &n) || !n)
			return emu_fault_errf(err, errlen, "bad us \"%s\": expected "
				     "microseconds from 1 to %d", v,
				     EMU_FAULT_MAX_DELAY_US);
		r->delay_us = (uint32_t)n;
	} else {
		return -ENOENT;
	}
	return 0;
}

int emu_fault_wire_check(const struct mlx5emu_fault_rule *r, char *err,
			 size_t errlen)
{
	if (!emu_fault_rule_is_wire(r)) {
		/* A port event's port names the port it changes. */
		if ((r->port && !emu_fault_is_event(r->action)) || r->qpn ||
		    r->psn_first || r->psn_last ||
		    r->bth_opcode || r->dir)
			return emu_fault_errf(err, errlen, "frame fields are set but the "
				     "rule is not a wire rule");
		return 0;
	}
	if (r->match & CMD_MATCH)
		return emu_fault_errf(err, errlen, "a wire rule matches frames: opcode, "
			     "op_mod, obj_type, class and uid are command keys");
	if (r->status || r->syndrome)
		return emu_fault_errf(err, errlen, "status and syndrome apply only to "
			     "fail rules");
	if (r->action == MLX5EMU_FAULT_DELAY) {
		if (r->delay_ms && r->delay_us)
			return emu_fault_errf(err, errlen, "give ms or us, not both");
		if (!r->delay_ms && !r->delay_us)
			return emu_fault_errf(err, errlen, "a delay rule needs ms=N or "
				     "us=N");
		if (r->delay_us > EMU_FAULT_MAX_DELAY_US)
			return emu_fault_errf(err, errlen, "us is at most %d",
				     EMU_FAULT_MAX_DELAY_US);
	} else if (r->delay_ms || r->delay_us) {
		return emu_fault_errf(err, errlen, "ms and us apply only to delay rules");
	}
#define UNUSED_ZERO(bit, fld, name)					\
	if (!(r->match & (bit)) && r->fld)				\
		return emu_fault_errf(err, errlen, name " is set but its match bit " \
			     #bit " is not")
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_PORT, port, "port");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_QPN, qpn, "qp");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_BTH, bth_opcode, "bth");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_DIR, dir, "dir");
#undef UNUSED_ZERO
	if (!(r->match & MLX5EMU_FAULT_MATCH_PSN) && (r->psn_first || r->psn_last))
		return emu_fault_errf(err, errlen, "psn is set but its match bit "
			     "MLX5EMU_FAULT_MATCH_PSN is not");
	if ((r->match & MLX5EMU_FAULT_MATCH_PORT) &&
	    (r->port < 1 || r->port > EMU_MAX_PORTS))
		return emu_fault_errf(err, errlen, "port %" PRIu32 " is out of range (1 "
			     "to %d)", r->port, EMU_MAX_PORTS);
	if (r->qpn > 0xffffff || r->psn_first > 0xffffff ||
	    r->psn_last > 0xffffff || r->bth_opcode > 0xff)
		return emu_fault_errf(err, errlen, "qp, psn and bth are 24, 24 and 8 bits");
	if (r->dir > MLX5EMU_FAULT_DIR_RX)
		return emu_fault_errf(err, errlen, "dir %u is neither tx (0) nor rx (1)",
			     r->dir);
	return 0;
}

void emu_fault_wire_format(const struct mlx5emu_fault_rule *r, char *out,
			   size_t len, size_t *n, bool action)
{
	static const char *const names[] = {
		[MLX5EMU_FAULT_DELAY] = "delay", [MLX5EMU_FAULT_DROP] = "drop",
		[MLX5EMU_FAULT_DUPLICATE] = "duplicate",
		[MLX5EMU_FAULT_REORDER] = "reorder",
		[MLX5EMU_FAULT_CORRUPT] = "corrupt",
	};
	const struct emu_wire_opinfo *oi;

#define PUT(...) \
	(*n += (size_t)snprintf(out + *n, *n < len ? len - *n : 0, __VA_ARGS__))
	if (action) {
		PUT("%s", names[r->action]);
		return;
	}
	if (r->match & MLX5EMU_FAULT_MATCH_PORT)
		PUT(" port=%" PRIu32, r->port);
	if (r->match & MLX5EMU_FAULT_MATCH_DIR)
		PUT(" dir=%s", r->dir == MLX5EMU_FAULT_DIR_RX ? "rx" : "tx");
	if (r->match & MLX5EMU_FAULT_MATCH_QPN)
		PUT(" qp=0x%" PRIx32, r->qpn);
	if (r->match & MLX5EMU_FAULT_MATCH_BTH) {
		oi = emu_wire_opinfo((uint8_t)r->bth_opcode);
		if (oi)
			PUT(" bth=%s", oi->name);
		else
			PUT(" bth=0x%x", r->bth_opcode);
	}
	if (r->match & MLX5EMU_FAULT_MATCH_PSN) {
		if (r->psn_first == r->psn_last)
			PUT(" psn=%" PRIu32, r->psn_first);
		else
			PUT(" psn=%" PRIu32 "-%" PRIu32, r->psn_first,
			    r->psn_last);
	}
	if (r->delay_us)
		PUT(" us=%" PRIu32, r->delay_us);
#undef PUT
}
