/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv_query_device and _mlx5dv_query_port, as libmlx5 44 answers them
 * (mlx5.c _mlx5dv_query_device, verbs.c __mlx5dv_query_port) over what the
 * kernel tells it: the context's CQE version, the mlx5 part of the
 * query_device response, the capability pages libmlx5 reads itself through
 * DEVX, and the kernel's MLX5_IB_METHOD_QUERY_PORT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "prm/prm.h"
#include "prm/prm_cmd.h"
#include "shell/abi_export.h"
#include "provider/core/caps.h"
#include "provider/core/context.h"
#include "provider/verbs/query.h"
#include "provider/mana/mana_prov.h"

/* libmlx5 mlx5.h: MLX5_DMA_MMO_MAX_SIZE, used when the cap is 0. */
#define PROV_DMA_MMO_MAX_SIZE (UINT64_C(1) << 31)

/*
 * CONFIG_HZ of the kernel whose clock_info we mirror (Debian 12's 6.1:
 * 250).  The kernel stores overflow_period in jiffies and libmlx5 reports
 * it as max_clock_info_update_nsec unchanged.
 */
#define PROV_KERNEL_HZ 250

/* mlx5_ib_alloc_ucontext with libmlx5 44's MLX5_LIB_CAP_DYN_UAR: the
 * kernel keeps no dynamic bfregs for the context. */
#define PROV_NUM_DYN_BFREGS 0

/* get_dc_odp_caps(): the ODP page, read through DEVX on each call. */
static uint32_t dc_odp_caps(struct prov_context *pctx)
{
	uint8_t *page = malloc(PROV_CAP_PAGE_BYTES);
	uint32_t ret = 0;

	if (!page)
		return 0;
	if (!prov_caps_query_page(pctx->be, pctx->bectx, MLX5_CAP_ODP,
				  HCA_CAP_OPMOD_GET_CUR, page)) {
#define DC_BIT(fld, bit) \
	do { if (PRM_GET(odp_cap, page, transport_page_fault_scheme_cap.dc_odp_caps.fld)) \
		ret |= (bit); } while (0)
		DC_BIT(send, IBV_ODP_SUPPORT_SEND);
		DC_BIT(receive, IBV_ODP_SUPPORT_RECV);
		DC_BIT(write, IBV_ODP_SUPPORT_WRITE);
		DC_BIT(read, IBV_ODP_SUPPORT_READ);
		DC_BIT(atomic, IBV_ODP_SUPPORT_ATOMIC);
		DC_BIT(srq_receive, IBV_ODP_SUPPORT_SRQ_RECV);
#undef DC_BIT
	}
	free(page);
	return ret;
}

/* get_hca_sig_caps(): signature offload from the general page. */
static void sig_caps(struct prov_context *pctx, struct mlx5dv_sig_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	if (!PROV_CAP_GEN(pctx, sho) || !PROV_CAP_GEN(pctx, sigerr_domain_and_sig_type))
		return;
	caps->block_prot = MLX5DV_SIG_PROT_CAP_T10DIF | MLX5DV_SIG_PROT_CAP_CRC;
	caps->block_size = MLX5DV_BLOCK_SIZE_CAP_512 | MLX5DV_BLOCK_SIZE_CAP_520 |
			   MLX5DV_BLOCK_SIZE_CAP_4096 | MLX5DV_BLOCK_SIZE_CAP_4160;
	caps->t10dif_bg = MLX5DV_SIG_T10DIF_BG_CAP_CRC | MLX5DV_SIG_T10DIF_BG_CAP_CSUM;
	caps->crc_type = MLX5DV_SIG_CRC_TYPE_CAP_CRC32;
	if (PROV_CAP_GEN(pctx, sig_block_4048))
		caps->block_size |= MLX5DV_BLOCK_SIZE_CAP_4048;
	if (PROV_CAP_GEN(pctx, sig_crc32c))
		caps->crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC32C;
	if (PROV_CAP_GEN(pctx, sig_crc64_xp10))
		caps->crc_type |= MLX5DV_SIG_CRC_TYPE_CAP_CRC64_XP10;
}

/* get_hca_general_caps(): crypto flags and engines from the general page.
 * The crypto page itself (wrapped-import state, DEK limits) is not
 * described by prm/; crypto is not emulated (docs/). */
static void crypto_caps(struct prov_context *pctx, struct mlx5dv_crypto_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	if (PROV_CAP_GEN(pctx, crypto))
		caps->flags |= MLX5DV_CRYPTO_CAPS_CRYPTO;
	if (PROV_CAP_GEN(pctx, aes_xts_single_block_le_tweak))
		caps->crypto_engines |= MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK;
	if (PROV_CAP_GEN(pctx, aes_xts_multi_block_be_tweak))
		caps->crypto_engines |= MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_SINGLE_BLOCK |
					MLX5DV_CRYPTO_ENGINES_CAP_AES_XTS_MULTI_BLOCK;
}

static uint64_t wr_memcpy_length(struct prov_context *pctx)
{
	unsigned int log_sz;

	if (!PROV_CAP_GEN(pctx, dma_mmo_sq) && !PROV_CAP_GEN(pctx, dma_mmo_qp))
		return 0;
	log_sz = PROV_CAP_GEN(pctx, log_dma_mmo_max_size);
	return log_sz ? UINT64_C(1) << log_sz : PROV_DMA_MMO_MAX_SIZE;
}

/*
 * The clock info page's overflow_period (mlx5_init_overflow_period): the
 * longest cycle span whose ns conversion cannot overflow, a third of the
 * counter's range at most, in jiffies.  False without clock info.
 */
static bool clock_info_overflow_period(struct prov_context *pctx, uint64_t *period)
{
	struct mlx5be_clock_info ci;
	uint64_t overflow_cycles, ns;

	if (!pctx->be->clock_info)
		return false;
	memset(&ci, 0, sizeof(ci));
	if (pctx->be->clock_info(pctx->bectx, &ci) || !ci.mult)
		return false;
	overflow_cycles = (~UINT64_C(0) >> 1) / ci.mult;
	if (overflow_cycles > ci.mask / 3)
		overflow_cycles = ci.mask / 3;
	ns = (overflow_cycles * ci.mult) >> (ci.shift & 63);
	ns /= 1000000000u / PROV_KERNEL_HZ;
	/* A zero period makes the kernel reschedule once a second. */
	*period = ns ? ns : PROV_KERNEL_HZ;
	return true;
}

MLX5EMU_ABI(mlx5dv_query_device);
int mlx5emu_abi_mlx5dv_query_device(struct ibv_context *ctx_in,
				    struct mlx5dv_context *attrs_out)
{
	/* libmlx5: no dv ops for a device not its own */
	if (prov_mana_is(ctx_in))
		return EOPNOTSUPP;
	struct prov_context *pctx = to_prov_context(ctx_in);
	struct prov_device_resp resp;
	uint64_t comp_mask_out = 0;
	uint64_t period;

	prov_query_device_resp(pctx, &resp);
	attrs_out->version = 0;
	attrs_out->flags = 0;
	if (prov_caps_cqe_version(pctx) == 1)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_CQE_V1;
	if (resp.mpw_allowed)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED;
	if (resp.cqe_128b_comp)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP;
	if (resp.cqe_128b_pad)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD;
	if (prov_caps_real_time_ts(pctx))
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS;
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) {
		attrs_out->cqe_comp_caps = resp.cqe_comp_caps;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	}
	if (resp.enhanced_mpw)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW;
	if (resp.packet_based_credit_mode)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE;
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_SWP) {
		attrs_out->sw_parsing_caps = resp.sw_parsing_caps;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_SWP;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_STRIDING_RQ) {
		attrs_out->striding_rq_caps = resp.striding_rq_caps;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS) {
		attrs_out->tunnel_offloads_caps = resp.tunnel_offloads_caps;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_DCI_STREAMS) {
		attrs_out->dci_streams_caps = resp.dci_streams_caps;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_DCI_STREAMS;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_DYN_BFREGS) {
		attrs_out->max_dynamic_bfregs = PROV_NUM_DYN_BFREGS;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_DYN_BFREGS;
	}
	if ((attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE) &&
	    clock_info_overflow_period(pctx, &period)) {
		attrs_out->max_clock_info_update_nsec = period;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS) {
		/* The kernel reports no IPsec flow actions for this device. */
		attrs_out->flow_action_flags = 0;
		comp_mask_out |= MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_DC_ODP_CAPS) {
		attrs_out->dc_odp_caps = dc_odp_caps(pctx);
		comp_mask_out |= MLX5DV_CONTEXT_MASK_DC_ODP_CAPS;
	}
	/*
	 * MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK stays clear: it hands out the
	 * mapped internal-timer register, which the backend does not map (as
	 * libmlx5 does when that mmap fails).
	 */
	if ((attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS) &&
	    PROV_CAP_GEN(pctx, num_lag_ports)) {
		attrs_out->num_lag_ports = PROV_CAP_GEN(pctx, num_lag_ports);
		comp_mask_out |= MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD) {
		sig_caps(pctx, &attrs_out->sig_caps);
		comp_mask_out |= MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH) {
		attrs_out->max_wr_memcpy_length = wr_memcpy_length(pctx);
		comp_mask_out |= MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	}
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD) {
		crypto_caps(pctx, &attrs_out->crypto_caps);
		comp_mask_out |= MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD;
	}
	attrs_out->comp_mask = comp_mask_out;
	return 0;
}

/*
 * MLX5_IB_METHOD_QUERY_PORT (mlx5_ib std_types.c): EINVAL unless info_len
 * is exactly the uapi struct (UVERBS_ATTR_STRUCT up to reg_c0, no trailing
 * bytes allowed on an output) and for a port the device does not have; the switchdev fields (vport, vhca ids, steering
 * ICM addresses, reg_c0) only in eswitch offloads mode, which this device
 * never is; the answer is all zeroes otherwise.
 */
MLX5EMU_ABI(_mlx5dv_query_port);
int mlx5emu_abi__mlx5dv_query_port(struct ibv_context *context, uint32_t port_num,
				   struct mlx5dv_port *info, size_t info_len)
{
	if (prov_mana_is(context))
		return EOPNOTSUPP;
	struct prov_context *pctx = to_prov_context(context);

	if (info_len != sizeof(*info))
		return EINVAL;
	if (port_num < 1 || port_num > prov_caps_num_ports(pctx))
		return EINVAL;
	memset(info, 0, info_len);
	return 0;
}
