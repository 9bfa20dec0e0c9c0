/* SPDX-License-Identifier: MIT */
/*
 * What the MANA program tests share: the pieces of a MANA PMD's data path
 * written from the sources (Linux gdma.h/mana.h offsets, DPDK's owner-bit
 * rule), and the setup such a program does first.  Never the project's
 * own code: these are the tests' oracle.
 */
#ifndef MLX5EMU_TESTS_UNIT_MANA_MANA_PMD_H
#define MLX5EMU_TESTS_UNIT_MANA_MANA_PMD_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

/* Page-aligned, zeroed buffers, as DPDK's rte_zmalloc gives them. */
extern const struct manadv_ctx_allocators mp_allocators;

/* Opens the device @name; asserts. */
struct ibv_context *mp_open(const char *name);
/* Port @dev_port's MAC (0-based) from the net directory of the PCI
 * function <ibdev_path>/device leads to, where the
 * PMD reads it; asserts. */
void mp_port_mac(struct ibv_context *ctx, int dev_port, uint8_t mac[6]);
uint64_t mp_now_ms(void);

void mp_put32(uint8_t *p, uint32_t v);
uint32_t mp_get32(const volatile uint8_t *p);

/* A 32-byte WQE at @w: an 8-byte inline OOB (NULL: zeros), one SGE. */
void mp_wqe(uint8_t *w, const uint8_t oob[8], uint64_t addr, uint32_t key,
	    uint32_t len);
/* A short TX OOB naming the SQ's CQ, the SQ and its vPort offset. */
void mp_tx_oob(uint8_t oob[8], uint32_t cq_id, uint32_t sq_id,
	       uint32_t vp_offset);
/* One 64-bit doorbell store: (qid, tail) at @off of the page. */
void mp_doorbell(void *page, unsigned int off, uint32_t qid, uint32_t tail);
/* The CQE a consumer at @head (free running from 0) of a ring of @n sees,
 * or NULL; mp_cqe_wait waits up to 5 s for it. */
const volatile uint8_t *mp_cqe_at(const void *ring, uint32_t n, uint32_t head);
const volatile uint8_t *mp_cqe_wait(const void *ring, uint32_t n,
				    uint32_t head);

/*
 * A 60-byte IPv4/UDP frame (198.18.0.1:1000+7*seq to 198.18.0.2:5000)
 * from src to dst carrying @seq in its first payload bytes, both checksums
 * left to the device: the IP header's zero, the UDP field the pseudo
 * header's sum (CHECKSUM_PARTIAL, as DPDK seeds it) when @seed, else zero.
 */
enum { MP_UDP_FLEN = 60 };
void mp_udp_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
		  uint32_t seq, bool seed);
/* Whether such a frame's IPv4 and UDP checksums verify. */
bool mp_udp_csums_ok(const uint8_t *f);

/*
 * A raw send queue on port 1 of mana_0, as the PMD builds one (a parent
 * domain, a CQ, the QP, an MR over one 4 KiB buffer whose first frame is
 * a broadcast of EtherType 0x88b5), its ids from manadv_init_obj; with a
 * completion channel when @channel, the CQ's context the mp_txq.
 */
struct mp_txq {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *ppd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct manadv_qp dq;
	struct manadv_cq dc;
	uint8_t *mem;
	uint32_t posted;
};
void mp_txq_open(struct mp_txq *t, bool channel);
/* One WQE of the buffer's first @len bytes written (not rung). */
void mp_txq_post(struct mp_txq *t, uint32_t len);
/* One frame posted, rung, and its CQE seen. */
void mp_txq_send(struct mp_txq *t);
/* Everything the open made, destroyed; @objects false: the QP and CQ are
 * gone already. */
void mp_txq_close(struct mp_txq *t, bool objects);

#endif /* MLX5EMU_TESTS_UNIT_MANA_MANA_PMD_H */
