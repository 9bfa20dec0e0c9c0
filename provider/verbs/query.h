/* SPDX-License-Identifier: MIT */
/*
 * Device and port queries (query.c, query_port.c, gid.c, dv_query.c,
 * clock.c): the verbs_context ops they provide and the derivations other
 * areas reuse.
 */
#ifndef MLX5EMU_PROVIDER_VERBS_QUERY_H
#define MLX5EMU_PROVIDER_VERBS_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "backend/backend.h"

struct prov_context;

/*
 * What mlx5_ib returns beside ib_device_attr in its query_device udata
 * (struct mlx5_ib_query_device_resp), already in the mlx5dv/verbs
 * encodings libmlx5 copies them into.
 */
struct prov_device_resp {
	struct ibv_tso_caps tso_caps;
	uint64_t rx_hash_fields_mask;	/* enum ibv_rx_hash_fields */
	uint8_t rx_hash_function;	/* enum ibv_rx_hash_function_flags */
	struct mlx5dv_cqe_comp_caps cqe_comp_caps;
	struct ibv_packet_pacing_caps packet_pacing_caps;
	uint32_t packet_pacing_cap_flags;
	bool mpw_allowed;		/* MLX5_IB_ALLOW_MPW */
	bool enhanced_mpw;		/* MLX5_IB_SUPPORT_EMPW */
	bool cqe_128b_comp;		/* MLX5_IB_QUERY_DEV_RESP_FLAGS_CQE_128B_COMP */
	bool cqe_128b_pad;		/* ..._FLAGS_CQE_128B_PAD */
	bool packet_based_credit_mode;	/* ..._PACKET_BASED_CREDIT_MODE */
	bool scat2cqe_dct;		/* ..._FLAGS_SCAT2CQE_DCT */
	struct mlx5dv_sw_parsing_caps sw_parsing_caps;
	struct mlx5dv_striding_rq_caps striding_rq_caps;
	uint32_t tunnel_offloads_caps;	/* enum mlx5dv_tunnel_offloads */
	struct mlx5dv_dci_streams_caps dci_streams_caps;
};

/*
 * The whole ibv_device_attr_ex (phys_port_cnt_ex and pci_atomic_caps
 * included), as mlx5_ib_query_device and libmlx5 44 derive it.  0 or a
 * positive errno (a failed NIC vport or adapter query).
 */
int prov_query_device_attr(struct prov_context *pctx,
			   struct ibv_device_attr_ex *attr);

/* The mlx5 part of the kernel's answer, from the capability pages only. */
void prov_query_device_resp(struct prov_context *pctx,
			    struct prov_device_resp *resp);

/* The verbs_context op behind ibv_query_device(_ex). */
int prov_query_device_ex(struct ibv_context *ctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);

/* The verbs_context op behind the inline ibv_query_port(). */
int prov_query_port_op(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *port_attr, size_t port_attr_len);

/*
 * The backend's attributes of a port (zeroed first): 0 or a positive errno,
 * EINVAL for a port the device does not have (rdma_is_port_valid()).
 */
int prov_port_attr(struct prov_context *pctx, uint32_t port_num,
		   struct mlx5be_port_attr *pa);

/*
 * Port attributes as ibv_cmd_query_port returns them (0 or a positive
 * errno; EINVAL for a port the device does not have).
 */
int prov_query_port(struct prov_context *pctx, uint32_t port_num,
		    struct ibv_port_attr *attr);

/* The verbs_context op behind ibv_query_rt_values_ex(). */
int prov_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values);

/*
 * The GID entry at (@port_num, @index) as the kernel's QUERY_GID_ENTRY
 * method gives it: 0, ENODATA for an empty entry, EINVAL for a bad port or
 * index (positive errnos).
 */
int prov_query_gid_entry(struct prov_context *pctx, uint32_t port_num,
			 uint32_t index, struct ibv_gid_entry *entry);
/* The same for any context, a MANA one's included. */
int prov_query_gid_entry_any(struct ibv_context *context, uint32_t port_num,
			     uint32_t index, struct ibv_gid_entry *entry);

/* Installs the query ops on a new context (context_ops.c). */
void prov_query_set_ops(struct prov_context *pctx);

#endif /* MLX5EMU_PROVIDER_VERBS_QUERY_H */
