/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: DEVX mailboxes of any length and content through the
 * kernel layer's rules into the firmware, as a DEVX application sends
 * them: the emu backend's general_cmd, obj_create, obj_modify, obj_query,
 * obj_query_async and obj_destroy, and umem registration, on a live
 * context of mlx5_0.  Each input runs on a fresh context with a UAR, the
 * completion EQ and three umems, creates objects as it goes, and is closed
 * at its end, which destroys whatever it left (fuzz_devx.h: the input).
 *
 * Every inbox and outbox is a heap block of exactly its length, so the
 * sanitizers see a byte read or written past what the caller gave.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "backend/backend.h"
#include "emu/kernel/kern.h"
#include "prm/prm.h"

#include "fuzz_devx.h"

#define BE (&mlx5be_emu_ops)

static uint8_t *fuzz_bufs[FUZZ_NBUFS];

struct fuzz_state {
	struct mlx5be_ctx *ctx;
	struct mlx5be_uar *uar;
	struct mlx5be_uar_info uar_info;
	struct mlx5be_cmd_comp *comp;
	uint32_t eqn;
	struct mlx5be_obj *objs[FUZZ_MAX_OBJS];
	unsigned int nobjs;
	struct mlx5be_umem *umems[FUZZ_MAX_UMEMS];
	uint32_t umem_ids[FUZZ_MAX_UMEMS];
	unsigned int numems;
};

struct fuzz_reader {
	const uint8_t *p;
	size_t left;
};

static bool take(struct fuzz_reader *r, void *dst, size_t n)
{
	if (r->left < n)
		return false;
	memcpy(dst, r->p, n);
	r->p += n;
	r->left -= n;
	return true;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void umem_add(struct fuzz_state *st, unsigned int buf, size_t bytes)
{
	struct mlx5be_umem *u;
	uint32_t id;

	if (st->numems == FUZZ_MAX_UMEMS)
		return;
	u = BE->umem_reg(st->ctx, fuzz_bufs[buf % FUZZ_NBUFS], bytes, 7,
			 UINT64_MAX, &id);
	if (!u)
		return;
	st->umems[st->numems] = u;
	st->umem_ids[st->numems++] = id;
}

static bool ref_value(const struct fuzz_state *st, uint8_t ref, uint32_t *v)
{
	if (ref < FUZZ_MAX_OBJS) {
		if (ref >= st->nobjs || !st->objs[ref])
			return false;
		*v = (uint32_t)st->objs[ref]->enc_id;
		return true;
	}
	if (ref >= FUZZ_REF_UMEM && ref < FUZZ_REF_UMEM + FUZZ_MAX_UMEMS) {
		if (ref - FUZZ_REF_UMEM >= (int)st->numems ||
		    !st->umems[ref - FUZZ_REF_UMEM])
			return false;
		*v = st->umem_ids[ref - FUZZ_REF_UMEM];
		return true;
	}
	switch (ref) {
	case FUZZ_REF_UAR:
		*v = st->uar_info.page_id;
		return true;
	case FUZZ_REF_EQN:
		*v = st->eqn;
		return true;
	case FUZZ_REF_UID:
		*v = st->ctx->uctx->uid;
		return true;
	default:
		return false;
	}
}

/* A fixup inside one dword of the inbox, as the PRM accessors write. */
static void fixup(const struct fuzz_state *st, uint8_t *in, size_t inlen,
		  const uint8_t f[FUZZ_FIX_BYTES])
{
	uint32_t off = le16(f), width = f[2], v;

	if (!width || width > 32 || (off % 32) + width > 32 ||
	    off / 32 * 4 + 4 > inlen || !ref_value(st, f[3], &v))
		return;
	prm_set32_(in, off, width, v);
}

/* Objects keep their index; a destroyed one leaves a hole (NULL). */
static struct mlx5be_obj *target(struct fuzz_state *st, uint8_t t)
{
	return st->nobjs ? st->objs[t % st->nobjs] : NULL;
}

static void run_cmd(struct fuzz_state *st, uint8_t kind, uint8_t tgt,
		    const uint8_t *in, size_t inlen, size_t outlen)
{
	struct mlx5be_obj *obj = target(st, tgt);
	uint8_t *out = malloc(outlen ? outlen : 1);

	if (!out)
		return;
	switch (kind) {
	case FUZZ_GENERAL:
		BE->general_cmd(st->ctx, in, inlen, out, outlen);
		break;
	case FUZZ_CREATE:
		obj = BE->obj_create(st->ctx, in, inlen, out, outlen);
		if (obj && st->nobjs < FUZZ_MAX_OBJS)
			st->objs[st->nobjs++] = obj;
		break;
	case FUZZ_MODIFY:
		if (obj)
			BE->obj_modify(obj, in, inlen, out, outlen);
		break;
	case FUZZ_QUERY:
		if (obj)
			BE->obj_query(obj, in, inlen, out, outlen);
		break;
	case FUZZ_QUERY_ASYNC:
		if (obj && st->comp &&
		    !BE->obj_query_async(obj, in, inlen, outlen, 1, st->comp)) {
			struct mlx5be_async_cmd_resp r = {
				.out = out, .outlen = outlen,
			};

			BE->cmd_comp_get(st->comp, &r);
		}
		break;
	default:
		break;
	}
	free(out);
}

static void run_op(struct fuzz_state *st, struct fuzz_reader *r)
{
	uint8_t h[FUZZ_HDR_BYTES], fix[255][FUZZ_FIX_BYTES];
	uint8_t kind, tgt, nfix;
	size_t inlen, outlen;
	uint8_t *in;

	if (!take(r, h, sizeof(h)))
		return;
	kind = h[0] % FUZZ_NKINDS;
	tgt = h[1];
	inlen = le16(h + 2);
	outlen = le16(h + 4) % (FUZZ_MAX_OUTLEN + 1);
	nfix = h[6];
	for (unsigned int i = 0; i < nfix; i++)
		if (!take(r, fix[i], FUZZ_FIX_BYTES))
			nfix = (uint8_t)i;
	switch (kind) {
	case FUZZ_DESTROY: {
		struct mlx5be_obj *obj = target(st, tgt);

		if (obj && !BE->obj_destroy(obj))
			for (unsigned int i = 0; i < st->nobjs; i++)
				if (st->objs[i] == obj)
					st->objs[i] = NULL;
		return;
	}
	case FUZZ_UMEM_REG:
		umem_add(st, tgt, (inlen % 64 + 1) * 4096);
		return;
	case FUZZ_UMEM_DEREG:
		if (st->numems && st->umems[tgt % st->numems] &&
		    !BE->umem_dereg(st->umems[tgt % st->numems]))
			st->umems[tgt % st->numems] = NULL;
		return;
	default:
		break;
	}
	if (inlen > r->left)
		inlen = r->left;
	in = malloc(inlen ? inlen : 1);
	if (!in)
		return;
	take(r, in, inlen);
	for (unsigned int i = 0; i < nfix; i++)
		fixup(st, in, inlen, fix[i]);
	run_cmd(st, kind, tgt, in, inlen, outlen);
	free(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (int i = 0; i < FUZZ_NBUFS; i++) {
		fuzz_bufs[i] = aligned_alloc(4096, FUZZ_BUF_BYTES);
		if (!fuzz_bufs[i])
			abort();
		memset(fuzz_bufs[i], 0, FUZZ_BUF_BYTES);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_reader r = { data, size };
	struct fuzz_state st = { 0 };
	int fd;

	if (BE->open(0, &st.ctx, &fd))
		abort();	/* the device itself must come up */
	st.uar = BE->uar_alloc(st.ctx, MLX5DV_UAR_ALLOC_TYPE_NC, &st.uar_info);
	if (!st.uar || BE->query_eqn(st.ctx, 0, &st.eqn))
		abort();
	st.comp = BE->cmd_comp_create(st.ctx);
	umem_add(&st, 0, FUZZ_BUF_BYTES);
	umem_add(&st, 1, 4096);
	umem_add(&st, 2, 64 * 1024);
	for (int n = 0; n < FUZZ_MAX_OPS && r.left; n++)
		run_op(&st, &r);
	if (st.comp)
		BE->cmd_comp_destroy(st.comp);
	BE->close(st.ctx);	/* destroys what the input left */
	return 0;
}
