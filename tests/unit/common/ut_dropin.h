/* SPDX-License-Identifier: MIT */
/*
 * rdma-core calls shared by the unit tests that are ordinary programs
 * linked against the drop-in libibverbs.so.1/libmlx5.so.1 (devx/, verbs/,
 * query/); tests/unit/common.
 */
#ifndef MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H
#define MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H

#include <stdbool.h>

#include <infiniband/verbs.h>

/* Opens mlx5_0 (with MLX5DV_CONTEXT_FLAGS_DEVX if @devx); asserts. */
struct ibv_context *ut_open(bool devx);

/*
 * An RC QP through INIT, RTR and RTS to QP @rqpn at @gid (GID index 3 of
 * port 1 as the source, MTU 1024, PSNs 0x10, one outstanding READ each
 * way, @min_rnr as the responder's RNR timer, retries 7 (forever for
 * RNR)); 0 or the errno of the failed ibv_modify_qp.  No assertion, so
 * benchmarks and scenario programs use it too.
 */
int ut_rc_connect(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *gid,
		  uint8_t min_rnr);
/* The same with @access (IBV_ACCESS_REMOTE_*) as the QP's access flags
 * instead of IBV_ACCESS_REMOTE_WRITE. */
int ut_rc_connect_access(struct ibv_qp *qp, uint32_t rqpn,
			 const union ibv_gid *gid, uint8_t min_rnr,
			 unsigned int access);

/* QUERY_HCA_CAP (type, current) through DEVX into @out, a zeroed
 * query_hca_cap_out; the errno of mlx5dv_devx_general_cmd. */
int ut_query_hca_cap(struct ibv_context *ctx, unsigned int type, void *out);

#endif /* MLX5EMU_TESTS_UNIT_COMMON_UT_DROPIN_H */
