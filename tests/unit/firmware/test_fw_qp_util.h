/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the QP/SRQ/DCT Check suites (test_fw_qp*.c, test_fw_srq.c):
 * an environment of the objects a queue needs, good mailboxes for each QP
 * type and transition, and walks through the state machine.
 */
#ifndef MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_QP_UTIL_H
#define MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_QP_UTIL_H

#include "fw_test_util.h"

#include <stdbool.h>

/* QP memory: one umem of QPT_SLOTS slots, one doorbell umem. */
#define QPT_SLOT_BYTES 65536u
#define QPT_SLOTS 64u

/* GID table of port 1 as the tests set it: 0 RoCE v1 and 1 RoCE v2
 * link-local, 2/3 IPv4-mapped v1/v2, the rest empty (5 is empty). */
#define QPT_GID_V2 1
#define QPT_GID_EMPTY 5

/* The QP types the suites cover. */
enum qpt_type {
	QPT_RC,
	QPT_UC,
	QPT_UD,
	QPT_XRC_INI,
	QPT_XRC_TGT,
	QPT_DCI,
	QPT_NTYPES
};
const char *qpt_type_name(enum qpt_type t);

/* Objects of one uid (0: the kernel) a queue needs. */
struct qpt_env {
	struct emu_fw *fw;
	uint16_t uid;
	uint32_t pd, uar, eqn, cq, cq2, xrcd, srq;
	struct fwt_mem eqmem, cqmem[2], cqdbr[2], mem, dbr;
	unsigned int slot;
};

/* A device with the defaults and the GID table above; tweak as fwt_create. */
struct emu_fw *qpt_fw(void (*tweak)(struct emu_fw_caps *caps));
/* PD, UAR, an EQ (uid 0), two CQs, an XRC domain, a basic SRQ, the QP
 * memory; uctx: a new user context owns them, else uid 0. */
void qpt_env_init(struct qpt_env *e, struct emu_fw *fw, bool uctx);
/* Frees the memory (the device's objects go with emu_fw_destroy). */
void qpt_env_fini(struct qpt_env *e);
/* The Check fixture most suites use: a device (qpt_fw(NULL)) and the
 * environment of a user context on it; fini destroys the device first. */
void qpt_fixture_init(struct emu_fw **fw, struct qpt_env *e);
void qpt_fixture_fini(struct emu_fw **fw, struct qpt_env *e);

/* CREATE_QP of a good QP of type t in the next memory slot. */
void qpt_create_mbox(struct qpt_env *e, struct fwt_mbox *m, enum qpt_type t);
#define QPT_QPC(m) PRM_ADDR_OF(create_qp_in, (m)->in, qpc)
uint32_t qpt_create(struct qpt_env *e, enum qpt_type t);

/* A good CREATE_DCT on e's PD, CQ and SRQ, as mlx5_ib's
 * mlx5_ib_modify_dct fills it at RTR. */
void qpt_dct_mbox(struct qpt_env *e, struct fwt_mbox *m);
#define QPT_DCTC(m) PRM_ADDR_OF(create_dct_in, (m)->in, dct_context_entry)

/* A transition inbox (any of the nine); its qpc is QPT_TR_QPC. */
void qpt_tr_mbox(struct fwt_mbox *m, uint16_t opcode, uint16_t uid,
		 uint32_t qpn, uint32_t opt);
#define QPT_TR_QPC(m) PRM_ADDR_OF(rst2init_qp_in, (m)->in, qpc)
/* Good values for the fields opcode requires for type t. */
void qpt_tr_fill(struct qpt_env *e, struct fwt_mbox *m, uint16_t opcode,
		 enum qpt_type t);
/* One transition with good values; returns the status (m may be NULL). */
uint8_t qpt_tr(struct qpt_env *e, uint32_t qpn, uint16_t opcode,
	       enum qpt_type t, struct fwt_mbox *m);
/* RST2INIT, INIT2RTR, RTR2RTS, asserting success. */
void qpt_to_rts(struct qpt_env *e, uint32_t qpn, enum qpt_type t);

/* QUERY_QP into m (asserting success); the current state. */
void qpt_query(struct qpt_env *e, uint32_t qpn, struct fwt_mbox *m);
#define QPT_Q_QPC(m) PRM_ADDR_OF(query_qp_out, (m)->out, qpc)
uint32_t qpt_state(struct qpt_env *e, uint32_t qpn);
/* The firmware object (a reference: emu_fw_obj_put(&qp->obj)). */
struct emu_fw_qp *qpt_get(struct emu_fw *fw, uint32_t qpn);

/* Objects: an XRC domain, a basic SRQ (page list in e's memory), a queue
 * counter set. */
uint32_t qpt_xrcd(struct emu_fw *fw, uint16_t uid);
uint32_t qpt_srq(struct qpt_env *e);
uint32_t qpt_q_counter(struct emu_fw *fw, uint16_t uid);

/* The next free memory slot of e (offset in e->mem). */
unsigned int qpt_slot(struct qpt_env *e);

#endif /* MLX5EMU_TESTS_UNIT_FIRMWARE_TEST_FW_QP_UTIL_H */
