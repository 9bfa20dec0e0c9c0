/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_devx_cmd: valid DEVX sessions written in its
 * input language (fuzz_devx.h) into the directory given.
 *
 *     fuzz_devx_seeds DIR
 *
 * The mailboxes are the firmware suites' own good ones (fw_test_util.h,
 * test_fw_qp_util.h: CREATE_CQ, CREATE_QP of every type and every
 * transition), plus the few other objects a session needs, built the same
 * way.  Every field that names an object, umem, UAR or EQ gets a fixup, so
 * the session replays against the fuzzer's own context.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/trace/trace_fmt.h"
#include "prm/prm_fields.h"
#include "test_fw_qp_util.h"

#include "fuzz_devx.h"

struct seed {
	uint8_t buf[1 << 16];
	size_t len;
	int nobjs;	/* objects the session has created so far */
};

static void put(struct seed *s, const void *p, size_t n)
{
	if (s->len + n > sizeof(s->buf)) {
		fprintf(stderr, "fuzz_devx_seeds: seed too long\n");
		exit(1);
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/*
 * One operation on mailbox m; the variadic part is pairs of a field path
 * of the opcode's inbox ("qpc.pd") and a ref (FUZZ_REF_*), ended by NULL.
 * Returns the index a created object gets.
 */
static int op(struct seed *s, enum fuzz_kind kind, int target,
	      const struct fwt_mbox *m, ...)
{
	uint16_t opcode = m ? (uint16_t)PRM_GET(mbox_in, m->in, opcode) : 0;
	const struct prm_struct_desc *sd = emu_trace_in_struct(opcode);
	uint8_t fixes[64][FUZZ_FIX_BYTES];
	uint8_t h[FUZZ_HDR_BYTES] = { 0 };
	size_t inlen = m ? m->inlen : 0, outlen = m ? m->outlen : 0;
	const char *path;
	unsigned int n = 0;
	va_list ap;

	va_start(ap, m);
	while ((path = va_arg(ap, const char *))) {
		int ref = va_arg(ap, int);
		const struct prm_field_desc *fd;
		uint32_t off;

		fd = prm_field_find(sd, path, &off);
		if (!fd || fd->bit_width > 32 || n == 64) {
			fprintf(stderr, "fuzz_devx_seeds: %s: no field %s\n",
				sd ? sd->name : "?", path);
			exit(1);
		}
		fixes[n][0] = (uint8_t)off;
		fixes[n][1] = (uint8_t)(off >> 8);
		fixes[n][2] = (uint8_t)fd->bit_width;
		fixes[n][3] = (uint8_t)ref;
		n++;
	}
	va_end(ap);
	h[0] = (uint8_t)kind;
	h[1] = (uint8_t)target;
	h[2] = (uint8_t)inlen;
	h[3] = (uint8_t)(inlen >> 8);
	h[4] = (uint8_t)outlen;
	h[5] = (uint8_t)(outlen >> 8);
	h[6] = (uint8_t)n;
	put(s, h, sizeof(h));
	put(s, fixes, n * FUZZ_FIX_BYTES);
	if (m && kind != FUZZ_UMEM_REG)
		put(s, m->in, inlen);
	return kind == FUZZ_CREATE ? s->nobjs++ : -1;
}

/*
 * The same for a mailbox built by a suite's builder from ids that are
 * sentinels: every field holding SENTINEL + k gets a fixup to refs[k].
 */
#define SENTINEL 0xa50000u

struct scan {
	const int *refs;
	unsigned int nrefs, n;
	uint8_t fixes[64][FUZZ_FIX_BYTES];
};

static int scan_field(void *arg, const char *path,
		      const struct prm_field_desc *fd, uint32_t off,
		      uint64_t value)
{
	struct scan *sc = arg;

	(void)path;
	if (fd->bit_width > 32 || value < SENTINEL ||
	    value >= SENTINEL + sc->nrefs || sc->refs[value - SENTINEL] < 0 ||
	    sc->n == 64)
		return 0;
	sc->fixes[sc->n][0] = (uint8_t)off;
	sc->fixes[sc->n][1] = (uint8_t)(off >> 8);
	sc->fixes[sc->n][2] = (uint8_t)fd->bit_width;
	sc->fixes[sc->n][3] = (uint8_t)sc->refs[value - SENTINEL];
	sc->n++;
	return 0;
}

static int op_scan(struct seed *s, enum fuzz_kind kind, int target,
		   const struct fwt_mbox *m, const int *refs, unsigned int nrefs)
{
	uint16_t opcode = (uint16_t)PRM_GET(mbox_in, m->in, opcode);
	struct scan sc = { .refs = refs, .nrefs = nrefs };
	uint8_t h[FUZZ_HDR_BYTES] = { 0 };

	prm_visit_fields(emu_trace_in_struct(opcode), m->in, m->inlen,
			 scan_field, &sc);
	h[0] = (uint8_t)kind;
	h[1] = (uint8_t)target;
	h[2] = (uint8_t)m->inlen;
	h[3] = (uint8_t)(m->inlen >> 8);
	h[4] = (uint8_t)m->outlen;
	h[5] = (uint8_t)(m->outlen >> 8);
	h[6] = (uint8_t)sc.n;
	put(s, h, sizeof(h));
	put(s, sc.fixes, sc.n * FUZZ_FIX_BYTES);
	put(s, m->in, m->inlen);
	return kind == FUZZ_CREATE ? s->nobjs++ : -1;
}

static void write_seed(const char *dir, const char *name, struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		fprintf(stderr, "fuzz_devx_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	memset(s, 0, sizeof(*s));
}

static void mbox(struct fwt_mbox *m, uint16_t opcode, uint16_t op_mod,
		 size_t inlen, size_t outlen)
{
	fwt_mbox_init(m, opcode, op_mod, 0, inlen, outlen);
}

/* A modify/query/destroy-style inbox naming one object by its field. */
static int on(struct seed *s, enum fuzz_kind kind, int obj, uint16_t opcode,
	      size_t inlen, size_t outlen, const char *field)
{
	struct fwt_mbox m;

	mbox(&m, opcode, 0, inlen, outlen);
	return op(s, kind, obj, &m, field, FUZZ_REF_OBJ + obj, NULL);
}

static int alloc(struct seed *s, uint16_t opcode, size_t inlen, size_t outlen)
{
	struct fwt_mbox m;

	mbox(&m, opcode, 0, inlen, outlen);
	return op(s, FUZZ_CREATE, 0, &m, NULL);
}

#define ALLOC(s, OP, typ) \
	alloc((s), MLX5_CMD_OP_##OP, PRM_ST_SZ_BYTES(typ##_in), PRM_ST_SZ_BYTES(typ##_out))
#define ON(s, kind, obj, OP, typ, field) \
	on((s), (kind), (obj), MLX5_CMD_OP_##OP, PRM_ST_SZ_BYTES(typ##_in), \
	   PRM_ST_SZ_BYTES(typ##_out), (field))

static void seed_general(struct seed *s)
{
	static const uint16_t caps[] = { 0, 1, 8, 9, 4, 5, 2, 3, 0x40, 0x41 };
	struct fwt_mbox m;

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		mbox(&m, MLX5_CMD_OP_QUERY_HCA_CAP, caps[i],
		     PRM_ST_SZ_BYTES(query_hca_cap_in),
		     PRM_ST_SZ_BYTES(query_hca_cap_out));
		op(s, FUZZ_GENERAL, 0, &m, NULL);
	}
	mbox(&m, MLX5_CMD_OP_QUERY_ADAPTER, 0, PRM_ST_SZ_BYTES(query_adapter_in),
	     PRM_ST_SZ_BYTES(query_adapter_out));
	op(s, FUZZ_GENERAL, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_VPORT_STATE, 0,
	     PRM_ST_SZ_BYTES(query_vport_state_in),
	     PRM_ST_SZ_BYTES(query_vport_state_out));
	op(s, FUZZ_GENERAL, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0,
	     PRM_ST_SZ_BYTES(query_nic_vport_context_in),
	     PRM_ST_SZ_BYTES(query_nic_vport_context_out));
	op(s, FUZZ_GENERAL, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, 0,
	     PRM_ST_SZ_BYTES(query_hca_vport_context_in),
	     PRM_ST_SZ_BYTES(query_hca_vport_context_out));
	PRM_SET(query_hca_vport_context_in, m.in, port_num, 1);
	op(s, FUZZ_GENERAL, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_ROCE_ADDRESS, 0,
	     PRM_ST_SZ_BYTES(query_roce_address_in),
	     PRM_ST_SZ_BYTES(query_roce_address_out));
	PRM_SET(query_roce_address_in, m.in, roce_address_index, 1);
	op(s, FUZZ_GENERAL, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_LAG, 0, PRM_ST_SZ_BYTES(query_lag_in),
	     PRM_ST_SZ_BYTES(query_lag_out));
	op(s, FUZZ_GENERAL, 0, &m, NULL);
}

/* PD, transport domain, a direct MTT mkey over umem 0, queried. */
static void seed_mkey(struct seed *s)
{
	struct fwt_mbox m;
	int pd, td, mk;

	pd = ALLOC(s, ALLOC_PD, alloc_pd);
	td = ALLOC(s, ALLOC_TRANSPORT_DOMAIN, alloc_transport_domain);
	{
		const int refs[] = { FUZZ_REF_OBJ + pd, FUZZ_REF_UMEM + 0 };

		fwt_mkey_mbox(&m, 0, SENTINEL + 0, SENTINEL + 1, 0, 4 * 4096,
			      0x10000);
		mk = op_scan(s, FUZZ_CREATE, 0, &m, refs, 2);
	}
	ON(s, FUZZ_QUERY, mk, QUERY_MKEY, query_mkey, "mkey_index");
	ON(s, FUZZ_QUERY_ASYNC, mk, QUERY_MKEY, query_mkey, "mkey_index");
	op(s, FUZZ_DESTROY, mk, NULL, NULL);
	op(s, FUZZ_DESTROY, td, NULL, NULL);
	op(s, FUZZ_DESTROY, pd, NULL, NULL);
}

/* A CQ in umem 0 with its doorbell record in umem 1; its fields by name. */
static int cq(struct seed *s, unsigned int slot)
{
	struct fwt_mbox m;

	fwt_cq_mbox(&m, 0, 0, 0, 6, 0, (uint64_t)slot * QPT_SLOT_BYTES, 0,
		    slot * 64);
	return op(s, FUZZ_CREATE, 0, &m, "cq_umem_id", FUZZ_REF_UMEM + 0,
		  "cq_context.dbr_umem_id", FUZZ_REF_UMEM + 1,
		  "cq_context.uar_page", FUZZ_REF_UAR,
		  "cq_context.c_eqn", FUZZ_REF_EQN, NULL);
}

static void seed_cq(struct seed *s)
{
	struct fwt_mbox m;
	int c = cq(s, 0);

	ON(s, FUZZ_QUERY, c, QUERY_CQ, query_cq, "cqn");
	mbox(&m, MLX5_CMD_OP_MODIFY_CQ, 0, PRM_ST_SZ_BYTES(modify_cq_in),
	     PRM_ST_SZ_BYTES(modify_cq_out));
	PRM_SET(modify_cq_in, m.in,
		modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		3);	/* period and max count */
	PRM_SET(modify_cq_in, m.in, cq_context.cq_period, 16);
	PRM_SET(modify_cq_in, m.in, cq_context.cq_max_count, 8);
	op(s, FUZZ_MODIFY, c, &m, "cqn", FUZZ_REF_OBJ + c, NULL);
	op(s, FUZZ_DESTROY, c, NULL, NULL);
}

/* The objects a queue uses, as qpt_env has them, with seed indexes. */
struct seed_env {
	struct qpt_env e;
	int pd, cq, cq2, xrcd, srq;
};

static void env_init(struct seed *s, struct seed_env *v, bool srq)
{
	memset(v, 0, sizeof(*v));
	v->pd = ALLOC(s, ALLOC_PD, alloc_pd);
	v->cq = cq(s, 0);
	v->cq2 = cq(s, 1);
	v->xrcd = ALLOC(s, ALLOC_XRCD, alloc_xrcd);
	v->srq = -1;
	v->e.slot = 2;
	if (srq) {
		struct fwt_mbox m;
		unsigned int slot = v->e.slot++;
		void *c;

		mbox(&m, MLX5_CMD_OP_CREATE_XRC_SRQ, 0,
		     PRM_ST_SZ_BYTES(create_xrc_srq_in),
		     PRM_ST_SZ_BYTES(create_xrc_srq_out));
		c = PRM_ADDR_OF(create_xrc_srq_in, m.in, xrc_srq_context_entry);
		PRM_SET(xrc_srqc, c, log_xrc_srq_size, 5);
		PRM_SET(xrc_srqc, c, log_rq_stride, 2);
		PRM_SET(xrc_srqc, c, user_index, 0x55);
		PRM_SET(xrc_srqc, c, dbr_umem_valid, 1);
		PRM_SET(xrc_srqc, c, db_record_addr_l, slot * 64 / 4);
		PRM_SET(create_xrc_srq_in, m.in, xrc_srq_umem_valid, 1);
		PRM_SET64(create_xrc_srq_in, m.in, xrc_srq_umem_offset,
			  (uint64_t)slot * QPT_SLOT_BYTES);
		v->srq = op(s, FUZZ_CREATE, 0, &m,
			    "xrc_srq_context_entry.xrcd", FUZZ_REF_OBJ + v->xrcd,
			    "xrc_srq_context_entry.cqn", FUZZ_REF_OBJ + v->cq2,
			    "xrc_srq_context_entry.pd", FUZZ_REF_OBJ + v->pd,
			    "xrc_srq_context_entry.dbr_umem_id", FUZZ_REF_UMEM + 1,
			    "xrc_srq_umem_id", FUZZ_REF_UMEM + 0, NULL);
		ON(s, FUZZ_QUERY, v->srq, QUERY_XRC_SRQ, query_xrc_srq,
		   "xrc_srqn");
	}
}

/* A QP of type t through RTS, queried, to error and reset, destroyed. */
static void seed_qp(struct seed *s, enum qpt_type t)
{
	static const uint16_t path[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP, MLX5_CMD_OP_RTS2RTS_QP,
		MLX5_CMD_OP_2ERR_QP, MLX5_CMD_OP_2RST_QP,
	};
	struct seed_env v;
	struct fwt_mbox m;
	int qp;

	env_init(s, &v, false);
	{
		/* The ids the builders write: sentinels, each a ref. */
		const int refs[] = {
			FUZZ_REF_OBJ + v.pd, FUZZ_REF_OBJ + v.cq,
			FUZZ_REF_OBJ + v.cq2, FUZZ_REF_OBJ + v.xrcd, FUZZ_REF_UAR,
			FUZZ_REF_UMEM + 1, FUZZ_REF_UMEM + 0, -1,
		};

		v.e.pd = SENTINEL + 0;
		v.e.cq = SENTINEL + 1;
		v.e.cq2 = SENTINEL + 2;
		v.e.xrcd = SENTINEL + 3;
		v.e.uar = SENTINEL + 4;
		v.e.dbr.umem_id = SENTINEL + 5;
		v.e.mem.umem_id = SENTINEL + 6;
		v.e.srq = SENTINEL + 7;	/* no SRQ here: never named */
		/* A queue in slot 2 of umem 0, its doorbell record 2 * 64
		 * into umem 1. */
		qpt_create_mbox(&v.e, &m, t);
		qp = op_scan(s, FUZZ_CREATE, 0, &m, refs,
			     sizeof(refs) / sizeof(refs[0]));
	}
	for (size_t i = 0; i < sizeof(path) / sizeof(path[0]); i++) {
		qpt_tr_mbox(&m, path[i], 0, 0, 0);
		qpt_tr_fill(&v.e, &m, path[i], t);
		op(s, FUZZ_MODIFY, qp, &m, "qpn", FUZZ_REF_OBJ + qp, NULL);
		if (path[i] == MLX5_CMD_OP_RTS2RTS_QP)
			ON(s, FUZZ_QUERY, qp, QUERY_QP, query_qp, "qpn");
	}
	op(s, FUZZ_DESTROY, qp, NULL, NULL);
}

/* A DC target on an XRC SRQ: queried, armed, destroyed. */
static void seed_dct(struct seed *s)
{
	struct seed_env v;
	struct fwt_mbox m;
	int dct;

	env_init(s, &v, true);
	{
		const int refs[] = {
			FUZZ_REF_OBJ + v.pd, FUZZ_REF_OBJ + v.srq,
			FUZZ_REF_OBJ + v.cq,
		};

		v.e.pd = SENTINEL + 0;
		v.e.srq = SENTINEL + 1;
		v.e.cq = SENTINEL + 2;
		qpt_dct_mbox(&v.e, &m);
		dct = op_scan(s, FUZZ_CREATE, 0, &m, refs, 3);
	}
	ON(s, FUZZ_QUERY, dct, QUERY_DCT, query_dct, "dctn");
	ON(s, FUZZ_MODIFY, dct, ARM_DCT_FOR_KEY_VIOLATION, arm_dct,
	   "dct_number");
	op(s, FUZZ_DESTROY, dct, NULL, NULL);
}

/* Counters: a Q counter and a flow counter, queried. */
static void seed_counters(struct seed *s)
{
	struct fwt_mbox m;
	int qc, fc;

	qc = ALLOC(s, ALLOC_Q_COUNTER, alloc_q_counter);
	ON(s, FUZZ_QUERY, qc, QUERY_Q_COUNTER, query_q_counter, "counter_set_id");
	mbox(&m, MLX5_CMD_OP_ALLOC_FLOW_COUNTER, 0,
	     PRM_ST_SZ_BYTES(alloc_flow_counter_in),
	     PRM_ST_SZ_BYTES(alloc_flow_counter_out));
	fc = op(s, FUZZ_CREATE, 0, &m, NULL);
	mbox(&m, MLX5_CMD_OP_QUERY_FLOW_COUNTER, 0,
	     PRM_ST_SZ_BYTES(query_flow_counter_in),
	     PRM_ST_SZ_BYTES(query_flow_counter_out) +
		     PRM_ST_SZ_BYTES(traffic_counter));
	PRM_SET(query_flow_counter_in, m.in, num_of_counters, 1);
	op(s, FUZZ_QUERY, fc, &m, "flow_counter_id", FUZZ_REF_OBJ + fc, NULL);
	op(s, FUZZ_DESTROY, fc, NULL, NULL);
	op(s, FUZZ_DESTROY, qc, NULL, NULL);
}

/* umems registered and deregistered around a CQ that uses them. */
static void seed_umem(struct seed *s)
{
	struct fwt_mbox m;
	int c;

	op(s, FUZZ_UMEM_REG, 2, &(struct fwt_mbox){ .inlen = 3 }, NULL);
	fwt_cq_mbox(&m, 0, 0, 0, 5, 0, 0, 0, 0);
	c = op(s, FUZZ_CREATE, 0, &m, "cq_umem_id", FUZZ_REF_UMEM + 3,
	       "cq_context.dbr_umem_id", FUZZ_REF_UMEM + 1,
	       "cq_context.uar_page", FUZZ_REF_UAR,
	       "cq_context.c_eqn", FUZZ_REF_EQN, NULL);
	op(s, FUZZ_UMEM_DEREG, 3, NULL, NULL);	/* in use: refused */
	op(s, FUZZ_DESTROY, c, NULL, NULL);
	op(s, FUZZ_UMEM_DEREG, 3, NULL, NULL);
}

static const char *seed_dir;

/* The builders assert with Check, so the generator runs as a Check test. */
START_TEST(generate)
{
	static struct seed s;
	char name[64];

	seed_general(&s);
	write_seed(seed_dir, "general", &s);
	seed_mkey(&s);
	write_seed(seed_dir, "mkey", &s);
	seed_cq(&s);
	write_seed(seed_dir, "cq", &s);
	for (int t = 0; t < QPT_NTYPES; t++) {
		seed_qp(&s, (enum qpt_type)t);
		snprintf(name, sizeof(name), "qp_%s", qpt_type_name((enum qpt_type)t));
		write_seed(seed_dir, name, &s);
	}
	seed_dct(&s);
	write_seed(seed_dir, "dct", &s);
	seed_counters(&s);
	write_seed(seed_dir, "counters", &s);
	seed_umem(&s);
	write_seed(seed_dir, "umem", &s);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *suite = suite_create("fuzz_devx_seeds");
	TCase *tc = tcase_create("seeds");
	SRunner *sr;
	int failed;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_devx_seeds DIR\n");
		return 2;
	}
	seed_dir = argv[1];
	tcase_add_test(tc, generate);
	suite_add_tcase(suite, tc);
	sr = srunner_create(suite);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
