/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target of the requester's side of the engine: a send queue of
 * any content (fuzz_wqe.h), announced by a doorbell record of any value,
 * on a victim QP (RC, UC or UD) whose peer on the same device has receives
 * posted.  The ring walk, the WQE parser (every opcode, inline data,
 * scatter lists, address vectors, UMR and memory-window segments), key and
 * bounds checks, the in-process fabric, and the responder and completer of
 * both QPs run on it.  The engine runs without a thread, so each progress
 * call is one pass and a run replays.  Before each input the victim and
 * its peer are reset and connected again: an input means the same
 * whatever ran before it.
 *
 * Beyond the sanitizers, after each input:
 *  - no byte beside the writable MR, and no byte of a MR that grants no
 *    write access, has changed;
 *  - a bystander QP pair of another protection domain on the same device
 *    still carries a SEND, byte for byte, with both completions good: a
 *    bad WQE puts its own QP in error and nothing else.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "fuzz_eng.h"
#include "fuzz_wqe.h"
#include "emu/base/bytes.h"

#define MR_LEN 8192u
#define RO_LEN 4096u
#define NRECV 4u
#define RECV_LEN (MR_LEN / NRECV)
#define PASSES 8

struct pair {
	struct ent_qp victim, peer;
};

static struct ent_dev dev;
static struct ent_cq vcq, pcq, ccq;
static struct pair pairs[3];		/* by FQ_RC, FQ_UC, FQ_UD */
static struct ent_qp cq_a, cq_b;	/* the bystanders, in pd2 */
static struct ent_mr mr, ro, cmr;
static uint32_t round_no;

/* ---- the device ---- */

static void qp_restart(struct ent_qp *qp, uint32_t remote_qpn)
{
	struct ent_conn c;

	ent_conn_default(&c);
	c.remote_qpn = remote_qpn;
	c.qkey = FQ_QKEY;
	/* Few retries: a request nobody answers gives up within the passes
	 * of its input or is reset with it. */
	c.retry_count = 1;
	c.rnr_retry = 1;
	fuzz_qp_restart(qp, &c);
}

static void pair_restart(struct pair *p)
{
	qp_restart(&p->victim, p->peer.qpn);
	qp_restart(&p->peer, p->victim.qpn);
	for (unsigned int i = 0; i < NRECV; i++)
		ent_post_recv(&p->peer, mr.key,
			      (uintptr_t)mr.buf + i * RECV_LEN, RECV_LEN);
}

static void pair_create(struct pair *p, enum ent_type t)
{
	struct ent_qp_cfg qc = {
		.type = t, .log_sq = FQ_LOG_SQ, .log_rq = 4, .log_rq_stride = 1,
		.scq = &vcq, .rcq = &vcq,
	};

	ent_qp_create(&dev, &p->victim, &qc);
	qc.scq = qc.rcq = &pcq;
	ent_qp_create(&dev, &p->peer, &qc);
}

static void setup(void)
{
	struct ent_qp_cfg qc = {
		.type = ENT_RC, .log_sq = 4, .log_rq = 4, .log_rq_stride = 1,
		.scq = &ccq, .rcq = &ccq,
	};

	if (setenv("MLX5EMU_ENGINE_MODE", "inline", 1))
		abort();
	ent_dev_init(&dev, 0);
	fuzz_mr_guarded(&dev, &mr, MR_LEN);
	fuzz_mr_filled(&dev, &ro, RO_LEN, EMU_FW_MKEY_LR | EMU_FW_MKEY_RR,
		       IBV_ACCESS_REMOTE_READ);
	ent_mr_init(&dev, &cmr, dev.pd2, 4096, ENT_MR_ALL,
		    IBV_ACCESS_LOCAL_WRITE);
	/* Room for whatever an input completes: a doorbell may announce
	 * up to 255 WQEs, each flushed or completed. */
	ent_cq_init(&dev, &vcq, 10, 64, false);
	ent_cq_init(&dev, &pcq, 10, 64, false);
	ent_cq_init(&dev, &ccq, 4, 64, false);
	pair_create(&pairs[FQ_RC], ENT_RC);
	pair_create(&pairs[FQ_UC], ENT_UC);
	pair_create(&pairs[FQ_UD], ENT_UD);
	qc.pd = dev.pd2;
	ent_qp_create(&dev, &cq_a, &qc);
	ent_qp_create(&dev, &cq_b, &qc);
	ent_qp_pair(&cq_a, &cq_b);
}

/* ---- fixups ---- */

static void fix_keys(uint8_t *sq)
{
	const uint32_t keys[4] = { mr.key, ro.key, cmr.key, 0x100 };

	for (unsigned int o = 0; o + 4 <= FQ_SQ_BYTES; o += 4) {
		uint32_t w = emu_get_be32(sq + o);

		if ((w & 0xffffff00u) == FQ_KEY_MARK)
			emu_put_be32(sq + o, keys[w & 3]);
	}
	for (unsigned int o = 0; o + 8 <= FQ_SQ_BYTES; o += 8) {
		uint64_t w = emu_get_be64(sq + o);
		uint32_t v = (uint32_t)w;
		bool to_ro = v & (1u << 24);

		if (w >> 32 != FQ_ADDR_MARK)
			continue;
		emu_put_be64(sq + o, (uintptr_t)(to_ro ? ro.buf : mr.buf) +
				     (v & 0xffffff) % (to_ro ? RO_LEN : MR_LEN));
	}
}

/* Each WQE in turn, as its DS count says, within what the doorbell
 * announces and the ring holds. */
static void fix_wqes(uint8_t *sq, unsigned int announced, uint8_t fix,
		     const struct pair *p)
{
	unsigned int nbb = 1u << FQ_LOG_SQ;

	for (unsigned int bb = 0; bb < announced && bb < nbb;) {
		uint8_t *w = sq + bb * 64;
		unsigned int ds = w[7] & 0x3f;

		if (fix & FQ_FIX_CTRL) {
			w[1] = 0;
			w[2] = (uint8_t)bb;
			w[4] = (uint8_t)(p->victim.qpn >> 16);
			w[5] = (uint8_t)(p->victim.qpn >> 8);
			w[6] = (uint8_t)p->victim.qpn;
		}
		if ((fix & FQ_FIX_AV) && (fix & FQ_TYPE_MASK) == FQ_UD) {
			emu_put_be32(w + 16, FQ_QKEY);
			emu_put_be32(w + 24, p->peer.qpn | MLX5_EXTENDED_UD_AV);
			emu_put_be32(w + 44, 1u << 30 | ENT_GID_V2 << 20);
			memcpy(w + 48, dev.gid[ENT_GID_V2], 16);
		}
		bb += ds ? (ds * 16 + 63) / 64 : 1;
	}
}

/* ---- after each input ---- */

static void drain(struct ent_cq *cq)
{
	while (!ent_cq_quiet(cq, 0))
		ent_cq_next(cq);
}

/* The bystanders carry a SEND of 64 bytes that change every round. */
static void check_bystanders(void)
{
	bool req = false, resp = false;

	round_no++;
	for (unsigned int i = 0; i < 64; i++)
		cmr.buf[i] = (uint8_t)(round_no * 31 + i);
	memset(cmr.buf + 2048, 0, 64);
	ent_post_recv(&cq_b, cmr.key, (uintptr_t)cmr.buf + 2048, 64);
	ent_post1(&cq_a, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0, &cmr,
		  0, 64, 0, 0);
	for (int i = 0; i < 2; i++) {
		const uint8_t *e = ent_cq_next(&ccq);

		req |= e[63] >> 4 == MLX5_CQE_REQ;
		resp |= e[63] >> 4 == MLX5_CQE_RESP_SEND;
		if (e[63] >> 4 != MLX5_CQE_REQ &&
		    e[63] >> 4 != MLX5_CQE_RESP_SEND)
			fprintf(stderr, "fuzz_wqe: bystander CQE opcode %#x "
				"syndrome %#x vendor %#x\n", e[63] >> 4, e[55],
				e[54]);
	}
	if (!req || !resp || memcmp(cmr.buf, cmr.buf + 2048, 64)) {
		fprintf(stderr, "fuzz_wqe: the bystander QPs failed\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct pair *p;
	uint8_t fix;

	if (size < 2)
		return 0;
	if (!ready) {
		setup();
		ready = true;
	}
	fix = data[0];
	p = &pairs[(fix & FQ_TYPE_MASK) == 3 ? FQ_RC : fix & FQ_TYPE_MASK];
	pair_restart(p);
	memset(p->victim.sq, 0, FQ_SQ_BYTES);
	memcpy(p->victim.sq, data + 2,
	       size - 2 < FQ_SQ_BYTES ? size - 2 : FQ_SQ_BYTES);
	if (fix & FQ_FIX_KEYS)
		fix_keys(p->victim.sq);
	fix_wqes(p->victim.sq, data[1], fix, p);
	p->victim.sq_pi = data[1];
	ent_sq_ring(&p->victim);
	for (int i = 0; i < PASSES; i++)
		emu_eng_progress(EMU_ENG_WHY_API);
	drain(&vcq);
	drain(&pcq);
	fuzz_check_guarded(&mr, "fuzz_wqe");
	fuzz_check_filled(&ro, "fuzz_wqe");
	check_bystanders();
	return 0;
}
