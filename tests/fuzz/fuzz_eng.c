/* SPDX-License-Identifier: MIT */
/* What the engine-driving fuzz targets share (fuzz_eng.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz_eng.h"

#define GUARD_BYTE 0xa5
#define FILL_BYTE 0x5a

/*
 * The engine suites' driver asserts with Check, which reports to a test
 * runner; none runs in a fuzz target, so its link wraps both entry points
 * (-Wl,--wrap): a passing assertion does nothing, a failing one aborts,
 * which libFuzzer reports as a crash with its input.
 */
void __wrap__mark_point(const char *file, int line);
void __wrap__ck_assert_failed(const char *file, int line, const char *expr,
			      const char *msg, ...);

void __wrap__mark_point(const char *file, int line)
{
	(void)file;
	(void)line;
}

void __wrap__ck_assert_failed(const char *file, int line, const char *expr,
			      const char *msg, ...)
{
	(void)msg;
	fprintf(stderr, "fuzz: %s:%d: %s\n", file, line, expr);
	abort();
}

void fuzz_mr_guarded(struct ent_dev *d, struct ent_mr *mr, size_t len)
{
	uint8_t *region = aligned_alloc(4096, FUZZ_GUARD + len + FUZZ_GUARD);

	if (!region)
		abort();
	memset(region, GUARD_BYTE, FUZZ_GUARD + len + FUZZ_GUARD);
	ent_mr_init_buf(d, mr, d->pd, region + FUZZ_GUARD, len, ENT_MR_ALL,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
}

void fuzz_mr_filled(struct ent_dev *d, struct ent_mr *mr, size_t len,
		    unsigned int access, uint32_t umem_access)
{
	ent_mr_init(d, mr, d->pd, len, access, umem_access);
	memset(mr->buf, FILL_BYTE, len);
}

static void fuzz_check_bytes(const uint8_t *p, size_t len, uint8_t v,
			     const char *who, const char *what)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v) {
			fprintf(stderr, "%s: %s changed\n", who, what);
			abort();
		}
}

void fuzz_check_guarded(const struct ent_mr *mr, const char *who)
{
	fuzz_check_bytes(mr->buf - FUZZ_GUARD, FUZZ_GUARD, GUARD_BYTE, who,
			 "a byte before the MR");
	fuzz_check_bytes(mr->buf + mr->len, FUZZ_GUARD, GUARD_BYTE, who,
			 "a byte after the MR");
}

void fuzz_check_filled(const struct ent_mr *mr, const char *who)
{
	fuzz_check_bytes(mr->buf, mr->len, FILL_BYTE, who,
			 "an MR no input may write");
}

void fuzz_qp_restart(struct ent_qp *qp, const struct ent_conn *c)
{
	if (ent_qp_modify(qp, MLX5_CMD_OP_2RST_QP))
		abort();
	qp->sq_pi = 0;
	qp->rq_pi = 0;
	memset(qp->dbr.addr, 0, 8);
	ent_qp_to_rts(qp, qp->d, c);
}
