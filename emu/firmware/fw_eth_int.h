/* SPDX-License-Identifier: MIT */
/*
 * emu/firmware/fw_eth_int.h -- shared by the Ethernet queue files of the
 * firmware (fw_eth_tis.c, fw_eth_wq.c, fw_eth_sq.c, fw_eth_rq.c,
 * fw_eth_rqt.c, fw_eth_tir.c).  Not for use outside emu/firmware/.
 */
#ifndef MLX5EMU_FW_ETH_INT_H
#define MLX5EMU_FW_ETH_INT_H

#include "emu/firmware/fw_qp_int.h"

/* Handlers. */
enum fw_synd fw_cmd_create_tis(struct fw_cmd *cmd);		/* fw_eth_tis.c */
enum fw_synd fw_cmd_modify_tis(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_tis(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_tis(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_sq(struct fw_cmd *cmd);		/* fw_eth_sq.c */
enum fw_synd fw_cmd_modify_sq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_sq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_sq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_rq(struct fw_cmd *cmd);		/* fw_eth_rq.c */
enum fw_synd fw_cmd_modify_rq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_rq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_rq(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_rqt(struct fw_cmd *cmd);		/* fw_eth_rqt.c */
enum fw_synd fw_cmd_modify_rqt(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_rqt(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_rqt(struct fw_cmd *cmd);
enum fw_synd fw_cmd_create_tir(struct fw_cmd *cmd);		/* fw_eth_tir.c */
enum fw_synd fw_cmd_modify_tir(struct fw_cmd *cmd);
enum fw_synd fw_cmd_query_tir(struct fw_cmd *cmd);
enum fw_synd fw_cmd_destroy_tir(struct fw_cmd *cmd);

/* ---- fw_eth_wq.c: what SQs and RQs share ---- */

/*
 * The parts of an SQ or an RQ the shared code handles, as pointers into
 * either (FW_WQ_PARTS(sq), FW_WQ_PARTS(rq)).
 */
struct fw_wq_parts {
	struct emu_fw_obj *obj;
	pthread_mutex_t *lock;
	atomic_uint *state;
	atomic_uint *gen;
	struct emu_fw_pd **pd;
	struct emu_fw_cq **cq;
	struct emu_fw_buf *buf, *dbr;
	struct emu_fw_ring *ring;
};

#define FW_WQ_PARTS(q)							\
	((struct fw_wq_parts){ .obj = &(q)->obj, .lock = &(q)->lock,	\
			       .state = &(q)->state, .gen = &(q)->gen,	\
			       .pd = &(q)->pd, .cq = &(q)->cq,		\
			       .buf = &(q)->buf, .dbr = &(q)->dbr,	\
			       .ring = &(q)->ring })

/*
 * Before anything is taken: the context's state (RST), its ts_format
 * against the capability @ts_cap, the wq's type (cyclic), features and
 * size (log_max_wq_sz).
 */
enum fw_synd fw_wq_check(const struct emu_fw *fw, const void *wq,
			 uint32_t state, uint32_t ts_format,
			 uint32_t ts_cap);
/*
 * Take the wq's PD, the CQ @cqn, the ring of (1 << log_wq_sz) WQEs of
 * (1 << log_stride) bytes (the wq at byte @wq_off of the inbox) and its
 * doorbell record.  On failure fw_wq_release undoes what was taken.
 */
enum fw_synd fw_wq_take(struct fw_cmd *cmd, const struct fw_wq_parts *q,
			size_t wq_off, uint32_t cqn, uint32_t log_stride);
void fw_wq_release(const struct fw_wq_parts *q);
/* MODIFY_SQ/MODIFY_RQ: @cur must be the current state, @to a state the
 * current one may move to. */
enum fw_synd fw_wq_move_check(const struct fw_wq_parts *q, uint32_t cur,
			      uint32_t to);
/* Under the queue's lock, after fw_wq_move_check: the state becomes @to
 * (release) and the generation moves on; whether the state changed. */
bool fw_wq_move(const struct fw_wq_parts *q, uint32_t cur, uint32_t to);
/* The wq's sw_counter as QUERY reports it: the doorbell record word
 * @which (EMU_FW_DBR_*), 0 if unreadable. */
uint32_t fw_wq_sw_counter(const struct fw_wq_parts *q, unsigned int which);
/* RDY -> ERR for the engine: 0, or -EINVAL if not RDY. */
int fw_wq_set_error(const struct fw_wq_parts *q);

#endif /* MLX5EMU_FW_ETH_INT_H */
