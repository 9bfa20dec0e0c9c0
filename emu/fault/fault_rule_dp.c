/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_rule_dp.c -- the part of the rule language that acts on
 * work requests (docs/fault-injection.md, "Data-path faults"):
 *
 *     action = "cqe_error" / "cqe_delay" / "doorbell_drop"
 *     keys   = qp=N  wqe=OPCODE  queue=sq|rq|cq_arm  cqn=N  syndrome=NAME
 *              vendor_syndrome=N  us=N      (and dev, nth, every, prob,
 *                                            seed, limit)
 *
 * A doorbell_drop loses send queue doorbells (queue=sq, the default; qp=
 * names the QP) or CQ arm requests (queue=cq_arm; cqn= names the CQ).
 *
 * WQE opcodes are named as infiniband/mlx5dv.h names them without
 * MLX5_OPCODE_ (prm/dp_opcodes.def); CQE syndromes by the ids of the
 * error CQE table (prm/cqe_syndromes.def: LOCAL_PROT, REMOTE_ACCESS ...),
 * also with mlx5dv.h's MLX5_CQE_SYNDROME_ prefix and _ERR suffix, or as
 * numbers.  A syndrome the table has brings its vendor syndrome.
 *
 * On a MANA device (dev=mana_N) the syndrome is the error CQE's type, named
 * as the kernel's include/net/mana/mana.h names it (CQE_TX_MTU_DROP, with
 * or without CQE_; prm/mana.def) or a number, and the vendor syndrome fills
 * the CQE header's 24-bit vendor_err.  Its queues are the send queue, the
 * receive queue (cqe_error and doorbell_drop) and CQ arms.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "emu/base/base.h"
#include "emu/fault/fault_rule.h"

#define FRAME_MATCH (MLX5EMU_FAULT_MATCH_PORT | MLX5EMU_FAULT_MATCH_PSN | \
		     MLX5EMU_FAULT_MATCH_BTH | MLX5EMU_FAULT_MATCH_DIR)
#define CMD_MATCH (MLX5EMU_FAULT_MATCH_OPCODE | MLX5EMU_FAULT_MATCH_OP_MOD | \
		   MLX5EMU_FAULT_MATCH_OBJ_TYPE | MLX5EMU_FAULT_MATCH_CLASS | \
		   MLX5EMU_FAULT_MATCH_UID | MLX5EMU_FAULT_MATCH_USER)
#define DP_MATCH (MLX5EMU_FAULT_MATCH_WQE | MLX5EMU_FAULT_MATCH_QUEUE)

static const struct emu_fault_name wqe_opcodes[] = {
#define PRM_WQE_OPCODE(n, v) { #n, (v) },
#define PRM_CQE_OPCODE(n, v)
#include "prm/dp_opcodes.def"
#undef PRM_WQE_OPCODE
#undef PRM_CQE_OPCODE
};

/* The error CQE table: its ids name syndromes, its vendor values go with
 * them. */
static const struct {
	const char *name;
	uint8_t syndrome, vendor;
} cqe_synds[] = {
#define ENG_SYND(id, synd, vendor, text, src) { #id, (synd), (vendor) },
#include "prm/cqe_syndromes.def"
#undef ENG_SYND
};

/* MANA CQE types (prm/mana.def): the send side's error types and the one
 * receive type that says a frame was dropped. */
static const struct {
	const char *name;
	uint8_t value;
	bool tx;
} mana_types[] = {
#define MANA_CQE(name, val, tx, text) { #name, (val), (tx) },
#include "prm/mana.def"
#undef MANA_CQE
};

enum {
	MANA_TYPE_RX_TRUNCATED = 4,
	MANA_TYPE_TX_OKAY = 32,
	MANA_TYPE_TX_INVALID_OOB = 35,
	MANA_TYPE_TX_LAST = 41,		/* TX_VLAN_TAGGING_VIOLATION */
	MANA_VENDOR_MAX = 0xffffff,
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(MLX5EMU_FAULT_DEV_MANA == EMU_MAX_DEVICES,
	       "the public MANA device numbers follow the ConnectX ones");

bool emu_fault_rule_is_mana(const struct mlx5emu_fault_rule *r)
{
	return (r->match & MLX5EMU_FAULT_MATCH_DEV) && r->dev >= EMU_MAX_DEVICES;
}

const char *emu_fault_mana_cqe_name(uint8_t type)
{
	for (size_t i = 0; i < NELEMS(mana_types); i++)
		if (mana_types[i].value == type)
			return mana_types[i].name;
	return NULL;
}

/* "TX_MTU_DROP", "cqe_tx_mtu_drop". */
static int mana_type_by_name(const char *s, uint8_t *out)
{
	if ((s[0] | 0x20) == 'c' && (s[1] | 0x20) == 'q' &&
	    (s[2] | 0x20) == 'e' && s[3] == '_' && s[4])
		s += 4;
	for (size_t i = 0; i < NELEMS(mana_types); i++)
		if (emu_text_eq_nocase(s, mana_types[i].name)) {
			*out = mana_types[i].value;
			return 0;
		}
	return -ENOENT;
}

static bool mana_error_type(uint32_t type, bool rq)
{
	return rq ? type == MANA_TYPE_RX_TRUNCATED :
		    type > MANA_TYPE_TX_OKAY && type <= MANA_TYPE_TX_LAST;
}

static uint32_t rule_vendor(const struct mlx5emu_fault_rule *r)
{
	return (uint32_t)r->vendor_syndrome_hi << 8 | r->vendor_syndrome;
}

bool emu_fault_is_dp(uint32_t action)
{
	return action == MLX5EMU_FAULT_CQE_ERROR ||
	       action == MLX5EMU_FAULT_CQE_DELAY ||
	       action == MLX5EMU_FAULT_DOORBELL_DROP;
}

const char *emu_fault_wqe_opcode_name(uint8_t opcode)
{
	for (size_t i = 0; i < NELEMS(wqe_opcodes); i++)
		if (wqe_opcodes[i].value == opcode)
			return wqe_opcodes[i].name;
	return NULL;
}

const char *emu_fault_cqe_syndrome_name(uint8_t syndrome)
{
	for (size_t i = 0; i < NELEMS(cqe_synds); i++)
		if (cqe_synds[i].syndrome == syndrome)
			return cqe_synds[i].name;
	return NULL;
}

static int cqe_synd_index(uint8_t syndrome)
{
	for (size_t i = 0; i < NELEMS(cqe_synds); i++)
		if (cqe_synds[i].syndrome == syndrome)
			return (int)i;
	return -1;
}

/* "LOCAL_PROT", "local_prot_err", "MLX5_CQE_SYNDROME_LOCAL_PROT_ERR". */
static int cqe_synd_by_name(const char *s, uint8_t *out)
{
	static const char prefix[] = "MLX5_CQE_SYNDROME_";
	char buf[64];
	size_t n;

	if (strlen(s) > strlen(prefix)) {
		memcpy(buf, s, strlen(prefix));
		buf[strlen(prefix)] = '\0';
		if (emu_text_eq_nocase(buf, prefix))
			s += strlen(prefix);
	}
	n = strlen(s);
	if (n >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, s, n + 1);
	if (n > 4 && emu_text_eq_nocase(buf + n - 4, "_ERR"))
		buf[n - 4] = '\0';
	for (size_t i = 0; i < NELEMS(cqe_synds); i++)
		if (emu_text_eq_nocase(buf, cqe_synds[i].name)) {
			*out = cqe_synds[i].syndrome;
			return 0;
		}
	return -ENOENT;
}

int emu_fault_dp_key(struct mlx5emu_fault_rule *r, const char *key,
		     const char *v, char *err, size_t errlen)
{
	uint64_t n;
	uint8_t s;

	if (emu_text_eq_nocase(key, "wqe")) {
		if (emu_fault_name_or_num(wqe_opcodes, NELEMS(wqe_opcodes), v, 0xff, &n))
			return emu_fault_errf(err, errlen, "bad wqe \"%s\": expected a "
				     "WQE opcode such as SEND, RDMA_WRITE or "
				     "RDMA_READ, or a number from 0 to 255", v);
		r->wqe_opcode = (uint8_t)n;
		r->match |= MLX5EMU_FAULT_MATCH_WQE;
	} else if (emu_text_eq_nocase(key, "queue")) {
		if (emu_text_eq_nocase(v, "sq"))
			r->queue = MLX5EMU_FAULT_QUEUE_SQ;
		else if (emu_text_eq_nocase(v, "rq"))
			r->queue = MLX5EMU_FAULT_QUEUE_RQ;
		else if (emu_text_eq_nocase(v, "cq_arm"))
			r->queue = MLX5EMU_FAULT_QUEUE_CQ_ARM;
		else
			return emu_fault_errf(err, errlen, "bad queue \"%s\": expected "
				     "sq, rq or cq_arm", v);
		r->match |= MLX5EMU_FAULT_MATCH_QUEUE;
	} else if (emu_text_eq_nocase(key, "syndrome") &&
		   emu_fault_rule_is_mana(r)) {
		if (!mana_type_by_name(v, &s))
			r->syndrome = s;
		else if (!emu_text_parse_u64(v, 63, &n) && n)
			r->syndrome = (uint32_t)n;
		else
			return emu_fault_errf(err, errlen, "bad syndrome \"%s\": expected "
				     "a MANA CQE type such as CQE_TX_INVALID_OOB "
				     "or CQE_RX_TRUNCATED, or a number from 1 to "
				     "63", v);
	} else if (emu_text_eq_nocase(key, "vendor_syndrome") &&
		   emu_fault_rule_is_mana(r)) {
		if (emu_text_parse_u64(v, MANA_VENDOR_MAX, &n))
			return emu_fault_errf(err, errlen, "bad vendor_syndrome \"%s\": "
				     "expected a number from 0 to 0xffffff (a MANA "
				     "CQE's vendor_err)", v);
		r->vendor_syndrome = (uint8_t)n;
		r->vendor_syndrome_hi = (uint16_t)(n >> 8);
		r->flags |= MLX5EMU_FAULT_F_VENDOR;
	} else if (emu_text_eq_nocase(key, "syndrome")) {
		if (!cqe_synd_by_name(v, &s)) {
			r->syndrome = s;
		} else if (!emu_text_parse_u64(v, 0xff, &n) && n) {
			r->syndrome = (uint32_t)n;
		} else {
			return emu_fault_errf(err, errlen, "bad syndrome \"%s\": expected "
				     "a CQE syndrome such as LOCAL_PROT or "
				     "REMOTE_ACCESS, or a number from 1 to 255", v);
		}
	} else if (emu_text_eq_nocase(key, "vendor_syndrome")) {
		if (emu_text_parse_u64(v, 0xff, &n))
			return emu_fault_errf(err, errlen, "bad vendor_syndrome \"%s\": "
				     "expected a number from 0 to 255", v);
		r->vendor_syndrome = (uint8_t)n;
		r->flags |= MLX5EMU_FAULT_F_VENDOR;
	} else {
		return -ENOENT;
	}
	return 0;
}

/* A data-path rule on a MANA device, after the common data-path checks. */
static int mana_check(const struct mlx5emu_fault_rule *r, char *err,
		      size_t errlen)
{
	bool rq = r->queue == MLX5EMU_FAULT_QUEUE_RQ;

	if (r->action == MLX5EMU_FAULT_CQE_DELAY)
		return emu_fault_errf(err, errlen, "cqe_delay does not apply to "
			     "MANA devices: their completions are written as "
			     "the work is done, in order");
	if (r->match & MLX5EMU_FAULT_MATCH_WQE)
		return emu_fault_errf(err, errlen, "a MANA WQE has no opcode: wqe "
			     "does not apply to MANA devices");
	if (r->delay_us)
		return emu_fault_errf(err, errlen,
			     "us applies only to cqe_delay and wire rules");
	if (r->action == MLX5EMU_FAULT_DOORBELL_DROP) {
		if (r->syndrome || (r->flags & MLX5EMU_FAULT_F_VENDOR))
			return emu_fault_errf(err, errlen, "syndrome and "
				     "vendor_syndrome apply only to fail and "
				     "cqe_error rules");
		if (r->queue == MLX5EMU_FAULT_QUEUE_CQ_ARM &&
		    (r->match & MLX5EMU_FAULT_MATCH_QPN))
			return emu_fault_errf(err, errlen, "an arm names a CQ: qp "
				     "does not apply to queue=cq_arm (cqn=N "
				     "does)");
		return 0;
	}
	if (r->syndrome && !mana_error_type(r->syndrome, rq))
		return emu_fault_errf(err, errlen, "syndrome %" PRIu32 " is not a "
			     "MANA %s error CQE type (%s)", r->syndrome,
			     rq ? "receive" : "send", rq ? "CQE_RX_TRUNCATED" :
			     "CQE_TX_SA_DROP .. CQE_TX_VLAN_TAGGING_VIOLATION, "
			     "33 to 41");
	return 0;
}

int emu_fault_dp_check(const struct mlx5emu_fault_rule *r, char *err,
		       size_t errlen)
{
	if (r->reserved8 || r->reserved16)
		return emu_fault_errf(err, errlen, "reserved fields must be 0");
	if (r->vendor_syndrome_hi && !emu_fault_rule_is_mana(r))
		return emu_fault_errf(err, errlen, "a vendor syndrome above 0xff "
			     "(vendor_syndrome_hi) applies only to MANA devices");
	if (!emu_fault_is_dp(r->action)) {
		if ((r->match & DP_MATCH) || r->wqe_opcode || r->queue ||
		    r->vendor_syndrome || (r->flags & MLX5EMU_FAULT_F_VENDOR))
			return emu_fault_errf(err, errlen, "wqe, queue and "
				     "vendor_syndrome apply only to cqe_error, "
				     "cqe_delay and doorbell_drop rules");
		return 0;
	}
	if (r->match & CMD_MATCH)
		return emu_fault_errf(err, errlen, "a data-path rule matches work "
			     "requests: opcode, op_mod, obj_type, class and "
			     "uid are command keys");
	if ((r->match & FRAME_MATCH) || r->port || r->psn_first ||
	    r->psn_last || r->bth_opcode || r->dir)
		return emu_fault_errf(err, errlen, "a data-path rule matches work "
			     "requests: port, bth, psn and dir are frame keys");
	if (r->status)
		return emu_fault_errf(err, errlen, "status applies only to fail rules");
	if (r->delay_ms)
		return emu_fault_errf(err, errlen, "ms applies only to delay rules; "
			     "cqe_delay takes us=N");
	if (!(r->match & MLX5EMU_FAULT_MATCH_QPN) && r->qpn)
		return emu_fault_errf(err, errlen, "qp is set but its match bit "
			     "MLX5EMU_FAULT_MATCH_QPN is not");
	if (r->qpn > 0xffffff)
		return emu_fault_errf(err, errlen, "qp is a 24-bit QP number");
	if (!(r->match & MLX5EMU_FAULT_MATCH_WQE) && r->wqe_opcode)
		return emu_fault_errf(err, errlen, "wqe is set but its match bit "
			     "MLX5EMU_FAULT_MATCH_WQE is not");
	if (!(r->match & MLX5EMU_FAULT_MATCH_QUEUE) && r->queue)
		return emu_fault_errf(err, errlen, "queue is set but its match bit "
			     "MLX5EMU_FAULT_MATCH_QUEUE is not");
	if (r->queue > MLX5EMU_FAULT_QUEUE_CQ_ARM)
		return emu_fault_errf(err, errlen, "queue %u is not sq (0), rq (1) "
			     "or cq_arm (2)", r->queue);
	if (r->queue == MLX5EMU_FAULT_QUEUE_CQ_ARM &&
	    r->action != MLX5EMU_FAULT_DOORBELL_DROP)
		return emu_fault_errf(err, errlen, "queue=cq_arm applies only to "
			     "doorbell_drop rules");
	if (((r->flags & MLX5EMU_FAULT_F_TARGET) || r->target) &&
	    r->queue != MLX5EMU_FAULT_QUEUE_CQ_ARM)
		return emu_fault_errf(err, errlen, "cqn applies to a data-path rule "
			     "only as doorbell_drop queue=cq_arm cqn=N");
	/* (its flag and range: emu_fault_rule_check, as for events) */
	if (!(r->flags & MLX5EMU_FAULT_F_VENDOR) && rule_vendor(r))
		return emu_fault_errf(err, errlen, "vendor_syndrome is set but its "
			     "flag MLX5EMU_FAULT_F_VENDOR is not");
	if (emu_fault_rule_is_mana(r))
		return mana_check(r, err, errlen);

	switch (r->action) {
	case MLX5EMU_FAULT_CQE_ERROR:
		if (r->delay_us)
			return emu_fault_errf(err, errlen,
				     "us applies only to cqe_delay and wire rules");
		if (!r->syndrome)
			return emu_fault_errf(err, errlen, "cqe_error needs "
				     "syndrome=NAME (a CQE syndrome such as "
				     "LOCAL_PROT)");
		if (r->syndrome > 0xff)
			return emu_fault_errf(err, errlen, "syndrome 0x%" PRIx32 " is "
				     "not a CQE syndrome (1 to 0xff)", r->syndrome);
		if (cqe_synd_index((uint8_t)r->syndrome) < 0 &&
		    !(r->flags & MLX5EMU_FAULT_F_VENDOR))
			return emu_fault_errf(err, errlen, "syndrome 0x%" PRIx32 " is "
				     "not in the CQE syndrome table; give its "
				     "vendor_syndrome too", r->syndrome);
		break;
	case MLX5EMU_FAULT_CQE_DELAY:
		if (r->syndrome || (r->flags & MLX5EMU_FAULT_F_VENDOR))
			return emu_fault_errf(err, errlen, "syndrome and "
				     "vendor_syndrome apply only to fail and "
				     "cqe_error rules");
		if (!r->delay_us || r->delay_us > EMU_FAULT_MAX_DELAY_US)
			return emu_fault_errf(err, errlen, "a cqe_delay rule needs us=N "
				     "(1 to %d)", EMU_FAULT_MAX_DELAY_US);
		break;
	default:	/* DOORBELL_DROP */
		if (r->syndrome || (r->flags & MLX5EMU_FAULT_F_VENDOR))
			return emu_fault_errf(err, errlen, "syndrome and "
				     "vendor_syndrome apply only to fail and "
				     "cqe_error rules");
		if (r->delay_us)
			return emu_fault_errf(err, errlen,
				     "us applies only to cqe_delay and wire rules");
		if (r->match & MLX5EMU_FAULT_MATCH_WQE)
			return emu_fault_errf(err, errlen, "a doorbell names no WQE: "
				     "wqe does not apply to doorbell_drop");
		if (r->queue == MLX5EMU_FAULT_QUEUE_RQ)
			return emu_fault_errf(err, errlen, "a receive queue has no "
				     "doorbell: doorbell_drop takes queue=sq "
				     "or queue=cq_arm");
		if (r->queue == MLX5EMU_FAULT_QUEUE_CQ_ARM &&
		    (r->match & MLX5EMU_FAULT_MATCH_QPN))
			return emu_fault_errf(err, errlen, "an arm names a CQ: qp "
				     "does not apply to queue=cq_arm (cqn=N "
				     "does)");
		break;
	}
	return 0;
}

void emu_fault_dp_result(const struct mlx5emu_fault_rule *r,
			 uint8_t *syndrome, uint32_t *vendor)
{
	int i = cqe_synd_index((uint8_t)r->syndrome);

	if (emu_fault_rule_is_mana(r)) {
		/* no type given: the device's own for a WQE it could not
		 * carry out; a receive has only the one */
		*syndrome = r->syndrome ? (uint8_t)r->syndrome :
			    r->queue == MLX5EMU_FAULT_QUEUE_RQ ?
			    MANA_TYPE_RX_TRUNCATED : MANA_TYPE_TX_INVALID_OOB;
		*vendor = rule_vendor(r);
		return;
	}
	*syndrome = (uint8_t)r->syndrome;
	if (r->flags & MLX5EMU_FAULT_F_VENDOR)
		*vendor = r->vendor_syndrome;
	else
		*vendor = i >= 0 ? cqe_synds[i].vendor : 0;
}

void emu_fault_dp_format(const struct mlx5emu_fault_rule *r, char *out,
			 size_t len, size_t *n)
{
	const char *name;

#define PUT(...) \
	(*n += (size_t)snprintf(out + *n, *n < len ? len - *n : 0, __VA_ARGS__))
	if (r->match & MLX5EMU_FAULT_MATCH_QUEUE)
		PUT(" queue=%s", r->queue == MLX5EMU_FAULT_QUEUE_RQ ? "rq" :
		    r->queue == MLX5EMU_FAULT_QUEUE_CQ_ARM ? "cq_arm" : "sq");
	if (r->match & MLX5EMU_FAULT_MATCH_WQE) {
		name = emu_fault_wqe_opcode_name(r->wqe_opcode);
		if (name)
			PUT(" wqe=%s", name);
		else
			PUT(" wqe=0x%x", r->wqe_opcode);
	}
	if (r->action == MLX5EMU_FAULT_CQE_ERROR && emu_fault_rule_is_mana(r)) {
		name = emu_fault_mana_cqe_name((uint8_t)r->syndrome);
		if (r->syndrome && name)
			PUT(" syndrome=CQE_%s", name);
		else if (r->syndrome)
			PUT(" syndrome=%" PRIu32, r->syndrome);
	} else if (r->action == MLX5EMU_FAULT_CQE_ERROR) {
		name = emu_fault_cqe_syndrome_name((uint8_t)r->syndrome);
		if (name)
			PUT(" syndrome=%s", name);
		else
			PUT(" syndrome=0x%" PRIx32, r->syndrome);
	}
	if (r->flags & MLX5EMU_FAULT_F_VENDOR)
		PUT(" vendor_syndrome=0x%" PRIx32, rule_vendor(r));
#undef PUT
}
