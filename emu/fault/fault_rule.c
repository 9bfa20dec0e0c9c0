/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_rule.c -- the rule syntax: text to struct
 * mlx5emu_fault_rule and back, the names it uses, and the checks every rule
 * passes (docs/fault-injection.md, "Grammar", lists each message).
 *
 *     rule  = action *( WS key "=" value )
 *     action = "fail" / "delay" / event
 *     event = "port_down" / "port_up" / "device_fatal" / "cq_overrun" /
 *             "qp_fatal" / "srq_limit"
 *
 * Keywords and names are ASCII case-insensitive (never the locale's);
 * numbers are decimal or 0x hex, without sign.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/base/base.h"
#include "emu/fault/fault_rule.h"
#include "emu/firmware/fw_syndrome.h"
#include "prm/prm_cmd.h"

/* 10^0 .. 10^22: every one exact as a double. */
static double pow10_exact(int e)
{
	double v = 1.0;

	while (e-- > 0)
		v *= 10.0;
	return v;
}

int emu_fault_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* ---- ASCII helpers (no locale) ---- */

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool eq_nocase_n(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (lower(a[i]) != lower(b[i]))
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/*
 * A probability: digits with an optional fraction ("0.25", ".5", "1"),
 * optionally a percentage ("25%", "12.5%").  Computed as one division of
 * exact integers, so the value is the correctly rounded double.
 */
static int parse_prob(const char *s, double *out)
{
	uint64_t mant = 0;
	int frac = -1, digits = 0;

	for (; *s && *s != '%'; s++) {
		if (*s == '.') {
			if (frac >= 0)
				return -EINVAL;
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (mant > UINT64_C(999999999999999))	/* 15 digits */
			return -EINVAL;
		mant = mant * 10 + (uint64_t)(*s - '0');
		digits++;
		if (frac >= 0)
			frac++;
	}
	if (!digits)
		return -EINVAL;
	if (frac < 0)
		frac = 0;
	if (*s == '%') {
		if (s[1])
			return -EINVAL;
		frac += 2;
	}
	*out = (double)mant / pow10_exact(frac);
	return 0;
}

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- names ---- */

static const struct {
	const char *name;
	uint16_t value;
} opcodes[] = {
#define PRM_OPCODE(n, v) { #n, (v) },
#include "prm/opcodes.def"
#undef PRM_OPCODE
};

const char *emu_fault_opcode_name(uint16_t opcode)
{
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].value == opcode)
			return opcodes[i].name;
	return NULL;
}

static int opcode_by_name(const char *s, uint16_t *out)
{
	if (eq_nocase_n(s, "MLX5_CMD_OP_", 12))
		s += 12;
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (emu_text_eq_nocase(s, opcodes[i].name)) {
			*out = opcodes[i].value;
			return 0;
		}
	return -ENOENT;
}

/* "MLX5_CMD_STAT_BAD_PARAM_ERR" -> "BAD_PARAM", built once. */
static char status_short[256][40];
static pthread_once_t status_once = PTHREAD_ONCE_INIT;

static void status_names_init(void)
{
	for (unsigned int s = 0; s < 256; s++) {
		const char *full = prm_status_name((uint8_t)s);
		size_t n;

		if (!full)
			continue;
		if (!strncmp(full, "MLX5_CMD_STAT_", 14))
			full += 14;
		n = strlen(full);
		if (n > 4 && !strcmp(full + n - 4, "_ERR"))
			n -= 4;
		if (n >= sizeof(status_short[s]))
			n = sizeof(status_short[s]) - 1;
		memcpy(status_short[s], full, n);
		status_short[s][n] = '\0';
	}
}

const char *emu_fault_status_name(uint8_t status)
{
	pthread_once(&status_once, status_names_init);
	return status_short[status][0] ? status_short[status] : NULL;
}

static int status_by_name(const char *s, uint8_t *out)
{
	char buf[64];
	size_t n;

	if (eq_nocase_n(s, "MLX5_CMD_STAT_", 14))
		s += 14;
	n = strlen(s);
	if (n >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, s, n + 1);
	if (n > 4 && emu_text_eq_nocase(buf + n - 4, "_ERR"))
		buf[n - 4] = '\0';
	for (unsigned int st = 0; st < 256; st++) {
		const char *name = emu_fault_status_name((uint8_t)st);

		if (name && emu_text_eq_nocase(buf, name)) {
			*out = (uint8_t)st;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct fw_syndrome *syndrome_by_name(const char *s)
{
	for (int i = 1; i < FW_SYND_COUNT; i++) {
		const struct fw_syndrome *sy = fw_syndrome_get((enum fw_synd)i);

		if (sy && emu_text_eq_nocase(s, sy->name))
			return sy;
	}
	return NULL;
}

/* General object types (general_obj_in_cmd_hdr.obj_type), prm/prm_cmd.h. */
#define OT(n) { #n, MLX5_OBJ_TYPE_##n }
#define GOT(n) { #n, MLX5_GENERAL_OBJECT_TYPES_##n }
static const struct emu_fault_name obj_types[] = {
	OT(SW_ICM), OT(GENEVE_TLV_OPT), OT(VIRTIO_NET_Q), OT(MATCH_DEFINER),
	OT(VIRTIO_Q_COUNTERS), OT(HEADER_MODIFY_ARGUMENT), OT(STC), OT(RTC),
	OT(STE), OT(MODIFY_HDR_PATTERN), OT(PAGE_TRACK),
	GOT(ENCRYPTION_KEY), GOT(IPSEC), GOT(SAMPLER), GOT(FLOW_METER_ASO),
	GOT(MACSEC), GOT(INT_KEK), GOT(RDMA_CTRL), GOT(FLOW_TABLE_ALIAS),
};
#undef OT
#undef GOT

int emu_fault_name_or_num(const struct emu_fault_name *tab, size_t n,
			  const char *v, uint64_t max, uint64_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (emu_text_eq_nocase(v, tab[i].name)) {
			*out = tab[i].value;
			return 0;
		}
	return emu_text_parse_u64(v, max, out) ? -EINVAL : 0;
}

const char *emu_fault_obj_type_name(uint16_t obj_type)
{
	for (size_t i = 0; i < sizeof(obj_types) / sizeof(obj_types[0]); i++)
		if (obj_types[i].value == obj_type)
			return obj_types[i].name;
	return NULL;
}

static const char *const class_names[] = {
	[MLX5EMU_FAULT_CLASS_GENERAL] = "general",
	[MLX5EMU_FAULT_CLASS_CREATE] = "create",
	[MLX5EMU_FAULT_CLASS_MODIFY] = "modify",
	[MLX5EMU_FAULT_CLASS_QUERY] = "query",
	[MLX5EMU_FAULT_CLASS_DESTROY] = "destroy",
};
#define NCLASSES (sizeof(class_names) / sizeof(class_names[0]))

const char *emu_fault_class_name(uint32_t cls)
{
	return cls < NCLASSES ? class_names[cls] : NULL;
}

/* ---- keys ---- */

enum fault_key {
	K_OPCODE, K_OP_MOD, K_OBJ_TYPE, K_CLASS, K_UID, K_DEV,
	K_STATUS, K_SYNDROME, K_MS,
	K_NTH, K_EVERY, K_PROB, K_SEED, K_LIMIT,
	K_PORT, K_QP, K_BTH, K_PSN, K_DIR, K_US,	/* frames (port: events too) */
	K_WQE, K_QUEUE, K_VENDOR,		/* work requests (qp, us too) */
	K_QPN, K_CQN, K_SRQN,			/* an event's object */
	K_COUNT
};

static const char *const key_names[K_COUNT] = {
	"opcode", "op_mod", "obj_type", "class", "uid", "dev",
	"status", "syndrome", "ms",
	"nth", "every", "prob", "seed", "limit",
	"port", "qp", "bth", "psn", "dir", "us",
	"wqe", "queue", "vendor_syndrome", "qpn", "cqn", "srqn",
};

#define KEY_LIST "opcode, op_mod, obj_type, class, uid, dev, status, " \
	"syndrome, ms, nth, every, prob, seed, limit, port, qp, bth, psn, " \
	"dir, us, wqe, queue, vendor_syndrome, qpn, cqn or srqn"

/* The actions; an event's target key (K_COUNT: none). */
static const struct {
	const char *name;
	enum fault_key target;
} actions[] = {
	[MLX5EMU_FAULT_FAIL] = { "fail", K_COUNT },
	[MLX5EMU_FAULT_DELAY] = { "delay", K_COUNT },
	[MLX5EMU_FAULT_DROP] = { "drop", K_COUNT },
	[MLX5EMU_FAULT_DUPLICATE] = { "duplicate", K_COUNT },
	[MLX5EMU_FAULT_REORDER] = { "reorder", K_COUNT },
	[MLX5EMU_FAULT_CORRUPT] = { "corrupt", K_COUNT },
	[MLX5EMU_FAULT_PORT_DOWN] = { "port_down", K_PORT },
	[MLX5EMU_FAULT_PORT_UP] = { "port_up", K_PORT },
	[MLX5EMU_FAULT_DEVICE_FATAL] = { "device_fatal", K_COUNT },
	[MLX5EMU_FAULT_CQ_OVERRUN] = { "cq_overrun", K_CQN },
	[MLX5EMU_FAULT_QP_FATAL] = { "qp_fatal", K_QPN },
	[MLX5EMU_FAULT_SRQ_LIMIT] = { "srq_limit", K_SRQN },
	[MLX5EMU_FAULT_CQE_ERROR] = { "cqe_error", K_COUNT },
	[MLX5EMU_FAULT_CQE_DELAY] = { "cqe_delay", K_COUNT },
	[MLX5EMU_FAULT_DOORBELL_DROP] = { "doorbell_drop", K_COUNT },
};
#define NACTIONS (sizeof(actions) / sizeof(actions[0]))

bool emu_fault_is_event(uint32_t action)
{
	return action >= MLX5EMU_FAULT_PORT_DOWN &&
	       action <= MLX5EMU_FAULT_SRQ_LIMIT;
}

bool emu_fault_is_immediate(const struct mlx5emu_fault_rule *r)
{
	return emu_fault_is_event(r->action) &&
	       !(r->match & (MLX5EMU_FAULT_MATCH_OPCODE |
			     MLX5EMU_FAULT_MATCH_OP_MOD |
			     MLX5EMU_FAULT_MATCH_OBJ_TYPE |
			     MLX5EMU_FAULT_MATCH_CLASS |
			     MLX5EMU_FAULT_MATCH_UID | MLX5EMU_FAULT_MATCH_USER));
}

const char *emu_fault_action_name(uint32_t action)
{
	return action >= 1 && action < NACTIONS ? actions[action].name : NULL;
}

static int parse_value(struct mlx5emu_fault_rule *r, enum fault_key k,
		       const char *v, char *err, size_t errlen)
{
	const struct fw_syndrome *sy;
	uint64_t n;
	uint16_t u16;
	uint8_t st;

	switch (k) {
	case K_OPCODE:
		if (!opcode_by_name(v, &u16)) {
			r->opcode = u16;
		} else if (!emu_text_parse_u64(v, 0xffff, &n)) {
			r->opcode = (uint16_t)n;
		} else {
			return emu_fault_errf(err, errlen, "bad opcode \"%s\": expected a "
				    "command name such as CREATE_CQ, or a number "
				    "from 0 to 0xffff", v);
		}
		r->match |= MLX5EMU_FAULT_MATCH_OPCODE;
		return 0;
	case K_OP_MOD:
		if (emu_text_parse_u64(v, 0xffff, &n))
			return emu_fault_errf(err, errlen, "bad op_mod \"%s\": expected a "
				    "number from 0 to 0xffff", v);
		r->op_mod = (uint16_t)n;
		r->match |= MLX5EMU_FAULT_MATCH_OP_MOD;
		return 0;
	case K_OBJ_TYPE:
		if (emu_fault_name_or_num(obj_types, NELEMS(obj_types), v, 0xffff, &n))
			return emu_fault_errf(err, errlen, "bad obj_type \"%s\": expected a "
				    "general object type such as FLOW_METER_ASO, "
				    "or a number from 0 to 0xffff", v);
		r->obj_type = (uint16_t)n;
		r->match |= MLX5EMU_FAULT_MATCH_OBJ_TYPE;
		return 0;
	case K_CLASS:
		for (uint32_t c = 1; c < NCLASSES; c++)
			if (emu_text_eq_nocase(v, class_names[c])) {
				r->cmd_class = c;
				r->match |= MLX5EMU_FAULT_MATCH_CLASS;
				return 0;
			}
		return emu_fault_errf(err, errlen, "bad class \"%s\": expected general, "
			    "create, modify, query or destroy", v);
	case K_UID:
		if (emu_text_eq_nocase(v, "kernel")) {
			r->uid = 0;
			r->match |= MLX5EMU_FAULT_MATCH_UID;
		} else if (emu_text_eq_nocase(v, "user")) {
			r->match |= MLX5EMU_FAULT_MATCH_USER;
		} else if (!emu_text_parse_u64(v, 0xffff, &n)) {
			r->uid = (uint16_t)n;
			r->match |= MLX5EMU_FAULT_MATCH_UID;
		} else {
			return emu_fault_errf(err, errlen, "bad uid \"%s\": expected kernel, "
				    "user, or a number from 0 to 0xffff", v);
		}
		return 0;
	case K_DEV: {
		/* mana_N names a MANA device: EMU_MAX_DEVICES + N */
		bool mana = eq_nocase_n(v, "mana_", 5);
		const char *num = mana || eq_nocase_n(v, "mlx5_", 5) ? v + 5 : v;
		bool dec = *num && !(num[0] == '0' && num[1]);

		for (const char *c = num; *c; c++)
			dec &= *c >= '0' && *c <= '9';
		if (!dec || emu_text_parse_u64(num, mana ? EMU_MAX_MANA_DEVICES - 1 :
					       EMU_MAX_DEVICES - 1, &n))
			return emu_fault_errf(err, errlen, "bad dev \"%s\": expected a "
				    "device index from 0 to %d, its name "
				    "mlx5_0 to mlx5_%d, or a MANA device mana_0 "
				    "to mana_%d", v, EMU_MAX_DEVICES - 1,
				    EMU_MAX_DEVICES - 1, EMU_MAX_MANA_DEVICES - 1);
		r->dev = (uint32_t)n + (mana ? EMU_MAX_DEVICES : 0);
		r->match |= MLX5EMU_FAULT_MATCH_DEV;
		return 0;
	}
	case K_STATUS:
		if (status_by_name(v, &st)) {
			if (emu_text_parse_u64(v, 0xff, &n))
				return emu_fault_errf(err, errlen, "bad status \"%s\": "
					    "expected a status name such as "
					    "BAD_PARAM, or a number from 1 to 255",
					    v);
			st = (uint8_t)n;
		}
		if (st == MLX5_CMD_STAT_OK)
			return emu_fault_errf(err, errlen, "bad status \"%s\": status 0 "
				    "(OK) is not a failure", v);
		r->status = st;
		return 0;
	case K_SYNDROME:
		if (emu_fault_is_dp(r->action))	/* a CQE syndrome */
			return emu_fault_dp_key(r, key_names[k], v, err, errlen);
		sy = syndrome_by_name(v);
		if (sy) {
			r->syndrome = sy->value;
			return 0;
		}
		if (!emu_text_parse_u64(v, UINT32_MAX, &n) && n) {
			r->syndrome = (uint32_t)n;
			return 0;
		}
		return emu_fault_errf(err, errlen, "bad syndrome \"%s\": expected a name "
			    "from the syndrome table such as CQ_IN_USE, or a "
			    "number from 1 to 0xffffffff", v);
	case K_MS:
		if (emu_text_parse_u64(v, EMU_FAULT_MAX_DELAY_MS, &n) || !n)
			return emu_fault_errf(err, errlen, "bad ms \"%s\": expected "
				    "milliseconds from 1 to %d", v,
				    EMU_FAULT_MAX_DELAY_MS);
		r->delay_ms = (uint32_t)n;
		return 0;
	case K_NTH:
	case K_EVERY:
	case K_LIMIT:
		if (emu_text_parse_u64(v, UINT64_MAX, &n) || !n)
			return emu_fault_errf(err, errlen, "bad %s \"%s\": expected a "
				    "positive integer", key_names[k], v);
		if (k == K_LIMIT) {
			r->limit = n;
		} else {
			r->n = n;
			r->trigger = k == K_NTH ? MLX5EMU_FAULT_NTH :
						  MLX5EMU_FAULT_EVERY;
		}
		return 0;
	case K_PROB: {
		double p;

		if (parse_prob(v, &p) || !(p > 0.0) || p > 1.0)
			return emu_fault_errf(err, errlen, "bad prob \"%s\": expected a "
				    "probability above 0 and at most 1, such as "
				    "0.25 or 25%%", v);
		r->probability = p;
		r->trigger = MLX5EMU_FAULT_PROB;
		return 0;
	}
	case K_SEED:
		if (emu_text_parse_u64(v, UINT64_MAX, &n))
			return emu_fault_errf(err, errlen, "bad seed \"%s\": expected a "
				    "number from 0 to 18446744073709551615", v);
		r->seed = n;
		r->flags |= MLX5EMU_FAULT_F_SEED;
		return 0;
	case K_PORT:
		if (!emu_fault_is_event(r->action))	/* a frame's port */
			return emu_fault_wire_key(r, key_names[k], v, err,
						  errlen);
		if (emu_text_parse_u64(v, EMU_MAX_PORTS, &n) || !n)
			return emu_fault_errf(err, errlen, "bad port \"%s\": expected a "
				    "port number from 1 to %d", v, EMU_MAX_PORTS);
		r->port = (uint32_t)n;
		return 0;
	case K_QPN:
	case K_CQN:
	case K_SRQN:
		if (emu_text_parse_u64(v, 0xffffff, &n))
			return emu_fault_errf(err, errlen, "bad %s \"%s\": expected a "
				    "number from 0 to 0xffffff", key_names[k], v);
		r->target = (uint32_t)n;
		r->flags |= MLX5EMU_FAULT_F_TARGET;
		return 0;
	case K_WQE:
	case K_QUEUE:
	case K_VENDOR:
		return emu_fault_dp_key(r, key_names[k], v, err, errlen);
	default:
		return emu_fault_wire_key(r, key_names[k], v, err, errlen);
	}
}

#define ACTION_LIST "fail, delay, drop, duplicate, reorder, corrupt, " \
	"port_down, port_up, device_fatal, cq_overrun, qp_fatal, srq_limit, " \
	"cqe_error, cqe_delay or doorbell_drop"

/* The key that names an action's object: an event's, or the CQ of a
 * doorbell_drop queue=cq_arm (K_COUNT: none). */
static enum fault_key target_key(uint32_t action)
{
	return action == MLX5EMU_FAULT_DOORBELL_DROP ? K_CQN :
	       actions[action].target;
}

/* The rules a target key belongs to, for messages. */
static const char *fault_key_action(int k)
{
	switch (k) {
	case K_PORT:
		return "port_down and port_up";
	case K_QPN:
		return "qp_fatal";
	case K_CQN:
		return "cq_overrun and doorbell_drop";
	default:
		return "srq_limit";
	}
}

int emu_fault_parse(const char *text, struct mlx5emu_fault_rule *rule,
		    char *err, size_t errlen)
{
	struct mlx5emu_fault_rule r;
	unsigned int seen = 0;
	const char *p = text ? text : "";
	char tok[256], synd[256] = "", vendor[256] = "";
	bool first = true;
	int ret;

	memset(&r, 0, sizeof(r));
	for (;;) {
		const char *start, *eq;
		size_t len;
		int k;

		while (is_ws(*p))
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && !is_ws(*p))
			p++;
		len = (size_t)(p - start);
		if (len >= sizeof(tok))
			return emu_fault_errf(err, errlen, "term \"%.40s...\" is too long",
				    start);
		memcpy(tok, start, len);
		tok[len] = '\0';

		if (first) {
			first = false;
			for (uint32_t a = 1; a < NACTIONS; a++)
				if (emu_text_eq_nocase(tok, actions[a].name))
					r.action = a;
			if (!r.action)
				return emu_fault_errf(err, errlen, "unknown action \"%s\"; "
					    "a rule starts with " ACTION_LIST, tok);
			continue;
		}
		eq = strchr(tok, '=');
		if (!eq)
			return emu_fault_errf(err, errlen, "\"%s\" is not a key=value term",
				    tok);
		tok[eq - tok] = '\0';
		for (k = 0; k < K_COUNT; k++)
			if (emu_text_eq_nocase(tok, key_names[k]))
				break;
		if (k == K_COUNT)
			return emu_fault_errf(err, errlen, "unknown key \"%s\"; expected "
				    KEY_LIST, tok);
		if (seen & (1u << k))
			return emu_fault_errf(err, errlen, "key %s given twice",
				    key_names[k]);
		if (k >= K_QPN && k != (int)target_key(r.action))
			return emu_fault_errf(err, errlen, "%s applies only to %s rules",
				    key_names[k], fault_key_action(k));
		seen |= 1u << k;
		if (!eq[1])
			return emu_fault_errf(err, errlen, "key %s has no value",
				    key_names[k]);
		/* A CQE's syndrome names and ranges are the device's: they
		 * are read once dev is known, wherever it stands. */
		if (k == K_VENDOR ||
		    (k == K_SYNDROME && emu_fault_is_dp(r.action))) {
			strcpy(k == K_VENDOR ? vendor : synd, eq + 1);
			continue;
		}
		ret = parse_value(&r, (enum fault_key)k, eq + 1, err, errlen);
		if (ret)
			return ret;
	}
	if (first)
		return emu_fault_errf(err, errlen, "empty rule; expected " ACTION_LIST
			    " followed by key=value terms");
	if (vendor[0]) {
		ret = parse_value(&r, K_VENDOR, vendor, err, errlen);
		if (ret)
			return ret;
	}
	if (synd[0]) {
		ret = parse_value(&r, K_SYNDROME, synd, err, errlen);
		if (ret)
			return ret;
	}
	if (__builtin_popcount(seen & ((1u << K_NTH) | (1u << K_EVERY) |
				       (1u << K_PROB))) > 1)
		return emu_fault_errf(err, errlen, "nth, every and prob exclude each other");
	ret = emu_fault_rule_check(&r, err, errlen);
	if (ret)
		return ret;
	if (rule)
		*rule = r;
	return 0;
}

int emu_fault_rule_check(const struct mlx5emu_fault_rule *r, char *err,
			 size_t errlen)
{
	const uint32_t known = MLX5EMU_FAULT_MATCH_OPCODE |
		MLX5EMU_FAULT_MATCH_OP_MOD | MLX5EMU_FAULT_MATCH_OBJ_TYPE |
		MLX5EMU_FAULT_MATCH_CLASS | MLX5EMU_FAULT_MATCH_UID |
		MLX5EMU_FAULT_MATCH_USER | MLX5EMU_FAULT_MATCH_DEV |
		MLX5EMU_FAULT_MATCH_PORT | MLX5EMU_FAULT_MATCH_QPN |
		MLX5EMU_FAULT_MATCH_PSN | MLX5EMU_FAULT_MATCH_BTH |
		MLX5EMU_FAULT_MATCH_DIR | MLX5EMU_FAULT_MATCH_WQE |
		MLX5EMU_FAULT_MATCH_QUEUE;
	int ret;

	if (!r)
		return emu_fault_errf(err, errlen, "no rule");
	for (size_t i = 0; i < sizeof(r->reserved) / sizeof(r->reserved[0]); i++)
		if (r->reserved[i])
			return emu_fault_errf(err, errlen, "reserved fields must be 0");
	if (r->action < 1 || r->action >= NACTIONS)
		return emu_fault_errf(err, errlen, "action %" PRIu32 " is not an action "
			    "(1 to %zu)", r->action, NACTIONS - 1);
	if (r->match & ~known)
		return emu_fault_errf(err, errlen, "unknown match bits 0x%" PRIx32,
			    r->match & ~known);
	if (r->flags & ~(uint32_t)(MLX5EMU_FAULT_F_SEED | MLX5EMU_FAULT_F_TARGET |
				   MLX5EMU_FAULT_F_VENDOR))
		return emu_fault_errf(err, errlen, "unknown flags 0x%" PRIx32,
			    r->flags & ~(uint32_t)(MLX5EMU_FAULT_F_SEED |
						   MLX5EMU_FAULT_F_TARGET |
						   MLX5EMU_FAULT_F_VENDOR));
#define UNUSED_ZERO(bit, fld, name)					\
	if (!(r->match & (bit)) && r->fld)				\
		return emu_fault_errf(err, errlen, name " is set but its match bit " \
			    #bit " is not")
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_OPCODE, opcode, "opcode");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_OP_MOD, op_mod, "op_mod");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_OBJ_TYPE, obj_type, "obj_type");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_CLASS, cmd_class, "class");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_UID, uid, "uid");
	UNUSED_ZERO(MLX5EMU_FAULT_MATCH_DEV, dev, "dev");
#undef UNUSED_ZERO
	if ((r->match & MLX5EMU_FAULT_MATCH_UID) &&
	    (r->match & MLX5EMU_FAULT_MATCH_USER))
		return emu_fault_errf(err, errlen, "uid=N and uid=user exclude each other");
	if ((r->match & MLX5EMU_FAULT_MATCH_CLASS) &&
	    (r->cmd_class < 1 || r->cmd_class >= NCLASSES))
		return emu_fault_errf(err, errlen, "class %" PRIu32 " is not a command "
			    "class (1 to %zu)", r->cmd_class, NCLASSES - 1);
	if ((r->match & MLX5EMU_FAULT_MATCH_DEV) &&
	    r->dev >= EMU_MAX_DEVICES + EMU_MAX_MANA_DEVICES)
		return emu_fault_errf(err, errlen, "dev %" PRIu32 " is out of range; "
			    "devices are 0 to %d, MANA devices %d to %d", r->dev,
			    EMU_MAX_DEVICES - 1, EMU_MAX_DEVICES,
			    EMU_MAX_DEVICES + EMU_MAX_MANA_DEVICES - 1);
	/* A MANA device has no PRM commands: its rules act on its work
	 * requests, its frames, its ports' carrier or the device itself. */
	if (emu_fault_rule_is_mana(r) && !emu_fault_is_dp(r->action) &&
	    !emu_fault_rule_is_wire(r) &&
	    !((r->action == MLX5EMU_FAULT_PORT_DOWN ||
	       r->action == MLX5EMU_FAULT_PORT_UP ||
	       r->action == MLX5EMU_FAULT_DEVICE_FATAL) &&
	      emu_fault_is_immediate(r)))
		return emu_fault_errf(err, errlen, "a MANA device takes data-path "
			    "rules (cqe_error, doorbell_drop), wire rules, and "
			    "port_down, port_up and device_fatal without a "
			    "command to match");
	/* A data-path rule's qp and us are its own; frames have the rest. */
	ret = emu_fault_dp_check(r, err, errlen);
	if (!ret && !emu_fault_is_dp(r->action))
		ret = emu_fault_wire_check(r, err, errlen);
	if (ret)
		return ret;

	/* Wire rules (checked above) match a frame's port; port events
	 * name the port they change. */
	if (emu_fault_is_event(r->action) && 
	    (r->match & (MLX5EMU_FAULT_MATCH_PORT | MLX5EMU_FAULT_MATCH_QPN |
			 MLX5EMU_FAULT_MATCH_PSN | MLX5EMU_FAULT_MATCH_BTH |
			 MLX5EMU_FAULT_MATCH_DIR)))
		return emu_fault_errf(err, errlen, "an event rule matches commands: port, "
			    "qp, bth, psn and dir are frame keys");
	if (r->port && emu_fault_is_event(r->action) &&
	    actions[r->action].target != K_PORT)
		return emu_fault_errf(err, errlen,
			    "port applies only to port_down and port_up rules");
	if (emu_fault_is_event(r->action) && r->port > EMU_MAX_PORTS)
		return emu_fault_errf(err, errlen, "port %" PRIu32 " is out of range; "
			    "ports are 1 to %d", r->port, EMU_MAX_PORTS);
	/* (a data-path rule's cqn was checked with its fields) */
	if (((r->flags & MLX5EMU_FAULT_F_TARGET) || r->target) &&
	    !emu_fault_is_dp(r->action) && (!emu_fault_is_event(r->action) ||
	     actions[r->action].target == K_COUNT ||
	     actions[r->action].target == K_PORT))
		return emu_fault_errf(err, errlen, "an object number (qpn, cqn, srqn) "
			    "applies only to cq_overrun, qp_fatal and srq_limit "
			    "rules");
	if (!(r->flags & MLX5EMU_FAULT_F_TARGET) && r->target)
		return emu_fault_errf(err, errlen, "target is set but its flag "
			    "MLX5EMU_FAULT_F_TARGET is not");
	if (r->target > 0xffffff)
		return emu_fault_errf(err, errlen, "%s 0x%" PRIx32 " is out of range "
			    "(0 to 0xffffff)", key_names[target_key(r->action)],
			    r->target);

	/* Wire and data-path rules' actions were checked with their
	 * fields above. */
	switch (emu_fault_rule_is_wire(r) || emu_fault_is_dp(r->action) ?
		MLX5EMU_FAULT_DROP : r->action) {
	case MLX5EMU_FAULT_DROP:
		break;
	case MLX5EMU_FAULT_FAIL:
		if (r->delay_ms)
			return emu_fault_errf(err, errlen, "ms applies only to delay rules");
		if (r->status > 0xff)
			return emu_fault_errf(err, errlen, "status %" PRIu32 " is not a "
				    "status (1 to 255)", r->status);
		if (r->syndrome && !r->status && !fw_syndrome_find(r->syndrome))
			return emu_fault_errf(err, errlen, "syndrome 0x%" PRIx32 " is not "
				    "in the syndrome table; give its status too "
				    "(status=NAME)", r->syndrome);
		break;
	case MLX5EMU_FAULT_DELAY:
		if (r->status)
			return emu_fault_errf(err, errlen, "status applies only to fail rules");
		if (r->syndrome)
			return emu_fault_errf(err, errlen,
				    "syndrome applies only to fail rules");
		if (!r->delay_ms || r->delay_ms > EMU_FAULT_MAX_DELAY_MS)
			return emu_fault_errf(err, errlen, "a delay rule needs ms=N "
				    "(1 to %d)", EMU_FAULT_MAX_DELAY_MS);
		break;
	default:
		if (r->status)
			return emu_fault_errf(err, errlen, "status applies only to fail rules");
		if (r->syndrome)
			return emu_fault_errf(err, errlen,
				    "syndrome applies only to fail rules");
		if (r->delay_ms)
			return emu_fault_errf(err, errlen, "ms applies only to delay rules");
		if (emu_fault_is_immediate(r) &&
		    (r->trigger != MLX5EMU_FAULT_ALWAYS || r->limit))
			return emu_fault_errf(err, errlen, "nth, every, prob and limit need "
				    "a command to match (opcode, op_mod, obj_type, "
				    "class or uid)");
		if (emu_fault_is_immediate(r) &&
		    actions[r->action].target != K_COUNT &&
		    actions[r->action].target != K_PORT &&
		    !(r->flags & MLX5EMU_FAULT_F_TARGET))
			return emu_fault_errf(err, errlen, "%s needs %s=N or a command to "
				    "match", actions[r->action].name,
				    key_names[actions[r->action].target]);
		break;
	}

	switch (r->trigger) {
	case MLX5EMU_FAULT_ALWAYS:
		if (r->n || r->probability != 0.0)
			return emu_fault_errf(err, errlen, "n and probability need a "
				    "trigger (nth, every or prob)");
		break;
	case MLX5EMU_FAULT_NTH:
	case MLX5EMU_FAULT_EVERY:
		if (!r->n)
			return emu_fault_errf(err, errlen, "%s needs a positive n",
				    r->trigger == MLX5EMU_FAULT_NTH ? "nth" : "every");
		if (r->probability != 0.0)
			return emu_fault_errf(err, errlen,
				    "nth, every and prob exclude each other");
		break;
	case MLX5EMU_FAULT_PROB:
		if (!(r->probability > 0.0) || r->probability > 1.0)
			return emu_fault_errf(err, errlen, "prob needs a probability above "
				    "0 and at most 1");
		if (r->n)
			return emu_fault_errf(err, errlen,
				    "nth, every and prob exclude each other");
		break;
	default:
		return emu_fault_errf(err, errlen, "trigger %" PRIu32 " is not a trigger",
			    r->trigger);
	}
	if (r->trigger != MLX5EMU_FAULT_PROB &&
	    ((r->flags & MLX5EMU_FAULT_F_SEED) || r->seed))
		return emu_fault_errf(err, errlen, "seed applies only with prob");
	if (!(r->flags & MLX5EMU_FAULT_F_SEED) && r->seed)
		return emu_fault_errf(err, errlen, "seed is set but its flag "
			    "MLX5EMU_FAULT_F_SEED is not");
	return 0;
}

void emu_fault_rule_result(const struct mlx5emu_fault_rule *r,
			   uint8_t *status, uint32_t *syndrome)
{
	const struct fw_syndrome *inj = fw_syndrome_get(FW_SYND_INJECTED);
	const struct fw_syndrome *sy;

	if (!r->status && !r->syndrome) {
		*status = inj->status;
		*syndrome = inj->value;
	} else if (!r->status) {
		sy = fw_syndrome_find(r->syndrome);
		*status = sy ? sy->status : inj->status;
		*syndrome = r->syndrome;
	} else {
		*status = (uint8_t)r->status;
		*syndrome = r->syndrome ? r->syndrome : inj->value;
	}
}

/* The shortest decimal that parse_prob() reads back as p (no locale). */
static void format_prob(double p, char *buf, size_t len)
{
	for (int d = 1; d <= 17; d++) {
		double scale = pow10_exact(d);
		double m = (double)(uint64_t)(p * scale + 0.5);

		if (m / scale != p)
			continue;
		if (m >= scale) {
			snprintf(buf, len, "1");
		} else {
			char digits[24];
			int n;

			snprintf(digits, sizeof(digits), "%0*" PRIu64, d,
				 (uint64_t)m);
			n = (int)strlen(digits);
			while (n > 1 && digits[n - 1] == '0')
				digits[--n] = '\0';
			snprintf(buf, len, "0.%s", digits);
		}
		return;
	}
	snprintf(buf, len, "%.17g", p);
}

int emu_fault_rule_format(const struct mlx5emu_fault_rule *r, char *buf,
			  size_t len)
{
	char out[EMU_FAULT_TEXT_MAX * 2];
	size_t n = 0;
	const char *name;

#define PUT(...) \
	(n += (size_t)snprintf(out + n, n < sizeof(out) ? sizeof(out) - n : 0, \
			       __VA_ARGS__))
	if (emu_fault_rule_is_wire(r))
		emu_fault_wire_format(r, out, sizeof(out), &n, true);
	else
		PUT("%s", emu_fault_action_name(r->action) ?
		    emu_fault_action_name(r->action) : "fail");
	if (r->match & MLX5EMU_FAULT_MATCH_OPCODE) {
		name = emu_fault_opcode_name(r->opcode);
		if (name)
			PUT(" opcode=%s", name);
		else
			PUT(" opcode=0x%x", r->opcode);
	}
	if (r->match & MLX5EMU_FAULT_MATCH_OP_MOD)
		PUT(" op_mod=%u", r->op_mod);
	if (r->match & MLX5EMU_FAULT_MATCH_OBJ_TYPE) {
		name = emu_fault_obj_type_name(r->obj_type);
		if (name)
			PUT(" obj_type=%s", name);
		else
			PUT(" obj_type=0x%x", r->obj_type);
	}
	if (r->match & MLX5EMU_FAULT_MATCH_CLASS)
		PUT(" class=%s", emu_fault_class_name(r->cmd_class));
	if (r->match & MLX5EMU_FAULT_MATCH_USER)
		PUT(" uid=user");
	else if (r->match & MLX5EMU_FAULT_MATCH_UID) {
		if (r->uid)
			PUT(" uid=%u", r->uid);
		else
			PUT(" uid=kernel");
	}
	if (emu_fault_rule_is_mana(r))
		PUT(" dev=mana_%" PRIu32, r->dev - EMU_MAX_DEVICES);
	else if (r->match & MLX5EMU_FAULT_MATCH_DEV)
		PUT(" dev=%" PRIu32, r->dev);
	emu_fault_wire_format(r, out, sizeof(out), &n, false);
	if (r->port && emu_fault_is_event(r->action))
		PUT(" port=%" PRIu32, r->port);
	if (r->flags & MLX5EMU_FAULT_F_TARGET)
		PUT(" %s=0x%" PRIx32, key_names[target_key(r->action)],
		    r->target);
	if (r->action == MLX5EMU_FAULT_DELAY && r->delay_ms)
		PUT(" ms=%" PRIu32, r->delay_ms);
	if (emu_fault_is_dp(r->action))
		emu_fault_dp_format(r, out, sizeof(out), &n);
	if (r->status) {
		name = emu_fault_status_name((uint8_t)r->status);
		if (name)
			PUT(" status=%s", name);
		else
			PUT(" status=%" PRIu32, r->status);
	}
	if (r->syndrome && !emu_fault_is_dp(r->action)) {
		const struct fw_syndrome *sy = fw_syndrome_find(r->syndrome);

		if (sy)
			PUT(" syndrome=%s", sy->name);
		else
			PUT(" syndrome=0x%" PRIx32, r->syndrome);
	}
	switch (r->trigger) {
	case MLX5EMU_FAULT_NTH:
		PUT(" nth=%" PRIu64, r->n);
		break;
	case MLX5EMU_FAULT_EVERY:
		PUT(" every=%" PRIu64, r->n);
		break;
	case MLX5EMU_FAULT_PROB: {
		char p[32];

		format_prob(r->probability, p, sizeof(p));
		PUT(" prob=%s", p);
		if (r->flags & MLX5EMU_FAULT_F_SEED)
			PUT(" seed=%" PRIu64, r->seed);
		break;
	}
	default:
		break;
	}
	if (r->limit)
		PUT(" limit=%" PRIu64, r->limit);
#undef PUT
	if (len)
		snprintf(buf, len, "%s", out);
	return (int)n;
}

int emu_fault_parse_list(const char *list, emu_fault_list_fn fn, void *arg,
			 int *count, char *err, size_t errlen)
{
	const char *p = list ? list : "";
	int n = 0, ret = 0;

	while (*p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct mlx5emu_fault_rule r;
		char why[EMU_FAULT_ERR_MAX];
		char *text = strndup(p, len);
		char *t;

		if (!text)
			return -ENOMEM;
		/* Trim, for the message and the callback. */
		for (t = text + strlen(text); t > text && is_ws(t[-1]); t--)
			t[-1] = '\0';
		for (t = text; is_ws(*t); t++)
			;
		if (*t) {
			n++;
			ret = emu_fault_parse(t, &r, why, sizeof(why));
			if (ret) {
				emu_fault_errf(err, errlen, "rule %d (\"%s\"): %s", n, t, why);
			} else if (fn) {
				ret = fn(arg, &r, t);
			}
		}
		free(text);
		if (ret)
			return ret;
		p += len;
		if (*p == ';')
			p++;
	}
	if (count)
		*count = n;
	return 0;
}
