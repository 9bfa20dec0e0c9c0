/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_link.c -- mlx5_ib's table from an Ethernet link mode to
 * the IB width and speed it reports (translate_eth_legacy_proto_oper and
 * translate_eth_ext_proto_oper in drivers/infiniband/hw/mlx5/main.c),
 * mode by mode.
 */
#include <errno.h>
#include <stddef.h>

#include "emu/device/dev_link.h"
#include "prm/prm_cmd.h"

struct link_rate {
	uint8_t mode;		/* MLX5E_* bit */
	uint8_t width;		/* EMU_IB_WIDTH_* */
	uint16_t speed;		/* EMU_IB_SPEED_* */
};

static const struct link_rate legacy_rates[] = {
	{ MLX5E_1000BASE_CX_SGMII, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_1000BASE_KX, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_100BASE_TX, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_1000BASE_T, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_10GBASE_T, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_CX4, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_KX4, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_KR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_CR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_SR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_10GBASE_ER, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_25GBASE_CR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_EDR },
	{ MLX5E_25GBASE_KR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_EDR },
	{ MLX5E_25GBASE_SR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_EDR },
	{ MLX5E_40GBASE_CR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_QDR },
	{ MLX5E_40GBASE_KR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_QDR },
	{ MLX5E_40GBASE_SR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_QDR },
	{ MLX5E_40GBASE_LR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_QDR },
	{ MLX5E_50GBASE_CR2, EMU_IB_WIDTH_1X, EMU_IB_SPEED_HDR },
	{ MLX5E_50GBASE_KR2, EMU_IB_WIDTH_1X, EMU_IB_SPEED_HDR },
	{ MLX5E_50GBASE_SR2, EMU_IB_WIDTH_1X, EMU_IB_SPEED_HDR },
	{ MLX5E_56GBASE_R4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_FDR },
	{ MLX5E_100GBASE_CR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_EDR },
	{ MLX5E_100GBASE_SR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_EDR },
	{ MLX5E_100GBASE_KR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_EDR },
	{ MLX5E_100GBASE_LR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_EDR },
};

static const struct link_rate ext_rates[] = {
	{ MLX5E_SGMII_100M, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_1000BASE_X_SGMII, EMU_IB_WIDTH_1X, EMU_IB_SPEED_SDR },
	{ MLX5E_5GBASE_R, EMU_IB_WIDTH_1X, EMU_IB_SPEED_DDR },
	{ MLX5E_10GBASE_XFI_XAUI_1, EMU_IB_WIDTH_1X, EMU_IB_SPEED_QDR },
	{ MLX5E_40GBASE_XLAUI_4_XLPPI_4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_QDR },
	{ MLX5E_25GAUI_1_25GBASE_CR_KR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_EDR },
	{ MLX5E_50GAUI_2_LAUI_2_50GBASE_CR2_KR2, EMU_IB_WIDTH_2X, EMU_IB_SPEED_EDR },
	{ MLX5E_50GAUI_1_LAUI_1_50GBASE_CR_KR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_HDR },
	{ MLX5E_CAUI_4_100GBASE_CR4_KR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_EDR },
	{ MLX5E_100GAUI_2_100GBASE_CR2_KR2, EMU_IB_WIDTH_2X, EMU_IB_SPEED_HDR },
	{ MLX5E_100GAUI_1_100GBASE_CR_KR, EMU_IB_WIDTH_1X, EMU_IB_SPEED_NDR },
	{ MLX5E_200GAUI_4_200GBASE_CR4_KR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_HDR },
	{ MLX5E_200GAUI_2_200GBASE_CR2_KR2, EMU_IB_WIDTH_2X, EMU_IB_SPEED_NDR },
	{ MLX5E_400GAUI_8_400GBASE_CR8, EMU_IB_WIDTH_8X, EMU_IB_SPEED_HDR },
	{ MLX5E_400GAUI_4_400GBASE_CR4_KR4, EMU_IB_WIDTH_4X, EMU_IB_SPEED_NDR },
	{ MLX5E_800GAUI_8_800GBASE_CR8_KR8, EMU_IB_WIDTH_8X, EMU_IB_SPEED_NDR },
};

int emu_link_ib_rate(bool ext, uint32_t eth_proto_oper, uint8_t *width,
		     uint16_t *speed)
{
	const struct link_rate *t = ext ? ext_rates : legacy_rates;
	size_t n = ext ? sizeof(ext_rates) / sizeof(ext_rates[0]) :
			 sizeof(legacy_rates) / sizeof(legacy_rates[0]);

	/* The kernel switches on the whole word: exactly one mode. */
	for (size_t i = 0; i < n; i++)
		if (eth_proto_oper == MLX5E_PROT_MASK(t[i].mode)) {
			*width = t[i].width;
			*speed = t[i].speed;
			return 0;
		}
	return -EINVAL;
}
