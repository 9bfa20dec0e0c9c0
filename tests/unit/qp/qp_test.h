/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the QP tests: a context with a PD and a CQ, QP init
 * attributes, the RC/UD transitions, and DEVX reads of what the firmware
 * holds for a verbs QP or SRQ.
 */
#ifndef MLX5EMU_TESTS_UNIT_QP_QP_TEST_H
#define MLX5EMU_TESTS_UNIT_QP_QP_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "verbs_test.h"

/* The context, PD and CQ every test starts from (qt_setup/qt_teardown). */
extern struct ibv_context *qt_ctx;
extern struct ibv_pd *qt_pd;
extern struct ibv_cq *qt_cq;

/* Opens mlx5_0 (DEVX), a PD and a 256-entry CQ; clears the libmlx5
 * environment variables the tests set. */
void qt_setup(void);
void qt_teardown(void);
/* The two halves of qt_setup: the variables cleared; the context, PD and
 * CQ opened under the environment as it is. */
void qt_clear_env(void);
void qt_open(void);

/* Init attributes for @type on qt_pd/qt_cq with the given caps. */
struct ibv_qp_init_attr qt_init_attr(enum ibv_qp_type type, uint32_t swr,
				     uint32_t rwr, uint32_t ssge, uint32_t rsge);

/* ibv_create_qp with qt_init_attr(); asserts success. */
struct ibv_qp *qt_create(enum ibv_qp_type type, uint32_t swr, uint32_t rwr);

/* The errno of a failing ibv_create_qp / ibv_create_qp_ex (0: it worked,
 * and the QP was destroyed again). */
int qt_create_err(struct ibv_qp_init_attr *attr);
int qt_create_ex_err(struct ibv_qp_init_attr_ex *attr);

/* A raw packet QP on qt_pd/qt_cq receiving @rwr WRs of one SGE, no send
 * queue; mlx5dv_create_qp of such attributes with the vendor create
 * flags @flags: the QP, or NULL and errno. */
struct ibv_qp_init_attr_ex qt_raw_rx_attr(uint32_t rwr);
struct ibv_qp *qt_raw_dv_create(struct ibv_qp_init_attr_ex *ax,
				uint64_t flags);

/* The device's RoCE v2 GID (index 1) of port 1. */
union ibv_gid qt_gid(int index);

/* RESET->INIT->RTR->RTS of an RC/UC QP connected to @rqpn at @dgid,
 * RoCE v2 path from GID index @sgid, remote @access, the PSNs given;
 * asserts each step. */
void qt_rc_connect(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *dgid,
		   int sgid, unsigned int access, uint32_t rq_psn,
		   uint32_t sq_psn);
/* qt_rc_connect() toward GID @sgid of qt_ctx, remote write and read. */
void qt_rc_to_rts(struct ibv_qp *qp, uint32_t rqpn, int sgid);
/* RESET->INIT->RTR->RTS of a UD QP; asserts. */
void qt_ud_to_rts(struct ibv_qp *qp, uint32_t qkey, uint32_t sq_psn);

/* QUERY_QP through mlx5dv_devx_qp_query into @out
 * (PRM_ST_SZ_BYTES(query_qp_out)); returns the call's result. */
int qt_devx_query_qp(struct ibv_qp *qp, void *out);

/* A data segment's 16 bytes at @p, written by hand (big-endian length,
 * lkey, address): the oracle WQE bytes are compared with. */
void qt_put_dseg(uint8_t *p, uint32_t len, uint32_t lkey, uint64_t addr);

/* The qpc state field of a QUERY_QP. */
uint32_t qt_fw_state(struct ibv_qp *qp);

#endif /* MLX5EMU_TESTS_UNIT_QP_QP_TEST_H */
