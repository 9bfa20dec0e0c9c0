/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the Ethernet queue Check suites (test_fw_eth_*.c): good
 * mailboxes for TIS, SQ, RQ, RQT and TIR built with the PRM accessors, on
 * the QP suites' environment (PD, UAR, CQs, queue memory of a user
 * context), a transport domain, and an engine stand-in that records the
 * sq_changed/rq_changed calls.
 */
#ifndef MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_ETH_UTIL_H
#define MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_ETH_UTIL_H

#include "test_fw_qp_util.h"

struct etht_env {
	struct qpt_env q;	/* uid, pd, uar, cq, cq2, mem, dbr */
	uint32_t td;
	/* What the engine stand-in saw: calls, and the state / dying of
	 * the queue at the last call. */
	unsigned int sq_calls, rq_calls;
	unsigned int last_state;
	bool last_dying;
	struct emu_fw_engine_ops ops;
};

/* The fixture: a device, a user context's queue environment and TD, the
 * engine stand-in installed. */
void etht_init(struct emu_fw **fw, struct etht_env *e);
void etht_fini(struct emu_fw **fw, struct etht_env *e);

/* The commands whose inbox is a header and an id at 0x48 (QUERY_*,
 * DESTROY_*): the outbox status. */
uint8_t etht_id_cmd(struct etht_env *e, struct fwt_mbox *m, uint16_t op,
		    uint32_t id, size_t outlen);

/* CREATE_TIS on e's TD. */
void etht_tis_mbox(struct etht_env *e, struct fwt_mbox *m);
#define ETHT_TISC(m) PRM_ADDR_OF(create_tis_in, (m)->in, ctx)
uint32_t etht_tis(struct etht_env *e);

/* CREATE_SQ on e's PD, CQ, UAR and @tisn: 64 WQEBBs in a memory slot
 * (wq umem), its doorbell record in the doorbell umem. */
void etht_sq_mbox(struct etht_env *e, struct fwt_mbox *m, uint32_t tisn);
#define ETHT_SQC(m) PRM_ADDR_OF(create_sq_in, (m)->in, ctx)
#define ETHT_SQ_WQ(m) PRM_ADDR_OF(sqc, ETHT_SQC(m), wq)
uint32_t etht_sq(struct etht_env *e, uint32_t tisn);

/* CREATE_RQ on e's PD and CQ: 64 WQEs of 64 bytes, memory as the SQ's. */
void etht_rq_mbox(struct etht_env *e, struct fwt_mbox *m);
#define ETHT_RQC(m) PRM_ADDR_OF(create_rq_in, (m)->in, ctx)
#define ETHT_RQ_WQ(m) PRM_ADDR_OF(rqc, ETHT_RQC(m), wq)
uint32_t etht_rq(struct etht_env *e);

/* MODIFY_SQ/MODIFY_RQ from @cur to @to with @bitmask: the status. */
uint8_t etht_modify_sq(struct etht_env *e, struct fwt_mbox *m, uint32_t sqn,
		       uint32_t cur, uint32_t to, uint64_t bitmask);
uint8_t etht_modify_rq(struct etht_env *e, struct fwt_mbox *m, uint32_t rqn,
		       uint32_t cur, uint32_t to, uint64_t bitmask);

/* CREATE_RQT of max entries holding the n RQs of rqns. */
void etht_rqt_mbox(struct etht_env *e, struct fwt_mbox *m, uint32_t max,
		   const uint32_t *rqns, uint32_t n);
#define ETHT_RQTC(m) PRM_ADDR_OF(create_rqt_in, (m)->in, rqt_context)
uint32_t etht_rqt(struct etht_env *e, uint32_t max, const uint32_t *rqns,
		  uint32_t n);

/* CREATE_TIR: direct to @rqn, or indirect over @rqtn (Toeplitz over the
 * IPv4 addresses and TCP ports, key bytes 0..39). */
void etht_tir_direct_mbox(struct etht_env *e, struct fwt_mbox *m,
			  uint32_t rqn);
void etht_tir_indirect_mbox(struct etht_env *e, struct fwt_mbox *m,
			    uint32_t rqtn);
#define ETHT_TIRC(m) PRM_ADDR_OF(create_tir_in, (m)->in, ctx)
/* Runs a create (asserting success); the id at the outbox's 0x48. */
uint32_t etht_create(struct etht_env *e, struct fwt_mbox *m);

/* The firmware object of a type (a reference: emu_fw_obj_put). */
struct emu_fw_obj *etht_get(struct etht_env *e, enum emu_fw_obj_type t,
			    uint32_t id);

/* The users count of an object. */
int etht_users(struct etht_env *e, enum emu_fw_obj_type t, uint32_t id);

#endif /* MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_ETH_UTIL_H */
