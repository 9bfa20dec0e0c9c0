/* SPDX-License-Identifier: MIT */
/*
 * The seed corpus of fuzz_wqe (fuzz_wqe.h), written into the directory
 * given: send queues as libmlx5 fills them, at literal offsets (control,
 * remote address, atomic, datagram, data and inline segments), with key
 * and address markers for the fixups: the opcodes an RC, UC or UD QP
 * posts (the invalidations included), a chain of WQEs, a doorbell that
 * announces more than the ring holds, and the requests a ConnectX refuses
 * (a key of another protection domain or none, a read into memory
 * without local write, a write to a remote MR without remote write).
 *
 *     fuzz_wqe_seeds DIR
 */
#include <infiniband/mlx5dv.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_wqe.h"
#include "emu/base/bytes.h"

enum { K_MR, K_RO, K_OTHER_PD, K_NONE };

struct seed {
	uint8_t b[2 + FQ_SQ_BYTES];
	unsigned int bb;	/* the next WQE's basic block */
	unsigned int fix;
};

static void seed_start(struct seed *s, unsigned int type)
{
	memset(s, 0, sizeof(*s));
	s->fix = type | FQ_FIX_CTRL | FQ_FIX_KEYS | FQ_FIX_AV;
}

static uint8_t *wqe_at(struct seed *s)
{
	return s->b + 2 + (s->bb % (FQ_SQ_BYTES / 64)) * 64;
}

static void put_key(uint8_t *p, unsigned int k)
{
	emu_put_be32(p, FQ_KEY_MARK | k);
}

/* An address marker: offset in the MR, or in the read-only MR. */
static void put_addr(uint8_t *p, uint32_t off, bool ro)
{
	emu_put_be64(p, (uint64_t)FQ_ADDR_MARK << 32 |
			(ro ? 1u << 24 : 0) | off);
}

static void dseg(uint8_t *p, uint32_t len, unsigned int key, uint32_t off,
		 bool ro)
{
	emu_put_be32(p, len);
	put_key(p + 4, key);
	put_addr(p + 8, off, ro);
}

static void raddr(uint8_t *p, uint32_t off, bool ro, unsigned int key)
{
	put_addr(p, off, ro);
	put_key(p + 8, key);
}

/* The control segment; the fixup writes the counter and the QPN. */
static void ctrl(uint8_t *w, uint8_t opcode, unsigned int ds)
{
	w[3] = opcode;
	w[7] = (uint8_t)ds;
	w[11] = MLX5_WQE_CTRL_CQ_UPDATE;
}

static void next(struct seed *s, unsigned int ds)
{
	s->bb += (ds * 16 + 63) / 64;
}

/* SEND-like: control, data. */
static void send(struct seed *s, uint8_t op, uint32_t len, unsigned int key)
{
	uint8_t *w = wqe_at(s);

	ctrl(w, op, 2);
	if (op == MLX5_OPCODE_SEND_IMM)
		emu_put_be32(w + 12, 0x12345678);
	else if (op == MLX5_OPCODE_SEND_INVAL ||
		 op == MLX5_OPCODE_LOCAL_INVAL)
		put_key(w + 12, K_MR);	/* the key to invalidate */
	dseg(w + 16, len, key, 0, false);
	next(s, 2);
}

/* WRITE or READ: control, remote address, data. */
static void rdma(struct seed *s, uint8_t op, uint32_t len, unsigned int lkey,
		 bool local_ro, unsigned int rkey, bool remote_ro)
{
	uint8_t *w = wqe_at(s);

	ctrl(w, op, 3);
	raddr(w + 16, 4096, remote_ro, rkey);
	dseg(w + 32, len, lkey, 0, local_ro);
	next(s, 3);
}

/* Compare-and-swap or fetch-and-add: control, remote address, atomic,
 * an 8-byte data segment. */
static void atomic(struct seed *s, uint8_t op)
{
	uint8_t *w = wqe_at(s);

	ctrl(w, op, 4);
	raddr(w + 16, 64, false, K_MR);
	emu_put_be64(w + 32, 5);	/* swap or add */
	emu_put_be64(w + 40, 0);	/* compare */
	dseg(w + 48, 8, K_MR, 128, false);
	next(s, 4);
}

/* SEND of inline data: control, byte count with the inline bit, data. */
static void send_inline(struct seed *s, uint32_t len)
{
	uint8_t *w = wqe_at(s);
	unsigned int ds = 1 + (4 + len + 15) / 16;

	ctrl(w, MLX5_OPCODE_SEND, ds);
	emu_put_be32(w + 16, len | MLX5_INLINE_SEG);
	for (uint32_t i = 0; i < len; i++)
		w[20 + i] = (uint8_t)(i * 3);
	next(s, ds);
}

/* UD SEND: control, address vector (the fixup fills it), data. */
static void ud_send(struct seed *s, uint32_t len)
{
	uint8_t *w = wqe_at(s);

	ctrl(w, MLX5_OPCODE_SEND, 5);
	dseg(w + 64, len, K_MR, 0, false);
	next(s, 5);
}

static int seed_put(const char *dir, const char *name, struct seed *s,
		    unsigned int announced)
{
	char path[4096];
	FILE *fp;

	s->b[0] = (uint8_t)s->fix;
	s->b[1] = (uint8_t)announced;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(s->b, 1, sizeof(s->b), fp) != sizeof(s->b) ||
	    fclose(fp)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint8_t op;
	} sends[] = {
		{ "rc_send", MLX5_OPCODE_SEND },
		{ "rc_send_imm", MLX5_OPCODE_SEND_IMM },
		{ "rc_nop", MLX5_OPCODE_NOP },
		{ "rc_send_inval", MLX5_OPCODE_SEND_INVAL },
		{ "rc_local_inval", MLX5_OPCODE_LOCAL_INVAL },
	};
	struct seed s;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (unsigned int i = 0; i < sizeof(sends) / sizeof(sends[0]); i++) {
		seed_start(&s, FQ_RC);
		send(&s, sends[i].op, 64, K_MR);
		bad |= seed_put(argv[1], sends[i].name, &s, s.bb);
	}
	seed_start(&s, FQ_RC);
	rdma(&s, MLX5_OPCODE_RDMA_WRITE, 256, K_MR, false, K_MR, false);
	bad |= seed_put(argv[1], "rc_write", &s, s.bb);
	seed_start(&s, FQ_RC);
	rdma(&s, MLX5_OPCODE_RDMA_WRITE_IMM, 3000, K_MR, false, K_MR, false);
	bad |= seed_put(argv[1], "rc_write_imm_3_packets", &s, s.bb);
	seed_start(&s, FQ_RC);
	rdma(&s, MLX5_OPCODE_RDMA_READ, 2048, K_MR, false, K_RO, true);
	bad |= seed_put(argv[1], "rc_read_from_ro", &s, s.bb);
	seed_start(&s, FQ_RC);
	atomic(&s, MLX5_OPCODE_ATOMIC_CS);
	bad |= seed_put(argv[1], "rc_atomic_cs", &s, s.bb);
	seed_start(&s, FQ_RC);
	atomic(&s, MLX5_OPCODE_ATOMIC_FA);
	bad |= seed_put(argv[1], "rc_atomic_fa", &s, s.bb);
	seed_start(&s, FQ_RC);
	send_inline(&s, 100);
	bad |= seed_put(argv[1], "rc_send_inline", &s, s.bb);

	/* A chain: every kind one after another, then past the ring's end. */
	seed_start(&s, FQ_RC);
	send(&s, MLX5_OPCODE_SEND, 16, K_MR);
	rdma(&s, MLX5_OPCODE_RDMA_WRITE, 100, K_MR, false, K_MR, false);
	atomic(&s, MLX5_OPCODE_ATOMIC_FA);
	rdma(&s, MLX5_OPCODE_RDMA_READ, 64, K_MR, false, K_MR, false);
	send_inline(&s, 40);
	bad |= seed_put(argv[1], "rc_chain", &s, s.bb);
	bad |= seed_put(argv[1], "rc_chain_announced_past_ring", &s, 200);

	/* What a ConnectX refuses, each with its error completion. */
	seed_start(&s, FQ_RC);
	send(&s, MLX5_OPCODE_SEND, 64, K_OTHER_PD);
	bad |= seed_put(argv[1], "rc_send_key_of_other_pd", &s, s.bb);
	seed_start(&s, FQ_RC);
	send(&s, MLX5_OPCODE_SEND, 64, K_NONE);
	bad |= seed_put(argv[1], "rc_send_no_key", &s, s.bb);
	seed_start(&s, FQ_RC);
	rdma(&s, MLX5_OPCODE_RDMA_READ, 64, K_RO, true, K_MR, false);
	bad |= seed_put(argv[1], "rc_read_into_ro", &s, s.bb);
	seed_start(&s, FQ_RC);
	rdma(&s, MLX5_OPCODE_RDMA_WRITE, 64, K_MR, false, K_RO, true);
	bad |= seed_put(argv[1], "rc_write_to_ro", &s, s.bb);
	seed_start(&s, FQ_RC);
	send(&s, MLX5_OPCODE_SEND, 64, K_MR);
	send(&s, MLX5_OPCODE_SEND, 64, K_MR);
	bad |= seed_put(argv[1], "rc_send_rung_short", &s, 1);

	seed_start(&s, FQ_UC);
	send(&s, MLX5_OPCODE_SEND, 64, K_MR);
	rdma(&s, MLX5_OPCODE_RDMA_WRITE, 2000, K_MR, false, K_MR, false);
	bad |= seed_put(argv[1], "uc_send_write", &s, s.bb);

	seed_start(&s, FQ_UD);
	ud_send(&s, 64);
	ud_send(&s, 1000);
	bad |= seed_put(argv[1], "ud_send", &s, s.bb);
	return bad;
}
